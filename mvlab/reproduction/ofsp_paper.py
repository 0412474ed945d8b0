"""OFSP's Table 3 and 4 rows (Kumar & Minz 2016) at the paper's protocol, repetition by repetition.

The paper reports, per dataset, the accuracy of the OFSP ensemble for k = 1..10 views with KNN, naive Bayes
and a linear SVM under 10 x 5-fold cross-validation (its Table 3), the disagreement among its members (Table 4,
whose KNN and naive Bayes blocks survive), and box plots of the six view-construction methods over k
(Figs. 4-7). Two of its rows can be approached here, neither on the paper's own data:

- **All-AML leukemia**: the same 38 training samples of Golub et al. (27 ALL, 11 AML), but Bioconductor's
  filtered, log-transformed and standardised 3,051 genes (``golub-3051``), not the paper's raw 7,129;
- **Madelon**: a synthetic set made with Guyon's recipe for NIPS 2003's Madelon (5 informative features, 15
  linear combinations of them, 480 noise features, 16 clusters per class) at the paper's 500 x 500, not the
  challenge's data (:func:`mvlab.datasets.make_madelon`).

A *draw* is one repetition of the 5-fold cross-validation for one dataset and classifier: the six methods at
every k on the same five folds (:func:`mvlab.experiments.view_construction_sweep.k_sweep`), their accuracy,
members' disagreement, time and features kept averaged over the folds. VC-GA runs one GA per training fold whose
top k chromosomes are the views of every k (the paper:
"the top chromosomes are used for k = 1, 2, ..., 10 number of views"; :data:`PROTOCOL_OPTIONS`), which is also
ten times cheaper than a GA per k, the GA being most of a repetition's time with KNN and naive Bayes (with the
linear SVM OFSP's own fits are, about 70 % on Madelon). Repetitions are independent (each
its own shuffle of the folds), so a cell's 95 % interval is taken over the 10 repetitions. Every finished draw
is appended to a draws file at once.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from mvlab.reproduction.cells import CELL_COLUMNS, DrawsFile, summarise_cells, with_verdicts
from mvlab.reproduction.draw_runs import run_missing_draws

__all__ = ["DATASETS", "MADELON", "MADELON_SEED", "PAPER", "PAPER_DISAGREEMENT", "PAPER_TABLES",
           "PROTOCOL_OPTIONS", "OFSP_DRAW_COLUMNS", "OfspTask", "ofsp_grid", "SPLITS_KIND", "run_ofsp_draw",
           "run_fold_reading", "run_classifier_variants", "run_ofsp_protocol", "ofsp_cells"]

DATASETS = {
    "golub-3051": ("All-AML leukemia (golub-3051: 3,051 filtered genes; the paper: 7,130 attributes, Golub's 7,129 "
                   "genes and the class)"),
    "madelon-500": "Madelon (synthetic, Guyon's recipe, 500 x 500; not NIPS 2003's data)",
}
PAPER_ROW = {"golub-3051": "All-AML leukemia", "madelon-500": "Madelon"}
CLASSIFIERS = ("knn", "nb", "svm")
N_REPEATS, N_SPLITS, MAX_VIEWS = 10, 5, 10

# Table 3 (%), k = 1..10. All-AML is the first row of every block (NB's 97.37 = 37/38 fits its 38 samples).
# Madelon: the KNN block's labels are shifted by one row in the text (its values sit under "Prostate"; 75.20 =
# 376/500 fits 500 samples); the NB and SVM rows are read where they stand (64.80 = 324/500, 64.00 = 320/500).
_TABLE3 = {
    ("golub-3051", "knn"): [100.0] * 10,
    ("golub-3051", "nb"): [97.37] + [100.0] * 9,
    ("golub-3051", "svm"): [100.0] * 10,
    ("madelon-500", "knn"): [75.20, 84.60, 82.80, 84.40, 84.40, 80.00, 80.20, 82.20, 81.00, 84.40],
    ("madelon-500", "nb"): [64.80, 68.40, 72.40, 70.00, 70.40, 73.00, 69.40, 76.00, 74.20, 75.80],
    ("madelon-500", "svm"): [64.00, 63.80, 66.00, 65.00, 66.00, 66.00, 66.40, 68.00, 68.40, 68.60],
}
PAPER = {(name, clf, k + 1): v / 100 for (name, clf), values in _TABLE3.items() for k, v in enumerate(values)}
"""The paper's Table 3 cells for OFSP: ``(dataset, classifier, k) -> accuracy``."""

