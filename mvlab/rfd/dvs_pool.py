"""The pool of Dynamic View Selection (docs/algorithms.md §A.8 lines 1-6): one candidate random forest per
non-empty subset of views, grown on the average of the subset's dissimilarity matrices, and what the rules read
of it on the training rows (out-of-bag hits and probabilities, leave-one-out regions).

:class:`mvlab.rfd.dvs.DVSCombiner` grows the pool with :func:`fit_candidate` and keeps the training regions in
a :class:`TrainRegions`; the enumeration of subsets, their names and the cost guard are here too.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from itertools import combinations
from typing import NamedTuple, Optional, Sequence

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from mvlab.core.forest_fit import fit_forest
from mvlab.core.params import is_int as _is_int
from mvlab.rfd.view_forests import combine

__all__ = [
    "MAX_CANDIDATES_WITHOUT_WARNING",
    "MAX_CANDIDATES",
    "DVSCostWarning",
    "n_candidates",
    "check_pool_size",
    "view_subsets",
    "subset_names",
    "subset_dissimilarity",
    "oob_hits",
    "oob_predictions",
    "out_of_bag_rows",
    "SharedBootstraps",
    "out_of_bag_proba",
    "Candidate",
    "TrainRegions",
    "fit_candidate",
]

MAX_CANDIDATES_WITHOUT_WARNING = 2**10 - 1
MAX_CANDIDATES = 2**16 - 1


class DVSCostWarning(UserWarning):
    """The DVS pool is very large (2^Q - 1 forests); see ``max_subset_size``."""


# ----------------------------------------------------------------------------- subsets
def _check_max_subset_size(n_views: int, max_subset_size) -> int:
    if max_subset_size is None:
        return n_views
    if not _is_int(max_subset_size) or max_subset_size < 1:
        raise ValueError(f"max_subset_size must be None or a positive integer, got {max_subset_size!r}.")
    return min(int(max_subset_size), n_views)


def check_pool_size(n_views: int, max_subset_size=None) -> int:
    """The pool size for ``n_views`` views, or a ``ValueError`` saying why DVS should not run.

    More than :data:`MAX_CANDIDATES_WITHOUT_WARNING` candidates (Q > 10 without a size limit)
    is refused here. The DVS page (``DVSSettings.problems``) and every protocol run of the
    dissimilarity family with a DVS method (CLI ``run`` and ``reproduce``, the Benchmark page;
    ``Family.problems``) call this before training; the library itself only warns, with
    :class:`DVSCostWarning`, and refuses above :data:`MAX_CANDIDATES`.
    """
    P = n_candidates(n_views, max_subset_size)
    if P > MAX_CANDIDATES_WITHOUT_WARNING:
        raise ValueError(
            f"{n_views} views give {P} DVS candidate forests (one per non-empty subset of views, 2^{n_views} - 1); "
            "that is too many to train here. Use a dataset with at most 10 views, or limit the subsets' size.")
    return P


def n_candidates(n_views: int, max_subset_size=None) -> int:
    """Pool size: ``sum_{j=1..s} C(Q, j)`` (``2^Q - 1`` without a size limit, §A.8 line 1)."""
    s = _check_max_subset_size(n_views, max_subset_size)
    return sum(math.comb(n_views, j) for j in range(1, s + 1))


def view_subsets(n_views: int, max_subset_size=None) -> np.ndarray:
    """All non-empty view subsets in enumeration order (§A.8 line 1).

    Subsets are sorted by their integer code ``sum_{q in w} 2^q`` (view 0 is bit 0); with
    ``max_subset_size=s`` only subsets of at most ``s`` views are kept, in the same order.

    Returns
    -------
    subsets : ndarray of bool, shape (n_candidates, n_views)
        ``subsets[c, q]`` is True when candidate ``c`` uses view ``q``.

    Raises
    ------
    ValueError
        ``n_views < 1``, a bad ``max_subset_size``, or more than ``MAX_CANDIDATES`` subsets.
    """
    if not _is_int(n_views) or n_views < 1:
        raise ValueError(f"n_views must be a positive integer, got {n_views!r}.")
    s = _check_max_subset_size(n_views, max_subset_size)
    total = n_candidates(n_views, s)
    if total > MAX_CANDIDATES:
        raise ValueError(
            f"{n_views} views with subsets of up to {s} views give {total} DVS candidates "
            f"(one random forest each), more than the limit of {MAX_CANDIDATES}; "
            "set max_subset_size to a small number (e.g. 2 or 3)."
        )
    codes = sorted(sum(1 << q for q in comb) for j in range(1, s + 1) for comb in combinations(range(n_views), j))
    out = np.zeros((len(codes), n_views), dtype=bool)
    for c, code in enumerate(codes):
        for q in range(n_views):
            out[c, q] = bool((code >> q) & 1)
    return out


def subset_names(subsets: np.ndarray, view_names: Sequence[str]) -> list[str]:
    """Readable candidate names, the selected view names joined by ``" + "``."""
    return [" + ".join(str(view_names[q]) for q in np.flatnonzero(row)) for row in np.asarray(subsets, dtype=bool)]


def subset_dissimilarity(dissimilarities: Sequence[np.ndarray], mask) -> np.ndarray:
    """Average of the selected views' dissimilarities (§A.8 lines 4 and 9).

    Parameters
    ----------
    dissimilarities : Q arrays, each (n_rows, n_train)
        Training matrices ``D_q`` (line 4) or test rows ``d_q(x)`` (line 9).
    mask : bool array-like (Q,)
        The subset ``w``.

    Returns
    -------
    ndarray of float32, shape (n_rows, n_train)
        ``(1 / |w|) sum_{q in w} D_q``, computed by :func:`mvlab.rfd.view_forests.combine` with
        uniform weights, so the all-views candidate sees exactly the ``"average"`` matrix.
    """
    sel = np.flatnonzero(np.asarray(mask, dtype=bool))
    if sel.size == 0:
        raise ValueError("a view subset must select at least one view.")
    return combine([dissimilarities[q] for q in sel], np.full(sel.size, 1.0 / sel.size))


def oob_hits(forest: RandomForestClassifier, y: np.ndarray) -> np.ndarray:
    """OOB correctness of a forest fitted with ``oob_score=True`` on encoded labels ``y``.

    ``c^OOB(x_i)`` of §A.8 line 11 is the argmax of ``oob_decision_function_[i]``; a row
    that was never out-of-bag (all-zero row in scikit-learn) counts as incorrect.

    Returns
    -------
    ndarray of bool, shape (n_train,)
    """
    dec = np.asarray(forest.oob_decision_function_)
    seen = dec.sum(axis=1) > 0
    pred = np.asarray(forest.classes_)[dec.argmax(axis=1)]
    return seen & (pred == np.asarray(y))


def oob_predictions(forest: RandomForestClassifier) -> np.ndarray:
    """OOB predicted class index per training row, -1 for rows never out-of-bag, (n_train,)."""
    dec = np.asarray(forest.oob_decision_function_)
    pred = np.asarray(forest.classes_)[dec.argmax(axis=1)].astype(np.int64)
    pred[dec.sum(axis=1) <= 0] = -1
    return pred


def out_of_bag_rows(forest: RandomForestClassifier, n_train: int) -> np.ndarray:
    """Which training rows each tree's bootstrap did not draw, bool (T, n_train) (from ``estimators_samples_``)."""
    return np.stack([np.bincount(in_bag, minlength=n_train) == 0 for in_bag in forest.estimators_samples_])


