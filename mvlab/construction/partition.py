"""View construction: OFSP and the five comparison methods of Kumar & Minz (docs/algorithms.md B).

Every partitioner is a scikit-learn-style estimator whose ``fit(X, y)`` sets

* ``views_``: list of 1-D integer arrays of column indices of ``X`` (sorted), one per view;
* ``discarded_``: sorted integer array of the columns that are in no view;
* ``n_features_in_``, ``classes_``.

A view is a group of columns (docs/design.md §2), so learned views can be passed
straight to :class:`mvlab.construction.ensemble.ViewEnsemble` or any estimator taking ``views``.

=============================  ==========================================================
class                          method (docs/algorithms.md)
=============================  ==========================================================
:class:`OFSP`                  greedy optimal feature set partitioning, B.2
:class:`RandomPartition`       RFSP: shuffled features split into k near-equal blocks, B.5
:class:`AttributeBagging`      AB: subset-size search, then k random subsets, B.5
:class:`AttributeClustering`   VG-AC: k-means on standardised feature columns, B.5
:class:`GeneticViews`          VC-GA: (mu + lambda) GA, top k chromosomes are the views, B.5
:class:`Bagging`               horizontal partition: k bootstrap row samples, all features, B.5
=============================  ==========================================================

Base classifiers are chosen by name -- ``"knn"`` (1-NN, brute force), ``"nb"``
(``GaussianNB``), ``"svm"`` (``SVC(kernel="linear", C=1)``) -- or passed as any
scikit-learn classifier. Inner accuracies are always estimated on the training
data only, by stratified inner k-fold CV (``inner_cv=5``, default) or a hold-out
fraction (``inner_cv=0.3``); the score is the pooled fraction of correct held-out
predictions.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_X_y

from mvlab.construction.estimators import ESTIMATOR_NAMES, make_evaluator, resolve_estimator
from mvlab.construction.inner_folds import make_folds
from mvlab.core.params import (
    N_JOBS,
    NON_NEGATIVE_INT,
    POSITIVE_INT,
    PROBABILITY,
    RANDOM_STATE,
    HasMethods,
    Interval,
    StrOptions,
)
from mvlab.core.progress import ProgressCallback
from mvlab.core.progress import report as _report
from mvlab.core.views import check_views
from mvlab.i18n import N_, Message

__all__ = [
    "OFSP",
    "RandomPartition",
    "AttributeBagging",
    "AttributeClustering",
    "GeneticViews",
    "Bagging",
]


class _BasePartitioner(BaseEstimator):
    """Shared validation and bookkeeping for the partitioners (subclasses implement ``fit``)."""

    _needs_labels = True
    _parameter_constraints: dict = {"n_views": POSITIVE_INT, "random_state": RANDOM_STATE}

    def _validate(self, X, y):
        self._validate_params()
        if y is None:  # partitioners that ignore labels accept fit(X)
            y = np.zeros(np.asarray(X).shape[0] if np.ndim(X) == 2 else 0)
        X, y = check_X_y(X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.n_features_in_ = X.shape[1]
        self.classes_ = np.unique(y)
        if self._needs_labels and len(self.classes_) < 2:
            raise ValueError(
                f"y has a single class ({self.classes_[0]!r}); view construction "
                "needs at least two classes."
            )
        return X, y

    def _check_views_le_features(self, d):
        if self.n_views > d:
            raise ValueError(
                f"n_views={self.n_views} exceeds the number of features: X has {d} feature(s), and "
                "a partition into disjoint non-empty views needs n_views <= n_features."
            )

    def _finish(self, views, d):
        checked, _ = check_views(list(views), d, allow_empty=True)
        self.views_ = [np.sort(v).astype(np.intp) for v in checked]
        used = np.zeros(d, dtype=bool)
        for v in self.views_:
            used[v] = True
        self.discarded_ = np.flatnonzero(~used).astype(np.intp)
        return self

    @property
    def percent_features_used_(self):
        """``100 * |X_1 u ... u X_k| / n_features`` (B.6)."""
        used = np.zeros(self.n_features_in_, dtype=bool)
        for v in self.views_:
            used[v] = True
        return 100.0 * used.sum() / self.n_features_in_


_WRAPPER_CONSTRAINTS: dict = {
    **_BasePartitioner._parameter_constraints,
    "estimator": [StrOptions(set(ESTIMATOR_NAMES)), HasMethods(["fit", "predict"])],
    "inner_cv": "no_validation",  # make_folds, in fit
    "evaluator": [StrOptions({"auto", "incremental", "naive"})],
    "n_jobs": N_JOBS,
}
"""Parameters shared by the wrapper methods (OFSP, AB, VC-GA), which score subsets with an inducer."""


class OFSP(_BasePartitioner):
    """Optimal Feature Set Partitioning (Kumar & Minz 2016; docs/algorithms.md B.2, Def. 7).

    One greedy pass over the features: feature ``x_a`` is tried in each of the
    ``n_views`` views; it joins the view ``t = argmax_i [Acc(X_i u {x_a}) - Acc(X_i)]``
    (lowest index on ties) when that gain is > 0, else the discarded block
    ``X_{k+1}``. Empty views start at accuracy 0, so the first features fill them.

    Parameters
    ----------
    n_views : int, default=2
        Number of views k (1 <= k <= n_features). ``k = 1`` is one-pass greedy
        forward selection.
    estimator : {"knn", "nb", "svm"} or scikit-learn classifier, default="knn"
        Inducer ``f`` used for every view (see module docstring for the names).
    inner_cv : int, float, CV splitter or iterable of (train, test), default=5
        How ``Acc`` is estimated inside the training data: int = stratified
        shuffled k-fold seeded by ``random_state``; float in (0, 1) = one stratified
        hold-out split with that test fraction. The same folds are used for every
        evaluation. An int larger than the smallest class is lowered to that
        class's size (at least 2), so that every fold holds every class, and
        ``inner_cv_used_`` says how many folds were used (scikit-learn would warn
        "The least populated class in y has only 3 members, which is less than
        n_splits=5" and leave that class out of some folds).
    feature_order : {"natural", "shuffled"}, default="natural"
        Order of the greedy pass: column order, or a permutation drawn from
        ``random_state``.
    evaluator : {"auto", "incremental", "naive"}, default="auto"
        ``"auto"`` uses the incremental evaluator for a uniform-weight Euclidean
        ``KNeighborsClassifier`` (per view and fold, the held-out x training
        squared-distance block, updated in O(n^2) per added feature) or a
        ``GaussianNB`` (per-class log-likelihood sums, O(n*C)) or an ``SVC`` with a
        linear kernel (per view and fold, the kernel blocks, updated in O(n^2), then
        one libsvm solve: :mod:`mvlab.construction.svm_evaluator`), else the naive
        refit of a clone on every fold. Both give the same partition for the
        ``"knn"`` / ``"nb"`` / ``"svm"`` names, pinned by tests against the refit, also on
        features rounded to a decimal grid: ``"knn"`` is
        :class:`mvlab.construction.estimators.LowestIndexKNN`, whose rule the
        incremental evaluator follows (a distance tie, exact or hidden by rounding, goes
        to the lowest training index). A scikit-learn ``KNeighborsClassifier`` gets the
        same evaluator, which can differ from its refit on near-ties: scikit-learn
        resolves those by the rounding of its GEMM distances. Memory of the kNN evaluator: about
        ``2 * n_views * n_samples**2 * 8`` bytes (e.g. 64 MB at k = 10, n = 1000).
    random_state : int, RandomState or None
        Seeds the inner folds and the shuffled order.
    n_jobs : int or None
        Parallel candidate evaluations (joblib) on the naive path; the incremental
        evaluators are vectorised and ignore it.

    Attributes
    ----------
    views_ : list of int arrays
        The k views (sorted column indices); a view can stay empty if fewer than
        k features improve any view.
    discarded_ : int array
        The discarded block ``X_{k+1}``.
    view_scores_ : ndarray of shape (n_views,)
        Inner accuracy ``A_i`` of each final view (0 for an empty view).
    assignment_ : ndarray of shape (n_features,)
        View index of each feature, -1 if discarded.
    feature_order_ : ndarray of shape (n_features,)
        The order of the pass.
    folds_ : list of (train, test) index arrays
        The inner folds used.
    inner_cv_used_ : int
        How many inner folds (or hold-out splits) were used: ``inner_cv``, or less when
        the smallest class has fewer members.
    evaluator_ : str
        ``"knn"``, ``"nb"`` (incremental) or ``"naive"``.
    """

    _parameter_constraints: dict = {**_WRAPPER_CONSTRAINTS, "feature_order": [StrOptions({"natural", "shuffled"})]}

    def __init__(self, n_views=2, estimator="knn", inner_cv=5, feature_order="natural",
                 evaluator="auto", random_state=None, n_jobs=None):
        self.n_views = n_views
        self.estimator = estimator
        self.inner_cv = inner_cv
        self.feature_order = feature_order
        self.evaluator = evaluator
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y, progress: ProgressCallback = None):
        """Partition the columns of ``X`` (n_samples, n_features) given labels ``y`` (n_samples,).

        ``progress(fraction, message)``, optional, is called about every 1% of the features.
        """
        X, y = self._validate(X, y)
        d = X.shape[1]
        self._check_views_le_features(d)
        est = resolve_estimator(self.estimator)
        folds = make_folds(self.inner_cv, X, y, self.random_state)
        if self.feature_order == "natural":
            order = np.arange(d, dtype=np.intp)
        else:
            order = check_random_state(self.random_state).permutation(d).astype(np.intp)
        ev = make_evaluator(est, X, y, folds, evaluator=self.evaluator, n_jobs=self.n_jobs)

        k = self.n_views
        A = np.zeros(k)
        assignment = np.full(d, -1, dtype=np.intp)
        step = max(1, d // 100)
        _report(progress, 0.0, Message(N_("OFSP: starting")))
        with ev:
            ev.start(k)
            for pos, a in enumerate(order):
                a = int(a)
                A_temp = ev.candidate_scores(a)          # Acc(X_i u {x_a}), i = 1..k
                diff = A_temp - A
                t = int(np.argmax(diff))                  # lowest index on ties
                if diff[t] > 0:
                    ev.add(t, a)
                    A[t] = A_temp[t]
                    assignment[a] = t
                if (pos + 1) % step == 0 or pos + 1 == d:
                    _report(progress, (pos + 1) / d,
                            Message(N_("OFSP: {placed}/{features} features placed"), placed=pos + 1, features=d))

        self.feature_order_ = order
        self.folds_ = folds
        self.inner_cv_used_ = len(folds)
        self.evaluator_ = ev.kind
        self.assignment_ = assignment
        self.view_scores_ = A
        return self._finish([np.flatnonzero(assignment == i) for i in range(k)], d)


class RandomPartition(_BasePartitioner):
    """RFSP: a random partition of the features into ``n_views`` disjoint blocks (B.5).

    The features are shuffled with ``random_state`` and split into ``n_views``
    near-equal consecutive chunks (``np.array_split``); nothing is discarded.

    Attributes: ``views_`` (sorted int arrays), ``discarded_`` (empty).
    """

    _needs_labels = False

    def __init__(self, n_views=2, random_state=None):
        self.n_views = n_views
        self.random_state = random_state

    def fit(self, X, y=None):
        """``X`` (n_samples, n_features); ``y`` is ignored (accepted for API symmetry)."""
        X, y = self._validate(X, y)
        d = X.shape[1]
        self._check_views_le_features(d)
        perm = check_random_state(self.random_state).permutation(d)
        return self._finish(np.array_split(perm, self.n_views), d)


class AttributeBagging(_BasePartitioner):
    """Attribute bagging (Bryll et al. 2003; docs/algorithms.md B.5).

    Phase 1 -- size search: for every candidate size m, draw ``n_trials`` random
    feature subsets of size m and average their inner accuracy; the size with
    the best mean wins (smallest size on ties). Phase 2: draw ``n_views`` random
    subsets of that size, each without replacement; subsets may overlap.

    Parameters
    ----------
    n_views : int, default=2
    estimator : {"knn", "nb", "svm"} or classifier, default="knn"
    subset_sizes : sequence, default=(0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
        Candidate sizes: floats in (0, 1] are fractions of n_features (rounded,
        at least 1), ints >= 1 are absolute sizes (capped at n_features).
    n_trials : int, default=10
        Random subsets evaluated per candidate size.
    inner_cv, evaluator, random_state, n_jobs
        As in :class:`OFSP`. On the fast path the kNN score of a subset uses
        BLAS distances, equal to scikit-learn's up to floating-point rounding.

    Attributes
    ----------
    views_, discarded_ : as in :class:`OFSP` (``discarded_`` = features in no subset).
    subset_size_ : int
        The selected size m.
    sizes_ : ndarray of int
        Sizes tried; ``size_scores_`` : ndarray, their mean inner accuracies.
    """

    _parameter_constraints: dict = {
        **_WRAPPER_CONSTRAINTS,
        "subset_sizes": ["array-like"],  # each size, in fit
        "n_trials": POSITIVE_INT,
    }

    def __init__(self, n_views=2, estimator="knn", subset_sizes=(0.01, 0.02, 0.05, 0.1, 0.2, 0.5),
                 n_trials=10, inner_cv=5, evaluator="auto", random_state=None, n_jobs=None):
        self.n_views = n_views
        self.estimator = estimator
        self.subset_sizes = subset_sizes
        self.n_trials = n_trials
        self.inner_cv = inner_cv
        self.evaluator = evaluator
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _sizes(self, d):
        sizes = []
        for s in self.subset_sizes:
            if isinstance(s, numbers.Integral) and not isinstance(s, bool):
                if s < 1:
                    raise ValueError(f"subset size {s} must be >= 1.")
                m = min(int(s), d)
            elif isinstance(s, numbers.Real) and 0.0 < s <= 1.0:
                m = max(1, int(round(s * d)))
            else:
                raise ValueError(
                    f"subset size {s!r} must be an int >= 1 or a fraction in (0, 1]."
                )
            if m not in sizes:
                sizes.append(m)
        if not sizes:
            raise ValueError("subset_sizes is empty.")
        return np.array(sorted(sizes), dtype=np.intp)

    def fit(self, X, y, progress: ProgressCallback = None):
        """Search the subset size and draw ``n_views`` subsets of ``X`` (n_samples, n_features).

        ``progress(fraction, message)``, optional, is called after every candidate size.
        """
        X, y = self._validate(X, y)
        d = X.shape[1]
        rng = check_random_state(self.random_state)
        sizes = self._sizes(d)
        est = resolve_estimator(self.estimator)
        folds = make_folds(self.inner_cv, X, y, self.random_state)
        ev = make_evaluator(est, X, y, folds, evaluator=self.evaluator, n_jobs=self.n_jobs)
        scores = np.zeros(len(sizes))
        with ev:
            for s, m in enumerate(sizes):
                subsets = [np.sort(rng.choice(d, size=m, replace=False))
                           for _ in range(self.n_trials)]
                if hasattr(ev, "score_many"):
                    vals = ev.score_many(subsets)
                else:
                    vals = [ev.score_subset(c) for c in subsets]
                scores[s] = float(np.mean(vals))
                _report(progress, (s + 1) / len(sizes),
                        Message(N_("attribute bagging: size {size} scored"), size=int(m)))
        best = int(np.argmax(scores))
        m = int(sizes[best])
        views = [rng.choice(d, size=m, replace=False) for _ in range(self.n_views)]
        self.sizes_ = sizes
        self.size_scores_ = scores
        self.subset_size_ = m
        return self._finish(views, d)


class AttributeClustering(_BasePartitioner):
    """VG-AC: view generation by clustering the features (docs/algorithms.md B.5).

    Each feature is represented by its standardised column over the training
    rows (zero mean, unit variance; constant columns become all-zero), and
    Euclidean k-means with ``n_views`` clusters and ``n_init`` restarts groups
    them; each non-empty cluster is a view (views are ordered by their smallest
    feature index). Labels are not used.

    Attributes: ``views_``, ``discarded_`` (empty), ``labels_`` (cluster of each
    feature, shape (n_features,), renumbered to the view order).
    """

    _needs_labels = False

    _parameter_constraints: dict = {
        **_BasePartitioner._parameter_constraints,
        "n_init": [Interval(numbers.Integral, 1, None, closed="left"), StrOptions({"auto"})],
    }

    def __init__(self, n_views=2, n_init=10, random_state=None):
        self.n_views = n_views
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, X, y=None):
        """Cluster the columns of ``X`` (n_samples, n_features); ``y`` is ignored."""
        X, y = self._validate(X, y)
        d = X.shape[1]
        self._check_views_le_features(d)
        mean = X.mean(axis=0)
        std = X.std(axis=0)
        std[std == 0] = 1.0
        Z = ((X - mean) / std).T                       # (n_features, n_samples)
        km = KMeans(n_clusters=self.n_views, n_init=self.n_init,
                    random_state=self.random_state).fit(Z)
        raw = km.labels_
        present = [c for c in np.unique(raw)]
        firsts = sorted(present, key=lambda c: int(np.flatnonzero(raw == c)[0]))
        remap = {c: i for i, c in enumerate(firsts)}
        self.labels_ = np.array([remap[c] for c in raw], dtype=np.intp)
        return self._finish([np.flatnonzero(self.labels_ == i) for i in range(len(firsts))], d)


class GeneticViews(_BasePartitioner):
    """VC-GA: view construction by a genetic algorithm (docs/algorithms.md B.5).

    A chromosome is a boolean mask over the features; fitness is the inner
    accuracy of ``estimator`` on the selected features (0 for an empty mask).
    The initial population flips each bit of an all-zero string with probability
    ``init_density``. Each generation makes ``n_offspring`` children: parents by
    binary tournament; with probability ``crossover_rate`` a pair is recombined
    (uniform or one-point crossover), else copied; each child bit flips with
    probability ``mutation_rate``. "Cross-generational" survivor selection keeps
    the ``population_size`` best of parents + offspring (parents win ties). The
    ``n_views`` best *distinct* chromosomes of the final population are the views
    (topped up from the best other chromosomes ever evaluated if the population
    has fewer distinct members). Views may overlap.

    Parameters
    ----------
    n_views : int, default=2
    estimator : {"knn", "nb", "svm"} or classifier, default="knn"
    population_size : int, default=50
    n_offspring : int, default=100
    mutation_rate : float, default=0.03
    crossover_rate : float, default=0.66
    n_generations : int, default=30
        Generations of the (mu + lambda) evolution (0: the initial population alone).
    crossover : {"uniform", "one_point"}, default="uniform"
    init_density : float, default=0.5
    inner_cv, evaluator, random_state, n_jobs
        As in :class:`AttributeBagging`.

    Attributes
    ----------
    views_, discarded_ : views and features in no view.
    view_scores_ : ndarray (n_views,), fitness of each view.
    population_ : bool ndarray (population_size, n_features), final population,
        best first; ``population_fitness_`` its fitness.
    initial_population_ : bool ndarray, the generation-0 population.
    history_ : ndarray (n_generations + 1, 2), best and mean fitness per generation.
    n_evaluations_ : int, distinct chromosomes scored.
    """

    _parameter_constraints: dict = {
        **_WRAPPER_CONSTRAINTS,
        "population_size": POSITIVE_INT,
        "n_offspring": POSITIVE_INT,
        "mutation_rate": PROBABILITY,
        "crossover_rate": PROBABILITY,
        "n_generations": NON_NEGATIVE_INT,
        "crossover": [StrOptions({"uniform", "one_point"})],
        "init_density": PROBABILITY,
    }

    def __init__(self, n_views=2, estimator="knn", population_size=50, n_offspring=100,
                 mutation_rate=0.03, crossover_rate=0.66, n_generations=30,
                 crossover="uniform", init_density=0.5, inner_cv=5, evaluator="auto",
                 random_state=None, n_jobs=None):
        self.n_views = n_views
        self.estimator = estimator
        self.population_size = population_size
        self.n_offspring = n_offspring
        self.mutation_rate = mutation_rate
        self.crossover_rate = crossover_rate
        self.n_generations = n_generations
        self.crossover = crossover
        self.init_density = init_density
        self.inner_cv = inner_cv
        self.evaluator = evaluator
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self):
        """The check across parameters that ``_parameter_constraints`` cannot express."""
        if self.n_views > self.population_size:
            raise ValueError(
                f"n_views={self.n_views} exceeds population_size={self.population_size}; "
                "the views are the best chromosomes of the population."
            )

    def fit(self, X, y, progress: ProgressCallback = None):
        """Evolve feature masks on ``X`` (n_samples, n_features), ``y`` (n_samples,).

        ``progress(fraction, message)``, optional, is called after every generation.
        """
        X, y = self._validate(X, y)
        self._check_params()
        d = X.shape[1]
        rng = check_random_state(self.random_state)
        est = resolve_estimator(self.estimator)
        folds = make_folds(self.inner_cv, X, y, self.random_state)
        ev = make_evaluator(est, X, y, folds, evaluator=self.evaluator, n_jobs=self.n_jobs)
        cache = {}

        def fitness(pop):
            keys = [np.packbits(c).tobytes() for c in pop]
            todo = {}
            for key, c in zip(keys, pop):
                if key not in cache and key not in todo:
                    todo[key] = np.flatnonzero(c)
            if todo:
                subsets = list(todo.values())
                if hasattr(ev, "score_many"):
                    vals = ev.score_many(subsets)
                else:
                    vals = [ev.score_subset(c) for c in subsets]
                cache.update(zip(todo.keys(), vals))
            return np.array([cache[k] for k in keys])

        P, L = self.population_size, self.n_offspring
        with ev:
            pop = rng.random_sample((P, d)) < self.init_density
            self.initial_population_ = pop.copy()
            fit = fitness(pop)
            history = [(fit.max(), fit.mean())]
            total = max(1, self.n_generations)
            for g in range(self.n_generations):
                children = self._offspring(rng, pop, fit, L)
                cfit = fitness(children)
                allpop = np.vstack([pop, children])
                allfit = np.concatenate([fit, cfit])
                keep = np.argsort(-allfit, kind="stable")[:P]
                pop, fit = allpop[keep], allfit[keep]
                history.append((fit.max(), fit.mean()))
                _report(progress, (g + 1) / total, Message(N_("GA: generation {generation}"), generation=g + 1))

        order = np.argsort(-fit, kind="stable")
        pop, fit = pop[order], fit[order]
        views, vscores = self._top_views(pop, fit, cache, d)
        self.population_ = pop
        self.population_fitness_ = fit
        self.history_ = np.array(history)
        self.n_evaluations_ = len(cache)
        self.view_scores_ = np.array(vscores)
        self.folds_ = folds
        return self._finish(views, d)

    def _offspring(self, rng, pop, fit, L):
        """``L`` children (L, d) of the population ``pop`` (P, d): tournament parents, one-point crossover
        with probability ``crossover_rate``, then bit-flip mutation with probability ``mutation_rate``."""
        d = pop.shape[1]
        children = np.empty((L, d), dtype=bool)
        for c in range(0, L, 2):
            pa = self._tournament(rng, fit)
            pb = self._tournament(rng, fit)
            a, b = pop[pa].copy(), pop[pb].copy()
            if rng.random_sample() < self.crossover_rate:
                a, b = self._cross(rng, a, b)
            children[c] = a
            if c + 1 < L:
                children[c + 1] = b
        children ^= rng.random_sample((L, d)) < self.mutation_rate
        return children

    def _top_views(self, pop, fit, cache, d):
        """The ``n_views`` best distinct non-empty masks of the final population (sorted by fitness), topped
        up from every mask ever evaluated (``cache``: packed mask -> fitness) when the population holds fewer.
        Returns the views (index arrays) and their fitness."""
        views, vscores, seen = [], [], set()
        for c, score in zip(pop, fit):
            key = np.packbits(c).tobytes()
            if key in seen or not c.any():
                continue
            seen.add(key)
            views.append(np.flatnonzero(c))
            vscores.append(score)
            if len(views) == self.n_views:
                return views, vscores
        extra = sorted(((score, k) for k, score in cache.items() if k not in seen), key=lambda t: -t[0])
        for score, key in extra:
            if len(views) == self.n_views:
                break
            mask = np.unpackbits(np.frombuffer(key, dtype=np.uint8))[:d].astype(bool)
            if mask.any():
                views.append(np.flatnonzero(mask))
                vscores.append(score)
        return views, vscores

    @staticmethod
    def _tournament(rng, fit):
        i, j = rng.randint(len(fit), size=2)
        return i if fit[i] >= fit[j] else j

    def _cross(self, rng, a, b):
        if self.crossover == "uniform":
            m = rng.random_sample(a.shape[0]) < 0.5
        else:
            cut = rng.randint(1, a.shape[0]) if a.shape[0] > 1 else 0
            m = np.arange(a.shape[0]) < cut
        return np.where(m, a, b), np.where(m, b, a)


class Bagging(_BasePartitioner):
    """Bagging as a *horizontal* partition (docs/algorithms.md B.5).

    Draws ``n_views`` bootstrap samples of the rows (``n_samples`` draws with
    replacement each); every member keeps all features. To fit the ``views_``
    interface, ``views_`` holds ``arange(n_features)`` ``n_views`` times and
    ``row_samples_`` holds the bootstrap row indices; :class:`mvlab.construction.ensemble.ViewEnsemble`
    trains member i on rows ``row_samples_[i]`` when the partitioner has them.

    Attributes: ``views_`` (all features, k times), ``row_samples_`` (list of k
    int arrays of shape (n_samples,)), ``discarded_`` (empty).
    """

    _needs_labels = False

    def __init__(self, n_views=2, random_state=None):
        self.n_views = n_views
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the bootstrap samples for ``X`` (n_samples, n_features)."""
        X, y = self._validate(X, y)
        n, d = X.shape
        rng = check_random_state(self.random_state)
        self.row_samples_ = [rng.randint(0, n, size=n).astype(np.intp)
                             for _ in range(self.n_views)]
        return self._finish([np.arange(d)] * self.n_views, d)
