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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pandas as pd

import mvlab.datasets as datasets
from mvlab.experiments.families import FAMILIES, get_family, make_protocol, run_experiment
from mvlab.experiments.report import family_reports, markdown
from mvlab.experiments.view_construction import CLASSIFIERS
from mvlab.store import ResultsStore, absolute_location


@dataclass
class Reproduction:
    """One paper's protocol on the bundled data: the family (whose presets give the parameters
    and the protocol at each size), the datasets, and what the paper reported."""

    family: str
    datasets: list            # (name, n_samples or None for all)
    note: str
    synthetic: dict = field(default_factory=dict)  # name -> make_multiview_classification parameters
    sweep: dict = field(default_factory=dict)      # k-sweep options per size (view construction)


REPRODUCTIONS = {
    "dvs": Reproduction(
        "dissimilarity",
        [("mfeat", 600), ("htad", 1000), ("segment", 1000), ("cell-segmentation", 1000), ("breast-cancer", None),
         ("digits", 600), ("nutrimouse", None), ("nutrimouse-diet", None)],
        note=("Bernard et al. 2020: 15 datasets, 10 stratified 50/50 splits, 512 trees, RFD dissimilarity; "
              "average ranks Avg 3.67, SWknn 3.50, SWka 3.30, SWoob 2.40, DVS 2.13; only DVS significantly "
              "better than Avg by the sign test."),
        synthetic={"synthetic": {"n_samples": 600, "n_views": 4, "n_features": 10, "n_classes": 3,
                                 "p_informative": 0.5, "relevance": "iid"},
                   "synthetic-regions": {"n_samples": 600, "n_views": 4, "n_features": 10, "n_classes": 3,
                                         "relevance": "region"}},
    ),
    "sdf": Reproduction(
        "pairs", [("breast-cancer", None), ("digits", None), ("mfeat", 600), ("nutrimouse", None)],
        note=("Utkin & Ryabinin 2018: 10 UCI datasets, N training and 2N/3 test pairs, 100 draws; Table 8 best "
              "settings: SDF beats gcForest on all 10 (mean +0.015, paired t-test p = 0.015)."),
    ),
    "ofsp": Reproduction(
        "view-construction", [("breast-cancer", None), ("madelon", 200), ("nutrimouse", None), ("mfeat", 200)],
        note=("Kumar & Minz 2016: 16 binary high-dimensional datasets (38-500 instances, 468-12,600 features), "
              "10 x 5-fold CV, k = 1..10 views, kNN / NB / linear SVM; methods ranked per dataset by Friedman "
              "aligned ranks (blocks = k) with Holm's post-hoc test (those tables are lost from the text)."),
        sweep={"quick": {"max_features": 100}, "paper": {"max_features": None}},
    ),
}


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


def _relayed(store: ResultsStore):
    """On the job engine (:func:`on_engine` open), the writes its workers relay are applied to ``store``
    (:func:`mvlab.engine.relay.relayed_into`); without one, nothing to do."""
    from distributed import Client

    from mvlab.engine.relay import relayed_into

    try:
        client = Client.current(allow_global=False)
    except ValueError:
        return nullcontext()
    return relayed_into(client, store)


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
    from mvlab.experiments.view_construction import k_sweep, sweep_test

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
            print(f"  Friedman aligned ranks (blocks = k): T = {test.friedman.statistic:.3f}, "
                  f"p = {test.friedman.p_value:.4f}; Holm against OFSP (z with the within-block permutation SE):")
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
        friedman = friedman_test(frame)
        print(f"Friedman: chi2 = {friedman.statistic:.3f}, p = {friedman.p_value:.4f}")
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


def cmd_reproduce(args) -> int:
    """Reproduce a paper's protocol on the bundled data (``python -m mvlab reproduce dvs|ofsp|sdf``) at the
    ``--quick`` (default) or ``--paper`` sizes, on the job engine unless ``--n-jobs 1``; returns the exit status."""
    _refuse_ignored_flags(args)
    mode = "paper" if args.paper else "quick"
    rep = REPRODUCTIONS[args.paper_name]
    store = ResultsStore(args.store)
    with on_engine(args, store):
        return _reproduce(rep, mode, args, store)