class SharedBootstraps:
    """The out-of-bag rows of the trees, found once for a whole pool (:func:`out_of_bag_rows`).

    The candidates grow with one seed (§A.8 [REC], common random numbers), so their trees get the same
    seeds and draw the same bootstrap samples; the rows are kept by the trees' seeds, so a forest grown
    with other seeds gets its own.  Safe to share between the threads growing the candidates.
    """

    def __init__(self, n_train: int):
        self.n_train = n_train
        self._rows: dict[tuple, np.ndarray] = {}
        self._lock = threading.Lock()

    def of(self, forest: RandomForestClassifier) -> np.ndarray:
        """:func:`out_of_bag_rows` of ``forest``, (T, n_train) bool."""
        key = tuple(int(tree.random_state) for tree in forest.estimators_)
        with self._lock:
            if key not in self._rows:
                self._rows[key] = out_of_bag_rows(forest, self.n_train)
            return self._rows[key]


def out_of_bag_proba(forest: RandomForestClassifier, X: np.ndarray, oob: Optional[np.ndarray] = None) -> np.ndarray:
    """Out-of-bag class probabilities of a bootstrap forest fitted on ``X`` (§A.8 line 11's ``c^OOB``).

    Row ``i`` is the mean, over the trees whose bootstrap did not draw ``i``, of the tree's class
    probabilities for ``X[i]``; a row never out-of-bag is all zeros.  This is scikit-learn's
    ``oob_decision_function_`` bit for bit (the same float64 additions, tree by tree, then the same
    division), without its cost: scikit-learn copies every tree's out-of-bag rows of ``X`` (a third of
    an (n_train, n_train) matrix per tree) to predict them and draws every bootstrap again; here each
    tree looks up the leaves of all rows in place and only the out-of-bag rows are added.

    Parameters
    ----------
    forest : RandomForestClassifier
        Fitted with ``bootstrap=True`` on ``X`` (with or without ``oob_score``).
    X : ndarray of float32, shape (n_train, n_features)
        Its training matrix.
    oob : ndarray of bool (T, n_train), optional
        :func:`out_of_bag_rows` of the forest, when already known (:class:`SharedBootstraps`).

    Returns
    -------
    ndarray of float64, shape (n_train, n_classes)
    """
    X = np.ascontiguousarray(X, dtype=np.float32)  # the trees' dtype: no conversion per tree
    n = X.shape[0]
    oob = out_of_bag_rows(forest, n) if oob is None else oob
    total = np.zeros((n, forest.n_classes_), dtype=np.float64)
    for tree, rows in zip(forest.estimators_, oob):
        total[rows] += tree.predict_proba(X, check_input=False)[rows]
    return total / np.maximum(oob.sum(axis=0), 1)[:, None]


