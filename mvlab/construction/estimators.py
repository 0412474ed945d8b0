"""The estimators a view-construction method can be named with, and the evaluator each one gets.

``"knn"``, ``"nb"`` and ``"svm"`` name the classifiers of Kumar & Minz (docs/algorithms.md B.6,
:func:`resolve_estimator`); ``"knn"`` is :class:`LowestIndexKNN`, a 1-NN with one documented tie
rule. :func:`make_evaluator` picks how a feature subset is scored with an estimator: an exact
incremental evaluator for a Euclidean uniform kNN or a Gaussian NB
(:mod:`mvlab.construction.evaluators`), an incremental one for a linear SVM that differs from a refit
only by the rounding of its kernel (:mod:`mvlab.construction.svm_evaluator`), a refit on every inner
fold otherwise.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.construction.evaluators import GaussianNBIncremental, KNNIncremental, NaiveEvaluator
from mvlab.construction.svm_evaluator import LinearSVMIncremental, linear_svm_params
from mvlab.core.neighbours import TIE_RTOL, distance_tie_tolerance, k_nearest_tolerant, squared_distances
from mvlab.core.params import NON_NEGATIVE_REAL, POSITIVE_COUNT

__all__ = ["ESTIMATOR_NAMES", "LowestIndexKNN", "resolve_estimator", "incremental_kind", "make_evaluator"]

ESTIMATOR_NAMES = ("knn", "nb", "svm")


class LowestIndexKNN(ClassifierMixin, BaseEstimator):
    """k-nearest-neighbour classifier (Euclidean, uniform vote) whose ties follow one documented rule.

    * Distance ties: the neighbours of a query are taken one at a time, the next being the
      *lowest-index* training row whose squared distance is within ``tie_tolerance_`` of the
      smallest remaining one (:func:`mvlab.core.neighbours.k_nearest_tolerant`), with
      ``tie_tolerance_ = rtol * sum_f span_f**2`` over the training rows
      (:func:`mvlab.core.neighbours.distance_tie_tolerance`). Exact ties go to the lowest index,
      and so do distances that are equal on a decimal grid (features rounded to 0.1) but come out
      of floating point a few ulps apart.
    * Vote ties (k > 1): the smallest class label.

    Why not scikit-learn's ``KNeighborsClassifier(algorithm="brute")``: it computes squared
    distances as ``|x|^2 - 2 x.y + |y|^2`` (a GEMM) and keeps, among *exactly equal computed*
    values, the lowest index (its heap rejects a value equal to the current worst). On integer
    data that is the lowest-index rule; on data rounded to a decimal grid the computed values of
    equal distances differ in the last bits, so rounding decides which row wins. This is the
    classifier behind the name ``"knn"`` (:func:`resolve_estimator`) and the refit reference of
    :class:`KNNIncremental`, which follows the same rule.

    Parameters
    ----------
    n_neighbors : int, default 1
    rtol : float, default ``TIE_RTOL`` (1e-9)

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
    tie_tolerance_ : float
    n_features_in_ : int
    """

    _parameter_constraints: dict = {"n_neighbors": POSITIVE_COUNT, "rtol": NON_NEGATIVE_REAL}

    def __init__(self, n_neighbors=1, rtol=TIE_RTOL):
        self.n_neighbors = n_neighbors
        self.rtol = rtol

    def fit(self, X, y):
        """Store the training rows ``X`` (n, d) and labels ``y`` (n,)."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        if self.n_neighbors > len(y):
            raise ValueError(
                f"n_neighbors={self.n_neighbors} must be an integer between 1 and the {len(y)} training rows."
            )
        self.classes_, self._y = np.unique(y, return_inverse=True)
        self._X = X
        self.tie_tolerance_ = distance_tie_tolerance(X, self.rtol)
        return self

    def predict(self, X):
        """Labels (n_new,) of the rows of ``X`` (n_new, d)."""
        check_is_fitted(self, "_X")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        idx = k_nearest_tolerant(squared_distances(X, self._X), self.n_neighbors, self.tie_tolerance_,
                                 overwrite=True)
        labels = self._y[idx]                                   # (n_new, k)
        counts = (labels[..., None] == np.arange(len(self.classes_))).sum(axis=1)
        return self.classes_[np.argmax(counts, axis=1)]        # vote ties -> smallest class


