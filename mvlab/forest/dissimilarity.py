"""Random-forest dissimilarities, computed exactly and without any loop over pairs.

One :class:`ForestDissimilarity` grows one scikit-learn random forest on one view and turns
it into a dissimilarity representation (docs/algorithms.md, paper A, §A.1-A.5):

``train_dissimilarity_``
    ``D[j, i] = d(x_j, x_i)`` for the training instances, shape ``(n_train, n_train)``;
``transform(X_new)``
    ``d(x, x_i)`` of every new row to every training row, shape ``(n_new, n_train)``.

Measures (``measure=``, a name or a :class:`mvlab.forest.measures.Measure` with its parameters):
``"breiman"`` (§A.3), ``"path"`` (Englund & Verikas, §A.4), ``"rfd"`` (Cao's kDN-weighted
RFD, §A.5), ``"oob"`` (out-of-bag proximity) and ``"rfgap"`` (RF-GAP); their exact
definitions, and how each is computed as a weighted sparse product of one-hot leaf
matrices (never a loop over pairs), are in :mod:`mvlab.forest.measures`.

The returned matrices are float32 (the forests that consume them work in float32 anyway, and
every value lies in [0, 1]); the co-occurrences are float32 sums, exact for Breiman and OOB
(integer counts), within a few units in the last place of float32 for RF-GAP and RFD.

**Large training sets.**  Above ``dense_max_rows`` training rows (default
:data:`DENSE_MAX_ROWS`) no ``(n_train, n_train)`` matrix is built: :meth:`ForestDissimilarity.
sparse_rows` gives any block of rows as stored entries plus a background of 1 (a row of a
same-leaf measure differs from 1 only at the training rows that share a leaf with it with a
non-zero weight, a few hundred for fully grown trees) and :meth:`ForestDissimilarity.
dissimilarity_rows` the dense block, with memory bounded by the block.  What is exact at any
size (docs/algorithms.md §A.10): Breiman, OOB and RF-GAP rows (the same numbers as the dense
path), RFD with ``form="weighted_proximity"`` (its kDN weights come from row blocks of the
distance matrices, the same neighbours; the co-occurrence is a sparse product).  Path length and
RFD with ``form="weighted_dissimilarity"`` have no sparse form (their value where two rows share
no leaf is not constant); they refuse above ``dense_max_rows`` with a ``ValueError`` in words.
"""

from __future__ import annotations

import numbers
from functools import partial

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.core.forest_fit import fit_forest
from mvlab.core.params import (
    MAX_FEATURES,
    N_JOBS,
    NON_NEGATIVE_INT,
    OPTIONAL_POSITIVE_INT,
    POSITIVE_INT,
    RANDOM_STATE,
    StrOptions,
)
from mvlab.core.progress import ProgressCallback, scaled
from mvlab.core.progress import report as _report
from mvlab.core.sparse_rows import SparseRows
from mvlab.core.threads import run_threads, worker_count
from mvlab.forest._leaf_product import onehot
from mvlab.forest.measures import MEASURES, Measure, resolve_measure
from mvlab.forest.tree_layout import _TreeLayout
from mvlab.i18n import N_, Message

__all__ = ["MEASURES", "ForestDissimilarity", "DENSE_MAX_ROWS"]


_MAX_INT = np.iinfo(np.int32).max

DENSE_MAX_ROWS = 10_000
"""Training rows above which ``fit`` builds no ``(n_train, n_train)`` matrix (400 MB in float32 at
10,000 rows; the issue measured 3.9 GB for a 3-view average at that size)."""


