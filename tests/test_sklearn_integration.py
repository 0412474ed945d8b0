"""mvlab's estimators inside scikit-learn's machinery, on bundled real data: clone, GridSearchCV
(reaching a measure's parameters), Pipeline and cross-validation with natural views, and a grid
search over a Siamese deep forest fed index pairs through its preprocessor."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from mvlab import (
    OFSP,
    RFD,
    ForestDissimilarity,
    RFDClassifier,
    SiameseDeepForest,
    ViewEnsemble,
    load_dataset,
    make_pair_split,
)
from mvlab.rfd.classifier import StaticCombiner
from mvlab.rfd.dvs import DVSCombiner


@pytest.fixture(scope="module")
def ds():
    return load_dataset("breast-cancer").stratified_sample(150, random_state=0)


def test_natural_views_survive_clone_and_set_params(ds):
    clf = RFDClassifier(views=ds.views, n_estimators=5)
    twin = clone(clf)
    assert twin.views == ds.views and twin.get_params()["views"] is ds.views
    twin.set_params(combination="oob", measure=RFD(kdn_k=3))
    assert twin.get_params()["measure__kdn_k"] == 3 and clf.combination == "average"


def test_grid_search_over_combination_and_a_measure_parameter(ds):
    grid = GridSearchCV(
        RFDClassifier(views=ds.views, measure=RFD(), n_estimators=8, random_state=0),
        {"combination": ["average", "oob"], "measure__kdn_k": [3, 5]},
        cv=StratifiedKFold(3, shuffle=True, random_state=0), n_jobs=1,
    ).fit(ds.X, ds.y)
    assert len(grid.cv_results_["params"]) == 4
    assert grid.best_estimator_.views_[0].tolist() == ds.views["mean"].tolist()
    assert grid.best_estimator_.view_forests_[0].measure_.kdn_k == grid.best_params_["measure__kdn_k"]
    # the refit best model is the model refitted by hand with those parameters
    by_hand = RFDClassifier(views=ds.views, n_estimators=8, random_state=0,
                            measure=RFD(kdn_k=grid.best_params_["measure__kdn_k"]),
                            combination=grid.best_params_["combination"]).fit(ds.X, ds.y)
    np.testing.assert_array_equal(grid.predict_proba(ds.X[:20]), by_hand.predict_proba(ds.X[:20]))


def test_grid_search_reaches_the_dvs_rules_nested_in_the_combination(ds):
    """Parameters live in the estimator: the DVS rules are the combination object's, reached as
    ``combination__competence`` and ``combination__k``; the object given is never fitted or changed."""
    given = DVSCombiner(competence="ola")
    clf = RFDClassifier(views=ds.views, combination=given, n_estimators=6, random_state=0)
    assert {"combination__competence", "combination__k", "combination__region"} <= set(clf.get_params(deep=True))
    grid = GridSearchCV(clf, {"combination__competence": ["ola", "soft"], "combination__k": [3, 9]},
                        cv=StratifiedKFold(3, shuffle=True, random_state=0), n_jobs=1).fit(ds.X, ds.y)
    assert len(grid.cv_results_["params"]) == 4
    best = grid.best_estimator_.combiner_
    assert isinstance(best, DVSCombiner) and hasattr(best, "candidates_")
    assert (best.competence, best.k) == (grid.best_params_["combination__competence"],
                                         grid.best_params_["combination__k"])
    assert best.n_estimators == 6  # the classifier's forest parameters reach the combiner
    assert not hasattr(given, "candidates_") and given.get_params()["k"] == 7 and given.n_estimators == 100
    # a rule changes the model: the four settings do not all score alike on every fold
    scores = np.array([grid.cv_results_[f"split{i}_test_score"] for i in range(3)])
    assert np.ptp(scores, axis=1).max() > 0
    by_hand = RFDClassifier(views=ds.views, n_estimators=6, random_state=0, combination=DVSCombiner(
        competence=best.competence, k=best.k)).fit(ds.X, ds.y)
    np.testing.assert_array_equal(grid.predict_proba(ds.X[:20]), by_hand.predict_proba(ds.X[:20]))


def test_a_nested_rule_on_a_combination_name_makes_its_combiner(ds):
    clf = RFDClassifier(views=ds.views, combination="knn").set_params(combination__k=5)
    assert isinstance(clf.combination, StaticCombiner) and clf.combination.get_params()["combination"] == "knn"
    assert clf.get_params()["combination__k"] == 5
    both = RFDClassifier().set_params(combination="dvs", combination__region="shared")
    assert isinstance(both.combination, DVSCombiner) and both.combination.region == "shared"
    with pytest.raises(ValueError, match="competence"):
        RFDClassifier(combination="average").set_params(combination__competence="soft")


def test_pipeline_with_scaling_keeps_the_views(ds):
    pipe = Pipeline([("scale", StandardScaler()),
                     ("rfd", RFDClassifier(views=ds.views, combination="knn", n_estimators=8, random_state=0))])
    scores = cross_val_score(pipe, ds.X, ds.y, cv=StratifiedKFold(3, shuffle=True, random_state=1))
    assert scores.mean() > 0.8  # breast cancer is easy: a broken pipeline would be near 0.63
    # trees split on thresholds: scaling changes nothing, so the pipeline equals the bare classifier
    bare = cross_val_score(RFDClassifier(views=ds.views, combination="knn", n_estimators=8, random_state=0),
                           ds.X, ds.y, cv=StratifiedKFold(3, shuffle=True, random_state=1))
    np.testing.assert_allclose(scores, bare)


def test_grid_search_over_the_number_of_learned_views(ds):
    grid = GridSearchCV(ViewEnsemble(partitioner=OFSP(estimator="nb", inner_cv=2, random_state=0), estimator="nb",
                                     inner_cv=2, random_state=0),
                        {"partitioner__n_views": [1, 2, 3]}, cv=StratifiedKFold(3, shuffle=True, random_state=0))
    grid.fit(ds.X, ds.y)
    assert grid.best_params_["partitioner__n_views"] in (1, 2, 3)
    assert len(grid.best_estimator_.partitioner_.views_) == grid.best_params_["partitioner__n_views"]


def test_forest_dissimilarity_as_a_pipeline_step(ds):
    """A dissimilarity representation feeding another classifier (the dissimilarity-space approach)."""
    from sklearn.neighbors import KNeighborsClassifier

    pipe = Pipeline([("rf", ForestDissimilarity(n_estimators=20, random_state=0)),
                     ("knn", KNeighborsClassifier(5, metric="precomputed"))])
    score = cross_val_score(pipe, ds.X, ds.y, cv=StratifiedKFold(3, shuffle=True, random_state=0)).mean()
    assert score > 0.85


def test_grid_search_on_index_pairs_with_a_preprocessor_equals_the_three_d_form(ds):
    """metric-learn's convention: with preprocessor=X the pairs are row indices (n_pairs, 2), which
    GridSearchCV splits like any X; the result is that of the pairs given as (n_pairs, 2, n_features)."""
    split = make_pair_split(ds.y, 120, random_state=0)
    kw = dict(n_estimators=5, max_levels=2, n_folds=2, random_state=0)
    grid = {"lam": [0.01, 10.0]}
    by_index = GridSearchCV(SiameseDeepForest(preprocessor=ds.X, **kw), grid, cv=2).fit(split.train_pairs,
                                                                                        split.y_train)
    by_value = GridSearchCV(SiameseDeepForest(**kw), grid, cv=2).fit(ds.X[split.train_pairs], split.y_train)
    assert len(by_index.cv_results_["params"]) == 2 and by_index.best_params_ == by_value.best_params_
    np.testing.assert_array_equal(by_index.cv_results_["mean_test_score"], by_value.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(by_index.predict(split.test_pairs), by_value.predict(ds.X[split.test_pairs]))
    np.testing.assert_array_equal(by_index.decision_function(split.test_pairs),
                                  by_value.decision_function(ds.X[split.test_pairs]))
    assert by_index.score(split.test_pairs, split.y_test) > 0.6  # pairs of an easy dataset: chance is 0.5
