"""Command line: ``python -m mvlab ...``: list data and stored runs, run experiments, and
reproduce each paper's protocol on the bundled data.

    python -m mvlab datasets
    python -m mvlab runs [--kind KIND]
    python -m mvlab run --dataset mfeat --family dissimilarity --repetitions 10 --trees 100
    python -m mvlab reproduce dvs --quick        # or --paper; also: ofsp, sdf

Every experiment is stored in the results store (``--store PATH``, default ``$MVLAB_STORE`` or
``~/.mvlab/results.sqlite``) as it runs, and the printed tables come from what was run.

``run`` and ``reproduce`` send their splits to the job engine (:mod:`mvlab.engine`): an embedded
Dask cluster of worker processes, or the cluster at ``--scheduler`` / ``$MVLAB_SCHEDULER``, one
split per worker at a time (``--n-jobs``: how many at once, -1 = every worker); ``--n-jobs 1``
computes them here, one after the other, without the engine.  A run left ``running`` by a command
that was killed is marked ``interrupted`` by the next one (and resumed with ``--resume``).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import sys
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Sequence

import pandas as pd

import mvlab.datasets as datasets
from mvlab.experiments.families import FAMILIES, get_family, make_protocol, run_experiment
from mvlab.experiments.report import family_reports, markdown
from mvlab.experiments.view_construction_sweep import CLASSIFIERS
from mvlab.lessons.command import add_lesson_command
from mvlab.reproduction.bundled_protocols import REPRODUCTIONS, Reproduction
from mvlab.reproduction.writer import write_outputs
from mvlab.store import ResultsStore, absolute_location, shown_location


def _load(name: str, n: int | None, seed: int, synthetic: dict) -> datasets.MultiViewDataset:
    if name in synthetic:
        return datasets.make_multiview_classification(random_state=seed, **synthetic[name])
    if name == "madelon":
        return datasets.make_madelon(n or 200, random_state=seed)
    ds = datasets.load_dataset(name)
    return ds if n is None or n >= ds.n_samples else ds.stratified_sample(n, random_state=seed)


def _print_progress(prefix: str):
    def report(fraction: float, message: str) -> None:
        print(f"\r  {prefix}: {100 * fraction:5.1f}%  {message:<50}", end="", file=sys.stderr, flush=True)
    return report


def _print_reports(table: pd.DataFrame, family, full: bool = True) -> None:
    for label, report in family_reports(table, family).items():
        if label:
            print(f"\n### {label}\n")
        print(report.to_text() if full else markdown(report.mean_std_table()))


def cmd_datasets(args) -> int:
    """Print the bundled datasets as a Markdown table (``python -m mvlab datasets``); returns 0."""
    rows = [vars(datasets.dataset_info(n)) for n in datasets.list_datasets()]
    print(markdown(pd.DataFrame(rows).drop(columns="description"), index=False))
    return 0


def cmd_runs(args) -> int:
    """Print the stored runs, newest first, of one ``--kind`` or all (``python -m mvlab runs``), after marking
    the runs of ended processes ``interrupted``; returns 0."""
    store = ResultsStore(args.store)
    store.sweep_orphans()  # a run whose process ended is listed as interrupted, not as running
    runs = store.runs(kind=args.kind, include_private=True)
    if runs.empty:
        print("No runs stored yet.")
        return 0
    runs["started"] = pd.to_datetime(runs["started"], unit="s").dt.strftime("%Y-%m-%d %H:%M")
    runs["dataset"] = [f"{d} (uploaded, private)" if p else d for d, p in zip(runs["dataset"], runs["private"])]
    print(markdown(runs[["run_id", "kind", "dataset", "seed", "status", "started"]], index=False))
    return 0


@contextmanager
def on_engine(args, store: ResultsStore):
    """While it is open, joblib's parallel loops of the experiments (their splits, or the k
    sweep's cells) run as tasks of the job engine; with ``--n-jobs 1``, here; with ``--report-only``, which
    computes nothing, no engine is started."""
    store.sweep_orphans()
    if args.n_jobs == 1 or getattr(args, "report_only", False):
        yield
        return
    import joblib

    from mvlab.engine import Engine, EngineConfig, shared_engine

    scheduler = getattr(args, "scheduler", None)
    engine = Engine(EngineConfig.from_env({"MVLAB_SCHEDULER": scheduler})) if scheduler else shared_engine()
    client = engine.client
    info = engine.server_status()
    where = "an embedded Dask cluster" if info.embedded else f"the Dask cluster at {info.address}"
    print(f"engine: {where}, {len(info.workers)} worker(s)" + (f"; dashboard {info.dashboard}" if info.dashboard
                                                                else ""), file=sys.stderr)
    try:
        with client.as_current(), joblib.parallel_config(backend="dask"):
            yield
    finally:
        if scheduler:
            engine.close()


def _relayed(relay):
    """On the job engine (:func:`on_engine` open), the writes that ``relay`` sends from its workers are applied to
    its store (:func:`mvlab.engine.relay.relayed_into`); without one, the relay is the store: nothing to do."""
    from distributed import Client

    from mvlab.engine.relay import relayed_into

    try:
        client = Client.current(allow_global=False)
    except ValueError:
        return nullcontext()
    return relayed_into(client, relay)


def cmd_run(args) -> int:
    """Run one experiment on one dataset (``python -m mvlab run``): the family's quick preset with ``--trees`` and
    ``--methods``, stored as it runs, then its mean ± std table printed; returns 0."""
    family = get_family(args.family)
    ds = _load(args.dataset, args.n, args.seed, {})
    params = dict(family.presets["quick"].params)
    if "n_estimators" in family.check_params({}):
        params["n_estimators"] = args.trees
    if args.methods:
        params["methods"] = family.check_methods(args.methods)
    protocol = make_protocol(family, args.repetitions, folds=args.folds, test_size=args.test_size,
                             n_pairs=args.pairs)
    protocol.splits(ds.y, args.seed)  # a protocol the data cannot take is refused before the engine starts
    store = ResultsStore(args.store)
    with on_engine(args, store):
        res = run_experiment(ds, family, params, protocol,
                             random_state=args.seed, n_jobs=args.n_jobs, store=store, resume=args.resume,
                             progress=_print_progress(ds.name))
    print(file=sys.stderr)
    resumed = f", {res.resumed_splits} split(s) read back" if res.resumed_splits else ""
    print(f"run {res.run_id} stored in {store.shown} ({res.seconds:.0f} s{resumed})")
    _print_reports(res.table, family, full=False)
    return 0


def _reproduce_ofsp(rep: Reproduction, mode: str, args, store: ResultsStore) -> int:
    """OFSP's comparison is per dataset: box plots over k = 1..10 and Friedman aligned ranks with
    k as the blocks (§B.6-B.7), so it runs the k sweep and reports per dataset and classifier."""
    from mvlab.experiments.view_construction_sweep import k_sweep, sweep_test

    preset = get_family(rep.family).presets[mode]
    opts = {**preset.params, **rep.sweep.get(mode, {})}
    classifiers = opts.pop("classifiers")
    if getattr(args, "classifiers", None):
        classifiers = list(args.classifiers)
    medians: dict = {clf: {} for clf in classifiers}  # classifier -> dataset -> method -> median accuracy
    start = time.perf_counter()
    for name, n in rep.datasets:
        ds = _load(name, n, args.seed, {})
        try:
            result = k_sweep(ds.X, ds.y, classifiers=classifiers, n_splits=preset.protocol.n_splits,
                             n_repeats=args.repetitions or preset.protocol.n_repeats,
                             random_state=args.seed, n_jobs=args.n_jobs,
                             progress=_print_progress(ds.name), store=store, kind=f"reproduce:ofsp:{mode}",
                             resume=True, **opts)
        except ValueError as exc:
            print(f"\n  {ds.name}: skipped ({exc})", file=sys.stderr)
            continue
        print(file=sys.stderr)
        print(f"\n## {ds.name}: {ds.n_samples} instances, {ds.n_features} features "
              f"(features used: {min(opts.get('max_features') or ds.n_features, ds.n_features)})\n")
        summary = result.summary()
        for clf in classifiers:
            part = summary[(summary["classifier"] == clf) & (summary["metric"] == "accuracy")]
            print(f"{clf}: accuracy over k = 1..{opts['max_views']} (mean over folds), median [min, max]:")
            print("  " + "; ".join(f"{r['method']} {r['median']:.3f} [{r['min']:.3f}, {r['max']:.3f}]"
                                   for _, r in part.iterrows()))
            medians[clf][ds.name] = dict(zip(part["method"], part["median"]))
            test = sweep_test(result, clf, "accuracy", control="OFSP")
            print(f"  {test.friedman.to_text('values of k')}; Holm against OFSP (z with the within-block "
                  "permutation SE):")
            print(markdown(test.table().round(4), index=False))
        pct = summary[(summary["metric"] == "percent_features") & (summary["method"] == "OFSP")]
        print("  OFSP keeps " + ", ".join(f"{r['median']:.1f}% ({r['classifier']})" for _, r in pct.iterrows())
              + " of the features (median over k).")
    figures = _print_across_datasets(medians)
    print(f"\n{time.perf_counter() - start:.0f} s; stored in {store.shown}")
    _write_figures(figures, getattr(args, "figures", None))
    print(f"\nThe paper: {rep.note}")
    return 0


def _print_across_datasets(medians: dict) -> dict:
    """The across-dataset variant of B.7 (blocks = datasets, the median accuracy over k of each
    method): Friedman's test and the groups of the critical-difference diagram; returns the
    diagrams' figures by file stem."""
    from mvlab.stats import critical_difference_groups, friedman_test
    from mvlab.viz.benchmark_figures import critical_difference_diagram

    figures = {}
    for clf, by_dataset in medians.items():
        frame = pd.DataFrame(by_dataset).T.dropna(axis=1)
        if len(frame) < 2 or frame.shape[1] < 2:
            continue
        print(f"\n## Across datasets, {clf} (blocks = {len(frame)} datasets, median accuracy over k)\n")
        print(friedman_test(frame).to_text("datasets"))
        cds = {"nemenyi": critical_difference_groups(frame)}
        if "OFSP" in frame.columns:
            cds["holm"] = critical_difference_groups(frame, test="holm", control="OFSP")
        for kind, cd in cds.items():
            print(cd.to_text("datasets"))
            figures[f"{clf}_critical_difference_{kind}"] = critical_difference_diagram(
                cd, title=f"{clf}: across {len(frame)} datasets (median accuracy over k)")
    return figures