def _refuse_ignored_flags(args) -> None:
    """A flag the chosen protocol would not use is an error (ValueError), said before any engine starts."""
    for flag, value in (("--trees", args.trees), ("--repetitions", args.repetitions)):
        if value < 0:
            raise ValueError(f"{flag} must be 1 or more (0, the default: the size's own), got {value}.")
    ofsp = args.paper_name == "ofsp"
    if ofsp and args.trees:
        raise ValueError("--trees does not apply to 'reproduce ofsp': its views are scored by KNN, naive Bayes or "
                         "a linear SVM, with no forest.")
    if args.paper_name == "sdf" and args.paper and args.trees:
        raise ValueError("--trees does not apply to 'reproduce sdf --paper': its trees per forest are the paper's "
                         "grid; --trees-grid restricts it.")
    if args.classifiers and not ofsp:
        raise ValueError("--classifiers applies to 'reproduce ofsp' only.")
    if args.table3 and not ofsp:
        raise ValueError("--table3 applies to 'reproduce ofsp' only.")
    sdf_paper = args.paper_name == "sdf" and args.paper
    for flag, value in vars(args).items():
        name = "--" + flag.replace("_", "-")
        if value and name in READING_FLAGS and not (ofsp and args.table3 if name in OFSP_READINGS else sdf_paper):
            raise ValueError(f"{name} is a reading of " + ("'reproduce ofsp --table3'." if name in OFSP_READINGS
                                                            else "'reproduce sdf --paper'."))
    if ofsp and args.table3:
        _refuse_what_a_reading_fixes(args)
    if args.report_only and not ((ofsp and args.table3) or sdf_paper):
        raise ValueError("--report-only applies to the papers' own tables only: 'reproduce sdf --paper' and "
                         "'reproduce ofsp --table3'.")


def _say(line: str) -> None:
    """A protocol's progress line, on stderr at once (the draws go to files, the report to stdout)."""
    print(line, file=sys.stderr, flush=True)


def _print_written(paths) -> int:
    """Name the files a protocol wrote; the exit status 0."""
    for path in paths:
        print(f"written: {path}")
    return 0


def _draws_per_cell(args, scale: float = 1.0):
    """Draws per cell as a function of N: ``--repetitions`` when given, else the protocol's (times ``scale``)."""
    from mvlab.reproduction import sdf_paper

    return (lambda n: args.repetitions) if args.repetitions else (lambda n: sdf_paper.draws_for(n, scale))


def _run_sdf_draws(args, path: Path, tasks) -> None:
    """Compute the draws of ``tasks`` missing from the draws file ``path`` (unless ``--report-only``)."""
    from mvlab.reproduction import sdf_paper

    if not args.report_only:
        sdf_paper.run_paper_protocol(path, tasks, max_levels=args.max_levels, n_jobs=args.n_jobs, say=_say)


def _reproduce_sdf_paper(args) -> int:
    """The Siamese deep forest paper's Tables 4-9 on its own datasets (:mod:`mvlab.reproduction.sdf_paper`):
    the draws missing from ``<out>/sdf_paper_draws.csv`` are computed (and appended as they finish), then
    the cells file and the report are written from the draws file."""
    from mvlab.reproduction import sdf_paper
    from mvlab.reproduction.writer import write_sdf_outputs

    out = Path(args.out)
    if args.figures and (args.lambda_on_test or args.other_readings):
        print("figure: not written; --figures draws the main protocol's cells (sdf --paper without "
              "--lambda-on-test or --other-readings)")
    if args.lambda_on_test:
        return _reproduce_sdf_lambda(args, out)
    if args.other_readings:
        return _reproduce_sdf_readings(args, out)
    tasks = sdf_paper.paper_grid(datasets=args.datasets or sdf_paper.SDF_DATASETS, readings=args.readings,
                                 draws=_draws_per_cell(args, args.draws_scale), Ns=args.pairs_grid,
                                 Ts=args.trees_grid)
    _run_sdf_draws(args, out / "sdf_paper_draws.csv", tasks)
    status = _print_written(write_sdf_outputs(out, args.report))
    if args.figures:
        from mvlab.reproduction.writer import read_cells
        from mvlab.viz.reproduction_figures import sdf_paper_against_ours

        _write_cells_figure("sdf_paper_against_ours", read_cells("sdf", out), sdf_paper_against_ours, args.figures)
    return status


