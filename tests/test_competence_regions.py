"""The fast regions of competence equal the per-candidate definition, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from mvlab.core.neighbours import k_smallest_indices, k_smallest_indices_bounded
from mvlab.rfd.competence_regions import candidate_regions, joint_rows
from mvlab.rfd.dvs_pool import subset_dissimilarity, view_subsets


def views(rng, Q, n, n_train, levels=None):
    """Q float32 view matrices in [0, 1]; ``levels`` = number of distinct values (ties)."""
    if levels is None:
        return [rng.random((n, n_train)).astype(np.float32) for _ in range(Q)]
    return [(rng.integers(0, levels, (n, n_train)) / (levels - 1)).astype(np.float32) for _ in range(Q)]


def reference_regions(Ds, subsets, k):
    """The definition: each candidate's joint matrix, then its k smallest entries per row."""
    return np.stack([k_smallest_indices(subset_dissimilarity(Ds, w), k) for w in subsets])


@pytest.mark.parametrize("Q, max_size", [(1, None), (3, None), (4, None), (5, 2), (4, 3)])
def test_joint_rows_are_bit_identical_to_subset_dissimilarity(Q, max_size):
    rng = np.random.default_rng(Q)
    Ds = views(rng, Q, 9, 13)
    subsets = view_subsets(Q, max_size)
    for c, dw in enumerate(joint_rows(Ds, subsets)):
        ref = subset_dissimilarity(Ds, subsets[c])
        assert dw.dtype == np.float32 and dw.shape == ref.shape
        np.testing.assert_array_equal(dw.view(np.int32), ref.view(np.int32))  # the same bits


@pytest.mark.parametrize("levels", [None, 3, 11])
@pytest.mark.parametrize("Q, max_size", [(3, None), (4, None), (5, 2)])
@pytest.mark.parametrize("k", [1, 4, 20])
def test_candidate_regions_equal_the_definition(levels, Q, max_size, k):
    """Ties everywhere (3 levels), some (11) or none; pools with and without a full set."""
    rng = np.random.default_rng(100 * Q + k)
    Ds = views(rng, Q, 23, 20, levels)
    subsets = view_subsets(Q, max_size)
    ref = reference_regions(Ds, subsets, k)
    for n_jobs in (1, 2):
        for block_elements in (1, 50, 1 << 18):  # one row per block, a few rows, one block
            regions, region_d = candidate_regions(Ds, subsets, k, n_jobs=n_jobs, with_dissimilarities=True,
                                                  block_elements=block_elements)
            np.testing.assert_array_equal(regions, ref)
            for c, w in enumerate(subsets):
                np.testing.assert_array_equal(
                    region_d[c], np.take_along_axis(subset_dissimilarity(Ds, w), ref[c], axis=1))


@pytest.mark.parametrize("levels", [None, 3])
@pytest.mark.parametrize("Q, max_size", [(3, None), (4, 2)])
@pytest.mark.parametrize("k", [1, 5, 18])
def test_leave_one_out_regions_equal_the_definition(levels, Q, max_size, k):
    """The training replay's regions (``exclude_self``): every candidate's k nearest in its own joint matrix,
    never the row itself, as ``k_smallest_indices(..., exclude_diagonal=True)``; ties everywhere (3 levels)
    or none, with and without the all-views candidate, one row per block or one block.  Fails when the
    row's own column is left in the search (tried: the line setting it to inf removed, every region then
    starts with the row itself), and when it is left out only for the candidates without a superset in
    the pool (tried: the bounded search then picks the row itself)."""
    rng = np.random.default_rng(10 * Q + k)
    n = 19
    Ds = views(rng, Q, n, n, levels)
    subsets = view_subsets(Q, max_size)
    ref = np.stack([k_smallest_indices(subset_dissimilarity(Ds, w), k, exclude_diagonal=True) for w in subsets])
    for n_jobs in (1, 2):
        for block_elements in (1, 1 << 18):
            regions, region_d = candidate_regions(Ds, subsets, k, n_jobs=n_jobs, with_dissimilarities=True,
                                                  block_elements=block_elements, exclude_self=True)
            np.testing.assert_array_equal(regions, ref)
            for c, w in enumerate(subsets):
                np.testing.assert_array_equal(
                    region_d[c], np.take_along_axis(subset_dissimilarity(Ds, w), ref[c], axis=1))


def test_leave_one_out_regions_need_the_square_training_matrices():
    rng = np.random.default_rng(1)
    subsets = view_subsets(2)
    with pytest.raises(ValueError, match="square"):
        candidate_regions(views(rng, 2, 4, 6), subsets, 2, exclude_self=True)
    with pytest.raises(ValueError, match="less the row itself"):
        candidate_regions(views(rng, 2, 6, 6), subsets, 6, exclude_self=True)


def test_candidate_regions_edge_sizes():
    rng = np.random.default_rng(0)
    subsets = view_subsets(3)
    one = views(rng, 3, 1, 6, levels=2)  # a single query row, heavy ties
    np.testing.assert_array_equal(candidate_regions(one, subsets, 3, n_jobs=2)[0], reference_regions(one, subsets, 3))
    empty = [np.zeros((0, 6), dtype=np.float32)] * 3
    regions, region_d = candidate_regions(empty, subsets, 2, with_dissimilarities=True)
    assert regions.shape == (7, 0, 2) and region_d.shape == (7, 0, 2)
    with pytest.raises(ValueError, match="k=7"):
        candidate_regions(one, subsets, 7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bounded_k_smallest_equals_partition_version(dtype):
    rng = np.random.default_rng(5)
    for _ in range(30):
        n, m = rng.integers(1, 12), rng.integers(1, 15)
        D = rng.choice(np.array([-1.5, -0.0, 0.0, 0.25, 0.25, 1.0, 2.0]), size=(n, m)).astype(dtype)
        k = int(rng.integers(1, m + 1))
        ref = k_smallest_indices(D, k)
        # any valid bound: the row's value at k random distinct columns, or the row maximum
        cols = np.stack([rng.permutation(m)[:k] for _ in range(n)])
        for bound in (np.take_along_axis(D, cols, axis=1).max(axis=1), D.max(axis=1)):
            np.testing.assert_array_equal(k_smallest_indices_bounded(D, k, bound), ref)


def test_bounded_k_smallest_rejects_a_bound_below_the_kth_value():
    D = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], dtype=np.float32)
    with pytest.raises(ValueError, match="row 1"):
        k_smallest_indices_bounded(D, 2, np.array([0.2, 0.1], dtype=np.float32))