def _write_figures(figures: dict, folder) -> None:
    from mvlab.viz.export import write_png

    if folder and figures:
        for path in write_png(figures, folder):
            print(f"figure: {path}")


def _check_counts(args) -> None:
    """``--trees`` and ``--repetitions`` refused in words when negative (0, the default: the size's own)."""
    for flag in ("trees", "repetitions"):
        if getattr(args, flag, 0) and getattr(args, flag) < 0:
            raise ValueError(f"--{flag} must be 1 or more (0, the default: the size's own), got {getattr(args, flag)}.")


def _size(args) -> str:
    """The protocol's size asked for: ``paper`` with ``--paper``, else ``quick``."""
    return "paper" if getattr(args, "paper", False) else "quick"


def cmd_reproduce_protocol(args) -> int:
    """``python -m mvlab reproduce dvs|sdf``: a paper's protocol on the bundled data, every dataset's runs stored and
    read back, then the family's reports; on the job engine unless ``--n-jobs 1``; returns the exit status."""
    _check_counts(args)
    store = ResultsStore(args.store)
    with on_engine(args, store):
        return _reproduce(args.protocol, REPRODUCTIONS[args.protocol], _size(args), args, store)


def cmd_reproduce_ofsp(args) -> int:
    """``python -m mvlab reproduce ofsp``: OFSP's k sweep on the bundled data, reported per dataset and classifier
    and across datasets (:func:`_reproduce_ofsp`); returns the exit status."""
    _check_counts(args)
    store = ResultsStore(args.store)
    with on_engine(args, store):
        return _reproduce_ofsp(REPRODUCTIONS[args.protocol], _size(args), args, store)


