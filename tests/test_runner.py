"""mvlab.experiments.runner: protocols give every method the same splits; the runner stores as it goes."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from mvlab.core.progress import Stopped
from mvlab.datasets.bundled import load_dataset
from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.experiments.combinations import DISSIMILARITY
from mvlab.experiments.families import FAMILIES, run_experiment
from mvlab.experiments.protocols import RepeatedHoldout, RepeatedKFold, RepeatedPairDraws
from mvlab.experiments.runner import TABLE_COLUMNS, summarize
from mvlab.store import ResultsStore


@pytest.fixture(scope="module")
def ds():
    return make_multiview_classification(90, 2, 4, 3, random_state=0)


def test_holdout_is_stratified_reproducible_and_different_per_repetition(ds):
    splits = RepeatedHoldout(4, 0.5).splits(ds.y, random_state=7)
    assert len(splits) == 4 and len({s.seed for s in splits}) == 4
    for s in splits:
        assert set(s.train).isdisjoint(s.test) and len(s.train) + len(s.test) == 90
        assert np.bincount(ds.y[s.test]).tolist() == [15, 15, 15]
    again = RepeatedHoldout(4, 0.5).splits(ds.y, random_state=7)
    assert all(np.array_equal(a.test, b.test) for a, b in zip(splits, again))
    assert not np.array_equal(splits[0].test, splits[1].test)


def test_kfold_covers_every_instance_once_per_repeat(ds):
    splits = RepeatedKFold(2, 5).splits(ds.y, random_state=0)
    assert [(s.repetition, s.fold) for s in splits][:6] == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 0)]
    for r in range(2):
        tests = np.concatenate([s.test for s in splits if s.repetition == r])
        assert sorted(tests.tolist()) == list(range(90))
    with pytest.raises(ValueError, match="at least 50 instances per class"):
        RepeatedKFold(1, 50).splits(ds.y)


def test_pair_draws_use_disjoint_pools():
    y = load_dataset("breast-cancer").y
    splits = RepeatedPairDraws(3, 60).splits(y, random_state=1)
    for s in splits:
        assert len(s.pairs.y_train) == 60 and len(s.pairs.y_test) == 40
        assert set(s.pairs.train_pairs.ravel()) <= set(s.train)
        assert set(s.pairs.test_pairs.ravel()) <= set(s.test)
        assert set(s.train).isdisjoint(s.test)


def test_runner_gives_each_method_the_same_splits_and_stores_them(ds, tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    params = {"methods": ["average", "oob"], "n_estimators": 5}
    res = run_experiment(ds, "dissimilarity", params, RepeatedHoldout(3), random_state=2, store=store)
    t = res.table
    assert list(t.columns) == TABLE_COLUMNS
    assert len(t) == 6 and set(t["method"]) == {"average", "oob"} and set(t["repetition"]) == {0, 1, 2}
    # the same as comparing on the protocol's split directly
    from mvlab.experiments.combinations import compare_combinations

    s = RepeatedHoldout(3).splits(ds.y, random_state=2)[1]
    direct = compare_combinations(ds.X, ds.y, ds.view_indices, split=(s.train, s.test), random_state=s.seed,
                                  combinations=["average", "oob"], n_estimators=5)
    assert t[(t.repetition == 1) & (t.method == "oob")]["value"].item() == direct.accuracy["oob"]
    stored = store.results(res.run_id)
    assert sorted(stored["value"]) == sorted(t["value"]) and store.runs().loc[0, "status"] == "finished"
    summary = summarize(t)
    assert summary["n"].tolist() == [3, 3]
    # parallel splits give the same numbers
    par = run_experiment(ds, "dissimilarity", params, RepeatedHoldout(3), random_state=2, n_jobs=2).table
    np.testing.assert_allclose(par.sort_values(["repetition", "method"])["value"].to_numpy(),
                               t.sort_values(["repetition", "method"])["value"].to_numpy())


def test_pairs_family_and_bad_arguments(tmp_path):
    ds = load_dataset("breast-cancer")
    res = run_experiment(ds, "pairs", {"methods": ["rf", "gcforest"], "n_estimators": 5,
                                       "sdf_params": {"max_levels": 1}},
                         RepeatedPairDraws(2, 40), random_state=0)
    assert res.table.groupby("method").size().to_dict() == {"gcforest": 2, "rf": 2}
    # the same numbers as evaluating the protocol's second draw directly
    from mvlab.experiments.pair_methods import evaluate_pair_split

    s = RepeatedPairDraws(2, 40).splits(ds.y, random_state=0)[1]
    direct = evaluate_pair_split(ds.X, s.pairs, methods=["rf", "gcforest"], n_estimators=5,
                                 sdf_params={"max_levels": 1}, random_state=s.seed, n_jobs=2)
    got = res.table[res.table.repetition == 1].set_index("method")["value"]
    assert {r["method"]: r["accuracy"] for r in direct} == got.to_dict()
    with pytest.raises(ValueError, match="unknown family"):
        run_experiment(ds, "nope", {}, RepeatedHoldout(1))
    with pytest.raises(ValueError, match="pair protocol"):
        run_experiment(ds, "pairs", {"methods": ["rf"]}, RepeatedHoldout(1))


@pytest.mark.parametrize("cause, status", [(Stopped, "stopped"), (KeyboardInterrupt, "stopped"),
                                           (RuntimeError, "failed")])
def test_an_interrupted_run_keeps_the_finished_splits_and_says_whether_it_was_stopped(ds, tmp_path, cause, status):
    store = ResultsStore(tmp_path / "r.sqlite")
    params = {"methods": ["average"], "n_estimators": 3}

    def stop_after_first(fraction, message):
        if message.startswith("1/3 splits done"):
            raise cause

    with pytest.raises(cause):
        run_experiment(ds, "dissimilarity", params, RepeatedHoldout(3), store=store, progress=stop_after_first)
    runs = store.runs()
    assert runs.loc[0, "status"] == status and runs.loc[0, "summary"]["splits_done"] == 1
    assert runs.loc[0, "summary"]["compute_seconds"] > 0  # kept for the resumed run's total
    assert len(store.results(runs.loc[0, "run_id"])) == 1


def test_a_resumed_run_computes_only_the_missing_splits(ds, tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    params = {"methods": ["average", "knn"], "n_estimators": 3}
    evaluated = []
    family = dataclasses.replace(DISSIMILARITY, evaluate=lambda d, s, *a: (evaluated.append(s.repetition),
                                                                          DISSIMILARITY.evaluate(d, s, *a))[1])

    def stop_after_first(fraction, message):
        if message.startswith("1/3 splits done"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(ds, family, params, RepeatedHoldout(3), store=store, progress=stop_after_first)
    assert evaluated == [0]
    resumed = run_experiment(ds, family, params, RepeatedHoldout(3), store=store, resume=True)
    assert evaluated == [0, 1, 2] and resumed.resumed_splits == 1
    fresh = run_experiment(ds, "dissimilarity", params, RepeatedHoldout(3))
    pd.testing.assert_frame_equal(resumed.table.drop(columns="seconds"), fresh.table.drop(columns="seconds"))
    runs = store.runs()
    assert len(runs) == 1 and runs.loc[0, "status"] == "finished" and len(store.results(resumed.run_id)) == 6
    # a finished run is read back whole; other settings start a new run
    again = run_experiment(ds, family, params, RepeatedHoldout(3), store=store, resume=True)
    assert evaluated == [0, 1, 2] and again.resumed_splits == 3 and again.run_id == resumed.run_id
    # reading back costs no computing time: the run's own time is kept, summed over the calls that computed
    assert again.compute_seconds == resumed.compute_seconds > resumed.seconds > 0
    run_experiment(ds, family, {**params, "n_estimators": 4}, RepeatedHoldout(1), store=store, resume=True)
    assert len(store.runs()) == 2


@pytest.mark.parametrize("shorter, longer", [(RepeatedHoldout(2), RepeatedHoldout(4)),
                                             (RepeatedKFold(n_repeats=1, n_splits=3), RepeatedKFold(n_repeats=3,
                                                                                                   n_splits=3)),
                                             (RepeatedPairDraws(2, 12), RepeatedPairDraws(3, 12))])
def test_a_protocol_with_more_repetitions_begins_with_the_splits_of_one_with_fewer(ds, shorter, longer):
    """What lets a run with more repetitions continue one with fewer: the same seed draws the same first splits."""
    few, many = shorter.splits(ds.y, 7), longer.splits(ds.y, 7)
    for a, b in zip(few, many[:len(few)], strict=True):
        assert (a.repetition, a.fold, a.seed) == (b.repetition, b.fold, b.seed)
        assert np.array_equal(a.train, b.train) and np.array_equal(a.test, b.test)
        if a.pairs is not None:
            assert np.array_equal(a.pairs.train_pairs, b.pairs.train_pairs)
            assert np.array_equal(a.pairs.test_pairs, b.pairs.test_pairs)


def test_more_repetitions_continue_a_run_with_fewer_instead_of_starting_over(ds, tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    params = {"methods": ["average"], "n_estimators": 3}
    evaluated = []
    family = dataclasses.replace(DISSIMILARITY, evaluate=lambda d, s, *a: (evaluated.append(s.repetition),
                                                                          DISSIMILARITY.evaluate(d, s, *a))[1])
    first = run_experiment(ds, family, params, RepeatedHoldout(2), store=store, resume=True)
    assert evaluated == [0, 1]
    more = run_experiment(ds, family, params, RepeatedHoldout(4), store=store, resume=True)
    assert evaluated == [0, 1, 2, 3] and more.resumed_splits == 2 and more.run_id != first.run_id
    fresh = run_experiment(ds, "dissimilarity", params, RepeatedHoldout(4))
    pd.testing.assert_frame_equal(more.table.drop(columns="seconds"), fresh.table.drop(columns="seconds"))
    assert len(store.results(more.run_id)) == 4 and len(store.results(first.run_id)) == 2  # the shorter run stays
    again = run_experiment(ds, family, params, RepeatedHoldout(4), store=store, resume=True)
    assert again.run_id == more.run_id and again.resumed_splits == 4 and evaluated == [0, 1, 2, 3]
    # other settings, or no resume, start over
    run_experiment(ds, family, {**params, "n_estimators": 4}, RepeatedHoldout(3), store=store, resume=True)
    run_experiment(ds, family, params, RepeatedHoldout(3, test_size=0.4), store=store, resume=True)
    run_experiment(ds, family, params, RepeatedHoldout(3), random_state=1, store=store, resume=True)
    run_experiment(ds, family, params, RepeatedHoldout(5), store=store)
    assert evaluated == [0, 1, 2, 3] + [0, 1, 2] * 3 + [0, 1, 2, 3, 4]


def test_every_family_names_its_baseline_and_control_among_its_methods():
    for name, family in FAMILIES.items():
        assert family.name == name
        assert family.baseline in family.methods and family.control in family.methods
        assert set(family.method_titles) == set(family.methods)
        for preset in family.presets.values():
            family.check_params(preset.params)
        with pytest.raises(ValueError, match="unknown parameter"):
            family.check_params({"combinations": ["average"]})
        with pytest.raises(ValueError, match="unknown method"):
            family.check_params({"methods": ["random"]})


def test_dask_backend_runs_the_same_experiment(ds):
    distributed = pytest.importorskip("distributed", reason="Dask's distributed is not installed")
    import joblib

    params = {"methods": ["average"], "n_estimators": 3}
    local = run_experiment(ds, "dissimilarity", params, RepeatedHoldout(2), random_state=1).table
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster, \
            distributed.Client(cluster), joblib.parallel_config(backend="dask"):
        remote = run_experiment(ds, "dissimilarity", params, RepeatedHoldout(2), random_state=1, n_jobs=2).table
    np.testing.assert_allclose(sorted(remote["value"]), sorted(local["value"]))


def test_a_dvs_run_on_too_many_views_is_refused_before_training(tmp_path):
    wide = make_multiview_classification(60, n_views=11, n_features=2, random_state=0)
    store = ResultsStore(tmp_path / "r.sqlite")
    with pytest.raises(ValueError,
                       match=r"11 views give 2047 DVS candidate forests.*leave out the DVS methods \['dvs'\]"):
        run_experiment(wide, "dissimilarity", {"methods": ["average", "dvs"], "n_estimators": 3},
                       RepeatedHoldout(1, 0.5), store=store)
    assert store.runs().empty  # refused before anything was stored
    # without a DVS method the same data runs
    out = run_experiment(wide, "dissimilarity", {"methods": ["average", "knn"], "n_estimators": 3},
                         RepeatedHoldout(1, 0.5))
    assert set(out.table["method"]) == {"average", "knn"}
    assert DISSIMILARITY.problems(10, DISSIMILARITY.check_params({})) == []


def test_a_run_stopped_mid_way_does_not_break_the_next_one(ds):
    """The pages' Stop raises inside ``progress``; Streamlit keeps that exception, its frames and
    so the abandoned generator of parallel splits alive for a while. Collected during the next
    run, that generator used to shut down the worker pool the next run shares ("The executor
    underlying Parallel has been shutdown")."""
    import gc

    params = {"methods": ["average"], "n_estimators": 5}
    kept = {}

    def stop(fraction, message):
        raise KeyboardInterrupt("Stop")  # at the first split done

    try:
        run_experiment(ds, "dissimilarity", params, RepeatedHoldout(8), n_jobs=2, progress=stop)
    except KeyboardInterrupt as exc:
        kept["stopped run"] = exc

    def collect_the_stopped_run(fraction, message):
        if kept:
            kept.clear()
            gc.collect()

    res = run_experiment(ds, "dissimilarity", params, RepeatedHoldout(8), n_jobs=2, progress=collect_the_stopped_run)
    assert sorted(res.table["repetition"]) == list(range(8))
