"""Inner-accuracy evaluators shared by the view-construction methods.

All evaluators score a feature subset by the *pooled inner accuracy*
``Acc = (number of correct held-out predictions) / (number of held-out predictions)``
over a fixed list of inner folds ``[(train_rows, test_rows), ...]`` drawn from the
training data only (docs/algorithms.md B.2, [REC]). Pooling integer counts makes the
score of a subset a pure function of the predictions, so two evaluators that
predict the same labels give bit-identical scores.

Two families:

* :class:`NaiveEvaluator` refits a clone of any scikit-learn classifier on every
  fold (the obviously-correct reference, and the path for SVMs and arbitrary
  estimators).
* :class:`KNNIncremental` and :class:`GaussianNBIncremental` keep, per view and
  per fold, the state from which held-out predictions follow (the fold's
  test x train squared-distance block; the per-class log-likelihood sums), so
  adding one feature costs ``O(n_test * n_train)`` resp. ``O(n_test * C)`` per
  fold instead of a refit.

The incremental protocol used by OFSP is ``start(n_views)``,
``candidate_scores(a) -> (n_views,)`` (accuracy of every view with feature ``a``
added) and ``add(view, a)``. ``score_subset(cols)`` scores one subset from
scratch (used by attribute bagging and the genetic algorithm). Which evaluator an estimator
gets: :func:`mvlab.construction.estimators.make_evaluator`; the folds:
:mod:`mvlab.construction.inner_folds`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils.parallel import Parallel, delayed

from mvlab.construction.inner_folds import pooled_accuracy
from mvlab.core.neighbours import TIE_RTOL, k_nearest_tolerant, squared_distances

__all__ = ["NaiveEvaluator", "KNNIncremental", "GaussianNBIncremental", "naive_subset_score"]


def _fit_predict_correct(estimator, X, y, cols, train, test):
    est = clone(estimator)
    Xc = X[:, cols]
    est.fit(Xc[train], y[train])
    return int(np.sum(est.predict(Xc[test]) == y[test]))


def naive_subset_score(estimator, X, y, cols, folds):
    """Refit ``estimator`` on every fold restricted to ``cols``; pooled accuracy."""
    cols = np.asarray(cols, dtype=np.intp)
    if cols.size == 0:
        return 0.0
    correct = sum(_fit_predict_correct(estimator, X, y, cols, tr, te) for tr, te in folds)
    return pooled_accuracy(correct, sum(len(te) for _, te in folds))


class _FoldData:
    """Per-fold arrays shared by the incremental evaluators."""

    def __init__(self, X, y, folds):
        self.X = X
        self.classes, self.yenc = np.unique(y, return_inverse=True)
        self.folds = folds
        self.total = sum(len(te) for _, te in folds)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @staticmethod
    def _rows_to_evaluate(sizes):
        """Views to score for a new feature: every non-empty view and (once) the first empty one.

        Returns (rows, empty): ``rows`` int array, ``empty`` the indices of all empty views."""
        nonempty = np.flatnonzero(sizes > 0)
        empty = np.flatnonzero(sizes == 0)
        rows = np.asarray(list(nonempty) + ([int(empty[0])] if empty.size else []), dtype=np.intp)
        return rows, empty

    def _scores(self, a, rows, empty, correct, new):
        """Accuracy of every view with feature ``a`` added (empty views share one score) and
        remember the candidates' states for :meth:`_candidate`."""
        scores = np.zeros(self.n_views)
        acc = correct / float(self.total)
        scores[rows] = acc
        if empty.size:
            scores[empty] = acc[-1]
        self._cache = (a, {int(r): j for j, r in enumerate(rows)}, new, empty)
        return scores

    def _candidate(self, view, a):
        """(position j in the cached candidates, the cached per-fold states) for adding ``a`` to ``view``."""
        a_c, pos, new, empty = self._cache
        if a_c != a:
            raise RuntimeError("add() must follow candidate_scores() for the same feature.")
        return (pos[view] if view in pos else pos[int(empty[0])]), new