def _write_cells_figure(name: str, cells, draw, folder) -> None:
    """``draw(cells)`` written as ``folder/<name>.png``, or a line saying why not when no cell has a printed value."""
    if cells is None or not len(cells) or cells["paper"].isna().all():
        print(f"figure {name}: not written, no cell with a printed value yet")
        return
    _write_figures({name: draw(cells)}, folder)


def _reproduce_sdf_lambda(args, out: Path) -> int:
    """The λ reading (:mod:`mvlab.reproduction.sdf_lambda`): gcForest, SDF with λ chosen on training pairs and
    SDF with each λ fixed, on the main protocol's pairs at T = 100; draws to ``<out>/sdf_lambda_draws.csv``."""
    from mvlab.reproduction import sdf_lambda, sdf_paper
    from mvlab.reproduction.writer import write_sdf_lambda_outputs

    tasks = sdf_lambda.lambda_grid(datasets=args.datasets or sdf_lambda.LAMBDA_DATASETS,
                                   Ns=args.pairs_grid or sdf_paper.GRID_N,
                                   T=args.trees_grid[0] if args.trees_grid else sdf_lambda.LAMBDA_T,
                                   draws=_draws_per_cell(args))
    _run_sdf_draws(args, out / "sdf_lambda_draws.csv", tasks)
    return _print_written(write_sdf_lambda_outputs(out, args.report))


def _reproduce_sdf_readings(args, out: Path) -> int:
    """Two further readings (:mod:`mvlab.reproduction.sdf_readings`): pairs drawn as they come, and the QP fed
    in-sample probabilities, on Table 6's data at T = 100; draws to ``<out>/sdf_readings_draws.csv``."""
    from mvlab.reproduction import sdf_paper, sdf_readings
    from mvlab.reproduction.writer import write_sdf_readings_outputs

    tasks = sdf_readings.readings_grid(dataset=(args.datasets or [sdf_readings.READINGS_DATASET])[0],
                                       Ns=args.pairs_grid or sdf_paper.GRID_N,
                                       T=args.trees_grid[0] if args.trees_grid else sdf_readings.READINGS_T,
                                       draws=_draws_per_cell(args))
    _run_sdf_draws(args, out / "sdf_readings_draws.csv", tasks)
    return _print_written(write_sdf_readings_outputs(out, args.report))


