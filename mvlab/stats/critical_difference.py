"""Critical differences of average ranks and the groups a critical-difference diagram joins (Demšar 2006
Sec. 3.2.2, Figs. 1-2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats as _st

from mvlab.stats._base import _as_score_matrix, _check_alpha, _check_k_n, _RanksOfMethods, _resolve_control, _Result
from mvlab.stats.posthoc import bonferroni_dunn_critical_difference, posthoc_vs_control
from mvlab.stats.ranks import friedman_ranks


def nemenyi_critical_difference(n_methods: int, n_blocks: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference of average Friedman ranks, all pairs (Demšar 2006 Sec. 3.2.2).

    ``CD = q_alpha * sqrt(K (K+1) / (6 N))`` with ``q_alpha = Q_{1-alpha}(K, inf) / sqrt(2)``, the
    upper quantile of the studentized range of K means with infinite degrees of freedom
    (``scipy.stats.studentized_range``) over sqrt(2). Two methods whose average ranks differ by at
    least the CD are significantly different. Demšar's Table 5(a): q_0.05 = 1.960, 2.343, 2.569,
    2.728, 2.850, 2.949, 3.031, 3.102, 3.164 for K = 2..10; e.g. K = 4, N = 15 gives CD = 1.211.
    For K = 2 it equals the Bonferroni-Dunn CD (:func:`bonferroni_dunn_critical_difference`),
    which is smaller for K > 2 because it makes only the K-1 comparisons with a control.

    Parameters
    ----------
    n_methods : int, K >= 2
    n_blocks : int, N >= 1 (data sets)
    alpha : float, default 0.05

    Returns
    -------
    float, the CD on the average-rank scale.
    """
    k, n = _check_k_n(n_methods, n_blocks)
    alpha = _check_alpha(alpha)
    q = float(_st.studentized_range.ppf(1.0 - alpha, k, np.inf)) / math.sqrt(2.0)
    return q * math.sqrt(k * (k + 1) / (6.0 * n))


def nonsignificant_groups(average_ranks, critical_difference: float) -> tuple[tuple[str, ...], ...]:
    """The bars of a critical-difference diagram: maximal groups of methods not significantly different.

    Methods i and j are *not* significantly different when ``|R_i - R_j| < critical_difference``
    (Demšar 2006: different when the ranks differ by at least the CD). A group is a maximal set of
    two or more methods that are pairwise not different (a maximal clique); on the rank line these
    are the maximal runs of consecutive methods whose first and last ranks differ by less than the
    CD. Each such run is one bar of the diagram.

    Parameters
    ----------
    average_ranks : Series or mapping, method -> average rank (1 = best)
    critical_difference : float >= 0

    Returns
    -------
    tuple of tuples of method names: every group ordered best first, the groups ordered by their
    best member; methods in no group differ significantly from every other method.
    """
    ranks = pd.Series(average_ranks, dtype=float) if not isinstance(average_ranks, pd.Series) else average_ranks
    if ranks.isna().any() or not np.all(np.isfinite(ranks.to_numpy(dtype=float))):
        raise ValueError("average_ranks must be finite numbers, one per method.")
    cd = float(critical_difference)
    if not (cd >= 0.0 and math.isfinite(cd)):
        raise ValueError(f"critical_difference must be a finite number >= 0; got {critical_difference!r}.")
    ranks = ranks.sort_values(kind="mergesort")
    names = [str(m) for m in ranks.index]
    r = ranks.to_numpy(dtype=float)
    groups, last = [], 0
    for i in range(len(r)):
        j = int(np.searchsorted(r, r[i] + cd, side="left")) - 1  # last method with r[j] - r[i] < cd
        if j > i and j > last:
            groups.append(tuple(names[i : j + 1]))
            last = j
    return tuple(groups)