class NaiveEvaluator:
    """Reference evaluator: refit a clone of ``estimator`` for every candidate and fold.

    ``n_jobs`` parallelises the candidate subsets of one OFSP step with joblib.
    """

    kind = "naive"

    def __init__(self, estimator, X, y, folds, n_jobs=None):
        self.estimator = estimator
        self.X, self.y, self.folds = X, y, folds
        self.n_jobs = n_jobs
        self._parallel = None

    def __enter__(self):
        if self.n_jobs not in (None, 1):
            self._parallel = Parallel(n_jobs=self.n_jobs)
            self._parallel.__enter__()
        return self

    def __exit__(self, *exc):
        if self._parallel is not None:
            self._parallel.__exit__(*exc)
            self._parallel = None
        return False

    def score_subset(self, cols):
        """Pooled inner accuracy of the columns ``cols``, refitting a clone on every fold (0.0 for no column)."""
        return naive_subset_score(self.estimator, self.X, self.y, cols, self.folds)

    def score_many(self, subsets):
        """Pooled inner accuracies of several column subsets, a list in their order; in parallel inside a ``with``
        block when ``n_jobs`` asks for it."""
        if self._parallel is None:
            return [self.score_subset(c) for c in subsets]
        return list(self._parallel(
            delayed(naive_subset_score)(self.estimator, self.X, self.y, c, self.folds)
            for c in subsets
        ))

    def start(self, n_views):
        """Begin an incremental search with ``n_views`` empty views."""
        self.views = [[] for _ in range(n_views)]

    def candidate_scores(self, a):
        """Pooled inner accuracy of every view with feature ``a`` added, shape (n_views,); the empty views share one
        score, computed once.  The views are unchanged until :meth:`add`."""
        subsets, which = [], []
        empty_done = None
        out = np.zeros(len(self.views))
        for i, v in enumerate(self.views):
            if not v:
                if empty_done is not None:   # every empty view gives the same score
                    continue
                empty_done = i
            subsets.append(v + [a])
            which.append(i)
        scores = self.score_many(subsets)
        for i, s in zip(which, scores):
            out[i] = s
        if empty_done is not None:
            for i, v in enumerate(self.views):
                if not v:
                    out[i] = out[empty_done]
        return out

    def add(self, view, a):
        """Add feature ``a`` to the view ``view``."""
        self.views[view].append(a)


