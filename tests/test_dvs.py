"""Tests for mvlab.rfd.dvs: the vectorised DVS path against slow per-instance references."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.rfd.classifier import RFDClassifier
from mvlab.rfd.dvs import DVSCombiner
from mvlab.rfd.dvs_pool import DVSCostWarning, n_candidates, subset_dissimilarity, subset_names, view_subsets
from mvlab.rfd.dvs_rules import select_candidates, selection_priority
from mvlab.rfd.explanation import DVSExplanation
from mvlab.rfd.view_forests import combine, fit_view_forests

T = 15  # trees per forest in these tests


@pytest.fixture(scope="module")
def data():
    ds = make_multiview_classification(
        120, 3, 4, 3, p_informative=0.5, class_sep=2.0, noise="gaussian", random_state=3
    )
    tr, te = train_test_split(np.arange(120), test_size=0.5, stratify=ds.y, random_state=0)
    return ds, tr, te


@pytest.fixture(scope="module")
def vf(data):
    ds, tr, _ = data
    return fit_view_forests(ds.X[tr], ds.y[tr], ds.view_indices, n_estimators=T, random_state=0)


@pytest.fixture(scope="module")
def test_views(data, vf):
    ds, _, te = data
    return vf.transform(ds.X[te])


def fit_combiner(vf, **params):
    return DVSCombiner(**{"n_estimators": T, "random_state": 11, **params}).fit(vf)


# ----------------------------------------------------------------------------- slow references
def plain_hits(comb):
    """OOB hits by a loop: argmax of the OOB decision row, never-OOB rows (all zero) wrong."""
    n, P = len(comb.y_), len(comb.candidates_)
    H = np.zeros((n, P), dtype=bool)
    for c, forest in enumerate(comb.candidates_):
        for i in range(n):
            row = forest.oob_decision_function_[i]
            H[i, c] = row.sum() > 0 and int(np.argmax(row)) == comb.y_[i]
    return H


def plain_dvs(comb, Ds, exclude_self=False):
    """Per-instance, per-candidate loop of §A.8 lines 9-13 with np.argsort (stable), under the
    combiner's rules (competence, region, tie-break, selection, neighbour weights).

    Returns competence (n, P), chosen (n,), region (n, k), region dissimilarities (n, k),
    final proba (n, C) and chosen proba (n, C).
    """
    H = plain_hits(comb)
    subsets, y, k = comb.subsets_, comb.y_, comb.k
    P, n, Q = subsets.shape[0], Ds[0].shape[0], subsets.shape[1]
    sizes = subsets.sum(axis=1)
    acc = H.mean(axis=0)
    comp = np.zeros((n, P))
    regions = np.zeros((P, n, k), dtype=np.int64)
    dists = np.zeros((P, n, k))
    probas = np.zeros((P, n, len(comb.classes_)))
    for i in range(n):
        shared = subset_dissimilarity([D[i : i + 1] for D in Ds], np.ones(Q, dtype=bool))[0]
        for c in range(P):
            own = subset_dissimilarity([D[i : i + 1] for D in Ds], subsets[c])[0]
            row = shared if comb.region == "shared" else own
            order = [j for j in np.argsort(row, kind="stable") if not (exclude_self and j == i)][:k]
            regions[c, i], dists[c, i] = order, row[order]
            if exclude_self:
                dec = comb.candidates_[c].oob_decision_function_[i]
                probas[c, i] = dec
                pred = int(np.argmax(dec)) if dec.sum() > 0 else -1
            else:
                probas[c, i] = comb.candidates_[c].predict_proba(own[None, :])[0]
                pred = int(np.argmax(probas[c, i]))
            if comb.competence == "lca":
                same = [j for j in order if y[j] == pred]
                comp[i, c] = sum(H[j, c] for j in same) / len(same) if same else 0.0
                continue
            if comb.competence == "ola":
                evidence = np.array([float(H[j, c]) for j in order])
            else:  # soft: the out-of-bag probability of the neighbour's true class (0 if never OOB)
                evidence = np.array([comb.candidates_[c].oob_decision_function_[j][y[j]] for j in order])
            if comb.neighbour_weights == "similarity":
                w = 1.0 - dists[c, i].astype(np.float32).astype(np.float64)
                comp[i, c] = (w * evidence).sum() / w.sum() if w.sum() > 0 else evidence.mean()
            else:
                comp[i, c] = evidence.mean()
    chosen = np.zeros(n, dtype=np.int64)
    proba = np.zeros((n, len(comb.classes_)))
    chosen_proba = np.zeros_like(proba)
    rank = (lambda c: (-acc[c], -sizes[c], c)) if comb.tie_break == "oob" else (lambda c: (sizes[c], -acc[c], c))
    for i in range(n):
        best = max(comp[i])
        tied = [c for c in range(P) if comp[i, c] == best]
        chosen[i] = min(tied, key=rank)
        if comb.selection == "knora-u" and comp[i].sum() > 0:
            proba[i] = sum(comp[i, c] * probas[c, i] for c in range(P)) / comp[i].sum()
        else:
            voters = tied if comb.selection == "knora" else [chosen[i]]
            proba[i] = np.mean([probas[c, i] for c in voters], axis=0)
        chosen_proba[i] = probas[chosen[i], i]
    ar = np.arange(n)
    return comp, chosen, regions[chosen, ar], dists[chosen, ar], proba, chosen_proba


# ----------------------------------------------------------------------------- subsets
def test_view_subsets_enumeration_order_and_sizes():
    S = view_subsets(3)
    expected = [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]]
    np.testing.assert_array_equal(S, np.array(expected, dtype=bool))
    for Q in range(1, 8):
        assert view_subsets(Q).shape == (2**Q - 1, Q) == (n_candidates(Q), Q)
        assert len({tuple(r) for r in view_subsets(Q)}) == 2**Q - 1
    S2 = view_subsets(4, max_subset_size=2)
    assert S2.shape == (4 + 6, 4) and S2.sum(axis=1).max() == 2
    codes = [sum(1 << q for q in np.flatnonzero(r)) for r in S2]
    assert codes == sorted(codes)
    assert subset_names(S, ["a", "b", "c"])[5] == "b + c"
    assert view_subsets(17, max_subset_size=2).shape == (17 + 136, 17)
    with pytest.raises(ValueError, match="max_subset_size"):
        view_subsets(17)
    with pytest.raises(ValueError, match="max_subset_size"):
        view_subsets(3, max_subset_size=0)


def test_subset_dissimilarity_is_the_average(vf):
    Ds = vf.dissimilarities
    for mask in view_subsets(3):
        ref = np.mean([Ds[q].astype(np.float64) for q in np.flatnonzero(mask)], axis=0)
        np.testing.assert_allclose(subset_dissimilarity(Ds, mask), ref, atol=1e-6)


# ----------------------------------------------------------------------------- pool
def test_pool_has_one_oob_forest_per_subset(vf):
    """Every candidate is scikit-learn's own OOB forest on its views' average (the slow reference of the pool's
    fast path: fit_forest, out_of_bag_proba).  Fails when the out-of-bag sums take the in-bag rows too (tried)."""
    comb = fit_combiner(vf)
    assert len(comb.candidates_) == 7 == comb.subsets_.shape[0]
    assert comb.oob_hits_.shape == (vf.n_train, 7)
    np.testing.assert_array_equal(comb.oob_hits_, plain_hits(comb))
    np.testing.assert_array_equal(comb.oob_accuracies_, comb.oob_hits_.mean(axis=0))
    for c, forest in enumerate(comb.candidates_):
        # Each candidate is exactly an OOB forest on the averaged matrix of its views.
        ref = RandomForestClassifier(
            n_estimators=T, max_features="sqrt", oob_score=True, random_state=11
        ).fit(subset_dissimilarity(vf.dissimilarities, comb.subsets_[c]), vf.y)
        np.testing.assert_array_equal(forest.oob_decision_function_, ref.oob_decision_function_)
        assert forest.n_features_in_ == vf.n_train


def test_rows_never_out_of_bag_count_as_errors(vf):
    comb = fit_combiner(vf, n_estimators=2, max_subset_size=1)  # 2 trees: many rows never OOB
    never = np.stack([f.oob_decision_function_.sum(axis=1) == 0 for f in comb.candidates_], axis=1)
    assert (never & (comb.y_[:, None] == 0)).any()  # argmax of a zero row would say class 0
    assert not comb.oob_hits_[never].any()
    np.testing.assert_array_equal(comb.oob_hits_, plain_hits(comb))


def test_one_view_equals_the_single_candidate_forest(data):
    ds, tr, te = data
    X, y = ds.X, ds.y
    clf = RFDClassifier(views=None, combination="dvs", n_estimators=T, random_state=4).fit(X[tr], y[tr])
    assert len(clf.combiner_.candidates_) == 1
    np.testing.assert_array_equal(clf.view_weights_, [1.0])
    # Reference: a plain random forest on the single view's dissimilarity rows.
    D_train, D_test = clf.dissimilarities_[0], clf.transform_views(X[te])[0]
    ref = RandomForestClassifier(n_estimators=T, max_features="sqrt", random_state=int(clf.combiner_.seed_))
    ref.fit(D_train, np.searchsorted(clf.classes_, y[tr]))
    np.testing.assert_array_equal(clf.predict_proba(X[te]), ref.predict_proba(D_test))
    np.testing.assert_array_equal(clf.predict(X[te]), clf.classes_[ref.predict(D_test)])
    # With one view, DVS is the "average" classifier (common seed, same matrix).
    avg = RFDClassifier(views=None, combination="average", n_estimators=T, random_state=4).fit(X[tr], y[tr])
    np.testing.assert_array_equal(clf.predict_proba(X[te]), avg.predict_proba(X[te]))


def test_all_views_candidate_is_the_average_forest(data, vf, test_views):
    ds, tr, _ = data
    dvs = RFDClassifier(views=ds.view_indices, combination="dvs", n_estimators=T, random_state=0)
    dvs.fit(ds.X[tr], ds.y[tr], view_forests=vf)
    avg = RFDClassifier(views=ds.view_indices, combination="average", n_estimators=T, random_state=0)
    avg.fit(ds.X[tr], ds.y[tr], view_forests=vf)
    last = dvs.combiner_.candidates_[-1]
    assert dvs.combiner_.subsets_[-1].all()
    joint = combine(test_views, np.full(3, 1 / 3))
    np.testing.assert_array_equal(last.predict_proba(joint), avg.final_forest_.predict_proba(joint))


# ----------------------------------------------------------------------------- vectorised = loop
RULE_CASES = {
    "ola-best": dict(), "lca-best": dict(competence="lca"), "ola-knora": dict(selection="knora"),
    "lca-knora": dict(competence="lca", selection="knora"), "k1": dict(k=1), "soft": dict(competence="soft"),
    "soft-shared": dict(competence="soft", region="shared"), "ola-shared": dict(region="shared"),
    "soft-similarity": dict(competence="soft", neighbour_weights="similarity"),
    "ola-similarity-shared": dict(neighbour_weights="similarity", region="shared"),
    "soft-knora-u": dict(competence="soft", selection="knora-u"), "ola-fewest": dict(tie_break="fewest"),
    "lca-shared-knora-u": dict(competence="lca", region="shared", selection="knora-u"),
}


@pytest.mark.parametrize("params", list(RULE_CASES.values()), ids=list(RULE_CASES))
def test_vectorised_path_matches_the_per_instance_loop(vf, test_views, params):
    comb = fit_combiner(vf, **params)
    Ds = [D[:25] for D in test_views]
    ex = comb.explain(Ds)
    comp, chosen, region, dists, proba, chosen_proba = plain_dvs(comb, Ds)
    np.testing.assert_allclose(ex.competence, comp, rtol=0, atol=1e-12)
    if comb.competence != "soft" and comb.neighbour_weights == "uniform":
        np.testing.assert_array_equal(ex.competence, comp)  # counts: exact
    np.testing.assert_array_equal(comb.competences(Ds), ex.competence)
    np.testing.assert_array_equal(ex.chosen, chosen)
    np.testing.assert_array_equal(ex.region, region)
    np.testing.assert_array_equal(ex.region_dissimilarity, dists.astype(np.float32))
    np.testing.assert_allclose(ex.proba, proba, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ex.chosen_prediction, comb.classes_[chosen_proba.argmax(axis=1)])
    np.testing.assert_array_equal(ex.prediction, comb.classes_[proba.argmax(axis=1)])
    np.testing.assert_array_equal(ex.chosen_views, comb.subsets_[chosen])
    np.testing.assert_array_equal(ex.region_labels, comb.classes_[comb.y_[region]])
    np.testing.assert_array_equal(ex.region_oob_hit, comb.oob_hits_[region, chosen[:, None]])
    # predict stays consistent with explain
    np.testing.assert_array_equal(comb.predict_proba(Ds), ex.proba)
    if comb.selection == "best":
        np.testing.assert_array_equal(ex.members, np.eye(7, dtype=bool)[chosen])
        np.testing.assert_array_equal(ex.prediction, ex.chosen_prediction)
    elif comb.selection == "knora":
        np.testing.assert_array_equal(ex.members, comp == comp.max(axis=1, keepdims=True))
    # the same rules applied afterwards to the pool of the paper's rules give the same answer
    later = fit_combiner(vf, k=comb.k).with_rules(**{r: getattr(comb, r) for r in comb.RULES})
    np.testing.assert_array_equal(later.predict_proba(Ds), comb.predict_proba(Ds))
    np.testing.assert_array_equal(later.view_weights_, comb.view_weights_)


@pytest.mark.parametrize("params", [dict(), dict(competence="lca"), dict(competence="soft"),
                                    dict(competence="soft", region="shared", neighbour_weights="similarity"),
                                    dict(tie_break="fewest")], ids=["ola", "lca", "soft", "soft-shared-sim", "fewest"])
def test_training_replay_matches_the_leave_one_out_loop(vf, params):
    """The replay's selection equals the per-instance leave-one-out loop.  Fails when the pool's one-pass search
    keeps a row in its own region (tried: ``exclude_self=False`` in ``TrainRegions.for_rule``; all but LCA fail)."""
    comb = fit_combiner(vf, **params)
    _, chosen, _, _, _, _ = plain_dvs(comb, vf.dissimilarities, exclude_self=True)
    np.testing.assert_array_equal(comb.train_selection_, chosen)
    share = comb.subsets_ / comb.subsets_.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(comb.view_weights_, share[chosen].mean(axis=0))
    assert comb.view_weights_.sum() == pytest.approx(1.0)


def test_lca_without_neighbour_of_the_predicted_class_is_zero(vf, test_views):
    comb = fit_combiner(vf, competence="lca")
    # Relabel the training set so that no neighbour can have class 2 while the candidates
    # still predict it for some instances: their LCA competence must then be 0.
    comb.y_ = np.where(comb.y_ == 2, 0, comb.y_)
    ex = comb.explain(test_views)
    preds = np.stack(
        [f.predict_proba(subset_dissimilarity(test_views, s)).argmax(axis=1) for f, s in zip(comb.candidates_,
                                                                                             comb.subsets_)],
        axis=1,
    )
    assert (preds == 2).any()
    assert np.all(ex.competence[preds == 2] == 0.0)


# ----------------------------------------------------------------------------- tie-breaking
def test_tie_breaking_on_a_constructed_case():
    # 7 candidates over 3 views (enumeration of view_subsets(3)), sizes 1 1 2 1 2 2 3.
    sizes = view_subsets(3).sum(axis=1)
    acc = np.array([0.9, 0.8, 0.8, 0.7, 0.8, 0.8, 0.6])
    prio = selection_priority(acc, sizes)
    # order: c0 (0.9); then acc 0.8: sizes 2 (c2, c4, c5 by index) before size 1 (c1); c3; c6
    np.testing.assert_array_equal(np.argsort(prio), [0, 2, 4, 5, 1, 3, 6])
    comp = np.array(
        [
            [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],  # all tied -> best global OOB accuracy: c0
            [0.1, 0.9, 0.1, 0.1, 0.1, 0.9, 0.1],  # c1, c5 tied, same accuracy -> more views: c5
            [0.1, 0.1, 0.1, 0.1, 0.9, 0.9, 0.1],  # c4, c5 tied, same acc and size -> lower index: c4
            [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0],  # unique maximum wins whatever its priority
        ]
    )
    chosen, members, votes = select_candidates(comp, prio, "best")
    np.testing.assert_array_equal(chosen, [0, 5, 4, 6])
    assert members.sum(axis=1).tolist() == [1, 1, 1, 1]
    np.testing.assert_array_equal(votes, members.astype(float))
    chosen_k, members_k, votes_k = select_candidates(comp, prio, "knora")
    np.testing.assert_array_equal(chosen_k, chosen)
    assert members_k.sum(axis=1).tolist() == [7, 2, 2, 1]
    np.testing.assert_allclose(votes_k[1], [0, 0.5, 0, 0, 0, 0.5, 0])
    chosen_u, members_u, votes_u = select_candidates(comp, prio, "knora-u")
    np.testing.assert_array_equal(chosen_u, chosen)
    np.testing.assert_allclose(votes_u, comp / comp.sum(axis=1, keepdims=True))  # weights = competences
    assert members_u.all()
    # fewest views first: among c1 and c5 (tied, same accuracy) the one-view c1 wins
    fewest = selection_priority(acc, sizes, "fewest")
    np.testing.assert_array_equal(np.argsort(fewest), [0, 1, 3, 2, 4, 5, 6])  # size, then accuracy, then index
    assert select_candidates(comp, fewest, "best")[0].tolist() == [0, 1, 4, 6]


def test_tie_breaking_end_to_end(vf, test_views):
    comb = fit_combiner(vf)
    comb.oob_hits_ = np.ones_like(comb.oob_hits_)  # every candidate perfect: all competences 1
    comb.priority_ = selection_priority(np.ones(7), comb.subsets_.sum(axis=1))
    ex = comb.explain(test_views)
    assert np.all(ex.competence == 1.0)
    assert np.all(ex.chosen == 6)  # equal accuracy -> the candidate with most views
    comb.oob_hits_[:, 6] = False  # now the three 2-view candidates tie: lowest index (c2)
    comb.priority_ = selection_priority(comb.oob_hits_.mean(axis=0), comb.subsets_.sum(axis=1))
    ex = comb.explain(test_views)
    assert np.all(ex.chosen == 2)


# ----------------------------------------------------------------------------- guard rails
def test_k_guard_rails(vf, test_views):
    n = vf.n_train
    with pytest.raises(ValueError, match="larger than the training set"):
        fit_combiner(vf, k=n + 1)
    for k in (0, -1, 2.5):
        with pytest.raises(ValueError, match="'k' parameter of DVSCombiner must be an int in the range"):
            fit_combiner(vf, k=k)
    comb = fit_combiner(vf, k=n, max_subset_size=1)  # the whole training set is the region
    ex = comb.explain([D[:3] for D in test_views])
    np.testing.assert_allclose(ex.competence, np.tile(comb.oob_accuracies_, (3, 1)))


def test_bad_parameters_and_inputs(data, vf, test_views):
    ds, tr, _ = data
    with pytest.raises(ValueError, match="competence"):
        fit_combiner(vf, competence="des")
    with pytest.raises(ValueError, match="selection"):
        fit_combiner(vf, selection="all")
    with pytest.raises(ValueError, match="'competence' parameter of DVSCombiner"):
        RFDClassifier(views=ds.view_indices, combination=DVSCombiner(competence="x"),
                      n_estimators=3).fit(ds.X[tr], ds.y[tr])
    with pytest.raises(ValueError, match="max_subset_size"):
        RFDClassifier(views=ds.view_indices, combination=DVSCombiner(max_subset_size=0),
                      n_estimators=3).fit(ds.X[tr], ds.y[tr])
    comb = fit_combiner(vf, max_subset_size=1)
    with pytest.raises(ValueError, match="expected 3 view matrices"):
        comb.predict_proba(test_views[:2])
    with pytest.raises(ValueError, match="shape"):
        comb.predict_proba([D[:, :-1] for D in test_views])
    bad = [D.copy() for D in test_views]
    bad[1][0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        comb.predict_proba(bad)
    with pytest.raises(ValueError, match="not fitted"):
        DVSCombiner().predict_proba(test_views)


class _Stop(Exception):
    pass


def _stop(fraction, message):
    raise _Stop


def test_many_views_warn_about_the_cost(data):
    ds, tr, _ = data
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 11))
    y = np.arange(20) % 2
    views = [np.array([q]) for q in range(11)]
    vf = fit_view_forests(X, y, views, n_estimators=2, random_state=0)
    # 2^11 - 1 = 2047 candidates: warn, then stop after the first candidate (progress raises).
    with pytest.warns(DVSCostWarning, match="max_subset_size"):
        with pytest.raises(_Stop):
            DVSCombiner(n_estimators=1, k=3, n_jobs=1, random_state=0).fit(vf, progress=_stop)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DVSCostWarning)
        comb = DVSCombiner(n_estimators=1, k=3, max_subset_size=1, random_state=0).fit(vf)
    assert len(comb.candidates_) == 11


# ----------------------------------------------------------------------------- API and determinism
def test_classifier_explain_and_determinism(data):
    ds, tr, te = data
    params = dict(
        views=ds.view_indices, combination=DVSCombiner(competence="lca", selection="knora"), n_estimators=T,
        random_state=7,
    )
    a = RFDClassifier(**params, n_jobs=1).fit(ds.X[tr], ds.y[tr])
    b = clone(a).set_params(n_jobs=2).fit(ds.X[tr], ds.y[tr])
    assert a.combiner_.competence == "lca" and a.combiner_.selection == "knora"
    ea, eb = a.explain(ds.X[te]), b.explain(ds.X[te])
    assert isinstance(ea, DVSExplanation)
    for name in ("competence", "chosen", "members", "region", "region_dissimilarity", "proba", "prediction"):
        np.testing.assert_array_equal(getattr(ea, name), getattr(eb, name))
    np.testing.assert_array_equal(a.view_weights_, b.view_weights_)
    np.testing.assert_array_equal(a.predict(ds.X[te]), ea.prediction)
    np.testing.assert_array_equal(a.predict_proba(ds.X[te]), ea.proba)
    c = RFDClassifier(**{**params, "random_state": 8}).fit(ds.X[tr], ds.y[tr])
    assert not np.array_equal(c.explain(ds.X[te]).competence, ea.competence)


def test_explanation_frames(vf, test_views, data):
    ds, _, te = data
    comb = fit_combiner(vf)
    ex = comb.explain(test_views)
    n, k = len(te), comb.k
    assert ex.competence.shape == (n, 7) and ex.region.shape == (n, k) == ex.region_dissimilarity.shape
    assert ex.subsets.shape == (7, 3) and len(ex.candidate_names) == 7
    df = ex.to_frame(y_true=ds.y[te])
    assert len(df) == n
    assert list(df["chosen"]) == list(ex.chosen)
    assert list(df["subset"]) == [ex.candidate_names[c] for c in ex.chosen]
    np.testing.assert_array_equal(df[[f"uses {v}" for v in ex.view_names]].to_numpy(), ex.chosen_views)
    np.testing.assert_array_equal(df[[f"neighbour_{j}" for j in range(k)]].to_numpy(), ex.region)
    np.testing.assert_array_equal(df["competence"].to_numpy(), ex.competence.max(axis=1))
    assert df["correct"].mean() == pytest.approx(np.mean(ex.prediction == ds.y[te]))
    assert ex.competence_frame().shape == (n, 7)
    freq = ex.selection_frequencies()
    assert freq.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(ex.view_usage(), (freq[:, None] * ex.subsets).sum(axis=0))
    with pytest.raises(ValueError, match="y_true"):
        ex.to_frame(y_true=ds.y[te][:-1])


def test_progress_reports(data, vf):
    ds, tr, _ = data
    seen = []
    RFDClassifier(views=ds.view_indices, combination="dvs", n_estimators=T, random_state=0, n_jobs=2).fit(
        ds.X[tr], ds.y[tr], progress=lambda f, m: seen.append((f, m))
    )
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and 0.0 <= fractions[0]
    assert sum("candidate" in m for _, m in seen) >= 7


# ----------------------------------------------------------------------------- selection is meaningful
def test_selected_subsets_contain_informative_views():
    ds = make_multiview_classification(
        200, 3, 5, 3, p_informative=0.15, class_sep=3.0, noise="gaussian", random_state=1
    )
    tr, te = train_test_split(np.arange(200), test_size=0.5, stratify=ds.y, random_state=0)
    clf = RFDClassifier(views=ds.view_indices, combination="dvs", n_estimators=20, random_state=0, n_jobs=2)
    ex = clf.fit(ds.X[tr], ds.y[tr]).explain(ds.X[te])
    inf = ds.informative[te]
    hit = np.mean((ex.chosen_views & inf).any(axis=1))
    # Chance: a uniformly drawn non-empty subset misses all m informative views of an
    # instance with probability (2^(Q-m) - 1) / (2^Q - 1).
    m = inf.sum(axis=1)
    chance = np.mean(1 - (2.0 ** (3 - m) - 1) / 7)
    assert chance < 0.65
    assert hit >= 0.85 and hit >= chance + 0.2
    assert np.mean(ex.prediction == ds.y[te]) > 0.6


@pytest.mark.parametrize("seed", [0, 1])
def test_soft_competence_finds_the_relevant_views_where_they_depend_on_the_region(seed):
    """Issue #14: on data whose relevant view depends on where an instance lies (visible to the
    forests), the paper's 0/1 competence ties almost every candidate and keeps all views, while
    the soft competence chooses each instance's relevant view."""
    from sklearn.model_selection import train_test_split

    from mvlab.datasets.synthetic import make_multiview_classification
    from mvlab.rfd.explanation import view_choice_scores

    ds = make_multiview_classification(600, n_views=4, n_features=10, n_classes=3, relevance="region",
                                       random_state=seed)
    tr, te = train_test_split(np.arange(600), test_size=0.5, stratify=ds.y, random_state=seed)
    vf = fit_view_forests(ds.X[tr], ds.y[tr], ds.views, n_estimators=100, random_state=seed, n_jobs=2)
    fitted = {}
    for competence in ("ola", "soft"):
        clf = RFDClassifier(views=ds.views, combination=DVSCombiner(competence=competence), n_estimators=100,
                            random_state=seed, n_jobs=2).fit(ds.X[tr], ds.y[tr], view_forests=vf)
        fitted[competence] = (clf, clf.explain(ds.X[te]))
    paper, soft = fitted["ola"][1], fitted["soft"][1]
    truth = ds.informative[te]
    s_soft, s_paper = view_choice_scores(soft.chosen_views, truth), view_choice_scores(paper.chosen_views, truth)
    assert s_soft["precision"] >= 0.7 and s_soft["recall"] >= 0.85  # chance: 0.25
    assert s_paper["precision"] < 0.35 and paper.n_tied.mean() > 5 and soft.n_tied.mean() < 1.5
    acc = {c: np.mean(e.prediction == ds.y[te]) for c, (_, e) in fitted.items()}
    assert acc["soft"] >= acc["ola"]
    oracle = fitted["soft"][0].combiner_.proba_with_views(fitted["soft"][0].transform_views(ds.X[te]), truth)
    # the oracle is the reference (not a strict bound)
    assert np.mean(oracle.argmax(axis=1) == ds.y[te]) >= acc["soft"] - 0.02


def test_combiner_is_an_estimator_seeded_by_its_parameter(vf, test_views):
    from sklearn.base import clone

    comb = fit_combiner(vf, max_subset_size=1)
    assert comb.get_params()["random_state"] == 11
    again = clone(comb).fit(vf)  # the seed travels with the parameters, not with fit
    np.testing.assert_array_equal(again.predict_proba(test_views), comb.predict_proba(test_views))
    with pytest.raises(ValueError, match="'competence' parameter of DVSCombiner must be a str among"):
        comb.with_rules(competence="des")
    with pytest.raises(ValueError, match="'random_state' parameter of DVSCombiner"):
        DVSCombiner(random_state="seven").fit(vf)
