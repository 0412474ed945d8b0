"""Inner-accuracy evaluators shared by the view-construction methods (private).

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
  fold instead of a refit (DESIGN.md section 5).

The incremental protocol used by OFSP is ``start(n_views)``,
``candidate_scores(a) -> (n_views,)`` (accuracy of every view with feature ``a``
added) and ``add(view, a)``. ``score_subset(cols)`` scores one subset from
scratch (used by attribute bagging and the genetic algorithm).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.core.neighbours import TIE_RTOL, distance_tie_tolerance, k_nearest_tolerant, squared_distances
from mvlab.core.params import NON_NEGATIVE_REAL, POSITIVE_COUNT

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
    classes_ : ndarray (n_classes,); tie_tolerance_ : float; n_features_in_ : int
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


def inner_fold_count(inner_cv: int, y) -> int:
    """Stratified inner folds used for ``inner_cv`` folds on labels ``y`` (n,).

    ``min(inner_cv, size of the smallest class)``, but at least 2: every fold then holds
    every class (a class of one member can only be in one fold's test rows). ValueError
    when ``inner_cv < 2`` or when every class has a single member.
    """
    if inner_cv < 2:
        raise ValueError(f"inner_cv={inner_cv}: an integer inner_cv must be >= 2 folds.")
    _, counts = np.unique(y, return_counts=True)
    if counts.max() < 2:
        raise ValueError(
            f"inner_cv={inner_cv} folds but every class has a single sample; "
            "stratified inner folds need a class with at least 2."
        )
    return int(max(2, min(int(inner_cv), int(counts.min()))))


def make_folds(inner_cv, X, y, random_state):
    """Inner folds on the training data: list of ``(train_rows, test_rows)``.

    ``inner_cv`` is an int >= 2 (stratified, shuffled k-fold seeded by
    ``random_state``), a float in (0, 1) (one stratified hold-out split with that
    test fraction), a scikit-learn splitter (its ``split(X, y)``) or an iterable
    of ``(train, test)`` index pairs.

    An int is lowered to what the smallest class allows,
    :func:`inner_fold_count` (``min(inner_cv, smallest class size)``, at least 2),
    instead of letting scikit-learn warn "The least populated class in y has only
    3 members, which is less than n_splits=5" and make folds without that class in
    some of them; ``len(folds)`` tells how many were used.
    """
    n = len(y)
    if isinstance(inner_cv, (str, bytes)):
        raise ValueError(
            f"inner_cv={inner_cv!r} is not understood; pass an int (k-fold), a float "
            "in (0, 1) (hold-out fraction), a CV splitter or a list of (train, test) pairs."
        )
    if isinstance(inner_cv, numbers.Integral) and not isinstance(inner_cv, bool):
        n_splits = inner_fold_count(inner_cv, y)
        cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
        with warnings.catch_warnings():
            # only when a class has a single member (2 folds cannot hold it twice): said above
            warnings.filterwarnings("ignore", message="The least populated class in y", category=UserWarning)
            splits = list(cv.split(np.zeros((n, 1)), y))
    elif isinstance(inner_cv, numbers.Real) and not isinstance(inner_cv, bool):
        if not 0.0 < inner_cv < 1.0:
            raise ValueError(
                f"inner_cv={inner_cv}: a float inner_cv is a hold-out test fraction in (0, 1)."
            )
        cv = StratifiedShuffleSplit(n_splits=1, test_size=float(inner_cv),
                                    random_state=random_state)
        splits = cv.split(np.zeros((n, 1)), y)
    elif hasattr(inner_cv, "split"):
        splits = inner_cv.split(X, y)
    elif inner_cv is not None and hasattr(inner_cv, "__iter__"):
        splits = inner_cv
    else:
        raise ValueError(
            f"inner_cv={inner_cv!r} is not understood; pass an int (k-fold), a float "
            "in (0, 1) (hold-out fraction), a CV splitter or a list of (train, test) pairs."
        )
    folds = []
    for train, test in splits:
        train = np.sort(np.asarray(train, dtype=np.intp))
        test = np.sort(np.asarray(test, dtype=np.intp))
        if train.size == 0 or test.size == 0:
            raise ValueError("every inner fold needs at least one training and one test row.")
        if train.min() < 0 or test.min() < 0 or max(train.max(), test.max()) >= n:
            raise ValueError("inner fold indices are out of range for the training data.")
        folds.append((train, test))
    if not folds:
        raise ValueError("inner_cv produced no folds.")
    return folds


def pooled_accuracy(correct, total):
    """Pooled accuracy ``correct / total`` (the inner ``Acc`` of B.2)."""
    return float(correct) / float(total)


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
    """``"knn"``, ``"nb"`` or ``None``: which incremental evaluator fits ``estimator``."""
    if _knn_params(estimator) is not None:
        return "knn"
    if _gnb_params(estimator) is not None:
        return "nb"
    return None


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
        return naive_subset_score(self.estimator, self.X, self.y, cols, self.folds)

    def score_many(self, subsets):
        if self._parallel is None:
            return [self.score_subset(c) for c in subsets]
        return list(self._parallel(
            delayed(naive_subset_score)(self.estimator, self.X, self.y, c, self.folds)
            for c in subsets
        ))

    def start(self, n_views):
        self.views = [[] for _ in range(n_views)]

    def candidate_scores(self, a):
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
        self.n_views = n_views
        self.sizes = np.zeros(n_views, dtype=np.intp)
        self.D = np.broadcast_to(self.pad, (n_views,) + self.pad.shape[:1] + (self.te_idx.shape[1],)
                                 + self.pad.shape[2:]).copy()
        self.S = np.zeros((n_views, len(self.folds)))
        self._cand = np.empty_like(self.D)              # scratch buffers, reused for every feature
        self._within = np.empty(self.D.shape, dtype=bool)
        self._cache = None

    def candidate_scores(self, a):
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
        j, (block, S) = self._candidate(view, a)
        self.D[view] += block                           # the same sum as the candidate's
        self.S[view] = S[j]
        self.sizes[view] += 1
        self._cache = None

    def score_subset(self, cols):
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
    features in random order this happens O(log |view|) times per view).

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
        self.n_views = n_views
        self.views = [[] for _ in range(n_views)]
        F = len(self.folds)
        self.maxvar = np.full((n_views, F), -np.inf)
        self.S1 = [np.zeros((n_views, len(c))) for c in self.fold_classes]
        self.S2 = [np.zeros((n_views, len(c), len(te)))
                   for c, (_, te) in zip(self.fold_classes, self.folds)]
        self._cache = None

    def candidate_scores(self, a):
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
        j, new = self._candidate(view, a)
        for f, (S1, S2, newmax) in enumerate(new):
            self.S1[f][view] = S1[j]
            self.S2[f][view] = S2[j]
            self.maxvar[view, f] = newmax[j]
        self.views[view].append(a)
        self._cache = None

    def score_subset(self, cols):
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


def make_evaluator(estimator, X, y, folds, evaluator="auto", n_jobs=None):
    """Pick the evaluator for ``estimator``.

    ``evaluator="auto"`` uses the incremental kNN / Gaussian NB evaluator when the
    estimator is a uniform-weight Euclidean ``KNeighborsClassifier`` or a
    ``GaussianNB`` without fixed priors, and the naive refit otherwise;
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
            "KNeighborsClassifier (uniform weights, Euclidean) and GaussianNB "
            "(priors=None). Use evaluator='naive' or 'auto'."
        )
    if kind == "knn":
        k, rtol = _knn_params(estimator)
        return KNNIncremental(X, y, folds, n_neighbors=k, rtol=rtol)
    if kind == "nb":
        return GaussianNBIncremental(X, y, folds, var_smoothing=_gnb_params(estimator))
    return NaiveEvaluator(estimator, X, y, folds, n_jobs=n_jobs)
