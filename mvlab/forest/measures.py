"""The forest dissimilarity measures, one class each: what a shared leaf is worth, and how to normalise.

A measure is a small parameter object (``get_params`` / ``set_params`` like a scikit-learn
estimator, so ``GridSearchCV`` reaches ``measure__kdn_k``); ``ForestDissimilarity(measure=...)``
takes one, or its name.  Every same-leaf measure is one row of this table: a weighted sparse
co-occurrence ``S = (U o L_a) (W o L_b)^T`` of one-hot leaf matrices (the factorisation ``P = Q W^T``
of Aumon et al., arXiv 2601.02735) with per-(row, tree) weights ``U`` (query rows) and ``W``
(training rows), then a normalisation:

==========  =================================  =============================  ======================
measure     U (query rows)                     W (training columns)           dissimilarity
==========  =================================  =============================  ======================
breiman     1                                  1                              ``1 - S / T``
rfd         1                                  ``1 - kDN_t(i)``               ``1 - S / T``
oob         ``I(x OOB in t)`` (1 for new)      ``I(x_i OOB in t)``            ``1 - S / N_oob``
rfgap       ``I(x OOB in t)`` (1 for new)      ``c_i(t) / |M(leaf)|``         ``1 - S / |S_x|``
==========  =================================  =============================  ======================

The path-length measure is not a same-leaf product: it sums, per tree, a leaf-to-leaf matrix
gathered at the instances' leaves (a loop over trees, never over pairs).

**Adding a measure** is one class here (its parameters in ``__init__``, their allowed values in
``_parameter_constraints``, ``check_data`` for what depends on the training rows, ``prepare`` for
what it needs from the fitted forest, and either the ``U``/``W``/normalisation hooks of
:class:`SameLeafMeasure` or a whole ``dissimilarity``), one entry in :data:`MEASURES`, and its
reference test (a pair loop) in ``tests/test_forest_dissimilarity.py``.

Every hook receives the fitted :class:`mvlab.forest.dissimilarity.ForestDissimilarity` (``fd``),
whose arrays it reads: ``leaves_`` (n_train, T) global leaf ids, ``n_leaves_``, ``oob_mask_``,
``in_bag_counts_``, ``_layouts`` and ``_leaf_offsets``.  Returned matrices are float32, every value in
[0, 1].

**How the rows are computed** (:meth:`SameLeafMeasure.sparse_rows`, and the dense matrices of the
measures here, written from them block by block): by blocks of about :data:`BLOCK_ENTRIES` stored
entries, each the float32 product ``A @ BT`` of :func:`mvlab.forest._leaf_product.product_sorted`
(scipy's Gustavson kernel without its counting pass; exact for 0/1 weights, within a few float32 units in
the last place of a float64 sum for RF-GAP and RFD), with the training rows stored in an order that keeps
each leaf's rows close (1.4-1.9 times faster kernel), each row's own column inside the product (its
diagonal found by a marker weight, no search and insertion), columns sorted by two counting transposes
(or left in the product's order with ``sort=False``), normalised by a table (Breiman, OOB) or in place
(RF-GAP), in work arrays reused from block to block.  The dense engines of
:func:`mvlab.forest._leaf_product.cooccurrence` stay for ``engine="pairs"`` / ``"scipy"`` and for
measures with only a dense :meth:`SameLeafMeasure.normalise`.
"""

from __future__ import annotations

import math
import numbers
import threading
from functools import partial
from typing import ClassVar, Optional

import numpy as np
from sklearn.base import BaseEstimator, clone

from mvlab.core.params import POSITIVE_INT, Interval, StrOptions
from mvlab.core.progress import ProgressCallback
from mvlab.core.progress import report as _report
from mvlab.core.sparse_rows import SparseRows
from mvlab.core.threads import run_threads, worker_count
from mvlab.forest._leaf_product import (
    borrowed_workspaces,
    cooccurrence,
    leaf_incidence,
    locality_order,
    mapped_empty,
    product_sorted,
    reference_incidence,
    row_bounds,
)
from mvlab.forest.kdn import kdn_per_tree
from mvlab.i18n import N_, Message, gettext

__all__ = ["Measure", "SameLeafMeasure", "Breiman", "PathLength", "RFD", "OOBProximity", "RFGAP", "MEASURES",
           "resolve_measure", "measure_spec", "BLOCK_ENTRIES"]

BLOCK_ENTRIES = 1 << 18
"""Entries aimed at in one product block inside :meth:`SameLeafMeasure.sparse_rows`.  A block's arrays take about
24 bytes an entry (about 6 MB), in work arrays reused from block to block.  The first block is cut by
:func:`mvlab.forest._leaf_product.product_bound` (an upper bound of its entries), the next ones by the density the
blocks so far had (the entries formed are 1 in 2 to 1 in 5 of the bound on the issue's data): blocks of about 28
rows at 100,000 training rows, few enough that the per-block costs (a pass over the columns) stay small."""

_CACHE_LOCK = threading.Lock()


def _largest(W: Optional[np.ndarray]) -> float:
    """The largest absolute weight (1 for None, all ones), without an array of the absolute values."""
    if W is None:
        return 1.0
    return float(max(abs(np.max(W, initial=0)), abs(np.min(W, initial=0))))


