"""The k-sweep experiment of the view-construction page (mvlab.experiments.view_construction_sweep) and its figures."""

import json

import numpy as np
import pandas as pd
import pytest

from mvlab.construction.ensemble import ViewEnsemble
from mvlab.construction.partition import OFSP, RandomPartition
from mvlab.datasets.bundled import load_dataset
from mvlab.datasets.synthetic import make_madelon
from mvlab.experiments.protocols import RepeatedKFold
from mvlab.experiments.view_construction_sweep import (
    METHODS,
    METRICS,
    KSweepResult,
    cell_seed,
    evaluate_split,
    feature_groups,
    k_sweep,
    partition_crosstab,
    sweep_test,
)
from mvlab.stats import friedman_aligned_ranks_test, posthoc_vs_control
from mvlab.viz import view_construction_figures

FAST = dict(inner_cv=3, ga_generations=1, ga_population=10, ga_offspring=10, ab_trials=3)
K, FOLDS, CLASSIFIERS = 3, 3, ["knn", "nb"]


@pytest.fixture(scope="module")
def data():
    return load_dataset("breast-cancer")


@pytest.fixture(scope="module")
def sweep(data):
    calls = []
    result = k_sweep(data.X, data.y, classifiers=CLASSIFIERS, max_views=K, n_splits=FOLDS, n_repeats=1, max_samples=90,
                     random_state=3, progress=lambda f, m: calls.append(f), **FAST)
    result.progress_calls = calls
    return result


def test_tidy_table_is_complete(sweep):
    t = sweep.table
    assert list(t.columns) == ["method", "classifier", "k", "repetition", "fold", "metric", "value"]
    assert len(t) == len(METHODS) * len(CLASSIFIERS) * K * FOLDS * len(METRICS)
    assert not t.duplicated(["method", "classifier", "k", "repetition", "fold", "metric"]).any()
    assert set(t["method"]) == set(METHODS) and set(t["k"]) == {1, 2, 3} and set(t["fold"]) == {0, 1, 2}
    assert sweep.progress_calls[-1] == 1.0 and sweep.progress_calls == sorted(sweep.progress_calls)
    assert 0.5 < t.loc[t["metric"] == "accuracy", "value"].mean() <= 1.0


def test_same_folds_for_every_method_and_cells_reproduce_by_hand(sweep, data):
    ys = data.y[sweep.sample_index]
    Xs = data.X[sweep.sample_index]
    splits = RepeatedKFold(n_repeats=1, n_splits=FOLDS).splits(ys, 3)
    assert [s.test.tolist() for s in splits] == [f.tolist() for f in sweep.test_folds]
    assert sorted(np.concatenate(sweep.test_folds).tolist()) == list(range(90))
    s = splits[1]

    def by_hand(partitioner, estimator):
        ens = ViewEnsemble(partitioner=partitioner, estimator=estimator, inner_cv=3, random_state=cell_seed(s.seed, 2))
        return float(np.mean(ens.fit(Xs[s.train], ys[s.train]).predict(Xs[s.test]) == ys[s.test]))

    t = sweep.table.set_index(["method", "classifier", "k", "fold", "metric"])["value"]
    seed = cell_seed(s.seed, 2)
    assert t[("RFSP", "knn", 2, 1, "accuracy")] == by_hand(RandomPartition(2, random_state=seed), "knn")
    assert t[("OFSP", "nb", 2, 1, "accuracy")] == by_hand(OFSP(2, "nb", inner_cv=3, random_state=seed), "nb")


def test_disagreement_is_missing_at_k1_and_a_share_otherwise(sweep):
    t = sweep.table[sweep.table["metric"] == "disagreement"]
    assert t.loc[t["k"] == 1, "value"].isna().all()
    rfsp = t[(t["method"] == "RFSP") & (t["k"] > 1)]["value"]  # RFSP always builds k non-empty views
    assert rfsp.notna().all() and rfsp.between(0, 1).all()


def test_percent_features_and_partitions(sweep, data):
    t = sweep.table
    pct = t[t["metric"] == "percent_features"]
    assert pct["value"].between(0, 100).all()
    for m in ("RFSP", "Bagging", "VG-AC"):
        assert (pct.loc[pct["method"] == m, "value"] == 100).all()
    d = data.n_features
    assert sweep.feature_index.tolist() == list(range(d))
    for k in (1, 2, 3):
        M = sweep.membership("OFSP", "knn", k)
        assert M.shape == (k, d) and (M.sum(axis=0) <= 1).all()  # OFSP views are disjoint
        last = t[(t["method"] == "OFSP") & (t["classifier"] == "knn") & (t["k"] == k) & (t["fold"] == FOLDS - 1)
                 & (t["metric"] == "percent_features")]["value"].item()
        assert last == pytest.approx(100 * M.any(axis=0).sum() / d)
    assert sweep.membership("Bagging", "nb", 3).all()
    with pytest.raises(ValueError, match="no partition"):
        sweep.membership("OFSP", "svm", 2)


