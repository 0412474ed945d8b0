"""One forest's class vectors (docs/algorithms.md §C.2, SDF Eqs. 9 and 12): its trees' probabilities, their
average or weighted sum on new rows, their out-of-bag sums on the training rows, and :class:`ForestUnit`, one
forest of a cascade level (its fold-models and their tree weights).

A forest here is a fitted scikit-learn forest or a :class:`mvlab.siamese.compact.CompactForest`, whose trees are
summed by one compiled call with the same arithmetic. :mod:`mvlab.siamese.cascade` grows the levels from these.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.parallel import Parallel, delayed

from mvlab.core.threads import chunk_count
from mvlab.siamese.compact import CompactForest

__all__ = ["ForestUnit", "add_oob", "combine_trees", "fold_average", "forest_proba", "model_proba", "oob_sums",
           "tree_probas"]


def tree_probas(forest, X, n_classes, n_jobs=None):
    """Class probabilities of every tree of a fitted forest, shape (T, n_samples, n_classes).

    ``forest.classes_`` must be integer-encoded labels in ``range(n_classes)``; classes absent
    from the forest's training rows get probability 0. Trees are evaluated in parallel threads
    but every tree writes its own slice, so the result is deterministic.
    """
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    trees = forest.estimators_
    out = np.zeros((len(trees), X32.shape[0], n_classes))
    cols = np.asarray(forest.classes_, dtype=np.int64)

    def run(chunk):
        for t in chunk:
            out[t][:, cols] = trees[t].tree_.predict(X32)  # = predict_proba, without its per-call checks

    n_jobs = 1 if n_jobs is None else n_jobs
    if n_jobs == 1 or len(trees) < 8:
        run(range(len(trees)))
    else:
        chunks = np.array_split(np.arange(len(trees)), chunk_count(n_jobs, len(trees)))
        Parallel(n_jobs=n_jobs, prefer="threads")(delayed(run)(c) for c in chunks)
    return out


def forest_proba(forest, X, n_classes, weights=None, n_jobs=None):
    """Class vector of a fitted forest, shape (n_samples, n_classes), without storing every tree.

    ``weights=None`` gives the average of the trees' probabilities (Eq. 9); otherwise the
    weighted sum ``sum_t w_t p^{(t)}`` (Eq. 12), skipping trees of weight 0. Rows are split into
    chunks evaluated in parallel threads; within a chunk trees are accumulated in a fixed order,
    so the result does not depend on ``n_jobs``.
    """
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    trees = forest.estimators_
    T = len(trees)
    w = np.full(T, 1.0 / T) if weights is None else np.asarray(weights, dtype=np.float64)
    cols = np.asarray(forest.classes_, dtype=np.int64)
    n = X32.shape[0]
    out = np.zeros((n, n_classes))
    active = np.flatnonzero(w)

    def run(lo, hi):
        acc = np.zeros((hi - lo, cols.size))
        if isinstance(forest, CompactForest):  # every tree in one compiled call, the same sum
            forest.accumulate_proba(X32[lo:hi], active, w[active], acc)
        else:
            for t in active:
                acc += w[t] * trees[t].tree_.predict(X32[lo:hi])
        out[lo:hi, cols] = acc

    n_jobs = 1 if n_jobs is None else n_jobs
    n_chunks = 1 if (n_jobs == 1 or n < 2000) else chunk_count(n_jobs, n)
    bounds = np.linspace(0, n, n_chunks + 1).astype(int)
    if n_chunks == 1:
        run(0, n)
    else:
        Parallel(n_jobs=n_jobs, prefer="threads")(
            delayed(run)(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo
        )
    return out


def combine_trees(tp, w):
    """Class vector from tree probabilities ``tp`` (T, n, C): Eq. 9 (w None) or Eq. 12."""
    if w is None:
        return tp.mean(axis=0)
    return np.tensordot(w, tp, axes=(0, 0))


def add_oob(total, count, cols, tree, drawn, F):
    """Add one tree's class probabilities on its out-of-bag rows of ``F`` (float32, (n, d)) to ``total``
    (n, n_classes) and 1 to their ``count`` (n,): ``drawn`` its bootstrap draw (row indices), ``cols`` the
    columns of its classes."""
    out = np.ones(F.shape[0], dtype=bool)
    out[drawn] = False
    rows = np.flatnonzero(out)
    p = tree.tree_.predict(F[rows])
    for j, c in enumerate(cols):
        total[rows, c] += p[:, j]
    count[rows] += 1


def oob_sums(forest, F, n_classes):
    """Out-of-bag sums of a fitted bootstrapped forest on its training rows ``F`` (float32): ``total``
    (n, n_classes), every row's class probabilities summed over the trees that did not draw it, and
    ``count`` (n,), how many trees those are. Each tree predicts its out-of-bag rows only (about 37 %),
    and no (T, n, C) array of every tree's probabilities is made."""
    n = F.shape[0]
    total = np.zeros((n, n_classes))
    count = np.zeros(n)
    cols = np.asarray(forest.classes_, dtype=np.int64)
    for tree, inbag in zip(forest.estimators_, forest.estimators_samples_):
        add_oob(total, count, cols, tree, inbag, F)
    return total, count


def model_proba(model, F, n_classes, n_jobs):
    """Class vector of one fold-model ``model = (forest, tree weights)`` on the rows ``F``."""
    forest, weights = model
    return forest_proba(forest, F, n_classes, weights, n_jobs)


def fold_average(vectors):
    """Average of the fold-models' class vectors, summed in order (one arithmetic for every path)."""
    acc = None
    for v in vectors:
        acc = v if acc is None else acc + v
    return acc / len(vectors)


class ForestUnit:
    """One forest of a cascade level: its fitted estimators and their tree weights.

    Attributes
    ----------
    kind : {"completely_random", "random", "extra_trees"}
    estimators : list of fitted forests
        The k fold-models (``class_vectors="kfold"``) or one forest (``"oob"``); scikit-learn forests, or
        :class:`mvlab.siamese.compact.CompactForest` with ``compact_trees=True``.
    weights : list of (ndarray of shape (T,) or None)
        Tree weights of each estimator (Eq. 12); ``None`` is the plain average (Eq. 9).
    """

    def __init__(self, kind, estimators, weights):
        self.kind = kind
        self.estimators = estimators
        self.weights = weights

    def predict_proba(self, X, n_classes, n_jobs=None):
        """Class vector of the forest for new rows, shape (n, n_classes): fold-model average."""
        return fold_average(
            [forest_proba(est, X, n_classes, w, n_jobs) for est, w in zip(self.estimators, self.weights)]
        )
