"""k-Disagreeing Neighbours hardness (Smith et al. 2014) in the feature subspace of every tree,
the weight of the RFD measure (ALGORITHMS.md §A.5)."""

from __future__ import annotations

import numpy as np

from sklearn.utils.parallel import Parallel, delayed

from mvlab.core.neighbours import k_smallest_mask
from mvlab.core.threads import worker_count


def _kdn(Xs: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """kDN instance hardness (ALGORITHMS.md §A.5, first formula) of every training row.

    Parameters
    ----------
    Xs : ndarray (n, f) float64
        Training rows restricted to a feature subspace.
    y : ndarray (n,) int
        Encoded labels.
    k : int
        Neighbours (self excluded; Euclidean distance; ties broken by index).

    Returns
    -------
    kdn : ndarray (n,) float64, ``|{j in kNN(i): y_j != y_i}| / k``.
    """
    sq = np.einsum("ij,ij->i", Xs, Xs)
    D2 = sq[:, None] + sq[None, :] - 2.0 * (Xs @ Xs.T)
    np.maximum(D2, 0.0, out=D2)
    mask = k_smallest_mask(D2, k, exclude_diagonal=True)
    disagree = mask & (y[None, :] != y[:, None])
    return disagree.sum(axis=1) / float(k)


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
