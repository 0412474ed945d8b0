"""View ensembles, performance weighting and diversity measures (ALGORITHMS.md B.3, B.4, B.6).

* :class:`ViewEnsemble` trains one classifier per view (given views, or views
  learned by a partitioner such as :class:`mvlab.partition.OFSP`) and combines
  them by the performance-weighted vote of Eqs. 9-10 or by a plain majority vote.
* Diversity of the member predictions: :func:`disagreement` (Eq. 2, multi-class:
  fraction of instances with different labels), :func:`disagreement_total`
  (DM_total, Eqs. 1/3), :func:`q_statistic`, :func:`kappa` (pairwise Cohen kappa
  between two label vectors), :func:`interrater_kappa` (Kuncheva-Whitaker
  interrater agreement of the whole ensemble, oracle outputs),
  :func:`double_fault`, :func:`pairwise_matrix`.
* :func:`percent_features_used` (B.6) and :func:`timed_fit` (wall-clock and CPU time).

Prediction arrays: ``predictions`` is ``(n_classifiers, n_samples)``; a single
classifier's predictions are ``(n_samples,)``.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, check_X_y

from mvlab._incremental import make_folds, pooled_accuracy, resolve_estimator

__all__ = [
    "ViewEnsemble",
    "performance_weights",
    "weighted_vote",
    "disagreement",
    "disagreement_total",
    "q_statistic",
    "kappa",
    "interrater_kappa",
    "double_fault",
    "pairwise_matrix",
    "diversity_report",
    "percent_features_used",
    "Timing",
    "timed_fit",
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
        est = clone(estimator).fit(Xv[r], y[r])
        correct += int(np.sum(est.predict(Xv[te]) == y[te]))
        total += len(te)
    return 1.0 - pooled_accuracy(correct, total)     # e_i = 1 - A_i (B.3)


def _fit_member(estimator, X, y, view, rows):
    return clone(estimator).fit(X[np.ix_(rows, view)], y[rows])


class ViewEnsemble(ClassifierMixin, BaseEstimator):
    """One classifier per view, combined by a performance-weighted vote (Eqs. 9-10).

    Parameters
    ----------
    views : list of int arrays or None
        Column indices of each view. Exactly one of ``views`` / ``partitioner``.
    partitioner : estimator with ``fit(X, y)`` setting ``views_`` or None
        Cloned and fitted on the training data (e.g. :class:`mvlab.partition.OFSP`).
        If it also sets ``row_samples_`` (:class:`mvlab.partition.Bagging`), member
        i is trained on rows ``row_samples_[i]``.
    estimator : {"knn", "nb", "svm"} or scikit-learn classifier, default="knn"
        Inducer used for every view (names as in :mod:`mvlab.partition`).
    weighting : {"performance", "majority"}, default="performance"
        ``"performance"``: ``alpha_i = (1 - e_i) / sum_j (1 - e_j)`` (Eq. 9), ``e_i`` the
        inner-CV error of member i on the training data only; ``"majority"``:
        ``alpha_i = 1 / k`` (plain vote).
    inner_cv : int, float, splitter or iterable, default=5
        Inner folds for ``e_i`` (as in :class:`mvlab.partition.OFSP`; with the same
        value and ``random_state`` the folds -- and for OFSP views the errors
        ``e_i = 1 - A_i`` -- coincide). For a bootstrap member the fold's
        training part is the bootstrap multiset restricted to the fold's
        training rows.
    random_state : int, RandomState or None
        Seeds the inner folds.
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

    def __init__(self, views=None, partitioner=None, estimator="knn", weighting="performance",
                 inner_cv=5, random_state=None, n_jobs=None):
        self.views = views
        self.partitioner = partitioner
        self.estimator = estimator
        self.weighting = weighting
        self.inner_cv = inner_cv
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y):
        """Fit on ``X`` (n_samples, n_features) and ``y`` (n_samples,)."""
        X, y = check_X_y(X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        n, d = X.shape
        self.n_features_in_ = d
        self.classes_ = np.unique(y)
        if self.weighting not in ("performance", "majority"):
            raise ValueError(
                f"weighting={self.weighting!r}; use 'performance' (Eq. 9) or 'majority'."
            )
        if (self.views is None) == (self.partitioner is None):
            raise ValueError("give exactly one of views=... or partitioner=...")
        est = resolve_estimator(self.estimator)
        row_samples = None
        if self.partitioner is not None:
            if not hasattr(self.partitioner, "fit"):
                raise ValueError(f"partitioner {self.partitioner!r} has no fit(X, y).")
            self.partitioner_ = clone(self.partitioner).fit(X, y)
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
            errs = parallel(delayed(_member_error)(est, X, y, v, r, folds)
                            for v, r in zip(views, rows))
            self.inner_errors_ = np.asarray(errs, dtype=np.float64)
            self.weights_ = performance_weights(self.inner_errors_)
        else:
            self.inner_errors_ = None
            self.weights_ = np.full(len(views), 1.0 / len(views))
        self.estimators_ = parallel(delayed(_fit_member)(est, X, y, v, r)
                                    for v, r in zip(views, rows))
        return self

    @staticmethod
    def _check_views(views, row_samples, d, n):
        try:
            views = [np.asarray(v) for v in views]
        except TypeError:
            raise ValueError("views must be a list of integer index arrays.") from None
        keep = []
        for i, v in enumerate(views):
            if v.ndim != 1 or (v.size and not np.issubdtype(v.dtype, np.integer)):
                raise ValueError(f"view {i} must be a 1-D array of integer column indices.")
            if v.size and (v.min() < 0 or v.max() >= d):
                raise ValueError(
                    f"view {i} has column indices outside [0, {d}); X has {d} features."
                )
            if v.size:
                keep.append(i)
        if not keep:
            raise ValueError("all views are empty; nothing to train.")
        out_views = [views[i].astype(np.intp) for i in keep]
        if row_samples is not None:
            if len(row_samples) != len(views):
                raise ValueError("row_samples_ must have one entry per view.")
            row_samples = [np.asarray(row_samples[i], dtype=np.intp) for i in keep]
            for r in row_samples:
                if r.ndim != 1 or r.size == 0 or r.min() < 0 or r.max() >= n:
                    raise ValueError("row samples must be non-empty row indices of X.")
        return out_views, row_samples

    def _X(self, X):
        check_is_fitted(self, "estimators_")
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features but the ensemble was fitted with "
                f"{self.n_features_in_}."
            )
        return X

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


