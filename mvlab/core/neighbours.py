"""k-smallest searches: the neighbours of every row of a dissimilarity matrix, ties broken by index.

Used by the kDN hardness of the RFD measure, SWknn's leave-one-out kNN and the DVS regions of
competence (ALGORITHMS.md §A.5, §A.7.1, §A.8 line 10).  Every search ranks entries by
``(value, column index)``, so exact ties are broken by the lower index, deterministically.
"""

from __future__ import annotations

import numpy as np

__all__ = ["k_smallest_mask", "k_smallest_indices", "k_smallest_indices_bounded"]


def k_smallest_mask(D: np.ndarray, k: int, exclude_diagonal: bool = False) -> np.ndarray:
    """Boolean mask of the ``k`` smallest entries of every row, ties broken by column index.

    Parameters
    ----------
    D : ndarray of shape (n_rows, n_cols)
        Distances or dissimilarities (any real dtype; ``+inf`` allowed).
    k : int
        Neighbours per row, ``1 <= k <= n_cols`` (``n_cols - 1`` with ``exclude_diagonal``).
    exclude_diagonal : bool
        Never select entry ``(j, j)`` (leave-one-out on a square training matrix).

    Returns
    -------
    mask : ndarray of bool, shape (n_rows, n_cols)
        Exactly ``k`` True entries per row: the entries ranked first by ``(value, column)``.
        Vectorised: one ``np.partition`` for the k-th value, then the entries equal to it
        are taken in column order with a cumulative count (no sort of whole rows).
    """
    D = np.asarray(D)
    if exclude_diagonal:
        D = np.array(D, dtype=np.float64 if D.dtype.kind != "f" else D.dtype, copy=True)
        np.fill_diagonal(D, np.inf)
    n_rows, n_cols = D.shape
    limit = n_cols - (1 if exclude_diagonal else 0)
    if not 1 <= k <= limit:
        raise ValueError(f"k={k} must lie in [1, {limit}] for a matrix with {n_cols} columns.")
    kth = np.partition(D, k - 1, axis=1)[:, k - 1]
    less = D < kth[:, None]
    n_less = less.sum(axis=1)
    equal = D == kth[:, None]
    take = equal & (np.cumsum(equal, axis=1) <= (k - n_less)[:, None])
    return less | take


def k_smallest_indices(D: np.ndarray, k: int, exclude_diagonal: bool = False) -> np.ndarray:
    """Column indices of the ``k`` smallest entries of every row, ordered by (value, index).

    Parameters
    ----------
    D : ndarray of shape (n_rows, n_cols)
    k : int
    exclude_diagonal : bool
        See :func:`k_smallest_mask`.

    Returns
    -------
    idx : ndarray of int64, shape (n_rows, k)
        ``idx[r, 0]`` is the nearest column of row ``r`` (smallest value, lowest index on ties).
        This is the region of competence of ALGORITHMS.md §A.8 line 10.
    """
    D = np.asarray(D)
    mask = k_smallest_mask(D, k, exclude_diagonal=exclude_diagonal)
    cols = np.nonzero(mask)[1].reshape(D.shape[0], k)  # ascending column index per row
    vals = np.take_along_axis(D, cols, axis=1)
    order = np.argsort(vals, axis=1, kind="stable")  # stable: ties keep column order
    return np.take_along_axis(cols, order, axis=1).astype(np.int64)


def _row_value_keys(rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Keys ordered as ``(row, value)`` pairs: a stable sort of them equals ``lexsort((values, rows))``.

    float32 values are packed with their row into one int64 (the IEEE bits, mapped to an
    order-preserving integer; ``-0.0`` is folded onto ``+0.0`` first, as ``==`` does); other
    dtypes fall back to the two-key lexsort order.
    """
    if values.dtype != np.float32 or rows.size == 0 or rows.max() >= 2**31:
        return np.lexsort((values, rows)).argsort(kind="stable")
    bits = (values + np.float32(0.0)).view(np.int32)
    ordered = (bits ^ ((bits >> 31) & 0x7FFFFFFF)).astype(np.int64) + 2**31  # in [0, 2**32)
    return (rows.astype(np.int64) << 32) | ordered


def k_smallest_indices_bounded(D: np.ndarray, k: int, bound: np.ndarray) -> np.ndarray:
    """:func:`k_smallest_indices` when an upper bound of every row's k-th smallest value is known.

    Only the entries ``D[r, j] <= bound[r]`` are looked at: one comparison pass over ``D``
    and a sort of the (few) entries under the bound, instead of a partition of every row.
    The result is identical to ``k_smallest_indices(D, k)`` (ranked by value, then column).

    Parameters
    ----------
    D : ndarray of shape (n_rows, n_cols)
    k : int
    bound : ndarray of shape (n_rows,)
        ``bound[r] >=`` the k-th smallest value of row ``r``, for instance the largest value
        of the row at any k distinct columns.

    Returns
    -------
    idx : ndarray of int64, shape (n_rows, k)

    Raises
    ------
    ValueError
        When a row has fewer than k entries under its bound (the bound is not valid).
    """
    D = np.asarray(D)
    n_rows, n_cols = D.shape
    flat = np.flatnonzero(D <= np.asarray(bound)[:, None])  # row-major: by row, then column
    rows = flat // n_cols
    counts = np.bincount(rows, minlength=n_rows)
    if n_rows and counts.min() < k:
        raise ValueError(f"the bound of row {int(np.argmin(counts))} is below its k-th smallest value (k={k}).")
    order = np.argsort(_row_value_keys(rows, D.ravel()[flat]), kind="stable")  # ties keep column order
    first = np.cumsum(counts) - counts
    picked = flat[order[first[:, None] + np.arange(k)]]
    return (picked - (picked // n_cols) * n_cols).astype(np.int64)
