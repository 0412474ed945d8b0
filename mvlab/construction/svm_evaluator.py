"""Incremental inner accuracy of a linear SVM (``SVC(kernel="linear")``), for OFSP's greedy search.

A linear SVM depends on its features only through the Gram matrix ``K = X_v X_v^T`` of the rows: adding feature
``a`` to a view adds the rank-one ``x_a x_a^T``. So, per view and inner fold, this evaluator keeps the fold's
training block ``K[train, train]`` and held-out block ``K[test, train]``; a candidate costs two ``O(n^2)`` updates
and one call of scikit-learn's compiled libsvm on the precomputed kernel (the same C-SVC solver, C, tolerance,
shrinking and cache that ``SVC.fit`` passes it), instead of a refit through ``SVC`` whose Python checks cost
20-30 times the solve on the paper's 30-row gene-expression folds.

Exactness: the solver, its settings and the labels are ``SVC``'s; only the kernel's rounding differs (libsvm sums
a linear kernel with BLAS's ``ddot``, here the features are added one by one), about 1e-16 relative, which moves
the dual coefficients by about 1e-14 and can change a prediction only for a held-out row on the decision boundary
to that precision. ``tests/test_partition.py`` compares OFSP's views and inner accuracies with the refitting
reference (:class:`mvlab.construction.evaluators.NaiveEvaluator`), on continuous data and on small-integer data full
of ties.

libsvm's entry points are private to scikit-learn: the first use in a process fits a small problem both ways and
compares the predictions; if they ever differ (another scikit-learn), :func:`linear_svm_params` reports no fast
path and OFSP refits ``SVC`` instead.
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC

from mvlab.construction.evaluators import _FoldData
from mvlab.construction.inner_folds import pooled_accuracy

__all__ = ["LinearSVMIncremental", "linear_svm_params"]

_EMPTY = np.empty(0)
_checked: list[bool] = []  # [] until the first check, then [whether libsvm's direct path predicts as SVC does]


def _libsvm():
    from sklearn.svm import _libsvm

    _libsvm.set_verbosity_wrap(0)  # libsvm's own printing is on until a fit turns it off (SVC.fit does)
    return _libsvm


class LinearSVMIncremental(_FoldData):
    """Incremental pooled inner accuracy of ``SVC(kernel="linear", C=C, tol=tol, shrinking=..., cache_size=...,
    max_iter=...)`` over the inner ``folds`` (module docstring).

    State per view ``i`` and fold ``f``: ``K_train[i][f]`` (n_train_f, n_train_f) and ``K_test[i][f]``
    (n_test_f, n_train_f), the fold's blocks of the view's linear kernel, accumulated feature by feature. The
    protocol is the other incremental evaluators': ``start``, ``candidate_scores``, ``add``, ``score_subset``.
    """

    kind = "svm"

    def __init__(self, X, y, folds, C=1.0, tol=1e-3, shrinking=True, cache_size=200.0, max_iter=-1):
        super().__init__(X, y, folds)
        self.solver = dict(svm_type=0, kernel="precomputed", C=float(C), tol=float(tol), shrinking=int(bool(shrinking)),
                           cache_size=float(cache_size), max_iter=int(max_iter), class_weight=_EMPTY,
                           sample_weight=_EMPTY, random_seed=0)
        self.fold_labels = []
        for tr, te in folds:
            classes, y_train = np.unique(self.yenc[tr], return_inverse=True)
            if classes.size < 2:
                raise ValueError("an inner training fold holds a single class; an SVM needs two (use fewer inner "
                                 "folds).")
            self.fold_labels.append((classes, np.ascontiguousarray(y_train, dtype=np.float64), self.yenc[te]))

    def _predict(self, f: int, K_train: np.ndarray, K_test: np.ndarray) -> np.ndarray:
        """Encoded labels (n_test_f,) that the SVM fitted on fold ``f``'s kernel block ``K_train`` gives the
        held-out rows (their block ``K_test``)."""
        libsvm = _libsvm()
        classes, y_train, _ = self.fold_labels[f]
        fitted = libsvm.fit(np.ascontiguousarray(K_train), y_train, **self.solver)
        pred = libsvm.predict(np.ascontiguousarray(K_test), *fitted[:7], svm_type=0, kernel="precomputed")
        return classes[pred.astype(np.intp)]

    def _correct(self, f: int, K_train: np.ndarray, K_test: np.ndarray) -> int:
        """Correct held-out predictions of fold ``f`` (:meth:`_predict`)."""
        return int(np.sum(self._predict(f, K_train, K_test) == self.fold_labels[f][2]))

    def _blocks(self, a: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Feature ``a``'s rank-one terms ``(x x^T)[train, train]`` and ``[test, train]`` on every fold."""
        xa = self.X[:, a]
        return [(np.multiply.outer(xa[tr], xa[tr]), np.multiply.outer(xa[te], xa[tr])) for tr, te in self.folds]

    def start(self, n_views):
        """Begin an incremental search with ``n_views`` empty views (kernel blocks of 0)."""
        self.n_views = n_views
        self.sizes = np.zeros(n_views, dtype=np.intp)
        self.K_train = [[np.zeros((len(tr), len(tr))) for tr, _ in self.folds] for _ in range(n_views)]
        self.K_test = [[np.zeros((len(te), len(tr))) for tr, te in self.folds] for _ in range(n_views)]
        self._cache = None

    def candidate_scores(self, a):
        """Pooled inner accuracy of every view with feature ``a`` added, shape (n_views,) (the empty views share
        one score); feature ``a``'s kernel terms are kept for :meth:`add`."""
        rows, empty = self._rows_to_evaluate(self.sizes)
        blocks = self._blocks(a)
        correct = np.zeros(len(rows), dtype=np.int64)
        for j, r in enumerate(rows):
            for f, (train_term, test_term) in enumerate(blocks):
                correct[j] += self._correct(f, self.K_train[r][f] + train_term, self.K_test[r][f] + test_term)
        return self._scores(a, rows, empty, correct, blocks)

    def add(self, view, a):
        """Add feature ``a`` to the view ``view`` (the same sums as the last :meth:`candidate_scores`, which must
        have been for ``a``: ``RuntimeError`` otherwise)."""
        _, blocks = self._candidate(view, a)
        for f, (train_term, test_term) in enumerate(blocks):
            self.K_train[view][f] += train_term
            self.K_test[view][f] += test_term
        self.sizes[view] += 1
        self._cache = None

    def score_subset(self, cols):
        """Pooled inner accuracy of the columns ``cols`` from scratch (0.0 for no column)."""
        cols = np.asarray(cols, dtype=np.intp)
        if cols.size == 0:
            return 0.0
        Xc = self.X[:, cols]
        correct = sum(self._correct(f, Xc[tr] @ Xc[tr].T, Xc[te] @ Xc[tr].T) for f, (tr, te) in enumerate(self.folds))
        return pooled_accuracy(correct, self.total)


