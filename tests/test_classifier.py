"""Tests for mvlab.rfd.classifier: weights against plain re-computations, sklearn API, errors."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import cross_val_score

from mvlab.core.views import check_views
from mvlab.rfd.classifier import RFDClassifier, StaticCombiner
from mvlab.rfd.dvs import DVSCombiner
from mvlab.rfd.view_forests import combine, fit_view_forests
from mvlab.rfd.weights import alignment_weights, kernel_alignment, knn_loo_accuracy, oob_weights, swknn_weights

VIEWS = [np.arange(0, 4), np.arange(4, 7), np.arange(7, 12)]
KW = dict(n_estimators=10, random_state=0)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=60, n_features=12, n_informative=6, n_classes=3, n_clusters_per_class=1,
        random_state=5,
    )
    labels = np.array(["ant", "bee", "cat"])[y]  # non-integer labels
    return X[:40], labels[:40], X[40:], labels[40:]


@pytest.fixture(scope="module")
def vf(data):
    Xtr, ytr, _, _ = data
    return fit_view_forests(Xtr, ytr, VIEWS, measure="breiman", **KW)


# ----------------------------------------------------------------------------- plain references
def plain_loo_knn(D, y, k):
    n = len(y)
    correct = 0
    for j in range(n):
        order = sorted((D[j, i], i) for i in range(n) if i != j)
        votes = {}
        for _, i in order[:k]:
            votes[y[i]] = votes.get(y[i], 0) + 1
        best = max(votes.values())
        pred = min(c for c, v in votes.items() if v == best)
        correct += pred == y[j]
    return correct / n


def plain_alignment(D, y):
    n = len(y)
    C = len(set(y.tolist()))
    K = 1.0 - D.astype(np.float64)
    Ks = np.array([[1.0 if y[i] == y[j] else -1.0 / (C - 1) for j in range(n)] for i in range(n)])
    return np.sum(K * Ks) / np.sqrt(np.sum(K * K) * np.sum(Ks * Ks))


def plain_oob_accuracy(forest_dissim, X, y_enc):
    f = forest_dissim.forest_
    n = len(y_enc)
    in_bag = np.zeros((n, len(f.estimators_)), dtype=int)
    for t, idx in enumerate(f.estimators_samples_):
        for i in idx:
            in_bag[i, t] += 1
    correct = 0
    for i in range(n):
        probs = [est.predict_proba(X[i : i + 1])[0] for t, est in enumerate(f.estimators_) if in_bag[i, t] == 0]
        if probs and int(np.argmax(np.mean(probs, axis=0))) == y_enc[i]:
            correct += 1
    return correct / n


# ----------------------------------------------------------------------------- weights
@pytest.mark.parametrize("k", [1, 3, 7])
def test_swknn_matches_plain(vf, k):
    accs = [plain_loo_knn(D, vf.y, k) for D in vf.dissimilarities]
    for D, a in zip(vf.dissimilarities, accs):
        assert knn_loo_accuracy(D, vf.y, k) == pytest.approx(a)
    w = swknn_weights(vf.dissimilarities, vf.y, k)
    np.testing.assert_allclose(w, np.array(accs) / sum(accs))


def test_swka_matches_plain(vf):
    A = np.array([plain_alignment(D, vf.y) for D in vf.dissimilarities])
    for D, a in zip(vf.dissimilarities, A):
        assert kernel_alignment(1.0 - D.astype(np.float64), vf.y) == pytest.approx(a, rel=1e-10)
    np.testing.assert_allclose(alignment_weights(vf.dissimilarities, vf.y), np.exp(A) / np.exp(A).sum(), rtol=1e-10)
    Ap = np.maximum(A, 0)
    np.testing.assert_allclose(alignment_weights(vf.dissimilarities, vf.y, "proportional"), Ap / Ap.sum(), rtol=1e-10)
    # binary case: K* = y_i y_j with y in {-1, +1}
    yb = (vf.y > 0).astype(int)
    s = np.where(yb == 1, 1.0, -1.0)
    K = 1.0 - vf.dissimilarities[0].astype(np.float64)
    Ks = np.outer(s, s)
    assert kernel_alignment(K, yb) == pytest.approx(np.sum(K * Ks) / np.sqrt(np.sum(K * K) * np.sum(Ks * Ks)))


def test_swoob_matches_plain(vf, data):
    Xtr, _, _, _ = data
    accs = [plain_oob_accuracy(f, Xtr[:, v], vf.y) for f, v in zip(vf.forests, vf.views)]
    np.testing.assert_allclose(vf.oob_accuracies, accs)
    np.testing.assert_allclose(oob_weights(vf.oob_accuracies), np.array(accs) / sum(accs))


def test_degenerate_weights_are_uniform():
    np.testing.assert_allclose(oob_weights([0.0, 0.0]), [0.5, 0.5])


@pytest.mark.parametrize("combination", ["average", "knn", "alignment", "oob"])
def test_classifier_weights_joint_and_prediction(data, vf, combination):
    Xtr, ytr, Xte, yte = data
    clf = RFDClassifier(views=VIEWS, combination=StaticCombiner(combination, k=5), **KW).fit(Xtr, ytr)
    w = clf.view_weights_
    assert w.shape == (3,) and np.all(w > 0) and w.sum() == pytest.approx(1.0)
    expected = {
        "average": np.full(3, 1 / 3),
        "knn": swknn_weights(vf.dissimilarities, vf.y, 5),
        "alignment": alignment_weights(vf.dissimilarities, vf.y),
        "oob": oob_weights(vf.oob_accuracies),
    }[combination]
    np.testing.assert_allclose(w, expected)
    for D, D_ref in zip(clf.dissimilarities_, vf.dissimilarities):
        np.testing.assert_array_equal(D, D_ref)  # same view forests for every combination
    np.testing.assert_allclose(clf.joint_dissimilarity_, sum(wq * D for wq, D in zip(w, clf.dissimilarities_)),
                               atol=1e-6)
    Ds = clf.transform_views(Xte)
    assert [D.shape for D in Ds] == [(20, 40)] * 3
    proba = clf.predict_proba(Xte)
    assert proba.shape == (20, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(proba, clf.final_forest_.predict_proba(combine(Ds, w)))
    pred = clf.predict(Xte)
    assert set(pred) <= set(clf.classes_)
    np.testing.assert_array_equal(pred, clf.classes_[proba.argmax(axis=1)])
    assert 0.0 <= clf.score(Xte, yte) <= 1.0
    assert len(clf.view_forests_) == 3 and clf.final_forest_.n_estimators == 10
    # the final forest, fitted fast (mvlab.core.forest_fit), is scikit-learn's own of its parameters on the joint
    # matrix (broken once: fitted with bootstrap_weights="distinct", DF21's trees, the probabilities differed)
    from sklearn.ensemble import RandomForestClassifier

    sklearns = RandomForestClassifier(**clf.final_forest_.get_params()).fit(clf.joint_dissimilarity_,
                                                                          np.searchsorted(clf.classes_, ytr))
    np.testing.assert_array_equal(proba, sklearns.predict_proba(combine(Ds, w)))


def test_reuse_of_view_forests_equals_fresh_fit(data, vf):
    Xtr, ytr, Xte, _ = data
    for comb in ["knn", "oob"]:
        fresh = RFDClassifier(views=VIEWS, combination=comb, **KW).fit(Xtr, ytr)
        reused = RFDClassifier(views=VIEWS, combination=comb, **KW).fit(Xtr, ytr, view_forests=vf)
        np.testing.assert_array_equal(fresh.predict_proba(Xte), reused.predict_proba(Xte))
        Ds = vf.transform(Xte)
        np.testing.assert_array_equal(reused.predict_proba_from_dissimilarities(Ds), fresh.predict_proba(Xte))
    with pytest.raises(ValueError, match="other views"):
        RFDClassifier(views=VIEWS[:2], **KW).fit(Xtr, ytr, view_forests=vf)
    with pytest.raises(ValueError, match="measure or n_estimators"):
        RFDClassifier(views=VIEWS, measure="oob", **KW).fit(Xtr, ytr, view_forests=vf)


def test_all_measures_and_single_view(data):
    Xtr, ytr, Xte, yte = data
    for m in ["path", "rfd", "oob", "rfgap"]:
        clf = RFDClassifier(views=VIEWS, measure=m, combination="knn", n_estimators=5, random_state=1).fit(Xtr, ytr)
        assert clf.predict(Xte).shape == (20,)
    one = RFDClassifier(n_estimators=5, random_state=1).fit(Xtr, ytr)
    assert one.view_weights_.tolist() == [1.0] and one.dissimilarities_[0].shape == (40, 40)
    named = RFDClassifier(views={"a": [0, 1, 2], "b": [3, 4]}, n_estimators=5, random_state=1).fit(Xtr, ytr)
    assert named.view_names_ == ["a", "b"]


def test_clone_cross_val_and_determinism(data):
    Xtr, ytr, Xte, _ = data
    clf = RFDClassifier(views=VIEWS, combination="alignment", n_estimators=6, random_state=3, n_jobs=2)
    scores = cross_val_score(clone(clf), Xtr, ytr, cv=3)
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    a = clone(clf).fit(Xtr, ytr).predict_proba(Xte)
    b = clone(clf).set_params(n_jobs=1).fit(Xtr, ytr).predict_proba(Xte)
    np.testing.assert_array_equal(a, b)
    c = clone(clf).set_params(random_state=4).fit(Xtr, ytr).predict_proba(Xte)
    assert not np.array_equal(a, c)


def test_progress(data):
    Xtr, ytr, _, _ = data
    seen = []
    RFDClassifier(views=VIEWS, n_estimators=4, random_state=0, n_jobs=2).fit(
        Xtr, ytr, progress=lambda f, m: seen.append(f)
    )
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "views, match",
    [
        ([np.arange(0, 4), np.array([], dtype=int)], "empty"),
        ([np.arange(0, 4), np.array([10, 12])], "outside"),
        ([np.array([-1, 2])], "outside"),
        ([], "views is empty"),
        (np.arange(4), "flat array"),
        ([np.array([0.5, 1.0])], "integer"),
        ([np.array([True, False])], "integer"),
        ([np.array([1, 1, 2])], "twice"),
        ([np.zeros((2, 2), dtype=int)], "1-D"),
        (5, "views must be"),
    ],
)
def test_bad_views(data, views, match):
    Xtr, ytr, _, _ = data
    with pytest.raises(ValueError, match=match):
        RFDClassifier(views=views, n_estimators=3).fit(Xtr, ytr)
    with pytest.raises(ValueError, match=match):
        check_views(views, 12)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(combination="median"), "combination"),
        (dict(measure="cosine"), "measure"),
        (dict(n_estimators=0), "n_estimators"),
        (dict(combination=StaticCombiner("knn", k=0)), "'k' parameter"),
        (dict(combination=StaticCombiner("knn", k=50)), "k=50"),
        (dict(combination=DVSCombiner(k=50)), "k=50"),
        (dict(combination=StaticCombiner("alignment", alignment_normalization="l2")), "alignment_normalization"),
        (dict(combination=RFDClassifier()), "combination"),
    ],
)
def test_bad_params(data, params, match):
    Xtr, ytr, _, _ = data
    with pytest.raises(ValueError, match=match):
        RFDClassifier(views=VIEWS, **{"n_estimators": 3, **params}).fit(Xtr, ytr)


def test_bad_data(data):
    Xtr, ytr, Xte, _ = data
    with pytest.raises(ValueError, match="2 classes"):
        RFDClassifier(n_estimators=3).fit(Xtr, np.zeros(len(Xtr)))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        RFDClassifier(n_estimators=3).fit(Xtr, ytr[:-2])
    clf = RFDClassifier(views=VIEWS, n_estimators=3).fit(Xtr, ytr)
    with pytest.raises(ValueError, match="X has 5 features, but RFDClassifier is expecting"):
        clf.predict(Xte[:, :5])
    with pytest.raises(ValueError, match="explain"):
        clf.explain(Xte)
    with pytest.raises(ValueError, match="expected 3 view matrices"):
        clf.predict_proba_from_dissimilarities(clf.transform_views(Xte)[:2])