def test_friedman_holm_table_uses_k_as_blocks(sweep):
    acc = sweep_test(sweep, "knn", "accuracy")
    table = acc.table()
    assert table.shape == (len(METHODS), 6)
    assert table["method"].iloc[0] == "OFSP" and set(table["method"]) == set(METHODS)
    assert acc.ks == (1, 2, 3)
    wide = sweep.per_k("accuracy", "knn")
    direct = friedman_aligned_ranks_test(wide)
    assert acc.friedman.statistic == pytest.approx(direct.statistic)
    holm = posthoc_vs_control(wide, "OFSP", test="aligned")
    assert table.set_index("method").loc[list(holm.methods), "p (Holm)"].tolist() == pytest.approx(list(holm.p_holm))
    assert (table["p (Holm)"].dropna() >= table["p"].dropna() - 1e-12).all()
    dis = sweep_test(sweep, "nb", "disagreement")  # k = 1 has no disagreement: left out
    assert dis.ks == (2, 3)
    # Kumar & Minz: "consensus must be higher, or disagreement must be lower": rank 1 = least disagreement
    assert dis.higher_is_better is False
    wide_dis = sweep.per_k("disagreement", "nb").dropna()[list(dis.friedman.methods)]
    assert wide_dis.std().max() > 0  # the methods do disagree differently, so the direction matters
    lower_better = friedman_aligned_ranks_test(-wide_dis)  # negated: higher is better
    assert dis.friedman.average_ranks == pytest.approx(lower_better.average_ranks)
    assert dis.friedman.average_ranks != pytest.approx(friedman_aligned_ranks_test(wide_dis).average_ranks)
    assert not sweep_test(sweep, "nb", "seconds").higher_is_better
    with pytest.raises(ValueError, match="include OFSP"):
        sweep_test(sweep.table[sweep.table["method"] != "OFSP"], "knn")


def test_serialisation_round_trip(sweep):
    back = KSweepResult.from_npz(sweep.to_npz())
    pd.testing.assert_frame_equal(back.table, sweep.table, check_dtype=False)
    assert list(back.memberships) == list(sweep.memberships)
    assert all(np.array_equal(back.memberships[k], v) for k, v in sweep.memberships.items())
    assert [f.tolist() for f in back.test_folds] == [f.tolist() for f in sweep.test_folds]
    assert back.settings == json.loads(json.dumps(sweep.settings))
    assert np.array_equal(back.sample_index, sweep.sample_index) and back.n_features == sweep.n_features
    pd.testing.assert_frame_equal(back.per_k("disagreement", "nb"), sweep.per_k("disagreement", "nb"))


def test_evaluate_split_matches_the_sweep(sweep, data):
    ys, Xs = data.y[sweep.sample_index], data.X[sweep.sample_index]
    s = RepeatedKFold(n_repeats=1, n_splits=FOLDS).splits(ys, 3)[0]
    rows, memberships = evaluate_split(Xs, ys, s.train, s.test, methods=["RFSP", "OFSP"], classifiers=["nb"],
                                       max_views=2, random_state=s.seed, **FAST)
    assert memberships is None
    t = sweep.table.set_index(["method", "classifier", "k", "fold", "metric"])["value"]
    for r in rows:
        if r["metric"] in ("accuracy", "disagreement", "percent_features"):
            np.testing.assert_equal(r["value"], t[(r["method"], "nb", r["params"]["k"], 0, r["metric"])])
    assert {(r["method"], r["params"]["classifier"], r["params"]["k"]) for r in rows} == {
        ("RFSP", "nb", 1), ("RFSP", "nb", 2), ("OFSP", "nb", 1), ("OFSP", "nb", 2)}


def test_bad_settings_raise_value_errors(data):
    with pytest.raises(ValueError, match="need at least 5 features"):
        k_sweep(data.X, data.y, max_views=5, max_features=4, n_splits=2, n_repeats=1)
    with pytest.raises(ValueError, match="unknown method"):
        k_sweep(data.X, data.y, methods=["OFSP", "PCA"])
    with pytest.raises(ValueError, match="population"):
        k_sweep(data.X, data.y, methods=["VC-GA"], max_views=12, ga_population=10)


def test_madelon_like_has_informative_redundant_and_noise_views():
    ds = make_madelon(120, random_state=4)
    assert ds.X.shape == (120, 500) and ds.n_classes == 2
    assert {k: len(v) for k, v in ds.views.items()} == {"informative": 5, "redundant": 15, "noise": 480}
    inf, red = ds.X[:, ds.views["informative"]], ds.X[:, ds.views["redundant"]]
    coef, *_ = np.linalg.lstsq(inf, red, rcond=None)  # redundant = linear combinations of informative
    assert np.allclose(inf @ coef, red)
    assert np.array_equal(make_madelon(120, random_state=4).X, ds.X)
    assert not np.array_equal(make_madelon(120, random_state=5).X, ds.X)
    assert sorted(ds.views["informative"].tolist()) != [0, 1, 2, 3, 4]  # columns are shuffled
    with pytest.raises(ValueError, match=r"n_informative \+ n_redundant \(500\) must be below n_features"):
        make_madelon(120, n_informative=400, n_redundant=100)