def cmd_reproduce_reading(args) -> int:
    """``python -m mvlab reproduce <reading>``: one reading of a paper's own tables
    (:data:`mvlab.reproduction.registry.READINGS`, :func:`_reproduce_reading`); returns the exit status."""
    from mvlab.reproduction.registry import READINGS

    _check_counts(args)
    store = ResultsStore(args.store)
    with on_engine(args, store):
        return _reproduce_reading(READINGS[args.reading], args, store)


def _say(line: str) -> None:
    """A protocol's progress line, on stderr at once (the draws go to files, the report to stdout)."""
    print(line, file=sys.stderr, flush=True)


def _print_written(paths) -> int:
    """Name the files a protocol wrote; the exit status 0."""
    for path in paths:
        print(f"written: {path}")
    return 0


def _reproduce_reading(reading, args, store: ResultsStore) -> int:
    """One reading of a paper's tables: the draws missing from ``<out>/<stem>_draws.csv`` computed and appended as
    they finish (unless ``--report-only``), then its cells file and the whole report written from the draws files;
    a reading whose repetitions keep their finished folds in the results store gets ``store`` through the engine's
    relay (:mod:`mvlab.engine.relay`)."""
    out = Path(args.out)
    if not args.report_only:
        names = [n for n in reading.options if n != "max_levels"]
        names += [flag[2:].replace("-", "_") for flag in reading.extra_options]
        given = {n: getattr(args, n) for n in names}  # None or 0: the reading's own default
        tasks = reading.tasks(**{n: tuple(v) if isinstance(v, list) else v for n, v in given.items()
                                 if v not in (None, 0)})
        run = {"n_jobs": args.n_jobs, "say": _say}
        if reading.paper == "sdf":
            run["max_levels"] = args.max_levels
        relay = None
        if reading.store_kind:
            from mvlab.engine.relay import StoreRelay

            run["split_store"] = relay = StoreRelay(store.location, store.dump(reading.store_kind))
        with _relayed(relay) if relay is not None else nullcontext():
            reading.run(out / f"{reading.stem}_draws.csv", tasks, **run)
    status = _print_written(write_outputs([reading.name], out, args.report))
    _write_reading_figures([reading], out, args.figures)
    return status