def _reproduce_ofsp_table3(args, store: ResultsStore) -> int:
    """OFSP's Table 3 rows at the paper's protocol (:mod:`mvlab.reproduction.ofsp_paper`): the repetitions missing
    from ``<out>/ofsp_paper_draws.csv`` are computed and appended as they finish, then the cells file and the
    report's section are written from it; each repetition keeps its finished folds in the results ``store``, so one
    cut off continues from them. With ``--ofsp-on-test``, OFSP choosing its features by accuracy on the
    test fold (:mod:`mvlab.reproduction.ofsp_leak`, All-AML leukemia by default) into ``ofsp_leak_draws.csv``; with
    ``--knn-neighbours``, 1-NN against k chosen by leave-one-out (:mod:`mvlab.reproduction.ofsp_knn`, Madelon's KNN
    by default) into ``ofsp_knn_draws.csv``; with ``--svm-range``, the linear SVM on the features as generated and
    mapped to NIPS 2003's 0-999 (:mod:`mvlab.reproduction.ofsp_svm_range`, Madelon by default) into
    ``ofsp_svm_range_draws.csv``; with ``--generator-draws``, each classifier alone on 31 draws of Madelon's
    generator (:mod:`mvlab.reproduction.madelon_generator`) into ``madelon_generator_draws.csv``."""
    from mvlab.reproduction import madelon_generator, ofsp_knn, ofsp_leak, ofsp_paper, ofsp_svm_range, writer

    # stem of the draws file, default datasets and classifiers, one repetition, the writer
    runs = {"protocol": ("ofsp_paper", tuple(ofsp_paper.DATASETS), ofsp_paper.CLASSIFIERS, None,
                         writer.write_ofsp_outputs),
            "leak": ("ofsp_leak", ("golub-3051",), ofsp_paper.CLASSIFIERS, ofsp_leak.run_leak_draw,
                     writer.write_ofsp_leak_outputs),
            "knn": ("ofsp_knn", ("madelon-500",), READING_ONLY["knn"][1], ofsp_knn.run_knn_draw,
                    writer.write_ofsp_knn_outputs),
            "svm_range": ("ofsp_svm_range", ("madelon-500",), READING_ONLY["svm_range"][1],
                          ofsp_svm_range.run_range_draw, writer.write_ofsp_svm_range_outputs),
            "generator": ("madelon_generator", READING_ONLY["generator"][1], ofsp_paper.CLASSIFIERS,
                          madelon_generator.run_generator_draw, writer.write_madelon_generator_outputs)}
    reading = _ofsp_reading(args) or "protocol"
    stem, datasets, classifiers, draw, write = runs[reading]
    out = Path(args.out)
    if not args.report_only:
        default_repeats = madelon_generator.N_DRAWS if reading == "generator" else ofsp_paper.N_REPEATS
        tasks = ofsp_paper.ofsp_grid(datasets=args.datasets or datasets, classifiers=args.classifiers or classifiers,
                                     repeats=args.repetitions or default_repeats)
        # the protocol's repetitions keep their finished folds in the results store (hours each with the SVM),
        # written by this process: the engine's workers send them back (mvlab.engine.relay)
        from mvlab.engine.relay import StoreRelay

        folds = {"split_store": StoreRelay(store.location, store.dump(ofsp_paper.SPLITS_KIND))} if draw is None else {}
        with _relayed(store):
            ofsp_paper.run_ofsp_protocol(out / f"{stem}_draws.csv", tasks, n_jobs=args.n_jobs, draw=draw, say=_say,
                                         **folds)
    status = _print_written(write(out, args.report))
    if args.figures:  # the printed cells under the protocol and the test-fold reading, from both cells files
        from mvlab.viz.reproduction_figures import ofsp_paper_against_ours

        both = ofsp_leak.beside_the_protocol(writer.read_cells("ofsp", out), writer.read_cells("ofsp_leak", out))
        _write_cells_figure("ofsp_paper_against_ours", both, ofsp_paper_against_ours, args.figures)
    return status


OFSP_READINGS = {"--ofsp-on-test": "leak", "--knn-neighbours": "knn", "--svm-range": "svm_range",
                 "--generator-draws": "generator"}
"""The readings of OFSP's Table 3 (flags of ``reproduce ofsp --table3``), by the run each one names."""


def _ofsp_reading(args) -> str | None:
    """The OFSP reading that ``args`` ask for (a value of :data:`OFSP_READINGS`), or None for the protocol itself."""
    chosen = [flag for flag in OFSP_READINGS if getattr(args, flag[2:].replace("-", "_"))]
    if len(chosen) > 1:
        raise ValueError(f"{' and '.join(chosen)}: one reading at a time (each writes its own draws file).")
    return OFSP_READINGS[chosen[0]] if chosen else None


