"""k-smallest searches: the neighbours of every row of a dissimilarity matrix, ties broken by index.

Used by the kDN hardness of the RFD measure, SWknn's leave-one-out kNN and the DVS regions of
competence (docs/algorithms.md §A.5, §A.7.1, §A.8 line 10).  Every search ranks entries by
``(value, column index)``, so exact ties are broken by the lower index, deterministically.

Euclidean distances computed from data (kDN, OFSP's 1-NN) use :func:`k_nearest_tolerant`
instead: data rounded to a decimal grid (0.1, 0.03, ...) is not on a binary grid, so distances
that are equal in decimal arithmetic come out of floating point a few ulps apart (for 100 grid
values, 94 of the 100 distinct decimal distances have several floating-point values even for a
single feature), and "lowest index among exact ties" would in fact be decided by rounding.
There, two squared distances are tied when they differ by at most a tolerance
(:func:`distance_tie_tolerance`), far above rounding noise and far below the gaps between
genuinely different distances.
"""

from __future__ import annotations

import numpy as np

__all__ = ["k_smallest_mask", "k_smallest_indices", "k_smallest_indices_bounded", "TIE_RTOL",
           "distance_tie_tolerance", "k_nearest_tolerant", "squared_distances"]

TIE_RTOL = 1e-9
"""Relative tolerance of distance ties: squared distances closer than ``TIE_RTOL`` times the
squared diameter of the data (sum over features of the squared range) are ties."""


def distance_tie_tolerance(X: np.ndarray, rtol: float = TIE_RTOL) -> float:
    """Tolerance under which two squared Euclidean distances between rows of ``X`` are ties.

    ``rtol * sum_f (max_i X[i, f] - min_i X[i, f])**2``: a fraction of the largest squared
    distance two rows of ``X`` (n, f) can have, so it does not depend on a shift of the data.
    Rounding errors of squared distances of data stored with ~16 significant digits are about
    1e-16 of it (more with offsets larger than ~1e6 times the range, which this does not cover),
    and genuinely different distances are rarely closer than 1e-9 of it; 0 for constant data.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.size == 0:
        return 0.0
    span = X.max(axis=0) - X.min(axis=0)
    return float(rtol * np.dot(span, span))


def squared_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances (n_a, n_b) between the rows of ``A`` (n_a, f) and ``B`` (n_b, f).

    The ``|a|^2 + |b|^2 - 2 a.b`` (GEMM) form on data centred on the mean of ``B``, so that the
    cancellation error stays at the rounding level of the data's spread (about 1e-16 times
    f * span^2), not of its offset; clipped at 0. Accurate well within :data:`TIE_RTOL`.
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    c = B.mean(axis=0) if len(B) else 0.0
    A, B = A - c, B - c
    D = np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :] - 2.0 * (A @ B.T)
    np.maximum(D, 0.0, out=D)
    return D


def k_nearest_tolerant(D: np.ndarray, k: int, tol, exclude_diagonal: bool = False,
                       overwrite: bool = False) -> np.ndarray:
    """The ``k`` nearest columns of every row, where values within ``tol`` count as ties.

    Rule (one neighbour at a time): the next neighbour is the *lowest-index* remaining column
    whose value is within ``tol`` of the smallest remaining value. Exact ties therefore go to the
    lowest index, and so do values that differ only by rounding noise (data on a decimal grid).
    With ``tol = 0`` this is :func:`k_smallest_indices` (ranking by ``(value, column)``).

    Parameters
    ----------
    D : ndarray (..., n_cols)
        Squared distances; any leading shape (e.g. (n_candidates, n_test, n_train)).
    k : int, ``1 <= k <= n_cols`` (``n_cols - 1`` with ``exclude_diagonal``)
    tol : float or ndarray broadcastable to ``D.shape[:-1]``, >= 0
    exclude_diagonal : bool
        Never select entry ``(j, j)`` of a square 2-D ``D`` (leave-one-out on training rows).
    overwrite : bool
        Allow ``D`` (float64) to be used as scratch space (selected entries become ``inf``).

    Returns
    -------
    idx : ndarray of intp, shape ``D.shape[:-1] + (k,)``, in the order they were taken.
        Cost: k passes over ``D`` (a min, a comparison and an argmax each).
    """
    D = np.asarray(D)
    n_cols = D.shape[-1]
    limit = n_cols - (1 if exclude_diagonal else 0)
    if not 1 <= k <= limit:
        raise ValueError(f"k={k} must lie in [1, {limit}] for a matrix with {n_cols} columns.")
    tol = np.asarray(tol, dtype=np.float64)[..., None]
    if k == 1 and not exclude_diagonal:  # no scratch copy needed
        return np.argmax(D <= D.min(axis=-1, keepdims=True) + tol, axis=-1)[..., None]
    W = D if overwrite and D.dtype == np.float64 else np.array(D, dtype=np.float64, copy=True)
    if exclude_diagonal:
        np.fill_diagonal(W, np.inf)
    idx = np.empty(W.shape[:-1] + (k,), dtype=np.intp)
    for s in range(k):
        j = np.argmax(W <= W.min(axis=-1, keepdims=True) + tol, axis=-1)
        idx[..., s] = j
        np.put_along_axis(W, j[..., None], np.inf, axis=-1)
    return idx


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
        This is the region of competence of docs/algorithms.md §A.8 line 10.
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
