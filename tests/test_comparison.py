"""mvlab.comparison: every combination on one split with shared view forests."""

import numpy as np
import pytest

from mvlab.comparison import CombinationComparison, compare_combinations
from mvlab.datasets import make_multiview_classification
from mvlab.multiview import RFDClassifier


@pytest.fixture(scope="module")
def data():
    return make_multiview_classification(120, 3, 5, 3, p_informative=0.6, random_state=0)


@pytest.fixture(scope="module")
def result(data):
    return compare_combinations(data.X, data.y, data.view_indices, view_names=data.view_names,
                                classes=data.classes, n_estimators=15, random_state=3)


def test_each_combination_equals_a_standalone_classifier_on_the_same_split(data, result):
    X_train, y_train = data.X[result.train_index], data.y[result.train_index]
    X_test = data.X[result.test_index]
    assert len(result.train_index) == len(result.test_index) == 60
    assert set(result.train_index).isdisjoint(result.test_index)
    for c in ["average", "knn", "alignment", "oob"]:
        clf = RFDClassifier(views=data.view_indices, combination=c, n_estimators=15, random_state=3)
        clf.fit(X_train, y_train)
        np.testing.assert_array_equal(clf.predict(X_test), result.predictions[c])
        np.testing.assert_allclose(clf.view_weights_, result.weights[c])
        assert result.accuracy[c] == pytest.approx(np.mean(result.predictions[c] == data.y[result.test_index]))


def test_shapes_tables_and_joint_matrix(result):
    assert [D.shape for D in result.train_dissimilarities] == [(60, 60)] * 3
    assert [D.shape for D in result.test_dissimilarities] == [(60, 60)] * 3
    np.testing.assert_allclose(result.joint_train("average"), np.mean(result.train_dissimilarities, axis=0), rtol=1e-6)
    table = result.table()
    assert table["combination"].tolist() == ["average", "knn", "alignment", "oob"]
    np.testing.assert_allclose(table[["w[v1]", "w[v2]", "w[v3]"]].sum(axis=1), 1)
    assert len(result.weights_frame()) == 12


def test_npz_round_trip_keeps_everything(result):
    back = CombinationComparison.from_npz(result.to_npz())
    assert back.accuracy == result.accuracy and back.settings == result.settings
    assert back.view_names == result.view_names and back.classes == result.classes
    for a, b in zip(back.train_dissimilarities, result.train_dissimilarities):
        np.testing.assert_array_equal(a, b)
    for c in result.combinations:
        np.testing.assert_array_equal(back.weights[c], result.weights[c])


def test_bad_settings_are_clear_errors(data):
    with pytest.raises(ValueError, match="test_size"):
        compare_combinations(data.X, data.y, data.view_indices, test_size=1.5)
    with pytest.raises(ValueError, match="at least two instances"):
        compare_combinations(data.X[:4], np.array([0, 0, 0, 1]), [np.arange(3)])
    with pytest.raises(ValueError, match="cannot split"):
        compare_combinations(data.X, data.y, data.view_indices, test_size=0.01)
