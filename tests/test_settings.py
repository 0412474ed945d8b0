"""mvlab.experiments.settings: one frozen object per page builds the call, the key and the manifest; its link
(mvlab.ui.query) round-trips it."""

import dataclasses

import pytest

from mvlab.datasets.bundled import load_dataset
from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.experiments.families import FAMILIES
from mvlab.experiments.settings import (
    BenchmarkSettings,
    DissimilaritySettings,
    DVSSettings,
    SiameseSettings,
    ViewConstructionSettings,
)
from mvlab.ui.query import query_fields, settings_from_query, settings_to_query

ALL = [DissimilaritySettings, DVSSettings, ViewConstructionSettings, SiameseSettings]


@pytest.mark.parametrize("cls", ALL)
def test_defaults_have_an_empty_query_and_every_field_round_trips(cls):
    default = cls(seed=4)
    assert settings_to_query(default) == {}
    changed = {}
    for f in query_fields(cls):
        value = getattr(default, f.name)
        if isinstance(value, bool):
            changed[f.name] = not value
        elif isinstance(value, int):
            lo, hi = f.metadata.get("range") or (0, 10**6)
            changed[f.name] = value + 1 if value + 1 <= hi else value - 1
        elif isinstance(value, float):
            lo, hi = f.metadata.get("range") or (0.0, 1e6)
            changed[f.name] = min(hi, value + 0.05)
        elif isinstance(value, str) and f.metadata.get("options"):
            changed[f.name] = [o for o in f.metadata["options"] if o != value][0]
        elif isinstance(value, tuple) and f.metadata.get("options"):
            changed[f.name] = tuple(f.metadata["options"][:1])
    s = dataclasses.replace(default, **changed)
    back, notes = settings_from_query(cls, settings_to_query(s), seed=4)
    assert notes == [] and back == s


def test_bad_query_values_fall_back_with_a_note_naming_the_parameter():
    s, notes = settings_from_query(DissimilaritySettings, {"measure": "cosine", "n_estimators": "many",
                                                           "test_size": "0.95", "k": "5", "other_page_key": "x"},
                                   seed=1)
    assert s == DissimilaritySettings(seed=1, k=5)
    assert len(notes) == 3
    assert "'measure=cosine'" in notes[0] and "breiman" in notes[0]
    assert "'n_estimators=many'" in notes[1] and "whole number" in notes[1]
    assert "'test_size=0.95'" in notes[2] and "0.1..0.9" in notes[2]
    v, notes = settings_from_query(ViewConstructionSettings, {"methods": ["OFSP", "RFSP"], "classifiers": "knn,zz"})
    assert v.methods == ("OFSP", "RFSP") and v.classifiers == ("knn", "nb") and "'zz'" in notes[0]


def test_paper_settings_use_the_families_presets_and_rfd():
    """Issue #13: the chapter's results use RFD; the paper switch must mean the paper."""
    paper = DissimilaritySettings(paper=True).key()
    preset = FAMILIES["dissimilarity"].presets["paper"].params
    assert paper["n_estimators"] == preset["n_estimators"] == 512
    assert paper["measure"]["name"] == "rfd" and DVSSettings(paper=True).key()["measure"]["name"] == "rfd"
    assert DissimilaritySettings().key()["measure"] == {"name": "breiman"}
    vc = ViewConstructionSettings(paper=True).effective()
    protocol = FAMILIES["view-construction"].presets["paper"].protocol
    assert (vc.n_splits, vc.n_repeats, vc.inner_cv, vc.ga_generations) == (protocol.n_splits, protocol.n_repeats, 5, 30)
    assert vc.ga_runs == "shared" and ViewConstructionSettings(paper=True).key()["ga_runs"] == "shared"
    assert ViewConstructionSettings().key()["ga_runs"] == "shared"  # the paper's reading, the quick default (#72)
    assert "ga_runs" not in ViewConstructionSettings(ga_runs="per_k").key()  # the first reading: keys stored before
    assert "ga_runs" not in ViewConstructionSettings(methods=("OFSP", "RFSP")).key()  # no VC-GA: the same run
    sdf = SiameseSettings(paper=True).effective()
    assert (sdf.n_pairs, sdf.n_estimators, sdf.qp_probas) == (1000, 700, "insample")


def test_key_names_the_measure_with_its_parameters_only():
    assert DissimilaritySettings(measure="path", w=0.5).key()["measure"] == {"name": "path", "w": 0.5}
    key = DissimilaritySettings(measure="rfd", kdn_k=3, w=0.5).key()
    assert key["measure"] == {"name": "rfd", "kdn_k": 3, "form": "weighted_proximity"} and "w" not in key


def test_manifest_carries_the_data_fingerprint_seed_and_versions():
    ds = load_dataset("nutrimouse")
    m = DVSSettings(seed=9).manifest(ds)
    assert m["kind"] == "dvs" and m["seed"] == 9 and m["fingerprint"] == ds.fingerprint()
    assert m["settings"] == DVSSettings(seed=9).key() and "numpy" in m["versions"]


def test_problems_are_said_before_training():
    twelve = make_multiview_classification(60, n_views=12, n_features=2, n_classes=2, random_state=0)
    assert "4095 DVS candidate forests" in DVSSettings(source="sidebar").problems(twelve)[0]
    assert DVSSettings(source="sidebar").problems(load_dataset("nutrimouse")) == []
    assert DVSSettings(source="demo").problems(twelve) == []  # the demo data are used instead


