"""The cascade's DF21 setting, its bins and its compact forests (docs/algorithms.md §C.2)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

from mvlab.siamese.binning import QuantileBinner, bin_edges
from mvlab.siamese.cascade import DF21_SETTINGS, CascadeForest
from mvlab.siamese.compact import CompactForest, float32_floor
from mvlab.siamese.forest import SiameseDeepForest


def _sklearn_bytes(forest):
    """What scikit-learn's trees hold: 64-byte nodes and a distribution for every node."""
    return sum(e.tree_.__getstate__()["nodes"].nbytes + e.tree_.value.nbytes for e in forest.estimators_)


def _adjacent_float32_data():
    """A feature whose values are consecutive float32 numbers with the class changing between neighbours:
    every split threshold is the exact midpoint of two adjacent float32, which rounds to the upper one."""
    base = np.float32(1.0)
    ulps = np.arange(400, dtype=np.float32)
    x = (base + ulps * np.spacing(base)).astype(np.float32)
    y = (np.arange(400) // 3) % 2
    noise = np.random.default_rng(0).random((400, 2)).astype(np.float32)
    return np.column_stack([x, noise]), y


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(12, random_state=0),
    lambda: ExtraTreesClassifier(12, max_features=1, random_state=0),
    lambda: ExtraTreesClassifier(12, max_features="sqrt", bootstrap=True, random_state=0),
])
def test_compact_forest_predicts_bit_for_bit(make):
    """Every tree of a compact forest gives the scikit-learn tree's probabilities exactly, on rows equal to
    the thresholds' neighbours. Fails when thresholds are stored as the nearest float32 instead of the
    largest float32 not above them (tried: rows at the upper neighbour go left)."""
    X, y = _adjacent_float32_data()
    forest = make().fit(X, y)
    compact = CompactForest(forest)
    for tree, small in zip(forest.estimators_, compact.estimators_):
        np.testing.assert_array_equal(small.tree_.predict(X), tree.tree_.predict(X))
    np.testing.assert_array_equal(compact.predict_proba(X), forest.predict_proba(X))


def test_compact_forest_is_small_and_keeps_no_forest():
    """A compact forest holds under a fifth of scikit-learn's bytes. Fails when every node keeps a float64
    class distribution (tried: 0.32 of scikit-learn's)."""
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(20, random_state=0).fit(X, y)
    compact = CompactForest(forest)
    assert compact.nbytes < 0.2 * _sklearn_bytes(forest)
    assert not any(isinstance(v, RandomForestClassifier) for v in vars(compact).values())


def test_compact_forest_keeps_distributions_it_cannot_count():
    """Leaves fitted with fractional sample weights have no integer counts: their float64 distributions are
    kept, and predictions stay exact."""
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(1).random(len(y)) + 0.1
    forest = ExtraTreesClassifier(6, max_features=2, min_samples_leaf=3, random_state=0).fit(X, y, sample_weight=w)
    compact = CompactForest(forest)
    assert compact.leaf_counts_ is None and compact.leaf_values_ is not None
    np.testing.assert_array_equal(compact.predict_proba(X), forest.predict_proba(X))


def test_float32_floor_keeps_every_comparison():
    """``x <= t`` and ``x <= float32_floor(t)`` agree for float32 x next to t. Fails with a plain
    float32 cast (tried)."""
    rng = np.random.default_rng(2)
    t = rng.normal(size=2000) * 10.0 ** rng.integers(-3, 4, 2000)
    t32 = float32_floor(t)
    assert t32.dtype == np.float32
    for step in (-1, 0, 1):
        x = t.astype(np.float32)
        x = np.nextafter(x, np.float32(step * np.inf)) if step else x
        np.testing.assert_array_equal(x <= t, x <= t32)


def test_bins_order_and_edges():
    """Codes keep the values' order, a value on an edge lies left of it, few distinct values keep one bin
    each, and new rows are coded with the training edges (beyond them: the end bins). Fails when a value
    equal to an edge gets the bin right of it (tried)."""
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=3000), rng.integers(0, 5, 3000).astype(float)])
    binner = QuantileBinner(16).fit(X)
    codes = binner.transform(X)
    assert codes.dtype == np.uint8
    assert len(np.unique(codes[:, 0])) == 16 and set(np.unique(codes[:, 1])) == {0, 1, 2, 3, 4}
    order = np.argsort(X[:, 0], kind="stable")
    assert np.all(np.diff(codes[order, 0].astype(int)) >= 0)
    edges = binner.edges_[0]
    np.testing.assert_array_equal(binner.transform(np.column_stack([edges, np.zeros_like(edges)]))[:, 0],
                                  np.arange(edges.size))
    far = binner.transform(np.array([[-1e9, -1.0], [1e9, 9.0]]))
    assert far.tolist() == [[0, 0], [15, 4]]
    np.testing.assert_array_equal(bin_edges([0.0, 1.0, 1.0, 3.0], 255), [0.5, 2.0])