class Candidate(NamedTuple):
    """One grown candidate and what the rules read of it on the training rows (n_train rows)."""

    forest: RandomForestClassifier
    oob_hits: np.ndarray  # (n_train,) bool, §A.8 line 11
    oob_predictions: np.ndarray  # (n_train,) class index, -1 for rows never out-of-bag
    oob_true_proba: np.ndarray  # (n_train,) out-of-bag probability of the true class


@dataclass
class TrainRegions:
    """The leave-one-out regions of the training rows (k neighbours among the n_train - 1 others) under the
    region rules (:data:`mvlab.rfd.dvs_rules.REGION_RULES`), found when a rule first needs them and kept by
    the rule's name as its search returned them (``found``: name -> (idx, dist), one (n_train, k) pair per
    searched space, or the (P, n_train, k) regions of every candidate).  Exact space: ``views`` are the Q
    (n_train, n_train) training matrices, searched by the rule's ``exact`` (``exclude_self``).  With
    prototypes, ``source`` (a :class:`mvlab.rfd.view_rows.ViewRows`) searches the training rows by blocks."""

    k: int
    subsets: np.ndarray
    source: object = None
    found: dict = field(default_factory=dict)
    views: Optional[list] = None
    n_jobs: Optional[int] = None

    def for_rule(self, rule) -> tuple[np.ndarray, np.ndarray]:
        """Regions (P, n_train, k) and their dissimilarities under the region rule ``rule``, searched once."""
        if rule.name not in self.found and self.source is None:  # every candidate's regions: spread keeps them
            idx, dist = rule.exact(self.views, self.subsets, self.k, n_jobs=self.n_jobs, with_dissimilarities=True,
                                   exclude_self=True)
            if idx.strides[0] == 0:  # one region broadcast to every candidate: keep one (a pickle copies views)
                idx, dist = idx[:1], dist[:1]
            self.found[rule.name] = (idx, dist)
        elif rule.name not in self.found:
            _, idx, dist = self.source.scan(None, rule.combos(self.subsets), self.k, exclude_self=True)
            self.found[rule.name] = (idx, dist)
        return rule.spread(*self.found[rule.name], self.subsets.shape[0])


def fit_candidate(dissimilarities, mask, y, n_estimators, max_features, seed, n_jobs,
                  bootstraps: Optional[SharedBootstraps] = None) -> Candidate:
    """Grow one candidate (§A.8 lines 4-5) and read its out-of-bag evidence.

    The forest is the one ``RandomForestClassifier(oob_score=True)`` gives, tree for tree (grown by
    :func:`mvlab.core.forest_fit.fit_forest`), with its ``oob_decision_function_`` and ``oob_score_``
    (:func:`out_of_bag_proba`, bit for bit); it predicts
    single-threaded (a threaded ``predict_proba`` sums the trees in a varying order).  ``bootstraps``:
    the pool's out-of-bag rows, found once for all candidates.
    """
    Dw = subset_dissimilarity(dissimilarities, mask)
    forest = fit_forest(RandomForestClassifier(  # scikit-learn's trees without its Python around each of them
        n_estimators=n_estimators,
        max_features=max_features,
        bootstrap=True,
        random_state=seed,
        n_jobs=n_jobs,
    ), Dw, y)
    dec = out_of_bag_proba(forest, Dw, None if bootstraps is None else bootstraps.of(forest))
    encoded = np.searchsorted(forest.classes_, y)
    forest.oob_decision_function_ = dec
    forest.oob_score_ = float(np.mean(dec.argmax(axis=1) == encoded))
    forest.set_params(oob_score=True, n_jobs=1)
    true_proba = dec[np.arange(len(y)), encoded]  # 0 for rows never OOB
    return Candidate(forest, oob_hits(forest, y), oob_predictions(forest), true_proba)
