"""Siamese deep forest (Utkin & Ryabinin 2018; docs/algorithms.md §C.3-C.7).

A gcForest cascade (:class:`mvlab.siamese.cascade.CascadeForest`) trained on concatenated pairs
``(x_i, x_j)`` with label ``y_ij`` (0 similar, 1 dissimilar), in which every forest's class
vector is a *weighted* sum of its trees' class probabilities (Eq. 12), the weights lying on the
simplex (Eq. 15) and solving, per level and forest, the QP of Eqs. 23-28::

    min_w  sum_ij max(0, sum_t P_ij^(t) w_t)^2 + lam ||w||^2,
    P_ij^(t) = z_ij (p_ij,0^(t) - p_ij,1^(t))                      (Eq. 21)

with ``z_ij = 2 y_ij - 1`` doubled at every level when ``z_schedule="double"`` (§C.6).

API (metric-learn's convention): a pair set ``pairs`` is either an array of shape
(n_pairs, 2, n_features) holding the two instances of every pair, or, when the estimator has a
``preprocessor`` (the instance matrix X of shape (n_samples, n_features)), an integer array of
shape (n_pairs, 2) of row indices into it. Index pairs copy nothing until the concatenated vectors
``(x_i, x_j)`` are built for the forests, and they go through ``GridSearchCV`` and
``cross_val_score`` like any ``X``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from mvlab.core.params import NON_NEGATIVE_REAL, Interval, StrOptions
from mvlab.core.progress import ProgressCallback
from mvlab.siamese.cascade import CascadeForest
from mvlab.siamese.class_vectors import tree_probas
from mvlab.siamese.pairs import pair_features
from mvlab.siamese.scanning import MultiGrainedScanner
from mvlab.siamese.tree_weights import solve_tree_weights

__all__ = [
    "UNDETERMINED",
    "SiameseDeepForest",
    "effective_number_of_trees",
    "pair_vectors",
    "similarity_scores",
    "threshold_rule",
    "tree_margin_matrix",
]

UNDETERMINED = -1
"""Label of a pair the threshold rule of §C.5 leaves undetermined (``0 <= S0 - S1 < tau``)."""


def pair_vectors(pairs, preprocessor=None):
    """Concatenated pair vectors ``(x_i, x_j)``, shape (n_pairs, 2 * n_features), float64.

    Parameters
    ----------
    pairs : array-like
        Without ``preprocessor``: the two instances of every pair, shape (n_pairs, 2, n_features).
        With it: integer row indices into ``preprocessor``, shape (n_pairs, 2).
    preprocessor : array-like of shape (n_samples, n_features), optional
        The instances that index pairs refer to.

    Raises
    ------
    ValueError
        For a wrong shape, index pairs without a preprocessor, non-integer indices with one, or
        an index outside ``[0, n_samples)``.
    """
    pairs = np.asarray(pairs)
    if preprocessor is None:
        if pairs.ndim == 3 and pairs.shape[1] == 2 and pairs.shape[2] > 0:
            return np.ascontiguousarray(pairs.reshape(pairs.shape[0], -1), dtype=np.float64)
        if pairs.ndim == 2 and pairs.shape[1] == 2 and np.issubdtype(pairs.dtype, np.integer):
            raise ValueError(
                f"pairs of shape {pairs.shape} look like row indices, but the estimator has no "
                "preprocessor: set preprocessor=X (the instances, shape (n_samples, n_features)), "
                "or pass the instances themselves, shape (n_pairs, 2, n_features)."
            )
        raise ValueError(
            "pairs must hold the two instances of every pair, shape (n_pairs, 2, n_features) "
            f"(or be row indices of shape (n_pairs, 2) with preprocessor=X); got shape {pairs.shape}."
        )
    X = np.asarray(preprocessor, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"preprocessor must be the instances, shape (n_samples, n_features); got shape {X.shape}.")
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not (np.issubdtype(pairs.dtype, np.integer) or pairs.size == 0):
        raise ValueError(
            "with a preprocessor, pairs must be integer row indices of shape (n_pairs, 2); got shape "
            f"{pairs.shape} of dtype {pairs.dtype}. (Without one, pass shape (n_pairs, 2, n_features).)"
        )
    bad = (pairs < 0) | (pairs >= X.shape[0])
    if bad.any():
        raise ValueError(
            f"pairs hold {int(bad.sum())} row index(es) outside [0, {X.shape[0]}), the rows of the "
            f"preprocessor (e.g. {int(pairs[bad][0])})."
        )
    return pair_features(X, pairs.astype(np.intp, copy=False))


def effective_number_of_trees(w):
    """Effective number of trees ``1 / sum_t w_t^2`` along the last axis (T for uniform w)."""
    w = np.asarray(w, dtype=np.float64)
    return 1.0 / np.sum(w * w, axis=-1)


def tree_margin_matrix(tp, y_pairs, z_scale=1.0):
    """QP matrix of Eq. 21 from tree probabilities.

    Parameters
    ----------
    tp : ndarray of shape (T, N, 2)
        Class probabilities of each tree for each pair.
    y_pairs : ndarray of shape (N,)
        0 similar, 1 dissimilar.
    z_scale : float
        Multiplier of ``z_ij = 2 y_ij - 1`` (``2**(q-1)`` at level q under z-doubling, §C.6).

    Returns
    -------
    P : ndarray of shape (N, T)
        ``P[ij, t] = z_ij (p_ij,0^(t) - p_ij,1^(t))``.
    """
    z = z_scale * (2.0 * np.asarray(y_pairs, dtype=np.float64) - 1.0)
    return z[:, None] * (tp[:, :, 0] - tp[:, :, 1]).T


def similarity_scores(V):
    """``S0 - S1`` of §C.5 from one level's class vectors ``V`` (n_pairs, n_forests, 2), shape (n_pairs,).

    ``S0`` and ``S1`` sum the similar and dissimilar entries over the forests; positive means
    similar, and ``S0 - S1`` lies in ``[-n_forests, n_forests]``.
    """
    V = np.asarray(V)
    return V[:, :, 0].sum(axis=1) - V[:, :, 1].sum(axis=1)


def threshold_rule(scores, tau=0.0):
    """The decision rule of §C.5 on ``S0 - S1``, shape of ``scores``, int64.

    ``0`` (similar) where ``s >= tau``, ``1`` (dissimilar) where ``s < 0``, and
    :data:`UNDETERMINED` (-1) in between, which happens only when ``tau > 0``. With ``tau = 0``
    it is gcForest's argmax decision, ties going to similar.
    """
    scores = np.asarray(scores)
    out = np.full(scores.shape, UNDETERMINED, dtype=np.int64)
    out[scores >= tau] = 0
    out[scores < 0] = 1
    return out


class SiameseDeepForest(CascadeForest):
    """Siamese deep forest: a gcForest cascade on pairs with QP-weighted trees (§C.3-C.6).

    Parameters
    ----------
    weighting : {"qp", "uniform"}, default="qp"
        ``"qp"``: tree weights from the QP of Eqs. 27-28 (one per forest, fold-model and level).
        ``"uniform"``: plain gcForest on pairs (Eq. 9), the paper's baseline.
    lam : float, default=1.0
        ``lambda`` of Eq. 23 (the paper tunes it; §C.4 suggests {1e-3, ..., 10}).
    z_schedule : {"double", "constant"}, default="double"
        ``z_ij^(q) = 2 z_ij^(q-1)`` (§C.6, the paper's best schedule) or constant ``+-1``.
        Doubling z is equivalent to dividing ``lam`` by 4 at each level.
    qp_probas : {"oof", "insample"}, default="oof"
        Which tree probabilities enter the QP (§C.5): ``"oof"`` those of the pairs held out from
        the fold-model (needs ``class_vectors="kfold"``); ``"insample"`` those of the pairs the
        trees were trained on (the paper-literal reading of Algorithm 1). Training class vectors
        are out-of-fold (or out-of-bag) in both cases.
    tau : float >= 0, default=0.0
        Decision threshold of §C.5 on ``S0 - S1`` (:meth:`similarity_score`): ``>= tau`` similar
        (0), ``< 0`` dissimilar (1), otherwise undetermined (:func:`threshold_rule`). ``tau=0``
        is gcForest's argmax decision and leaves no pair undetermined.
    undetermined : {"dissimilar", "abstain"}, default="dissimilar"
        What :meth:`predict` returns for the pairs the rule leaves undetermined
        (``0 <= S0 - S1 < tau``). ``"dissimilar"``: 1, so that predictions stay within
        ``classes_`` as scikit-learn expects (a pair is predicted similar only when
        ``S0 - S1 >= tau``). ``"abstain"``: the paper's third outcome, :data:`UNDETERMINED`
        (-1), a label outside ``classes_`` that :meth:`score` counts as an error.
    solver : {"pgd", "cvxpy"}, default="pgd"
        QP solver (see :func:`mvlab.siamese.tree_weights.solve_tree_weights`).
    solver_tol : float, default=1e-9
        Relative certified-gap tolerance of the ``"pgd"`` solver.
    crossfit : bool, default=True
        With ``qp_probas="oof"``: the training class vectors of a fold-model's held-out pairs
        use weights solved on the *other* half of those pairs (two extra small QPs), so no
        pair's training class vector depends on its own label through the weights; the weights
        solved on all held-out pairs serve new pairs and are those stored in ``weights_``.
        ``False`` uses the latter for the held-out pairs too (leaky: the training accuracy of
        each level becomes optimistic and the stopping rule rarely stops).
    lam_grid : list of float >= 0 or None, default=None
        The paper chose ``lambda`` among "different values ... leading to the best results" without
        saying on which data; with a grid, ``lambda`` is chosen for every fold-model on *training*
        pairs only: the two cross-fitted halves of its held-out pairs validate each value (accuracy of
        the forest's class vectors on them, then their squared hinge, then the larger value) and the
        weights for new pairs are solved with the value kept (``lam_`` records it). ``lam`` is then
        unused. Needs ``qp_probas="oof"`` and ``crossfit=True``; costs one cross-fit per value.
    scanner : MultiGrainedScanner or None
        Multi-grained scanning of the pair vectors before the cascade; must have
        ``pairs=True`` (lock-step windows, §C.7). It is cloned at fit.
    preprocessor : array-like of shape (n_samples, n_features) or None, default=None
        The instances, when pairs are given as row indices into them (metric-learn's
        convention): ``fit``, ``predict``, ``predict_proba``, ``decision_function`` and
        ``score`` then take integer ``pairs`` of shape (n_pairs, 2). ``None``: pairs hold the
        instances, shape (n_pairs, 2, n_features).
    n_estimators, n_completely_random, n_random, n_folds, class_vectors, propagation,
    max_levels, patience, min_gain, max_depth, min_samples_split, min_samples_leaf, n_jobs,
    random_state, n_extra_trees, n_bins, compact_trees, bootstrap_weights, bin_ties, level_choice :
        As :class:`mvlab.siamese.cascade.CascadeForest` (paper: 2 + 2 forests, 3 folds, automatic
        number of levels, cumulative propagation Eq. 11; no extremely randomised forests, no bins,
        scikit-learn forests and their bootstrap weights). The tree-weight QP sees the fitted scikit-learn forest's tree
        probabilities before any compaction, so ``compact_trees`` changes no weight.

    Attributes
    ----------
    classes_ : ndarray [0, 1]
    weights_ : list (levels) of list (forests) of ndarray of shape (n_models, T)
        Tree weights of the kept levels; ``n_models`` is ``n_folds`` (one weight vector per
        fold-model) or 1 with ``class_vectors="oob"``. Rows lie on the simplex.
    qp_info_ : list (levels) of list (forests) of list of TreeWeightInfo
        Diagnostics of every QP solved for that forest (fold-model QPs and, with ``crossfit``,
        the cross-fitting QPs), in solve order; empty with ``weighting="uniform"``.
    lam_ : list (levels) of list (forests) of ndarray of shape (n_models,)
        The ``lambda`` of every fold-model's weights (``lam``, or the value chosen from ``lam_grid``);
        empty arrays with ``weighting="uniform"``.
    levels_, n_levels_, level_scores_, train_class_vectors_, forests_kept_, eval_class_vectors_ : as CascadeForest.
    eval_predictions_ : ndarray of shape (n_eval,)
        Only after :meth:`fit_from_vectors` with ``V_eval``: :meth:`predict_from_vectors` of those pairs.
    n_pair_features_ : int
        Length of a concatenated pair vector, ``2 * n_features``.
    scanner_ : fitted MultiGrainedScanner or None
    """

    _parameter_constraints: dict = {
        **CascadeForest._parameter_constraints,
        "weighting": [StrOptions({"qp", "uniform"})],
        "lam": NON_NEGATIVE_REAL,
        "z_schedule": [StrOptions({"double", "constant"})],
        "qp_probas": [StrOptions({"oof", "insample"})],
        "tau": NON_NEGATIVE_REAL,
        "undetermined": [StrOptions({"dissimilar", "abstain"})],
        "solver": [StrOptions({"pgd", "cvxpy"})],
        "solver_tol": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "crossfit": ["boolean"],
        "lam_grid": ["array-like", None],
        "scanner": [MultiGrainedScanner, None],
        "preprocessor": ["array-like", None],  # its shape, and the indices into it, in pair_vectors
    }

    def __init__(
        self,
        weighting="qp",
        lam=1.0,
        z_schedule="double",
        qp_probas="oof",
        tau=0.0,
        undetermined="dissimilar",
        solver="pgd",
        solver_tol=1e-9,
        crossfit=True,
        lam_grid=None,
        scanner=None,
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
        preprocessor=None,
        n_extra_trees=0,
        n_bins=None,
        compact_trees=False,
        bootstrap_weights="counts",
        bin_ties="merge",
        level_choice="best",
    ):
        super().__init__(
            n_estimators=n_estimators,
            n_completely_random=n_completely_random,
            n_random=n_random,
            n_folds=n_folds,
            class_vectors=class_vectors,
            propagation=propagation,
            max_levels=max_levels,
            patience=patience,
            min_gain=min_gain,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            n_jobs=n_jobs,
            random_state=random_state,
            n_extra_trees=n_extra_trees,
            n_bins=n_bins,
            compact_trees=compact_trees,
            bootstrap_weights=bootstrap_weights,
            bin_ties=bin_ties,
            level_choice=level_choice,
        )
        self.weighting = weighting
        self.lam = lam
        self.z_schedule = z_schedule
        self.qp_probas = qp_probas
        self.tau = tau
        self.undetermined = undetermined
        self.solver = solver
        self.solver_tol = solver_tol
        self.crossfit = crossfit
        self.lam_grid = lam_grid
        self.scanner = scanner
        self.preprocessor = preprocessor

    # ------------------------------------------------------------------------- the hook
    def z_scale(self, level):
        """Multiplier of ``z_ij`` at 0-based ``level``: ``2**level`` under z-doubling (§C.6)."""
        return float(2.0**level) if self.z_schedule == "double" else 1.0

    def _solve(self, tp, yy, level, forest_index, lam):
        P = tree_margin_matrix(tp, yy, self.z_scale(level))
        w, info = solve_tree_weights(P, lam, solver=self.solver, tol=self.solver_tol, return_info=True)
        self._qp_log.setdefault((level, forest_index), []).append(info)
        return w

    def _crossfitted(self, tp_out, y_out, level, forest_index, lam, w_all):
        """Class vectors (n_out, 2) of a fold-model's held-out pairs, each from weights solved with ``lam``
        on the *other* stratified half of those pairs (``w_all``, solved on all of them, where a half
        lacks a class)."""
        part = np.zeros(y_out.size, dtype=np.int64)
        for c in (0, 1):
            idx = np.flatnonzero(y_out == c)
            part[idx] = np.arange(idx.size) % 2  # deterministic stratified halves
        v_out = np.empty((y_out.size, tp_out.shape[2]))
        for p in (0, 1):
            fit_rows, apply_rows = part != p, part == p
            if np.unique(y_out[fit_rows]).size < 2 or not apply_rows.any():
                v_out[apply_rows] = np.tensordot(w_all, tp_out[:, apply_rows], axes=(0, 0))
                continue
            w_p = self._solve(tp_out[:, fit_rows], y_out[fit_rows], level, forest_index, lam)
            v_out[apply_rows] = np.tensordot(w_p, tp_out[:, apply_rows], axes=(0, 0))
        return v_out

    def _lam_candidates(self):
        """``lam`` alone, or the grid from the largest value (closest to uniform weights) down, so that
        ties of the validation go to the most regularised weights."""
        return [float(self.lam)] if self.lam_grid is None else sorted({float(v) for v in self.lam_grid},
                                                                       reverse=True)

    def _tree_weights(self, level, forest_index, estimator, tp_out, y_out, X_in, y_in):
        if self.weighting == "uniform":
            return None, None
        if self.qp_probas == "insample":
            # Paper-literal: the QP sees the probabilities of the pairs the trees were grown on.
            tp_in = tree_probas(estimator, X_in, 2, self.n_jobs)
            self._lam_log.setdefault((level, forest_index), []).append(float(self.lam))
            return self._solve(tp_in, y_in, level, forest_index, self.lam), None
        # Out-of-fold: the QP sees the fold-model's held-out pairs. Those weights serve new
        # pairs; the held-out pairs' own training class vectors are cross-fitted (weights
        # solved on the other half of the held-out pairs), so that no training class vector
        # is computed with weights chosen using its own label (stacking leakage). With a
        # grid, the same halves validate every lam: the one whose cross-fitted class vectors
        # classify the held-out pairs best (then: lowest squared hinge, then largest lam) is kept.
        best = None
        for lam in self._lam_candidates():
            w = self._solve(tp_out, y_out, level, forest_index, lam)
            if not self.crossfit:
                best = (None, w, None, lam)
                break
            v_out = self._crossfitted(tp_out, y_out, level, forest_index, lam, w)
            margin = (2.0 * y_out - 1.0) * (v_out[:, 0] - v_out[:, 1])  # > 0: on the wrong side
            score = (float(np.mean(margin < 0)) + 0.5 * float(np.mean(margin == 0)),
                     -float(np.mean(np.maximum(margin, 0.0) ** 2)))
            if best is None or score > best[0]:
                best = (score, w, v_out, lam)
        self._lam_log.setdefault((level, forest_index), []).append(best[3])
        return best[1], best[2]

    def _check_extra_params(self):
        """The checks across parameters that ``_parameter_constraints`` cannot express."""
        if self.qp_probas == "oof" and self.class_vectors != "kfold" and self.weighting == "qp":
            raise ValueError(
                "qp_probas='oof' needs class_vectors='kfold' (the QP uses each fold-model's "
                "held-out pairs); use qp_probas='insample' with class_vectors='oob'."
            )
        if self.lam_grid is not None and self.weighting == "qp":
            if self.qp_probas != "oof" or not self.crossfit:
                raise ValueError(
                    "lam_grid chooses lambda on each fold-model's held-out pairs (cross-fitted halves): it "
                    "needs qp_probas='oof' and crossfit=True; give a single lam otherwise."
                )
            grid = np.asarray(self.lam_grid, dtype=np.float64)
            if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid < 0):
                raise ValueError(f"lam_grid must be a non-empty list of finite numbers >= 0; got {self.lam_grid!r}.")
        if self.scanner is not None and not self.scanner.pairs:
            raise ValueError(
                "scanner must be a MultiGrainedScanner with pairs=True, so that two identical "
                "windows scan the two instances of a pair in lock-step."
            )

    # -------------------------------------------------------------------------- fit/predict
    def _features(self, V, fitting=False, y=None):
        """Cascade input from per-pair vectors ``V`` (n_pairs, n_pair_features): checked, then scanned."""
        if not np.all(np.isfinite(V)):
            raise ValueError("the pair vectors contain NaN or infinite values.")
        if fitting:
            self.n_pair_features_ = V.shape[1]
        elif V.shape[1] != self.n_pair_features_:
            raise ValueError(
                f"pairs have {V.shape[1]} concatenated features; the model was fitted on "
                f"{self.n_pair_features_}."
            )
        if self.scanner is None:
            return V
        if fitting:
            self.scanner_ = clone(self.scanner)
            return self.scanner_.fit_transform(V, y)
        return self.scanner_.transform(V)

    def fit(self, pairs, y, progress: ProgressCallback = None):
        """Fit on labelled pairs.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features), or of int and shape (n_pairs, 2)
            The two instances of every pair, or with ``preprocessor`` their row indices in it.
        y : array-like of shape (n_pairs,)
            0 similar, 1 dissimilar; both must occur.
        progress : callable ``(fraction, message) -> None``, optional
            As :meth:`CascadeForest.fit`.

        Returns
        -------
        self
        """
        self._validate_params()  # the preprocessor first: pair_vectors uses it
        return self.fit_from_vectors(pair_vectors(pairs, self.preprocessor), y, progress)

    def fit_from_vectors(self, V, y, progress: ProgressCallback = None, model_cache=None, V_eval=None,
                         keep_forests=True):
        """:meth:`fit` on per-pair vectors ``V`` of shape (n_pairs, n_pair_features).

        ``V`` is normally the concatenated pairs (:func:`pair_vectors`);
        :func:`mvlab.experiments.siamese_comparison.run_siamese_experiment` passes the output of one scanner fitted
        once and shared by its two cascades. ``y`` (n_pairs,) and ``progress`` as in :meth:`fit`.
        ``model_cache``: a dict shared with another cascade of the same seed on the same pairs, so that
        the forests they have in common (the first level of gcForest and SDF) are fitted once
        (:meth:`CascadeForest._fit_level`); the trees and the result are those of a fit without it.
        ``V_eval`` (n_eval, n_pair_features), optional: pairs scored level by level during the fit
        (``eval_class_vectors_`` and ``eval_predictions_``, equal to :meth:`level_class_vectors_from_vectors`
        and :meth:`predict_from_vectors` after it); with ``keep_forests=False`` each level's forests are let go
        once scored (a paper protocol's draw, which needs nothing else: one level's trees in memory at a time),
        and the model cannot predict afterwards.

        Returns
        -------
        self
        """
        self._validate_params()
        self._check_extra_params()
        V = np.asarray(V, dtype=np.float64)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != V.shape[0]:
            raise ValueError("y must be 1-D with one label (0 similar, 1 dissimilar) per pair.")
        if not np.all(np.isin(y, (0, 1))):
            raise ValueError("pair labels must be 0 (similar) or 1 (dissimilar).")
        y = y.astype(np.int64)
        counts = np.bincount(y, minlength=2)
        if counts.min() == 0:
            raise ValueError("both similar (0) and dissimilar (1) pairs are needed to fit.")
        self.scanner_ = None
        F = self._features(V, fitting=True, y=y)
        self.classes_ = np.array([0, 1])
        self._check_data_params(counts)
        self._qp_log, self._lam_log = {}, {}
        F_eval = None if V_eval is None else self._features(np.asarray(V_eval, dtype=np.float64))
        self._fit_encoded(F, y, progress, model_cache, X_eval=F_eval, keep_forests=keep_forests)
        if V_eval is not None:
            self.eval_predictions_ = self._labels(similarity_scores(self.eval_class_vectors_[-1]))
        self.weights_, self.qp_info_, self.lam_ = [], [], []
        for q, units in enumerate(self.levels_):
            lw, li = [], []
            for k, unit in enumerate(units):
                rows = []
                for w in unit.weights:
                    T = self.n_estimators
                    rows.append(np.full(T, 1.0 / T) if w is None else w)
                lw.append(np.vstack(rows))
                li.append(list(self._qp_log.get((q, k), [])))
            self.weights_.append(lw)
            self.qp_info_.append(li)
            self.lam_.append([np.asarray(self._lam_log.get((q, k), []), dtype=np.float64) for k in range(len(units))])
        del self._qp_log, self._lam_log
        return self

    def level_class_vectors(self, pairs):
        """Class vectors of every kept level: list of (n_pairs, n_forests, 2) arrays.

        ``pairs`` as in :meth:`fit`.
        """
        check_is_fitted(self, "levels_")
        return self.level_class_vectors_from_vectors(pair_vectors(pairs, self.preprocessor))

    def level_class_vectors_from_vectors(self, V):
        """:meth:`level_class_vectors` of per-pair vectors ``V`` (n_pairs, n_pair_features), the kind
        :meth:`fit_from_vectors` takes: list of (n_pairs, n_forests, 2) arrays, one per kept level."""
        check_is_fitted(self, "levels_")
        return self._level_vectors(self._features(np.asarray(V, dtype=np.float64)))

    def similarity_score(self, pairs):
        """The paper's score ``S0 - S1`` (§C.5): sums over the last level's forests, shape (n_pairs,).

        Positive means similar (class 0); :func:`threshold_rule` turns it into the paper's
        three-way decision with ``tau``. ``pairs`` as in :meth:`fit`.
        """
        return similarity_scores(self.level_class_vectors(pairs)[-1])

    def decision_function(self, pairs):
        """``S1 - S0``, shape (n_pairs,): positive for ``classes_[1]`` (dissimilar), as scikit-learn
        reads a binary decision function (``roc_auc`` scoring, ``RocCurveDisplay``).

        The negation of :meth:`similarity_score`, whose sign follows the paper.
        """
        return -self.similarity_score(pairs)

    def predict(self, pairs):
        """0 similar, 1 dissimilar, shape (n_pairs,); -1 for undetermined pairs only with
        ``undetermined="abstain"`` and ``tau > 0`` (:func:`threshold_rule`)."""
        return self._labels(self.similarity_score(pairs))

    def predict_from_vectors(self, V):
        """:meth:`predict` of per-pair vectors ``V`` (n_pairs, n_pair_features), the kind
        :meth:`fit_from_vectors` takes; shape (n_pairs,)."""
        return self._labels(similarity_scores(self.level_class_vectors_from_vectors(V)[-1]))

    def _labels(self, scores):
        labels = threshold_rule(scores, self.tau)
        if self.undetermined == "dissimilar":
            labels[labels == UNDETERMINED] = 1
        return labels

    def predict_proba(self, pairs):
        """Average of the last level's class vectors, shape (n_pairs, 2)."""
        return self.level_class_vectors(pairs)[-1].mean(axis=1)

    def score(self, pairs, y, sample_weight=None):
        """Accuracy of :meth:`predict` (weighted by ``sample_weight``, shape (n_pairs,), if given);
        with ``undetermined="abstain"`` undetermined pairs count as errors."""
        return float(np.average(self.predict(pairs) == np.asarray(y), weights=sample_weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = self.preprocessor is None
        return tags