# Table 4 (OFSP's disagreement DM_total among the members): the KNN and NB blocks survive (the SVM block is lost).
# Its header promises k = 1..10 but every row holds nine values (V1..V9); a single member has no disagreement and
# Madelon's first value is 0.188, so the nine are read as k = 2..10. The All-AML values confirm it: each times
# 38 x C(k, 2) (the samples times the pairs of members) is a whole count of disagreements only with k = 2..10
# (0.0175 = 2 / (38 x 3) at k = 3; with k = 1..9 they give 0.67, 1.5, ...), a count pooled over the 38 samples.
_TABLE4 = {
    ("golub-3051", "knn"): [0.0000, 0.0175, 0.0132, 0.0105, 0.0000, 0.0150, 0.0066, 0.0117, 0.0000],
    ("golub-3051", "nb"): [0.0000, 0.0175, 0.0132, 0.0105, 0.0175, 0.0276, 0.0179, 0.0526, 0.0322],
    ("madelon-500", "knn"): [0.1880, 0.3240, 0.3533, 0.3512, 0.3761, 0.4036, 0.4050, 0.3907, 0.4339],
    ("madelon-500", "nb"): [0.3000, 0.3640, 0.3740, 0.3640, 0.4023, 0.4027, 0.4009, 0.4227, 0.4353],
}
PAPER_DISAGREEMENT = {(name, clf, k + 2): v for (name, clf), values in _TABLE4.items() for k, v in enumerate(values)}
"""The paper's Table 4 cells for OFSP: ``(dataset, classifier, k) -> disagreement`` for k = 2..10."""

PAPER_TABLES = {3: ("accuracy", PAPER), 4: ("disagreement", PAPER_DISAGREEMENT)}
"""Each of the paper's OFSP tables compared here: the draws' column it prints and its cells."""

PROTOCOL_OPTIONS = {"ga_runs": "shared"}
"""The k sweep's options at this protocol (:data:`mvlab.experiments.view_construction_sweep.GA_RUNS`); the others
are the sweep's defaults: 5 inner folds, a GA of 30 generations of 100 offspring from 50 parents, 10 AB trials."""

OFSP_DRAW_COLUMNS = ["dataset", "classifier", "repetition", "seed", "method", "k", "accuracy", "disagreement",
                     "percent_features", "seconds"]
OFSP_DRAW_KEY = ["dataset", "classifier", "repetition"]


@dataclass(frozen=True)
class OfspTask:
    """One repetition of the 5-fold cross-validation of one dataset with one classifier."""

    dataset: str
    classifier: str
    repetition: int

    @property
    def key(self) -> tuple:
        """The repetition's key in the draws file: ``(dataset, classifier, repetition)``, the columns of
        ``OFSP_DRAW_KEY``."""
        return (self.dataset, self.classifier, self.repetition)

    @property
    def seed(self) -> int:
        """The seed of the repetition's outer folds (and, through them, of every method's): the same for every
        method, classifier and reading run on this repetition."""
        return 1000 * (1 + self.repetition)


MADELON = {"n_samples": 500, "n_features": 500, "n_informative": 5, "n_redundant": 15, "n_clusters_per_class": 16}
"""NIPS 2003's Madelon settings of :func:`mvlab.datasets.make_madelon` for the Madelon row (the paper's 500 rows)."""

MADELON_SEED = 2003
"""The generator seed of the Madelon row's data."""


def load(name: str):
    """The data of a Table 3 row (see the module's docstring)."""
    from mvlab.datasets import load_dataset, make_madelon

    if name == "madelon-500":
        return make_madelon(**MADELON, random_state=MADELON_SEED)
    if name not in DATASETS:
        raise ValueError(f"{name!r} is not one of OFSP's Table 3 rows run here: {list(DATASETS)}.")
    return load_dataset(name)


def ofsp_grid(datasets=tuple(DATASETS), classifiers=CLASSIFIERS, repeats: int = N_REPEATS) -> list[OfspTask]:
    """Every repetition to compute, the cheapest classifiers first within each round of repetitions."""
    order = {c: i for i, c in enumerate(("knn", "nb", "svm"))}
    tasks = [OfspTask(d, c, r) for d in datasets for c in classifiers for r in range(repeats)]
    return sorted(tasks, key=lambda t: (t.repetition, order.get(t.classifier, 9), t.dataset))


SPLITS_KIND = "ofsp-table3"
"""The kind under which :func:`run_ofsp_draw` keeps a repetition's finished folds in a results store."""


