"""The views' dissimilarity rows of many instances, block by block, never an (n, n_train) matrix.

:class:`ViewRows` stands for the Q matrices ``D_q`` (n, n_train) of some rows (the training rows
themselves, with the out-of-bag semantics of ``train_dissimilarity_``, or new rows) and computes
from them, one block of rows at a time (memory bounded by ``block_entries`` stored entries per
view), the two things the large-data path of :class:`mvlab.rfd.classifier.RFDClassifier` needs:

* :meth:`ViewRows.scan` ``columns=``: the dense columns ``D_q[:, prototypes]`` (n, m) of every view,
  the dissimilarity space of the final forests (docs/algorithms.md §A.10);
* :meth:`ViewRows.scan` ``combos=``: the exact ``k`` nearest training rows of every row in the
  joint dissimilarity ``sum_q w_q D_q`` of each combination of views (SWknn's single views, a DVS
  candidate's average, the shared all-views average), ranked by ``(value, column)`` with the
  lowest-index tie rule, optionally without the row itself (leave-one-out): the regions of
  competence and the kNN of SWknn, identical to ``k_smallest_indices`` on the dense joint matrix.

Each block is the views' :meth:`mvlab.forest.dissimilarity.ForestDissimilarity.sparse_rows`
(stored entries plus a background of 1), so time and memory grow with the stored entries (a
few hundred per row), not with ``n * n_train``.  :class:`DenseViewRows` gives the same answers
from given dense matrices (``predict_proba_from_dissimilarities``, and the reference of the tests).
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from mvlab.core.neighbours import k_smallest_indices
from mvlab.core.sparse_rows import SparseRows, combine_sparse, k_smallest_sparse
from mvlab.core.threads import run_threads, worker_count
from mvlab.rfd.view_forests import combine

__all__ = ["ViewRows", "DenseViewRows", "BLOCK_ENTRIES", "BLOCK_BYTES_PER_ENTRY", "Combo", "subset_combo",
           "train_rows", "query_rows", "prototype_columns"]

BLOCK_ENTRIES = 1 << 20
"""Bound on the stored entries of one block of one view.  A block's temporaries take about
:data:`BLOCK_BYTES_PER_ENTRY` bytes per bound entry and view, and ``n_jobs`` blocks are in flight: 1M entries keep
that near 0.3 GB for 3 views on 2 threads (4M measured about 1 GB more at the peak of a 20,000-row DVS)."""

BLOCK_BYTES_PER_ENTRY = 50
"""Bytes of a block's temporaries per bound entry and view (the sparse product's work arrays, the normalised
entries, the union of the views and its sort): what :func:`mvlab.rfd.cost.estimate_cost` counts for row blocks."""

Combo = tuple[np.ndarray, np.ndarray]
"""A joint dissimilarity ``sum_q w_q D_q``: the views ``q`` (ascending) and their weights ``w_q``."""


def subset_combo(mask) -> Combo:
    """The combo of a DVS candidate: the selected views with weights ``1 / |w|`` (as
    :func:`mvlab.rfd.dvs.subset_dissimilarity`)."""
    sel = np.flatnonzero(np.asarray(mask, dtype=bool))
    return sel, np.full(sel.size, 1.0 / sel.size)


class ViewRows:
    """Dissimilarity rows of ``n_rows`` instances to the training rows, view by view, in blocks.

    Parameters
    ----------
    forests : list of fitted ForestDissimilarity (Q)
    views : list of Q column-index arrays
    X : ndarray (n_new, n_features) or None
        New rows (all columns); None = the training rows.
    n_jobs : int or None
        Threads over blocks (the result does not depend on it).
    block_entries : int
        Bound on the stored entries of one block of one view.
    train_subset : int array (n_rows,), optional
        With ``X=None``: only these training rows (in this order), with the training rows' semantics
        (out-of-bag trees, zero self-dissimilarity); e.g. the sample a figure draws.
    remember : bool
        Keep the answers of :meth:`scan`: a second scan with the same arguments (or asking only for
        columns that an earlier scan returned) costs nothing.  For query rows read by several
        combinations (:func:`mvlab.experiments.combinations.compare_combinations`).
    """

    def __init__(self, forests, views, X=None, n_jobs=None, block_entries: int = BLOCK_ENTRIES,
                 train_subset: Optional[np.ndarray] = None, remember: bool = False):
        self.forests = list(forests)
        self.train = X is None
        self.n_train = int(self.forests[0].leaves_.shape[0])
        self.subset = None
        if X is None:
            self.leaves = [f.leaves_ for f in self.forests]
            if train_subset is not None:
                self.subset = np.asarray(train_subset, dtype=np.int64)
                self.leaves = [G[self.subset] for G in self.leaves]
        else:
            if train_subset is not None:
                raise ValueError("train_subset selects training rows; it does not apply to new rows X.")
            X = np.asarray(X, dtype=np.float64)
            self.leaves = [f.leaves(X[:, v]) for f, v in zip(self.forests, views)]
        self.n_rows = int(self.leaves[0].shape[0])
        self.n_jobs = n_jobs
        self.block_entries = int(block_entries)
        self._answers = {} if remember else None

    @property
    def n_views(self) -> int:
        """Number of views, Q."""
        return len(self.forests)

    def blocks(self) -> list[slice]:
        """Row blocks whose stored entries stay under ``block_entries`` in every view (a bound:
        the sum over trees of the sizes of the row's leaves)."""
        bound = np.zeros(self.n_rows, dtype=np.int64)
        for f, G in zip(self.forests, self.leaves):
            size = np.bincount(f.leaves_.ravel(), minlength=f.n_leaves_)
            bound = np.maximum(bound, size[G].sum(axis=1, dtype=np.int64))
        if not self.n_rows:
            return []
        group = np.cumsum(bound) // max(self.block_entries, 1)  # greedy cut when the bound's sum passes a multiple
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        ends = np.r_[starts[1:], self.n_rows]
        return [slice(int(a), int(b)) for a, b in zip(starts, ends)]

    def sparse_block(self, rows: slice, columns: Optional[np.ndarray] = None) -> list[SparseRows]:
        """The Q views' :class:`SparseRows` of the rows ``rows``."""
        if self.train:
            idx = np.arange(rows.start, rows.stop) if self.subset is None else self.subset[rows]
            return [f.measure_.sparse_rows(f, G[rows], rows=idx, columns=columns)
                    for f, G in zip(self.forests, self.leaves)]
        return [f.measure_.sparse_rows(f, G[rows], rows=None, columns=columns)
                for f, G in zip(self.forests, self.leaves)]

    def map_blocks(self, fn: Callable[[slice, list[SparseRows]], None]) -> None:
        """Call ``fn(rows, sparse_rows_of_the_views)`` for every block, on ``n_jobs`` threads."""
        blocks = self.blocks()
        n_threads = max(1, min(worker_count(self.n_jobs), len(blocks)))
        run_threads([lambda b=b: fn(b, self.sparse_block(b)) for b in blocks], n_threads)

    def scan(self, columns: Optional[np.ndarray] = None, combos: Sequence[Combo] = (), k: int = 0,
             exclude_self: bool = False):
        """One pass over the blocks: prototype columns and exact neighbourhoods.

        Parameters
        ----------
        columns : ascending int array (m,), optional
            Training rows whose columns to return (prototypes).
        combos : list of :data:`Combo`
            Joint dissimilarities whose ``k`` nearest training rows to search.
        k : int
            Neighbours per row and combo.
        exclude_self : bool
            Leave-one-out on the training rows: row ``i`` is never its own neighbour.

        Returns
        -------
        cols : list of Q float32 arrays (n_rows, m), or None
            ``D_q[:, columns]``.
        idx : int64 array (len(combos), n_rows, k), or None
            ``k_smallest_indices(joint, k)`` of each combo (lowest index on ties).
        dist : float32 array (len(combos), n_rows, k), or None
            The joint dissimilarities at those neighbours.
        """
        if exclude_self and not self.train:
            raise ValueError("exclude_self applies to the training rows only.")
        if exclude_self and self.subset is not None:
            raise ValueError("exclude_self needs every training row in order (no train_subset).")
        if self._answers is None:
            return self._scan(columns, combos, k, exclude_self)
        key = (None if columns is None else np.asarray(columns).tobytes(),
               tuple((np.asarray(v).tobytes(), np.asarray(w, dtype=np.float64).tobytes()) for v, w in combos),
               int(k), bool(exclude_self))
        if key in self._answers:
            return self._answers[key]
        known = next((answer[0] for (c, *_), answer in self._answers.items()  # the columns of an earlier scan
                      if c is not None and c == key[0]), None)
        if known is not None:
            if not combos:
                return known, None, None
            _, idx, dist = self._scan(None, combos, k, exclude_self)  # only the neighbours; one copy of the columns
            self._answers[key] = (known, idx, dist)
        else:
            self._answers[key] = self._scan(columns, combos, k, exclude_self)
        return self._answers[key]

    def _scan(self, columns, combos, k, exclude_self):
        cols = None if columns is None else [np.empty((self.n_rows, len(columns)), np.float32)
                                             for _ in range(self.n_views)]
        P = len(combos)
        idx = np.empty((P, self.n_rows, k), dtype=np.int64) if P else None
        dist = np.empty((P, self.n_rows, k), dtype=np.float32) if P else None

        def block(rows: slice, sparse: list[SparseRows]) -> None:
            if cols is not None:
                for q, s in enumerate(sparse):
                    cols[q][rows] = s.take_columns(columns)
            exclude = np.arange(rows.start, rows.stop) if exclude_self else None
            for c, (views, weights) in enumerate(combos):
                joint = combine_sparse([sparse[q] for q in views], weights)
                idx[c, rows], dist[c, rows] = k_smallest_sparse(joint, k, exclude)

        self.map_blocks(block)
        return cols, idx, dist


class DenseViewRows:
    """:class:`ViewRows`'s :meth:`scan` on given dense matrices ``D_q`` (n, n_train)."""

    def __init__(self, dissimilarities: Sequence[np.ndarray], train: bool = False):
        self.Ds = [np.asarray(D) for D in dissimilarities]
        self.train = train
        self.n_rows, self.n_train = self.Ds[0].shape

    @property
    def n_views(self) -> int:
        """Number of views, Q."""
        return len(self.Ds)

    def scan(self, columns=None, combos=(), k=0, exclude_self=False):
        """:meth:`ViewRows.scan` on the dense matrices: the ``columns`` of every ``D_q`` and the ``k`` nearest
        training rows of each combo's joint matrix (lowest index on ties; ``exclude_self`` leaves out the diagonal)."""
        cols = None if columns is None else [np.ascontiguousarray(D[:, columns]) for D in self.Ds]
        P = len(combos)
        idx = np.empty((P, self.n_rows, k), dtype=np.int64) if P else None
        dist = np.empty((P, self.n_rows, k), dtype=np.float32) if P else None
        for c, (views, weights) in enumerate(combos):
            joint = combine([self.Ds[q] for q in views], weights)
            idx[c] = k_smallest_indices(joint, k, exclude_diagonal=exclude_self)
            dist[c] = np.take_along_axis(joint, idx[c], axis=1)
        return cols, idx, dist


def _sparse(view_forests) -> bool:
    return all(f.measure_.supports_sparse() for f in view_forests.forests)


def train_rows(view_forests, n_jobs=None):
    """The training rows of ``view_forests`` as a :class:`ViewRows` (blocks of sparse rows), or as a
    :class:`DenseViewRows` of the dense matrices for a measure without a sparse form."""
    if _sparse(view_forests):
        return ViewRows(view_forests.forests, view_forests.views, None, n_jobs=n_jobs)
    return DenseViewRows(view_forests.dissimilarities, train=True)


def query_rows(view_forests, X, n_jobs=None):
    """New rows ``X`` (n_new, n_features) as a :class:`ViewRows` (or a :class:`DenseViewRows` of
    ``view_forests.transform(X)`` for a measure without a sparse form)."""
    if _sparse(view_forests):
        return ViewRows(view_forests.forests, view_forests.views, X, n_jobs=n_jobs)
    return DenseViewRows(view_forests.transform(X, n_jobs=n_jobs))


def prototype_columns(dissimilarities, prototypes: Optional[np.ndarray]) -> list[np.ndarray]:
    """The views' columns at ``prototypes`` from per-view (n, n_train) matrices or a (Dense)ViewRows;
    the matrices themselves when ``prototypes`` is None (the exact space)."""
    if isinstance(dissimilarities, (ViewRows, DenseViewRows)):
        if prototypes is None:
            return dissimilarities.scan(np.arange(dissimilarities.n_train))[0]
        return dissimilarities.scan(prototypes)[0]
    if prototypes is None:
        return list(dissimilarities)
    return [np.asarray(D)[:, prototypes] for D in dissimilarities]
