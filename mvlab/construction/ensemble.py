"""View ensembles and performance weighting (docs/algorithms.md B.3, B.6).

* :class:`ViewEnsemble` trains one classifier per view (given views, or views
  learned by a partitioner such as :class:`mvlab.construction.partition.OFSP`) and combines
  them by the performance-weighted vote of Eqs. 9-10 or by a plain majority vote.
* Diversity of the members: :mod:`mvlab.construction.diversity`.
* :func:`percent_features_used` (B.6) and :func:`timed_fit` (wall-clock and CPU time).

Prediction arrays: ``predictions`` is ``(n_classifiers, n_samples)``; a single
classifier's predictions are ``(n_samples,)``.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.dummy import DummyClassifier
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from mvlab.construction.estimators import ESTIMATOR_NAMES, incremental_kind, make_evaluator, resolve_estimator
from mvlab.construction.inner_folds import make_folds, pooled_accuracy
from mvlab.core.params import N_JOBS, RANDOM_STATE, HasMethods, StrOptions
from mvlab.core.progress import ProgressCallback
from mvlab.core.views import check_views

__all__ = [
    "ViewEnsemble",
    "performance_weights",
    "weighted_vote",
    "percent_features_used",
    "Timing",
    "timed_fit",
    "member_errors",
]


# --------------------------------------------------------------------------- weighting

def performance_weights(errors):
    """Eq. 9: ``alpha_i = (1 - e_i) / sum_j (1 - e_j)``.

    ``errors``: shape (k,), each in [0, 1]. If every member has error 1 the sum is
    0 and the weights fall back to uniform ``1/k``. Returns shape (k,).
    """
    e = np.asarray(errors, dtype=np.float64)
    if e.ndim != 1 or e.size == 0:
        raise ValueError("errors must be a non-empty 1-D array of member error rates.")
    if np.any(~np.isfinite(e)) or np.any(e < 0) or np.any(e > 1):
        raise ValueError("error rates must lie in [0, 1].")
    acc = 1.0 - e
    total = acc.sum()
    if total <= 0:
        return np.full(e.size, 1.0 / e.size)
    return acc / total


def weighted_vote(predictions, weights, classes):
    """Eq. 10: ``C(s) = argmax_c sum_i alpha_i * I(f_i(s) == c)``.

    ``predictions`` (k, n) labels, ``weights`` (k,), ``classes`` (C,) sorted.
    Returns ``(labels (n,), votes (n, C))``; ``votes`` rows sum to ``sum(weights)``.
    Ties go to the first class in ``classes``.
    """
    P = np.asarray(predictions)
    w = np.asarray(weights, dtype=np.float64)
    classes = np.asarray(classes)
    votes = np.zeros((P.shape[1], len(classes)))
    for c, cls in enumerate(classes):
        votes[:, c] = w @ (P == cls)
    return classes[np.argmax(votes, axis=1)], votes


# --------------------------------------------------------------------------- ensemble

def _member_error(estimator, X, y, view, rows, folds):
    """Inner-CV error of one member: pooled over ``folds`` of the training rows.

    The member trains on ``rows`` (all rows, or a bootstrap multiset) restricted to
    the fold's training rows, and is tested on the fold's test rows.
    """
    correct = total = 0
    Xv = X[:, view]
    for tr, te in folds:
        r = rows[np.isin(rows, tr)]
        if r.size == 0:
            raise ValueError("an inner fold leaves a member without training rows; "
                             "use fewer inner folds.")
        est = _fit_on(estimator, Xv[r], y[r])
        correct += int(np.sum(est.predict(Xv[te]) == y[te]))
        total += len(te)
    return 1.0 - pooled_accuracy(correct, total)     # e_i = 1 - A_i (B.3)


def member_errors(estimator, X, y, views, rows, folds, evaluator="auto", parallel=None):
    """Inner-CV errors ``e_i = 1 - A_i`` (B.3) of the members on ``views``, shape (k,).

    Members trained on every training row (``rows`` None) are scored by the incremental evaluator of
    ``estimator`` when it has one (:func:`mvlab.construction.estimators.make_evaluator`: the same folds, the same
    pooled counts, the predictions of a refit; on the View construction page's default sweep it took the sweep
    from 11 s to a third of that); bootstrap members (``rows`` given, Bagging), other estimators and
    ``evaluator="naive"`` refit a clone on every fold (:func:`_member_error`, the reference the tests compare
    with)."""
    if rows is None and evaluator != "naive" and incremental_kind(estimator) is not None:
        with make_evaluator(estimator, X, y, folds, evaluator=evaluator) as scorer:
            return np.array([1.0 - scorer.score_subset(v) for v in views], dtype=np.float64)
    every = [np.arange(len(y))] * len(views) if rows is None else rows
    run = parallel if parallel is not None else Parallel(n_jobs=1)
    return np.asarray(run(delayed(_member_error)(estimator, X, y, v, r, folds) for v, r in zip(views, every)),
                      dtype=np.float64)


def _fit_on(estimator, X, y):
    """A clone of ``estimator`` fitted on ``X``, ``y``; on rows of a single class (a bootstrap sample of a small,
    unbalanced training set can draw no member of a class) the constant classifier of that class, which is what
    1-NN and naive Bayes learn there and what an SVM, which refuses one class, would predict."""
    if np.unique(y).size < 2:
        return DummyClassifier(strategy="most_frequent").fit(X, y)
    return clone(estimator).fit(X, y)


def _fit_member(estimator, X, y, view, rows):
    return _fit_on(estimator, X[np.ix_(rows, view)], y[rows])


class ViewEnsemble(ClassifierMixin, BaseEstimator):
    """One classifier per view, combined by a performance-weighted vote (Eqs. 9-10).

    Parameters
    ----------
    views : list of int arrays or None
        Column indices of each view. Exactly one of ``views`` / ``partitioner``.
    partitioner : estimator with ``fit(X, y)`` setting ``views_`` or None
        Cloned and fitted on the training data (e.g. :class:`mvlab.construction.partition.OFSP`).
        If it also sets ``row_samples_`` (:class:`mvlab.construction.partition.Bagging`), member
        i is trained on rows ``row_samples_[i]``.
    estimator : {"knn", "nb", "svm"} or scikit-learn classifier, default="knn"
        Inducer used for every view (names as in :mod:`mvlab.construction.partition`).
    weighting : {"performance", "majority"}, default="performance"
        ``"performance"``: ``alpha_i = (1 - e_i) / sum_j (1 - e_j)`` (Eq. 9), ``e_i`` the
        inner-CV error of member i on the training data only; ``"majority"``:
        ``alpha_i = 1 / k`` (plain vote).
    evaluator : {"auto", "incremental", "naive"}, default="auto"
        How ``e_i`` is measured (:func:`member_errors`): ``"auto"`` scores members trained on every row with
        the estimator's incremental evaluator where it has one (the same predictions as a refit, without the
        refits), ``"naive"`` refits a clone on every inner fold; ``"incremental"`` insists on the evaluator.
    inner_cv : int, float, splitter or iterable, default=5
        Inner folds for ``e_i`` (as in :class:`mvlab.construction.partition.OFSP`; with the same
        value and ``random_state`` the folds -- and for OFSP views the errors
        ``e_i = 1 - A_i`` -- coincide). For a bootstrap member the fold's
        training part is the bootstrap multiset restricted to the fold's
        training rows.
    random_state : int, RandomState or None
        Seeds the inner folds, and the partitioner when its own ``random_state`` is None.
    n_jobs : int or None
        Members are fitted in parallel with joblib.

    Attributes
    ----------
    views_ : list of int arrays
        The non-empty views used (empty views, which OFSP can produce, are dropped).
    row_samples_ : list of int arrays or None
        Training rows of each member (None: all rows).
    estimators_ : list of fitted classifiers, one per view.
    inner_errors_ : ndarray (k,) or None
        ``e_i`` (only computed for ``weighting="performance"``).
    weights_ : ndarray (k,)
        ``alpha_i``, summing to 1.
    partitioner_ : the fitted partitioner, if one was given.
    classes_ : ndarray (C,)
    """

    _parameter_constraints: dict = {
        "views": "no_validation",  # check_views, in fit
        "partitioner": [HasMethods(["fit"]), None],
        "estimator": [StrOptions(set(ESTIMATOR_NAMES)), HasMethods(["fit", "predict"])],
        "weighting": [StrOptions({"performance", "majority"})],
        "evaluator": [StrOptions({"auto", "incremental", "naive"})],
        "inner_cv": "no_validation",  # make_folds, in fit
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
    }

    def __init__(self, views=None, partitioner=None, estimator="knn", weighting="performance",
                 inner_cv=5, random_state=None, n_jobs=None, evaluator="auto"):
        self.views = views
        self.partitioner = partitioner
        self.estimator = estimator
        self.weighting = weighting
        self.evaluator = evaluator
        self.inner_cv = inner_cv
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y, progress: ProgressCallback = None):
        """Fit on ``X`` (n_samples, n_features) and ``y`` (n_samples,).

        ``progress(fraction, message)`` is passed on to the partitioner's ``fit`` when it takes one.
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        n, d = X.shape
        self.classes_ = np.unique(y)
        if (self.views is None) == (self.partitioner is None):
            raise ValueError("give exactly one of views=... or partitioner=...")
        est = resolve_estimator(self.estimator)
        row_samples = None
        if self.partitioner is not None:
            kw = {"progress": progress} if progress is not None and has_fit_parameter(self.partitioner,
                                                                                      "progress") else {}
            self.partitioner_ = self._seeded_partitioner().fit(X, y, **kw)
            views = self.partitioner_.views_
            row_samples = getattr(self.partitioner_, "row_samples_", None)
        else:
            views = self.views
        views, row_samples = self._check_views(views, row_samples, d, n)
        self.views_ = views
        self.row_samples_ = row_samples
        rows = row_samples if row_samples is not None else [np.arange(n)] * len(views)

        parallel = Parallel(n_jobs=self.n_jobs)
        if self.weighting == "performance":
            folds = make_folds(self.inner_cv, X, y, self.random_state)
            self.inner_errors_ = member_errors(est, X, y, views, row_samples, folds, self.evaluator, parallel)
            self.weights_ = performance_weights(self.inner_errors_)
        else:
            self.inner_errors_ = None
            self.weights_ = np.full(len(views), 1.0 / len(views))
        self.estimators_ = parallel(delayed(_fit_member)(est, X, y, v, r)
                                    for v, r in zip(views, rows))
        return self

    def _seeded_partitioner(self):
        """A clone of ``partitioner``; an unseeded one (``random_state=None``) takes the ensemble's
        ``random_state``, so that seeding the ensemble makes its whole fit reproducible (as
        scikit-learn's meta-estimators seed their base estimators)."""
        partitioner = clone(self.partitioner)
        params = partitioner.get_params(deep=False)
        if self.random_state is not None and "random_state" in params and params["random_state"] is None:
            partitioner.set_params(random_state=self.random_state)
        return partitioner

    @staticmethod
    def _check_views(views, row_samples, d, n):
        """Views through the one validator; empty views (a learned partition may leave some) are dropped."""
        checked, _ = check_views(views, d, allow_empty=True)
        keep = [i for i, v in enumerate(checked) if v.size]
        if not keep:
            raise ValueError("all views are empty; nothing to train.")
        out_views = [checked[i].astype(np.intp) for i in keep]
        if row_samples is not None:
            if len(row_samples) != len(checked):
                raise ValueError("row_samples_ must have one entry per view.")
            row_samples = [np.asarray(row_samples[i], dtype=np.intp) for i in keep]
            for r in row_samples:
                if r.ndim != 1 or r.size == 0 or r.min() < 0 or r.max() >= n:
                    raise ValueError("row samples must be non-empty row indices of X.")
        return out_views, row_samples

    def _X(self, X):
        check_is_fitted(self, "estimators_")
        return validate_data(self, X, dtype=np.float64, reset=False)

    def view_predictions(self, X):
        """Labels of every member, shape (k, n_samples)."""
        X = self._X(X)
        return np.stack([e.predict(X[:, v]) for e, v in zip(self.estimators_, self.views_)])

    def predict_votes(self, X):
        """Weighted vote shares ``sum_i alpha_i I(f_i = c)`` (Eq. 10), shape (n_samples, C)."""
        return weighted_vote(self.view_predictions(X), self.weights_, self.classes_)[1]

    def predict(self, X):
        """Eq. 10 weighted vote (ties -> smallest class), shape (n_samples,)."""
        return weighted_vote(self.view_predictions(X), self.weights_, self.classes_)[0]


# --------------------------------------------------------------------------- bookkeeping

def percent_features_used(views, n_features):
    """Percentage of the features kept by the views, ``100 * |union of X_1..X_k| / n_features`` (B.6)."""
    if n_features < 1:
        raise ValueError("n_features must be >= 1.")
    used = np.zeros(int(n_features), dtype=bool)
    for v in views:
        v = np.asarray(v, dtype=np.intp)
        if v.size and (v.min() < 0 or v.max() >= n_features):
            raise ValueError(f"a view has indices outside [0, {n_features}).")
        used[v] = True
    return 100.0 * used.sum() / n_features


class Timing(NamedTuple):
    """Wall-clock and CPU seconds of one call.

    ``cpu_seconds`` is ``time.process_time``: this process (all its threads), not
    joblib worker processes.
    """

    wall_seconds: float
    cpu_seconds: float


def timed_fit(estimator, X, y=None, **fit_params):
    """Fit ``estimator`` in place on ``X`` (, ``y``) and return its :class:`Timing`."""
    w0, c0 = time.perf_counter(), time.process_time()
    if y is None:
        estimator.fit(X, **fit_params)
    else:
        estimator.fit(X, y, **fit_params)
    return Timing(time.perf_counter() - w0, time.process_time() - c0)