class KNNIncremental(_FoldData):
    """Incremental k-nearest-neighbour inner accuracy (uniform vote, Euclidean).

    State per view ``i`` and fold ``f``: ``D[i, f]``, the squared Euclidean distances
    between the fold's held-out and training rows over the view's features, accumulated
    feature by feature, and ``S[i, f]``, the sum of the squared spans (max - min over the
    fold's training rows) of the view's features. Adding feature ``a`` adds
    ``(x_a[test][:, None] - x_a[train][None, :]) ** 2`` to ``D`` and ``span_a ** 2`` to
    ``S``: ``O(n^2)``. The folds are stacked in one array of shape
    ``(n_views, n_folds, max n_test, max n_train)``, padded with ``+inf`` training columns
    (never a neighbour) and unlabelled test rows (never counted), so one feature costs a
    few numpy calls for all folds at once.

    Ties follow the rule of :class:`LowestIndexKNN`, the refit reference: the
    neighbours are the lowest-index training rows among those whose squared distance
    is within ``rtol * S`` of the smallest (so exact ties, and ties that rounding
    hides on data stored on a decimal grid, go to the lowest training index); the vote
    goes to the smallest class label. A scikit-learn ``KNeighborsClassifier`` gets the
    same evaluator: it agrees with its refit except on near-ties, which scikit-learn
    resolves by the rounding of its ``|x|^2 - 2 x.y + |y|^2`` distances.
    """

    kind = "knn"

    def __init__(self, X, y, folds, n_neighbors=1, rtol=TIE_RTOL):
        super().__init__(X, y, folds)
        self.k = int(n_neighbors)
        self.rtol = float(rtol)
        smallest = min(len(tr) for tr, _ in folds)
        if self.k < 1 or self.k > smallest:
            raise ValueError(
                f"n_neighbors={self.k} but the smallest inner training fold has {smallest} "
                "rows; lower n_neighbors or use fewer inner folds."
            )
        F = len(folds)
        T, R = max(len(te) for _, te in folds), max(len(tr) for tr, _ in folds)
        self.te_idx = np.zeros((F, T), dtype=np.intp)
        self.tr_idx = np.zeros((F, R), dtype=np.intp)
        self.yte = np.full((F, T), -1, dtype=np.intp)        # padding: never a correct prediction
        self.ytr = np.zeros((F, R), dtype=np.intp)
        self.pad = np.zeros((F, 1, R))                       # +inf on padded training columns
        for f, (tr, te) in enumerate(folds):
            self.te_idx[f, : len(te)], self.yte[f, : len(te)] = te, self.yenc[te]
            self.tr_idx[f, : len(tr)], self.ytr[f, : len(tr)] = tr, self.yenc[tr]
            self.pad[f, :, len(tr):] = np.inf
        self.span2 = np.stack([np.ptp(X[tr], axis=0) ** 2 for tr, _ in folds])   # (F, d)
        self._fold = np.arange(F)[:, None, None]
        self.n_classes = len(self.classes)

    def _correct(self, dist, tol):
        """Correct predictions per candidate: ``dist`` (m, F, T, R), ``tol`` (m, F) -> (m,)."""
        tol = np.asarray(tol, dtype=np.float64)[:, :, None]
        if self.k == 1:  # k_nearest_tolerant(dist, 1, tol), inlined: this is the hot loop
            first = np.argmin(dist, axis=-1)                # argmin + gather: faster than min here
            flat = dist.reshape(-1, dist.shape[-1])
            threshold = flat[np.arange(len(flat)), first.ravel()].reshape(first.shape)
            threshold += tol
            within = np.less_equal(dist, threshold[..., None], out=self._within[: len(dist)])
            nn = np.argmax(within, axis=-1)                 # the first True: the lowest index
            pred = self.ytr[self._fold[:, :, 0], nn]                          # (m, F, T)
        else:
            lab = self.ytr[self._fold, k_nearest_tolerant(dist, self.k, tol)]  # (m, F, T, k)
            counts = (lab[..., None] == np.arange(self.n_classes)).sum(axis=-2)
            pred = np.argmax(counts, axis=-1)                                 # ties -> smallest class
        return (pred == self.yte).sum(axis=(-2, -1))

    def start(self, n_views):
        """Begin an incremental search with ``n_views`` empty views (distance blocks ``D`` of 0, ``+inf`` on the
        padded columns; span sums ``S`` of 0)."""
        self.n_views = n_views
        self.sizes = np.zeros(n_views, dtype=np.intp)
        self.D = np.broadcast_to(self.pad, (n_views,) + self.pad.shape[:1] + (self.te_idx.shape[1],)
                                 + self.pad.shape[2:]).copy()
        self.S = np.zeros((n_views, len(self.folds)))
        self._cand = np.empty_like(self.D)              # scratch buffers, reused for every feature
        self._within = np.empty(self.D.shape, dtype=bool)
        self._cache = None

    def candidate_scores(self, a):
        """Pooled inner accuracy of every view with feature ``a`` added, shape (n_views,), every fold at once (the
        empty views share one score); the candidates' states are kept for :meth:`add`."""
        # Evaluate each non-empty view and (once) the empty view, on every fold at once.
        rows, empty = self._rows_to_evaluate(self.sizes)
        xa = self.X[:, a]
        block = (xa[self.te_idx][:, :, None] - xa[self.tr_idx][:, None, :]) ** 2   # (F, T, R)
        m = len(rows)
        # views fill in order, so the rows are usually 0..m-1: a slice avoids a gather
        D = self.D[:m] if rows[-1] == m - 1 else self.D[rows]
        cand = np.add(D, block, out=self._cand[:m])     # padded columns stay +inf
        S = self.S[rows] + self.span2[:, a]
        correct = self._correct(cand, self.rtol * S)
        return self._scores(a, rows, empty, correct, (block, S))

    def add(self, view, a):
        """Add feature ``a`` to the view ``view`` from the state of the last :meth:`candidate_scores`, which must
        have been for ``a`` (``RuntimeError`` otherwise)."""
        j, (block, S) = self._candidate(view, a)
        self.D[view] += block                           # the same sum as the candidate's
        self.S[view] = S[j]
        self.sizes[view] += 1
        self._cache = None

    def score_subset(self, cols):
        """Pooled inner accuracy of the columns ``cols`` from scratch (0.0 for no column), with the neighbour and
        tie rules of the incremental path."""
        cols = np.asarray(cols, dtype=np.intp)
        if cols.size == 0:
            return 0.0
        F, T = self.te_idx.shape
        dist = np.broadcast_to(self.pad, (F, T, self.pad.shape[2])).copy()
        for f, (tr, te) in enumerate(self.folds):
            dist[f, : len(te), : len(tr)] = squared_distances(self.X[np.ix_(te, cols)], self.X[np.ix_(tr, cols)])
        if not hasattr(self, "_within"):
            self._within = np.empty((1,) + dist.shape, dtype=bool)
        return pooled_accuracy(int(self._correct(dist[None], [self.rtol * self.span2[:, cols].sum(axis=1)])[0]),
                               self.total)


