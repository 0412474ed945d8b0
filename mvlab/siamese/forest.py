"""Siamese deep forest (Utkin & Ryabinin 2018; docs/algorithms.md §C.3-C.7).

A gcForest cascade (:class:`mvlab.siamese.cascade.CascadeForest`) trained on concatenated pairs
``(x_i, x_j)`` with label ``y_ij`` (0 similar, 1 dissimilar), in which every forest's class
vector is a *weighted* sum of its trees' class probabilities (Eq. 12), the weights lying on the
simplex (Eq. 15) and solving, per level and forest, the QP of Eqs. 23-28::

    min_w  sum_ij max(0, sum_t P_ij^(t) w_t)^2 + lam ||w||^2,
    P_ij^(t) = z_ij (p_ij,0^(t) - p_ij,1^(t))                      (Eq. 21)

with ``z_ij = 2 y_ij - 1`` doubled at every level when ``z_schedule="double"`` (§C.6).

API (metric-learn style): a pair set is either ``pairs`` of shape (n_pairs, 2) holding row
indices into an instance matrix ``X`` passed alongside (``fit(pairs, y, X=X)``), or, without
``X``, an array of shape (n_pairs, 2, n_features) holding the two instances of every pair, or
the concatenated float vectors of shape (n_pairs, 2 * n_features). Index pairs copy nothing
until the concatenated vectors are built for the forests.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import clone

from mvlab.core.params import NON_NEGATIVE_REAL, Interval, StrOptions
from mvlab.core.progress import ProgressCallback
from mvlab.siamese.cascade import CascadeForest, MultiGrainedScanner, tree_probas
from mvlab.siamese.pairs import pair_features
from mvlab.siamese.tree_weights import solve_tree_weights

__all__ = ["SiameseDeepForest", "effective_number_of_trees", "pair_vectors", "tree_margin_matrix"]


def pair_vectors(pairs, X=None):
    """Concatenated pair vectors ``(x_i, x_j)``, shape (n_pairs, 2 * n_features).

    Parameters
    ----------
    pairs : array-like
        With ``X``: integer index pairs of shape (n_pairs, 2). Without ``X``: either the two
        instances of every pair, shape (n_pairs, 2, n_features), or already concatenated
        vectors, shape (n_pairs, 2 * n_features) (floating point, even number of columns).
    X : array-like of shape (n_samples, n_features), optional
    """
    pairs = np.asarray(pairs)
    if X is not None:
        return pair_features(np.asarray(X, dtype=np.float64), pairs)
    if pairs.ndim == 3 and pairs.shape[1] == 2:
        return np.ascontiguousarray(pairs.reshape(pairs.shape[0], -1), dtype=np.float64)
    if pairs.ndim == 2 and np.issubdtype(pairs.dtype, np.integer) and pairs.shape[1] == 2:
        raise ValueError(
            "pairs look like index pairs of shape (n_pairs, 2): pass the instances too, "
            "fit(pairs, y, X=X) / predict(pairs, X=X). (Concatenated vectors must be floats.)"
        )
    if pairs.ndim == 2 and pairs.shape[1] % 2 == 0 and pairs.shape[1] > 0:
        return np.ascontiguousarray(pairs, dtype=np.float64)
    raise ValueError(
        "pairs must be index pairs of shape (n_pairs, 2) together with X=<instances>, an array "
        "of shape (n_pairs, 2, n_features) holding both instances, or concatenated vectors of "
        f"shape (n_pairs, 2 * n_features); got shape {pairs.shape} without X."
    )


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
        Decision threshold of §C.5 on ``S0 - S1``: ``>= tau`` similar (0), ``< 0`` dissimilar
        (1), otherwise undetermined (-1). ``tau=0`` is gcForest's argmax decision.
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
    scanner : MultiGrainedScanner or None
        Multi-grained scanning of the pair vectors before the cascade; must have
        ``pairs=True`` (lock-step windows, §C.7). It is cloned at fit.
    n_estimators, n_completely_random, n_random, n_folds, class_vectors, propagation,
    max_levels, patience, min_gain, max_depth, min_samples_split, min_samples_leaf, n_jobs,
    random_state :
        As :class:`mvlab.siamese.cascade.CascadeForest` (paper: 2 + 2 forests, 3 folds, automatic
        number of levels, cumulative propagation Eq. 11).

    Attributes
    ----------
    classes_ : ndarray [0, 1]
    weights_ : list (levels) of list (forests) of ndarray of shape (n_models, T)
        Tree weights of the kept levels; ``n_models`` is ``n_folds`` (one weight vector per
        fold-model) or 1 with ``class_vectors="oob"``. Rows lie on the simplex.
    qp_info_ : list (levels) of list (forests) of list of TreeWeightInfo
        Diagnostics of every QP solved for that forest (fold-model QPs and, with ``crossfit``,
        the cross-fitting QPs), in solve order; empty with ``weighting="uniform"``.
    levels_, n_levels_, level_scores_, train_class_vectors_ : as CascadeForest.
    scanner_ : fitted MultiGrainedScanner or None
    """

    _parameter_constraints: dict = {
        **CascadeForest._parameter_constraints,
        "weighting": [StrOptions({"qp", "uniform"})],
        "lam": NON_NEGATIVE_REAL,
        "z_schedule": [StrOptions({"double", "constant"})],
        "qp_probas": [StrOptions({"oof", "insample"})],
        "tau": NON_NEGATIVE_REAL,
        "solver": [StrOptions({"pgd", "cvxpy"})],
        "solver_tol": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "crossfit": ["boolean"],
        "scanner": [MultiGrainedScanner, None],
    }

    def __init__(
        self,
        weighting="qp",
        lam=1.0,
        z_schedule="double",
        qp_probas="oof",
        tau=0.0,
        solver="pgd",
        solver_tol=1e-9,
        crossfit=True,
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
        )
        self.weighting = weighting
        self.lam = lam
        self.z_schedule = z_schedule
        self.qp_probas = qp_probas
        self.tau = tau
        self.solver = solver
        self.solver_tol = solver_tol
        self.crossfit = crossfit
        self.scanner = scanner

    # ------------------------------------------------------------------------- the hook
    def z_scale(self, level):
        """Multiplier of ``z_ij`` at 0-based ``level``: ``2**level`` under z-doubling (§C.6)."""
        return float(2.0**level) if self.z_schedule == "double" else 1.0

    def _solve(self, tp, yy, level, forest_index):
        P = tree_margin_matrix(tp, yy, self.z_scale(level))
        w, info = solve_tree_weights(
            P, self.lam, solver=self.solver, tol=self.solver_tol, return_info=True
        )
        self._qp_log.setdefault((level, forest_index), []).append(info)
        return w

    def _tree_weights(self, level, forest_index, estimator, tp_out, y_out, X_in, y_in):
        if self.weighting == "uniform":
            return None, None
        if self.qp_probas == "insample":
            # Paper-literal: the QP sees the probabilities of the pairs the trees were grown on.
            tp_in = tree_probas(estimator, X_in, 2, self.n_jobs)
            return self._solve(tp_in, y_in, level, forest_index), None
        # Out-of-fold: the QP sees the fold-model's held-out pairs. Those weights serve new
        # pairs; the held-out pairs' own training class vectors are cross-fitted (weights
        # solved on the other half of the held-out pairs), so that no training class vector
        # is computed with weights chosen using its own label (stacking leakage).
        w = self._solve(tp_out, y_out, level, forest_index)
        if not self.crossfit:
            return w, None
        part = np.zeros(y_out.size, dtype=np.int64)
        for c in (0, 1):
            idx = np.flatnonzero(y_out == c)
            part[idx] = np.arange(idx.size) % 2  # deterministic stratified halves
        v_out = np.empty((y_out.size, tp_out.shape[2]))
        for p in (0, 1):
            fit_rows, apply_rows = part != p, part == p
            if np.unique(y_out[fit_rows]).size < 2 or not apply_rows.any():
                v_out[apply_rows] = np.tensordot(w, tp_out[:, apply_rows], axes=(0, 0))
                continue
            w_p = self._solve(tp_out[:, fit_rows], y_out[fit_rows], level, forest_index)
            v_out[apply_rows] = np.tensordot(w_p, tp_out[:, apply_rows], axes=(0, 0))
        return w, v_out

    def _check_extra_params(self):
        """The checks across parameters that ``_parameter_constraints`` cannot express."""
        if self.qp_probas == "oof" and self.class_vectors != "kfold" and self.weighting == "qp":
            raise ValueError(
                "qp_probas='oof' needs class_vectors='kfold' (the QP uses each fold-model's "
                "held-out pairs); use qp_probas='insample' with class_vectors='oob'."
            )
        if self.scanner is not None and not self.scanner.pairs:
            raise ValueError(
                "scanner must be a MultiGrainedScanner with pairs=True, so that two identical "
                "windows scan the two instances of a pair in lock-step."
            )

    # -------------------------------------------------------------------------- fit/predict
    def _features(self, pairs, X, fitting=False, y=None):
        V = pair_vectors(pairs, X)
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

    def fit(self, pairs, y, X=None, progress: ProgressCallback = None):
        """Fit on labelled pairs.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2) of int with ``X``, or (n_pairs, 2, n_features)
        y : array-like of shape (n_pairs,)
            0 similar, 1 dissimilar; both must occur.
        X : array-like of shape (n_samples, n_features), optional
            Instances indexed by ``pairs``.
        progress : callable ``(fraction, message) -> None``, optional
            As :meth:`CascadeForest.fit`.
        """
        self._validate_params()
        self._check_extra_params()
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != np.asarray(pairs).shape[0]:
            raise ValueError("y must be 1-D with one label (0 similar, 1 dissimilar) per pair.")
        if not np.all(np.isin(y, (0, 1))):
            raise ValueError("pair labels must be 0 (similar) or 1 (dissimilar).")
        y = y.astype(np.int64)
        counts = np.bincount(y, minlength=2)
        if counts.min() == 0:
            raise ValueError("both similar (0) and dissimilar (1) pairs are needed to fit.")
        self.scanner_ = None
        F = self._features(pairs, X, fitting=True, y=y)
        self.classes_ = np.array([0, 1])
        self._check_data_params(counts)
        self._qp_log = {}
        self._fit_encoded(F, y, progress)
        self.weights_, self.qp_info_ = [], []
        for q, units in enumerate(self.levels_):
            lw, li = [], []
            for k, unit in enumerate(units):
                rows = []
                for est, w in zip(unit.estimators, unit.weights):
                    T = len(est.estimators_)
                    rows.append(np.full(T, 1.0 / T) if w is None else w)
                lw.append(np.vstack(rows))
                li.append(list(self._qp_log.get((q, k), [])))
            self.weights_.append(lw)
            self.qp_info_.append(li)
        del self._qp_log
        return self

    def level_class_vectors(self, pairs, X=None):
        """Class vectors of every kept level: list of (n_pairs, n_forests, 2) arrays."""
        if not hasattr(self, "levels_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this SiameseDeepForest is not fitted yet; call fit first.")
        return self._level_vectors(self._features(pairs, X))

    def decision_function(self, pairs, X=None):
        """Score ``S0 - S1`` of §C.5: sums over the last level's forests, shape (n_pairs,).

        Positive means similar.
        """
        V = self.level_class_vectors(pairs, X)[-1]
        return V[:, :, 0].sum(axis=1) - V[:, :, 1].sum(axis=1)

    def predict_from_scores(self, scores, tau=None):
        """The threshold rule of §C.5: 0 if ``s >= tau``, 1 if ``s < 0``, else -1."""
        tau = self.tau if tau is None else tau
        scores = np.asarray(scores)
        out = np.full(scores.shape, -1, dtype=np.int64)
        out[scores >= tau] = 0
        out[scores < 0] = 1
        return out

    def predict(self, pairs, X=None):
        """0 similar, 1 dissimilar, -1 undetermined (only when ``tau > 0``), shape (n_pairs,)."""
        return self.predict_from_scores(self.decision_function(pairs, X))

    def predict_proba(self, pairs, X=None):
        """Average of the last level's class vectors, shape (n_pairs, 2)."""
        return self.level_class_vectors(pairs, X)[-1].mean(axis=1)

    def score(self, pairs, y, X=None):
        """Accuracy of :meth:`predict`; undetermined pairs count as errors."""
        return float(np.mean(self.predict(pairs, X) == np.asarray(y)))
