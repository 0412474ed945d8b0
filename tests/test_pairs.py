"""Pair sampling (docs/algorithms.md §C.1): labels, uniqueness, balance, disjoint pools."""

import numpy as np
import pytest

from mvlab.siamese.pairs import (
    _tri_decode,
    default_n_test_pairs,
    make_pair_split,
    make_pairs,
    pair_features,
    split_pools,
)


def _unordered(pairs):
    return {tuple(sorted(p)) for p in pairs.tolist()}


def test_tri_decode_enumerates_upper_triangle():
    for n in (2, 3, 7, 50):
        a, b = _tri_decode(np.arange(n * (n - 1) // 2), n)
        expected = [(i, j) for i in range(n) for j in range(i + 1, n)]
        assert list(zip(a.tolist(), b.tolist())) == expected


def test_tri_decode_large_n_is_exact():
    n = 60_000
    k = np.array([0, 1, n - 2, n - 1, n * (n - 1) // 2 - 1, 123_456_789])
    a, b = _tri_decode(k, n)
    start = a * n - a * (a + 1) // 2
    np.testing.assert_array_equal(start + (b - a - 1), k)
    assert np.all(a < b) and np.all(b < n)


@pytest.mark.parametrize("balanced", [True, False])
def test_labels_distinct_and_no_self_pairs(balanced):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, size=80)
    pairs, yp = make_pairs(y, 300, balanced=balanced, random_state=1)
    assert pairs.shape == (300, 2) and yp.shape == (300,)
    assert pairs.dtype == np.int64
    np.testing.assert_array_equal(yp, (y[pairs[:, 0]] != y[pairs[:, 1]]).astype(int))
    assert np.all(pairs[:, 0] != pairs[:, 1])
    assert len(_unordered(pairs)) == 300  # without replacement
    if balanced:
        assert (yp == 0).sum() == 150 and (yp == 1).sum() == 150
    # both orientations occur (random orientation of each pair)
    assert np.any(y[pairs[:, 0]] < y[pairs[:, 1]]) and np.any(y[pairs[:, 0]] > y[pairs[:, 1]])


def test_balanced_uses_all_similar_pairs_when_exactly_enough():
    y = np.array([0, 0, 0, 1, 1, 2])  # similar pairs: 3 + 1 = 4
    pairs, yp = make_pairs(y, 8, random_state=0)
    sim = pairs[yp == 0]
    assert _unordered(sim) == {(0, 1), (0, 2), (1, 2), (3, 4)}


def test_natural_sampling_frequency_follows_population():
    y = np.repeat([0, 1], [90, 10])
    # similar share of all pairs: (C(90,2)+C(10,2)) / C(100,2) = 0.8182
    _, yp = make_pairs(y, 2000, balanced=False, random_state=3)
    assert abs((yp == 0).mean() - 0.8182) < 0.04


def test_both_orders_and_determinism():
    y = np.arange(30) % 3
    pairs, yp = make_pairs(y, 40, both_orders=True, random_state=7)
    as_set = set(map(tuple, pairs.tolist()))
    assert all((j, i) in as_set for i, j in as_set)
    assert len(_unordered(pairs)) == 20
    p2, y2 = make_pairs(y, 40, both_orders=True, random_state=7)
    np.testing.assert_array_equal(pairs, p2)
    np.testing.assert_array_equal(yp, y2)
    p3, _ = make_pairs(y, 40, both_orders=True, random_state=8)
    assert not np.array_equal(pairs, p3)
    with pytest.raises(ValueError, match="even"):
        make_pairs(y, 41, both_orders=True)


def test_pool_restricts_instances():
    y = np.arange(100) % 5
    pool = np.arange(0, 100, 2)
    pairs, _ = make_pairs(y, 200, pool=pool, random_state=0)
    assert set(pairs.ravel().tolist()) <= set(pool.tolist())


def test_impossible_requests_raise_clear_errors():
    y = np.array([0, 1, 2, 3])  # every class has one instance: no similar pair exists
    with pytest.raises(ValueError, match="similar pairs"):
        make_pairs(y, 2)
    with pytest.raises(ValueError, match="dissimilar"):
        make_pairs(np.zeros(10, int), 4)  # one class: no dissimilar pair
    with pytest.raises(ValueError, match="distinct pairs"):
        make_pairs(np.array([0, 1, 0]), 4, balanced=False)
    for bad in (0, True, 2.0):  # True is an int in Python, not a count of pairs
        with pytest.raises(ValueError, match="'n_pairs' parameter of make_pairs must be an int in the range"):
            make_pairs(np.array([0, 1]), bad)
    with pytest.raises(ValueError, match="pool"):
        make_pairs(np.array([0, 1, 0]), 1, pool=np.array([0, 5]))


def test_single_pair_balanced_gives_dissimilar():
    pairs, yp = make_pairs(np.array([0, 1]), 1, random_state=0)
    assert yp.tolist() == [1] and _unordered(pairs) == {(0, 1)}


def test_split_pools_and_pair_split_are_disjoint():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, size=150)
    tr, te = split_pools(y, random_state=0)
    assert np.intersect1d(tr, te).size == 0 and tr.size + te.size == 150
    assert te.size == 60
    split = make_pair_split(y, 90, random_state=4)
    assert split.train_pairs.shape == (90, 2) and split.test_pairs.shape == (60, 2)  # 2N/3
    assert np.intersect1d(split.train_pool, split.test_pool).size == 0
    assert set(split.train_pairs.ravel().tolist()) <= set(split.train_pool.tolist())
    assert set(split.test_pairs.ravel().tolist()) <= set(split.test_pool.tolist())
    assert (split.y_train == 0).sum() == 45 and (split.y_test == 1).sum() == 30
    again = make_pair_split(y, 90, random_state=4)
    np.testing.assert_array_equal(again.test_pairs, split.test_pairs)


def test_default_test_pairs_round_two_thirds_to_the_nearest():
    """2N/3 rounded, not floored (the Siamese page's caption said 666 for N = 1000 where the draw has 667)."""
    assert [default_n_test_pairs(n) for n in (1, 90, 100, 1000, 2000)] == [1, 60, 67, 667, 1333]
    assert default_n_test_pairs(2000, both_orders=True) == 1334 and default_n_test_pairs(90, both_orders=True) == 60
    y = np.repeat(np.arange(3), 100)
    assert make_pair_split(y, 1000, random_state=0).test_pairs.shape == (667, 2)


def test_pair_features_concatenates():
    X = np.arange(12.0).reshape(4, 3)
    F = pair_features(X, np.array([[0, 3], [2, 1]]))
    np.testing.assert_array_equal(F, [[0, 1, 2, 9, 10, 11], [6, 7, 8, 3, 4, 5]])
    with pytest.raises(ValueError, match="outside"):
        pair_features(X, np.array([[0, 4]]))


def test_max_train_pairs_is_the_largest_split_every_pool_seed_can_draw_and_is_remembered_by_content():
    """The remembered answer equals a fresh computation (split_pools + pair capacities, the slow path), for
    labels seen before, for other labels of the same length, and is reached by make_pair_split."""
    from mvlab.siamese import pairs

    rng = np.random.default_rng(3)
    for y in (np.repeat([0, 1, 2], [30, 20, 10]), rng.integers(0, 4, 90), np.array(["a", "b"] * 25)):
        fresh = pairs._max_train_pairs(y, 0.4, True, True, 5)
        assert pairs.max_train_pairs(y) == fresh == pairs.max_train_pairs(y.copy())  # asked again: remembered
        assert pairs.max_train_pairs(y, trials=2) == pairs._max_train_pairs(y, 0.4, True, True, 2)
        for seed in range(5):  # N = the answer is drawable whatever the pools' seed
            make_pair_split(y, fresh, random_state=seed)
    y = np.repeat([0, 1], [40, 40])
    other = y.copy()
    other[:35] = 1  # same length and dtype, other content: its own answer
    assert pairs.max_train_pairs(other) == pairs._max_train_pairs(other, 0.4, True, True, 5) != pairs.max_train_pairs(y)