def test_kept_ties_skip_codes_as_dfs_binner_does():
    """``keep_duplicates``: a value filling half the quantiles keeps all ``n_bins - 1`` edges, so the codes
    after it start at the number of edges the tie spans (DF21's binner: a code counts the edges below it,
    repeated ones included); merged, the codes are consecutive; both keep the values' order. Fails when the
    repeated edges are dropped with ``keep_duplicates`` (tried: 9 edges instead of 15)."""
    rng = np.random.default_rng(0)
    v = np.concatenate([np.zeros(500), rng.random(500)])[:, None]
    kept = QuantileBinner(16, keep_duplicates=True).fit(v)
    merged = QuantileBinner(16).fit(v)
    assert kept.edges_[0].size == 15 and merged.edges_[0].size < 15
    codes_kept, codes_merged = kept.transform(v)[:, 0], merged.transform(v)[:, 0]
    assert set(codes_kept[:500]) == {0} and codes_kept[500:].min() == 8 and codes_kept.max() == 15
    expected = [sum(e < x for e in kept.edges_[0]) for x in v[:, 0]]
    np.testing.assert_array_equal(codes_kept, expected)
    assert codes_merged[500:].min() <= 2
    order = np.argsort(v[:, 0], kind="stable")
    assert np.all(np.diff(codes_kept[order].astype(int)) >= 0)


def test_binner_errors_say_what_to_do():
    with pytest.raises(ValueError, match="n_bins must be an integer from 2 to 255"):
        QuantileBinner(256).fit(np.zeros((3, 1)))
    binner = QuantileBinner().fit(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="fitted on 2 features"):
        binner.transform(np.zeros((3, 3)))


def test_df21_setting_builds_dfs_forests():
    """``CascadeForest.df21()`` is DF21's cascade: 2 random + 2 extremely randomised (sqrt, bootstrapped)
    forests a level, compact, out-of-bag, the previous level's binned vectors; overrides replace it."""
    X, y = load_breast_cancer(return_X_y=True)
    assert {k: CascadeForest.df21().get_params()[k] for k in DF21_SETTINGS} == DF21_SETTINGS
    cf = CascadeForest.df21(n_estimators=10, max_levels=3, random_state=0)
    assert CascadeForest.df21(n_bins=None).n_bins is None
    cf.fit(X[:300], y[:300])
    assert [u.kind for u in cf.levels_[0]] == ["random", "random", "extra_trees", "extra_trees"]
    assert all(isinstance(u.estimators[0], CompactForest) for level in cf.levels_ for u in level)
    dims = [units[0].estimators[0].n_features_in_ for units in cf.levels_]
    assert dims == [30] + [30 + 4 * 2] * (len(dims) - 1)
    assert len(cf.vector_binners_) == cf.n_levels_ and cf.feature_binner_.n_features_in_ == 30
    assert cf.score(X[300:], y[300:]) > 0.9
    np.testing.assert_allclose(cf.predict_proba(X[300:]), cf.level_class_vectors(X[300:])[-1].mean(axis=1))


def test_extra_trees_kind_is_sqrt_extra_trees():
    X, y = load_breast_cancer(return_X_y=True)
    cf = CascadeForest(n_estimators=5, n_completely_random=0, n_random=0, n_extra_trees=1, class_vectors="oob",
                       max_levels=1, random_state=0).fit(X[:200], y[:200])
    est = cf.levels_[0][0].estimators[0]
    assert isinstance(est, ExtraTreesClassifier) and est.max_features == "sqrt" and est.bootstrap


def test_new_parameters_are_validated():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="'n_bins' parameter"):
        CascadeForest(n_bins=256).fit(X, y)
    with pytest.raises(ValueError, match="'n_extra_trees' parameter"):
        CascadeForest(n_extra_trees=-1).fit(X, y)
    with pytest.raises(ValueError, match="n_completely_random \\+ n_random \\+ n_extra_trees >= 1"):
        CascadeForest(n_completely_random=0, n_random=0).fit(X, y)