def test_run_builds_the_library_call():
    ds = load_dataset("nutrimouse")
    result = DissimilaritySettings(seed=2, n_estimators=5, measure="rfd", kdn_k=3).run(ds)
    assert result.combinations == ["average", "knn", "alignment", "oob", "concat", "late-fusion", "stacking"]
    assert result.settings["measure"] == {"name": "rfd", "kdn_k": 3, "form": "weighted_proximity"}
    assert result.settings["random_state"] == 2


def test_benchmark_names_a_dataset_with_too_many_views_for_dvs(monkeypatch):
    import mvlab.experiments.settings as settings_module

    real = settings_module.dataset_info
    monkeypatch.setattr(settings_module, "dataset_info",
                        lambda name: dataclasses.replace(real(name), n_views=12) if name == "digits" else real(name))
    s = BenchmarkSettings(family="dissimilarity", datasets=("breast-cancer", "digits"))
    problems = s.problems()
    assert len(problems) == 1 and problems[0].startswith("digits: 12 views give 4095 DVS candidate forests")
    assert BenchmarkSettings(family="dissimilarity", datasets=("breast-cancer", "digits"),
                             methods=("average", "knn")).problems() == []


def test_page_costs_refuse_what_no_worker_holds_and_name_the_sample_that_fits():
    """Issue #23: the estimated memory of a page's run grows with the data (prototypes above 10,000 training
    rows); above a worker's memory, or above the dense path's rows for a measure without a sparse form, the
    settings say so with the largest sample that fits."""
    from mvlab.datasets.synthetic import make_multiview_classification
    from mvlab.experiments.settings import DissimilaritySettings, DVSSettings
    from mvlab.forest.dissimilarity import DENSE_MAX_ROWS

    small = make_multiview_classification(n_samples=400, n_views=3, n_features=5, random_state=0)
    s = DissimilaritySettings()
    assert s.cost(small, 200).peak_bytes < s.cost(small).peak_bytes < s.cost(small, 4000).peak_bytes
    assert DVSSettings(source="sidebar").cost(small).peak_bytes > s.cost(small).peak_bytes  # the pool of forests
    assert s.cost_problems(small, 8e9) == []
    [problem] = s.cost_problems(small, s.cost(small, 300).peak_bytes)
    assert problem.startswith("This run cannot start: these settings need about")
    largest = int(problem.split("a sample of at most ")[1].split()[0])
    assert 250 <= largest < 400 and s.cost(small, largest).peak_bytes <= s.cost(small, 300).peak_bytes
    big = make_multiview_classification(n_samples=2 * DENSE_MAX_ROWS + 100, n_views=2, n_features=3, random_state=0)
    assert s.cost_problems(big, 1e12) == []  # above 10,000 training rows the comparison takes prototypes
    assert s.cost(big).n_prototypes == 1000 and s.cost(small).n_prototypes is None
    # not monotone: just above the threshold, prototypes need less memory than the exact space just below it
    assert s.cost(big, 2 * DENSE_MAX_ROWS + 100).peak_bytes < s.cost(big, 2 * DENSE_MAX_ROWS - 100).peak_bytes
    limit = s.cost(big, 2 * DENSE_MAX_ROWS + 100).peak_bytes
    assert s.cost_problems(big, limit) == []
    [problem] = DissimilaritySettings(measure="path").cost_problems(big, 1e12)  # no sparse form: a sample
    assert "Path length" in problem and "no sparse form" in problem
    assert int(problem.split("a sample of at most ")[1].split()[0]) <= 2 * DENSE_MAX_ROWS


def test_a_benchmark_runs_a_datasets_splits_side_by_side_on_the_runs_threads_with_the_same_numbers(tmp_path,
                                                                                                    monkeypatch):
    """#72: the Benchmark page's batch runs a dataset's splits side by side on the threads the engine gives the run
    (an enclosing ``parallel_config``), each split's small forests on one thread (its default batch: 7.1 s -> 3.8 s,
    :meth:`BenchmarkSettings.run`), with the numbers of the splits one after the other, the reference (no enclosing
    config: one thread). Broken once: with ``run_experiment`` called as before (splits one after the other, their
    forests on two threads) the calls were ``(1, None)``."""
    from joblib import parallel_config

    import mvlab.experiments.settings as settings_module
    from mvlab.store import ResultsStore

    calls, real = [], settings_module.run_experiment

    def spy(*args, **kwargs):
        calls.append((kwargs.get("n_jobs", 1), kwargs.get("inner_jobs")))
        return real(*args, **kwargs)

    monkeypatch.setattr(settings_module, "run_experiment", spy)
    settings = BenchmarkSettings(datasets=("nutrimouse",), methods=("average", "oob", "stacking"), repetitions=3,
                                 n_estimators=4, n_max=60)

    def values(store, batch):
        results = store.results(store.runs(kind=batch)["run_id"].iloc[0])
        return results.sort_values(["repetition", "method"])[["repetition", "method", "value"]].to_numpy().tolist()

    side_by_side = ResultsStore(tmp_path / "side.sqlite")
    with parallel_config(backend="threading", n_jobs=2):
        batch, skipped = settings.run(side_by_side)
    one_after_the_other = ResultsStore(tmp_path / "one.sqlite")
    reference, _ = settings.run(one_after_the_other)
    assert not skipped and calls == [(2, 1), (1, 1)]
    assert len(values(side_by_side, batch)) == 9
    assert values(side_by_side, batch) == values(one_after_the_other, reference)