def run_ofsp_draw(task: OfspTask, max_views: int = MAX_VIEWS, n_splits: int = N_SPLITS, n_jobs: int = 1,
                  split_store=None, **options) -> list[dict]:
    """One repetition: the six methods at k = 1..``max_views`` on ``n_splits`` folds; rows of
    :data:`OFSP_DRAW_COLUMNS` (per method and k, the mean over the folds).

    ``split_store``: the location of a results store, or a store (:class:`mvlab.store.RunStore`: the one the command
    line gives carries the folds back from a worker of the job engine), in which every finished fold is kept as it
    ends (kind :data:`SPLITS_KIND`) and from which a repetition cut off earlier takes its finished folds back, so an
    interrupted repetition of many hours (Madelon with the linear SVM) loses one fold at most."""
    from mvlab.experiments.view_construction_sweep import k_sweep

    ds = load(task.dataset)
    seed = task.seed
    resume = {}
    if split_store is not None:
        from mvlab.store import ResultsStore

        store = ResultsStore(split_store) if isinstance(split_store, (str, os.PathLike)) else split_store
        resume = {"store": store, "kind": SPLITS_KIND, "resume": True}
    result = k_sweep(ds.X, ds.y, classifiers=[task.classifier], max_views=max_views, n_splits=n_splits, n_repeats=1,
                     random_state=seed, n_jobs=n_jobs, **resume, **{**PROTOCOL_OPTIONS, **options})
    wide = result.table.pivot_table(index=["method", "k"], columns="metric", values="value", aggfunc="mean")
    return [{"dataset": task.dataset, "classifier": task.classifier, "repetition": task.repetition, "seed": seed,
             "method": method, "k": int(k), "accuracy": row["accuracy"], "disagreement": row["disagreement"],
             "percent_features": row["percent_features"], "seconds": row["seconds"]}
            for (method, k), row in wide.iterrows()]


FoldEvaluator = Callable[[object, object, int, int], object]
"""``evaluate(ds, split, k, seed) -> ensemble``: one method at ``k`` views fitted on one outer fold's training
rows (``split.train`` of ``ds``; ``seed`` the fold's seed for that ``k``), a fitted
:class:`mvlab.construction.ensemble.ViewEnsemble` to be scored on ``split.test``."""


def run_fold_reading(task: OfspTask, methods: dict[str, FoldEvaluator], max_views: int = MAX_VIEWS,
                     n_splits: int = N_SPLITS) -> list[dict]:
    """One repetition of a reading run on the protocol's own folds and seeds (those of :func:`run_ofsp_draw`):
    for every k = 1..``max_views`` and every ``method`` in ``methods`` (in its order), the ensemble its evaluator
    fits on each fold scored on the fold's test rows
    (:func:`mvlab.experiments.view_construction_sweep.ensemble_metrics`: accuracy, disagreement, features kept), the
    mean over the folds; rows of :data:`OFSP_DRAW_COLUMNS`, ``seconds`` the mean time per fold."""
    from mvlab.experiments.protocols import RepeatedKFold
    from mvlab.experiments.view_construction_sweep import cell_seed, ensemble_metrics

    ds = load(task.dataset)
    seed = task.seed  # as run_ofsp_draw: the same outer folds
    splits = RepeatedKFold(n_repeats=1, n_splits=n_splits).splits(ds.y, seed)
    rows = []
    for k in range(1, max_views + 1):
        for method, evaluate in methods.items():
            start = time.perf_counter()
            folds = pd.DataFrame([ensemble_metrics(evaluate(ds, s, k, cell_seed(s.seed, k)), ds.X, ds.y, s.test)[0]
                                  for s in splits])
            rows.append({"dataset": task.dataset, "classifier": task.classifier, "repetition": task.repetition,
                         "seed": seed, "method": method, "k": k, "accuracy": float(folds["accuracy"].mean()),
                         "disagreement": float(folds["disagreement"].mean()),
                         "percent_features": float(folds["percent_features"].mean()),
                         "seconds": (time.perf_counter() - start) / len(splits)})
    return rows


def run_classifier_variants(task: OfspTask, methods: Iterable[str], variants: dict[str, object],
                            max_views: int = MAX_VIEWS, n_splits: int = N_SPLITS) -> list[dict]:
    """One repetition of a classifier reading on the protocol's folds and seeds (:func:`run_fold_reading`): for
    every k and method of ``methods`` (view constructions that do not consult the classifier: RFSP, Bagging,
    VG-AC), the performance-weighted ensemble (inner 5-fold weights, as the protocol's) with each classifier of
    ``variants`` (name -> ``"knn"``/``"nb"``/``"svm"`` or an unfitted classifier); a row's ``method`` reads
    ``"<method>, <variant>"``, so the two rows of a method differ by the classifier alone."""
    from mvlab.construction.ensemble import ViewEnsemble
    from mvlab.experiments.view_construction_sweep import make_partitioner

    def evaluator(method, estimator):
        def evaluate(ds, split, k, seed):
            ens = ViewEnsemble(partitioner=make_partitioner(method, k, random_state=seed), estimator=estimator,
                               weighting="performance", inner_cv=5, random_state=seed)
            return ens.fit(ds.X[split.train], ds.y[split.train])
        return evaluate

    readings = {f"{method}, {variant}": evaluator(method, estimator) for method in methods
                for variant, estimator in variants.items()}
    return run_fold_reading(task, readings, max_views, n_splits)


