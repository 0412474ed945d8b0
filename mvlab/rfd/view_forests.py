"""One dissimilarity forest per view, fitted once and shared by every combination (§A.6 step 1).

:func:`fit_view_forests` -> :class:`ViewForests`: the per-view forests and their training
matrices ``D_q`` (n_train, n_train), and ``transform(X)`` for new rows (one (n_new, n_train)
matrix per view).  :func:`combine` is the joint matrix ``sum_q w_q D_q`` (§A.6 step 2), the
one float64 accumulation that every combination and every DVS candidate uses.
"""

from __future__ import annotations

from contextlib import closing
from typing import Sequence

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.parallel import Parallel, delayed

from mvlab.core.progress import ProgressCallback
from mvlab.core.progress import report as _report
from mvlab.core.threads import split_workers, worker_count
from mvlab.core.views import check_views
from mvlab.forest.dissimilarity import DENSE_MAX_ROWS, ForestDissimilarity
from mvlab.i18n import N_, Message

__all__ = ["ViewForests", "fit_view_forests", "combine"]


_MAX_INT = np.iinfo(np.int32).max


class ViewForests:
    """The fitted view forests and their training matrices, shared by every combination.

    Attributes
    ----------
    views : list of ndarray of int64
        Column indices of each view (Q views).
    view_names : list of str
    forests : list of ForestDissimilarity
        One fitted forest per view (``forests[q].forest_`` is the scikit-learn forest).
    dissimilarities : list of ndarray of float32, each (n_train, n_train)
        ``D_q`` of docs/algorithms.md §A.6 step 1.
    y : ndarray of int64, shape (n_train,)
        Encoded labels ``0..C-1``.
    classes : ndarray (C,)
        Original labels; ``classes[y]`` gives them back.
    seeds : ndarray of int64, shape (Q + 1,)
        Seeds of the view forests and (last) of the final forest(s).
    """

    def __init__(self, views, view_names, forests, y, classes, seeds):
        self.views = list(views)
        self.view_names = list(view_names)
        self.forests = list(forests)
        self.y = np.asarray(y)
        self.classes = np.asarray(classes)
        self.seeds = np.asarray(seeds)

    @property
    def dissimilarities(self) -> list[np.ndarray]:
        """``D_q`` (n_train, n_train) of every view; a ``ValueError`` above the forests'
        ``dense_max_rows`` (use :class:`mvlab.rfd.view_rows.ViewRows` there)."""
        return [f.train_dissimilarity_ for f in self.forests]

    @property
    def dense(self) -> bool:
        """Whether every view forest built its (n_train, n_train) matrix."""
        return all(f.dense_ for f in self.forests)

    @property
    def n_views(self) -> int:
        """Number of views, Q."""
        return len(self.views)

    @property
    def n_train(self) -> int:
        """Number of training rows."""
        return int(self.y.shape[0])

    @property
    def oob_accuracies(self) -> np.ndarray:
        """OOB accuracy of every view forest, shape (Q,) (rows never OOB count as errors)."""
        return np.array([f.oob_accuracy_ for f in self.forests])

    def transform(self, X, n_jobs=None) -> list[np.ndarray]:
        """Per-view dissimilarities of new rows to the training rows.

        Parameters
        ----------
        X : ndarray of shape (n_new, n_features)
            All columns (the views select theirs).

        Returns
        -------
        list of Q ndarrays of float32, each (n_new, n_train)  (§A.6 prediction step 1)
        """
        X = np.asarray(X, dtype=np.float64)
        jobs = min(worker_count(n_jobs), self.n_views)
        if jobs == 1:
            return [f.transform(X[:, v]) for f, v in zip(self.forests, self.views)]
        return Parallel(n_jobs=jobs, prefer="threads")(
            delayed(f.transform)(X[:, v]) for f, v in zip(self.forests, self.views)
        )