def test_crosstab_and_groups_by_hand():
    views = {"a": [0, 1, 4], "b": [2, 3]}
    groups = feature_groups(views, [4, 1, 2, 3])
    assert groups.tolist() == ["a", "a", "b", "b"]
    M = np.array([[True, False, True, False], [True, False, False, False]])
    ct = partition_crosstab(M, groups)
    assert ct.loc["a"].tolist() == [1, 1, 1] and ct.loc["b"].tolist() == [1, 0, 1]
    assert list(ct.columns) == ["view 1", "view 2", "discarded"]


def test_figures(sweep, data):
    groups = feature_groups(data.views, sweep.feature_index)
    M = sweep.membership("OFSP", "knn", 3)
    fig = view_construction_figures.partition_matrix(M, groups, data.feature_names)
    assert np.asarray(fig.data[0].z).shape == (4, data.n_features)
    assert list(fig.data[0].y) == ["view 1", "view 2", "view 3", "discarded"]
    assert [t.name for t in fig.data[1:]] == list(data.views)  # legend: one colour per natural view
    cross = view_construction_figures.partition_vs_natural(partition_crosstab(M, groups, list(data.views)))
    assert np.asarray(cross.data[0].text).sum() == data.n_features  # OFSP: each feature once
    panels = {(m, c): sweep.per_k(m, c) for m in ("accuracy", "disagreement") for c in CLASSIFIERS}
    boxes = view_construction_figures.k_sweep_boxes(panels)
    assert len(boxes.data) == 4 * len(METHODS)
    assert all(t.boxpoints == "outliers" for t in boxes.data)
    assert sum(t.showlegend for t in boxes.data) == len(METHODS)
    assert len(boxes.data[0].y) == K and len(boxes.data[2 * len(METHODS)].y) == K - 1  # no disagreement at k = 1
    assert len(view_construction_figures.k_sweep_lines(sweep.per_k("accuracy", "knn")).data) == len(METHODS)


def test_one_shared_ga_gives_vc_gas_views_for_every_k(data):
    """ga_runs="shared": one GA per split and classifier, its top k chromosomes the views of k (the paper's "the
    top chromosomes are used for k = 1..10"): each k's cell equals a GA of k views with the shared seed, fitted
    on its own; the other methods' cells do not move."""
    from mvlab.construction.partition import GeneticViews
    from mvlab.experiments.view_construction_sweep import check_params

    X, y = data.X[:80], data.y[:80]
    train, test = np.arange(0, 60), np.arange(60, 80)
    opts = dict(FAST, ga_generations=2)
    per_k, _ = evaluate_split(X, y, train, test, classifiers=["knn"], max_views=K, random_state=9, **opts)
    shared, members = evaluate_split(X, y, train, test, classifiers=["knn"], max_views=K, random_state=9,
                                     keep_partitions=True, ga_runs="shared", **opts)

    def values(rows, method):  # NaN (disagreement at k = 1) as None, so that equal dicts compare equal
        return {(r["params"]["k"], r["metric"]): None if np.isnan(r["value"]) else r["value"] for r in rows
                if r["method"] == method and r["metric"] not in ("seconds", "cpu_seconds")}

    for method in set(METHODS) - {"VC-GA"}:
        assert values(per_k, method) == values(shared, method)
    got = values(shared, "VC-GA")
    for k in range(1, K + 1):
        ga = GeneticViews(k, "knn", population_size=10, n_offspring=10, n_generations=2, inner_cv=3,
                          random_state=cell_seed(9, 0)).fit(X[train], y[train])
        ens = ViewEnsemble(views=ga.views_, estimator="knn", inner_cv=3, random_state=cell_seed(9, k))
        assert got[(k, "accuracy")] == float(np.mean(ens.fit(X[train], y[train]).predict(X[test]) == y[test]))
        assert [np.flatnonzero(m).tolist() for m in members[("VC-GA", "knn", k)]] == [v.tolist() for v in ga.views_]
    seconds = [r["value"] for r in shared if r["method"] == "VC-GA" and r["metric"] == "seconds"]
    assert len(seconds) == K and min(seconds) > 0  # the GA's time counts in every k
    with pytest.raises(ValueError, match="ga_runs must be one of"):
        evaluate_split(X, y, train, test, classifiers=["knn"], max_views=K, ga_runs="once", **FAST)
    assert "ga_runs" not in check_params({}) and check_params({"ga_runs": "shared"})["ga_runs"] == "shared"