def run_ofsp_protocol(path, tasks: Iterable[OfspTask], *, n_jobs: int = 1, say: Callable[[str], None] | None = None,
                      draw=None, **options) -> int:
    """Compute the repetitions of ``tasks`` missing from the draws file ``path``, appending each as it ends
    (:func:`mvlab.reproduction.draw_runs.run_missing_draws`: one per engine worker with ``n_jobs != 1``);
    ``draw`` computes one (default :func:`run_ofsp_draw`; :func:`mvlab.reproduction.ofsp_leak.run_leak_draw`)."""
    def describe(rows):
        r = rows[0]
        ofsp = [x["accuracy"] for x in rows if x["method"].startswith("OFSP")]
        shown, what = (ofsp, "OFSP accuracy") if ofsp else ([x["accuracy"] for x in rows], "accuracy")
        over = " over k" if len({x["k"] for x in rows}) > 1 else ""
        return (f"{r['dataset']} {r['classifier']} repetition {r['repetition']}: {what}{over} "
                f"{min(shown):.3f}-{max(shown):.3f}")

    return run_missing_draws(DrawsFile(path, OFSP_DRAW_COLUMNS, OFSP_DRAW_KEY), tasks,
                             partial(run_ofsp_draw if draw is None else draw, **options), n_jobs=n_jobs, say=say,
                             describe=describe, noun="repetition(s)")


def ofsp_cells(draws: pd.DataFrame, paper_methods=("OFSP",), reading: str = "10 x 5-fold") -> pd.DataFrame:
    """One row per (table, dataset, classifier, method, k) in :data:`CELL_COLUMNS` (``model`` the view-construction
    method): the repetitions' mean, 95 % interval and prediction interval of the column each table of
    :data:`PAPER_TABLES` prints
    (Table 3 the accuracy, Table 4 the disagreement, from k = 2), with the paper's value for OFSP (the methods
    ``paper_methods``); ``reading`` names what the draws are."""
    key = ["dataset", "classifier", "method", "k"]
    tables = []
    for table, (column, paper) in PAPER_TABLES.items():
        measured = draws[np.isfinite(draws[column].astype(float))] if len(draws) else draws
        if measured.empty:
            continue
        summary = summarise_cells(measured, key, value=column)
        summary["paper"] = [paper.get((d, c, int(k)), np.nan) if m in paper_methods else np.nan
                            for d, c, m, k in summary[key].itertuples(index=False)]
        tables.append(summary.assign(table=table))
    if not tables:
        return pd.DataFrame(columns=CELL_COLUMNS)
    cells = pd.concat(tables, ignore_index=True)
    return with_verdicts(cells.assign(N="", T="", reading=reading, model=cells["method"]))


FIGURE_METRICS = {"accuracy": "accuracy (Fig. 4)", "disagreement": "disagreement (Fig. 5)",
                  "seconds": "seconds per fold (Fig. 6)", "percent_features": "% of features kept (Fig. 7)"}
"""The draws' columns that the paper's Figs. 4-7 draw as box plots over k, with their titles. ``seconds`` is the
wall-clock time of building the views and fitting the ensemble on a fold's training rows; the paper's Fig. 6 times
the classifiers (CPU time) and leaves out how long the views took to build."""


def figure_panels(draws: pd.DataFrame, dataset: str, metrics=tuple(FIGURE_METRICS)) -> dict:
    """The paper's Figs. 4-7 on one dataset: ``(metric, classifier)`` to a frame of shape (n_k, n_methods), a row
    per k and a column per view-construction method (in :data:`mvlab.experiments.view_construction_sweep.METHODS`
    order), each value the mean of ``metric`` over the repetitions in ``draws`` (rows of
    :data:`OFSP_DRAW_COLUMNS`); the input of :func:`mvlab.viz.view_construction_figures.k_sweep_boxes`, whose
    boxes summarise each column over k as the paper's do."""
    from mvlab.experiments.view_construction_sweep import METHODS

    part = draws[draws["dataset"] == dataset]
    panels = {}
    for metric in metrics:
        for clf in [c for c in CLASSIFIERS if c in set(part["classifier"])]:
            frame = part[part["classifier"] == clf].pivot_table(index="k", columns="method", values=metric,
                                                                 aggfunc="mean", dropna=False)
            panels[(metric, clf)] = frame[sorted(frame.columns, key=lambda m: (m not in METHODS, METHODS.index(m)
                                                                               if m in METHODS else 0, m))]
    return panels