# ----------------------------------------------------------------------------- the estimator
class ForestDissimilarity(TransformerMixin, BaseEstimator):
    """Random-forest dissimilarity of one view (docs/algorithms.md §A.2-A.5).

    Parameters
    ----------
    measure : str or Measure, default="breiman"
        ``"breiman"``, ``"path"``, ``"rfd"``, ``"oob"``, ``"rfgap"`` (default parameters), or a
        measure object with its parameters, e.g. ``RFD(kdn_k=5)``, ``PathLength(w=0.5)``,
        ``RFGAP(scaling="row_max")`` (:mod:`mvlab.forest.measures`, where every measure is
        defined).  ``GridSearchCV`` reaches a measure's parameters as ``measure__kdn_k``.
    n_estimators : int, default=100
        Trees of the forest. The paper uses 512 (``n_estimators=512``); 100 keeps the
        dashboard fast.
    max_features : int, float, "sqrt", "log2" or None, default="sqrt"
        Features drawn at each node (mtry). The paper: ``sqrt(m_q)`` (§A.2).
    max_depth : int or None, default=None
        None = fully grown trees, as in the paper.
    min_samples_leaf : int, default=1
        1 = grown to purity, as in the paper.
    random_state : int, RandomState or None, default=None
        Seeds the forest (an int is passed to ``RandomForestClassifier`` unchanged).
    n_jobs : int or None, default=None
        Threads for growing the forest, ``apply``, the leaf products and the kDN searches.
    dense_max_rows : int or None, default=DENSE_MAX_ROWS (10,000)
        Build ``train_dissimilarity_`` only up to this many training rows; above it the rows
        come in blocks (:meth:`sparse_rows`, :meth:`dissimilarity_rows`), and only measures with
        a sparse form are accepted (Breiman, OOB, RF-GAP, RFD with the default form).  None:
        always build it; 0: never.

    Attributes
    ----------
    measure_ : Measure
        The fitted copy of the measure (holds what it precomputed, e.g. ``kdn_`` for RFD).
    forest_ : RandomForestClassifier
        The fitted forest (bootstrap on).
    classes_ : ndarray (n_classes,)
    n_features_in_ : int
    train_dissimilarity_ : ndarray of float32, shape (n_train, n_train)
        ``D[j, i] = d(x_j, x_i)`` (docs/algorithms.md §A.1).  Only when ``dense_`` (reading it
        otherwise raises a ``ValueError`` that says why and what to use instead).
    dense_ : bool
        Whether ``train_dissimilarity_`` was built (``n_train <= dense_max_rows``).
    leaves_ : ndarray of int32, shape (n_train, T)
        Global leaf id (column of :meth:`leaf_indicator`) of every training row in every tree.
    n_leaves_ : int
        Leaves in the whole forest.
    in_bag_counts_ : ndarray of uint8 (int32 if a count exceeds 255), shape (n_train, T)
        ``c_i(t)``: how often row i was drawn into the bootstrap of tree t.
    oob_mask_ : ndarray of bool, shape (n_train, T)
        ``in_bag_counts_ == 0``.
    oob_decision_function_ : ndarray of float64, shape (n_train, n_classes)
        Mean class probabilities of the out-of-bag trees (zeros for a row that is never OOB).
    oob_accuracy_ : float
        OOB accuracy; a row without any OOB tree counts as an error (§A.7.3 / §A.8).

    Notes
    -----
    ``transform(X_train)`` equals ``train_dissimilarity_`` for ``"breiman"``, ``"path"`` and
    ``"rfd"``, but not for ``"oob"`` and ``"rfgap"``, where training rows use only their
    out-of-bag trees.  ``fit_transform`` returns ``train_dissimilarity_``.
    """

    _parameter_constraints: dict = {
        "measure": [StrOptions(set(MEASURES)), Measure],
        "n_estimators": POSITIVE_INT,
        "max_features": MAX_FEATURES,
        "max_depth": OPTIONAL_POSITIVE_INT,
        "min_samples_leaf": POSITIVE_INT,
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
        "dense_max_rows": NON_NEGATIVE_INT + [None],
    }

    def __init__(
        self,
        measure="breiman",
        n_estimators=100,
        max_features="sqrt",
        max_depth=None,
        min_samples_leaf=1,
        random_state=None,
        n_jobs=None,
        dense_max_rows=DENSE_MAX_ROWS,
    ):
        self.dense_max_rows = dense_max_rows
        self.measure = measure
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state
        self.n_jobs = n_jobs

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
        return self._fit(X, y, progress)

    def _fit(self, X, y, progress: ProgressCallback = None, forest=None):
        """:meth:`fit`, or with ``forest`` (a :class:`RandomForestClassifier` already grown on ``X, y`` with
        bootstrap) everything after the growth: the leaves, the out-of-bag quantities, the measure's preparation
        and the matrix (``bench/bench_proximity_peers.py`` times this part against another library on the same
        forest)."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        measure = resolve_measure(self.measure)
        measure.check(X.shape[0])
        dense = self.dense_max_rows is None or X.shape[0] <= self.dense_max_rows
        if not dense and not measure.supports_sparse():
            raise ValueError(f"{X.shape[0]} training rows are more than dense_max_rows={self.dense_max_rows}, and the "
                             f"{measure.title} measure needs the dense (n_train, n_train) matrix "
                             f"({4 * X.shape[0] ** 2 / 1e9:.1f} GB); use Breiman, OOB, RF-GAP or RFD "
                             "(weighted_proximity), a sample of the rows, or raise dense_max_rows.")
        if forest is None:
            forest = self._grow(X, y, progress)
        self.forest_ = forest
        self.classes_ = forest.classes_
        y_enc = np.searchsorted(self.classes_, y)
        T = len(forest.estimators_)

        _report(progress, 0.72, Message(N_("locating leaves")))
        layouts = [_TreeLayout(est.tree_) for est in forest.estimators_]  # not kept: see _layouts
        n_leaves_t = np.array([lay.n_leaves for lay in layouts], dtype=np.int64)
        self._leaf_offsets = np.concatenate([[0], np.cumsum(n_leaves_t)[:-1]])
        self.n_leaves_ = int(n_leaves_t.sum())
        node_counts = np.array([est.tree_.node_count for est in forest.estimators_], dtype=np.int64)
        self._node_offsets = np.concatenate([[0], np.cumsum(node_counts)[:-1]])
        self._node_to_leaf = np.concatenate(  # int32: leaf ids are int32 (leaves_)
            [np.where(lay.leaf_pos >= 0, lay.leaf_pos + off, -1) for lay, off in zip(layouts, self._leaf_offsets)]
        ).astype(np.int32)
        self.leaves_ = self._apply_leaves(X)

        counts = np.zeros((X.shape[0], T), dtype=np.uint8)  # a row is drawn about once per tree
        for t, idx in enumerate(forest.estimators_samples_):
            drawn = np.bincount(idx, minlength=X.shape[0])
            if drawn.max(initial=0) > np.iinfo(counts.dtype).max:
                counts = counts.astype(np.int32)
            counts[:, t] = drawn
        self.in_bag_counts_ = counts
        self.oob_mask_ = counts == 0
        self._set_oob_scores(y_enc, layouts)
        del layouts

        measure.prepare(self, X, y_enc, progress=scaled(progress, 0.75, 0.05))
        self.measure_ = measure
        self.dense_ = dense
        self._train_dense = None
        if dense:
            _report(progress, 0.8, Message(N_("computing the dissimilarity matrix")))
            self._train_dense = self._dissimilarity(self.leaves_, train=True, progress=scaled(progress, 0.8, 0.2))
        _report(progress, 1.0, Message(N_("done")))
        return self

    def _grow(self, X, y, progress: ProgressCallback = None) -> RandomForestClassifier:
        """The random forest of the settings, grown on ``X, y`` by :func:`mvlab.core.forest_fit.fit_forest` (the
        trees of ``forest.fit``, without scikit-learn's Python around each), ``progress`` told about ten times as the
        trees come."""
        _report(progress, 0.0, Message(N_("growing the forest")))
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
        if progress is None or self.n_estimators < 20:
            return fit_forest(forest, X, y)
        told = set(np.unique(np.linspace(0, self.n_estimators, 11).round().astype(int))[1:].tolist())
        grown = [0]

        def tell(tree, drawn):
            grown[0] += 1
            if grown[0] in told:
                _report(progress, 0.7 * grown[0] / self.n_estimators,
                        Message(N_("grew {grown}/{trees} trees"), grown=grown[0], trees=self.n_estimators))
            return tree

        return fit_forest(forest, X, y, on_tree=tell)

    @property
    def _layouts(self) -> list:
        """The trees' depth-first layouts (:class:`mvlab.forest.tree_layout._TreeLayout`, for the path-length
        measure), made on first use and kept: the same-leaf measures never read them (4 MB at 20,000 rows and 100
        trees)."""
        layouts = self.__dict__.get("_layouts_made")
        if layouts is None:
            layouts = self._layouts_made = [_TreeLayout(est.tree_) for est in self.forest_.estimators_]
        return layouts

    @property
    def train_dissimilarity_(self) -> np.ndarray:
        """``D[j, i] = d(x_j, x_i)`` of the training rows, (n_train, n_train) float32 (when ``dense_``)."""
        dense = self.__dict__.get("_train_dense")
        if dense is None:
            if "leaves_" not in self.__dict__:
                raise AttributeError("train_dissimilarity_")  # not fitted: what check_is_fitted expects
            n = self.leaves_.shape[0]
            raise ValueError(f"this forest has {n} training rows, more than dense_max_rows={self.dense_max_rows}: "
                             f"its (n_train, n_train) matrix ({4 * n * n / 1e9:.1f} GB) was not built; read it in "
                             "blocks with sparse_rows() or dissimilarity_rows(), or refit with a larger "
                             "dense_max_rows.")
        return dense

    def leaves(self, X) -> np.ndarray:
        """Global leaf ids (n, T) int32 of new rows ``X`` (n, m_q) in every tree."""
        check_is_fitted(self, "leaves_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._apply_leaves(X)

    def sparse_rows(self, X=None, rows=None, columns=None, leaves=None, sort=True) -> SparseRows:
        """A block of dissimilarity rows, kept sparse (stored entries and a background of 1).

        Parameters
        ----------
        X : array-like of shape (n_new, m_q), optional
            New rows (every tree counts them out-of-bag, as :meth:`transform`).  None: the
            training rows ``rows`` (as ``train_dissimilarity_``).
        rows : slice or array of int, optional
            Training rows (only without ``X``); None = all.
        columns : ascending array of int, optional
            Training columns to keep (prototypes); None = all.
        leaves : ndarray (n_new, T), optional
            The new rows' :meth:`leaves`, when already known (instead of ``X``).
        sort : bool, default=True
            Columns ascending in every row (canonical CSR).  False: in the sparse product's order, about
            20% faster; every operation of :mod:`mvlab.core.sparse_rows` accepts either.

        Returns
        -------
        mvlab.core.sparse_rows.SparseRows
            ``to_dense()`` is the (n, n_cols) block of ``train_dissimilarity_`` (or of
            ``transform(X)``), the same numbers (both come from these rows).  Computed by blocks of
            rows on ``n_jobs`` threads; memory: the stored entries (8 bytes each) and one block.

        Raises
        ------
        ValueError
            The measure has no sparse form (path length; RFD with ``form="weighted_dissimilarity"``).
        """
        check_is_fitted(self, "leaves_")
        if columns is not None:
            columns = np.asarray(columns, dtype=np.int64)
            if columns.ndim != 1 or (columns.size > 1 and np.any(np.diff(columns) <= 0)):
                raise ValueError("columns must be ascending distinct training row indices.")
        if X is None and leaves is None:
            idx = np.arange(self.leaves_.shape[0])[slice(None) if rows is None else rows]
            G = self.leaves_ if rows is None else self.leaves_[idx]  # all rows: no copy of the leaves
            return self.measure_.sparse_rows(self, G, rows=idx, columns=columns, n_jobs=self.n_jobs, sort=sort)
        G = self.leaves(X) if leaves is None else np.asarray(leaves)
        return self.measure_.sparse_rows(self, G, rows=None, columns=columns, n_jobs=self.n_jobs, sort=sort)

    def dissimilarity_rows(self, X=None, rows=None, columns=None) -> np.ndarray:
        """A dense block of dissimilarity rows, float32 (n, n_cols): :meth:`sparse_rows` made dense, or a
        slice of ``train_dissimilarity_`` when it exists.  Arguments as :meth:`sparse_rows`."""
        if X is None and self.__dict__.get("_train_dense") is not None:
            D = self._train_dense[slice(None) if rows is None else rows]
            return D if columns is None else D[:, np.asarray(columns, dtype=np.int64)]
        return self.sparse_rows(X, rows=rows, columns=columns).to_dense()

    def _apply_leaves(self, X: np.ndarray) -> np.ndarray:
        """Global leaf ids (n, T) int32 of the rows ``X`` (validated), tree by tree on ``n_jobs`` threads: no
        (n, T) int64 array of node ids (``forest.apply``'s), 80 MB at 100,000 rows and 100 trees, and its copy."""
        X32 = np.ascontiguousarray(X, dtype=np.float32)  # the trees' own dtype, converted once
        trees = self.forest_.estimators_
        G = np.empty((X32.shape[0], len(trees)), dtype=np.int32)
        node_to_leaf = self._node_to_leaf.astype(np.int32, copy=False)  # int64 in a forest fitted by an older mvlab

        def leaves_of(ts) -> None:
            for t in ts:
                G[:, t] = node_to_leaf[trees[t].apply(X32, check_input=False) + self._node_offsets[t]]

        n_threads = max(1, min(worker_count(self.n_jobs), len(trees)))
        run_threads([partial(leaves_of, ts) for ts in np.array_split(np.arange(len(trees)), n_threads)],
                    n_threads)
        return G

    def _set_oob_scores(self, y_enc: np.ndarray, layouts: list) -> None:
        n, T = self.leaves_.shape
        C = len(self.classes_)
        acc = np.zeros((n, C), dtype=np.float64)
        leaf_node = np.empty(self.n_leaves_, dtype=np.int64)  # global leaf id -> its node in its tree
        leaf_node[self._node_to_leaf[self._node_to_leaf >= 0]] = np.concatenate(
            [np.flatnonzero(lay.leaf_pos >= 0) for lay in layouts])
        for t, est in enumerate(self.forest_.estimators_):
            oob = self.oob_mask_[:, t]
            if not oob.any():
                continue
            val = est.tree_.value[leaf_node[self.leaves_[oob, t]], 0, :]
            acc[oob] += val / val.sum(axis=1, keepdims=True)
        n_oob = self.oob_mask_.sum(axis=1)
        has = n_oob > 0
        acc[has] /= n_oob[has, None]
        self.oob_decision_function_ = acc
        correct = has & (acc.argmax(axis=1) == y_enc)
        self.oob_accuracy_ = float(correct.mean())

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
        check_is_fitted(self, "leaves_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        _report(progress, 0.0, Message(N_("locating leaves")))
        G = self._apply_leaves(X)
        D = self._dissimilarity(G, train=False, progress=progress)
        _report(progress, 1.0, Message(N_("done")))
        return D

    def fit_transform(self, X, y, progress: ProgressCallback = None):
        """Fit, then return ``train_dissimilarity_`` (n_train, n_train).

        For ``"oob"`` and ``"rfgap"`` this is the out-of-bag training matrix, which differs
        from ``fit(X, y).transform(X)`` (a new row is OOB for every tree).
        """
        return self.fit(X, y, progress=progress).train_dissimilarity_.copy()


    def leaf_indicator(self, X=None) -> sp.csr_matrix:
        """Sparse one-hot leaf matrix ``L`` of shape ``(n, n_leaves_)``, CSR, one 1 per tree.

        Parameters
        ----------
        X : array-like of shape (n, m_q), optional
            Rows to encode; ``None`` = the training rows.
        """
        check_is_fitted(self, "leaves_")
        if X is None:
            G = self.leaves_
        else:
            X = validate_data(self, X, dtype=np.float64, reset=False)
            G = self._apply_leaves(X)
        return onehot(G, self.n_leaves_)

    def _dissimilarity(self, G: np.ndarray, train: bool, progress: ProgressCallback = None,
                       engine: str = "auto") -> np.ndarray:
        """Dissimilarity (float32, (n, n_train)) of rows with global leaves ``G`` (n, T) to the
        training rows, by the fitted measure; ``train=True``: ``G`` are the training rows."""
        _report(progress, 0.0, Message(N_("leaf products")))
        D = self.measure_.dissimilarity(self, G, train, engine=engine, progress=progress)
        _report(progress, 1.0, Message(N_("matrix ready")))
        return D

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.transformer_tags.preserves_dtype = []  # dissimilarities are float32 (values in [0, 1])
        return tags
