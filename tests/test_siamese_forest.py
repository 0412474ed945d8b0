"""Siamese deep forest (docs/algorithms.md §C.3-C.7)."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_wine

from mvlab.siamese.cascade import CascadeForest, tree_probas
from mvlab.siamese.forest import (
    UNDETERMINED,
    SiameseDeepForest,
    effective_number_of_trees,
    threshold_rule,
    tree_margin_matrix,
)
from mvlab.siamese.pairs import make_pair_split, pair_features
from mvlab.siamese.scanning import MultiGrainedScanner
from mvlab.siamese.tree_weights import solve_tree_weights, tree_weight_objective

COMMON = dict(n_estimators=10, max_levels=3, patience=2, random_state=0)


@pytest.fixture(scope="module")
def wine_pairs():
    X, y = load_wine(return_X_y=True)
    return X, make_pair_split(y, 240, random_state=0)


@pytest.fixture(scope="module")
def sdf_qp(wine_pairs):
    X, sp = wine_pairs
    return SiameseDeepForest(weighting="qp", lam=0.5, **COMMON, preprocessor=X).fit(sp.train_pairs, sp.y_train)


def test_uniform_sdf_is_exactly_gcforest(wine_pairs):
    X, sp = wine_pairs
    sdf = SiameseDeepForest(weighting="uniform", **COMMON, preprocessor=X).fit(sp.train_pairs, sp.y_train)
    gcf = CascadeForest(**COMMON).fit(pair_features(X, sp.train_pairs), sp.y_train)
    Fte = pair_features(X, sp.test_pairs)
    np.testing.assert_array_equal(sdf.predict(sp.test_pairs), gcf.predict(Fte))
    np.testing.assert_array_equal(sdf.predict_proba(sp.test_pairs), gcf.predict_proba(Fte))
    assert sdf.level_scores_ == gcf.level_scores_
    # weights_ are uniform, one row per fold-model
    for level in sdf.weights_:
        for W in level:
            assert W.shape == (3, 10)
            np.testing.assert_array_equal(W, np.full((3, 10), 0.1))
    # tau = 0: S0 - S1 >= 0 <=> argmax, ties included
    s = sdf.similarity_score(sp.test_pairs)
    np.testing.assert_array_equal(s >= 0, gcf.predict(Fte) == 0)


def test_three_d_pairs_equal_index_pairs_with_a_preprocessor(wine_pairs):
    X, sp = wine_pairs
    kw = dict(weighting="qp", max_levels=1, n_estimators=6, random_state=3)
    a = SiameseDeepForest(**kw, preprocessor=X).fit(sp.train_pairs, sp.y_train)
    b = SiameseDeepForest(**kw).fit(X[sp.train_pairs], sp.y_train)  # (n_pairs, 2, n_features)
    s = a.decision_function(sp.test_pairs)
    np.testing.assert_array_equal(s, b.decision_function(X[sp.test_pairs]))
    np.testing.assert_array_equal(a.predict_proba(sp.test_pairs), b.predict_proba(X[sp.test_pairs]))
    assert a.score(sp.test_pairs, sp.y_test) == b.score(X[sp.test_pairs], sp.y_test)
    assert a.n_pair_features_ == b.n_pair_features_ == 2 * X.shape[1]


def test_effective_number_of_trees(sdf_qp):
    assert effective_number_of_trees(np.full(8, 0.125)) == pytest.approx(8.0)
    assert effective_number_of_trees(np.eye(3)).tolist() == [1.0, 1.0, 1.0]
    eff = effective_number_of_trees(sdf_qp.weights_[0][0])
    assert eff.shape == (3,) and np.all((eff >= 1) & (eff <= 10))


def test_qp_weights_on_simplex_and_not_uniform(sdf_qp):
    assert len(sdf_qp.weights_) == sdf_qp.n_levels_
    eff = []
    for level, infos in zip(sdf_qp.weights_, sdf_qp.qp_info_):
        assert len(level) == 4
        for W, info in zip(level, infos):
            assert W.shape == (3, 10)
            assert np.all(W >= 0)
            np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-9)
            eff.extend(1.0 / np.sum(W**2, axis=1))
            assert len(info) == 9  # 3 fold-model QPs + 2 cross-fitting QPs per fold
            assert all(i.converged for i in info)
    assert min(eff) < 9.99  # the QP moved some forest away from uniform weights


def test_deterministic(wine_pairs, sdf_qp):
    X, sp = wine_pairs
    again = SiameseDeepForest(weighting="qp", lam=0.5, **COMMON, preprocessor=X).fit(sp.train_pairs, sp.y_train)
    np.testing.assert_array_equal(
        again.decision_function(sp.test_pairs), sdf_qp.decision_function(sp.test_pairs)
    )
    for la, lb in zip(again.weights_, sdf_qp.weights_):
        for a, b in zip(la, lb):
            np.testing.assert_array_equal(a, b)


def test_class_vectors_are_weighted_sums(wine_pairs, sdf_qp):
    """Eq. 12 at test time: v = mean over fold-models of sum_t w_t p^(t)."""
    X, sp = wine_pairs
    V0 = sdf_qp.level_class_vectors(sp.test_pairs)[0]
    F = pair_features(X, sp.test_pairs)
    for k, unit in enumerate(sdf_qp.levels_[0]):
        manual = np.mean(
            [np.tensordot(w, tree_probas(est, F, 2), axes=(0, 0)) for est, w in zip(unit.estimators,
                                                                                    sdf_qp.weights_[0][k])],
            axis=0,
        )
        np.testing.assert_allclose(V0[:, k], manual, atol=1e-12)
    s = sdf_qp.similarity_score(sp.test_pairs)
    V = sdf_qp.level_class_vectors(sp.test_pairs)[-1]
    np.testing.assert_allclose(s, V[:, :, 0].sum(1) - V[:, :, 1].sum(1))


def test_insample_weights_solve_the_paper_qp_with_z_doubling(wine_pairs):
    """qp_probas='insample', OOB cascade: w of level q solves Eqs. 27-28 on the training pairs
    with P scaled by z^(q) = 2^(q-1) z (§C.6)."""
    X, sp = wine_pairs
    sdf = SiameseDeepForest(
        weighting="qp", qp_probas="insample", class_vectors="oob", lam=0.05, n_estimators=8,
        max_levels=2, patience=2, min_samples_leaf=5, random_state=0, preprocessor=X,
    ).fit(sp.train_pairs, sp.y_train)
    assert sdf.n_levels_ == 2
    F = pair_features(X, sp.train_pairs)
    assert sdf.z_scale(0) == 1.0 and sdf.z_scale(1) == 2.0 and sdf.z_scale(3) == 8.0
    unit = sdf.levels_[0][2]
    est = unit.estimators[0]
    P = tree_margin_matrix(tree_probas(est, F, 2), sp.y_train, 1.0)
    w_ref = solve_tree_weights(P, 0.05, solver="cvxpy")
    f = tree_weight_objective(P, sdf.weights_[0][2][0], 0.05)
    f_ref = tree_weight_objective(P, w_ref, 0.05)
    assert abs(f - f_ref) <= 1e-6 * f_ref
    # level 2 (index 1): input = pairs + level-1 training class vectors (Eq. 11), z doubled
    F1 = np.hstack([F, sdf.train_class_vectors_[0].reshape(len(F), -1)])
    est1 = sdf.levels_[1][0].estimators[0]
    P1 = tree_margin_matrix(tree_probas(est1, F1, 2), sp.y_train, 2.0)
    w1_ref = solve_tree_weights(P1, 0.05, solver="cvxpy")
    f1 = tree_weight_objective(P1, sdf.weights_[1][0][0], 0.05)
    f1_ref = tree_weight_objective(P1, w1_ref, 0.05)
    assert f1_ref > 0 and abs(f1 - f1_ref) <= 1e-6 * f1_ref
    # z-doubling == lam / 4: weights at scale 2 equal the weights of lam/4 at scale 1
    w2 = solve_tree_weights(2.0 * P, 0.05)
    w1 = solve_tree_weights(P, 0.05 / 4)
    np.testing.assert_allclose(w2, w1, atol=1e-6)


def test_tau_rule():
    s = np.array([0.5, 0.2, 0.1, 0.0, -1e-12, -0.3])
    np.testing.assert_array_equal(threshold_rule(s, 0.2), [0, 0, -1, -1, 1, 1])
    np.testing.assert_array_equal(threshold_rule(s, 0.0), [0, 0, 0, 0, 1, 1])
    np.testing.assert_array_equal(threshold_rule(s), threshold_rule(s, 0.0))
    assert UNDETERMINED == -1


def test_decision_function_is_positive_for_the_second_class(wine_pairs, sdf_qp):
    """scikit-learn reads a positive binary score as classes_[1] (dissimilar); the paper's S0 - S1
    keeps its own sign under similarity_score."""
    _, sp = wine_pairs
    s = sdf_qp.similarity_score(sp.test_pairs)
    d = sdf_qp.decision_function(sp.test_pairs)
    np.testing.assert_array_equal(d, -s)
    assert sdf_qp.classes_.tolist() == [0, 1]
    pred = sdf_qp.predict(sp.test_pairs)
    np.testing.assert_array_equal(pred == sdf_qp.classes_[1], d > 0)  # tau = 0: S0 - S1 = 0 is similar
    # and it ranks like predict_proba[:, 1] (the pair-shaped check_decision_proba_consistency)
    proba = sdf_qp.predict_proba(sp.test_pairs)[:, 1]
    order = np.argsort(proba, kind="stable")
    assert np.all(np.diff(d[order]) >= -1e-9)


def test_roc_auc_cross_validation_on_separable_pairs():
    """cross_val_score(scoring="roc_auc") reads decision_function: on pairs the model separates it is
    near 1 (it was far below 0.5 while the score was S0 - S1, positive for classes_[0])."""
    from sklearn.model_selection import cross_val_score

    rng = np.random.RandomState(0)
    y = np.repeat(np.arange(3), 40)
    X = rng.normal(scale=0.3, size=(120, 4)) + 4.0 * y[:, None]  # three far-apart classes
    sp = make_pair_split(y, 120, random_state=0)
    sdf = SiameseDeepForest(n_estimators=10, max_levels=1, random_state=0, preprocessor=X)
    auc = cross_val_score(sdf, sp.train_pairs, sp.y_train, cv=3, scoring="roc_auc")
    assert auc.min() > 0.9
    accuracy = cross_val_score(sdf, sp.train_pairs, sp.y_train, cv=3)
    assert accuracy.min() > 0.8


def test_tau_undetermined_in_predict(wine_pairs, sdf_qp):
    _, sp = wine_pairs
    s = sdf_qp.similarity_score(sp.test_pairs)
    tau = float(np.quantile(np.abs(s), 0.5))
    undetermined = (s >= 0) & (s < tau)
    assert undetermined.any()
    try:
        sdf_qp.set_params(tau=tau)  # default: predictions stay within classes_, undetermined -> dissimilar
        pred = sdf_qp.predict(sp.test_pairs)
        np.testing.assert_array_equal(pred, np.where(s >= tau, 0, 1))
        assert set(pred) <= set(sdf_qp.classes_)
        sdf_qp.set_params(undetermined="abstain")  # the paper's third outcome
        pred = sdf_qp.predict(sp.test_pairs)
        np.testing.assert_array_equal(pred == UNDETERMINED, undetermined)
        np.testing.assert_array_equal(pred, threshold_rule(s, tau))
        assert sdf_qp.score(sp.test_pairs, sp.y_test) == pytest.approx(np.mean(pred == sp.y_test))
    finally:
        sdf_qp.set_params(tau=0.0, undetermined="dissimilar")
    assert sdf_qp.score(sp.test_pairs, sp.y_test) > 0.7


def test_undetermined_option_is_validated(wine_pairs):
    X, sp = wine_pairs
    with pytest.raises(ValueError, match="'undetermined' parameter"):
        SiameseDeepForest(undetermined="skip", preprocessor=X).fit(sp.train_pairs, sp.y_train)


def test_cvxpy_solver_gives_same_weights(wine_pairs):
    X, sp = wine_pairs
    kw = dict(weighting="qp", lam=1.0, crossfit=False, n_estimators=6, max_levels=1, random_state=2)
    a = SiameseDeepForest(**kw, preprocessor=X).fit(sp.train_pairs, sp.y_train)
    b = SiameseDeepForest(solver="cvxpy", **kw, preprocessor=X).fit(sp.train_pairs, sp.y_train)
    assert b.qp_info_[0][0][0].solver == "cvxpy:CLARABEL" and a.qp_info_[0][0][0].solver == "pgd"
    for Wa, Wb in zip(a.weights_[0], b.weights_[0]):
        np.testing.assert_allclose(Wa, Wb, atol=1e-5)


def test_crossfit_keeps_level_accuracy_honest(wine_pairs):
    """Without cross-fitting the held-out pairs' vectors use weights fit on their own labels."""
    X, sp = wine_pairs
    kw = dict(weighting="qp", lam=0.01, n_estimators=10, max_levels=1, random_state=0)
    leaky = SiameseDeepForest(crossfit=False, **kw, preprocessor=X).fit(sp.train_pairs, sp.y_train)
    honest = SiameseDeepForest(crossfit=True, **kw, preprocessor=X).fit(sp.train_pairs, sp.y_train)
    # same stored weights (solved on all held-out pairs) ...
    np.testing.assert_array_equal(leaky.weights_[0][0], honest.weights_[0][0])
    # ... but different training class vectors, and the leaky ones look better than they are
    assert not np.allclose(leaky.train_class_vectors_[0], honest.train_class_vectors_[0])
    assert leaky.level_scores_[0] > honest.level_scores_[0]