def resolve_estimator(estimator):
    """Return a fresh scikit-learn classifier for a name or an estimator.

    ``"knn"``: :class:`LowestIndexKNN` ``(n_neighbors=1)``, a brute-force 1-NN. One
    neighbour is what PRTools' ``knnc`` usually selects by leave-one-out on the
    paper's small high-dimensional sets (docs/algorithms.md B.6). A distance tie goes
    to the lowest training index, also when the data are rounded to a decimal grid
    (see :class:`LowestIndexKNN`); the incremental evaluator follows the same rule.
    On data without near-ties it predicts what
    ``KNeighborsClassifier(n_neighbors=1, algorithm="brute")`` predicts (tests).
    ``"nb"``: ``GaussianNB()`` (var_smoothing 1e-9).
    ``"svm"``: ``SVC(kernel="linear", C=1.0)`` (PRTools ``svc`` default).
    Anything else must be a scikit-learn classifier; it is cloned.
    """
    if isinstance(estimator, str):
        name = estimator.lower()
        if name == "knn":
            return LowestIndexKNN(n_neighbors=1)
        if name == "nb":
            return GaussianNB()
        if name == "svm":
            return SVC(kernel="linear", C=1.0)
        raise ValueError(
            f"Unknown estimator name {estimator!r}; use one of {ESTIMATOR_NAMES} "
            "or pass a scikit-learn classifier instance."
        )
    if estimator is None or not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
        raise ValueError(
            f"estimator must be one of {ESTIMATOR_NAMES} or a scikit-learn classifier "
            f"with fit/predict, got {estimator!r}."
        )
    if not is_classifier(estimator):
        raise ValueError(
            f"estimator {estimator!r} is not a classifier; pass a scikit-learn "
            f"classifier or one of {ESTIMATOR_NAMES}."
        )
    return clone(estimator)


def _knn_params(est):
    """(n_neighbors, rtol) if ``est`` is a uniform-weight Euclidean kNN, else None."""
    if type(est) is LowestIndexKNN:
        return int(est.n_neighbors), float(est.rtol)
    if type(est) is not KNeighborsClassifier:
        return None
    p = est.get_params()
    if p["weights"] != "uniform" or p["metric_params"]:
        return None
    metric = p["metric"]
    euclid = metric == "euclidean" or (metric == "minkowski" and p["p"] in (2, 2.0))
    if not euclid:
        return None
    return int(p["n_neighbors"]), TIE_RTOL


def _gnb_params(est):
    """var_smoothing if ``est`` is a GaussianNB with empirical priors, else None."""
    if type(est) is not GaussianNB:
        return None
    p = est.get_params()
    if p["priors"] is not None:
        return None
    return float(p["var_smoothing"])


def incremental_kind(estimator):
    """``"knn"``, ``"nb"``, ``"svm"`` or ``None``: which incremental evaluator fits ``estimator``."""
    if _knn_params(estimator) is not None:
        return "knn"
    if _gnb_params(estimator) is not None:
        return "nb"
    if linear_svm_params(estimator) is not None:
        return "svm"
    return None


def make_evaluator(estimator, X, y, folds, evaluator="auto", n_jobs=None):
    """Pick the evaluator for ``estimator``.

    ``evaluator="auto"`` uses the incremental kNN / Gaussian NB / linear SVM evaluator when the
    estimator is a uniform-weight Euclidean ``KNeighborsClassifier``, a ``GaussianNB`` without
    fixed priors or an ``SVC(kernel="linear")`` without class weights or probabilities
    (:mod:`mvlab.construction.svm_evaluator`), and the naive refit otherwise;
    ``"incremental"`` insists on it (ValueError if impossible); ``"naive"`` always refits.
    """
    if evaluator not in ("auto", "incremental", "naive"):
        raise ValueError(
            f"evaluator={evaluator!r}; use 'auto', 'incremental' or 'naive'."
        )
    kind = incremental_kind(estimator) if evaluator != "naive" else None
    if evaluator == "incremental" and kind is None:
        raise ValueError(
            f"no incremental evaluator for {estimator!r}; it exists for "
            "KNeighborsClassifier (uniform weights, Euclidean), GaussianNB "
            "(priors=None) and SVC(kernel='linear') without class weights or probabilities. "
            "Use evaluator='naive' or 'auto'."
        )
    if kind == "knn":
        k, rtol = _knn_params(estimator)
        return KNNIncremental(X, y, folds, n_neighbors=k, rtol=rtol)
    if kind == "nb":
        return GaussianNBIncremental(X, y, folds, var_smoothing=_gnb_params(estimator))
    if kind == "svm":
        return LinearSVMIncremental(X, y, folds, **linear_svm_params(estimator))
    return NaiveEvaluator(estimator, X, y, folds, n_jobs=n_jobs)
