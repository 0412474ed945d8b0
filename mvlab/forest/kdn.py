"""k-Disagreeing Neighbours hardness (Smith et al. 2014) in the feature subspace of every tree,
the weight of the RFD measure (docs/algorithms.md §A.5)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.parallel import Parallel, delayed

from mvlab.core.neighbours import distance_tie_tolerance, k_nearest_tolerant, squared_distances
from mvlab.core.threads import worker_count


def _kdn(Xs: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """kDN instance hardness (docs/algorithms.md §A.5, first formula) of every training row.

    Parameters
    ----------
    Xs : ndarray (n, f) float64
        Training rows restricted to a feature subspace.
    y : ndarray (n,) int
        Encoded labels.
    k : int
        Neighbours (self excluded; Euclidean distance).

    Returns
    -------
    kdn : ndarray (n,) float64, ``|{j in kNN(i): y_j != y_i}| / k``.

    Ties: the neighbours are taken one at a time, the next being the lowest-index row whose
    squared distance is within :func:`mvlab.core.neighbours.distance_tie_tolerance` of the
    smallest remaining one (:func:`mvlab.core.neighbours.k_nearest_tolerant`). Exact ties and
    ties that rounding hides (features on a decimal grid) both go to the lowest index; a slow
    per-row reference and exact integer-grid distances pin this in ``tests/test_forest_dissimilarity.py``.
    """
    n = Xs.shape[0]
    tol = distance_tie_tolerance(Xs)
    if n <= KDN_BLOCK_ROWS:
        D2 = squared_distances(Xs, Xs)
        nn = k_nearest_tolerant(D2, k, tol, exclude_diagonal=True, overwrite=True)
    else:  # row blocks: the rule is row by row, so the neighbours are the same; memory (block, n)
        nn = np.empty((n, k), dtype=np.intp)
        for a in range(0, n, KDN_BLOCK_ROWS):
            b = min(a + KDN_BLOCK_ROWS, n)
            D2 = squared_distances(Xs[a:b], Xs)
            D2[np.arange(b - a), np.arange(a, b)] = np.inf  # the row itself is never its neighbour
            nn[a:b] = k_nearest_tolerant(D2, k, tol, overwrite=True)
    return (y[nn] != y[:, None]).sum(axis=1) / float(k)


KDN_BLOCK_ROWS = 2048
"""Rows of one block of the kDN distance matrix (above it the search runs by blocks: 1.6 GB of float64
per block at 100,000 training rows; time stays O(n^2) per distinct feature set of a tree)."""


def _kdn_for_trees(X, y, k, feature_sets):
    out = np.zeros((X.shape[0], len(feature_sets)), dtype=np.float64)
    cache = {}
    for t, feats in enumerate(feature_sets):
        if feats.size == 0:
            continue  # a tree without split: kDN = 0 (documented)
        key = feats.tobytes()
        if key not in cache:
            cache[key] = _kdn(np.ascontiguousarray(X[:, feats], dtype=np.float64), y, k)
        out[:, t] = cache[key]
    return out


def kdn_per_tree(forest, X: np.ndarray, y: np.ndarray, k: int, n_jobs=None) -> np.ndarray:
    """``kDN_t(x_i)`` of every training row in the subspace of the features each tree splits on.

    Parameters
    ----------
    forest : fitted RandomForestClassifier (its ``estimators_`` give the feature subsets)
    X : ndarray (n_train, m) float64; y : ndarray (n_train,) encoded labels
    k : int
        Neighbours of kDN (self excluded).
    n_jobs : int or None
        Threads over blocks of trees (numpy releases the GIL); the result does not depend on it.

    Returns
    -------
    ndarray of float64, shape (n_train, T); 0 for a tree without any split.
    """
    feature_sets = []
    for est in forest.estimators_:
        f = est.tree_.feature
        feature_sets.append(np.unique(f[f >= 0]).astype(np.int64))
    n_jobs = min(worker_count(n_jobs), len(feature_sets))
    if n_jobs <= 1:
        return _kdn_for_trees(X, y, k, feature_sets)
    bounds = np.linspace(0, len(feature_sets), n_jobs + 1).round().astype(int)
    parts = Parallel(n_jobs=n_jobs, prefer="threads")(
        delayed(_kdn_for_trees)(X, y, k, feature_sets[a:b]) for a, b in zip(bounds[:-1], bounds[1:])
    )
    return np.concatenate(parts, axis=1)