class GaussianNBIncremental(_FoldData):
    """Incremental Gaussian naive Bayes inner accuracy, replicating ``GaussianNB``.

    Per fold, the class means/variances of every feature are computed once on
    the fold's training rows exactly as ``GaussianNB.fit`` does (``np.mean`` and
    ``np.var`` per class), and the class priors are the empirical frequencies.
    ``GaussianNB`` adds ``epsilon = var_smoothing * max_j var(X_train[:, j])`` to every
    variance, the max running over the features *of the subset*; the state of
    a view therefore keeps that max per fold. The joint log-likelihood of class
    c is ``log prior_c - 0.5 * S1_c - 0.5 * S2_c`` with
    ``S1_c = sum_j log(2 pi (var_cj + eps))`` and
    ``S2_c(x) = sum_j (x_j - mu_cj)^2 / (var_cj + eps)``.
    Adding feature ``a`` whose fold variance does not exceed the current max
    leaves ``eps`` unchanged and adds one term to ``S1``/``S2``: ``O(n_test * C)``.
    When it raises the max, ``eps`` changes for every feature and the view's sums
    are recomputed over its features (exact, ``O(n_test * C * |view|)``; with
    features in random order this happens ``O(log |view|)`` times per view).

    Exactness: every term is the same floating-point expression as in
    scikit-learn; only the order of the sums over features differs (sequential
    here, pairwise in numpy), which can change a prediction only when two
    classes' log-likelihoods agree to ~1e-15 relative. ``inf``/``nan`` from zero
    variances propagate as in scikit-learn (``np.argmax`` picks the first ``nan``).
    """

    kind = "nb"

    def __init__(self, X, y, folds, var_smoothing=1e-9):
        super().__init__(X, y, folds)
        self.vs = float(var_smoothing)
        self.fold_classes, self.log_prior, self.mu, self.var, self.fvar = [], [], [], [], []
        self.yte = []
        for tr, te in folds:
            Xtr = X[tr]
            ytr = self.yenc[tr]
            cls, counts = np.unique(ytr, return_counts=True)
            cc = counts.astype(np.float64)
            prior = cc / np.sum(cc)
            self.fold_classes.append(cls)
            self.log_prior.append(np.log(prior))
            self.mu.append(np.stack([np.mean(Xtr[ytr == c], axis=0) for c in cls]))
            self.var.append(np.stack([np.var(Xtr[ytr == c], axis=0) for c in cls]))
            self.fvar.append(np.var(Xtr, axis=0))
            self.yte.append(self.yenc[te])

    def _terms(self, f, cols, eps):
        """Per-feature terms for ``cols`` with smoothing ``eps``.

        Returns ``t1`` (m, C_f) and ``t2`` (m, C_f, n_test_f).
        """
        _, te = self.folds[f]
        v = self.var[f][:, cols].T + eps                      # (m, C)
        t1 = np.log(2.0 * np.pi * v)
        x = self.X[np.ix_(te, cols)].T                         # (m, n_test)
        mu = self.mu[f][:, cols].T                              # (m, C)
        t2 = ((x[:, None, :] - mu[:, :, None]) ** 2) / v[:, :, None]
        return t1, t2

    def _correct(self, f, S1, S2):
        """``S1`` (m, C), ``S2`` (m, C, n_test) -> correct count per row m."""
        n_ij = -0.5 * S1
        n_ij = n_ij[:, :, None] - 0.5 * S2
        jll = self.log_prior[f][None, :, None] + n_ij
        pred = self.fold_classes[f][np.argmax(jll, axis=1)]     # (m, n_test)
        return (pred == self.yte[f]).sum(axis=-1)

    def start(self, n_views):
        """Begin an incremental search with ``n_views`` empty views (sums ``S1`` and ``S2`` of 0, no variance
        maximum yet)."""
        self.n_views = n_views
        self.views = [[] for _ in range(n_views)]
        F = len(self.folds)
        self.maxvar = np.full((n_views, F), -np.inf)
        self.S1 = [np.zeros((n_views, len(c))) for c in self.fold_classes]
        self.S2 = [np.zeros((n_views, len(c), len(te)))
                   for c, (_, te) in zip(self.fold_classes, self.folds)]
        self._cache = None

    def candidate_scores(self, a):
        """Pooled inner accuracy of every view with feature ``a`` added, shape (n_views,) (the empty views share
        one score); a view whose ``eps`` grows is recomputed over its features.  The candidates' states are
        kept for :meth:`add`."""
        sizes = np.array([len(v) for v in self.views])
        rows, empty = self._rows_to_evaluate(sizes)
        correct = np.zeros(len(rows), dtype=np.int64)
        new = []
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for f in range(len(self.folds)):
                va = self.fvar[f][a]
                old = self.maxvar[rows, f]
                newmax = np.maximum(old, va)
                eps = self.vs * newmax                          # (m,)
                # Rows whose eps is unchanged (or empty views): add one term.
                v = self.var[f][:, a][None, :] + eps[:, None]   # (m, C)
                t1 = np.log(2.0 * np.pi * v)
                xa = self.X[self.folds[f][1], a]
                t2 = ((xa[None, None, :] - self.mu[f][:, a][None, :, None]) ** 2) / v[:, :, None]
                S1 = self.S1[f][rows] + t1
                S2 = self.S2[f][rows] + t2
                # Rows whose eps grows: recompute the whole view with the new eps.
                for j in np.flatnonzero((va > old) & (old > -np.inf)):
                    cols = np.asarray(self.views[rows[j]] + [a], dtype=np.intp)
                    T1, T2 = self._terms(f, cols, eps[j])
                    S1[j] = _seq_sum(T1)
                    S2[j] = _seq_sum(T2)
                correct += self._correct(f, S1, S2)
                new.append((S1, S2, newmax))
        return self._scores(a, rows, empty, correct, new)

    def add(self, view, a):
        """Add feature ``a`` to the view ``view`` from the state of the last :meth:`candidate_scores`, which must
        have been for ``a`` (``RuntimeError`` otherwise)."""
        j, new = self._candidate(view, a)
        for f, (S1, S2, newmax) in enumerate(new):
            self.S1[f][view] = S1[j]
            self.S2[f][view] = S2[j]
            self.maxvar[view, f] = newmax[j]
        self.views[view].append(a)
        self._cache = None

    def score_subset(self, cols):
        """Pooled inner accuracy of the columns ``cols`` from scratch (0.0 for no column), each fold's ``eps``
        from the largest variance among ``cols``."""
        cols = np.asarray(cols, dtype=np.intp)
        if cols.size == 0:
            return 0.0
        correct = 0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for f in range(len(self.folds)):
                eps = self.vs * np.max(self.fvar[f][cols])
                T1, T2 = self._terms(f, cols, eps)
                correct += int(self._correct(f, T1.sum(axis=0)[None], T2.sum(axis=0)[None])[0])
        return pooled_accuracy(correct, self.total)


def _seq_sum(T):
    """Sum over the leading axis in index order (the order the increments use)."""
    out = T[0].copy()
    for t in T[1:]:
        out += t
    return out
