"""The large-data path of mvlab.experiments.combinations (docs/algorithms.md §A.10): with prototypes, a
comparison forms no (n, n) matrix and keeps a sample of the matrices and the DVS candidates' maps.

References: every training row a prototype (``prototypes=1.0``) takes the blocked path and must give the
exact path's predictions for every method; the kept sample and the maps are checked against the exact
matrices; a smaller prototype count against standalone classifiers."""

import numpy as np
import pytest

from mvlab.core.projection import pca_axes
from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.experiments import combinations
from mvlab.experiments.combinations import DVS_VARIANTS, CombinationComparison, compare_combinations
from mvlab.rfd.classifier import COMBINATIONS, RFDClassifier
from mvlab.rfd.dvs_pool import subset_dissimilarity

METHODS = tuple(COMBINATIONS) + tuple(DVS_VARIANTS)


@pytest.fixture(scope="module")
def data():
    return make_multiview_classification(240, 3, 5, 3, p_informative=0.6, random_state=1)


def _compare(data, **kw):
    return compare_combinations(data.X, data.y, data.view_indices, view_names=data.view_names, classes=data.classes,
                                combinations=METHODS, informative=data.informative, n_estimators=12, random_state=5,
                                **kw)


@pytest.fixture(scope="module")
def exact(data):
    return _compare(data)


@pytest.fixture(scope="module")
def every_row_a_prototype(data):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(combinations, "SAMPLE_ROWS", 40)
        return _compare(data, prototypes=1.0)


def test_every_row_a_prototype_gives_the_exact_predictions_of_every_method(exact, every_row_a_prototype):
    blocked = every_row_a_prototype
    assert exact.sample is None and blocked.sample is not None and blocked.test_dissimilarities == []
    for m in METHODS:
        np.testing.assert_array_equal(blocked.predictions[m], exact.predictions[m], err_msg=m)
        np.testing.assert_allclose(blocked.weights[m], exact.weights[m], rtol=1e-6, err_msg=m)
    for m in combinations.DVS_METHODS:
        np.testing.assert_array_equal(blocked.explanations[m].chosen, exact.explanations[m].chosen)
        np.testing.assert_array_equal(blocked.explanations[m].region, exact.explanations[m].region)
    assert blocked.oracle_accuracy == exact.oracle_accuracy
    assert "120 of the 120 training rows" in blocked.prototype_note
    assert exact.prototype_note.startswith("Exact dissimilarity space")


def test_the_kept_sample_is_stratified_and_its_matrices_are_the_exact_ones(exact, every_row_a_prototype):
    blocked = every_row_a_prototype
    s = blocked.sample
    assert len(s) == 40 and np.all(np.diff(s) > 0)
    shares = np.bincount(blocked.y_train[s], minlength=3) / 40
    np.testing.assert_allclose(shares, np.bincount(blocked.y_train, minlength=3) / len(blocked.y_train), atol=0.03)
    np.testing.assert_array_equal(blocked.matrix_rows, s)
    for D_sample, D in zip(blocked.train_dissimilarities, exact.train_dissimilarities):
        np.testing.assert_array_equal(D_sample, D[np.ix_(s, s)])
    np.testing.assert_allclose(blocked.joint_train("average"), exact.joint_train("average")[np.ix_(s, s)], rtol=1e-6)


def test_candidate_maps_equal_a_pca_of_the_exact_joint_rows(exact, every_row_a_prototype):
    blocked = every_row_a_prototype
    s = blocked.sample
    for mask in blocked.explanation.subsets:
        train_D = subset_dissimilarity(exact.train_dissimilarities, mask)
        test_D = subset_dissimilarity(exact.test_dissimilarities, mask)
        mean, axes, explained = pca_axes(train_D[s])
        train_xy, test_xy, got_explained, words = blocked.subset_map(mask)
        assert train_xy.shape == (120, 2) and test_xy.shape == (120, 2)
        np.testing.assert_allclose(train_xy, (train_D - mean) @ axes, atol=1e-4)
        np.testing.assert_allclose(test_xy, (test_D - mean) @ axes, atol=1e-4)
        np.testing.assert_allclose(got_explained, explained, rtol=1e-6)
        assert "120 prototypes" in words and "sample of 40 training rows" in words
    with pytest.raises(ValueError, match="large-data path"):
        blocked.subset_rows(np.array([True, False, False]))
    xy, _, _, words = exact.subset_map(np.array([True, True, False]))  # the exact path: a PCA of all rows
    assert xy.shape == (120, 2) and words == "PCA of the dissimilarity rows"