READING_ONLY = {"knn": ("classifiers", ("knn",)), "svm_range": ("classifiers", ("svm",)),
                "generator": ("datasets", ("madelon-500",))}
"""What an OFSP reading runs on alone: the option (``--classifiers`` or ``--datasets``) and its only values."""


def _refuse_what_a_reading_fixes(args) -> None:
    """One OFSP reading at most, and no --classifiers or --datasets that it would not run (ValueError)."""
    reading = _ofsp_reading(args)
    if reading not in READING_ONLY:
        return
    option, only = READING_ONLY[reading]
    given = getattr(args, option)
    if given and tuple(given) != only:
        flag = {run: flag for flag, run in OFSP_READINGS.items()}[reading]
        raise ValueError(f"{flag} runs on --{option} {' '.join(only)} only; leave out --{option}.")


def _reproduce(rep: Reproduction, mode: str, args, store: ResultsStore) -> int:
    if args.paper_name == "ofsp" and args.table3:
        return _reproduce_ofsp_table3(args, store)
    if args.paper_name == "ofsp":
        return _reproduce_ofsp(rep, mode, args, store)
    if args.paper_name == "sdf" and mode == "paper":
        return _reproduce_sdf_paper(args)
    family = get_family(rep.family)
    preset = family.presets[mode]
    params, protocol = dict(preset.params), preset.protocol
    if args.trees:
        params["n_estimators"] = args.trees
    if args.repetitions:
        protocol = dataclasses.replace(protocol, n_repetitions=args.repetitions)
    data = list(rep.datasets) + [(name, None) for name in rep.synthetic]
    print(f"Reproducing {args.paper_name} ({mode}): {family.name}, {type(protocol).__name__}"
          f"{tuple(vars(protocol).values())}, {params}")
    tables, computed, start = [], 0.0, time.perf_counter()
    kind = f"reproduce:{args.paper_name}:{mode}"
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


def cmd_lesson(args) -> int:
    """Warm a lesson's results into the store (``--warm``) and/or write its handout (``--html``)."""
    from mvlab.lessons import LESSONS, get_lesson
    from mvlab.lessons.handout import render_handout
    from mvlab.lessons.results import step_contexts, warm

    wanted = "all" if "all" in (args.warm, args.lesson_id) else args.lesson_id
    if wanted is None:
        raise ValueError(f"Name a lesson ({', '.join(LESSONS)}) or use --warm all.")
    lessons = list(LESSONS.values()) if wanted == "all" else [get_lesson(wanted)]
    if not args.warm and not args.html:
        raise ValueError("Say what to do: --warm (compute every step's results into the store) and/or --html PATH.")
    if args.html and len(lessons) != 1:
        raise ValueError("--html writes the handout of one lesson: name it (e.g. lesson dvs --html dvs.html).")
    store = ResultsStore(args.store)
    store.sweep_orphans()
    engine = None
    if args.n_jobs != 1:
        from mvlab.engine import Engine, EngineConfig, shared_engine

        engine = Engine(EngineConfig.from_env({"MVLAB_SCHEDULER": args.scheduler})) if args.scheduler \
            else shared_engine()
    try:
        for lesson in lessons:  # --html computes what is missing too: a handout shows every step's figures
            fates = warm(lesson, store, engine, say=lambda line: print(line, file=sys.stderr))
            if any(f.startswith("failed") for f in fates.values()):
                return 1
    finally:
        if args.scheduler and engine is not None:
            engine.close()
    if args.html:
        path = Path(args.html)
        if path.parent and not path.parent.exists():
            raise ValueError(f"--html {args.html}: the folder {path.parent} does not exist.")
        path.write_text(render_handout(lessons[0], step_contexts(lessons[0], store)), encoding="utf-8")
        print(f"handout of lesson '{lessons[0].id}' written to {path} ({path.stat().st_size / 1e6:.1f} MB)")
    else:
        print(f"{len(lessons)} lesson(s) ready in {store.shown}: every step opens without training.")
    return 0