class Measure(BaseEstimator):
    """Base of the measures: a name, a title for people, and the computation.

    Subclasses set ``name``, ``title``, ``reference`` (where it is defined) and implement
    :meth:`dissimilarity`; their parameters' allowed values are ``_parameter_constraints`` (the
    estimators' convention), :meth:`check_data` checks what depends on the ``n_train`` rows, and
    :meth:`prepare` computes per-forest quantities once, after the forest is grown.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    _parameter_constraints: dict = {}

    def check(self, n_train: int) -> None:
        """Raise ``ValueError`` when a parameter is not allowed or does not suit ``n_train`` training rows."""
        self._validate_params()
        self.check_data(n_train)

    def check_data(self, n_train: int) -> None:
        """Raise ``ValueError`` when a (valid) parameter does not suit ``n_train`` training rows."""

    def prepare(self, fd, X: np.ndarray, y: np.ndarray, progress: ProgressCallback = None) -> None:
        """Per-forest precomputation, stored on this (fitted, private) copy of the measure."""

    def dissimilarity(self, fd, G: np.ndarray, train: bool, engine: str = "auto",
                      progress: ProgressCallback = None) -> np.ndarray:
        """Dissimilarity of rows with global leaves ``G`` (n, T) to the training rows, (n, n_train).

        ``train=True``: ``G`` are the training rows themselves (out-of-bag semantics and
        symmetry apply).
        """
        raise NotImplementedError

    def supports_sparse(self) -> bool:
        """Whether :meth:`sparse_rows` exists: the dissimilarity is 1 wherever two rows share no
        leaf with a non-zero weight, so a row is a few stored entries and a background of 1."""
        return False

    def sparse_rows(self, fd, G: np.ndarray, rows: Optional[np.ndarray] = None,
                    columns: Optional[np.ndarray] = None, n_jobs=None, sort: bool = True) -> SparseRows:
        """Rows of the dissimilarity as :class:`mvlab.core.sparse_rows.SparseRows` (background 1).

        ``G`` (n, T) are the global leaves of the query rows; ``rows`` (n,) their indices among the
        training rows when they *are* training rows (out-of-bag semantics and the zero diagonal
        of ``train_dissimilarity_`` apply), None for new rows; ``columns`` (ascending training
        indices) restricts the columns, None = every training row; ``n_jobs`` threads; ``sort=False``
        leaves each row's columns in the product's order (two counting passes fewer).
        ``to_dense()`` equals the same block of ``train_dissimilarity_`` / ``transform`` (for
        the measures of this module, whose dense matrices are made from these rows).
        """
        raise ValueError(f"the {self.title} measure has no sparse form (its value is not 1 at pairs that share no "
                         "leaf); it needs the dense (n, n_train) matrices, so it is limited to "
                         "ForestDissimilarity.dense_max_rows training rows.")

    def describe(self) -> str:
        """The measure with its parameter values, for people: ``"RFD (kDN-weighted, Cao; kdn_k=7)"`` (its title in
        the language of the person being served)."""
        params = ", ".join(f"{k}={v}" for k, v in sorted(self.get_params().items()))
        return f"{gettext(self.title)}; {params}" if params else gettext(self.title)


class SameLeafMeasure(Measure):
    """A measure of the table above: weights ``U`` and ``W`` of the co-occurrence, then a
    normalisation of ``S``."""

    def query_weights(self, fd, train: bool) -> Optional[np.ndarray]:
        """``U`` (n, T) or None (all ones)."""
        return None

    def reference_weights(self, fd, train: bool) -> Optional[np.ndarray]:
        """``W`` (n_train, T) or None (all ones).  Return the *same object* as ``U`` for a
        symmetric training product, so that only half of it is computed."""
        return None

    def normalise(self, fd, S: np.ndarray, train: bool) -> np.ndarray:
        """Dissimilarity (float64, may be computed in place in ``S``) from the co-occurrence ``S``."""
        raise NotImplementedError

    zero_diagonal: ClassVar[bool] = True
    """Whether ``train_dissimilarity_`` has a zero diagonal (set after the normalisation)."""

    def supports_sparse(self) -> bool:
        """True: a same-leaf dissimilarity is 1 wherever two rows share no leaf with a non-zero weight."""
        return True

    def normalise_entries(self, fd, S: np.ndarray, r: Optional[np.ndarray], c: np.ndarray,
                          r_local: np.ndarray) -> np.ndarray:
        """:meth:`normalise` on the stored entries ``S`` (float64, (nnz,)) of query rows ``r``
        (training indices; None for new rows), training columns ``c`` and block rows ``r_local``
        (ascending: entries come row by row);
        the same float64 operations, entry by entry, as the dense normalisation.  The diagonal
        is handled by the caller."""
        raise NotImplementedError

    def normalise_stored(self, fd, S: np.ndarray, indptr: np.ndarray, cols: np.ndarray,
                         rows: Optional[np.ndarray]) -> np.ndarray:
        """Dissimilarities (float32, in [0, 1]) of the stored entries of a block of rows, from their co-occurrences.

        ``S`` (nnz,) float32 or float64, row by row (``indptr``, (n + 1,)), may be overwritten; ``cols`` (nnz,) the
        training column of each entry; ``rows`` (n,) the block's training indices (None for new rows).  The
        diagonal is handled by the caller (its ``S`` is 0 here).  This default applies :meth:`normalise_entries`
        to float64 entries; the measures of this module override it with fewer passes over the entries and the
        same numbers.
        """
        counts = np.diff(indptr)
        r_local = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
        r = None if rows is None else rows[r_local]
        vals = self.normalise_entries(fd, S.astype(np.float64, copy=False), r, cols.astype(np.int64), r_local)
        return np.clip(vals, 0.0, 1.0).astype(np.float32)

    def _oob_counts(self, fd) -> np.ndarray:
        """Out-of-bag trees of every training row, int32 (n_train,), counted once."""
        counts = self.__dict__.get("_oob_count_cache")
        if counts is None:
            counts = self._oob_count_cache = fd.oob_mask_.sum(axis=1, dtype=np.int32)
        return counts

    def _has_stored_normalisation(self) -> bool:
        """Whether :meth:`normalise_stored` can run: a sparse form and a normalisation of stored entries (a measure
        defined outside this module may only have the dense :meth:`normalise`)."""
        cls = type(self)
        return self.supports_sparse() and (cls.normalise_stored is not SameLeafMeasure.normalise_stored
                                           or cls.normalise_entries is not SameLeafMeasure.normalise_entries)

    def reference_weights_at(self, fd, train: bool, rows, trees: slice = slice(None)) -> Optional[np.ndarray]:
        """``W`` of the training rows ``rows`` in the trees ``trees``, (len(rows), trees) (``reference_weights(fd,
        train)[rows, trees]``; None: all ones).  A measure whose weights come from per-leaf quantities overrides it,
        so that no (n_train, T) array needs to be kept, nor formed for the reference (built a few trees at a time)."""
        W = self.reference_weights(fd, train)
        return None if W is None else W[rows, trees]

    def _reference(self, fd, train: bool, columns: Optional[np.ndarray]):
        """``(W o L_B | own)^T`` of the training columns (:func:`reference_incidence`, float32), the column map of
        :func:`product_sorted` and the largest weight: all the training rows are stored in :func:`locality_order`
        (cached, per ``train``), a restricted set of columns in its order (map None).  Built a few trees at a time:
        the columns' leaves and weights are never formed for the whole forest (two (n_train, T) arrays, 15 MB at
        20,000 rows and 100 trees, that the C heap kept after they were freed)."""
        n_train = fd.leaves_.shape[0]

        def build(idx, column_map):
            largest = [0.0]

            def weights(trees):
                W = self.reference_weights_at(fd, train, idx, trees)
                largest[0] = max(largest[0], _largest(W))
                return W

            BT = reference_incidence(fd.leaves_, fd.n_leaves_, weights, np.float32, own=idx, n_own=n_train, rows=idx)
            return BT, column_map, largest[0]

        if columns is not None:
            return build(columns, None)
        with _CACHE_LOCK:  # sparse_rows runs on threads (row blocks of ViewRows): build each matrix once
            cache = self.__dict__.get("_sparse_cache")
            if not isinstance(cache, dict):  # none yet, or the list of a measure pickled by an older mvlab
                cache = self._sparse_cache = {}
            if train not in cache:
                order = locality_order(fd.leaves_).astype(np.int32)
                cache[train] = build(order, order)
            return cache[train]

    def _product_setup(self, fd, G, rows, columns):
        """The query weights ``U`` of the rows, the reference ``BT`` with its column map, and the weight that marks
        the diagonal (None without one)."""
        train = rows is not None
        U = self.query_weights(fd, train)
        if U is not None:
            U = U[rows]
        BT, column_map, largest = self._reference(fd, train, columns)
        marker = None
        if train and self.zero_diagonal:
            # above every co-occurrence: S <= T max(U) max(W); a power of 2, so that S + marker >= marker
            top = fd.leaves_.shape[1] * _largest(U) * largest
            marker = float(2.0 ** math.ceil(math.log2(2.0 * top + 2.0)))
        return U, BT, column_map, marker

    def _stored_block(self, fd, G, U, BT, column_map, rows, columns, marker, sort=True, work=None):
        """One block of rows with leaves ``G`` and query weights ``U``: the sparse product (columns ascending in
        each row with ``sort``), the diagonal found by its marker, the normalisation.  Returns ``(indptr int32,
        cols int32, values float32)``, views into ``work`` (a :class:`Workspace`) when given."""
        A = leaf_incidence(G, fd.n_leaves_, U, np.float32, own=rows if marker else None, own_weight=marker or 1.0,
                           n_own=fd.leaves_.shape[0])
        indptr, cols, S = product_sorted(A, BT, column_map, sort, work)
        diag = None
        if marker is not None:
            diag = S >= marker
            S[diag] = 0.0
        vals = self.normalise_stored(fd, S, indptr, cols if columns is None else columns[cols], rows)
        if diag is not None:
            vals[diag] = 0.0
        return indptr, cols, vals

    def _blocks(self, fd, G, rows, columns, n_jobs, sort=True):
        """``(row slice, indptr, cols, values, bound)`` of every block of rows, in order, as they are computed
        (``n_jobs`` blocks at a time), each of about :data:`BLOCK_ENTRIES` entries (:func:`_next_blocks`); ``bound``
        is the cumulative :func:`product_bound` of the rows.  The arrays are views into work arrays reused by the
        next blocks: use them before asking for the next.  The last block's arrays are copies of their own (one
        block's cost): the work arrays go back to a pool shared by every computation once the last block is taken,
        so a view kept after the loop could be overwritten by another computation."""
        U, BT, column_map, marker = self._product_setup(fd, G, rows, columns)
        ends = np.cumsum(row_bounds(G, U, BT, marker is not None))
        n, n_threads = G.shape[0], max(1, worker_count(n_jobs))
        with borrowed_workspaces(n_threads) as works:  # one per thread, reused block after block and call after call
            start, formed, bounded = 0, 0, 0
            while start < n:
                density = formed / bounded if bounded else 1.0  # entries formed per entry of the bound, so far
                wave = _next_blocks(ends, start, n_threads, BLOCK_ENTRIES / max(density, 1e-3))
                done = [None] * len(wave)

                def job(out, i, b):
                    out[i] = self._stored_block(fd, G[b], None if U is None else U[b], BT, column_map,
                                                None if rows is None else rows[b], columns, marker, sort, works[i])

                run_threads([partial(job, done, i, b) for i, b in enumerate(wave)], len(wave))
                for b, part in zip(wave, done):
                    formed += part[1].size
                    bounded += int(ends[b.stop - 1] - (ends[b.start - 1] if b.start else 0))
                    if b.stop >= n:  # the last block: its arrays outlive the workspaces' loan
                        part = tuple(np.array(a, copy=True) for a in part)
                    yield (b, *part, ends)
                start = wave[-1].stop

    def sparse_rows(self, fd, G, rows=None, columns=None, n_jobs=None, sort=True):
        """Rows of the dissimilarity as :class:`mvlab.core.sparse_rows.SparseRows` (see :meth:`Measure.sparse_rows`).

        By blocks of rows (about :data:`BLOCK_ENTRIES` entries each, ``n_jobs`` blocks at a time): the
        sparse co-occurrence of the query rows with the training columns (:func:`product_sorted`, accumulated in
        float32: exact for 0/1 weights, integer sums below 2**24; within a few float32 units in the last place of the
        float64 sums for weighted measures), :meth:`normalise_stored` on its entries; for training rows and
        a :attr:`zero_diagonal`, each row's own column is part of the product (:func:`leaf_incidence`) and set to
        0.  Each block's entries are copied into the result as the block is done, into room for the entries the
        blocks so far predict (20% more; rarely grown), so the peak is the result and one block of ``n_jobs``.
        """
        rows = None if rows is None else np.asarray(rows, dtype=np.int64)
        columns = None if columns is None else np.asarray(columns, dtype=np.int64)
        n_cols = fd.leaves_.shape[0] if columns is None else columns.size
        indptr = np.zeros(G.shape[0] + 1, dtype=np.int64)
        cols = vals = None
        at = 0
        ends = np.ones(1)
        for b, p, c, v, ends in self._blocks(fd, G, rows, columns, n_jobs, sort):
            if cols is None and b.stop == G.shape[0]:  # one block: copies of its arrays are the result
                indptr[1:] = p[1:]
                return SparseRows(indptr, _grown(c, c.size, c.size, np.int32), _grown(v, v.size, v.size, np.float32),
                                  1.0, n_cols)
            need = at + c.size
            if cols is None or need > cols.size:  # room for the entries so far, extrapolated by the rows' bound
                room = max(need, int(1.2 * need * ends[-1] / ends[b.stop - 1]))
                cols = _grown(cols, at, room, np.int32)
                vals = _grown(vals, at, room, np.float32)
            indptr[b.start + 1:b.stop + 1] = p[1:] + at
            cols[at:need], vals[at:need] = c, v
            at = need
        if cols is None:
            return SparseRows(indptr, np.empty(0, dtype=np.int32), np.empty(0, dtype=np.float32), 1.0, n_cols)
        # views of the room: pages past the entries were never touched, so they take no memory
        return SparseRows(indptr, cols[:at], vals[:at], 1.0, n_cols)

    def dissimilarity(self, fd, G, train, engine="auto", progress=None):
        """Dense dissimilarity (n, n_train), float32.

        ``engine="auto"`` with a normalisation of stored entries: the sparse rows of :meth:`sparse_rows`, block by
        block, written into a matrix of 1s (the same numbers as :meth:`sparse_rows`; the peak is the float32
        result and one block).  Otherwise (``"pairs"``, ``"scipy"``, or a measure with only :meth:`normalise`):
        the dense co-occurrence ``S`` of ``G`` (n, T) with the training leaves under the weights ``U`` and ``W``
        (:func:`cooccurrence`), then :meth:`normalise`, clipped to [0, 1].
        """
        if engine == "auto" and self._has_stored_normalisation():
            return self._dense_from_blocks(fd, G, train, progress)
        U = self.query_weights(fd, train)
        W = self.reference_weights(fd, train)
        S = cooccurrence(G, None if train else fd.leaves_, fd.n_leaves_, WA=U, WB=W, engine=engine,
                         n_jobs=fd.n_jobs)
        D = self.normalise(fd, S, train)
        return np.clip(D, 0.0, 1.0, out=D).astype(np.float32)

    def _dense_from_blocks(self, fd, G, train, progress=None):
        n, n_train = G.shape[0], fd.leaves_.shape[0]
        D = np.ones((n, n_train), dtype=np.float32)
        rows = np.arange(n, dtype=np.int64) if train else None
        for b, indptr, cols, vals, _ in self._blocks(fd, G, rows, None, fd.n_jobs, sort=False):
            counts = np.diff(indptr)
            flat = np.repeat(np.arange(counts.size, dtype=np.int64) * n_train, counts)
            flat += cols
            D[b].reshape(-1)[flat] = vals
            _report(progress, b.stop / max(n, 1),
                    Message(N_("dissimilarity rows {done}/{rows}"), done=int(b.stop), rows=int(n)))
        return D


class Breiman(SameLeafMeasure):
    """Breiman: ``d(x, x_i) = 1 - (1/T) sum_t I(l_t(x) == l_t(x_i))`` (docs/algorithms.md §A.3, Eqs. 2-3).

    Symmetric, zero diagonal; every tree counts, in-bag included (as the C-cao code does).
    """

    name = "breiman"
    title = N_("Breiman (shared leaves)")
    reference = "§A.3"

    def normalise_stored(self, fd, S, indptr, cols, rows):
        """``1 - S / T`` on the stored entries: a table of the T + 1 values, computed as the dense normalisation
        computes them (float64, then float32), read at the integer counts."""
        T = fd.leaves_.shape[1]
        table = (1.0 - np.arange(T + 1) / T).astype(np.float32)
        if S.dtype == np.float32:
            return np.take(table, S.astype(np.int32), out=S)  # in place: no second array of the block's size
        return table[S.astype(np.int32)]

    def normalise(self, fd, S, train):
        """``1 - S / T`` (n, n_train), in place in ``S``; a zero diagonal for the training matrix."""
        np.divide(S, fd.leaves_.shape[1], out=S)
        np.subtract(1.0, S, out=S)  # 1 - S / T in place: no n x n temporaries
        if train:
            np.fill_diagonal(S, 0.0)
        return S


class RFD(SameLeafMeasure):
    """Cao's RFD: a shared leaf counts as similarity only to the extent that the reference
    instance is easy in that tree's subspace (docs/algorithms.md §A.5, Eqs. 5-6).

    ``d(x, x_i) = 1 - (1/T) sum_t (1 - kDN_t(x_i)) I(same leaf)`` with ``kDN_t`` the
    k-Disagreeing-Neighbours hardness of ``x_i`` among all training rows, Euclidean distance on
    the features tree t splits on, ``kdn_k`` neighbours, self excluded, ties broken by index; a
    tree without any split gets ``kDN_t = 0``.  Not symmetric; ``d(x_i, x_i) = mean_t kDN_t(x_i)``.

    Parameters
    ----------
    kdn_k : int, default=7
        Neighbours of the kDN hardness (not stated in the chapter; 7 = the DVS region size).
    form : {"weighted_proximity", "weighted_dissimilarity"}, default="weighted_proximity"
        ``"weighted_proximity"`` (the documented reading): ``d_t = 1 - (1 - kDN_t) I(same leaf)``.
        ``"weighted_dissimilarity"``: ``d_t = (1 - kDN_t)(1 - I(same leaf))``.  The two differ by
        the constant ``mean_t kDN_t(x_i)`` per column, so an RF on them is the same, but
        neighbours, SWknn and SWka differ (§A.5).

    Attributes
    ----------
    kdn_ : ndarray of float64, shape (n_train, T)
        On the fitted copy ``fd.measure_`` of a :class:`ForestDissimilarity` ``fd``.
    """

    name = "rfd"
    title = N_("RFD (kDN-weighted, Cao)")
    reference = "§A.5"
    FORMS: ClassVar[tuple[str, ...]] = ("weighted_proximity", "weighted_dissimilarity")

    _parameter_constraints: dict = {"kdn_k": POSITIVE_INT, "form": [StrOptions(set(FORMS))]}

    def __init__(self, kdn_k=7, form="weighted_proximity"):
        self.kdn_k = kdn_k
        self.form = form

    def check_data(self, n_train):
        """Raise ``ValueError`` when ``kdn_k`` is not below ``n_train`` (the kDN of a row needs ``kdn_k`` other
        rows)."""
        if self.kdn_k > n_train - 1:
            raise ValueError(f"kdn_k={self.kdn_k} needs at least {self.kdn_k + 1} training instances, "
                             f"got {n_train}; lower kdn_k.")

    def prepare(self, fd, X, y, progress=None):
        """Compute the kDN hardness of every training row in every tree, ``kdn_`` (n_train, T), and the
        reference weights ``1 - kdn_`` (§A.5)."""
        _report(progress, 0.0, Message(N_("kDN hardness per tree")))
        self.kdn_ = kdn_per_tree(fd.forest_, X, y, self.kdn_k, n_jobs=fd.n_jobs)
        self.reference_weights_ = 1.0 - self.kdn_

    zero_diagonal = False

    def supports_sparse(self):
        """Whether the form has a sparse form: ``"weighted_proximity"`` only (the other form's value where two
        rows share no leaf varies by column)."""
        return self.form == "weighted_proximity"  # the other form's value at no shared leaf varies by column

    def sparse_rows(self, fd, G, rows=None, columns=None, n_jobs=None, sort=True):
        """As :meth:`SameLeafMeasure.sparse_rows`; ``ValueError`` for ``form="weighted_dissimilarity"``, which has
        no sparse form."""
        if not self.supports_sparse():
            raise ValueError("RFD with form='weighted_dissimilarity' has no sparse form (its value where two rows "
                             "share no leaf, mean_t(1 - kDN_t(x_i)), differs by column); use "
                             "form='weighted_proximity' (the same final forest) above "
                             "ForestDissimilarity.dense_max_rows training rows.")
        return super().sparse_rows(fd, G, rows, columns, n_jobs, sort)

    def normalise_entries(self, fd, S, r, c, r_local):
        """``1 - S / T`` on the stored entries (the ``"weighted_proximity"`` form)."""
        return 1.0 - S / fd.leaves_.shape[1]

    def reference_weights(self, fd, train):
        """``W = 1 - kDN_t(x_i)`` (n_train, T), computed by :meth:`prepare`."""
        return self.reference_weights_

    def normalise(self, fd, S, train):
        """``1 - S / T`` (``"weighted_proximity"``) or ``mean_t(1 - kDN_t(x_i)) - S / T``
        (``"weighted_dissimilarity"``), shape (n, n_train); the diagonal is kept (``d(x_i, x_i) = mean_t kDN_t(x_i)``
        for the first form)."""
        T = fd.leaves_.shape[1]
        if self.form == "weighted_proximity":
            return 1.0 - S / T
        return (1.0 - self.kdn_).mean(axis=1)[None, :] - S / T


class OOBProximity(SameLeafMeasure):
    """Out-of-bag proximity (Breiman; Rhodes et al. 2023): ``1 - S / N`` with ``S`` the trees in
    which both rows are out-of-bag and share a leaf, ``N`` the trees in which both are out-of-bag.

    A new row is out-of-bag in every tree, so for ``transform`` ``N`` is the number of OOB trees
    of ``x_i``.  **Pairs with no common OOB tree (N = 0) get dissimilarity 1** (no evidence of
    proximity); the training diagonal is 0.  Symmetric.
    """

    name = "oob"
    title = N_("Out-of-bag proximity")
    reference = "Rhodes, Cutler & Moon 2023"

    def prepare(self, fd, X, y, progress=None):
        """Keep the out-of-bag indicator ``I(x_i OOB in t)`` (n_train, T) as the weights (boolean: 0/1)."""
        self.oob_weights_ = fd.oob_mask_

    def query_weights(self, fd, train):
        """``U``: the out-of-bag indicator (n_train, T) for the training rows; None (all ones) for new rows,
        out-of-bag in every tree."""
        return self.oob_weights_ if train else None

    def reference_weights(self, fd, train):
        """``W``: the out-of-bag indicator (n_train, T), the same object as ``U`` for the training rows (a
        symmetric product)."""
        return self.oob_weights_  # the same object as U for training rows: symmetric product

    def normalise_stored(self, fd, S, indptr, cols, rows):
        """``1 - S / N`` on the stored entries, ``N`` the trees in which both rows are out-of-bag (for new rows, the
        training row's out-of-bag trees); 1 where ``N = 0``.  ``N`` is a popcount of the rows' out-of-bag trees
        packed in 64-bit words; ``1 - S / N`` a table of the (T + 1)^2 values, computed as the dense normalisation
        computes them (float64, then float32), read at the integer pair ``(S, N)``."""
        T = fd.leaves_.shape[1]
        words = self.__dict__.get("_oob_words")
        if words is None:  # (n_words, n_train) uint64: bit t of word t // 64 = out-of-bag in tree t
            packed = np.packbits(fd.oob_mask_, axis=1, bitorder="little")
            packed = np.pad(packed, ((0, 0), (0, -packed.shape[1] % 8)))
            words = self._oob_words = np.ascontiguousarray(packed.view(np.uint64).T)
        if rows is None:
            N = self._oob_counts(fd)[cols]
        else:
            counts = np.diff(indptr)
            N = np.zeros(cols.size, dtype=np.int32)
            for word in words:
                both = np.repeat(word[rows], counts)
                np.bitwise_and(both, word[cols], out=both)
                N += np.bitwise_count(both)
        table = self.__dict__.get("_table")
        if table is None:
            s, m = np.meshgrid(np.arange(T + 1.0), np.arange(T + 1.0), indexing="ij")
            table = self._table = (1.0 - np.divide(s, m, out=np.zeros_like(s), where=m > 0)).astype(np.float32)
        key = S.astype(np.int32) * np.int32(T + 1)
        key += N
        return table.ravel()[key]

    def normalise(self, fd, S, train):
        """``1 - S / N`` (n, n_train), ``N`` the trees in which both rows are out-of-bag (for new rows, the
        training row's out-of-bag trees); 1 where ``N = 0``, a zero diagonal for the training matrix."""
        if train:
            o32 = fd.oob_mask_.astype(np.float32)
            N = (o32 @ o32.T).astype(np.float64)  # exact: integer counts < 2**24
        else:
            N = np.broadcast_to(fd.oob_mask_.sum(axis=1).astype(np.float64)[None, :], S.shape)
        D = 1.0 - np.divide(S, N, out=np.zeros_like(S), where=N > 0)
        if train:
            np.fill_diagonal(D, 0.0)
        return D


class RFGAP(SameLeafMeasure):
    """RF-GAP proximity (Rhodes, Cutler & Moon, IEEE TPAMI 2023), ``d = 1 - p``.

    ``p(x, x_i) = (1/|S_x|) sum_{t in S_x} c_i(t) I(same leaf) / |M_t(x)|``, ``S_x`` the trees
    where x is out-of-bag (all trees for a new row), ``c_i(t)`` the in-bag multiplicity of
    ``x_i`` in tree t and ``|M_t(x)|`` the in-bag multiplicity of x's leaf.  A row's
    proximities sum to 1.  ``p`` is 0 on the training diagonal by definition; we set
    ``d(x_i, x_i) = 0``.  A training row never out-of-bag has no RF-GAP row: dissimilarity 1 to
    every other row.  Not symmetric.

    Parameters
    ----------
    scaling : {"none", "row_max"}, default="none"
        ``"none"``: ``d = 1 - p``, the measure's authors' raw proximity; every column of the
        dissimilarity space is on one scale.  ``"row_max"``: each row is divided by its largest
        value first, so every row spans [0, 1]; this puts rows on different scales (a row whose
        neighbours share its proximity evenly is stretched more) and changes kernel alignment
        and static weights, so it is an option, not the default.
    """

    name = "rfgap"
    title = N_("RF-GAP")
    reference = "Rhodes, Cutler & Moon 2023"
    SCALINGS: ClassVar[tuple[str, ...]] = ("none", "row_max")

    _parameter_constraints: dict = {"scaling": [StrOptions(set(SCALINGS))]}

    def __init__(self, scaling="none"):
        self.scaling = scaling

    def prepare(self, fd, X, y, progress=None):
        """Compute the in-bag mass of every leaf, ``|M_t(leaf)|`` (the in-bag multiplicities of its rows), from which
        the reference weights ``c_i(t) / |M_t(leaf)|`` of any rows follow: (n_leaves,) numbers, not (n_train, T)."""
        counts, G = fd.in_bag_counts_, fd.leaves_
        self.leaf_mass_ = np.zeros(fd.n_leaves_)
        for t in range(counts.shape[1]):  # tree by tree: no (n, T) float64 temporaries
            self.leaf_mass_ += np.bincount(G[:, t], weights=counts[:, t], minlength=fd.n_leaves_)

    def query_weights(self, fd, train):
        """``U``: the out-of-bag indicator (n_train, T) for the training rows (only the trees where the row is
        out-of-bag count); None (every tree) for new rows."""
        return fd.oob_mask_ if train else None

    def reference_weights(self, fd, train):
        """``W = c_i(t) / |M_t(leaf)|`` (n_train, T), float32, from :meth:`prepare`'s leaf masses."""
        return self.reference_weights_at(fd, train, slice(None))

    def reference_weights_at(self, fd, train, rows, trees=slice(None)):
        """``W`` of the training rows ``rows`` in the trees ``trees`` (float32), tree by tree from the leaf masses."""
        if "leaf_mass_" not in self.__dict__:  # a measure fitted by an older mvlab kept the weights instead
            self.prepare(fd, None, None)
        G, counts = fd.leaves_[rows, trees], fd.in_bag_counts_[rows, trees]
        W = np.empty(G.shape, dtype=np.float32)
        for t in range(G.shape[1]):
            W[:, t] = counts[:, t] / self.leaf_mass_[G[:, t]]
        return W

    def normalise_stored(self, fd, S, indptr, cols, rows):
        """``1 - p`` on the stored entries, ``p = S / |S_x|`` (``|S_x|`` the query row's out-of-bag trees, ``T`` for
        new rows; the caller has set ``S`` to 0 at a training row's own column); with ``scaling="row_max"``, ``p``
        divided by its row's largest stored value first.  In float32, in place (the co-occurrences are float32
        sums): within a unit or two in the last place of the float64 formula."""
        T = fd.leaves_.shape[1]
        counts = np.diff(indptr)
        n_oob = self._oob_counts(fd)[rows] if rows is not None else np.full(counts.size, T)
        scale = np.divide(1.0, n_oob, out=np.zeros(counts.size), where=n_oob > 0).astype(np.float32)
        P = S.astype(np.float32, copy=False)
        P *= np.repeat(scale, counts)  # p = S / |S_x| in float32, in place: the accumulation is float32 too
        if self.scaling == "row_max" and P.size:
            filled = counts > 0
            mx = np.zeros(counts.size, dtype=np.float32)
            mx[filled] = np.maximum.reduceat(P, indptr[:-1][filled].astype(np.int64))
            mx = np.repeat(mx, counts)
            np.divide(P, mx, out=P, where=mx > 0)  # a division: the row's largest value becomes exactly 1
        np.subtract(np.float32(1.0), P, out=P)
        return np.clip(P, 0.0, 1.0, out=P)

    def sparse_rows(self, fd, G, rows=None, columns=None, n_jobs=None, sort=True):
        """As :meth:`SameLeafMeasure.sparse_rows`; with ``scaling="row_max"`` and ``columns``, the full rows
        first (the scale is the maximum over the whole row), then their ``columns``."""
        if self.scaling == "row_max" and columns is not None:
            # the scale is the maximum over the whole row: take the full rows, then the columns
            full = super().sparse_rows(fd, G, rows, None, n_jobs, sort)
            return _restrict_columns(full, np.asarray(columns, dtype=np.int64))
        return super().sparse_rows(fd, G, rows, columns, n_jobs, sort)

    def normalise(self, fd, S, train):
        """``1 - p`` (n, n_train), ``p = S / |S_x|`` (divided by its row's maximum with ``scaling="row_max"``);
        a zero diagonal for the training matrix."""
        n_oob = fd.oob_mask_.sum(axis=1).astype(np.float64) if train else np.full(S.shape[0],
                                                                                  float(fd.leaves_.shape[1]))
        P = np.divide(S, n_oob[:, None], out=np.zeros_like(S), where=n_oob[:, None] > 0)
        if train:
            np.fill_diagonal(P, 0.0)  # already 0: x_i is out-of-bag where it is counted
        if self.scaling == "row_max":
            mx = P.max(axis=1, keepdims=True)
            P = np.divide(P, mx, out=np.zeros_like(P), where=mx > 0)
        D = 1.0 - P
        if train:
            np.fill_diagonal(D, 0.0)
        return D


class PathLength(Measure):
    """Englund & Verikas path length: ``d = (1/T) sum_t (1 - exp(-w g_t))`` with ``g_t`` the number
    of edges between the two leaves in tree t (docs/algorithms.md §A.4, Eq. 4).  Symmetric, zero diagonal.

    Parameters
    ----------
    w : float, default=1.0
        Decay of ``1 - exp(-w g)`` (not given in the chapter).
    """

    name = "path"
    title = N_("Path length (Englund & Verikas)")
    reference = "§A.4"

    _parameter_constraints: dict = {"w": [Interval(numbers.Real, 0.0, float("inf"), closed="neither")]}

    def __init__(self, w=1.0):
        self.w = w

    def dissimilarity(self, fd, G, train, engine="auto", progress=None):
        """Mean over the trees of ``1 - exp(-w g_t)``, gathered from each tree's leaf-to-leaf path matrix at the
        leaves ``G`` (n, T) and the training leaves: shape (n, n_train), float32 (§A.4, Eq. 4); symmetrised with a
        zero diagonal for the training matrix."""
        T = fd.leaves_.shape[1]
        la_all = G - fd._leaf_offsets[None, :]
        lb_all = fd.leaves_ - fd._leaf_offsets[None, :]
        acc = np.zeros((G.shape[0], fd.leaves_.shape[0]), dtype=np.float64)
        part = np.zeros_like(acc, dtype=np.float32)
        flush = 32  # float32 partial sums over at most 32 trees, then float64
        for t, lay in enumerate(fd._layouts):
            E = lay.path_matrix(float(self.w))
            part += E.take(la_all[:, t], axis=0).take(lb_all[:, t], axis=1)
            if (t + 1) % flush == 0 or t == T - 1:
                acc += part
                part[...] = 0.0
                _report(progress, (t + 1) / T,
                        Message(N_("path lengths: tree {tree}/{trees}"), tree=t + 1, trees=int(T)))
        D = acc / T
        if train:
            D = 0.5 * (D + D.T)  # exact symmetry despite float32 partial sums
            np.fill_diagonal(D, 0.0)
        return np.clip(D, 0.0, 1.0).astype(np.float32)


def _grown(a: Optional[np.ndarray], used: int, size: int, dtype) -> np.ndarray:
    """An array of ``size`` with the first ``used`` values of ``a`` (None: nothing to keep), in a mapping of its own
    (:func:`mvlab.forest._leaf_product.mapped_empty`): a result's memory goes back to the system when the caller
    drops it, instead of staying in the C heap (20 MB more held over 20 blocks of 1,000 rows at 20,000 rows)."""
    out = mapped_empty(size, dtype)
    if a is not None:
        out[:used] = a[:used]
    return out


def _next_blocks(ends: np.ndarray, start: int, count: int, budget: float) -> list[slice]:
    """Up to ``count`` consecutive row blocks from ``start``, each holding at least one row and rows whose bounds
    (cumulative: ``ends``) add up to at most ``budget``."""
    blocks = []
    while start < ends.size and len(blocks) < count:
        before = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, before + budget, side="right")))
        blocks.append(slice(start, min(stop, ends.size)))
        start = blocks[-1].stop
    return blocks