def cmd_reproduce_report(args) -> int:
    """``reproduce report``: every reading's cells file and the whole report rewritten from the draws files of
    ``--out``, and with ``--figures`` every reading's figure; computes nothing."""
    from mvlab.reproduction.registry import READINGS

    out = Path(args.out)
    status = _print_written(write_outputs(list(READINGS), out, args.report))
    _write_reading_figures(READINGS.values(), out, args.figures)
    return status


def _write_reading_figures(readings, out: Path, folder) -> None:
    """Each reading's figure of its printed cells against mvlab's (``<stem>_against_ours.png`` in ``folder``), or a
    line saying why not when none of its cells has a printed value yet."""
    if not folder:
        return
    from mvlab.reproduction.writer import Files

    files = Files(out)
    for reading in readings:
        if reading.figure is None:
            continue
        figure = reading.figure(files)
        name = f"{reading.stem}_against_ours"
        if figure is None:
            print(f"figure {name}: not written, no cell with a printed value yet")
        else:
            _write_figures({name: figure}, folder)


def _reproduce(name: str, rep: Reproduction, mode: str, args, store: ResultsStore) -> int:
    """Protocol ``name`` (``rep``) at size ``mode`` on every dataset of it, stored in ``store`` as it runs and read
    back when it ran before; then the family's reports, the DVS choices and, with ``--figures``, the charts."""
    family = get_family(rep.family)
    preset = family.presets[mode]
    params, protocol = dict(preset.params), preset.protocol
    if args.trees:
        params["n_estimators"] = args.trees
    if args.repetitions:
        protocol = dataclasses.replace(protocol, n_repetitions=args.repetitions)
    data = list(rep.datasets) + [(name, None) for name in rep.synthetic]
    print(f"Reproducing {name} ({mode}): {family.name}, {type(protocol).__name__}"
          f"{tuple(vars(protocol).values())}, {params}")
    tables, computed, start = [], 0.0, time.perf_counter()
    kind = f"reproduce:{name}:{mode}"
    for name, n in data:
        ds = _load(name, n, args.seed, rep.synthetic)
        try:
            res = run_experiment(ds, family, params, protocol, random_state=args.seed,
                                 n_jobs=args.n_jobs, store=store, kind=kind,
                                 resume=True, progress=_print_progress(ds.name))
        except ValueError as exc:
            print(f"\n  {ds.name}: skipped ({exc})", file=sys.stderr)
            continue
        print(file=sys.stderr)
        if res.resumed_splits:
            print(f"  {ds.name}: {res.resumed_splits} split(s) read back from the store", file=sys.stderr)
        tables.append(res.table)
        computed += res.compute_seconds
    if not tables:
        print("Nothing could be run.")
        return 1
    table = pd.concat(tables, ignore_index=True)
    took = ("an unknown time (some runs were stored by an older mvlab)" if computed != computed
            else f"{computed:.0f} s (summed over the calls that computed them)")
    print(f"\n{len(data)} dataset(s), {time.perf_counter() - start:.0f} s in this call; computing every split took "
          f"{took}; stored in {store.shown}\n")
    _print_reports(table, family)
    _print_choice_quality(table)
    print(f"\nThe paper: {rep.note}")
    if args.figures:
        from mvlab.viz.export import report_figures

        figures = {}
        for label, report in family_reports(table, family).items():
            prefix = f"{label}_" if label else ""
            figures.update({prefix + name: fig for name, fig in report_figures(report).items()})
        _write_figures(figures, args.figures)
    return 0


