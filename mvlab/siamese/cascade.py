"""gcForest: the cascade forest (docs/algorithms.md §C.2).

:class:`CascadeForest` grows levels of forests; every level holds ``n_completely_random``
completely-random tree forests (ExtraTrees with ``max_features=1``), ``n_random`` random
forests (``max_features="sqrt"``) and ``n_extra_trees`` extremely randomised forests (ExtraTrees with
``max_features="sqrt"``, DF21's second kind): 2 + 2 + 0 in the SDF paper, 0 + 2 + 2 in DF21. Each
forest outputs a class vector (Eq. 9: the average over its trees of the leaf class frequencies); the
class vectors of a level are appended to the input of the next level, cumulatively (SDF Eqs. 10-11, the default) or
from the previous level only (official gcForest). Training class vectors are out-of-fold
(stratified k-fold, paper: 3 folds; test rows average the k fold-models) or out-of-bag. Levels
are added while the training (out-of-fold) accuracy of the averaged class vectors improves,
with a patience and a minimum gain; the levels after the best one are discarded (or kept: ``level_choice``).

How a forest turns its trees' probabilities into a class vector is a hook: a subclass overrides
:meth:`CascadeForest._tree_weights` to return weights ``w`` on the simplex, and the class vector
becomes ``sum_t w_t p^{(t)}`` (SDF Eq. 12); ``None`` keeps the plain average (Eq. 9). The hook
may also supply the held-out rows' class vectors itself (for cross-fitted weights).

Two settings make a cascade smaller and faster without changing what it computes from its trees:
``n_bins`` grows the trees on one-byte bin codes of the features and of the class vectors
(:mod:`mvlab.siamese.binning`), and ``compact_trees`` keeps every fitted forest in a few bytes a node
(:mod:`mvlab.siamese.compact`), predicting bit for bit as the scikit-learn forest did.
:meth:`CascadeForest.df21` is DF21's setting (:data:`DF21_SETTINGS`); the papers' own settings are the defaults.

Multi-grained scanning, which can precede a cascade, is :mod:`mvlab.siamese.scanning`.
"""

from __future__ import annotations

import hashlib
import numbers
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.core.forest_fit import fit_forest
from mvlab.core.params import (
    FOLDS,
    MIN_SAMPLES_LEAF,
    MIN_SAMPLES_SPLIT,
    N_JOBS,
    NON_NEGATIVE_INT,
    NON_NEGATIVE_REAL,
    OPTIONAL_POSITIVE_INT,
    POSITIVE_INT,
    RANDOM_STATE,
    Interval,
    StrOptions,
)
from mvlab.core.progress import ProgressCallback
from mvlab.core.progress import report as _report
from mvlab.core.threads import in_order, split_workers
from mvlab.i18n import N_, Message
from mvlab.siamese.binning import MAX_BINS, QuantileBinner
from mvlab.siamese.class_vectors import (
    ForestUnit,
    add_oob,
    combine_trees,
    fold_average,
    forest_proba,
    model_proba,
    oob_sums,
    tree_probas,
)
from mvlab.siamese.compact import CompactForest

# ForestUnit, forest_proba and tree_probas live in mvlab.siamese.class_vectors; they stay importable from here
__all__ = ["DF21_SETTINGS", "CascadeForest", "ForestUnit", "forest_proba", "tree_probas"]

DF21_SETTINGS = dict(
    n_estimators=100,
    n_completely_random=0,
    n_random=2,
    n_extra_trees=2,
    class_vectors="oob",
    propagation="previous",
    max_levels=20,
    patience=2,
    min_gain=1e-5,
    n_bins=255,
    compact_trees=True,
    bootstrap_weights="distinct",
    bin_ties="keep",
)
"""DF21's cascade (``deep-forest`` 0.1.7 / ``deep-forest-py310`` 0.1.9 defaults, docs/algorithms.md §C.2):
2 random forests and 2 extremely randomised forests (``max_features="sqrt"``, bootstrapped) of 100 trees a
level, out-of-bag class vectors, the previous level's vectors appended to the input, features and class
vectors binned into 255 bins at every midpoint percentile (repeated ones kept), every tree grown on the distinct
rows its bootstrap drew (each once), at most 20 levels, stopped after 2 levels without a gain of 1e-5; and, for
memory only, compact trees. :meth:`CascadeForest.df21` builds it."""