def _direct_path_agrees() -> bool:
    """Whether libsvm called directly on a precomputed linear kernel predicts as ``SVC(kernel="linear")`` on a
    small problem (checked once per process)."""
    rng = np.random.RandomState(3)
    X = rng.randn(40, 6)
    y = (X[:, 0] + 0.5 * rng.randn(40) > 0).astype(int)
    folds = [(np.arange(0, 30), np.arange(30, 40)), (np.arange(10, 40), np.arange(0, 10))]
    try:
        ev = LinearSVMIncremental(X, y, folds)
        for f, (tr, te) in enumerate(folds):
            ref = SVC(kernel="linear").fit(X[tr], y[tr]).predict(X[te])
            if not np.array_equal(ev.classes[ev._predict(f, X[tr] @ X[tr].T, X[te] @ X[tr].T)], ref):
                return False
    except Exception:  # noqa: BLE001 - a changed private interface means: no fast path
        return False
    return True


def linear_svm_params(estimator) -> dict | None:
    """The solver settings of ``estimator`` when it is an ``SVC`` with a linear kernel that
    :class:`LinearSVMIncremental` reproduces (no class weights, no probabilities, no tie-breaking by decision
    values) and libsvm's direct path works here; else None."""
    if type(estimator) is not SVC:
        return None
    p = estimator.get_params()
    if p["kernel"] != "linear" or p["class_weight"] is not None or p["probability"] is True or p["break_ties"]:
        return None
    if not _checked:
        _checked.append(_direct_path_agrees())
    if not _checked[0]:
        return None
    return {"C": p["C"], "tol": p["tol"], "shrinking": p["shrinking"], "cache_size": p["cache_size"],
            "max_iter": p["max_iter"]}