def _print_choice_quality(table: pd.DataFrame) -> None:
    """For the DVS methods: choices made by the tie-break, and (synthetic data) choice precision,
    recall and the oracle's accuracy, mean over splits."""
    extra = table[table["metric"].isin(["tie_rate", "choice_precision", "choice_recall", "oracle_accuracy"])]
    if extra.empty:
        return
    wide = extra.pivot_table(index=["dataset", "method"], columns="metric", values="value", aggfunc="mean")
    print("\nDVS choices (mean over splits): share decided by the tie-break; on synthetic data, precision and "
          "recall of the chosen views against the true ones and the oracle's accuracy:")
    print(markdown(wide.round(3)))


N_JOBS_HELP = ("splits computed at once by the job engine's workers (-1: every worker); 1 computes them in this "
               "process, one after the other, without the engine")
SCHEDULER_HELP = ("address of a Dask scheduler (tls://host:8786, with the certificates of mvlab certificates) to run "
                  "on instead of the embedded engine (default $MVLAB_SCHEDULER)")


OLD_SPELLINGS = {"--paper": "sdf-paper", "--table3": "ofsp-paper", "--lambda-on-test": "sdf-lambda",
                 "--other-readings": "sdf-readings", "--ofsp-on-test": "ofsp-leak", "--knn-neighbours": "ofsp-knn",
                 "--svm-range": "ofsp-svm-range", "--generator-draws": "madelon-generator"}
"""The flags of ``reproduce sdf --paper`` and ``reproduce ofsp --table3`` before each reading became its own
subcommand, and that subcommand (named in the error that an old command line gets)."""


def _old_spelling(argv: Sequence[str]) -> str | None:
    """The reading an old ``reproduce sdf|ofsp ...`` command line means, or None."""
    args = list(argv)
    if "reproduce" not in args:
        return None
    rest = args[args.index("reproduce") + 1:]
    if not rest or rest[0] not in ("sdf", "ofsp"):
        return None
    for flag in reversed(OLD_SPELLINGS):  # the most specific reading first (--lambda-on-test before --paper)
        if flag in rest[1:] and not (flag == "--paper" and rest[0] == "ofsp"):
            return OLD_SPELLINGS[flag]
    return None


