"""Rows of a dissimilarity matrix kept sparse: a few stored entries per row, one background value.

A forest dissimilarity row ``d(x, .)`` over the training instances has the value 1 ("no shared
leaf") at every training instance that never shares a leaf with ``x``; only the instances that do
(a few hundred per row for fully grown trees, whatever ``n_train``) carry another value.
:class:`SparseRows` stores those entries (CSR layout, columns ascending in each row) and the
*background* value of every other column, so that an ``(n, n_train)`` block costs memory in its
stored entries, not in ``n * n_train``.

Three operations are exact, i.e. give bit for bit what the same operation gives on the dense
matrix (:meth:`SparseRows.to_dense`), which the tests check:

* :func:`combine_sparse`: ``float32(sum_q w_q float64(D_q))`` in view order, as
  :func:`mvlab.rfd.view_forests.combine` computes it on dense matrices (stored entries of the
  union of the views' patterns; background ``combine`` of the backgrounds);
* :func:`k_smallest_sparse`: the ``k`` smallest entries of every row ranked by ``(value, column)``
  (the lowest-index tie rule of :func:`mvlab.core.neighbours.k_smallest_indices`), optionally
  without one column per row (leave-one-out), in ``O(stored entries + n k)``: a stored value
  below the background is ranked among the stored entries; every other column has the
  background value (the largest value of the row, see below), so the rest of the row is filled
  with the lowest column indices not already taken;
* :meth:`SparseRows.take_columns`: the dense sub-matrix of some columns (prototypes).

The background must be the largest value of its rows (every stored value ``<= background``): true
of the forest dissimilarities, which lie in [0, 1] with background 1, and kept by non-negative
weighted sums (rounding is monotone).  :func:`k_smallest_sparse` checks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

__all__ = ["SparseRows", "combine_sparse", "k_smallest_sparse", "SELECTION_BINS"]


@dataclass
class SparseRows:
    """``n_rows`` rows of an ``(n_rows, n_cols)`` matrix: stored entries plus one background value.

    Attributes
    ----------
    indptr : ndarray of int64, shape (n_rows + 1,)
        Row ``r``'s entries are ``cols[indptr[r]:indptr[r + 1]]`` (ascending, unless the rows were asked
        for with ``sort=False``: every operation here accepts any order) and the same slice of ``values``.
    cols : ndarray of int32 or int64, shape (nnz,)
        (int32 from the forest measures: 4 bytes an entry, half the memory of int64.)
    values : ndarray of float32, shape (nnz,)
    background : float
        The value (a float32 number) of every column of a row that is not stored.
    n_cols : int
    """

    indptr: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    background: float
    n_cols: int

    @property
    def n_rows(self) -> int:
        """Number of rows, ``len(indptr) - 1``."""
        return int(self.indptr.shape[0] - 1)

    @property
    def nnz(self) -> int:
        """Number of stored entries."""
        return int(self.cols.shape[0])

    def row_index(self) -> np.ndarray:
        """Row of every stored entry, shape (nnz,)."""
        return np.repeat(np.arange(self.n_rows, dtype=np.int64), np.diff(self.indptr))

    def to_dense(self) -> np.ndarray:
        """The dense float32 matrix (n_rows, n_cols)."""
        out = np.full((self.n_rows, self.n_cols), np.float32(self.background), dtype=np.float32)
        out[self.row_index(), self.cols] = self.values
        return out

    def take_columns(self, columns: np.ndarray) -> np.ndarray:
        """Dense float32 sub-matrix ``to_dense()[:, columns]`` (n_rows, len(columns)), without the
        dense matrix.  ``columns`` must be ascending and distinct."""
        columns = np.asarray(columns, dtype=np.int64)
        out = np.full((self.n_rows, columns.size), np.float32(self.background), dtype=np.float32)
        if columns.size == 0 or self.nnz == 0:
            return out
        pos = np.searchsorted(columns, self.cols)
        hit = (pos < columns.size) & (columns[np.minimum(pos, columns.size - 1)] == self.cols)
        out[self.row_index()[hit], pos[hit]] = self.values[hit]
        return out


def _keys(rows: SparseRows) -> np.ndarray:
    return rows.row_index() * np.int64(rows.n_cols) + rows.cols


def combine_sparse(rows: Sequence[SparseRows], weights: Sequence[float]) -> SparseRows:
    """``float32(sum_q w_q float64(D_q))`` of sparse rows, bit for bit as on the dense matrices.

    Parameters
    ----------
    rows : Q :class:`SparseRows` of the same shape
    weights : Q non-negative floats (applied in the given order)

    Returns
    -------
    SparseRows
        Stored where any view stores an entry (the union of the patterns), background
        ``float32(sum_q w_q background_q)``.
    """
    first = rows[0]
    n_rows, n_cols = first.n_rows, first.n_cols
    keys = [_keys(r) for r in rows]
    union = np.sort(np.concatenate(keys), kind="stable")  # sorted runs: the stable sort merges them
    if union.size:
        union = union[np.r_[True, union[1:] != union[:-1]]]
    acc = np.zeros(union.shape[0], dtype=np.float64)
    background = 0.0
    for wq, r, kq in zip(np.asarray(weights, dtype=np.float64), rows, keys):
        v = np.full(union.shape[0], np.float64(np.float32(r.background)))
        v[np.searchsorted(union, kq)] = r.values
        acc += wq * v  # the operations of combine(): out += w_q * float64(D_q)
        background += wq * np.float64(np.float32(r.background))
    row_of = union // np.int64(max(n_cols, 1))
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of, minlength=n_rows), out=indptr[1:])
    return SparseRows(indptr, union - row_of * n_cols, acc.astype(np.float32), float(np.float32(background)), n_cols)


SELECTION_BINS = 1024
"""Bins of the per-row value histograms of :func:`k_smallest_sparse` (1/1024 of the value range each: the
dissimilarities of a forest of up to 1,024 trees, multiples of 1/T, fall one level per bin)."""


def _selection_candidates(rows: SparseRows, k: int, exclude: Optional[np.ndarray]):
    """``(row, column, value)`` of the stored entries below the background (without each row's excluded
    column) that can be among the row's ``k`` smallest: those whose bin is at most the bin of the row's k-th
    smallest value.  Row by row."""
    n = rows.n_rows
    counts = np.diff(rows.indptr)
    bg = np.float32(rows.background)
    r = np.repeat(np.arange(n, dtype=np.int32), counts)  # 32-bit temporaries: a block's entries are many
    if rows.nnz == 0:
        return r.astype(np.int64), rows.cols, rows.values
    low = np.float32(rows.values.min())
    scale = np.float32((SELECTION_BINS - 1) / max(float(bg) - float(low), np.finfo(np.float32).tiny))
    t = rows.values - low
    t *= scale
    np.minimum(t, np.float32(SELECTION_BINS - 1), out=t)
    bins = t.astype(np.int32)  # monotone in the value
    del t
    bins[rows.values >= bg] = SELECTION_BINS  # the background is never a candidate: a bin past the last
    if exclude is not None:
        bins[rows.cols == np.repeat(np.asarray(exclude, dtype=rows.cols.dtype), counts)] = SELECTION_BINS
    width = SELECTION_BINS + 1
    last = np.empty(n, dtype=np.int32)  # per row, the bin of its k-th smallest value (the last bin if short)
    step = max(1, (1 << 20) // width)  # histograms of 1M counts at a time
    ends = np.searchsorted(r, np.arange(0, n + step, step))  # r ascends: the entries of each chunk of rows
    for i, a in enumerate(range(0, n, step)):
        m, lo, hi = min(step, n - a), ends[i], ends[i + 1]
        key = r[lo:hi] - np.int32(a)
        key *= np.int32(width)
        key += bins[lo:hi]
        hist = np.bincount(key, minlength=m * width).reshape(m, width)[:, :SELECTION_BINS]
        reached = np.cumsum(hist, axis=1) >= k
        last[a:a + m] = np.where(reached.any(axis=1), reached.argmax(axis=1), SELECTION_BINS - 1)
    sel = bins <= last[r]
    return r[sel].astype(np.int64), rows.cols[sel], rows.values[sel]


def k_smallest_sparse(rows: SparseRows, k: int, exclude: Optional[np.ndarray] = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` smallest entries of every row, ranked by ``(value, column)``, and their values.

    Equal to ``k_smallest_indices(rows.to_dense(), k)`` (with ``exclude``: the dense row where
    column ``exclude[r]`` is ``+inf``), in ``O(nnz + n_rows * k)`` time and memory: a histogram of
    every row's values (:data:`SELECTION_BINS` bins, a monotone map of the value) gives the bin of its
    ``k``-th smallest, and only the entries up to that bin (the k smallest and their ties, a few
    dozen per row) are sorted, by ``(row, value, column)`` (the columns need not ascend in the rows).

    Parameters
    ----------
    rows : SparseRows
        Every stored value ``<= rows.background``.
    k : int
        ``1 <= k <= n_cols`` (``n_cols - 1`` with ``exclude``).
    exclude : ndarray of int (n_rows,), optional
        A column never selected in each row (the row itself, leave-one-out); -1 = none.

    Returns
    -------
    idx : ndarray of int64 (n_rows, k)
    values : ndarray of float32 (n_rows, k)
    """
    n, n_cols = rows.n_rows, rows.n_cols
    limit = n_cols - (1 if exclude is not None else 0)
    if not 1 <= k <= limit:
        raise ValueError(f"k={k} must lie in [1, {limit}] for a matrix with {n_cols} columns.")
    bg = np.float32(rows.background)
    if rows.nnz and rows.values.max() > bg:
        raise ValueError("a stored value exceeds the background value; the sparse k-smallest search needs "
                         "the background to be the largest value of every row.")
    r, c, v = _selection_candidates(rows, k, exclude)
    # sort the candidates by (row, value, column): the columns need not ascend within the rows
    bits = (v + np.float32(0.0)).view(np.int32)
    ordered = (bits ^ ((bits >> 31) & 0x7FFFFFFF)).astype(np.int64) + 2**31
    order = np.lexsort((c, (r << 32) | ordered))
    r, c, v = r[order], c[order], v[order]
    counts = np.bincount(r, minlength=n)
    first = np.cumsum(counts) - counts
    rank = np.arange(r.shape[0]) - first[r]
    sel = rank < k
    idx = np.empty((n, k), dtype=np.int64)
    val = np.full((n, k), bg, dtype=np.float32)
    idx[r[sel], rank[sel]] = c[sel]
    val[r[sel], rank[sel]] = v[sel]
    short = np.flatnonzero(counts < k)
    if short.size:  # fill with the lowest columns not taken (all have the background value)
        width = min(n_cols, 2 * k + 1)  # at most k - 1 strict entries and 1 excluded column precede them
        cand = np.broadcast_to(np.arange(width, dtype=np.int64), (short.size, width))
        n_strict = counts[short]
        taken = np.where(np.arange(k)[None, :] < n_strict[:, None], idx[short], -1)
        blocked = (cand[:, :, None] == taken[:, None, :]).any(axis=2)
        if exclude is not None:
            blocked |= cand == np.asarray(exclude, dtype=np.int64)[short, None]
        free_rank = np.cumsum(~blocked, axis=1) - 1 + n_strict[:, None]
        take = ~blocked & (free_rank < k)
        rr, cc = np.nonzero(take)
        idx[short[rr], free_rank[rr, cc]] = cand[rr, cc]
    return idx, val