def test_scanner_on_image_pairs():
    X, y = load_digits(return_X_y=True)
    sp = make_pair_split(y[:400], 150, random_state=0)
    sc = MultiGrainedScanner(image_shape=(8, 8), pairs=True, window_sizes=[4], n_estimators=6, random_state=0)
    sdf = SiameseDeepForest(scanner=sc, n_estimators=6, max_levels=2, random_state=0, preprocessor=X)
    sdf.fit(sp.train_pairs, sp.y_train)
    assert sdf.scanner_.n_output_features_ == 25 * 2 * 2  # 25 lock-step positions x 2 forests x 2
    assert sdf.levels_[0][0].estimators[0].n_features_in_ == 100
    assert sdf.predict(sp.test_pairs).shape == (100,)
    with pytest.raises(ValueError, match="pairs=True"):
        SiameseDeepForest(scanner=MultiGrainedScanner(image_shape=(8, 8)), preprocessor=X).fit(sp.train_pairs,
                                                                                               sp.y_train)


def test_validation_errors(wine_pairs):
    X, sp = wine_pairs
    with pytest.raises(ValueError, match="0 \\(similar\\) or 1"):
        SiameseDeepForest(preprocessor=X).fit(sp.train_pairs, sp.y_train + 1)
    n = len(sp.y_train)
    with pytest.raises(ValueError,
                       match=r"look like row indices, but the estimator has no preprocessor: set preprocessor=X"):
        SiameseDeepForest().fit(sp.train_pairs, sp.y_train)
    with pytest.raises(ValueError, match=r"shape \(n_pairs, 2, n_features\).*got shape \(240, 26\)"):
        SiameseDeepForest().fit(pair_features(X, sp.train_pairs), sp.y_train)  # concatenated: not a pair form
    with pytest.raises(ValueError,
                       match=r"with a preprocessor, pairs must be integer row indices of shape \(n_pairs, 2\)"):
        SiameseDeepForest(preprocessor=X).fit(X[sp.train_pairs], sp.y_train)
    with pytest.raises(ValueError, match=r"integer row indices.*got shape \(240, 2\) of dtype float64"):
        SiameseDeepForest(preprocessor=X).fit(sp.train_pairs.astype(float), sp.y_train)
    with pytest.raises(ValueError, match=r"outside \[0, 178\), the rows of the preprocessor \(e.g. 178\)"):
        SiameseDeepForest(preprocessor=X).fit(np.where(np.arange(n)[:, None] == 3, 178, sp.train_pairs), sp.y_train)
    with pytest.raises(ValueError, match=r"1 row index\(es\) outside \[0, 178\).*e.g. -1"):
        SiameseDeepForest(preprocessor=X).fit(np.vstack([sp.train_pairs[:-1], [[-1, 0]]]), sp.y_train)
    with pytest.raises(ValueError, match="preprocessor must be the instances"):
        SiameseDeepForest(preprocessor=X[0]).fit(sp.train_pairs, sp.y_train)
    with pytest.raises(ValueError, match="class_vectors='kfold'"):
        SiameseDeepForest(class_vectors="oob", preprocessor=X).fit(sp.train_pairs, sp.y_train)
    with pytest.raises(ValueError, match="both similar"):
        SiameseDeepForest(preprocessor=X).fit(sp.train_pairs, np.zeros(len(sp.y_train), int))
    with pytest.raises(ValueError,
                       match=r"'lam' parameter of SiameseDeepForest must be a float in the range \[0.0, inf\)"):
        SiameseDeepForest(lam=-1, preprocessor=X).fit(sp.train_pairs, sp.y_train)
    with pytest.raises(ValueError, match="lam.* Got inf"):
        SiameseDeepForest(lam=np.inf, preprocessor=X).fit(sp.train_pairs, sp.y_train)
    with pytest.raises(ValueError, match="weighting"):
        SiameseDeepForest(weighting="softmax", preprocessor=X).fit(sp.train_pairs, sp.y_train)
    sdf = SiameseDeepForest(n_estimators=4, max_levels=1, random_state=0, preprocessor=X).fit(sp.train_pairs,
                                                                                              sp.y_train)
    with pytest.raises(ValueError, match="concatenated features"):
        SiameseDeepForest(n_estimators=4, max_levels=1, random_state=0).fit(X[sp.train_pairs], sp.y_train).predict(
            X[sp.test_pairs][:, :, :5])
    with pytest.raises(ValueError, match="outside"):
        sdf.predict(sp.test_pairs + len(X))


