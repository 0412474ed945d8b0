"""The DF21 setting's out-of-bag forests made compact tree by tree as they grow (issue #54 item 3): the same
kept forests, bit for bit, and the same class vectors as fitting the whole forest first and compacting it after."""

import gc
import weakref

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from mvlab.core.forest_fit import fit_forest
from mvlab.siamese import cascade as cascade_module
from mvlab.siamese.cascade import CascadeForest
from mvlab.siamese.class_vectors import oob_sums
from mvlab.siamese.compact import CompactForest

ARRAYS = ("classes_", "node_offsets_", "max_depths_", "children_left_", "children_right_", "feature_", "threshold_",
          "leaf_offsets_", "leaf_counts_", "leaf_totals_", "leaf_values_", "leaf_classes_")


def assert_same_compact(a, b):
    """Every array of two compact forests, dtype included, and their scalars."""
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert (a.n_features_in_, a.n_classes_, a.integer_inputs) == (b.n_features_in_, b.n_classes_, b.integer_inputs)


def _binned_data(n=300, d=8, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 256, size=(n, d)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] + 60 * rng.rand(n) > 270).astype(int) + (X[:, 2] > 200)
    return X, y


class _Joined:
    """Two fitted forests' trees as one forest (what CompactForest reads of a forest)."""

    def __init__(self, a, b):
        self.estimators_ = a.estimators_ + b.estimators_
        self.classes_, self.n_features_in_ = a.classes_, a.n_features_in_


@pytest.mark.parametrize("integer_inputs", [False, True])
def test_parts_join_into_the_forests_compact_arrays(integer_inputs):
    """``CompactForest.from_parts`` of every tree's ``tree_part`` is ``CompactForest(forest)``, array for array,
    also where trees differ in what they allow (explicit left children of best-first trees, thresholds outside a
    byte, fractional weights without counts, deeper trees needing wider dtypes). Fails when a depth-first tree's
    left children are rebuilt without marking its leaves (tried: ``children_left_`` differs)."""
    X, y = _binned_data()
    plain = RandomForestClassifier(5, random_state=0).fit(X, y)
    cases = [plain, ExtraTreesClassifier(4, max_features="sqrt", bootstrap=True, random_state=1).fit(X, y)]
    best_first = RandomForestClassifier(3, max_leaf_nodes=12, random_state=2).fit(X / 7.3, y)  # explicit left
    w = np.random.default_rng(1).random(len(y)) + 0.1  # no counts; thresholds above 255
    weighted = ExtraTreesClassifier(3, max_features=2, min_samples_leaf=3, random_state=3)
    weighted.fit(X * 1.7, y, sample_weight=w)
    cases += [_Joined(plain, best_first), _Joined(plain, weighted), _Joined(best_first, weighted)]
    kinds = set()
    for forest in cases:
        want = CompactForest(forest, integer_inputs=integer_inputs)
        kinds.add((want.children_left_ is None, want.threshold_.dtype.name, want.leaf_values_ is None))
        got = CompactForest.from_parts([CompactForest.tree_part(t) for t in forest.estimators_], forest.classes_,
                                       forest.n_features_in_, integer_inputs=integer_inputs)
        assert_same_compact(got, want)
        Xs = np.floor(X) if integer_inputs else X * 1.3
        np.testing.assert_array_equal(got.predict_proba(Xs), want.predict_proba(Xs))
    assert {left for left, _, _ in kinds} == {True, False} and {counts for _, _, counts in kinds} == {True, False}
    assert {dt for _, dt, _ in kinds} == ({"uint8", "float32"} if integer_inputs else {"float32"})
    with pytest.raises(ValueError, match="at least one tree"):
        CompactForest.from_parts([], plain.classes_, 8)


def _old_route(cf, kind, seed, F, y, n_jobs):
    """The whole forest fitted, its out-of-bag sums, then compacted: the cascade's route before the hook."""
    est = cf._make_forest(kind, seed, n_jobs)
    fit_forest(est, F, y, bootstrap_weights=cf.bootstrap_weights)
    return CompactForest(est, integer_inputs=cf.n_bins is not None), oob_sums(est, F, cf.classes_.size)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("kind", ["random", "extra_trees", "completely_random"])