READING_FLAGS = {
    "--lambda-on-test": "the reading 'λ chosen on the test draws': gcForest, SDF (λ on training pairs) and SDF with "
                        "each λ fixed, at T = 100 on the same pairs, into sdf_lambda_draws.csv",
    "--other-readings": "two further readings on Table 6's data at T = 100: pairs drawn as they come (not half "
                        "similar), and the QP fed in-sample tree probabilities (each λ), into sdf_readings_draws.csv",
    "--ofsp-on-test": "with ofsp --table3: OFSP choosing its features by accuracy on the test fold, a diagnosis of the "
                      "paper's 100 %% cells (All-AML by default), into ofsp_leak_draws.csv",
    "--knn-neighbours": "with ofsp --table3: RFSP, Bagging and VG-AC with 1-NN and with k chosen by leave-one-out "
                        "(PRTools' knnc), the likely cause of the Madelon KNN gap, into ofsp_knn_draws.csv",
    "--svm-range": "with ofsp --table3: RFSP, Bagging and VG-AC with the linear SVM (C = 1) on the features as "
                   "generated and mapped to NIPS 2003's 0-999 range, a lead for the Madelon SVM gap, into "
                   "ofsp_svm_range_draws.csv",
    "--generator-draws": "with ofsp --table3: KNN, naive Bayes and the linear SVM alone on 31 draws of Madelon's "
                         "generator (ours the first), how far the data's draw alone moves a cell, into "
                         "madelon_generator_draws.csv",
}
"""The readings of the papers, each a flag of ``reproduce sdf --paper`` or ``reproduce ofsp --table3``."""


def _add_paper_table_arguments(rep: argparse.ArgumentParser) -> None:
    """The options of ``reproduce sdf --paper`` (Tables 4-9 and its further readings) and ``reproduce ofsp --table3``,
    one argument group of the ``reproduce`` parser ``rep``."""
    sdf = rep.add_argument_group("the papers' own tables: sdf --paper (Tables 4-9), ofsp --table3")
    sdf.add_argument("--out", default="docs/reproduction", metavar="DIR",
                     help="folder of the draws file (sdf_paper_draws.csv, appended draw by draw and read back to "
                          "resume) and of the cells file sdf_paper_cells.csv (default docs/reproduction)")
    sdf.add_argument("--report", default="docs/reproduction.md", metavar="PATH",
                     help="report whose generated section is rewritten from the cells (default docs/reproduction.md)")
    sdf.add_argument("--report-only", action="store_true", help="compute nothing: rewrite cells and report")
    sdf.add_argument("--datasets", nargs="+", default=None, metavar="NAME", help="a subset of the paper's datasets")
    sdf.add_argument("--readings", nargs="+", default=["disjoint", "shared"], choices=["disjoint", "shared"],
                     help="pair-sampling readings to run (default both)")
    sdf.add_argument("--pairs-grid", nargs="+", type=int, default=None, metavar="N", help="restrict N")
    sdf.add_argument("--trees-grid", nargs="+", type=int, default=None, metavar="T", help="restrict T")
    sdf.add_argument("--draws-scale", type=float, default=1.0,
                     help="draws per cell times this (1: 10 for N <= 1000, 5 for N = 2000)")
    sdf.add_argument("--max-levels", type=int, default=10, help="cascade levels at most (default 10)")
    for flag, help_text in READING_FLAGS.items():
        sdf.add_argument(flag, action="store_true", help=help_text)