def test_params_clone_and_progress(wine_pairs):
    from sklearn.base import clone

    X, sp = wine_pairs
    calls = []
    sdf = SiameseDeepForest(lam=0.3, z_schedule="constant", tau=0.1, n_estimators=4, max_levels=2,
                            random_state=5)
    params = clone(sdf).get_params()
    assert params["lam"] == 0.3 and params["z_schedule"] == "constant" and params["n_estimators"] == 4
    sdf.fit(X[sp.train_pairs], sp.y_train, progress=lambda f, m: calls.append(f))
    assert sdf.z_scale(3) == 1.0
    assert calls[0] == 0.0 and calls[-1] == 1.0 and calls == sorted(calls)
    assert not hasattr(clone(sdf), "weights_")


def test_compare_pair_methods_protocol():
    from mvlab.experiments.pair_methods import compare_pair_methods
    from mvlab.experiments.protocols import RepeatedPairDraws

    X, y = load_wine(return_X_y=True)
    kw = dict(n_estimators=5, n_repeats=2, random_state=0, sdf_params=dict(max_levels=2))
    df = compare_pair_methods(X, y, 60, **kw)
    assert list(df["method"]) == ["rf", "bagging", "gcforest", "sdf"] * 2
    assert set(df["n_train_pairs"]) == {60} and set(df["n_test_pairs"]) == {40}  # 2N/3
    first = df[df.method == "sdf"]["accuracy"].iloc[0]
    split = RepeatedPairDraws(2, 60).splits(y, 0)[0].pairs  # the runner's first draw
    model = SiameseDeepForest(n_estimators=5, max_levels=2, random_state=RepeatedPairDraws(2, 60).splits(y, 0)[0].seed,
                              n_jobs=2, preprocessor=X).fit(split.train_pairs, split.y_train)
    assert first == model.score(split.test_pairs, split.y_test)
    assert df.loc[df.method == "rf", "n_levels"].isna().all()
    assert (df.loc[df.method == "sdf", "n_levels"] >= 1).all()
    again = compare_pair_methods(X, y, 60, **kw)
    np.testing.assert_array_equal(df["accuracy"], again["accuracy"])
    with pytest.raises(ValueError, match="unknown method"):
        compare_pair_methods(X, y, 60, methods=("svm",))


