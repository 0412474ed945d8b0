"""The fast paths of the forest proximities (issue 54) against slow, obviously correct references.

The sorted float32 product, the row blocks of ``sparse_rows`` and their assembly, the diagonal found inside the
product, the locality order of the reference, the dense matrices made from the sparse rows, the popcount of the
out-of-bag normalisation over several 64-bit words and the histogram selection of the k smallest entries.  Each
test says in its docstring how the code was broken to see it fail.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

import mvlab.forest.measures as measures_module
from mvlab.core.neighbours import k_smallest_indices
from mvlab.core.sparse_rows import SELECTION_BINS, SparseRows, k_smallest_sparse
from mvlab.forest import _leaf_product
from mvlab.forest._leaf_product import leaf_incidence, product_sorted, reference_incidence
from mvlab.forest.dissimilarity import ForestDissimilarity
from mvlab.forest.measures import RFGAP

ATOL = 2e-6  # float32 output


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=90, n_features=6, n_informative=4, n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, random_state=5)
    return X[:70], y[:70], X[70:]


# ----------------------------------------------------------------------------- slow references
def ref_proximity(fd, G, train):
    """``p`` = 1 - d of rows with leaves ``G`` to the training rows, by a loop over pairs and trees."""
    L, oob, counts, T = fd.leaves_, fd.oob_mask_, fd.in_bag_counts_, fd.leaves_.shape[1]
    n, m = G.shape[0], L.shape[0]
    P = np.zeros((n, m))
    name = fd.measure_.name
    for a in range(n):
        for b in range(m):
            if name == "breiman":
                P[a, b] = sum(G[a, t] == L[b, t] for t in range(T)) / T
            elif name == "oob":
                common = [t for t in range(T) if oob[b, t] and (not train or oob[a, t])]
                P[a, b] = sum(G[a, t] == L[b, t] for t in common) / len(common) if common else 0.0
            else:  # rfgap
                trees = [t for t in range(T) if not train or oob[a, t]]
                total = 0.0
                for t in trees:
                    if G[a, t] == L[b, t]:
                        total += counts[b, t] / sum(counts[j, t] for j in range(m) if L[j, t] == G[a, t])
                P[a, b] = total / len(trees) if trees else 0.0
    if train:
        np.fill_diagonal(P, 1.0)  # d(x_i, x_i) = 0 for every measure here
    return P


def fitted(data, measure, trees=12, **kw):
    X, y, _ = data
    return ForestDissimilarity(measure, n_estimators=trees, random_state=2, dense_max_rows=0, **kw).fit(X, y)


# ----------------------------------------------------------------------------- the product
@pytest.mark.parametrize("weighted", [False, True])
def test_sorted_product_is_the_public_product(weighted):
    """``product_sorted`` gives scipy's ``A @ BT`` with every row's columns ascending, renamed by a column map,
    and the same entries unsorted with ``sort=False``.  Fails when the second transposition is left out (returning
    the transposed arrays: wrong shape and order; tried)."""
    rng = np.random.default_rng(0)
    G = rng.integers(0, 9, size=(40, 5)) + np.arange(5) * 9
    W = rng.random((40, 5)).astype(np.float32) * (rng.random((40, 5)) > 0.3) if weighted else None
    A = leaf_incidence(G[:17], 45, None if W is None else W[:17])
    order = rng.permutation(40).astype(np.int32)
    BT = reference_incidence(G[order], 45, None if W is None else W[order])
    want = (leaf_incidence(G[:17], 45, None if W is None else W[:17]).astype(np.float64)
            @ leaf_incidence(G, 45, W).astype(np.float64).T).toarray()
    indptr, cols, vals = product_sorted(A, BT, column_map=order)
    assert cols.dtype == np.int32 and indptr.shape == (18,)
    got = sp.csr_matrix((vals, cols, indptr), shape=(17, 40))
    for r in range(17):
        assert np.all(np.diff(cols[indptr[r]:indptr[r + 1]]) > 0)
    np.testing.assert_allclose(got.toarray(), want, rtol=1e-6)
    indptr_u, cols_u, vals_u = product_sorted(A, BT, column_map=order, sort=False)
    np.testing.assert_allclose(sp.csr_matrix((vals_u, cols_u, indptr_u), shape=(17, 40)).toarray(), want, rtol=1e-6)


@pytest.mark.parametrize("per_chunk", [1, 2, 8])
def test_reference_built_tree_by_tree_is_the_transpose(per_chunk):
    """The reference built a few trees at a time (a forest's leaf ids: one range per tree, with unused ids between
    the ranges) and built in one piece (ranges out of order) are the transpose of the one-hot matrix, own columns
    included, zero weights dropped.  Fails when a chunk's rows are placed one leaf off (``counts[first + 1:...]``,
    tried)."""
    rng = np.random.default_rng(per_chunk)
    G = rng.integers(0, 7, size=(25, 5)) + np.arange(5) * 9  # ids 7 and 8 of every tree unused
    W = (rng.random((25, 5)) * (rng.random((25, 5)) > 0.25)).astype(np.float32)
    own = rng.permutation(25)
    for GG, WW in ((G, W), (G, None), (G[:, ::-1].copy(), W)):  # the last: ranges descending, built in one piece
        want = leaf_incidence(GG, 45, WW, own=own, n_own=30).T.tocsr()
        want.sort_indices()
        got = reference_incidence(GG, 45, WW, own=own, n_own=30, trees_per_chunk=per_chunk)
        assert got.shape == want.shape == (75, 25)
        np.testing.assert_array_equal(got.indptr, want.indptr)
        np.testing.assert_array_equal(got.indices, want.indices)
        np.testing.assert_array_equal(got.data, want.data)


@pytest.mark.parametrize("per_chunk", [1, 3, 8])
def test_reference_from_rows_and_weights_tree_by_tree(per_chunk):
    """The reference built from ``rows`` of the whole leaf matrix with weights asked for a few trees at a time (what
    the measures do: no (n, T) copy of the leaves or the weights) is the one built from the copies, own columns and
    largest weight included; also when the trees' ranges are out of order (built in one piece).  Fails when a
    chunk's weights are taken from the first trees (``W(slice(0, b - a))``: tried, the data differ)."""
    rng = np.random.default_rng(per_chunk)
    G = rng.integers(0, 7, size=(25, 6)) + np.arange(6) * 9
    W = (rng.random((25, 6)) * (rng.random((25, 6)) > 0.25)).astype(np.float32)
    order = rng.permutation(25)
    for GG, WW in ((G, W), (G[:, ::-1].copy(), W[:, ::-1].copy())):
        asked = []

        def weights(trees, WW=WW, asked=asked):
            asked.append(trees)
            return WW[order, trees]

        want = reference_incidence(GG[order], 54, WW[order], own=order, n_own=25, trees_per_chunk=per_chunk)
        got = reference_incidence(GG, 54, weights, own=order, n_own=25, trees_per_chunk=per_chunk, rows=order)
        for a, b in ((got.indptr, want.indptr), (got.indices, want.indices), (got.data, want.data)):
            np.testing.assert_array_equal(a, b)
        assert got.shape == want.shape == (79, 25)
        assert len(asked) in (1, -(-6 // per_chunk))  # one piece, or once per chunk


def test_mapped_arrays_are_kept_for_the_next_once_dropped(monkeypatch):
    """An array of :func:`mapped_empty` keeps its mapping while any view of it lives; dropped, the mapping serves the
    next array of about its size (the same memory), not one more than twice smaller; ``keep=False`` unmaps it, and a
    larger array that no kept mapping fits unmaps the smaller ones.  Fails
    when the mapping is not kept for the next array (the ``weakref.finalize`` left out: a new address; tried)."""
    import gc

    monkeypatch.setattr(_leaf_product, "MAPPED_MIN_BYTES", 1 << 12)
    monkeypatch.setattr(_leaf_product, "_kept", [])
    a = _leaf_product.mapped_empty(100_000, np.float32)
    a[:] = 7.0
    where = a.__array_interface__["data"][0]
    view = a[10:]
    del a
    gc.collect()
    b = _leaf_product.mapped_empty(100_000, np.int32)
    assert b.__array_interface__["data"][0] != where  # its view keeps the first one alive
    assert np.all(view == 7.0)
    del view
    gc.collect()
    assert _leaf_product.mapped_empty(10_000, np.float32).__array_interface__["data"][0] != where  # too small
    c = _leaf_product.mapped_empty(99_000, np.float32)
    assert c.__array_interface__["data"][0] == where
    assert c.size == 99_000 and c.dtype == np.float32 and c.flags.writeable
    d = _leaf_product.mapped_empty(50_000, np.float64, keep=False)  # no kept mapping fits: the small one goes
    del c, d
    gc.collect()
    assert len(_leaf_product._kept) == 1  # c's mapping; d's unmapped
    assert _leaf_product.mapped_empty(100_000, np.float32).__array_interface__["data"][0] == where


def test_workspaces_are_lent_to_one_computation_at_a_time():
    """Two computations at once get distinct workspaces; once given back, the next computation gets the same ones
    (their arrays are not allocated again).  Fails when a workspace given back is lent without being taken off the
    list (tried: ``_idle_workspaces[-1]`` instead of ``pop()``)."""
    with _leaf_product.borrowed_workspaces(2) as first:
        with _leaf_product.borrowed_workspaces(1) as second:
            assert len({id(w) for w in first + second}) == 3
        ids = {id(w) for w in first}
    with _leaf_product.borrowed_workspaces(2) as again:
        assert {id(w) for w in again} <= ids | {id(w) for w in second}
        assert len({id(w) for w in again}) == 2


def test_the_last_block_kept_after_the_loop_is_not_overwritten_by_the_next_computation(data, monkeypatch):
    """Every block but the last is a view into a lent workspace, valid until the next block; the last one outlives
    the loan (the workspaces go back to the pool when it is taken), so it is a copy: another computation borrowing
    the same workspaces leaves it as it was.  Fails without that copy (tried: the ``if b.stop >= n`` copy in
    ``_blocks`` removed; the kept last block then held the second computation's entries)."""
    monkeypatch.setattr(measures_module, "BLOCK_ENTRIES", 40)
    X, y, Xn = data
    fd = fitted(data, "breiman")
    blocks = list(fd.measure_._blocks(fd, fd.leaves_, None, None, 1))
    assert len(blocks) > 2
    last = blocks[-1]
    kept = [np.array(a, copy=True) for a in last[1:4]]
    other = fitted((X[::-1].copy(), y[::-1].copy(), Xn), "rfgap", trees=9)
    other.sparse_rows()  # borrows the same pooled workspace, block after block
    for a, b in zip(last[1:4], kept):
        np.testing.assert_array_equal(a, b)


def test_sorted_product_without_the_private_kernel(monkeypatch):
    """The public product (scipy's kernel missing) gives the same sorted arrays.  Fails when the fallback skips
    ``sort_indices`` (tried)."""
    rng = np.random.default_rng(1)
    G = rng.integers(0, 6, size=(30, 4)) + np.arange(4) * 6
    A, BT = leaf_incidence(G[:9], 24), reference_incidence(G, 24)
    fast = product_sorted(A, BT, column_map=np.arange(30)[::-1].copy())
    monkeypatch.setattr(_leaf_product, "_csr_matmat", None)
    slow = product_sorted(A, BT, column_map=np.arange(30)[::-1].copy())
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(f, s)


# ----------------------------------------------------------------------------- sparse rows by blocks
@pytest.mark.parametrize("measure", ["breiman", "oob", "rfgap"])
@pytest.mark.parametrize("bound", [40, 1 << 23])
def test_sparse_rows_in_many_blocks_match_the_pair_loop(data, measure, bound, monkeypatch):
    """All rows, some rows and new rows, in blocks of a few rows (``BLOCK_ENTRIES`` 40) or one block: the pair-loop
    proximities, columns ascending and 32-bit, the training rows' own entries stored with 0.  Fails when the
    assembly forgets a block's offset in ``indptr`` (rows point into the first block), when the diagonal is not
    set to 0 after the normalisation, or when the locality order's column map is not applied (tried all three)."""
    monkeypatch.setattr(measures_module, "BLOCK_ENTRIES", bound)
    fd = fitted(data, measure)
    _, _, Xn = data
    n = fd.leaves_.shape[0]
    ref_train = ref_proximity(fd, fd.leaves_, True)
    R = fd.sparse_rows()
    assert R.cols.dtype == np.int32 and R.indptr.dtype == np.int64
    for r in range(n):
        seg = R.cols[R.indptr[r]:R.indptr[r + 1]]
        assert np.all(np.diff(seg) > 0)
        assert r in seg.tolist()  # the own column is stored (0), whatever the measure
    np.testing.assert_allclose(1.0 - R.to_dense(), ref_train, atol=ATOL, rtol=0)
    np.testing.assert_array_equal(np.diag(R.to_dense()), 0.0)
    rows = np.arange(11, 47)
    np.testing.assert_allclose(1.0 - fd.sparse_rows(rows=rows).to_dense(), ref_train[rows], atol=ATOL, rtol=0)
    ref_new = ref_proximity(fd, fd.leaves(Xn), False)
    np.testing.assert_allclose(1.0 - fd.sparse_rows(Xn).to_dense(), ref_new, atol=ATOL, rtol=0)
    cols = np.array([0, 3, 12, 13, 40, 69])
    np.testing.assert_allclose(1.0 - fd.sparse_rows(rows=rows, columns=cols).to_dense(), ref_train[rows][:, cols],
                               atol=ATOL, rtol=0)


@pytest.mark.parametrize("measure", ["breiman", "oob", "rfgap", RFGAP(scaling="row_max"), "rfd"])
def test_dense_matrices_are_the_sparse_rows_and_the_old_engines(data, measure, monkeypatch):
    """The dense training and test matrices come from the sparse rows, block by block (the same numbers), and agree
    with the dense engines they replace: exactly for the integer counts (Breiman, OOB), within float32 rounding for
    the weighted measures.  Fails when the scatter into the dense matrix misses the block's rows (tried: every block
    written into the first rows)."""
    monkeypatch.setattr(measures_module, "BLOCK_ENTRIES", 60)
    X, y, Xn = data
    fd = ForestDissimilarity(measure, n_estimators=12, random_state=2, dense_max_rows=None).fit(X, y)
    D = fd.train_dissimilarity_
    np.testing.assert_array_equal(D, fd.sparse_rows().to_dense())
    np.testing.assert_array_equal(fd.transform(Xn), fd.sparse_rows(Xn).to_dense())
    exact = fd.measure_.name in ("breiman", "oob")
    for engine in ("pairs", "scipy"):
        old = fd._dissimilarity(fd.leaves_, train=True, engine=engine)
        if exact:
            np.testing.assert_array_equal(D, old)
        else:
            np.testing.assert_allclose(D, old, atol=3e-7, rtol=0)


def test_oob_counts_trees_over_several_words(data):
    """With 150 trees the out-of-bag masks take three 64-bit words: the popcount of the common out-of-bag trees
    must read all of them.  Fails when only the first word is counted (tried)."""
    fd = fitted(data, "oob", trees=150)
    R = fd.sparse_rows()
    np.testing.assert_allclose(1.0 - R.to_dense(), ref_proximity(fd, fd.leaves_, True), atol=ATOL, rtol=0)


def test_threads_give_the_same_rows(data, monkeypatch):
    """Blocks computed two at a time are assembled in row order: the same arrays as one at a time.  Fails when a
    wave's results are taken in completion order reversed (tried: ``reversed(done)``)."""
    monkeypatch.setattr(measures_module, "BLOCK_ENTRIES", 40)
    one, two = fitted(data, "rfgap", n_jobs=1), fitted(data, "rfgap", n_jobs=2)
    a, b = one.sparse_rows(), two.sparse_rows()
    for x, z in ((a.indptr, b.indptr), (a.cols, b.cols), (a.values, b.values)):
        np.testing.assert_array_equal(x, z)


def test_all_rows_peak_is_the_result_and_one_block(data, monkeypatch):
    """The all-rows call copies each block into the result as it is done: the peak of numpy's allocations is the
    result's room (8 bytes an entry, with the margin of its estimate) and one block, under twice the result.
    Fails when the blocks are kept and joined with ``np.concatenate`` at the end (tried: 2.1 times).  Every array
    comes from ``np.empty`` here: ``tracemalloc`` does not see the arrays of ``mapped_empty``'s mappings (without
    that setting, the test passes whatever the assembly does; tried)."""
    X, y, _ = data
    Xb = np.repeat(X, 8, axis=0) + np.random.default_rng(0).normal(scale=1e-3, size=(8 * len(X), X.shape[1]))
    yb = np.repeat(y, 8)
    fd = ForestDissimilarity("breiman", n_estimators=20, min_samples_leaf=15, random_state=0,
                             dense_max_rows=0).fit(Xb, yb)
    monkeypatch.setattr(measures_module, "BLOCK_ENTRIES", 2_000)  # blocks of about 10 rows
    monkeypatch.setattr(_leaf_product, "MAPPED_MIN_BYTES", 1 << 40)  # every array from np.empty: traced
    fd.sparse_rows(rows=np.arange(4))  # the cached reference, built outside the measurement
    tracemalloc.start()
    try:
        R = fd.sparse_rows()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    result = R.cols.nbytes + R.values.nbytes
    assert R.nnz > 100_000
    assert peak < 1.8 * result, (peak, result)


def test_fit_on_a_given_forest_uses_it(data):
    """``_fit(forest=...)`` (the bench's path: the forest grown elsewhere) keeps that very forest and gives the
    matrices of a fit that grew it.  Fails when ``_fit`` grows its own forest anyway (tried)."""
    X, y, Xn = data
    grown = ForestDissimilarity("oob", n_estimators=9, random_state=11).fit(X, y)
    reused = ForestDissimilarity("oob", n_estimators=9, random_state=0)._fit(X, y, forest=grown.forest_)
    assert reused.forest_ is grown.forest_
    np.testing.assert_array_equal(reused.train_dissimilarity_, grown.train_dissimilarity_)
    np.testing.assert_array_equal(reused.transform(Xn), grown.transform(Xn))


# ----------------------------------------------------------------------------- k smallest by histograms
@pytest.mark.parametrize("grid", [0, 7, 100])
def test_histogram_selection_is_the_dense_search(grid):
    """2,600 rows (three chunks of histograms), values on a coarse grid (ties across bins' edges), continuous
    values (``grid=0``) or negative ones, short rows and an excluded column: the dense lowest-index search.
    Fails when the candidates stop before the k-th value's bin (``bins < last``), or when the chunks' row offset
    is dropped (tried both)."""
    rng = np.random.default_rng(grid)
    n, n_cols = 2600, 40
    mask = rng.random((n, n_cols)) < rng.choice([0.05, 0.4, 1.0], size=(n, 1))
    raw = rng.random((n, n_cols))
    vals = (np.round(raw * grid) / grid if grid else raw - 0.3).astype(np.float32)
    dense = np.where(mask, vals, 1.0).astype(np.float32)
    r, c = np.nonzero(mask)
    indptr = np.r_[0, np.cumsum(mask.sum(axis=1))].astype(np.int64)
    rows = SparseRows(indptr, c.astype(np.int32), dense[r, c], 1.0, n_cols)
    exclude = rng.integers(0, n_cols, size=n)
    loo = dense.astype(np.float64)
    loo[np.arange(n), exclude] = np.inf
    for k in (1, 5, 12):
        idx, val = k_smallest_sparse(rows, k)
        np.testing.assert_array_equal(idx, k_smallest_indices(dense, k))
        np.testing.assert_array_equal(val, np.take_along_axis(dense, idx, axis=1))
        idx, _ = k_smallest_sparse(rows, k, exclude=exclude)
        np.testing.assert_array_equal(idx, k_smallest_indices(loo, k))
    assert SELECTION_BINS >= 2


def test_selection_does_not_need_sorted_columns():
    """Rows asked for with ``sort=False`` keep the product's column order: the k smallest, ties to the lowest
    column, are those of the sorted rows.  Fails when the candidates are ordered by (row, value) alone, trusting
    the column order (tried)."""
    rng = np.random.default_rng(7)
    n, n_cols = 300, 50
    dense = np.where(rng.random((n, n_cols)) < 0.5, np.round(rng.random((n, n_cols)) * 3) / 3, 1.0)
    dense = dense.astype(np.float32)
    r, c = np.nonzero(dense < 1.0)
    shuffled = np.lexsort((rng.random(r.size), r))  # each row's entries in a random order
    indptr = np.r_[0, np.cumsum(np.bincount(r, minlength=n))].astype(np.int64)
    rows = SparseRows(indptr, c[shuffled].astype(np.int32), dense[r, c][shuffled], 1.0, n_cols)
    for k in (1, 4, 9):
        np.testing.assert_array_equal(k_smallest_sparse(rows, k)[0], k_smallest_indices(dense, k))


def test_unsorted_rows_hold_the_same_entries(data):
    """``sparse_rows(sort=False)`` holds the entries of the sorted rows, in another order within each row."""
    fd = fitted(data, "oob")
    a, b = fd.sparse_rows(), fd.sparse_rows(sort=False)
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.to_dense(), b.to_dense())


def test_a_measure_pickled_by_an_older_mvlab_still_reads(data):
    """A fitted RF-GAP from before issue #54 kept ``weights_`` (no ``leaf_mass_``) and a list as its reference cache:
    its rows are still computed, the same.  Fails when the old list is used as the new cache (``TypeError``), or
    when the leaf masses are not recomputed (``AttributeError``; tried both)."""
    fd = fitted(data, "rfgap")
    want = fd.sparse_rows().to_dense()
    old = fitted(data, "rfgap")
    del old.measure_.leaf_mass_
    old.measure_._sparse_cache = []
    np.testing.assert_array_equal(old.sparse_rows().to_dense(), want)
