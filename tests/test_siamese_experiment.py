"""SDF versus gcForest on the same pairs (mvlab.experiments.siamese_comparison)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_digits, load_wine

from mvlab.experiments.siamese_comparison import (
    MODELS,
    SiameseExperiment,
    run_siamese_experiment,
    tau_curve,
    tau_tradeoff,
)
from mvlab.siamese.cascade import CascadeForest
from mvlab.siamese.forest import SiameseDeepForest
from mvlab.siamese.pairs import pair_features
from mvlab.siamese.scanning import MultiGrainedScanner

KW = dict(n_estimators=8, max_levels=3, patience=2, lam=0.5, random_state=0)


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return X, y, run_siamese_experiment(X, y, 150, classes=["a", "b", "c"], **KW)


def test_pairs_come_from_disjoint_pools(wine):
    X, y, r = wine
    assert np.intersect1d(r.train_pool, r.test_pool).size == 0
    assert np.isin(r.train_pairs, r.train_pool).all()
    assert np.isin(r.test_pairs, r.test_pool).all()
    assert len(r.y_train) == 150 and len(r.y_test) == 100  # N and 2N/3
    np.testing.assert_array_equal(r.y_test, (y[r.test_pairs[:, 0]] != y[r.test_pairs[:, 1]]).astype(int))
    np.testing.assert_array_equal(r.test_pair_classes, y[r.test_pairs])
    table = r.pair_table()
    assert table["class a"].tolist() == [["a", "b", "c"][c] for c in y[r.test_pairs[:, 0]]]


def test_uniform_model_is_gcforest_and_sdf_is_the_qp_forest(wine):
    X, y, r = wine
    seed = r.settings["cascade_seed"]
    common = dict(n_estimators=8, max_levels=3, patience=2, random_state=seed)
    Ftr, Fte = pair_features(X, r.train_pairs), pair_features(X, r.test_pairs)
    gcf = CascadeForest(**common).fit(Ftr, r.y_train)
    np.testing.assert_array_equal(r.predictions("gcForest"), gcf.predict(Fte))
    np.testing.assert_allclose(r.level_train["gcForest"], gcf.level_scores_)
    assert r.n_levels["gcForest"] == gcf.n_levels_
    sdf = SiameseDeepForest(weighting="qp", lam=0.5, **common, preprocessor=X).fit(r.train_pairs, r.y_train)
    np.testing.assert_allclose(r.scores["SDF"], sdf.similarity_score(r.test_pairs))
    np.testing.assert_array_equal(r.predictions("SDF"), sdf.predict(r.test_pairs))
    # the test accuracy of the last kept level is the model's accuracy
    for m in MODELS:
        assert len(r.level_test[m]) == r.n_levels[m] <= len(r.level_train[m])
        assert r.level_test[m][-1] == pytest.approx(r.accuracy(m))


def test_weights_lie_on_the_simplex_and_effective_numbers_agree(wine):
    _, _, r = wine
    assert len(r.weights) == r.n_levels["SDF"]
    assert r.forest_names == ["CRF 1", "CRF 2", "RF 1", "RF 2"]
    for level in r.weights:
        assert len(level) == 4
        for W in level:
            assert W.shape == (3, 8)
            assert np.all(W >= 0)
            np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-9)
    table = r.weight_table()
    assert len(table) == 4 * r.n_levels["SDF"]
    np.testing.assert_allclose(table["effective trees (mean)"].iloc[0], np.mean(1 / np.sum(r.weights[0][0] ** 2, 1)))
    assert table["effective trees (max)"].le(8 + 1e-9).all() and table["effective trees (min)"].ge(1).all()
    # z-doubling: the effective lambda is divided by 4 per level
    assert table.groupby("level")["effective lambda"].first().tolist() == [0.5 / 4**q for q in range(len(r.weights))]
    assert r.table().set_index("model").loc["gcForest", "mean effective number of trees"] == 8


def test_tau_rule_by_hand():
    scores = np.array([-1.0, 0.0, 0.2, 0.5, 1.0])
    y = np.array([1, 0, 1, 0, 0])
    # tau = 0.5: -1 -> dissimilar (right), 0 and 0.2 undetermined, 0.5 and 1.0 similar (right)
    t = tau_tradeoff(scores, y, 0.5)
    assert t.undetermined == pytest.approx(0.4) and t.accuracy == 1.0 and t.n_determined == 3
    # tau = 0: every pair decided; 0.2 is called similar but is dissimilar
    t = tau_tradeoff(scores, y, 0.0)
    assert t.undetermined == 0.0 and t.accuracy == pytest.approx(0.8) and t.n_determined == 5
    # tau above every score: only the negative score is decided
    t = tau_tradeoff(scores, y, 2.0)
    assert t.undetermined == pytest.approx(0.8) and t.accuracy == 1.0
    curve = tau_curve(scores, y, [0.0, 0.5, 2.0])
    expected = pd.DataFrame({"tau": [0.0, 0.5, 2.0], "undetermined": [0.0, 0.4, 0.8],
                             "accuracy": [0.8, 1.0, 1.0], "n_determined": [5, 3, 1]})
    pd.testing.assert_frame_equal(curve, expected, check_dtype=False)
    assert tau_curve(scores, y)["tau"].iloc[-1] == 1.0  # default grid ends at the largest score
    assert np.isnan(tau_tradeoff([0.1], [0], 1.0).accuracy)
    with pytest.raises(ValueError, match="tau"):
        tau_tradeoff(scores, y, -0.1)


def test_npz_round_trip(wine):
    _, _, r = wine
    back = SiameseExperiment.from_npz(r.to_npz())
    pd.testing.assert_frame_equal(back.table(), r.table())
    pd.testing.assert_frame_equal(back.level_table(), r.level_table())
    pd.testing.assert_frame_equal(back.weight_table(), r.weight_table())
    pd.testing.assert_frame_equal(back.pair_table(0.3), r.pair_table(0.3))
    for m in MODELS:
        np.testing.assert_array_equal(back.scores[m], r.scores[m])
    np.testing.assert_array_equal(back.train_pairs, r.train_pairs)
    np.testing.assert_array_equal(back.train_pool, r.train_pool)
    assert back.settings == r.settings and back.classes == r.classes and back.seconds == r.seconds


def test_shared_scanner_equals_a_scanner_inside_each_model():
    X, y = load_digits(return_X_y=True)
    keep = np.concatenate([np.flatnonzero(y == c)[:30] for c in range(10)])
    X, y = X[keep], y[keep]
    kw = dict(n_estimators=5, max_levels=2, patience=1, random_state=1)
    r = run_siamese_experiment(X, y, 60, scanning=True, image_shape=(8, 8), window_sizes=[4],
                               scan_estimators=5, **kw)
    assert r.settings["window_sizes"] == [4]
    seed = r.settings["cascade_seed"]
    scanner = MultiGrainedScanner(image_shape=(8, 8), window_sizes=[4], pairs=True, n_estimators=5,
                                  random_state=seed)
    sdf = SiameseDeepForest(weighting="qp", lam=1.0, scanner=scanner, n_estimators=5, max_levels=2,
                            random_state=seed, preprocessor=X).fit(r.train_pairs, r.y_train)
    np.testing.assert_allclose(r.scores["SDF"], sdf.similarity_score(r.test_pairs))


def test_bad_settings_raise_value_errors():
    X, y = load_wine(return_X_y=True)
    with pytest.raises(ValueError, match="image"):
        run_siamese_experiment(X, y, 30, scanning=True, n_estimators=3)
    with pytest.raises(ValueError, match="single class"):
        run_siamese_experiment(X[:12], y[:12], 30, n_estimators=3)
    few = np.r_[0:6, 59:65]  # 12 instances of 2 classes: a few distinct similar pairs only
    with pytest.raises(ValueError, match="distinct similar pairs"):
        run_siamese_experiment(X[few], y[few], 200, n_estimators=3)
    with pytest.raises(ValueError, match="lam"):
        run_siamese_experiment(X, y, 30, n_estimators=3, lam=-1.0)