# --------------------------------------------------------------------------- diversity

def _pair(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(
            f"two prediction vectors of the same length are needed, got shapes "
            f"{a.shape} and {b.shape}."
        )
    if a.size == 0:
        raise ValueError("prediction vectors are empty.")
    return a, b


def _oracle(a, b, y):
    a, b = _pair(a, b)
    y = np.asarray(y)
    if y.shape != a.shape:
        raise ValueError(f"y has shape {y.shape}, predictions have shape {a.shape}.")
    return a == y, b == y


def disagreement(pred_a, pred_b):
    """Eq. 2: fraction of instances on which two classifiers' labels differ.

    For binary labels this is ``(n01 + n10) / (n00 + n01 + n10 + n11)``;
    for more classes, the fraction of instances with different labels (B.4 [REC]).
    """
    a, b = _pair(pred_a, pred_b)
    return float(np.mean(a != b))


def _stack(predictions):
    P = np.asarray(predictions)
    if P.ndim != 2:
        raise ValueError("predictions must be 2-D, shape (n_classifiers, n_samples).")
    if P.shape[0] < 2:
        raise ValueError(
            "diversity needs at least two classifiers; predictions has "
            f"{P.shape[0]} row(s)."
        )
    if P.shape[1] == 0:
        raise ValueError("predictions have no samples.")
    return P


def disagreement_total(predictions):
    """DM_total (Eqs. 1/3): ``2 / (k (k - 1)) * sum_{i<j} dis(f_i, f_j)``.

    ``predictions``: (k, n) labels, k >= 2 (ValueError otherwise).
    """
    P = _stack(predictions)
    k = P.shape[0]
    total = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            total += disagreement(P[i], P[j])
    return 2.0 * total / (k * (k - 1))


def _counts(oa, ob):
    n11 = int(np.sum(oa & ob))
    n00 = int(np.sum(~oa & ~ob))
    n10 = int(np.sum(oa & ~ob))
    n01 = int(np.sum(~oa & ob))
    return n11, n10, n01, n00


def q_statistic(pred_a, pred_b, y):
    """Yule's Q of the oracle outputs: ``(N11 N00 - N01 N10) / (N11 N00 + N01 N10)``.

    N11 = both correct, N00 = both wrong, N10 / N01 = only a / only b correct.
    In [-1, 1]; ``nan`` when the denominator is 0 (e.g. one classifier never errs).
    """
    n11, n10, n01, n00 = _counts(*_oracle(pred_a, pred_b, y))
    den = n11 * n00 + n01 * n10
    return float("nan") if den == 0 else (n11 * n00 - n01 * n10) / den


def double_fault(pred_a, pred_b, y):
    """Double fault: fraction of instances that both classifiers misclassify (N00 / N)."""
    oa, ob = _oracle(pred_a, pred_b, y)
    return float(np.mean(~oa & ~ob))


def kappa(pred_a, pred_b):
    """Pairwise Cohen kappa between two label vectors (agreement beyond chance).

    ``kappa = (p_o - p_e) / (1 - p_e)``, ``p_o`` the observed agreement, ``p_e`` the
    agreement expected from the two label distributions. 1 = identical labels,
    0 = chance agreement; lower means more diverse. ``nan`` when ``p_e = 1``
    (both classifiers always output the same single label).
    """
    a, b = _pair(pred_a, pred_b)
    labels = np.unique(np.concatenate([a, b]))
    po = float(np.mean(a == b))
    pe = float(sum(np.mean(a == c) * np.mean(b == c) for c in labels))
    return float("nan") if pe == 1.0 else (po - pe) / (1.0 - pe)


def interrater_kappa(predictions, y):
    """Interrater agreement kappa of an ensemble (Kuncheva & Whitaker 2003), oracle outputs.

    ``kappa = 1 - (1/L) sum_j l_j (L - l_j) / (N (L - 1) p (1 - p))`` with ``l_j`` the
    number of the L classifiers correct on instance j and ``p`` their mean
    accuracy. ``predictions`` (L, N), ``y`` (N,). ``nan`` when ``p`` is 0 or 1.
    """
    P = _stack(predictions)
    y = np.asarray(y)
    if y.shape != (P.shape[1],):
        raise ValueError(f"y has shape {y.shape}, predictions have {P.shape[1]} samples.")
    L, N = P.shape
    correct = P == y[None, :]
    l = correct.sum(axis=0)
    p = correct.mean()
    if p in (0.0, 1.0):
        return float("nan")
    return float(1.0 - (np.sum(l * (L - l)) / L) / (N * (L - 1) * p * (1 - p)))


_PAIRWISE = {
    "disagreement": (disagreement, False),
    "kappa": (kappa, False),
    "q_statistic": (q_statistic, True),
    "double_fault": (double_fault, True),
}


def pairwise_matrix(predictions, measure="disagreement", y=None):
    """Symmetric (k, k) matrix of a pairwise measure between the members.

    ``measure`` in {"disagreement", "kappa", "q_statistic", "double_fault"}; the
    last two need the true labels ``y`` (N,). The diagonal holds the measure of a
    classifier with itself. Average the upper triangle for an ensemble value.
    """
    if measure not in _PAIRWISE:
        raise ValueError(f"measure={measure!r}; use one of {sorted(_PAIRWISE)}.")
    fn, needs_y = _PAIRWISE[measure]
    P = _stack(predictions)
    if needs_y and y is None:
        raise ValueError(f"measure={measure!r} compares oracle outputs and needs y.")
    k = P.shape[0]
    M = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            M[i, j] = M[j, i] = fn(P[i], P[j], y) if needs_y else fn(P[i], P[j])
    return M


def diversity_report(predictions, y=None):
    """All diversity measures of an ensemble in one dict (for tables and box plots).

    ``predictions`` (k, n) member labels; ``y`` (n,) true labels or None. Keys:
    ``"disagreement"`` (DM_total, Eqs. 1/3), ``"kappa"`` (mean pairwise Cohen kappa),
    and with ``y`` also ``"q_statistic"``, ``"double_fault"`` (means over pairs, nan
    pairs ignored) and ``"interrater_kappa"``. With a single member (k = 1) every
    value is ``nan`` (diversity is undefined), unlike :func:`disagreement_total`,
    which raises, so a sweep over k = 1..10 can tabulate it directly.
    """
    P = np.asarray(predictions)
    if P.ndim != 2 or P.shape[1] == 0 or P.shape[0] == 0:
        raise ValueError("predictions must be 2-D, shape (n_classifiers, n_samples).")
    keys = ["disagreement", "kappa"] + (
        [] if y is None else ["q_statistic", "double_fault", "interrater_kappa"])
    if P.shape[0] < 2:
        return {key: float("nan") for key in keys}
    iu = np.triu_indices(P.shape[0], 1)

    def mean_pairs(measure):
        vals = pairwise_matrix(P, measure, y)[iu]
        vals = vals[~np.isnan(vals)]
        return float(vals.mean()) if vals.size else float("nan")

    out = {"disagreement": disagreement_total(P), "kappa": mean_pairs("kappa")}
    if y is not None:
        out["q_statistic"] = mean_pairs("q_statistic")
        out["double_fault"] = mean_pairs("double_fault")
        out["interrater_kappa"] = interrater_kappa(P, y)
    return out


# --------------------------------------------------------------------------- bookkeeping

def percent_features_used(views, n_features):
    """``100 * |X_1 u ... u X_k| / n_features`` (B.6)."""
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