def _restrict_columns(rows: SparseRows, columns: np.ndarray) -> SparseRows:
    """The stored entries of ``rows`` at ``columns`` (ascending), renumbered 0..len(columns)-1."""
    pos = np.searchsorted(columns, rows.cols)
    hit = (pos < columns.size) & (columns[np.minimum(pos, max(columns.size - 1, 0))] == rows.cols)
    r = rows.row_index()[hit]
    indptr = np.zeros(rows.n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=rows.n_rows), out=indptr[1:])
    return SparseRows(indptr, pos[hit], rows.values[hit], rows.background, int(columns.size))


MEASURES: dict[str, type[Measure]] = {m.name: m for m in (Breiman, PathLength, RFD, OOBProximity, RFGAP)}
"""Every measure by name, in the order the pages list them."""


def measure_spec(measure) -> dict:
    """A measure as plain JSON-able data, ``{"name": "rfd", "kdn_k": 7, "form": ...}`` (settings,
    store keys, downloads); :func:`resolve_measure` turns it back into the object."""
    m = resolve_measure(measure)
    return {"name": m.name, **m.get_params()}


def resolve_measure(measure) -> Measure:
    """A fresh (unfitted) measure object from a name, a :class:`Measure` or a :func:`measure_spec` dict.

    Raises
    ------
    ValueError
        An unknown name or an object that is not a :class:`Measure`.
    """
    if isinstance(measure, str):
        if measure not in MEASURES:
            raise ValueError(f"measure must be one of {list(MEASURES)} or a Measure object, got {measure!r}.")
        return MEASURES[measure]()
    if isinstance(measure, Measure):
        return clone(measure)
    if isinstance(measure, dict) and measure.get("name") in MEASURES:
        params = {k: v for k, v in measure.items() if k != "name"}
        try:
            return MEASURES[measure["name"]](**params)
        except TypeError:
            raise ValueError(f"measure {measure['name']!r} takes the parameters "
                             f"{sorted(MEASURES[measure['name']]().get_params())}, got {sorted(params)}.") from None
    raise ValueError(f"measure must be one of {list(MEASURES)} or a Measure object, got {type(measure).__name__}.")
