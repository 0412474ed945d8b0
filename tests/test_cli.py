"""python -m mvlab: the commands print tables computed from what they ran, and store it."""

import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT
from mvlab.cli import main
from mvlab.experiments.report import build_report, markdown
from mvlab.store import ResultsStore


def test_datasets_command_lists_the_bundled_data(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "| mfeat | UCI Multiple Features" in out and "| 2000 | 649 | 6 | 10 |" in out


def test_run_stores_and_prints_mean_and_std(tmp_path, capsys):
    store = tmp_path / "r.sqlite"
    code = main(["--store", str(store), "run", "--dataset", "nutrimouse", "--repetitions", "2", "--trees", "4",
                 "--methods", "average", "oob"])
    assert code == 0
    out = capsys.readouterr().out
    results = ResultsStore(store).results()
    assert len(results) == 4 and set(results["method"]) == {"average", "oob"}
    mean = results[results.method == "oob"]["value"].mean()
    assert f"{mean:.4f} ±" in out
    assert main(["--store", str(store), "runs"]) == 0
    assert "experiment:dissimilarity" in capsys.readouterr().out


def test_runs_lists_a_run_whose_process_ended_as_interrupted_not_running(tmp_path, capsys):
    import platform
    import sqlite3

    path = tmp_path / "r.sqlite"
    store = ResultsStore(path)
    alive, dead = store.start_run("dvs", "digits", "f", 0, {}), store.start_run("dvs", "digits", "f", 1, {})
    with sqlite3.connect(path) as conn:  # as a server killed mid-run leaves it: its owner is gone
        conn.execute("UPDATE runs SET owner = ? WHERE run_id = ?", (f"{platform.node()}:999999999:0.000", dead))
    assert main(["--store", str(path), "runs"]) == 0
    rows = {line.split("|")[1].strip(): line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")}
    assert "| interrupted |" in rows[dead] and "| running |" in rows[alive]


def test_report_counts_wins_ranks_and_runs_the_tests():
    rows = []
    for d, (a, b, c) in enumerate([(0.9, 0.8, 0.7), (0.8, 0.7, 0.75), (0.95, 0.9, 0.85), (0.6, 0.6, 0.5)]):
        for m, v in zip(["dvs", "average", "oob"], (a, b, c)):
            rows.append({"dataset": f"d{d}", "method": m, "metric": "accuracy", "value": v, "repetition": 0})
    report = build_report(pd.DataFrame(rows), baseline="average", control="dvs")
    text = report.to_text()
    assert report.sign_tests.loc["dvs", ["wins", "ties", "losses"]].tolist() == [3, 1, 0]
    assert report.sign_tests.loc["dvs", "critical (α = 0.10)"] == pytest.approx(2 + 1.6449 * 2 / 2, abs=1e-4)
    assert ("dvs: 3 wins / 1 ties / 0 losses, wins + ties/2 = 3.5: not significant (exact binomial p = 0.250)"
            in text)
    # ranks by hand: dvs (1 + 1 + 1 + 1.5) / 4, average (2 + 3 + 2 + 1.5) / 4, oob (3 + 2 + 3 + 3) / 4
    assert "| average rank | 1.12 | 2.12 | 2.75 |" in text
    assert "Friedman over datasets" in text and "Post-hoc against dvs" in text
    assert "Nemenyi, all pairs (α = 0.05): CD = 1.657, 3 methods over 4 datasets" in text
    assert "not significantly different from dvs: average" in text and "significantly different from dvs: oob" in text


def test_markdown_table():
    assert markdown(pd.DataFrame({"a": [1], "b": ["x"]}), index=False) == "| a | b |\n|---|---|\n| 1 | x |"


def test_bad_arguments_exit_with_a_message(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mvlab", "--store", str(tmp_path / "r.sqlite"), "run", "--dataset",
                           "nutrimouse", "--folds", "30", "--repetitions", "1", "--trees", "3"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "error: 30-fold cross-validation needs at least 30 instances per class" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ofsp_reproduction_reports_per_dataset_and_classifier(tmp_path, capsys):
    import argparse

    from mvlab.cli import Reproduction, _reproduce_ofsp

    rep = Reproduction("view-construction", [("nutrimouse", None)], note="(note)",
                       sweep={"quick": {"classifiers": ["knn"], "max_views": 2, "max_features": 20, "inner_cv": 2,
                                        "ga_generations": 1}})
    store = ResultsStore(tmp_path / "r.sqlite")
    args = argparse.Namespace(seed=0, n_jobs=1, repetitions=0)
    assert _reproduce_ofsp(rep, "quick", args, store) == 0
    out = capsys.readouterr().out
    assert "## nutrimouse: 40 instances, 141 features (features used: 20)" in out
    assert "knn: accuracy over k = 1..2" in out and "Holm against OFSP" in out
    stored = store.results()
    assert set(stored["method"]) == {"OFSP", "RFSP", "Bagging", "AB", "VG-AC", "VC-GA"}
    assert len(stored) == 6 * 2 * 3 * 6  # methods x k x folds x metrics
    assert {(p["classifier"], p["k"]) for p in stored["params"]} == {("knn", 1), ("knn", 2)}
    # a second run reads every split back from the store instead of recomputing it
    assert _reproduce_ofsp(rep, "quick", args, store) == 0
    assert len(store.runs()) == 1 and len(store.results()) == len(stored)
    # --repetitions repeats the k-fold cross-validation (it was silently ignored): other settings, so a new run of
    # two repetitions, 6 folds
    assert _reproduce_ofsp(rep, "quick", argparse.Namespace(seed=0, n_jobs=1, repetitions=2), store) == 0
    assert len(store.runs()) == 2 and len(store.results()) == 2 * len(stored) + len(stored)


def test_reproduce_refuses_what_does_not_apply_before_starting_the_engine(tmp_path, capsys, monkeypatch):
    """Each protocol and each reading is its own subcommand with only the options that apply to it: argparse refuses
    the others (a --trees for OFSP, whose views are scored by KNN, naive Bayes or an SVM; a classifier or dataset a
    reading does not run), an old spelling is told its new subcommand, a negative count is refused in words; none
    of them waits for an engine to start."""
    import mvlab.cli as cli

    monkeypatch.setattr(cli, "on_engine", None)  # any engine start fails loudly
    store = ["--store", str(tmp_path / "r.sqlite")]
    refused = {("ofsp", "--trees", "50"): "--trees", ("ofsp-paper", "--trees", "50"): "--trees",
               ("sdf-paper", "--trees", "50"): "--trees", ("dvs", "--report-only"): "--report-only",
               ("sdf-paper", "--classifiers", "knn"): "--classifiers", ("sdf", "--paper"): None,
               ("ofsp-svm-range", "--classifiers", "knn"): "invalid choice: 'knn'",
               ("madelon-generator", "--datasets", "golub-3051"): "invalid choice: 'golub-3051'",
               ("sdf-lambda", "--readings", "shared"): "--readings"}
    for argv, message in refused.items():
        if message is None:  # an old spelling
            continue
        with pytest.raises(SystemExit) as exit_:
            main([*store, "reproduce", *argv])
        assert exit_.value.code == 2 and message in capsys.readouterr().err, argv
    told = {("ofsp", "--repetitions", "-1"): "--repetitions must be 1 or more",
            ("sdf", "--paper"): "python -m mvlab reproduce sdf-paper",
            ("ofsp", "--table3", "--knn-neighbours"): "python -m mvlab reproduce ofsp-knn",
            ("ofsp", "--generator-draws"): "python -m mvlab reproduce madelon-generator",
            ("sdf", "--paper", "--other-readings"): "python -m mvlab reproduce sdf-readings"}
    for argv, message in told.items():
        assert main([*store, "reproduce", *argv]) == 2
        assert message in capsys.readouterr().err, argv


def test_view_construction_runs_from_the_command_line(tmp_path, capsys):
    """Issue #12: 'run --family view-construction' used to fail with "unknown method or classifier
    ['ofsp', 'random']": the CLI and the family named the methods differently."""
    store = tmp_path / "r.sqlite"
    code = main(["--store", str(store), "run", "--family", "view-construction", "--dataset", "breast-cancer",
                 "--n", "60", "--repetitions", "1", "--methods", "OFSP", "RFSP"])
    assert code == 0
    out = capsys.readouterr().out
    assert "### classifier = knn" in out and "### classifier = nb" in out
    results = ResultsStore(store).results()
    assert set(results["method"]) == {"OFSP", "RFSP"}
    assert main(["--store", str(store), "run", "--family", "view-construction", "--dataset", "breast-cancer",
                 "--methods", "ofsp"]) == 2
    assert "unknown method(s) ['ofsp']" in capsys.readouterr().err


def test_ofsp_reproduction_prints_the_across_dataset_groups(capsys):
    from mvlab.cli import _print_across_datasets

    medians = {"knn": {"a": {"OFSP": 0.9, "RFSP": 0.8, "AB": 0.7}, "b": {"OFSP": 0.8, "RFSP": 0.75, "AB": 0.6},
                       "c": {"OFSP": 0.95, "RFSP": 0.9, "AB": 0.85}},
               "nb": {"a": {"OFSP": 0.9, "RFSP": 0.8}}}  # one dataset: nothing to compare across
    _print_across_datasets(medians)
    out = capsys.readouterr().out
    assert "## Across datasets, knn (blocks = 3 datasets, median accuracy over k)" in out
    assert "Nemenyi, all pairs (α = 0.05): CD = 1.914, 3 methods over 3 datasets" in out
    assert "average ranks (1 = best): OFSP 1.00, RFSP 2.00, AB 3.00" in out
    assert "Holm against OFSP (α = 0.05)" in out and "nb" not in out


def test_dvs_reproduction_reads_back_and_says_what_the_runs_took(tmp_path, capsys, monkeypatch):
    import mvlab.cli as cli

    monkeypatch.setitem(cli.REPRODUCTIONS, "dvs", cli.Reproduction(
        "dissimilarity", [("nutrimouse", None)], note="(note)",
        synthetic={"synthetic-regions": {"n_samples": 90, "n_views": 3, "n_features": 4, "relevance": "region"}}))
    store = tmp_path / "r.sqlite"
    argv = ["--store", str(store), "reproduce", "dvs", "--trees", "4", "--repetitions", "2"]
    assert main(argv) == 0
    first = capsys.readouterr()
    assert "figure:" not in first.out
    assert "2 dataset(s)" in first.out and "computing every split took" in first.out and "tie_rate" in first.out
    took = float(first.out.split("computing every split took ")[1].split(" s")[0])
    assert main(argv) == 0  # everything read back: the runs' own time is reported again, not this call's
    second = capsys.readouterr()
    assert "2 split(s) read back from the store" in second.err
    assert float(second.out.split("computing every split took ")[1].split(" s")[0]) == took
    assert len(ResultsStore(store).runs()) == 2


@pytest.mark.skipif(__import__("mvlab.viz.export", fromlist=["x"]).chromium_path() is None,
                    reason="Chromium is not installed (apt-get install chromium; .ci/run does it)")
def test_reproduce_writes_the_report_charts_as_png(tmp_path, capsys, monkeypatch):
    import mvlab.cli as cli

    monkeypatch.setitem(cli.REPRODUCTIONS, "dvs", cli.Reproduction(
        "dissimilarity", [("nutrimouse", None), ("breast-cancer", 120)], note="(note)",
        synthetic={"synthetic-regions": {"n_samples": 90, "n_views": 3, "n_features": 4, "relevance": "region"}}))
    figures = tmp_path / "figures"
    assert main(["--store", str(tmp_path / "r.sqlite"), "reproduce", "dvs", "--trees", "4", "--repetitions", "2",
                 "--figures", str(figures)]) == 0
    out = capsys.readouterr().out
    names = sorted(p.name for p in figures.iterdir())
    assert names == ["average_ranks.png", "critical_difference_bonferroni-dunn.png", "critical_difference_holm.png",
                     "critical_difference_nemenyi.png", "sign_test.png"]
    for name in names:
        data = (figures / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000  # a drawn chart, not an empty canvas
        assert f"figure: {figures / name}" in out


@pytest.mark.skipif(__import__("mvlab.viz.export", fromlist=["x"]).chromium_path() is None,
                    reason="Chromium is not installed (apt-get install chromium; .ci/run does it)")
def test_the_paper_protocols_write_their_cells_against_the_papers_as_png(tmp_path, capsys, monkeypatch):
    """``reproduce sdf-paper`` and ``reproduce ofsp-paper`` with ``--figures``: the scatter of the printed cells
    against mvlab's, from committed draws (a slice of the real files; ``--report-only`` computes nothing)."""
    committed = ROOT / "docs" / "reproduction"
    sdf = pd.read_csv(committed / "sdf_paper_draws.csv")
    sdf[(sdf["dataset"] == "ecoli") & (sdf["N"] == 2000)].to_csv(tmp_path / "sdf_paper_draws.csv", index=False)
    for stem in ("ofsp_paper", "ofsp_leak"):
        ofsp = pd.read_csv(committed / f"{stem}_draws.csv")
        ofsp[ofsp["dataset"] == "golub-3051"].to_csv(tmp_path / f"{stem}_draws.csv", index=False)
    figures, report = tmp_path / "figures", tmp_path / "report.md"
    from mvlab import engine

    monkeypatch.setattr(engine, "shared_engine", None)  # --report-only computes nothing: no engine may start
    common = ["--out", str(tmp_path), "--report", str(report), "--report-only", "--figures", str(figures)]
    store = ["--store", str(tmp_path / "r.sqlite")]
    assert main([*store, "reproduce", "sdf-paper", *common]) == 0
    assert main([*store, "reproduce", "ofsp-paper", *common]) == 0
    out = capsys.readouterr().out
    for name in ("sdf_paper_against_ours.png", "ofsp_paper_against_ours.png"):
        data = (figures / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000  # a drawn chart, not an empty canvas
        assert f"figure: {figures / name}" in out
    # nothing printed to draw (T = 10 is no cell of the paper's): said, not a traceback nor an empty chart
    empty = tmp_path / "empty"
    empty.mkdir()
    sdf[sdf["T"] == 100].assign(T=10).to_csv(empty / "sdf_paper_draws.csv", index=False)
    assert main([*store, "reproduce", "sdf-paper", "--out", str(empty), "--report", str(empty / "r.md"),
                 "--report-only", "--figures", str(empty / "figures")]) == 0
    assert "figure sdf_paper_against_ours: not written, no cell with a printed value yet" in capsys.readouterr().out
    assert not (empty / "figures").exists()
    assert main([*store, "reproduce", "sdf-lambda", "--out", str(empty), "--report", str(empty / "r.md"),
                 "--report-only", "--figures", str(empty / "figures")]) == 0  # a reading without a figure
    assert "figure" not in capsys.readouterr().out and not (empty / "figures").exists()


def test_a_store_urls_password_never_reaches_the_processes_the_command_spawns(monkeypatch):
    """multiprocessing hands a spawned process the parent's sys.argv: after parsing, main() hides a --store URL's
    password there (both spellings), and leaves everything else as it was. Fails without the redaction in main()
    (tried: the sys.argv line removed: the worker's argv held 'secret')."""
    from mvlab.cli import main, redacted_argv

    assert redacted_argv(["mvlab", "--store", "postgresql://u:secret@h:5432/x", "--store=postgres://v:pw@h/y",
                          "runs", "/tmp/a:b"]) == ["mvlab", "--store", "postgresql://u:***@h:5432/x",
                                                   "--store=postgres://v:***@h/y", "runs", "/tmp/a:b"]
    monkeypatch.setattr("sys.argv", ["mvlab", "--store", "postgresql://u:secret@127.0.0.1:1/x", "datasets"])
    assert main(["--store", "postgresql://u:secret@127.0.0.1:1/x", "datasets"]) == 0
    import sys

    assert "secret" not in " ".join(sys.argv) and "postgresql://u:***@127.0.0.1:1/x" in sys.argv


def test_each_reproduce_target_is_its_own_function_and_none_redispatches_on_its_name():
    """argparse picks the handler (set_defaults(func=…)): a protocol on the bundled data, OFSP's k sweep, each reading
    of the papers' tables (told by name) and the report, each a function of its own; no handler looks at which
    subcommand was typed. Fails when one handler dispatches on the name again
    (tried: report's func set back to a cmd_reproduce that branches on args.paper_name)."""
    import inspect

    import mvlab.cli as cli
    from mvlab.reproduction.registry import READINGS

    parser = cli.build_parser()
    for name, func in {"dvs": cli.cmd_reproduce_protocol, "sdf": cli.cmd_reproduce_protocol,
                       "ofsp": cli.cmd_reproduce_ofsp}.items():
        args = parser.parse_args(["reproduce", name])
        assert args.func is func and args.protocol == name
    for name in READINGS:
        args = parser.parse_args(["reproduce", name, "--report-only"])
        assert args.func is cli.cmd_reproduce_reading and args.reading == name
    assert parser.parse_args(["reproduce", "report"]).func is cli.cmd_reproduce_report
    handlers = [f for n, f in vars(cli).items() if n.startswith(("cmd_", "_reproduce")) and inspect.isfunction(f)]
    assert not [f.__name__ for f in handlers if "paper_name" in inspect.getsource(f)]


def test_the_statistics_the_command_line_prints_are_the_librarys_text(capsys):
    """The across-dataset Friedman test and the per-dataset aligned-ranks test are formatted by mvlab.stats
    (``to_text``) and only printed here. Fails when the command line formats them itself (tried: the old
    f-string "Friedman: chi2 = …" in _print_across_datasets)."""
    from mvlab.cli import _print_across_datasets
    from mvlab.stats import friedman_aligned_ranks_test, friedman_test

    by_dataset = {"a": {"OFSP": 0.9, "RFSP": 0.8, "AB": 0.7}, "b": {"OFSP": 0.8, "RFSP": 0.75, "AB": 0.6},
                  "c": {"OFSP": 0.95, "RFSP": 0.9, "AB": 0.85}}
    _print_across_datasets({"knn": by_dataset})
    frame = pd.DataFrame(by_dataset).T
    said = friedman_test(frame).to_text("datasets")
    assert said in capsys.readouterr().out.splitlines()
    assert said.startswith("Friedman over 3 datasets: chi2 = 6.000 (df = 2), p = 0.0498; Iman-Davenport F = ")
    aligned = friedman_aligned_ranks_test(frame)
    assert aligned.to_text("values of k") == (f"Friedman aligned ranks over 3 values of k: T = "
                                              f"{aligned.statistic:.3f} (df = 2), p = {aligned.p_value:.4f}")