_MAX_SEED = np.iinfo(np.int32).max
_MIN_ROWS_FOR_THREADS = 512  # prediction: rows below which the models of a level run on one thread


class CascadeForest(ClassifierMixin, BaseEstimator):
    """gcForest cascade of completely-random and random forests (§C.2), or DF21's (:meth:`df21`).

    Parameters
    ----------
    n_estimators : int, default=100
        Trees per forest (paper: 100-1000; official gcForest: 500).
    n_completely_random : int, default=2
        Completely-random tree forests per level (ExtraTrees, ``max_features=1``).
    n_random : int, default=2
        Random forests per level (``max_features="sqrt"``).
    n_extra_trees : int, default=0
        Extremely randomised forests per level (ExtraTrees, ``max_features="sqrt"``; bootstrapped with
        ``class_vectors="oob"``): DF21's second kind, 2 in :data:`DF21_SETTINGS`.
    n_folds : int, default=3
        Folds of the stratified, shuffled k-fold that produces training class vectors.
    class_vectors : {"kfold", "oob"}, default="kfold"
        ``"kfold"``: out-of-fold ``predict_proba`` for training rows, test rows averaged over
        the fold-models (official gcForest). ``"oob"``: one bootstrapped forest on all rows,
        out-of-bag class vectors for training rows (DF21); rows never out-of-bag use the
        in-sample vector.
    propagation : {"cumulative", "previous"}, default="cumulative"
        Input of level q: ``[X, V_1, ..., V_{q-1}]`` (SDF Eq. 11, C-leo) or ``[X, V_{q-1}]``
        (official gcForest).
    max_levels : int, default=10
        Levels at most; the cascade stops earlier when levels stop improving (``patience``, ``min_gain``).
    patience : int, default=1
        Stop after ``patience`` consecutive levels without a gain larger than ``min_gain`` over
        the best training accuracy so far (1 = C-leo's strict-improvement rule, 4 = official).
    min_gain : float, default=0.0
    level_choice : {"best", "last"}, default="best"
        The levels kept once growth stops: up to the first with the best training accuracy (gcForest, DF21), or
        ``"last"``, every level grown (up to ``patience`` more, each costing prediction time), as out-of-bag
        accuracy reads deep levels pessimistically (docs/algorithms.md §C.2; docs/benchmarks.md: the deepest
        level was the more accurate on held-out rows on 7 of 10 splits of the cascade bench).
    max_depth, min_samples_split, min_samples_leaf : forest parameters.
    n_bins : int from 2 to 255, or None, default=None
        ``None``: the trees split the features' values. An int: every level's forests grow on bin codes
        (:class:`mvlab.siamese.binning.QuantileBinner`, fitted on the training rows): the features are
        binned once, each level's training class vectors get their own bins, and new rows are coded with
        the training bins (DF21: 255).
    compact_trees : bool, default=False
        Keep every fitted forest as a :class:`mvlab.siamese.compact.CompactForest` (about a seventh of a
        scikit-learn forest's memory; the same predictions bit for bit). ``levels_`` then holds compact
        forests, not scikit-learn ones.
    bootstrap_weights : {"counts", "distinct"}, default="counts"
        How a bootstrapped tree (every random forest; the extremely randomised and completely-random forests
        with ``class_vectors="oob"``) weights the rows its bootstrap drew: ``"counts"``, by how often each was
        drawn (scikit-learn's forests, the papers' setting); ``"distinct"``, each drawn row once (DF21's forests,
        :data:`DF21_SETTINGS`). The draws, hence the out-of-bag rows, are the same
        (:func:`mvlab.core.forest_fit.fit_forest`).
    bin_ties : {"merge", "keep"}, default="merge"
        With ``n_bins``, when a tied value fills several quantiles (a class vector's 0 or 1): ``"merge"`` merges
        the repeated bin edges (consecutive codes); ``"keep"`` keeps them, as DF21's binner does, so the codes
        skip the numbers the tie spans and an extremely randomised tree's uniform threshold cuts in proportion
        to ranks (:mod:`mvlab.siamese.binning`). The random forests' best splits do not change.
    n_jobs : int, optional
        Threads. The models of a level (its forests, times ``n_folds`` fold-models with
        ``"kfold"``) are fitted, and evaluated at prediction, in parallel, each on one thread
        when there are at least ``n_jobs`` of them; the trees and class vectors do not depend
        on ``n_jobs``.
    random_state : int, RandomState or None

    Notes
    -----
    ``CascadeForest.df21()`` is DF21's setting (:data:`DF21_SETTINGS`; keyword arguments override it).
    Cost: with ``"kfold"`` every forest is ``n_folds`` fold-models, so a level fits
    ``n_folds`` forests on ``(n_folds - 1) / n_folds`` of the rows and predicts with
    ``n_folds`` times the trees of one forest; ``"oob"`` fits and evaluates one forest (DF21's
    choice). ``bench/bench_peers.py`` and ``bench/bench_cascade_peers.py`` measure them against DF21.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    levels_ : list of list of ForestUnit
        Kept levels (``level_choice``), each with ``n_completely_random + n_random + n_extra_trees`` forests.
    n_levels_ : int
    feature_binner_ : QuantileBinner or None
        The features' bins (``n_bins``), else None.
    vector_binners_ : list of QuantileBinner
        With ``n_bins``: the bins of every kept level's class vectors (flattened, ``n_forests * n_classes``
        columns), fitted on its training class vectors; empty otherwise.
    level_scores_ : list of float
        Training (out-of-fold / out-of-bag) accuracy of every level built, kept or not.
    train_class_vectors_ : list of ndarray of shape (n_samples, n_forests, n_classes)
        Training class vectors of the kept levels.
    forests_kept_ : bool
        False when a fit with evaluation rows let the forests go (``keep_forests=False``,
        :meth:`mvlab.siamese.SiameseDeepForest.fit_from_vectors`); such a cascade predicts nothing.
    eval_class_vectors_ : list of ndarray of shape (n_eval, n_forests, n_classes)
        Only after a fit given evaluation rows: their class vectors at every kept level, equal to what
        :meth:`level_class_vectors` gives for them after the fit.
    """

    _parameter_constraints: dict = {
        "n_estimators": POSITIVE_INT,
        "n_completely_random": NON_NEGATIVE_INT,
        "n_random": NON_NEGATIVE_INT,
        "n_extra_trees": NON_NEGATIVE_INT,
        "n_folds": FOLDS,
        "class_vectors": [StrOptions({"kfold", "oob"})],
        "propagation": [StrOptions({"cumulative", "previous"})],
        "max_levels": POSITIVE_INT,
        "patience": POSITIVE_INT,
        "min_gain": NON_NEGATIVE_REAL,
        "level_choice": [StrOptions({"best", "last"})],
        "max_depth": OPTIONAL_POSITIVE_INT,
        "min_samples_split": MIN_SAMPLES_SPLIT,
        "min_samples_leaf": MIN_SAMPLES_LEAF,
        "n_bins": [Interval(numbers.Integral, 2, MAX_BINS, closed="both"), None],
        "compact_trees": ["boolean"],
        "bootstrap_weights": [StrOptions({"counts", "distinct"})],
        "bin_ties": [StrOptions({"merge", "keep"})],
        "n_jobs": N_JOBS,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        n_estimators=100,
        n_completely_random=2,
        n_random=2,
        n_folds=3,
        class_vectors="kfold",
        propagation="cumulative",
        max_levels=10,
        patience=1,
        min_gain=0.0,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        n_jobs=None,
        random_state=None,
        n_extra_trees=0,
        n_bins=None,
        compact_trees=False,
        bootstrap_weights="counts",
        bin_ties="merge",
        level_choice="best",
    ):
        self.n_estimators = n_estimators
        self.level_choice = level_choice
        self.n_completely_random = n_completely_random
        self.n_random = n_random
        self.n_extra_trees = n_extra_trees
        self.n_bins = n_bins
        self.compact_trees = compact_trees
        self.bootstrap_weights = bootstrap_weights
        self.bin_ties = bin_ties
        self.n_folds = n_folds
        self.class_vectors = class_vectors
        self.propagation = propagation
        self.max_levels = max_levels
        self.patience = patience
        self.min_gain = min_gain
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.random_state = random_state

    @classmethod
    def df21(cls, **overrides):
        """A cascade with DF21's setting (:data:`DF21_SETTINGS`), any of it replaced by ``overrides``.

        ``CascadeForest.df21(random_state=0)`` is DF21's ``CascadeForestClassifier()`` in mvlab: 2 random forests
        and 2 extremely randomised forests of 100 trees a level, each tree grown on the distinct rows its bootstrap
        drew, out-of-bag class vectors of the previous level only, 255 bins, at most 20 levels, patience 2."""
        return cls(**{**DF21_SETTINGS, **overrides})

    # ----------------------------------------------------------------- hooks for subclasses
    def _tree_weights(self, level, forest_index, estimator, tp_out, y_out, X_in, y_in):
        """Tree weights of one fitted estimator (Eq. 12), and optionally held-out class vectors.

        Subclasses override this to weight trees; the default keeps the average (Eq. 9).

        Parameters
        ----------
        level : int
            0-based cascade level.
        forest_index : int
            Index of the forest within the level.
        estimator : fitted forest
        tp_out : ndarray of shape (T, n_out, n_classes) or None
            Tree probabilities on the rows held out from ``estimator`` (k-fold), else None.
        y_out : ndarray of shape (n_out,) or None
            Encoded labels of those rows.
        X_in, y_in : the rows the estimator was trained on (encoded labels).

        Returns
        -------
        w : ndarray of shape (T,) or None
            Weights used for new rows (``None``: plain average).
        v_out : ndarray of shape (n_out, n_classes) or None
            Class vectors of the held-out rows when they must not be ``combine(tp_out, w)``
            (e.g. cross-fitted weights that did not see those rows' labels); ``None`` otherwise.
        """
        return None, None

    # ----------------------------------------------------------------------------- fitting
    def _check_data_params(self, counts):
        """The checks ``_parameter_constraints`` cannot express: across parameters, and against
        the class counts ``counts`` (n_classes,) of the training rows."""
        if self.n_completely_random + self.n_random + self.n_extra_trees < 1:
            raise ValueError(
                "a level needs at least one forest: n_completely_random + n_random + n_extra_trees >= 1."
            )
        if self.class_vectors == "kfold" and counts.min() < self.n_folds:
            raise ValueError(
                f"every class needs at least n_folds={self.n_folds} training rows for the "
                f"stratified k-fold; the smallest class has {counts.min()}. Lower n_folds, "
                "use class_vectors='oob', or add data."
            )

    def _make_forest(self, kind, seed, n_jobs=None):
        common = dict(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            n_jobs=self.n_jobs if n_jobs is None else n_jobs,
            random_state=seed,
        )
        if kind == "completely_random":
            return ExtraTreesClassifier(
                max_features=1, bootstrap=self.class_vectors == "oob", **common
            )
        if kind == "extra_trees":
            return ExtraTreesClassifier(max_features="sqrt", bootstrap=self.class_vectors == "oob", **common)
        return RandomForestClassifier(max_features="sqrt", bootstrap=True, **common)

    def _plan_unit(self, kind, F, y, seed):
        """The models of one forest of a level: list of (kind, train rows, held-out rows, seed).

        ``"kfold"``: one model per fold of a stratified, shuffled k-fold (train rows, held-out
        rows); ``"oob"``: one model on all rows (``None, None``). Seeds are drawn here, in the
        order the sequential algorithm draws them, so the forests do not depend on threading.
        """
        rs = np.random.RandomState(seed)
        if self.class_vectors == "kfold":
            skf = StratifiedKFold(
                n_splits=self.n_folds, shuffle=True, random_state=rs.randint(_MAX_SEED)
            )
            return [(kind, tr, te, rs.randint(_MAX_SEED)) for tr, te in skf.split(F, y)]
        return [(kind, None, None, rs.randint(_MAX_SEED))]

    def _weighs_trees(self):
        """Whether a subclass overrides :meth:`_tree_weights` (then every tree's probabilities are kept
        for it); the plain cascade averages its trees as it goes."""
        return type(self)._tree_weights is not CascadeForest._tree_weights

    def _fit_model(self, F, y, model, n_jobs):
        """Fit one model of a plan; return it with its trees' probabilities (T, n, C) on its
        held-out rows (``"kfold"``) or, in-sample, on all rows (``"oob"``); for the plain cascade's
        ``"oob"`` (no tree weights) the out-of-bag sums of :func:`mvlab.siamese.class_vectors.oob_sums` instead."""
        kind, tr, te, seed = model
        C = self.classes_.size
        est = self._make_forest(kind, seed, n_jobs)
        if tr is None and self.compact_trees and not self._weighs_trees():
            return self._fit_compact_oob(est, F, y)
        if tr is None:
            fit_forest(est, F, y, bootstrap_weights=self.bootstrap_weights)
            tp = tree_probas(est, F, C, n_jobs) if self._weighs_trees() else oob_sums(est, F, C)
        else:
            fit_forest(est, F[tr], y[tr], bootstrap_weights=self.bootstrap_weights)
            tp = tree_probas(est, F[te], C, n_jobs)
        est.set_params(n_jobs=self.n_jobs)  # as if fitted alone (threads only change the speed)
        return est, tp

    def _fit_compact_oob(self, est, F, y):
        """The plain cascade's ``"oob"`` model with ``compact_trees``: the forest ``est`` fitted on all rows ``F``
        (n, d), each tree, as soon as it is grown, adding its out-of-bag probabilities to the sums (in tree order:
        the arithmetic of :func:`mvlab.siamese.class_vectors.oob_sums`) and kept compact
        (:meth:`CompactForest.tree_part`), so one full scikit-learn tree per thread is alive instead of the
        forest's. Returns the :class:`CompactForest` (what :meth:`_kept` makes of the forest after the fit, the
        same arrays) and ``(total, count)``."""
        n = F.shape[0]
        C = self.classes_.size
        total = np.zeros((n, C))
        count = np.zeros(n)
        cols = np.unique(y).astype(np.int64)  # the forest's classes_, as fit_forest will set them

        def keep(tree, drawn):
            add_oob(total, count, cols, tree, drawn, F)
            return CompactForest.tree_part(tree)

        fit_forest(est, F, y, bootstrap_weights=self.bootstrap_weights, on_tree=keep)
        compact = CompactForest.from_parts(est.estimators_, est.classes_, est.n_features_in_,
                                           integer_inputs=self.n_bins is not None)
        return compact, (total, count)

    def _kept(self, est):
        """The fitted forest as the cascade keeps it: itself, or compact (``compact_trees``; with ``n_bins`` its
        inputs are bin codes, so its thresholds take one byte); a forest made compact while it grew is kept."""
        if not self.compact_trees or isinstance(est, CompactForest):
            return est
        return CompactForest(est, integer_inputs=self.n_bins is not None)

    def _finish_unit(self, level, k, kind, F, y, plan, fitted):
        """ForestUnit and training class vectors (n, C) of one forest from its fitted models."""
        C = self.classes_.size
        n = F.shape[0]
        if self.class_vectors == "kfold":
            oof = np.zeros((n, C))
            estimators, weights = [], []
            for (_, tr, te, _), (est, tp) in zip(plan, fitted):
                w, v_out = self._tree_weights(level, k, est, tp, y[te], F[tr], y[tr])
                oof[te] = combine_trees(tp, w) if v_out is None else v_out
                estimators.append(self._kept(est))
                weights.append(w)
            return ForestUnit(kind, estimators, weights), oof
        if not self._weighs_trees():
            (est, (total, count)), = fitted
            vec = np.empty((n, C))
            seen = count > 0
            vec[seen] = total[seen] / count[seen, None]
            if not seen.all():  # rows never out of bag (rare beyond a few trees): the in-sample vector
                vec[~seen] = forest_proba(est, F[~seen], C)
            return ForestUnit(kind, [self._kept(est)], [None]), vec
        (est, tp), = fitted  # in-sample probabilities, masked to out-of-bag below
        w, _ = self._tree_weights(level, k, est, None, None, F, y)
        wt = np.full(tp.shape[0], 1.0 / tp.shape[0]) if w is None else w
        oob = np.zeros((tp.shape[0], n), dtype=bool)
        for t, inbag in enumerate(est.estimators_samples_):
            oob[t] = True
            oob[t, inbag] = False
        coef = wt[:, None] * oob  # (T, n)
        mass = coef.sum(axis=0)
        vec = np.einsum("tn,tnc->nc", coef, tp)
        insample = combine_trees(tp, w)
        seen = mass > 0
        vec[seen] /= mass[seen, None]
        vec[~seen] = insample[~seen]
        return ForestUnit(kind, [self._kept(est)], [w]), vec

    def _model_key(self, F, y, model):
        """What determines a fitted model of a plan and its held-out tree probabilities: the level's
        input and labels (by content), the model's kind, rows and seed, and the forest parameters."""
        kind, tr, te, seed = model
        digest = hashlib.blake2b(digest_size=16)
        for part in (F, y, tr, te):
            if part is not None:
                digest.update(np.ascontiguousarray(part).tobytes())
        return (digest.hexdigest(), F.shape, kind, seed, self.n_estimators, self.max_depth, self.min_samples_split,
                self.min_samples_leaf, self.class_vectors, self.compact_trees, self.bootstrap_weights)

    def _fit_level(self, q, kinds, seeds, F, y, progress=None, model_cache=None):
        """All forests of level ``q``: their models are fitted on threads (``n_jobs``), each
        model's trees on one thread when there are enough models to go round, and finished
        (tree-weight hook, class vectors) in order in the calling thread.

        ``model_cache`` (a dict, optional) shares the first level's models between two cascades, by
        :meth:`_model_key`: the first cascade puts every first-level model it fits there, the second takes
        out what it finds instead of fitting it again. Two cascades with the same seed on the same rows
        (gcForest and SDF, :func:`mvlab.experiments.pair_methods.evaluate_pair_split`) thus fit their
        identical first level once; the fitted forests are only read afterwards. Later levels differ (their
        inputs hold each cascade's own class vectors) and are never put there, so the cache holds one level's
        forests at most, and none once the second cascade has taken them."""
        plans = [self._plan_unit(kind, F, y, seed) for kind, seed in zip(kinds, seeds)]
        models = [model for plan in plans for model in plan]
        outer, inner = split_workers(self.n_jobs, len(models))

        def fit(model):
            if model_cache is None or q > 0:
                return self._fit_model(F, y, model, inner)
            key = self._model_key(F, y, model)
            if key in model_cache:
                return model_cache.pop(key)
            model_cache[key] = fitted = self._fit_model(F, y, model, inner)
            return fitted

        results = in_order(fit, models, outer)
        units, vecs = [], []
        for k, (kind, plan) in enumerate(zip(kinds, plans)):
            fitted = [next(results) for _ in plan]
            _report(
                progress,
                (q + k / len(kinds)) / self.max_levels,
                Message(N_("level {level}: forest {forest}/{forests} ({kind})"), level=q + 1, forest=k + 1,
                        forests=len(kinds), kind=kind),
            )
            unit, vec = self._finish_unit(q, k, kind, F, y, plan, fitted)
            del fitted  # the fitted forests (scikit-learn's, before compaction) go before the next one is fitted
            units.append(unit)
            vecs.append(vec)
        results.close()  # every result was taken: shut the thread pool down now
        return units, vecs

    def _level_input(self, X, vectors):
        """Input of the next level, float32 (the dtype scikit-learn's trees split on, so the
        conversion happens once per level instead of once per forest): ``X`` (prepared by
        :meth:`_prepared_features`) and the class vectors (cumulative, Eq. 11) or the last level's only;
        with ``n_bins`` each level's vectors are coded with that level's bins (``vector_binners_``)."""
        first = 0 if self.propagation == "cumulative" else max(len(vectors) - 1, 0)
        parts = [X]
        for j in range(first, len(vectors)):
            v = vectors[j].reshape(vectors[j].shape[0], -1)
            parts.append(v if self.n_bins is None else self.vector_binners_[j].transform(v))
        return np.ascontiguousarray(np.concatenate(parts, axis=1, dtype=np.float32))

    def _binner(self):
        """An unfitted binner with the cascade's bins (``n_bins``, ``bin_ties``)."""
        return QuantileBinner(self.n_bins, keep_duplicates=self.bin_ties == "keep")

    def _prepared_features(self, X, fitting=False):
        """The features as the first level reads them: float32, or with ``n_bins`` their bin codes (uint8;
        the bins fitted on ``X`` when ``fitting``)."""
        if self.n_bins is None:
            return np.ascontiguousarray(X, dtype=np.float32)
        if fitting:
            self.feature_binner_ = self._binner().fit(X)
        return self.feature_binner_.transform(X)

    def _fit_encoded(self, X, y_enc, progress=None, model_cache=None, X_eval=None, keep_forests=True):
        """Grow the cascade on validated float features ``X`` and encoded labels ``y_enc``
        (``model_cache``: see :meth:`_fit_level`).

        ``X_eval`` (n_eval, n_features), optional: rows scored level by level as the cascade grows, exactly as
        :meth:`level_class_vectors` would score them after the fit (``eval_class_vectors_``, the kept levels).
        ``keep_forests=False`` then lets every level's fitted forests go once its evaluation rows are scored:
        a paper draw at T = 1000 holds one level's trees at a time instead of every level's (gigabytes), and
        the model can no longer predict new rows (:meth:`_check_forests`)."""
        if not keep_forests and X_eval is None:
            raise ValueError("keep_forests=False needs X_eval: a cascade without its forests can score nothing else.")
        rng = check_random_state(self.random_state)
        kinds = (["completely_random"] * self.n_completely_random + ["random"] * self.n_random
                 + ["extra_trees"] * self.n_extra_trees)
        levels, vectors, scores, eval_vectors = [], [], [], []
        best, best_score = -1, -np.inf
        self.feature_binner_ = None
        self.vector_binners_ = []
        X = self._prepared_features(X, fitting=True)
        if X_eval is not None:
            X_eval = self._prepared_features(X_eval)
        for q in range(self.max_levels):
            F = self._level_input(X, vectors)
            seeds = [int(rng.randint(_MAX_SEED)) for _ in kinds]
            units, vecs = self._fit_level(q, kinds, seeds, F, y_enc, progress, model_cache)
            V = np.stack(vecs, axis=1)  # (n, M, C)
            score = float(np.mean(self._decide(V) == y_enc))
            if self.n_bins is not None:  # the bins of this level's vectors, for the next level's input
                self.vector_binners_.append(self._binner().fit(V.reshape(V.shape[0], -1)))
            if X_eval is not None:
                eval_vectors.append(self._units_vectors(units, self._level_input(X_eval, eval_vectors)))
                if not keep_forests:
                    for unit in units:
                        unit.estimators = []
            levels.append(units)
            vectors.append(V)
            scores.append(score)
            _report(progress, (q + 1) / self.max_levels,
                    Message(N_("level {level}: training accuracy {accuracy}"), level=q + 1, accuracy=f"{score:.4f}"))
            if score > best_score + self.min_gain or best < 0:
                best, best_score = q, score
            elif q - best >= self.patience:
                break
        kept = best + 1 if self.level_choice == "best" else len(levels)
        self.levels_ = levels[:kept]
        self.train_class_vectors_ = vectors[:kept]
        self.level_scores_ = scores
        self.vector_binners_ = self.vector_binners_[:kept]
        self.n_levels_ = kept
        self.forests_kept_ = bool(keep_forests)
        if X_eval is not None:
            self.eval_class_vectors_ = eval_vectors[:kept]
        _report(progress, 1.0, Message(N_("kept {n} level(s)"), n=self.n_levels_))
        return self

    def _decide(self, V):
        """Encoded decision from one level's class vectors (n, M, C): argmax of the average.

        The sum over forests is used (same argmax as the mean, ties to the first class) so that
        the SDF rule ``S0 - S1 >= 0`` (§C.5, tau = 0) agrees with it bit for bit.
        """
        return np.argmax(V.sum(axis=1), axis=1)

    def fit(self, X, y, progress: ProgressCallback = None):
        """Fit the cascade on single instances.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        progress : callable ``(fraction, message) -> None``, optional
            Called as every forest of a level is fitted and after every level, with the
            fraction of ``max_levels`` done; 1.0 at the end.
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError("y has a single class; a classifier needs at least two.")
        self._check_data_params(np.bincount(y_enc))
        return self._fit_encoded(X, y_enc, progress)

    # -------------------------------------------------------------------------- prediction
    def _units_vectors(self, units, F):
        """Class vectors (n, M, C) of one level's forests ``units`` on that level's input rows ``F`` (float32).

        The models of all its forests (3 fold-models per forest with ``"kfold"``) are evaluated on threads
        (``n_jobs``), each on one thread when there are enough models to go round, and averaged per forest in
        a fixed order, so the result does not depend on ``n_jobs``. Equal to averaging each fold-model's
        ``predict_proba`` (Eq. 9) or its weighted trees (Eq. 12).
        """
        models = [(est, w) for u in units for est, w in zip(u.estimators, u.weights)]
        # Below a few hundred rows a tree is evaluated in about the time Python takes to call
        # it, so threads only contend for the GIL (285 rows: 12 % slower on 2 threads; 900
        # rows: 20 % faster; 1000 rows of mfeat: 36 % faster).
        n_jobs = self.n_jobs if F.shape[0] >= _MIN_ROWS_FOR_THREADS else 1
        outer, inner = split_workers(n_jobs, len(models))
        probas = in_order(partial(model_proba, F=F, n_classes=self.classes_.size, n_jobs=inner), models, outer)
        vectors = np.stack([fold_average([next(probas) for _ in u.estimators]) for u in units], axis=1)
        probas.close()
        return vectors

    def _check_forests(self):
        """ValueError when the fit let its forests go (``keep_forests=False``): nothing new can be scored."""
        check_is_fitted(self, "levels_")
        if not getattr(self, "forests_kept_", True):
            raise ValueError("this cascade was fitted with keep_forests=False: it scored its evaluation rows during "
                             "the fit (eval_class_vectors_) and kept no forest to score other rows; fit it again "
                             "with keep_forests=True to predict.")

    def _level_vectors(self, X, last_only=False):
        """Class vectors of every kept level for validated rows, list of (n, M, C): each level's input is
        converted to float32 once and scored by :meth:`_units_vectors`. ``last_only``: the last level's
        alone, holding no more levels' vectors than the next input needs (one with ``"previous"``)."""
        self._check_forests()
        X = self._prepared_features(X)
        vectors = []
        for units in self.levels_:
            V = self._units_vectors(units, self._level_input(X, vectors))
            if last_only and self.propagation == "previous":
                vectors = [None] * len(vectors)  # the older levels' vectors are never read again
            vectors.append(V)
        return vectors[-1:] if last_only else vectors

    def level_class_vectors(self, X):
        """Class vectors of every kept level: list of arrays of shape (n, n_forests, n_classes)."""
        check_is_fitted(self, "levels_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._level_vectors(X)

    def _last_level_vectors(self, X):
        """The last kept level's class vectors (n, M, C) of new rows ``X``, validated."""
        check_is_fitted(self, "levels_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._level_vectors(X, last_only=True)[-1]

    def predict_proba(self, X):
        """Average of the last level's class vectors, shape (n_samples, n_classes)."""
        return self._last_level_vectors(X).mean(axis=1)

    def predict(self, X):
        """Class labels, shape (n_samples,): argmax of :meth:`predict_proba` (ties: first class)."""
        V = self._last_level_vectors(X)  # first: it raises NotFittedError before classes_ is read
        return self.classes_[self._decide(V)]