def _add_reading_parsers(readings_sub, parents) -> None:
    """One ``reproduce`` subcommand per reading of the registry, with the options that apply to it: its datasets
    and classifiers as the only choices, argparse refusing any other option."""
    from mvlab.reproduction.registry import READINGS

    for reading in READINGS.values():
        end = "" if reading.title.endswith(("?", ".")) else "."
        cmd = readings_sub.add_parser(reading.name, parents=parents, allow_abbrev=False,
                                      help=f"{reading.paper}: {reading.title}".replace("%", "%%"),
                                      description=f"{reading.title}{end} {reading.reason}")
        if "datasets" in reading.options:
            cmd.add_argument("--datasets", nargs="+", default=None, metavar="NAME",
                             choices=list(reading.dataset_choices),
                             help=f"from {list(reading.dataset_choices)} (default {list(reading.datasets)})")
        if "classifiers" in reading.options:
            cmd.add_argument("--classifiers", nargs="+", default=None, metavar="NAME",
                             choices=list(reading.classifier_choices),
                             help=f"from {list(reading.classifier_choices)} (default {list(reading.classifiers)})")
        if "pairs_grid" in reading.options:
            cmd.add_argument("--pairs-grid", nargs="+", type=int, default=None, metavar="N", help="restrict N")
            cmd.add_argument("--trees-grid", nargs="+", type=int, default=None, metavar="T", help="restrict T")
            cmd.add_argument("--max-levels", type=int, default=10, help="cascade levels at most (default 10)")
        cmd.add_argument("--repetitions", type=int, default=0,
                         help="draws per cell (sdf) or repetitions of the 5-fold cross-validation (ofsp) instead "
                              "of the protocol's own")
        for flag, options in reading.extra_options.items():
            cmd.add_argument(flag, **options)
        cmd.set_defaults(func=cmd_reproduce_reading, reading=reading.name)