def test_siamese_qp_weights_unchanged_by_compact_forests():
    """The SDF's tree-weight QP sees the scikit-learn forest before compaction: the weights, the QP
    diagnostics and the predictions are those of a fit without compaction."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 4))
    idx = rng.integers(0, 60, size=(160, 2))
    y = (np.abs(X[idx[:, 0], 0] - X[idx[:, 1], 0]) > 0.8).astype(int)
    pairs = np.stack([X[idx[:, 0]], X[idx[:, 1]]], axis=1)
    kw = dict(n_estimators=6, max_levels=2, patience=2, random_state=0)
    plain = SiameseDeepForest(**kw).fit(pairs, y)
    small = SiameseDeepForest(compact_trees=True, **kw).fit(pairs, y)
    assert isinstance(small.levels_[0][0].estimators[0], CompactForest)
    for a, b in zip(plain.weights_, small.weights_):
        for wa, wb in zip(a, b):
            np.testing.assert_array_equal(wa, wb)
    np.testing.assert_array_equal(plain.similarity_score(pairs), small.similarity_score(pairs))


def _codes_data(seed=0, n=300, d=6):
    """Bin codes as the cascade's trees read them: whole numbers 0..254 in float32, a class that depends on them."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 255, size=(n, d)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] // 2 + rng.integers(0, 60, n) > 220).astype(int) + (X[:, 2] > 200)
    return X, y


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(15, random_state=1),
    lambda: ExtraTreesClassifier(15, max_features="sqrt", bootstrap=True, random_state=2),
    lambda: RandomForestClassifier(15, max_leaf_nodes=25, random_state=3),  # best first: left children stored
])
def test_byte_thresholds_and_implicit_left_children_find_the_same_leaves(make):
    """With ``integer_inputs`` a compact forest keeps ``floor(threshold)`` in one byte and, for depth-first
    trees, no left children; on every whole number 0..255 of every feature (and the training rows) each tree
    gives scikit-learn's probabilities bit for bit, in fewer bytes than without. Fails when the byte is the
    rounded threshold instead of its floor (tried: a code equal to the rounded-up threshold goes left), and
    when left children are left out of a best-first tree (tried: its leaves differ)."""
    X, y = _codes_data()
    forest = make().fit(X, y)
    small = CompactForest(forest, integer_inputs=True)
    plain = CompactForest(forest)
    grid = np.tile(np.arange(256, dtype=np.float32)[:, None], (1, X.shape[1]))
    rows = np.vstack([X, grid, grid[::-1]])
    rows[:256, 0] = np.arange(256)[::-1]  # codes of one feature against other codes of the others
    for tree, compact in zip(forest.estimators_, small.estimators_):
        np.testing.assert_array_equal(compact.tree_.predict(rows), tree.tree_.predict(rows))
    np.testing.assert_array_equal(small.predict_proba(rows), forest.predict_proba(rows))
    assert small.threshold_.dtype == np.uint8 and plain.threshold_.dtype == np.float32
    depth_first = forest.max_leaf_nodes is None
    assert (small.children_left_ is None) == depth_first
    assert small.nbytes < (0.75 if depth_first else 0.9) * plain.nbytes
    with pytest.raises(ValueError, match="whole numbers from 0 to 255"):
        small.predict_proba(rows + 0.5)


def test_thresholds_outside_a_byte_stay_float32():
    """``integer_inputs`` on a forest split on values beyond 0..255 keeps its float32 thresholds (and exact
    predictions): a byte cannot hold them."""
    X, y = _codes_data(seed=1)
    X = X * 3.0 - 100.0
    forest = RandomForestClassifier(8, random_state=0).fit(X, y)
    small = CompactForest(forest, integer_inputs=True)
    assert small.threshold_.dtype == np.float32
    np.testing.assert_array_equal(small.predict_proba(np.floor(np.abs(X)) % 256), forest.predict_proba(
        np.floor(np.abs(X)) % 256))


def test_binned_cascade_keeps_byte_thresholds():
    """The DF21 setting's compact forests hold one-byte thresholds and no left children; without bins a
    compact cascade keeps float32 thresholds."""
    X, y = load_breast_cancer(return_X_y=True)
    binned = CascadeForest.df21(n_estimators=6, max_levels=2, random_state=0).fit(X[:200], y[:200])
    est = binned.levels_[-1][0].estimators[0]
    assert est.threshold_.dtype == np.uint8 and est.children_left_ is None
    unbinned = CascadeForest.df21(n_estimators=6, max_levels=1, n_bins=None, random_state=0).fit(X[:200], y[:200])
    assert unbinned.levels_[0][0].estimators[0].threshold_.dtype == np.float32
