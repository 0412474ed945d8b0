"""Ranks of methods within blocks: Friedman ranks (Demšar 2006 Sec. 3.2.2) and the aligned ranks of
Hodges & Lehmann (``docs/algorithms.md`` B.7 steps 1-2).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _st

from mvlab.stats._base import _as_score_matrix


def friedman_ranks(x: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Ranks of the methods inside each block of a validated score matrix ``x`` (n_blocks, n_methods):
    1 = best, ties averaged (Demšar 2006, Sec. 3.2.2); the array :func:`rank_within_blocks` labels."""
    return _st.rankdata(-x if higher_is_better else x, method="average", axis=1)


def rank_within_blocks(scores, higher_is_better: bool = True) -> pd.DataFrame:
    """Rank the methods inside each block (row): rank 1 = best, ties get average ranks.

    Parameters
    ----------
    scores : array-like or DataFrame, shape (n_blocks, n_methods)
    higher_is_better : bool, default True
        True for accuracies, False for errors or run times.

    Returns
    -------
    DataFrame, shape (n_blocks, n_methods), the rank r_b^j of method j in block b
    (Demšar 2006, Sec. 3.2.2).
    """
    x, methods, blocks = _as_score_matrix(scores, min_blocks=1)
    r = friedman_ranks(x, higher_is_better)
    return pd.DataFrame(r, index=pd.Index(blocks, name="block"), columns=pd.Index(methods, name="method"))


def average_ranks(scores, higher_is_better: bool = True) -> pd.Series:
    """Average rank of each method over the blocks, ``R_j = (1/N) sum_b r_b^j``.

    Rank 1 = best inside each block; tied methods share the average of their ranks
    (Demšar 2006, Sec. 3.2.2). The ranks of the K methods always average to (K+1)/2.

    Parameters
    ----------
    scores : array-like or DataFrame, shape (n_blocks, n_methods)
    higher_is_better : bool, default True

    Returns
    -------
    Series of length n_methods, indexed by method name, named ``"average_rank"``.
    """
    ranks = rank_within_blocks(scores, higher_is_better=higher_is_better)
    return ranks.mean(axis=0).rename("average_rank")


def _rank_descending_with_tolerance(values: np.ndarray, rtol: float = 1e-9) -> np.ndarray:
    """Rank a 1-D array, 1 = largest; values closer than ``rtol * max(1, max|v|)`` are tied.

    The tolerance absorbs floating-point noise of the alignment (``0.3 - 0.2`` vs ``0.1``), so
    values that are equal in exact arithmetic share their average rank.
    """
    v = np.asarray(values, dtype=float)
    order = np.argsort(-v, kind="mergesort")
    s = -v[order]  # ascending
    tol = rtol * max(1.0, float(np.max(np.abs(v))) if v.size else 1.0)
    new_group = np.empty(s.size, dtype=bool)
    new_group[:1] = True
    new_group[1:] = np.diff(s) > tol
    group = np.cumsum(new_group) - 1
    pos = np.arange(1, s.size + 1, dtype=float)
    sums = np.bincount(group, weights=pos)
    counts = np.bincount(group)
    ranks_sorted = (sums / counts)[group]
    out = np.empty_like(ranks_sorted)
    out[order] = ranks_sorted
    return out


def _aligned_ranks(x: np.ndarray, higher_is_better: bool) -> np.ndarray:
    aligned = x - x.mean(axis=1, keepdims=True)  # step 1
    if not higher_is_better:
        aligned = -aligned
    return _rank_descending_with_tolerance(aligned.ravel()).reshape(x.shape)  # step 2