@pytest.mark.parametrize("weighting", ["uniform", "qp"])
def test_pairs_scored_during_the_fit_equal_predictions_after_it(wine_pairs, weighting):
    """fit_from_vectors(V_eval=...) scores the evaluation pairs level by level as the cascade grows: the same
    class vectors and labels as predicting after the fit, bit for bit; keep_forests=False lets the forests go
    (a paper draw's memory) and then refuses to predict."""
    X, sp = wine_pairs
    Ftr, Fte = pair_features(X, sp.train_pairs), pair_features(X, sp.test_pairs)
    kw = dict(weighting=weighting, lam_grid=[1.0, 100.0] if weighting == "qp" else None, **COMMON)
    kept = SiameseDeepForest(**kw).fit_from_vectors(Ftr, sp.y_train, V_eval=Fte)
    after = kept.level_class_vectors_from_vectors(Fte)
    assert len(kept.eval_class_vectors_) == len(after) == kept.n_levels_
    for during, later in zip(kept.eval_class_vectors_, after):
        np.testing.assert_array_equal(during, later)
    np.testing.assert_array_equal(kept.eval_predictions_, kept.predict_from_vectors(Fte))

    lean = SiameseDeepForest(**kw).fit_from_vectors(Ftr, sp.y_train, V_eval=Fte, keep_forests=False)
    np.testing.assert_array_equal(lean.eval_predictions_, kept.eval_predictions_)
    assert lean.level_scores_ == kept.level_scores_
    for a, b in zip(lean.weights_, kept.weights_):
        for wa, wb in zip(a, b):
            np.testing.assert_array_equal(wa, wb)
    assert not lean.forests_kept_ and all(u.estimators == [] for level in lean.levels_ for u in level)
    with pytest.raises(ValueError, match="keep_forests=False"):
        lean.predict_from_vectors(Fte)
    with pytest.raises(ValueError, match="needs X_eval"):
        SiameseDeepForest(**kw).fit_from_vectors(Ftr, sp.y_train, keep_forests=False)