def fit_view_forests(
    X,
    y,
    views=None,
    *,
    measure="breiman",
    n_estimators: int = 100,
    max_features="sqrt",
    random_state=None,
    n_jobs=None,
    progress: ProgressCallback = None,
    dense_max_rows=DENSE_MAX_ROWS,
) -> ViewForests:
    """Fit one :class:`ForestDissimilarity` per view, in parallel over views (threads).

    Parameters
    ----------
    X : array-like of shape (n_train, n_features)
    y : array-like of shape (n_train,)
    views : list of index arrays, mapping name -> indices, or None
        See :func:`mvlab.core.views.check_views`.
    measure : str or Measure
        The dissimilarity of every view forest (:mod:`mvlab.forest.measures`).
    n_estimators, max_features
        Passed to every :class:`ForestDissimilarity`.
    random_state : int, RandomState or None
        Draws ``Q + 1`` seeds: view forest q gets ``seeds[q]``; ``seeds[Q]`` is left for the
        final forest.  The same ``random_state`` gives the same view forests whatever the
        combination.
    n_jobs : int or None
        Total threads: views run in parallel, each forest gets the remaining share.
    progress : callable (fraction, message), optional
        Called from the calling thread each time a view is done.
    dense_max_rows : int or None
        Passed to every :class:`ForestDissimilarity`: above it no (n_train, n_train) matrix.

    Returns
    -------
    ViewForests
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    classes, y_enc = np.unique(y, return_inverse=True)
    views, names = check_views(views, X.shape[1])
    seeds = check_random_state(random_state).randint(_MAX_INT, size=len(views) + 1)
    outer, inner = split_workers(n_jobs, len(views))
    makers = [
        ForestDissimilarity(
            measure=measure,
            n_estimators=n_estimators,
            max_features=max_features,
            random_state=int(seeds[q]),
            n_jobs=inner,
            dense_max_rows=dense_max_rows,
        )
        for q in range(len(views))
    ]
    _report(progress, 0.0, Message(N_("growing {n} view forest(s) of {trees} trees"), n=len(views),
                                   trees=n_estimators))
    forests = []
    if outer == 1:
        for q, (f, v) in enumerate(zip(makers, views)):
            forests.append(f.fit(X[:, v], y_enc))
            _report(progress, (q + 1) / len(views), Message(N_("view {view} done"), view=repr(names[q])))
    else:
        gen = Parallel(n_jobs=outer, prefer="threads", return_as="generator")(
            delayed(f.fit)(X[:, v], y_enc) for f, v in zip(makers, views)
        )
        with closing(gen):  # a stopped fit ends its threads now, not at garbage collection
            for q, f in enumerate(gen):
                forests.append(f)
                _report(progress, (q + 1) / len(views), Message(N_("view {view} done"), view=repr(names[q])))
    return ViewForests(views, names, forests, y_enc, classes, seeds)


def combine(dissimilarities: Sequence[np.ndarray], weights: Sequence[float]) -> np.ndarray:
    """Joint dissimilarity ``D = sum_q w_q D_q`` (§A.6 step 2), float32, same shape as each D_q."""
    weights = np.asarray(weights, dtype=np.float64)
    shape = np.shape(dissimilarities[0])
    if len(shape) != 2:
        out = np.zeros(shape, dtype=np.float64)
        for wq, D in zip(weights, dissimilarities):
            out += wq * np.asarray(D, dtype=np.float64)
        return out.astype(np.float32)
    # by blocks of rows: the same float64 operations per element, without an (n, n_cols) float64 temporary
    result = np.empty(shape, dtype=np.float32)
    step = max(1, _COMBINE_BLOCK // max(shape[1], 1))
    for a in range(0, shape[0], step):
        out = np.zeros((min(step, shape[0] - a), shape[1]), dtype=np.float64)
        for wq, D in zip(weights, dissimilarities):
            out += wq * np.asarray(D[a:a + step], dtype=np.float64)
        result[a:a + step] = out
    return result


_COMBINE_BLOCK = 1 << 21
"""Elements per block of :func:`combine` (16 MB of float64)."""