def _reading_common_options() -> argparse.ArgumentParser:
    """The options every reading and ``reproduce report`` share: where the draws, cells and report are, and the
    figure folder."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out", default="docs/reproduction", metavar="DIR",
                        help="folder of the draws files (appended draw by draw and read back to resume) and the cells "
                             "files (default docs/reproduction)")
    common.add_argument("--report", default="docs/reproduction.md", metavar="PATH",
                        help="the report rendered whole from the draws files (default docs/reproduction.md)")
    common.add_argument("--figures", metavar="DIR", help="also write each reading's printed cells against mvlab's as "
                        "a PNG file into DIR (needs the system's chromium)")
    return common


def cmd_dashboard(args, streamlit_options: Sequence[str] = ()) -> int:
    """``dashboard [streamlit options]``: ``streamlit run`` of the dashboard (this checkout's ``app.py``, or an
    installed wheel's copy) from its own folder, so that its settings (``.streamlit/config.toml``) apply wherever
    the command is typed, made ready as it starts (:mod:`mvlab.ui.launch`); the options go to ``streamlit run``
    (``--server.port 8600``)."""
    import subprocess

    from mvlab.core import resources

    if importlib.util.find_spec("streamlit") is None:  # the library itself never imports streamlit
        raise ValueError("The dashboard needs Streamlit and the app's other packages: pip install 'mvlab[app]'.")
    env = dict(os.environ)
    if args.store:
        env["MVLAB_STORE"] = absolute_location(args.store)
    command = [sys.executable, "-m", "mvlab.ui.launch", "run", str(resources.path("app.py")),
               "--browser.gatherUsageStats", "false", *streamlit_options]
    try:
        return subprocess.run(command, cwd=resources.root(), env=env).returncode
    except KeyboardInterrupt:
        return 0


def cmd_serve(args) -> int:
    """``serve``: :func:`mvlab.deploy.serve.serve_forever` on the store of ``--store`` (or the default)."""
    from mvlab.deploy.serve import serve_forever

    return serve_forever(args.processes, args.port, args.address, args.store)


def cmd_certificates(args) -> int:
    """``certificates``: :func:`mvlab.engine.certificates.make_certificates` into ``args.folder``; prints where the
    settings file is and how to load it; returns 0."""
    from mvlab.engine.certificates import make_certificates

    env = make_certificates(args.folder, args.days)
    print(f"certificates and Dask's TLS settings in {env.parent}\n"
          f"load them before dask scheduler, dask worker and mvlab serve: set -a; . {env}; set +a\n"
          f"copy the folder to every machine of the engine, without ca-key.pem")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m mvlab`` (or ``mvlab``): the subcommands ``datasets``, ``runs``, ``run``,
    ``reproduce``, ``lesson``, ``dashboard``, ``serve`` and ``certificates``, each with its handler as ``func``."""
    parser = argparse.ArgumentParser(prog="python -m mvlab", description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default=None,
                        help="results store: a SQLite file or a postgresql:// URL (default $MVLAB_STORE or "
                             "~/.mvlab/results.sqlite)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("datasets", help="list the bundled datasets").set_defaults(func=cmd_datasets)
    runs = sub.add_parser("runs", help="list the stored runs")
    runs.add_argument("--kind", default=None)
    runs.set_defaults(func=cmd_runs)

    run = sub.add_parser("run", help="run one experiment on one dataset")
    run.add_argument("--dataset", required=True, choices=datasets.list_datasets())
    run.add_argument("--n", type=int, default=None, help="stratified sample of this many instances")
    run.add_argument("--family", default="dissimilarity", choices=list(FAMILIES))
    run.add_argument("--methods", nargs="*", default=None,
                     help="; ".join(f"{f.name}: {' '.join(f.methods)}" for f in FAMILIES.values()))
    run.add_argument("--repetitions", type=int, default=10)
    run.add_argument("--folds", type=int, default=0, help="k-fold instead of hold-out when > 1")
    run.add_argument("--test-size", type=float, default=0.5)
    run.add_argument("--pairs", type=int, default=500, help="training pairs per draw (family 'pairs')")
    run.add_argument("--trees", type=int, default=100)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--n-jobs", type=int, default=-1, help=N_JOBS_HELP)
    run.add_argument("--scheduler", default=None, help=SCHEDULER_HELP)
    run.add_argument("--resume", action="store_true",
                     help="continue the newest stored run with the same settings, or one with fewer "
                          "--repetitions: its finished splits are not recomputed")
    run.set_defaults(func=cmd_run)

    _add_reproduce_commands(sub)

    add_lesson_command(sub, SCHEDULER_HELP)

    _add_server_commands(sub)
    return parser


def _add_reproduce_commands(sub) -> None:
    """``reproduce``: one subcommand per protocol on the bundled data (``dvs``, ``ofsp``, ``sdf``), one per reading
    of the papers' own tables (:data:`mvlab.reproduction.registry.READINGS`), and ``report``."""
    rep = sub.add_parser("reproduce", help="a paper's protocol on the bundled data, or a reading of its own tables")
    kinds = rep.add_subparsers(dest="paper_name", required=True, metavar="NAME",
                               title="protocols on the bundled data (dvs, ofsp, sdf), readings of the papers' own "
                                     "tables, and report")
    engine = argparse.ArgumentParser(add_help=False)
    engine.add_argument("--n-jobs", type=int, default=-1, help=N_JOBS_HELP)
    engine.add_argument("--scheduler", default=None, help=SCHEDULER_HELP)
    for name, protocol in REPRODUCTIONS.items():
        cmd = kinds.add_parser(name, parents=[engine], allow_abbrev=False, description=protocol.note,
                               help=f"{protocol.note.split(':')[0]}'s protocol on mvlab's bundled datasets")
        if len(protocol.sizes) > 1:
            size = cmd.add_mutually_exclusive_group()
            size.add_argument("--quick", action="store_true", help="minutes on 2 cores (default)")
            size.add_argument("--paper", action="store_true", help="the paper's sizes (hours)")
        cmd.add_argument("--seed", type=int, default=0)
        if protocol.family != "view-construction":  # OFSP's views are scored by KNN, naive Bayes or an SVM
            cmd.add_argument("--trees", type=int, default=0, help="trees per forest instead of the size's own")
        else:
            cmd.add_argument("--classifiers", nargs="+", choices=list(CLASSIFIERS), metavar="NAME",
                             help=f"base classifiers instead of the size's own, from {list(CLASSIFIERS)}")
        cmd.add_argument("--repetitions", type=int, default=0,
                         help="splits (draws) instead of the size's own; ofsp: repetitions of its k-fold "
                              "cross-validation")
        cmd.add_argument("--figures", metavar="DIR", help="also write the charts (average ranks, sign test, "
                         "critical-difference diagrams) as PNG files into DIR (needs the system's chromium)")
        cmd.set_defaults(func=cmd_reproduce_ofsp if protocol.family == "view-construction" else
                         cmd_reproduce_protocol, protocol=name)
    common = _reading_common_options()
    report = kinds.add_parser("report", parents=[common], help="rewrite every cells file and the report from the "
                              "committed draws files (computes nothing)")
    report.set_defaults(func=cmd_reproduce_report)
    only = argparse.ArgumentParser(add_help=False)
    only.add_argument("--report-only", action="store_true",
                      help="compute nothing: rewrite this reading's cells file and the report")
    _add_reading_parsers(kinds, [common, only, engine])


def _add_server_commands(sub) -> None:
    """The subcommands that serve the dashboard and set its machines up: ``dashboard``, ``serve``, ``certificates``."""
    dash = sub.add_parser("dashboard", help="start the dashboard (any other option goes to streamlit run, e.g. "
                                            "--server.port 8600)")
    dash.set_defaults(func=cmd_dashboard)

    srv = sub.add_parser("serve", help="the dashboard on several server processes behind nginx (a lecture hall: "
                                       "see docs/guide/dashboard.md)")
    srv.add_argument("--processes", type=int, default=2, help="Streamlit server processes (default 2; about one "
                     "core each)")
    srv.add_argument("--port", type=int, default=8501, help="the port students open (default 8501)")
    srv.add_argument("--address", default="0.0.0.0",
                     help="the address nginx listens on (default 0.0.0.0: every interface, as make run)")
    srv.set_defaults(func=cmd_serve)

    certs = sub.add_parser("certificates", help="the job engine's TLS certificates and Dask settings for several "
                                                "machines (see docs/guide/deploy.md)")
    certs.add_argument("folder", help="an empty folder to write them into")
    certs.add_argument("--days", type=int, default=825, help="how long they are valid (default 825)")
    certs.set_defaults(func=cmd_certificates)


def redacted_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with every database URL's password hidden (``--store postgresql://u:***@host/db``, the ``--store=…``
    form too). multiprocessing gives a spawned process the parent's ``sys.argv``: the engine's workers and helpers
    must not receive the store's password (:func:`mvlab.store.shown_location`). What ``ps`` shows of this process's
    own command line cannot be changed afterwards: give the password by ``MVLAB_STORE`` or ``~/.pgpass`` instead."""
    out = []
    for arg in argv:
        prefix, sep, value = arg.partition("=") if arg.startswith("--") else ("", "", arg)
        out.append(prefix + sep + shown_location(value) if "://" in value else arg)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (``sys.argv[1:]`` when None); returns the exit status: the command's
    (0 on success), or 2 after printing the message of a ``ValueError`` (settings that cannot work)."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    renamed = _old_spelling(argv)
    if renamed:
        print(f"error: the papers' own tables are read by one subcommand per reading now: "
              f"python -m mvlab reproduce {renamed} (see python -m mvlab reproduce --help)", file=sys.stderr)
        return 2
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "dashboard":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    sys.argv = redacted_argv(sys.argv)  # a --store URL's password never reaches the processes this one spawns
    try:
        return args.func(args, rest) if args.command == "dashboard" else args.func(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
