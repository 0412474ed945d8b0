"""mvlab.experiments.store: runs and results survive restarts, interruptions and concurrent writers."""

import multiprocessing as mp
import sqlite3

import numpy as np
import pytest

from mvlab.experiments.store import ResultsStore, default_path


def rows(rep, value):
    return [{"repetition": rep, "method": m, "metric": "accuracy", "value": value + i, "seconds": 0.1}
            for i, m in enumerate(["average", "dvs"])]


def test_a_run_round_trips_and_can_be_found_again(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    settings = {"measure": "breiman", "n_estimators": np.int64(50), "views": [1, 2]}
    run = store.start_run("dissimilarity", "mfeat", "abc123", 7, settings)
    assert store.add_results(run, rows(0, 0.5) + rows(1, 0.6)) == 4
    store.put_artifact(run, "matrices.npz", b"\x00\x01binary")
    assert store.find_finished("dissimilarity", "abc123", settings) is None  # still running
    store.finish_run(run, {"best": "dvs"})

    again = ResultsStore(tmp_path / "r.sqlite")  # a restart
    runs = again.runs(kind="dissimilarity")
    assert runs.loc[0, "status"] == "finished" and runs.loc[0, "seed"] == 7
    assert runs.loc[0, "settings"] == {"measure": "breiman", "n_estimators": 50, "views": [1, 2]}
    assert {"numpy", "scikit-learn", "python", "mvlab"} <= set(runs.loc[0, "versions"])
    res = again.results(run)
    assert res["value"].tolist() == [0.5, 1.5, 0.6, 1.6] and set(res["dataset"]) == {"mfeat"}
    assert again.artifact(run, "matrices.npz") == b"\x00\x01binary"
    assert again.artifact(run, "missing") is None
    # the settings key is canonical: key order does not matter, values do
    assert again.find_finished("dissimilarity", "abc123", dict(reversed(list(settings.items())))) == run
    assert again.find_finished("dissimilarity", "abc123", {**settings, "measure": "oob"}) is None
    assert again.find_finished("dissimilarity", "other", settings) is None


def test_an_interrupted_run_keeps_what_finished(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    run = store.start_run("experiment", "digits", "f", 0, {})
    store.add_results(run, rows(0, 0.9))
    with pytest.raises(ValueError, match="lacks the field 'metric'"):
        store.add_results(run, rows(1, 0.8) + [{"repetition": 1, "method": "x", "value": 1.0}])
    # the failed batch is rolled back whole; the first repetition stays
    assert store.results(run)["repetition"].tolist() == [0, 0]
    assert store.runs().loc[0, "status"] == "running"
    store.finish_run(run, failed=True)
    assert store.runs(status="failed")["run_id"].tolist() == [run]


def test_unknown_runs_and_bad_settings_are_clear_errors(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    with pytest.raises(ValueError, match="No run 'nope'"):
        store.add_results("nope", rows(0, 1))
    with pytest.raises(ValueError, match="JSON-serialisable"):
        store.start_run("k", "d", "f", 0, {"estimator": object()})
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ValueError, match="Cannot open the results store"):
        ResultsStore(blocker / "r.sqlite")


def test_default_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("MVLAB_STORE", str(tmp_path / "x.sqlite"))
    assert default_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("MVLAB_STORE")
    assert default_path().name == "results.sqlite" and default_path().parent.name == ".mvlab"


def _writer(path, worker, n):
    store = ResultsStore(path)
    for i in range(n):
        run = store.start_run("load", f"w{worker}", "f", i, {"i": i})
        store.add_results(run, rows(i, float(worker)))
        store.finish_run(run)


def test_concurrent_writers_do_not_corrupt_the_store(tmp_path):
    path = tmp_path / "r.sqlite"
    ResultsStore(path)
    procs = [mp.get_context("spawn").Process(target=_writer, args=(path, w, 15)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    store = ResultsStore(path)
    assert len(store.runs(status="finished")) == 45
    assert len(store.results(kind="load")) == 90
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
