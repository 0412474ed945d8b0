"""Regions of competence of every DVS candidate at once (docs/algorithms.md §A.8 lines 9-10).

The definition is the one of :mod:`mvlab.rfd.dvs`: for candidate ``w`` and a query row, the joint
row ``d_w = subset_dissimilarity(D, w)`` (the float32 matrix the candidate's forest sees) and
its ``k`` smallest entries, ranked by value and then by training index
(:func:`mvlab.core.neighbours.k_smallest_indices`).  :func:`candidate_regions` returns exactly those
regions for all ``P = 2^Q - 1`` candidates, with three savings over a loop over candidates:

* **Shared sums.**  Candidates of the same size ``s`` share the terms ``(1/s) D_q``; taken in
  lexicographic order of their views they also share the partial sums of common prefixes,
  so a candidate costs about one addition instead of ``|w|`` multiply-adds.  The operations
  and their order are those of :func:`mvlab.rfd.view_forests.combine`, so the float32 rows are
  bit-identical (checked in the tests).
* **Bounds instead of partitions.**  Candidates are processed from the largest subsets down.
  The regions already found for the candidates with one more view name at least ``k``
  distinct training instances; the k-th smallest value of ``d_w`` over them bounds the k-th
  smallest value of the whole row, so only the entries under that bound are ranked
  (:func:`mvlab.core.neighbours.k_smallest_indices_bounded`: one comparison pass and a sort of a
  few entries per row, instead of a partition of every row).  On mfeat about 10 entries per
  row fall under the bound for k = 7.  Candidates without such a superset in the pool (the
  all-views candidate) use the partition.
* **Blocks of rows on threads.**  Query rows are processed in blocks small enough for the
  float64 sums to stay in cache, on ``n_jobs`` threads (numpy's kernels release the GIL).

With ``exclude_self=True`` the query rows are the training rows themselves (the square training
matrices): row ``i`` never has itself in its region, as ``k_smallest_indices(..., exclude_diagonal=True)``.
These are the leave-one-out regions of the training replay (:class:`mvlab.rfd.dvs.DVSCombiner`, §A.8
``view_weights_``): one pass for the whole pool at fit time instead of a partition of every candidate's
(n_train, n_train) matrix.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from mvlab.core.neighbours import k_smallest_indices, k_smallest_indices_bounded
from mvlab.core.threads import run_threads, worker_count

__all__ = ["joint_rows", "candidate_regions"]

BLOCK_ELEMENTS = 1 << 18
"""Query rows per block x training instances (2 MB of float64 per view and partial sum)."""

MIN_BLOCK_ELEMENTS = 1 << 16
"""Blocks are not split for threads below this size: per-candidate overheads would dominate."""


class _Workspace:
    """Work buffers of one thread, reused for every block (fresh n x n_train temporaries
    cost more in page faults than the arithmetic on them)."""

    def __init__(self, n_views: int, depth: int, rows: int, n_train: int):
        self.d64 = np.empty((n_views, rows, n_train), dtype=np.float64)
        self.terms = np.empty((n_views, rows, n_train), dtype=np.float64)
        self.prefix = np.empty((max(depth, 1), rows, n_train), dtype=np.float64)
        self.joint = np.empty((rows, n_train), dtype=np.float32)


def _sum_plan(subsets: np.ndarray) -> list[tuple[int, float, list[tuple[int, int, int]]]]:
    """The order and the additions of :func:`_iter_joint_rows`, the same for every block.

    One entry per size s, largest first: ``(s, weight, steps)``; a step ``(c, q, i)`` adds the
    term of view ``q`` at depth ``i`` of the current prefix, and ``c >= 0`` marks the last
    addition of candidate ``c`` (its joint row is then complete).
    """
    views_of = [tuple(int(q) for q in np.flatnonzero(row)) for row in subsets]
    sizes = subsets.sum(axis=1)
    plan = []
    for s in np.unique(sizes)[::-1]:
        steps: list[tuple[int, int, int]] = []
        prefix: list[int] = []  # views of the partial sums currently held
        for c in sorted(np.flatnonzero(sizes == s), key=lambda c: views_of[c]):
            views = views_of[c]
            common = 0
            while common < min(len(prefix), len(views) - 1) and prefix[common] == views[common]:
                common += 1
            del prefix[common:]
            for i in range(common, len(views)):
                last = i == len(views) - 1
                steps.append((int(c) if last else -1, views[i], i))
                if not last:
                    prefix.append(views[i])
        plan.append((int(s), float(np.full(1, 1.0 / s)[0]), steps))  # combine()'s np.full(s, 1/s)
    return plan


def _iter_joint_rows(Ds, rows: slice, plan, ws: _Workspace):
    """Yield ``(c, d_w)`` for every candidate in the order of ``plan`` (largest subsets first).

    ``d_w`` (n_rows, n_train) float32 is a reused buffer, valid until the next step.  It equals
    ``subset_dissimilarity(Ds, subsets[c])[rows]`` bit for bit: the same float64 operations in
    the same order as :func:`mvlab.rfd.view_forests.combine` (``0 + t`` is ``t`` for ``t >= 0``, and a
    weight of 1 leaves a view unchanged).
    """
    nb = rows.stop - rows.start
    for q, D in enumerate(Ds):
        np.copyto(ws.d64[q, :nb], D[rows])
    for s, weight, steps in plan:
        terms = ws.d64 if s == 1 else ws.terms
        done: set[int] = set()
        partial: dict[int, np.ndarray] = {}  # depth -> partial sum of the current prefix
        for c, q, i in steps:
            if s > 1 and q not in done:
                np.multiply(weight, ws.d64[q, :nb], out=ws.terms[q, :nb])
                done.add(q)
            if c < 0:  # a partial sum shared by the next candidates (depth 0: the term itself)
                partial[i] = terms[q, :nb] if i == 0 else np.add(partial[i - 1], terms[q, :nb], out=ws.prefix[i, :nb])
                continue
            # the last term: float64 addition, then rounding to float32 in the same pass
            if i == 0:
                np.copyto(ws.joint[:nb], terms[q, :nb], casting="same_kind")
            else:
                np.add(partial[i - 1], terms[q, :nb], out=ws.joint[:nb], casting="same_kind")
            yield c, ws.joint[:nb]


def joint_rows(Ds: Sequence[np.ndarray], subsets: np.ndarray) -> list[np.ndarray]:
    """Joint rows of every candidate, identical to ``subset_dissimilarity(Ds, subsets[c])``.

    Parameters
    ----------
    Ds : Q arrays, each (n_rows, n_train)
        The views' rows.
    subsets : bool array (P, Q)
        Candidate ``c`` averages the views ``q`` with ``subsets[c, q]``.

    Returns
    -------
    list of P float32 arrays (n_rows, n_train)
        ``float32(sum_{q in w, ascending} (1/|w|) D_q)``, accumulated left to right in float64
        as :func:`mvlab.rfd.view_forests.combine` does.
    """
    subsets = np.asarray(subsets, dtype=bool)
    n, n_train = np.shape(Ds[0])
    ws = _Workspace(len(Ds), int(subsets.sum(axis=1).max()) - 1, n, n_train)
    out: list[Optional[np.ndarray]] = [None] * subsets.shape[0]
    for c, dw in _iter_joint_rows(Ds, slice(0, n), _sum_plan(subsets), ws):
        out[c] = dw.copy()
    return out  # type: ignore[return-value]


def _supersets(subsets: np.ndarray) -> list[list[int]]:
    """For every candidate, the candidates of the pool with exactly one more view."""
    Q = subsets.shape[1]
    codes = subsets.astype(np.int64) @ (np.int64(1) << np.arange(Q, dtype=np.int64))
    index = {int(code): c for c, code in enumerate(codes)}
    return [
        [index[int(code) | (1 << q)] for q in range(Q) if not subsets[c, q] and int(code) | (1 << q) in index]
        for c, code in enumerate(codes)
    ]


def _kth_over_columns(dw: np.ndarray, cols: np.ndarray, k: int) -> np.ndarray:
    """k-th smallest of ``dw[r, cols[r]]`` over the *distinct* columns of each row, shape (n_rows,)."""
    cols = np.sort(cols, axis=1)
    vals = np.take_along_axis(dw, cols, axis=1)
    vals[:, 1:][cols[:, 1:] == cols[:, :-1]] = np.inf  # a repeated column counts once
    return np.partition(vals, k - 1, axis=1)[:, k - 1]


def candidate_regions(
    Ds: Sequence[np.ndarray],
    subsets: np.ndarray,
    k: int,
    n_jobs: Optional[int] = None,
    with_dissimilarities: bool = False,
    block_elements: int = BLOCK_ELEMENTS,
    exclude_self: bool = False,
) -> tuple[np.ndarray, Optional[np.ndarray]]:
    """Region of competence of every candidate for every query row (§A.8 line 10).

    Parameters
    ----------
    Ds : Q arrays, each (n_rows, n_train)
        The views' dissimilarity rows of the query instances.
    subsets : bool array (P, Q)
    k : int
        Region size, ``1 <= k <= n_train``.
    n_jobs : int or None
        Threads over blocks of rows (joblib convention).  The result does not depend on it.
    with_dissimilarities : bool
        Also return the joint dissimilarities of the regions.
    block_elements : int
        Query rows per block times ``n_train`` (memory and cache size of a block).
    exclude_self : bool
        The query rows are the training rows (``Ds`` square): leave row ``i`` out of its own region
        (leave-one-out); then ``1 <= k <= n_train - 1``.

    Returns
    -------
    regions : int64 array (P, n_rows, k)
        ``regions[c, i]`` = ``k_smallest_indices(subset_dissimilarity(Ds, subsets[c]), k,
        exclude_diagonal=exclude_self)[i]``.
    region_d : float32 array (P, n_rows, k) or None
        The joint dissimilarities at those training instances.
    """
    subsets = np.asarray(subsets, dtype=bool)
    P = subsets.shape[0]
    n, n_train = np.shape(Ds[0])
    if exclude_self and n != n_train:
        raise ValueError(f"exclude_self needs the training rows themselves, a square matrix per view; got "
                         f"{n} rows for {n_train} training instances.")
    limit = n_train - 1 if exclude_self else n_train
    if not 1 <= k <= limit:
        raise ValueError(f"k={k} must lie in [1, {limit}] (the number of training instances"
                         f"{', less the row itself' if exclude_self else ''}).")
    supersets = _supersets(subsets)
    regions = np.empty((P, n, k), dtype=np.int64)
    region_d = np.empty((P, n, k), dtype=np.float32) if with_dissimilarities else None
    n_threads = max(1, min(worker_count(n_jobs), n))
    rows_per_block = max(1, min(block_elements // max(n_train, 1), n))
    if n_threads > 1:  # two blocks per thread, unless blocks would get so small that overheads win
        split = max(1, -(-n // (2 * n_threads)))
        rows_per_block = min(rows_per_block, max(split, MIN_BLOCK_ELEMENTS // max(n_train, 1)))
    n_threads = min(n_threads, -(-n // rows_per_block)) if n else 1
    blocks = [slice(a, min(a + rows_per_block, n)) for a in range(0, n, rows_per_block)]
    depth = int(subsets.sum(axis=1).max()) - 1
    plan = _sum_plan(subsets)

    def worker(first: int) -> None:
        ws = _Workspace(len(Ds), depth, rows_per_block, n_train)
        for rows in blocks[first::n_threads]:
            own = (np.arange(rows.stop - rows.start), np.arange(rows.start, rows.stop))  # (row, its own column)
            for c, dw in _iter_joint_rows(Ds, rows, plan, ws):  # supersets come first
                if exclude_self:  # dw is this candidate's fresh copy: no later sum reads it
                    dw[own] = np.inf
                if supersets[c]:
                    cols = np.concatenate([regions[p, rows] for p in supersets[c]], axis=1)
                    reg = k_smallest_indices_bounded(dw, k, _kth_over_columns(dw, cols, k))
                else:
                    reg = k_smallest_indices(dw, k)
                regions[c, rows] = reg
                if region_d is not None:
                    region_d[c, rows] = np.take_along_axis(dw, reg, axis=1)

    run_threads([lambda t=t: worker(t) for t in range(n_threads)], n_threads)
    return regions, region_d