def test_compact_as_grown_is_the_forest_compacted_after(kind, n_jobs):
    """One out-of-bag model of the DF21 setting (``_fit_model``): the compact forest and out-of-bag sums of the
    trees made compact as they grow equal, bit for bit, those of the whole forest compacted afterwards, on one
    thread or several. Fails when a tree's out-of-bag rows are taken from another tree's draw (tried: the hook
    given the previous tree's draw; the sums differ)."""
    F, y = _binned_data(seed=4)
    cf = CascadeForest.df21(n_estimators=9, n_jobs=n_jobs)
    cf.classes_ = np.unique(y)
    got, (total, count) = cf._fit_model(F, y, (kind, None, None, 1234), n_jobs)
    want, (want_total, want_count) = _old_route(cf, kind, 1234, F, y, n_jobs)
    assert isinstance(got, CompactForest)
    assert_same_compact(got, want)
    assert np.array_equal(total, want_total) and np.array_equal(count, want_count)
    assert cf._kept(got) is got


def test_df21_cascade_is_the_cascade_of_whole_forests():
    """The whole DF21-setting cascade (forests compact as they grow) against the same cascade keeping scikit-learn's
    forests (``compact_trees=False``: the old route, whole forests and :func:`oob_sums`): the same training class
    vectors, levels, scores and predictions bit for bit, and every kept forest the compaction of the other's.
    Fails when the trees made compact as they grow add their probabilities to the wrong classes' sums (tried: the
    class columns reversed in ``_fit_compact_oob``)."""
    X, y = load_iris(return_X_y=True)
    new = CascadeForest.df21(n_estimators=5, max_levels=3, random_state=3).fit(X, y)
    old = CascadeForest.df21(n_estimators=5, max_levels=3, random_state=3, compact_trees=False).fit(X, y)
    assert new.level_scores_ == old.level_scores_ and new.n_levels_ == old.n_levels_
    for a, b in zip(new.train_class_vectors_, old.train_class_vectors_):
        assert np.array_equal(a, b)
    for a, b in zip(new.level_class_vectors(X), old.level_class_vectors(X)):
        assert np.array_equal(a, b)
    assert np.array_equal(new.predict_proba(X), old.predict_proba(X))
    for units_new, units_old in zip(new.levels_, old.levels_):
        for u, v in zip(units_new, units_old):
            assert_same_compact(u.estimators[0], CompactForest(v.estimators[0], integer_inputs=True))


def test_one_full_tree_alive_at_a_time(monkeypatch):
    """While an out-of-bag forest grows on one thread, at most one scikit-learn tree is alive when a tree is made
    compact (the forest's full trees are never all held). Fails when the grown trees are kept until the forest is
    done (tried: ``_grow_in_order`` holding every tree in a list; 9 alive at the last tree)."""
    F, y = _binned_data(seed=5)
    cf = CascadeForest.df21(n_estimators=9)
    cf.classes_ = np.unique(y)
    refs, alive = [], []
    tree_part = CompactForest.tree_part

    def counting(tree):
        refs.append(weakref.ref(tree))
        gc.collect()
        alive.append(sum(r() is not None for r in refs))
        return tree_part(tree)

    monkeypatch.setattr(cascade_module.CompactForest, "tree_part", staticmethod(counting))
    cf._fit_model(F, y, ("random", None, None, 7), 1)
    assert len(alive) == 9 and max(alive) == 1
    assert all(isinstance(r(), (DecisionTreeClassifier, type(None))) for r in refs)


def test_single_class_leaves_keep_their_class_alone():
    """Fully grown trees on distinct rows end in single-class leaves: a compact forest then keeps each leaf's class
    (one byte) instead of its counts and total, and predicts exactly as scikit-learn's forest; one mixed leaf keeps
    the counts. Fails when a leaf's class is read wrongly (tried: ``argmin`` for ``argmax``; the probabilities
    differ)."""
    X, y = _binned_data(seed=6)
    for forest, pure in [(RandomForestClassifier(7, random_state=0), True),
                         (ExtraTreesClassifier(5, max_features="sqrt", bootstrap=True, random_state=1), True),
                         (RandomForestClassifier(7, min_samples_leaf=4, random_state=2), False)]:
        forest.fit(X, y)
        compact = CompactForest(forest, integer_inputs=True)
        assert (compact.leaf_classes_ is not None) == pure and (compact.leaf_counts_ is None) == pure
        for tree, small in zip(forest.estimators_, compact.estimators_):
            np.testing.assert_array_equal(small.tree_.predict(X), tree.tree_.predict(X))
        np.testing.assert_array_equal(compact.predict_proba(X), forest.predict_proba(X))