def test_npz_round_trip_keeps_the_sample_the_maps_and_the_note(every_row_a_prototype):
    blocked = every_row_a_prototype
    back = CombinationComparison.from_npz(blocked.to_npz())
    np.testing.assert_array_equal(back.sample, blocked.sample)
    assert back.prototype_note == blocked.prototype_note and back.test_dissimilarities == []
    assert sorted(back.maps) == sorted(blocked.maps) and len(blocked.maps) == 7
    for code, (a, b, e) in blocked.maps.items():
        np.testing.assert_array_equal(back.maps[code][0], a)
        np.testing.assert_array_equal(back.maps[code][1], b)
        np.testing.assert_array_equal(back.maps[code][2], e)


def test_a_shared_region_is_drawn_in_the_all_views_map_even_when_no_candidate_uses_every_view(data):
    from mvlab.rfd.dvs import DVSCombiner

    result = compare_combinations(data.X, data.y, data.view_indices, combinations=("dvs", "dvs-soft-shared"),
                                  dvs=DVSCombiner(max_subset_size=2), n_estimators=6, random_state=5, prototypes=1.0)
    shared = result.explanations["dvs-soft-shared"]
    assert result.sampled and not shared.subsets.all(axis=1).any()  # no candidate has all three views
    train_xy, test_xy, _, _ = result.subset_map(shared.region_space(0))  # the space the page draws it in
    assert train_xy.shape == (120, 2) and test_xy.shape == (120, 2) and len(result.maps) == 6 + 1


def test_a_few_prototypes_equal_standalone_classifiers_with_the_same_prototypes(data):
    result = compare_combinations(data.X, data.y, data.view_indices, combinations=("average", "knn", "dvs"),
                                  n_estimators=12, random_state=5, prototypes=30)
    X_train, y_train = data.X[result.train_index], data.y[result.train_index]
    for c in ("average", "knn", "dvs"):
        clf = RFDClassifier(views=data.view_indices, combination=c, n_estimators=12, random_state=5, prototypes=30)
        clf.fit(X_train, y_train)
        assert clf.n_prototypes_ == 30
        np.testing.assert_array_equal(clf.predict(data.X[result.test_index]), result.predictions[c], err_msg=c)
    assert result.settings["n_prototypes"] == 30 and "30 of the 120 training rows" in result.prototype_note
    assert [D.shape for D in result.train_dissimilarities] == [(120, 120)] * 3  # 120 rows: all sampled


def test_view_rows_remember_their_scans_and_read_a_subset_of_training_rows(data):
    from mvlab.rfd.view_forests import fit_view_forests
    from mvlab.rfd.view_rows import ViewRows, subset_combo

    vf = fit_view_forests(data.X, data.y, data.view_indices, n_estimators=8, random_state=0, dense_max_rows=0)
    protos = np.arange(0, 240, 7)
    combos = [subset_combo(np.array([True, False, True]))]
    fresh = ViewRows(vf.forests, vf.views, data.X[:50], block_entries=500)
    kept = ViewRows(vf.forests, vf.views, data.X[:50], block_entries=500, remember=True)
    first = kept.scan(protos, combos, 5)
    assert kept.scan(protos, combos, 5) is first  # the same answer, not computed again
    assert kept.scan(protos)[0] is first[0]  # the columns of an earlier scan
    other = kept.scan(protos, [subset_combo(np.array([True, True, True]))], 5)
    assert other[0] is first[0]  # new neighbours, the same columns (one copy)
    np.testing.assert_array_equal(other[1], fresh.scan(None, [subset_combo(np.array([True, True, True]))], 5)[1])
    for a, b in zip(fresh.scan(protos, combos, 5), first):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    rows = np.array([3, 17, 18, 200])
    part = ViewRows(vf.forests, vf.views, None, train_subset=rows).scan(protos)[0]
    whole = ViewRows(vf.forests, vf.views, None).scan(protos)[0]
    for a, b in zip(part, whole):
        np.testing.assert_array_equal(a, b[rows])
    with pytest.raises(ValueError, match="exclude_self"):
        ViewRows(vf.forests, vf.views, None, train_subset=rows).scan(protos, combos, 3, exclude_self=True)
