"""mvlab.core.forest_fit: the fast fit builds scikit-learn's own forest, tree for tree, attribute for attribute."""

import threading
import warnings

import numpy as np
import pytest
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

from mvlab.core import forest_fit
from mvlab.core.forest_fit import fast_path_available, fit_forest

TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "value", "impurity", "n_node_samples",
               "weighted_n_node_samples")


def _data(n=90, d=7, n_classes=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, d)
    y = np.digitize(X[:, 0] + 0.4 * rng.rand(n), np.linspace(0.2, 1.2, n_classes)[:-1])
    return X, y


def _same_value(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if hasattr(a, "get_params"):
        return type(a) is type(b) and a.get_params() == b.get_params()
    return type(a) is type(b) and a == b


def assert_same_forest(ours, theirs, X):
    """Every attribute of the forest and of every tree, and every array of every tree structure."""
    skip = {"estimators_", "_sample_weight"}
    assert set(vars(ours)) == set(vars(theirs))
    for key in set(vars(theirs)) - skip:
        assert _same_value(vars(ours)[key], vars(theirs)[key]), key
    assert ours._sample_weight is None and theirs._sample_weight is None
    assert len(ours.estimators_) == len(theirs.estimators_)
    for a, b in zip(ours.estimators_, theirs.estimators_):
        assert set(vars(a)) == set(vars(b))
        for key in set(vars(b)) - {"tree_"}:
            assert _same_value(vars(a)[key], vars(b)[key]), key
        for name in TREE_ARRAYS:
            assert np.array_equal(getattr(a.tree_, name), getattr(b.tree_, name)), name
    for got, want in zip(ours.estimators_samples_, theirs.estimators_samples_):
        assert np.array_equal(got, want)
    assert np.array_equal(ours.predict_proba(X), theirs.predict_proba(X))
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    assert np.array_equal(ours.apply(X), theirs.apply(X))


CASES = [
    (RandomForestClassifier, {}),
    (RandomForestClassifier, {"max_features": 0.5, "criterion": "entropy", "min_samples_leaf": 2}),
    (RandomForestClassifier, {"bootstrap": False, "max_depth": 3, "max_features": None}),
    (ExtraTreesClassifier, {"max_features": 1}),
    (ExtraTreesClassifier, {"max_features": "log2", "bootstrap": True, "min_samples_split": 5}),
    (ExtraTreesClassifier, {"max_features": 3, "min_impurity_decrease": 0.01}),
]


@pytest.mark.parametrize("kind,params", CASES)
@pytest.mark.parametrize("seed", [0, 11])
def test_fast_fit_is_sklearns_fit(kind, params, seed):
    X, y = _data(seed=seed)
    ours = fit_forest(kind(n_estimators=12, random_state=seed, **params), X, y)
    theirs = kind(n_estimators=12, random_state=seed, **params).fit(X, y)
    assert_same_forest(ours, theirs, X)


def test_labels_of_any_kind_and_threads():
    X, y = _data(n=70, n_classes=3, seed=4)
    labels = np.array(["b", "k", "z"])[y]  # strings, as a user's labels may be
    for n_jobs in (1, 2):
        ours = fit_forest(RandomForestClassifier(n_estimators=9, random_state=5, n_jobs=n_jobs), X, labels)
        theirs = RandomForestClassifier(n_estimators=9, random_state=5, n_jobs=n_jobs).fit(X, labels)
        assert_same_forest(ours, theirs, X)
    gapped = np.array([2, 5, 9])[y]  # labels that are not 0..C-1
    ours = fit_forest(ExtraTreesClassifier(n_estimators=5, random_state=1), X.astype(np.float32), gapped)
    theirs = ExtraTreesClassifier(n_estimators=5, random_state=1).fit(X.astype(np.float32), gapped)
    assert_same_forest(ours, theirs, X)


def test_random_state_objects_draw_the_same_seeds():
    X, y = _data(seed=2)
    ours = fit_forest(RandomForestClassifier(n_estimators=6, random_state=np.random.RandomState(8)), X, y)
    theirs = RandomForestClassifier(n_estimators=6, random_state=np.random.RandomState(8)).fit(X, y)
    assert [t.random_state for t in ours.estimators_] == [t.random_state for t in theirs.estimators_]
    assert np.array_equal(ours.predict_proba(X), theirs.predict_proba(X))


def test_settings_outside_the_fast_path_go_to_forest_fit(monkeypatch):
    X, y = _data(seed=3)
    calls = []
    monkeypatch.setattr(forest_fit, "_fit_fast", lambda *a: calls.append(a) or a[0])
    with_nan = X.copy()
    with_nan[0, 0] = np.nan
    for forest, data, labels in [
        (RandomForestClassifier(n_estimators=3, class_weight="balanced", random_state=0), X, y),
        (RandomForestClassifier(n_estimators=3, max_samples=0.5, random_state=0), X, y),
        (RandomForestClassifier(n_estimators=3, oob_score=True, random_state=0), X, y),
        (ExtraTreesClassifier(n_estimators=3, random_state=0), with_nan, y),
        (RandomForestClassifier(n_estimators=3, random_state=0), X, y.reshape(-1, 1)),
    ]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit_forest(forest, data, labels)
        assert hasattr(forest, "estimators_")
    assert calls == []


def test_bad_labels_raise_the_forests_own_error():
    X, _ = _data()
    with pytest.raises(ValueError, match="Unknown label type"):
        fit_forest(RandomForestClassifier(n_estimators=2), X, np.linspace(0, 1, X.shape[0]))


def test_a_different_builder_disables_the_fast_path(monkeypatch):
    monkeypatch.setattr(forest_fit, "_verified", [])
    monkeypatch.setattr(forest_fit, "_builder_parts", lambda: (_ for _ in ()).throw(ImportError("moved")))
    with pytest.warns(RuntimeWarning, match="slower, same results"):
        assert not fast_path_available()
    X, y = _data()
    forest = fit_forest(RandomForestClassifier(n_estimators=3, random_state=0), X, y)
    reference = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    assert np.array_equal(forest.predict(X), reference.predict(X))


def _distinct_reference(forest, X, y):
    """``bootstrap_weights="distinct"`` written out plainly: every tree is scikit-learn's own tree of the
    forest's kind and parameters, with the seed the forest gave it, fitted on the rows its bootstrap drew,
    each once (``X[drawn]``, in row order, no weights), as DF21 fits its trees."""
    from sklearn.ensemble._forest import _generate_sample_indices

    classes, y_enc = np.unique(y, return_inverse=True)
    trees = []
    for fitted in forest.estimators_:
        seed = fitted.random_state
        drawn = np.unique(_generate_sample_indices(seed, len(y), len(y), None))
        tree = forest._make_estimator(append=False)
        tree.set_params(random_state=seed)
        trees.append(tree.fit(X[drawn], y_enc[drawn]))
    return trees


@pytest.mark.parametrize("kind,params", [
    (RandomForestClassifier, {}),
    (RandomForestClassifier, {"min_samples_leaf": 3, "max_features": 0.5}),
    (ExtraTreesClassifier, {"bootstrap": True, "max_features": "sqrt"}),
    (ExtraTreesClassifier, {"bootstrap": True, "max_features": 1, "min_samples_split": 4}),
])
@pytest.mark.parametrize("seed", [0, 5])
def test_distinct_bootstrap_grows_each_tree_on_its_drawn_rows_once(kind, params, seed):
    """``bootstrap_weights="distinct"``: every tree is the tree scikit-learn grows on the distinct rows its
    bootstrap drew (:func:`_distinct_reference`), node for node; the draws (``estimators_samples_``, the
    out-of-bag rows) are those of the default; the trees differ from the default's. Fails when the fast path
    keeps the draw counts as weights (tried: the first tree's ``children_left`` differs)."""
    X, y = _data(n=120, seed=seed)
    ours = fit_forest(kind(n_estimators=8, random_state=seed, **params), X, y, bootstrap_weights="distinct")
    counts = fit_forest(kind(n_estimators=8, random_state=seed, **params), X, y)
    for a, b in zip(ours.estimators_, _distinct_reference(ours, X, y)):
        for name in ("children_left", "children_right", "feature", "threshold", "value", "n_node_samples",
                     "weighted_n_node_samples"):
            assert np.array_equal(getattr(a.tree_, name), getattr(b.tree_, name)), name
    for got, want in zip(ours.estimators_samples_, counts.estimators_samples_):
        assert np.array_equal(got, want)
    assert not np.array_equal(ours.predict_proba(X), counts.predict_proba(X))
    assert np.array_equal(ours.estimators_[0].tree_.weighted_n_node_samples[0],
                          float(np.unique(ours.estimators_samples_[0]).size))


def test_distinct_bootstrap_outside_the_fast_path_is_the_same_forest(monkeypatch):
    """The slow route of ``"distinct"`` (``forest.fit``, then every tree grown again on its drawn rows) gives
    the fast path's forest; without bootstrap the option changes nothing; a bad value is refused. Fails when
    the slow route ignores the option (tried: ``forest.fit`` alone, the probabilities differ)."""
    X, y = _data(n=100, seed=3)
    labels = np.array(["b", "k", "z"])[y]
    fast = fit_forest(RandomForestClassifier(n_estimators=6, random_state=2), X, labels, bootstrap_weights="distinct")
    monkeypatch.setattr(forest_fit, "_verified", [False])
    slow = fit_forest(RandomForestClassifier(n_estimators=6, random_state=2), X, labels, bootstrap_weights="distinct")
    assert np.array_equal(fast.predict_proba(X), slow.predict_proba(X))
    assert np.array_equal(fast.predict(X), slow.predict(X))
    monkeypatch.setattr(forest_fit, "_verified", [True])
    plain = fit_forest(ExtraTreesClassifier(n_estimators=4, random_state=1), X, y, bootstrap_weights="distinct")
    assert_same_forest(plain, ExtraTreesClassifier(n_estimators=4, random_state=1).fit(X, y), X)
    with pytest.raises(ValueError, match="bootstrap_weights must be"):
        fit_forest(RandomForestClassifier(n_estimators=2), X, y, bootstrap_weights="unique")


@pytest.mark.parametrize("n_jobs", [1, 3])
@pytest.mark.parametrize("fast", [True, False])
def test_on_tree_sees_every_tree_in_order_with_its_draw(monkeypatch, n_jobs, fast):
    """``on_tree(tree, drawn)`` is called once per tree, tree 0 first, in the calling thread, whatever the
    threads and route: each tree is the one ``fit_forest`` without the hook keeps (node for node), ``drawn`` its
    ``estimators_samples_``, and ``estimators_`` holds what the hook returned. Fails when the threaded fast path
    hands the trees over as they complete instead of in seed order (tried: a reversed submission order)."""
    X, y = _data(n=110, seed=4)
    monkeypatch.setattr(forest_fit, "_verified", [fast])
    for kind, params in [(RandomForestClassifier, {}), (ExtraTreesClassifier, {"bootstrap": False})]:
        plain = fit_forest(kind(n_estimators=11, random_state=6, n_jobs=n_jobs, **params), X, y,
                           bootstrap_weights="distinct")
        seen = []

        def on_tree(tree, drawn, seen=seen):
            seen.append((tree, drawn, threading.get_ident()))
            return len(seen) - 1

        hooked = fit_forest(kind(n_estimators=11, random_state=6, n_jobs=n_jobs, **params), X, y,
                            bootstrap_weights="distinct", on_tree=on_tree)
        assert hooked.estimators_ == list(range(11))
        assert {ident for _, _, ident in seen} == {threading.get_ident()}
        samples = plain.estimators_samples_ if plain.bootstrap else [None] * 11
        for (tree, drawn, _), want, rows in zip(seen, plain.estimators_, samples):
            assert tree.random_state == want.random_state
            for name in TREE_ARRAYS:
                assert np.array_equal(getattr(tree.tree_, name), getattr(want.tree_, name)), name
            assert (drawn is None) if rows is None else np.array_equal(drawn, rows)
        assert np.array_equal(hooked.classes_, plain.classes_) and hooked.n_features_in_ == plain.n_features_in_


def test_the_fast_fit_forest_class_is_sklearns_forest_inside_sklearns_own_meta_estimators():
    """:class:`FastFitRandomForestClassifier` fitted by scikit-learn's meta-estimators (cloned by a
    ``StackingClassifier``, fitted inside a ``Pipeline`` on every fold of its ``cross_val_predict``) gives the same
    probabilities as the same stacking of scikit-learn's ``RandomForestClassifier``; alone it is that forest, attribute
    for attribute; with sample weights, or settings outside the fast path, it is fitted by scikit-learn's ``fit`` (not
    by itself again). Broken once: with its ``fit`` drawing the trees' seeds from ``random_state + 1``, the
    stacking's probabilities differed."""
    from sklearn.base import clone
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import StackingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import Pipeline

    from mvlab.core.forest_fit import FastFitRandomForestClassifier

    X, y = _data(n=120, seed=5)

    def stacking(kind):
        members = [(f"view{q}", Pipeline([("select", ColumnTransformer([("v", "passthrough", cols)])),
                                          ("forest", kind(n_estimators=7, random_state=3))]))
                   for q, cols in enumerate(([0, 1, 2], [3, 4, 5, 6]))]
        return StackingClassifier(members, final_estimator=LogisticRegression(max_iter=1000),
                                  cv=StratifiedKFold(3, shuffle=True, random_state=2), stack_method="predict_proba")

    ours, theirs = stacking(FastFitRandomForestClassifier).fit(X, y), stacking(RandomForestClassifier).fit(X, y)
    assert type(ours.estimators_[0][-1]) is FastFitRandomForestClassifier
    assert np.array_equal(ours.predict_proba(X), theirs.predict_proba(X))
    alone = FastFitRandomForestClassifier(n_estimators=9, random_state=4, max_features=0.5)
    assert clone(alone).get_params() == RandomForestClassifier(n_estimators=9, random_state=4,
                                                               max_features=0.5).get_params()
    reference = RandomForestClassifier(n_estimators=9, random_state=4, max_features=0.5).fit(X, y)
    assert_same_forest(alone.fit(X, y), reference, X)
    weights = np.random.RandomState(0).rand(len(y))
    for forest, kwargs in [(FastFitRandomForestClassifier(n_estimators=4, random_state=1), {"sample_weight": weights}),
                           (FastFitRandomForestClassifier(n_estimators=4, random_state=1, class_weight="balanced"),
                            {})]:
        params = forest.get_params()
        want = RandomForestClassifier(**params).fit(X, y, **kwargs)
        assert np.array_equal(forest.fit(X, y, **kwargs).predict_proba(X), want.predict_proba(X))