@dataclass(frozen=True)
class CriticalDifferenceResult(_RanksOfMethods, _Result):
    """Average ranks, a critical difference and the groups a critical-difference diagram joins.

    ``test`` is ``"nemenyi"`` (all pairs: ``groups`` are the maximal groups of
    :func:`nonsignificant_groups`), ``"bonferroni-dunn"`` (1xN against ``control``: the one group
    is the control with every method within the CD of it) or ``"holm"`` (1xN: the control with every
    method Holm's step-down procedure does not reject; ``critical_difference`` is NaN, since Holm
    has no single CD). In the 1xN variants only comparisons with the control are made, so two
    members of the group may differ by more than a CD from each other. ``methods`` and
    ``average_ranks`` are aligned, best first.
    """

    test: str
    alpha: float
    n_blocks: int
    n_methods: int
    critical_difference: float
    methods: tuple[str, ...]
    average_ranks: tuple[float, ...]
    groups: tuple[tuple[str, ...], ...]
    control: str | None = None

    @property
    def label(self) -> str:
        """``"Nemenyi, all pairs"``, ``"Bonferroni-Dunn against dvs"`` or ``"Holm against dvs"``."""
        name = {"nemenyi": "Nemenyi", "bonferroni-dunn": "Bonferroni-Dunn", "holm": "Holm"}[self.test]
        return f"{name}, all pairs" if self.control is None else f"{name} against {self.control}"

    def to_text(self, block_name: str = "blocks") -> str:
        """A text rendering of the diagram: the CD, the ranks and the groups, one per line."""
        cd = "" if math.isnan(self.critical_difference) else f"CD = {self.critical_difference:.3f}, "
        out = [f"{self.label} (α = {self.alpha:g}): {cd}{self.n_methods} methods over {self.n_blocks} {block_name}",
               "  average ranks (1 = best): " + ", ".join(f"{m} {r:.2f}" for m, r in zip(self.methods,
                                                                                         self.average_ranks))]
        if self.control is None:
            if not self.groups:
                out.append("  every pair differs significantly")
            for g in self.groups:
                out.append("  not significantly different: " + ", ".join(g))
        else:
            same = [m for m in (self.groups[0] if self.groups else ()) if m != self.control]
            other = [m for m in self.methods if m != self.control and m not in same]
            out.append(f"  not significantly different from {self.control}: " + (", ".join(same) or "none"))
            out.append(f"  significantly different from {self.control}: " + (", ".join(other) or "none"))
        return "\n".join(out)


def critical_difference_groups(
    scores,
    *,
    test: Literal["nemenyi", "bonferroni-dunn", "holm"] = "nemenyi",
    control=None,
    alpha: float = 0.05,
    higher_is_better: bool = True,
) -> CriticalDifferenceResult:
    """What a critical-difference diagram shows (Demšar 2006 Sec. 3.2.2, Figs. 1-2).

    From the average Friedman ranks of ``scores`` (shape (n_blocks, n_methods)):

    * ``test="nemenyi"``: all pairs; CD of :func:`nemenyi_critical_difference`, groups of
      :func:`nonsignificant_groups` (no ``control``);
    * ``test="bonferroni-dunn"``: against ``control``; CD of
      :func:`bonferroni_dunn_critical_difference`; the group is the control and the methods whose
      rank is within the CD of it (the same as the Bonferroni-Dunn non-rejections of
      :func:`posthoc_vs_control`);
    * ``test="holm"``: against ``control``; the group is the control and the methods Holm's
      procedure does not reject (:func:`posthoc_vs_control` with ``test="friedman"``).

    Demšar: run the post-hoc only when Friedman's test (:func:`friedman_test`) rejects.

    Returns
    -------
    CriticalDifferenceResult
    """
    alpha = _check_alpha(alpha)
    x, methods, _ = _as_score_matrix(scores)
    n, k = x.shape
    ranks = pd.Series(friedman_ranks(x, higher_is_better).mean(axis=0),
                      index=list(methods)).sort_values(kind="mergesort")
    if test == "nemenyi":
        if control is not None:
            raise ValueError("the Nemenyi test compares all pairs; leave control=None (or use test='holm' or "
                             "'bonferroni-dunn' to compare with a control).")
        cd = nemenyi_critical_difference(k, n, alpha)
        groups = nonsignificant_groups(ranks, cd)
        control_name = None
    elif test in ("bonferroni-dunn", "holm"):
        if control is None:
            raise ValueError(f"test={test!r} compares every method with a control; give control=<method name>.")
        control_name = methods[_resolve_control(control, methods)]
        if test == "bonferroni-dunn":
            cd = bonferroni_dunn_critical_difference(k, n, alpha)[0]
            same = {m for m in methods if abs(ranks[m] - ranks[control_name]) < cd}
        else:
            cd = float("nan")
            ph = posthoc_vs_control(pd.DataFrame(x, columns=list(methods)), control_name, test="friedman",
                                    alpha=alpha, higher_is_better=higher_is_better)
            same = {control_name} | {m for m, rejected in zip(ph.methods, ph.reject_holm) if not rejected}
        group = tuple(m for m in ranks.index if m in same)
        groups = (group,) if len(group) >= 2 else ()
    else:
        raise ValueError(f"test must be 'nemenyi', 'bonferroni-dunn' or 'holm'; got {test!r}.")
    return CriticalDifferenceResult(
        test=test,
        alpha=alpha,
        n_blocks=n,
        n_methods=k,
        critical_difference=float(cd),
        methods=tuple(str(m) for m in ranks.index),
        average_ranks=tuple(float(v) for v in ranks.to_numpy()),
        groups=groups,
        control=control_name,
    )