def cmd_dashboard(args, streamlit_options: Sequence[str] = ()) -> int:
    """``dashboard [streamlit options]``: ``streamlit run`` of the dashboard (this checkout's ``app.py``, or an
    installed wheel's copy) from its own folder, so that its settings (``.streamlit/config.toml``) apply wherever
    the command is typed; the options go to ``streamlit run`` (``--server.port 8600``)."""
    import subprocess

    from mvlab.core import resources

    if importlib.util.find_spec("streamlit") is None:  # the library itself never imports streamlit
        raise ValueError("The dashboard needs Streamlit and the app's other packages: pip install 'mvlab[app]'.")
    env = dict(os.environ)
    if args.store:
        env["MVLAB_STORE"] = absolute_location(args.store)
    command = [sys.executable, "-m", "streamlit", "run", str(resources.path("app.py")),
               "--browser.gatherUsageStats", "false", *streamlit_options]
    try:
        return subprocess.run(command, cwd=resources.root(), env=env).returncode
    except KeyboardInterrupt:
        return 0


def cmd_serve(args) -> int:
    """``serve``: :func:`mvlab.ui.serve.serve_forever` on the store of ``--store`` (or the default)."""
    from mvlab.ui.serve import serve_forever

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

    rep = sub.add_parser("reproduce", help="a paper's protocol on the bundled data")
    rep.add_argument("paper_name", choices=["dvs", "ofsp", "sdf"])
    size = rep.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="minutes on 2 cores (default)")
    size.add_argument("--paper", action="store_true", help="the paper's sizes (hours)")
    rep.add_argument("--seed", type=int, default=0)
    rep.add_argument("--n-jobs", type=int, default=-1, help=N_JOBS_HELP)
    rep.add_argument("--scheduler", default=None, help=SCHEDULER_HELP)
    rep.add_argument("--trees", type=int, default=0, help="trees per forest instead of the size's own")
    rep.add_argument("--repetitions", type=int, default=0,
                     help="splits (draws) instead of the size's own; ofsp: repetitions of its k-fold cross-validation "
                          "(--table3: of the paper's 5-fold)")
    rep.add_argument("--classifiers", nargs="+", choices=list(CLASSIFIERS), metavar="NAME",
                     help=f"ofsp only: base classifiers instead of the size's own, from {list(CLASSIFIERS)} "
                          "(the linear SVM's incremental evaluator still solves an SVM per candidate: it dominates the "
                          "paper-size run)")
    rep.add_argument("--table3", action="store_true",
                     help="ofsp only: Tables 3-4's All-AML leukemia (on golub-3051) and Madelon (synthetic) rows at "
                          "the paper's protocol, written like sdf --paper's draws (--out, --report, --report-only, "
                          "--datasets golub-3051 madelon-500, --classifiers, --repetitions); each repetition keeps "
                          "its finished folds in --store's results store, so a cut-off run continues from them")
    _add_paper_table_arguments(rep)
    rep.add_argument("--figures", metavar="DIR", help="also write the charts (average ranks, sign test, "
                     "critical-difference diagrams; with sdf --paper's main protocol and ofsp --table3 the paper's "
                     "cells against mvlab's) as PNG files into DIR (needs the system's chromium)")
    rep.set_defaults(func=cmd_reproduce)

    les = sub.add_parser("lesson", help="prepare a lesson for class (--warm) or write its handout (--html)")
    les.add_argument("lesson_id", nargs="?", default=None, metavar="ID",
                     help="proximity, dvs, ofsp or siamese (or 'all' with --warm)")
    les.add_argument("--warm", nargs="?", const=True, default=False, metavar="all",
                     help="compute every step's results into the results store (--warm all: every lesson)")
    les.add_argument("--html", metavar="PATH", help="write the lesson as one self-contained HTML file (figures "
                     "embedded, opens without a server or network); computes missing results first")
    les.add_argument("--n-jobs", type=int, default=-1, help="1 computes here, without the job engine")
    les.add_argument("--scheduler", default=None, help=SCHEDULER_HELP)
    les.set_defaults(func=cmd_lesson)

    _add_server_commands(sub)
    return parser


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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (``sys.argv[1:]`` when None); returns the exit status: the command's
    (0 on success), or 2 after printing the message of a ``ValueError`` (settings that cannot work)."""
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "dashboard":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        return args.func(args, rest) if args.command == "dashboard" else args.func(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
