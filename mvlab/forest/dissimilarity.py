"""Random-forest dissimilarities, computed exactly and without any loop over pairs.

One :class:`ForestDissimilarity` grows one scikit-learn random forest on one view and turns
it into a dissimilarity representation (ALGORITHMS.md, paper A, §A.1-A.5):

``train_dissimilarity_``
    ``D[j, i] = d(x_j, x_i)`` for the training instances, shape ``(n_train, n_train)``;
``transform(X_new)``
    ``d(x, x_i)`` of every new row to every training row, shape ``(n_new, n_train)``.

Measures (``measure=``):

``"breiman"``  Breiman: ``d = 1 - (1/T) sum_t I(l_t(x) == l_t(x_i))`` (§A.3, seed Eqs. 2-3).
``"path"``     Englund & Verikas: ``d = (1/T) sum_t (1 - exp(-w g_t))`` with ``g_t`` the
               number of edges between the two leaves of tree t (§A.4, seed Eq. 4).
``"rfd"``      Cao's RFD: a shared leaf counts as similarity only to the extent that the
               reference instance is easy, ``kDN_t`` being the k-Disagreeing-Neighbours
               hardness in the subspace of the features tree t splits on (§A.5, seed Eqs. 5-6).
``"oob"``      out-of-bag proximity (Breiman; Rhodes et al. 2023): the share of trees in which
               both land in the same leaf, counted over the trees where both are out-of-bag.
``"rfgap"``    RF-GAP (Rhodes, Cutler & Moon, IEEE TPAMI 2023).

How it is fast (DESIGN §5).  Every same-leaf measure is a weighted sparse product
``S = (U o L_a) (W o L_b)^T`` of one-hot leaf matrices with per-(row, tree) weights ``U`` and
``W`` (:mod:`mvlab.forest._leaf_product`), never a loop over pairs:

=========  ==============================  ==============================  =====================
measure    U (query rows)                  W (training columns)            dissimilarity
=========  ==============================  ==============================  =====================
breiman    1                               1                               ``1 - S / T``
rfd        1                               ``1 - kDN_t(i)``                ``1 - S / T``
oob        ``I(x OOB in t)`` (1 for new)   ``I(x_i OOB in t)``             ``1 - S / N_oob``
rfgap      ``I(x OOB in t)`` (1 for new)   ``c_i(t) / |M(leaf)|``          ``1 - scale(S/|S_x|)``
=========  ==============================  ==============================  =====================

The path-length measure is not a same-leaf product; it is computed per tree from the
leaf-to-leaf LCA-depth matrix (:mod:`mvlab.forest.tree_layout`) gathered at the instances'
leaves: a loop over trees, never over pairs.

Accumulation is in float64; the returned matrices are float32 (the forests that consume
them work in float32 anyway, and every value lies in [0, 1]).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.core.progress import ProgressCallback, report as _report, scaled
from mvlab.forest._leaf_product import _onehot, cooccurrence
from mvlab.forest.kdn import _kdn_for_trees
from mvlab.forest.tree_layout import _TreeLayout

__all__ = ["MEASURES", "ForestDissimilarity"]

MEASURES = ("breiman", "path", "rfd", "oob", "rfgap")
RFD_FORMS = ("weighted_proximity", "weighted_dissimilarity")
RFGAP_SCALINGS = ("row_max", "none")


_MAX_INT = np.iinfo(np.int32).max


# ----------------------------------------------------------------------------- the estimator
class ForestDissimilarity(TransformerMixin, BaseEstimator):
    """Random-forest dissimilarity of one view (ALGORITHMS.md §A.2-A.5).

    Parameters
    ----------
    measure : {"breiman", "path", "rfd", "oob", "rfgap"}, default="breiman"
        Which dissimilarity (see the module docstring and the per-measure notes below).
    n_estimators : int, default=100
        Trees of the forest. The paper uses 512 (``n_estimators=512``); 100 keeps the
        dashboard fast.
    max_features : int, float, "sqrt", "log2" or None, default="sqrt"
        Features drawn at each node (mtry). The paper: ``sqrt(m_q)`` (§A.2).
    max_depth : int or None, default=None
        None = fully grown trees, as in the paper.
    min_samples_leaf : int, default=1
        1 = grown to purity, as in the paper.
    w : float, default=1.0
        ``"path"`` only: decay ``1 - exp(-w g)`` (§A.4; w is not given in the chapter).
    kdn_k : int, default=7
        ``"rfd"`` only: neighbours of the kDN hardness (§A.5; not stated in the chapter).
    rfd_form : {"weighted_proximity", "weighted_dissimilarity"}, default="weighted_proximity"
        ``"rfd"`` only. ``"weighted_proximity"`` (the documented reading of §A.5):
        ``d_t(x, x_i) = 1 - (1 - kDN_t(x_i)) I(same leaf)``, i.e. kDN if same leaf, else 1.
        ``"weighted_dissimilarity"``: ``d_t = (1 - kDN_t(x_i)) (1 - I(same leaf))``.
        The two differ by a constant per column, ``mean_t kDN_t(x_i)`` (§A.5).
    rfgap_scaling : {"row_max", "none"}, default="row_max"
        ``"rfgap"`` only. RF-GAP proximities of a row sum to 1, so they are tiny; with
        ``"row_max"`` each row is divided by its largest off-diagonal value before
        ``d = 1 - p``, so every row spans [0, 1] and its nearest neighbour is at 0.
        ``"none"``: ``d = 1 - p``.
    random_state : int, RandomState or None, default=None
        Seeds the forest (an int is passed to ``RandomForestClassifier`` unchanged).
    n_jobs : int or None, default=None
        Threads for growing the forest, ``apply`` and the kDN searches.

    Attributes
    ----------
    forest_ : RandomForestClassifier
        The fitted forest (bootstrap on).
    classes_ : ndarray (n_classes,)
    n_features_in_ : int
    train_dissimilarity_ : ndarray of float32, shape (n_train, n_train)
        ``D[j, i] = d(x_j, x_i)`` (ALGORITHMS.md §A.1).
    leaves_ : ndarray of int32, shape (n_train, T)
        Global leaf id (column of :meth:`leaf_indicator`) of every training row in every tree.
    n_leaves_ : int
        Leaves in the whole forest.
    in_bag_counts_ : ndarray of int32, shape (n_train, T)
        ``c_i(t)``: how often row i was drawn into the bootstrap of tree t.
    oob_mask_ : ndarray of bool, shape (n_train, T)
        ``in_bag_counts_ == 0``.
    oob_decision_function_ : ndarray of float64, shape (n_train, n_classes)
        Mean class probabilities of the out-of-bag trees (zeros for a row that is never OOB).
    oob_accuracy_ : float
        OOB accuracy; a row without any OOB tree counts as an error (§A.7.3 / §A.8).
    kdn_ : ndarray of float64, shape (n_train, T)
        ``"rfd"`` only: ``kDN_t(x_i)``.

    Notes
    -----
    Exact semantics of each measure, for a query row x (a training row in
    ``train_dissimilarity_`` or a new row in :meth:`transform`) and a training row x_i:

    * ``"breiman"``: ``1 - (1/T) sum_t I(l_t(x) == l_t(x_i))`` (§A.3 Eqs. 2-3); symmetric,
      zero diagonal.  Uses all trees, in-bag included (as the C-cao code does).
    * ``"path"``: ``(1/T) sum_t (1 - exp(-w g_t(x, x_i)))`` (§A.4 Eq. 4); symmetric, zero
      diagonal.
    * ``"rfd"``: ``1 - (1/T) sum_t (1 - kDN_t(x_i)) I(same leaf)`` (§A.5 Eq. 6, default
      form).  ``kDN_t`` is computed among all training rows (not only the bootstrap), with
      Euclidean distance on the features tree t splits on, ``kdn_k`` neighbours, self
      excluded, ties broken by index; a tree without any split gets ``kDN_t = 0``.  Not
      symmetric; ``d(x_i, x_i) = mean_t kDN_t(x_i)`` (0 under the other form).
    * ``"oob"``: ``1 - S / N``, ``S`` = trees where both are OOB and share a leaf, ``N`` =
      trees where both are OOB.  A new row is OOB in every tree, so for ``transform``
      ``N = `` the number of OOB trees of x_i.  **Pairs with no common OOB tree (N = 0) get
      dissimilarity 1** (no evidence of proximity); the training diagonal is 0.  Symmetric.
    * ``"rfgap"``: ``p(x, x_i) = (1/|S_x|) sum_{t in S_x} c_i(t) I(same leaf) / |M_t(x)|``,
      ``S_x`` the trees where x is OOB (all trees for a new row), ``|M_t(x)|`` the in-bag
      multiplicity (sum of ``c_j(t)``) of x's leaf.  ``p`` is 0 on the training diagonal by
      definition; we set ``d(x_i, x_i) = 0``.  A training row that is never OOB has no
      RF-GAP row: it gets dissimilarity 1 to every other row.  Then ``d = 1 - p / max_row p``
      (``rfgap_scaling="row_max"``) or ``d = 1 - p``.  Not symmetric.

    Consequently ``transform(X_train)`` equals ``train_dissimilarity_`` for ``"breiman"``,
    ``"path"`` and ``"rfd"``, but not for ``"oob"`` and ``"rfgap"``, where training rows use
    only their out-of-bag trees.  ``fit_transform`` returns ``train_dissimilarity_``.
    """

    def __init__(
        self,
        measure="breiman",
        n_estimators=100,
        max_features="sqrt",
        max_depth=None,
        min_samples_leaf=1,
        w=1.0,
        kdn_k=7,
        rfd_form="weighted_proximity",
        rfgap_scaling="row_max",
        random_state=None,
        n_jobs=None,
    ):
        self.measure = measure
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.w = w
        self.kdn_k = kdn_k
        self.rfd_form = rfd_form
        self.rfgap_scaling = rfgap_scaling
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ---------------------------------------------------------------- validation
    def _validate_params_(self, n_samples: int) -> None:
        if self.measure not in MEASURES:
            raise ValueError(f"measure must be one of {MEASURES}, got {self.measure!r}.")
        if (
            not isinstance(self.n_estimators, numbers.Integral)
            or isinstance(self.n_estimators, bool)
            or self.n_estimators < 1
        ):
            raise ValueError(f"n_estimators must be a positive integer, got {self.n_estimators!r}.")
        if self.measure == "path":
            if not isinstance(self.w, numbers.Real) or not np.isfinite(self.w) or self.w <= 0:
                raise ValueError(f"w must be a positive finite number, got {self.w!r}.")
        if self.measure == "rfd":
            if self.rfd_form not in RFD_FORMS:
                raise ValueError(f"rfd_form must be one of {RFD_FORMS}, got {self.rfd_form!r}.")
            if (
                not isinstance(self.kdn_k, numbers.Integral)
                or isinstance(self.kdn_k, bool)
                or self.kdn_k < 1
            ):
                raise ValueError(f"kdn_k must be a positive integer, got {self.kdn_k!r}.")
            if self.kdn_k > n_samples - 1:
                raise ValueError(
                    f"kdn_k={self.kdn_k} needs at least {self.kdn_k + 1} training instances, "
                    f"got {n_samples}; lower kdn_k."
                )
        if self.measure == "rfgap" and self.rfgap_scaling not in RFGAP_SCALINGS:
            raise ValueError(
                f"rfgap_scaling must be one of {RFGAP_SCALINGS}, got {self.rfgap_scaling!r}."
            )
        if n_samples < 2:
            raise ValueError(f"At least 2 training instances are needed, got {n_samples}.")

    # ---------------------------------------------------------------- fit
    def fit(self, X, y, progress: ProgressCallback = None):
        """Grow the forest on one view and build ``train_dissimilarity_``.

        Parameters
        ----------
        X : array-like of shape (n_train, m_q)
            One view of the training set (finite numbers).
        y : array-like of shape (n_train,)
        progress : callable (fraction, message) -> None, optional
            Called from the calling thread as the forest grows and the matrix is built.

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self._validate_params_(X.shape[0])
        _report(progress, 0.0, "growing the forest")
        rs = self.random_state
        if not (rs is None or isinstance(rs, numbers.Integral)):
            rs = int(check_random_state(rs).randint(_MAX_INT))
        forest = RandomForestClassifier(
            n_estimators=self.n_estimators,
            max_features=self.max_features,
            max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            bootstrap=True,
            random_state=rs,
            n_jobs=self.n_jobs,
        )
        if progress is not None and self.n_estimators >= 20:
            # Grow in ~10 batches with warm_start (sklearn guarantees the same trees).
            forest.set_params(warm_start=True)
            sizes = np.unique(np.linspace(0, self.n_estimators, 11).round().astype(int))[1:]
            for m in sizes:
                forest.set_params(n_estimators=int(m))
                forest.fit(X, y)
                _report(progress, 0.7 * m / self.n_estimators, f"grew {m}/{self.n_estimators} trees")
            forest.set_params(warm_start=False)
        else:
            forest.fit(X, y)
        self.forest_ = forest
        self.classes_ = forest.classes_
        y_enc = np.searchsorted(self.classes_, y)
        T = len(forest.estimators_)

        _report(progress, 0.72, "locating leaves")
        self._layouts = [_TreeLayout(est.tree_) for est in forest.estimators_]
        n_leaves_t = np.array([lay.n_leaves for lay in self._layouts], dtype=np.int64)
        self._leaf_offsets = np.concatenate([[0], np.cumsum(n_leaves_t)[:-1]])
        self.n_leaves_ = int(n_leaves_t.sum())
        node_counts = np.array([est.tree_.node_count for est in forest.estimators_], dtype=np.int64)
        self._node_offsets = np.concatenate([[0], np.cumsum(node_counts)[:-1]])
        self._node_to_leaf = np.concatenate(
            [np.where(lay.leaf_pos >= 0, lay.leaf_pos + off, -1) for lay, off in zip(self._layouts, self._leaf_offsets)]
        )
        nodes = forest.apply(X)
        self.leaves_ = self._nodes_to_leaves(nodes)

        counts = np.zeros((X.shape[0], T), dtype=np.int32)
        for t, idx in enumerate(forest.estimators_samples_):
            counts[:, t] = np.bincount(idx, minlength=X.shape[0])
        self.in_bag_counts_ = counts
        self.oob_mask_ = counts == 0
        self._set_oob_scores(nodes, y_enc)

        if self.measure == "rfd":
            _report(progress, 0.75, "kDN hardness per tree")
            self.kdn_ = self._compute_kdn(X, y_enc)
        if self.measure == "rfgap":
            # c_i(t) / |M_t(leaf)|: in-bag multiplicity of every leaf.
            mass = np.bincount(self.leaves_.ravel(), weights=counts.ravel().astype(np.float64), minlength=self.n_leaves_)
            self._rfgap_w = counts / mass[self.leaves_]

        _report(progress, 0.8, "computing the dissimilarity matrix")
        sub = scaled(progress, 0.8, 0.2)
        self.train_dissimilarity_ = self._dissimilarity(self.leaves_, train=True, progress=sub)
        _report(progress, 1.0, "done")
        return self

    def _nodes_to_leaves(self, nodes: np.ndarray) -> np.ndarray:
        return self._node_to_leaf[nodes + self._node_offsets[None, :]].astype(np.int32)

    def _set_oob_scores(self, nodes: np.ndarray, y_enc: np.ndarray) -> None:
        n, T = nodes.shape
        C = len(self.classes_)
        acc = np.zeros((n, C), dtype=np.float64)
        for t, est in enumerate(self.forest_.estimators_):
            oob = self.oob_mask_[:, t]
            if not oob.any():
                continue
            val = est.tree_.value[nodes[oob, t], 0, :]
            acc[oob] += val / val.sum(axis=1, keepdims=True)
        n_oob = self.oob_mask_.sum(axis=1)
        has = n_oob > 0
        acc[has] /= n_oob[has, None]
        self.oob_decision_function_ = acc
        correct = has & (acc.argmax(axis=1) == y_enc)
        self.oob_accuracy_ = float(correct.mean())

    def _compute_kdn(self, X: np.ndarray, y_enc: np.ndarray) -> np.ndarray:
        feature_sets = []
        for est in self.forest_.estimators_:
            f = est.tree_.feature
            feature_sets.append(np.unique(f[f >= 0]).astype(np.int64))
        n_jobs = self.n_jobs if self.n_jobs is not None else 1
        if n_jobs == 1 or len(feature_sets) < 2:
            return _kdn_for_trees(X, y_enc, self.kdn_k, feature_sets)
        n_jobs = min(abs(n_jobs) if n_jobs > 0 else 2, len(feature_sets))
        bounds = np.linspace(0, len(feature_sets), n_jobs + 1).round().astype(int)
        parts = Parallel(n_jobs=n_jobs, prefer="threads")(
            delayed(_kdn_for_trees)(X, y_enc, self.kdn_k, feature_sets[a:b])
            for a, b in zip(bounds[:-1], bounds[1:])
        )
        return np.concatenate(parts, axis=1)

    # ---------------------------------------------------------------- transform
    def transform(self, X, progress: ProgressCallback = None):
        """Dissimilarity of new rows to the training rows.

        Parameters
        ----------
        X : array-like of shape (n_new, m_q)
            The same view (same columns) as in ``fit``.
        progress : callable (fraction, message) -> None, optional

        Returns
        -------
        D : ndarray of float32, shape (n_new, n_train)
            ``D[r, i] = d(x_r, x_i)``, every new row being out-of-bag for every tree.
        """
        check_is_fitted(self, "train_dissimilarity_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        _report(progress, 0.0, "locating leaves")
        G = self._nodes_to_leaves(self.forest_.apply(X))
        D = self._dissimilarity(G, train=False, progress=progress)
        _report(progress, 1.0, "done")
        return D

    def fit_transform(self, X, y, progress: ProgressCallback = None):
        """Fit, then return ``train_dissimilarity_`` (n_train, n_train).

        For ``"oob"`` and ``"rfgap"`` this is the out-of-bag training matrix, which differs
        from ``fit(X, y).transform(X)`` (a new row is OOB for every tree).
        """
        return self.fit(X, y, progress=progress).train_dissimilarity_.copy()

    def leaf_indicator(self, X=None) -> sp.csr_matrix:
        """Sparse one-hot leaf matrix ``L`` of shape (n, n_leaves_), CSR, one 1 per tree.

        Parameters
        ----------
        X : array-like of shape (n, m_q), optional
            Rows to encode; ``None`` = the training rows.
        """
        check_is_fitted(self, "train_dissimilarity_")
        if X is None:
            G = self.leaves_
        else:
            X = validate_data(self, X, dtype=np.float64, reset=False)
            G = self._nodes_to_leaves(self.forest_.apply(X))
        return _onehot(G, self.n_leaves_)

    # ---------------------------------------------------------------- the measures
    def _dissimilarity(self, G: np.ndarray, train: bool, progress: ProgressCallback = None, engine: str = "auto") -> np.ndarray:
        """Dissimilarity of rows with global leaves ``G`` (n, T) to the training rows.

        ``train=True``: ``G`` are the training rows themselves (OOB semantics, symmetry).
        Returns float32 (n, n_train).
        """
        m = self.measure
        T = self.leaves_.shape[1]
        GB = None if train else self.leaves_
        if m == "path":
            return self._path(G, train, progress)
        _report(progress, 0.0, "sparse leaf product")
        if m == "breiman":
            D = cooccurrence(G, GB, self.n_leaves_, engine=engine, n_jobs=self.n_jobs)
            np.divide(D, T, out=D)
            np.subtract(1.0, D, out=D)  # 1 - S / T in place: no n x n temporaries
            if train:
                np.fill_diagonal(D, 0.0)
        elif m == "rfd":
            Wb = 1.0 - self.kdn_
            S = cooccurrence(G, GB, self.n_leaves_, WA=None, WB=Wb, engine=engine, n_jobs=self.n_jobs)
            if self.rfd_form == "weighted_proximity":
                D = 1.0 - S / T
            else:
                D = Wb.mean(axis=1)[None, :] - S / T
        elif m == "oob":
            ob = self.oob_mask_.astype(np.float64)
            if train:
                S = cooccurrence(G, None, self.n_leaves_, WA=ob, WB=ob, engine=engine, n_jobs=self.n_jobs)
                o32 = self.oob_mask_.astype(np.float32)
                N = (o32 @ o32.T).astype(np.float64)  # exact: integer counts < 2**24
            else:
                S = cooccurrence(G, GB, self.n_leaves_, WA=None, WB=ob, engine=engine, n_jobs=self.n_jobs)
                N = np.broadcast_to(ob.sum(axis=1)[None, :], S.shape)
            P = np.divide(S, N, out=np.zeros_like(S), where=N > 0)
            D = 1.0 - P
            if train:
                np.fill_diagonal(D, 0.0)
        elif m == "rfgap":
            if train:
                ob = self.oob_mask_.astype(np.float64)
                S = cooccurrence(G, None, self.n_leaves_, WA=ob, WB=self._rfgap_w, engine=engine, n_jobs=self.n_jobs)
                n_oob = ob.sum(axis=1)
            else:
                S = cooccurrence(G, GB, self.n_leaves_, WA=None, WB=self._rfgap_w, engine=engine, n_jobs=self.n_jobs)
                n_oob = np.full(G.shape[0], float(T))
            P = np.divide(S, n_oob[:, None], out=np.zeros_like(S), where=n_oob[:, None] > 0)
            if train:
                np.fill_diagonal(P, 0.0)  # already 0: x_i is OOB where it is counted
            if self.rfgap_scaling == "row_max":
                mx = P.max(axis=1, keepdims=True)
                P = np.divide(P, mx, out=np.zeros_like(P), where=mx > 0)
            D = 1.0 - P
            if train:
                np.fill_diagonal(D, 0.0)
        else:  # pragma: no cover - validated in fit
            raise ValueError(f"unknown measure {m!r}")
        _report(progress, 1.0, "matrix ready")
        return np.clip(D, 0.0, 1.0, out=D).astype(np.float32)

    def _path(self, G: np.ndarray, train: bool, progress: ProgressCallback) -> np.ndarray:
        """Englund-Verikas path dissimilarity (§A.4), a loop over trees (not pairs)."""
        T = self.leaves_.shape[1]
        GB = self.leaves_
        la_all = G - self._leaf_offsets[None, :]
        lb_all = GB - self._leaf_offsets[None, :]
        acc = np.zeros((G.shape[0], GB.shape[0]), dtype=np.float64)
        part = np.zeros_like(acc, dtype=np.float32)
        flush = 32  # float32 partial sums over at most 32 trees, then float64
        for t, lay in enumerate(self._layouts):
            E = lay.path_matrix(float(self.w))
            part += E.take(la_all[:, t], axis=0).take(lb_all[:, t], axis=1)
            if (t + 1) % flush == 0 or t == T - 1:
                acc += part
                part[...] = 0.0
                _report(progress, (t + 1) / T, f"path lengths: tree {t + 1}/{T}")
        D = acc / T
        if train:
            D = 0.5 * (D + D.T)  # exact symmetry despite float32 partial sums
            np.fill_diagonal(D, 0.0)
        return np.clip(D, 0.0, 1.0).astype(np.float32)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
