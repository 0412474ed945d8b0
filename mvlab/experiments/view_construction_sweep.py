"""The k-sweep experiment of Kumar & Minz: six view-construction methods, k = 1..K views,
performance-weighted view ensembles, the same folds for every method (docs/algorithms.md B.5-B.7).

For every split of a repeated stratified k-fold protocol (:class:`mvlab.experiments.runner.RepeatedKFold`,
paper: 10 x 5-fold) and every base classifier ("knn", "nb", "svm"), method and number of views
k = 1..K, one *cell* is evaluated:

1. the method's partitioner (:mod:`mvlab.construction.partition`) builds k views on the training rows only;
2. a :class:`mvlab.construction.ensemble.ViewEnsemble` with Eq. 9 performance weights (inner-CV errors on
   the training rows) is fitted on those views (Bagging: on its bootstrap row samples);
3. on the test rows: accuracy of the Eq. 10 weighted vote, and the disagreement DM_total of the
   members (Eqs. 1-3; NaN when fewer than two non-empty views, so always at k = 1);
4. wall-clock and CPU seconds of steps 1 + 2 (:func:`mvlab.construction.ensemble.timed_fit`), the share of
   features kept, ``100 |X_1 u ... u X_k| / d`` (B.6), and the number of non-empty views.

Every method and classifier sees the same splits, and within a split the same seed for a given
k (:func:`cell_seed`).  :func:`k_sweep` returns a :class:`KSweepResult` (a tidy table plus the
partitions of the last split, for the partition view); :func:`sweep_test` runs the Friedman
aligned-ranks test and Holm's post-hoc with OFSP as control, the blocks being the values of k
(B.7).  :func:`evaluate_split` is the same computation on one given split, the
``"view-construction"`` family of :func:`mvlab.experiments.runner.run_experiment`.
:func:`make_madelon` is the Madelon-like high-dimensional synthetic set of the paper's
datasets.
"""

from __future__ import annotations

import numbers
import time
from contextlib import closing
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.parallel import Parallel, delayed
from threadpoolctl import threadpool_limits

from mvlab.construction.diversity import diversity_report
from mvlab.construction.ensemble import ViewEnsemble, percent_features_used, timed_fit, weighted_vote
from mvlab.construction.estimators import ESTIMATOR_NAMES
from mvlab.construction.partition import (
    OFSP,
    AttributeBagging,
    AttributeClustering,
    Bagging,
    GeneticViews,
    RandomPartition,
)
from mvlab.core.progress import ProgressCallback, report_partial
from mvlab.core.serialize import pack, unpack
from mvlab.core.threads import call_on_threads
from mvlab.datasets.container import MultiViewDataset
from mvlab.experiments.protocols import RepeatedKFold
from mvlab.experiments.runner import Family, Preset, run_protocol, with_param_columns
from mvlab.i18n import N_, Message
from mvlab.stats import (
    FriedmanAlignedResult,
    PosthocResult,
    friedman_aligned_ranks_test,
    posthoc_vs_control,
)

__all__ = [
    "METHODS", "METHOD_TITLES", "CLASSIFIERS", "CLASSIFIER_TITLES", "METRICS", "METRIC_TITLES",
    "HIGHER_IS_BETTER", "make_partitioner", "cell_seed", "ensemble_metrics", "evaluate_split", "k_sweep",
    "KSweepResult", "SweepTest", "sweep_test", "feature_groups", "partition_crosstab", "VIEW_CONSTRUCTION",
]


METHODS = ("OFSP", "RFSP", "Bagging", "AB", "VG-AC", "VC-GA")
"""The six methods of the paper's comparison, by their names in the paper."""
METHOD_TITLES = {
    "OFSP": N_("OFSP: optimal feature set partitioning"),
    "RFSP": N_("RFSP: random feature set partitioning"),
    "Bagging": N_("Bagging: k bootstrap samples of the rows, all features"),
    "AB": N_("AB: attribute bagging (size search, then k random subsets)"),
    "VG-AC": N_("VG-AC: k-means clustering of the feature columns"),
    "VC-GA": N_("VC-GA: genetic algorithm, the k best feature masks"),
}
CLASSIFIERS = ESTIMATOR_NAMES
CLASSIFIER_TITLES = {"knn": N_("1-NN"), "nb": N_("naive Bayes"), "svm": N_("linear SVM")}
"""Short names (widgets are narrow): 1-nearest neighbour, Gaussian naive Bayes, linear SVM with C = 1."""
METRICS = ("accuracy", "disagreement", "seconds", "cpu_seconds", "percent_features", "views_used")
METRIC_TITLES = {
    "accuracy": N_("test accuracy"),
    "disagreement": N_("disagreement DM_total"),
    "seconds": N_("time (wall-clock s)"),
    "cpu_seconds": N_("time (CPU s)"),
    "percent_features": N_("% features kept"),
    "views_used": N_("non-empty views"),
}
HIGHER_IS_BETTER = {"accuracy": True, "disagreement": False, "seconds": False, "cpu_seconds": False,
                    "percent_features": False, "views_used": True}
"""Direction used to rank methods in :func:`sweep_test` (rank 1 = best): higher accuracy is better;
lower disagreement is better, as Kumar & Minz read it ("consensus must be higher, or disagreement must
be lower": views of a good partition agree on the test instances); less time and fewer kept features
are better."""

_OPTION_DEFAULTS = {"inner_cv": 5, "ga_generations": 30, "ga_population": 50, "ga_offspring": 100,
                    "ab_trials": 10, "feature_order": "natural", "ga_runs": "per_k"}
GA_RUNS = ("per_k", "shared")
"""How VC-GA's views for k = 1..K come about (``ga_runs``). The paper: "the top chromosomes are used for
k = 1, 2, ..., 10 number of views", which reads as one GA whose top k chromosomes are the views for each k
(``"shared"``: one GA per training fold and classifier, seeded the same for every k, so its top k serve every
k; its time counts in every k's cell). ``"per_k"`` (mvlab's first reading, the default): a GA of its own for
every k, seeded as the other methods' cells are."""


# --------------------------------------------------------------------------- one cell

def make_partitioner(method: str, n_views: int, classifier: str = "knn", *, inner_cv: int = 5,
                     ga_generations: int = 30, ga_population: int = 50, ga_offspring: int = 100,
                     ab_trials: int = 10, feature_order: str = "natural", random_state=None):
    """The unfitted partitioner of ``method`` (one of :data:`METHODS`) for ``n_views`` views.

    ``classifier`` is the inducer of the wrapper methods (OFSP, AB, VC-GA); ``inner_cv`` their
    inner folds on the training data; ``ga_*`` the GA's generations, population and offspring
    (paper: 50 and 100); ``ab_trials`` the random subsets per candidate size of AB;
    ``feature_order`` the order of OFSP's greedy pass.
    """
    if method == "OFSP":
        return OFSP(n_views, classifier, inner_cv=inner_cv, feature_order=feature_order, random_state=random_state)
    if method == "RFSP":
        return RandomPartition(n_views, random_state=random_state)
    if method == "Bagging":
        return Bagging(n_views, random_state=random_state)
    if method == "AB":
        return AttributeBagging(n_views, classifier, n_trials=ab_trials, inner_cv=inner_cv, random_state=random_state)
    if method == "VG-AC":
        return AttributeClustering(n_views, random_state=random_state)
    if method == "VC-GA":
        return GeneticViews(n_views, classifier, population_size=ga_population, n_offspring=ga_offspring,
                            n_generations=ga_generations, inner_cv=inner_cv, random_state=random_state)
    raise ValueError(f"unknown method {method!r}; choose from {list(METHODS)}.")


def cell_seed(split_seed: int, k: int) -> int:
    """Seed of every partitioner and ensemble with k views on a split: the same for every method
    and classifier, different for every k and split."""
    return int(np.random.SeedSequence([int(split_seed) % 2**32, int(k)]).generate_state(1)[0] % (2**31 - 1))


def _partitioner_options(options: dict) -> dict:
    """The options :func:`make_partitioner` takes (``ga_runs`` is the sweep's own)."""
    return {k: v for k, v in options.items() if k != "ga_runs"}


def ensemble_metrics(ens, X, y, test) -> tuple[dict, list]:
    """What a fitted view ensemble ``ens`` does on the rows ``test`` of ``X`` (n, d), ``y`` (n,): the accuracy of
    its Eq. 10 weighted vote, the disagreement DM_total of its members (Eqs. 1-3; NaN for a single member), the
    percentage of the d features its views keep and how many views it uses; and its views."""
    P = ens.view_predictions(X[test])
    predicted, _ = weighted_vote(P, ens.weights_, ens.classes_)
    views = ens.partitioner_.views_ if hasattr(ens, "partitioner_") else ens.views_
    return {
        "accuracy": float(np.mean(predicted == y[test])),
        "disagreement": diversity_report(P)["disagreement"],
        "percent_features": percent_features_used(views, X.shape[1]),
        "views_used": float(len(ens.views_)),
    }, views


def _cell_metrics(ens, X, y, test, timing, shared=None):
    """:func:`ensemble_metrics` of one fitted view ensemble on the test rows and its time (``shared``: the
    :class:`Timing` of work done once for several cells, counted in each)."""
    metrics, views = ensemble_metrics(ens, X, y, test)
    return {
        **metrics,
        "seconds": timing.wall_seconds + (shared.wall_seconds if shared else 0.0),
        "cpu_seconds": timing.cpu_seconds + (shared.cpu_seconds if shared else 0.0),
    }, views


def _membership(views, k, d):
    membership = np.zeros((k, d), dtype=bool)
    for i, v in enumerate(views[:k]):
        membership[i, v] = True
    return membership


def _evaluate_cell(X, y, train, test, method, classifier, k, seed, options, keep_partition):
    """Metrics of one (method, classifier, k) on one split; the (k, d) view membership if asked."""
    ens = ViewEnsemble(partitioner=make_partitioner(method, k, classifier, random_state=seed,
                                                    **_partitioner_options(options)),
                       estimator=classifier, weighting="performance", inner_cv=options["inner_cv"],
                       random_state=seed)
    timing = timed_fit(ens, X[train], y[train])
    metrics, views = _cell_metrics(ens, X, y, test, timing)
    membership = _membership(views, k, X.shape[1]) if keep_partition else None
    return method, classifier, k, metrics, metrics["seconds"], membership


def _evaluate_shared_ga(X, y, train, test, classifier, max_views, split_seed, options, keep_partition):
    """VC-GA's cells for k = 1..``max_views`` from one GA (``ga_runs="shared"``, :data:`GA_RUNS`): the views of k
    are its top k chromosomes, the ensemble of k seeded as every other cell of k; the GA's time counts in every k.
    A list of what :func:`_evaluate_cell` returns, one per k."""
    ga = make_partitioner("VC-GA", max_views, classifier, random_state=cell_seed(split_seed, 0),
                          **_partitioner_options(options))
    ga_time = timed_fit(ga, X[train], y[train])
    out = []
    for k in range(1, max_views + 1):
        ens = ViewEnsemble(views=ga.views_[:k], estimator=classifier, weighting="performance",
                           inner_cv=options["inner_cv"], random_state=cell_seed(split_seed, k))
        metrics, views = _cell_metrics(ens, X, y, test, timed_fit(ens, X[train], y[train]), ga_time)
        membership = _membership(views, k, X.shape[1]) if keep_partition else None
        out.append(("VC-GA", classifier, k, metrics, metrics["seconds"], membership))
    return out


def _check_sweep(X, y, methods, classifiers, max_views, options):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
        raise ValueError(f"X must be (n, d) and y (n,); got shapes {X.shape} and {y.shape}.")
    methods, classifiers = list(methods), list(classifiers)
    if not methods or not classifiers:
        raise ValueError("choose at least one method and one classifier.")
    bad = [m for m in methods if m not in METHODS] + [c for c in classifiers if c not in CLASSIFIERS]
    if bad:
        raise ValueError(f"unknown method or classifier {bad}; methods: {list(METHODS)}, "
                         f"classifiers: {list(CLASSIFIERS)}.")
    if not isinstance(max_views, numbers.Integral) or isinstance(max_views, bool) or max_views < 1:
        raise ValueError(f"the largest number of views K must be a positive integer, got {max_views!r}.")
    if max_views > X.shape[1]:
        raise ValueError(f"K = {max_views} views need at least {max_views} features; the data has {X.shape[1]}. "
                         "Use fewer views or more features.")
    unknown = set(options) - set(_OPTION_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)}; known: {sorted(_OPTION_DEFAULTS)}.")
    opts = {**_OPTION_DEFAULTS, **options}
    if not isinstance(opts["inner_cv"], numbers.Integral) or opts["inner_cv"] < 2:
        raise ValueError(f"inner_cv must be an integer >= 2 (inner folds), got {opts['inner_cv']!r}.")
    if opts["ga_runs"] not in GA_RUNS:
        raise ValueError(f"ga_runs must be one of {list(GA_RUNS)}, got {opts['ga_runs']!r}.")
    if "VC-GA" in methods and max_views > opts["ga_population"]:
        raise ValueError(f"VC-GA takes its K = {max_views} views from a population of {opts['ga_population']}; "
                         "use a larger population or fewer views.")
    return X, y, methods, classifiers, opts


def _rows(method, classifier, k, metrics, seconds):
    return [{"method": method, "metric": m, "value": float(v), "seconds": seconds,
             "params": {"classifier": classifier, "k": k}} for m, v in metrics.items()]


def evaluate_split(X, y, train, test, *, methods: Sequence[str] = METHODS, classifiers: Sequence[str] = CLASSIFIERS,
                   max_views: int = 10, random_state: int = 0, n_jobs: int | None = None,
                   keep_partitions: bool = False, progress: ProgressCallback = None, **options):
    """Every (method, classifier, k = 1..max_views) cell on one given split (rows ``train`` /
    ``test`` of ``X`` (n, d)).

    Returns
    -------
    rows : list of dict
        Tidy rows ``{"method", "metric", "value", "seconds", "params": {"classifier", "k"}}``:
        ``method`` is the view-construction method (one of :data:`METHODS`), every metric of
        :data:`METRICS` for every cell.
    memberships : dict (method, classifier, k) -> bool ndarray (k, d), or None
        The partitions, with ``keep_partitions``.

    ``options`` as for :func:`make_partitioner`.  Cells run in parallel (``n_jobs``), each with
    one BLAS thread (their matrices are small; threads only oversubscribe the cores, measured
    several times slower on a busy 2-core machine).  This is the ``"view-construction"``
    family's evaluation of one split.  Cells run k by k; once every cell of the first half of the k's is done
    (VC-GA's shared GA aside, which comes last), their rows are offered to ``progress`` as a partial result
    (:func:`mvlab.core.progress.report_partial`; :func:`mvlab.experiments.runner.run_protocol` turns the first
    split's into the sweep's partial result).
    """
    X, y, methods, classifiers, opts = _check_sweep(X, y, methods, classifiers, max_views, options)
    train, test = np.asarray(train), np.asarray(test)
    shared_ga = opts["ga_runs"] == "shared" and "VC-GA" in methods
    # k by k (every method and classifier of k = 1 first): the rows of the first half of the k's are a part of the
    # result a page can show (VC-GA's shared GA, one job of every k, comes last)
    cells = [(m, c, k) for k in range(1, max_views + 1) for c in classifiers for m in methods
             if not (shared_ga and m == "VC-GA")]
    half = (max_views + 1) // 2
    left_in_half = sum(1 for _, _, k in cells if k <= half)
    jobs = [delayed(call_on_threads)(_evaluate_cell, X, y, train, test, m, c, k, cell_seed(random_state, k), opts,
                                     keep_partitions)
            for m, c, k in cells]
    if shared_ga:  # one job per classifier gives VC-GA's cells of every k
        jobs += [delayed(call_on_threads)(_evaluate_shared_ga, X, y, train, test, c, max_views, random_state, opts,
                                          keep_partitions) for c in classifiers]
    total = len(cells) + (len(classifiers) * max_views if shared_ga else 0)
    rows, memberships, done = [], {}, 0
    # closing: a run stopped mid-way (the page's Stop raises inside progress) shuts its workers down
    # now; left to the garbage collector, that shutdown can hit the next run's shared executor
    with threadpool_limits(limits=1), closing(Parallel(n_jobs=n_jobs, return_as="generator")(jobs)) as results:
        for result in results:
            for m, c, k, metrics, seconds, membership in (result if isinstance(result, list) else [result]):
                done += 1
                rows += _rows(m, c, k, metrics, seconds)
                if membership is not None:
                    memberships[(m, c, k)] = membership
                if k <= half and not (shared_ga and m == "VC-GA"):
                    left_in_half -= 1
                    if left_in_half == 0 and half < max_views:
                        report_partial(progress, lambda rows=list(rows): rows,
                                       Message(N_("k = 1..{k} of the first test fold"), k=half))
                if progress is not None:
                    progress(done / total, Message(N_("{done}/{total} cells done ({method}, {classifier}, k = {k})"),
                                                    done=done, total=total, method=m, classifier=c, k=k))
    return rows, (memberships if keep_partitions else None)


# --------------------------------------------------------------------------- the sweep

_COLUMNS = ["method", "classifier", "k", "repetition", "fold", "metric", "value"]


@dataclass
class KSweepResult:
    """What :func:`k_sweep` measured.

    Attributes
    ----------
    table : DataFrame
        Tidy: one row per (method, classifier, k, repetition, fold, metric) with its ``value``;
        metrics are :data:`METRICS`.
    memberships : dict (method, classifier, k) -> bool ndarray (k, d_used)
        Partition of the last split: ``memberships[...][i, j]`` is True when used feature j is in
        view i (rows of empty views are all False; a feature in no row was discarded; Bagging's
        views hold every feature).
    sample_index : int ndarray (n_used,)
        Rows of the input data used (all rows unless ``max_samples``).
    feature_index : int ndarray (d_used,)
        Columns of the input data used; column j of a membership is input column ``feature_index[j]``.
    test_folds : list of int ndarrays
        Test rows (positions in ``sample_index``) of every split, in (repetition, fold) order;
        the same for every method and classifier.
    n_features : int
        Columns of the input data.
    settings : dict
        The parameters that produced the result.
    seconds : float
        Wall-clock seconds of the whole sweep.
    """

    table: pd.DataFrame
    memberships: dict
    sample_index: np.ndarray
    feature_index: np.ndarray
    test_folds: list
    n_features: int
    settings: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def methods(self) -> list[str]:
        """The methods of the sweep, in order."""
        return list(self.settings["methods"])

    @property
    def classifiers(self) -> list[str]:
        """The base classifiers of the sweep, in order."""
        return list(self.settings["classifiers"])

    @property
    def n_cells(self) -> int:
        """The (method, classifier, k, test fold) cells the table holds: every one of the sweep, or those done so
        far in a partial result."""
        return int(len(self.table[["method", "classifier", "k", "repetition", "fold"]].drop_duplicates()))

    @property
    def ks(self) -> list[int]:
        """The numbers of views swept, ``1..max_views``."""
        return list(range(1, int(self.settings["max_views"]) + 1))

    def per_k(self, metric: str, classifier: str) -> pd.DataFrame:
        """Mean over repetitions and folds: rows k, columns methods (the values a box plot shows)."""
        part = self.table[(self.table["metric"] == metric) & (self.table["classifier"] == classifier)]
        if part.empty:
            raise ValueError(f"no results for metric {metric!r} and classifier {classifier!r}; the sweep has "
                             f"classifiers {self.classifiers} and metrics {list(METRICS)}.")
        wide = part.pivot_table(index="k", columns="method", values="value", aggfunc="mean", dropna=False)
        return wide.reindex(index=self.ks, columns=self.methods)

    def summary(self) -> pd.DataFrame:
        """Median, min and max over k of the per-k means, per classifier, method and metric (the
        paper compares box plots by median, then max / min)."""
        means = self.table.groupby(["classifier", "method", "metric", "k"], sort=False)["value"].mean()
        out = means.groupby(level=[0, 1, 2], sort=False).agg(["median", "min", "max"]).reset_index()
        return out

    def membership(self, method: str, classifier: str, k: int) -> np.ndarray:
        """Bool (k, d_used) view membership of the last split's partition."""
        try:
            return self.memberships[(method, classifier, int(k))]
        except KeyError:
            raise ValueError(f"no partition for {method}, {classifier}, k = {k} in this result.") from None

    def result_rows(self) -> list[dict]:
        """Tidy rows for the results store: method, metric, value (None for a missing value, e.g.
        disagreement at k = 1), with the classifier and k as parameters."""
        return [{"repetition": r.repetition, "fold": r.fold, "method": r.method, "metric": r.metric,
                 "value": None if np.isnan(r.value) else r.value, "params": {"classifier": r.classifier, "k": int(r.k)}}
                for r in self.table.itertuples()]

    def to_npz(self) -> bytes:
        """The table, partitions, indices and settings in one compressed ``.npz``."""
        t = self.table
        codes = {c: {v: i for i, v in enumerate(names)} for c, names in
                 (("method", self.methods), ("classifier", self.classifiers), ("metric", METRICS))}
        arrays = {f"table_{c}": t[c].map(codes[c]).to_numpy(np.int64) if c in codes else t[c].to_numpy()
                  for c in _COLUMNS}
        arrays["sample_index"], arrays["feature_index"] = self.sample_index, self.feature_index
        for i, test in enumerate(self.test_folds):
            arrays[f"test_fold[{i}]"] = test
        keys = list(self.memberships)
        for i, key in enumerate(keys):
            arrays[f"membership[{i}]"] = self.memberships[key]
        meta = {"settings": self.settings, "n_features": self.n_features, "seconds": self.seconds,
                "n_folds": len(self.test_folds), "membership_keys": [list(k) for k in keys]}
        return pack(arrays, meta)

    @classmethod
    def from_npz(cls, data: bytes) -> "KSweepResult":
        """The sweep back from the bytes of :meth:`to_npz`."""
        z, meta = unpack(data)
        s = meta["settings"]
        names = {"method": s["methods"], "classifier": s["classifiers"], "metric": list(METRICS)}
        table = pd.DataFrame({c: (np.asarray(names[c], dtype=object)[z[f"table_{c}"]] if c in names
                                  else z[f"table_{c}"]) for c in _COLUMNS})
        memberships = {(m, c, int(k)): z[f"membership[{i}]"]
                       for i, (m, c, k) in enumerate(meta["membership_keys"])}
        return cls(table=table, memberships=memberships, sample_index=z["sample_index"],
                   feature_index=z["feature_index"],
                   test_folds=[z[f"test_fold[{i}]"] for i in range(meta["n_folds"])],
                   n_features=meta["n_features"], settings=s, seconds=meta["seconds"])


def _subsample(X, y, max_samples, max_features, random_state):
    n, d = X.shape
    rows, cols = np.arange(n), np.arange(d)
    if max_samples is not None and max_samples < n:
        n_classes = len(np.unique(y))
        if max_samples < 2 * n_classes:
            raise ValueError(f"{max_samples} instances are too few for {n_classes} classes; use at least "
                             f"{2 * n_classes}.")
        rows, _ = train_test_split(rows, train_size=int(max_samples), stratify=y, random_state=random_state)
        rows = np.sort(rows)
    if max_features is not None and max_features < d:
        if max_features < 1:
            raise ValueError(f"max_features must be at least 1, got {max_features}.")
        cols = np.sort(check_random_state(random_state).choice(d, int(max_features), replace=False))
    return rows, cols


def k_sweep(X, y, *, methods: Sequence[str] = METHODS, classifiers: Sequence[str] = CLASSIFIERS,
            max_views: int = 10, n_splits: int = 5, n_repeats: int = 10, max_samples: int | None = None,
            max_features: int | None = None, random_state: int = 0, n_jobs: int | None = None,
            progress: ProgressCallback = None, store=None, kind: str | None = None, resume: bool = False,
            **options) -> KSweepResult:
    """Build views with every method for k = 1..``max_views`` on every training fold, fit a
    performance-weighted view ensemble on them and score it on the fold's test rows (B.5-B.6).

    Parameters
    ----------
    X : ndarray (n, d); y : ndarray (n,) of labels
    methods : subset of :data:`METHODS`; classifiers : subset of :data:`CLASSIFIERS`
    max_views : int
        K; the sweep covers k = 1..K (paper: 10).
    n_splits, n_repeats : int
        Repeated stratified k-fold (:class:`mvlab.experiments.runner.RepeatedKFold`; paper: 10 x 5-fold).
        The splits depend only on ``y`` and ``random_state``: the same for every method and
        classifier.
    max_samples, max_features : int or None
        Work on a stratified sample of the rows and a random sample of the columns (seeded by
        ``random_state``), to keep an interactive run short.  None: all.
    random_state : int
        Seeds the samples, the splits and, through :func:`cell_seed`, every partitioner and ensemble.
    n_jobs : int or None
        Workers for the cells of a split (default 2); the splits run one after the other through
        the experiment runner (:func:`mvlab.experiments.runner.run_protocol`).
    progress : callable (fraction, message), optional
    store, kind, resume
        A :class:`mvlab.store.ResultsStore` and the run's kind: every finished split
        is stored as it finishes; with ``resume`` the splits of an earlier run with the same
        settings are read back (their partitions are then not available).
    options : ``inner_cv`` (5), ``ga_generations`` (30), ``ga_population`` (50), ``ga_offspring`` (100),
        ``ab_trials`` (10), ``feature_order`` ("natural"); see :func:`make_partitioner`.

    Returns
    -------
    KSweepResult
    """
    X, y, methods, classifiers, opts = _check_sweep(X, y, methods, classifiers, max_views, options)
    start = time.perf_counter()
    sample_index, feature_index = _subsample(X, y, max_samples, max_features, random_state)
    data = MultiViewDataset(X[np.ix_(sample_index, feature_index)], y[sample_index], name="k sweep")
    _check_sweep(data.X, data.y, methods, classifiers, max_views, options)
    protocol = RepeatedKFold(n_repeats=int(n_repeats), n_splits=int(n_splits))
    splits = protocol.splits(data.y, random_state)
    smallest_train = min(np.bincount(np.unique(data.y[s.train], return_inverse=True)[1]).max() for s in splits)
    if opts["inner_cv"] > smallest_train:
        raise ValueError(f"{opts['inner_cv']} inner folds need at least that many training instances of one class; "
                         "use fewer inner folds or more instances.")
    params = {"methods": methods, "classifiers": classifiers, "max_views": int(max_views), **opts}
    settings = {"methods": methods, "classifiers": classifiers, "max_views": int(max_views), "n_splits": int(n_splits),
                "n_repeats": int(n_repeats), "max_samples": max_samples, "max_features": max_features,
                "random_state": random_state, **opts}

    def sweep_result(result) -> KSweepResult:
        """The sweep of the splits ``result`` holds (every split, or those done so far: a partial result, whose
        partitions come with the last split)."""
        done = {(r, f) for r, f in zip(result.table["repetition"], result.table["fold"])}
        folds = [s for s in splits if (s.repetition, s.fold) in done]
        return _sweep_result(result, methods, classifiers, settings, sample_index, feature_index, folds, X.shape[1],
                             time.perf_counter() - start)

    result = run_protocol(data, VIEW_CONSTRUCTION, params, protocol, random_state=random_state, n_jobs=1,
                          inner_jobs=2 if n_jobs is None else n_jobs, details="last", progress=progress,
                          store=store, kind=kind, resume=resume, partial=sweep_result)
    return sweep_result(result)


def _sweep_result(result, methods, classifiers, settings, sample_index, feature_index, splits, n_features,
                  seconds) -> KSweepResult:
    """:class:`KSweepResult` of the runner's ``result`` (its rows in the sweep's order, the partitions it kept)."""
    table = with_param_columns(result.table, ("classifier", "k"))
    table = table.assign(k=table["k"].astype(int))[_COLUMNS]
    order = {"method": {v: i for i, v in enumerate(methods)}, "classifier": {v: i for i, v in enumerate(classifiers)},
             "metric": {v: i for i, v in enumerate(METRICS)}}
    table = table.sort_values(["classifier", "method", "k", "repetition", "fold", "metric"], kind="stable",
                              key=lambda col: col.map(order[col.name]) if col.name in order else col)
    memberships = next(iter(result.details.values()), None) or {}
    memberships = {key: memberships[key] for key in sorted(
        memberships, key=lambda t: (order["method"][t[0]], order["classifier"][t[1]], t[2]))}
    return KSweepResult(table=table.reset_index(drop=True), memberships=memberships, sample_index=sample_index,
                        feature_index=feature_index, test_folds=[s.test for s in splits], n_features=n_features,
                        settings=settings, seconds=seconds)


# --------------------------------------------------------------------------- statistics

@dataclass(frozen=True)
class SweepTest:
    """Friedman aligned-ranks test and Holm post-hoc against the control for one classifier and
    metric, blocks = values of k (B.7).  ``ks`` are the blocks used (k with a missing value, such
    as k = 1 for disagreement, are left out)."""

    metric: str
    classifier: str
    control: str
    higher_is_better: bool
    ks: tuple
    friedman: FriedmanAlignedResult
    posthoc: PosthocResult

    def table(self) -> pd.DataFrame:
        """One row per method (control first): average aligned rank (1 = best), z and p against the
        control, Holm-adjusted p and whether Holm rejects equality at ``alpha``."""
        ph = self.posthoc
        rows = [{"method": self.control, "average aligned rank": ph.control_average_rank, "z": np.nan,
                 "p": np.nan, "p (Holm)": np.nan, "differs from control (Holm)": "control"}]
        for j, m in enumerate(ph.methods):
            rows.append({"method": m, "average aligned rank": ph.average_ranks[j], "z": ph.z[j],
                         "p": ph.p_unadjusted[j], "p (Holm)": ph.p_holm[j],
                         "differs from control (Holm)": "yes" if ph.reject_holm[j] else "no"})
        return pd.DataFrame(rows)


def sweep_test(result: KSweepResult | pd.DataFrame, classifier: str, metric: str = "accuracy", *,
               control: str = "OFSP", alpha: float = 0.05, higher_is_better: bool | None = None) -> SweepTest:
    """Friedman aligned ranks (B.7 steps 1-4) and Holm post-hoc with ``control`` (steps 5-6) on
    the per-k means of ``metric`` for ``classifier``: blocks are the values of k, treatments the
    methods.  ``result`` is a :class:`KSweepResult` or its tidy table.  ``higher_is_better``
    defaults to :data:`HIGHER_IS_BETTER`."""
    table = result.table if isinstance(result, KSweepResult) else result
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose from {list(METRICS)}.")
    part = table[(table["metric"] == metric) & (table["classifier"] == classifier)]
    if part.empty:
        raise ValueError(f"no results for classifier {classifier!r}.")
    wide = part.pivot_table(index="k", columns="method", values="value", aggfunc="mean", dropna=False)
    methods = [m for m in METHODS if m in wide.columns] + [m for m in wide.columns if m not in METHODS]
    if control not in methods:
        raise ValueError(f"the test compares every method with {control}; include {control} in the methods.")
    if len(methods) < 2:
        raise ValueError("the test needs at least two methods.")
    wide = wide[[control] + [m for m in methods if m != control]].dropna()
    if len(wide) < 2:
        raise ValueError(f"the test needs at least two values of k with a {METRIC_TITLES[metric]} for every method; "
                         f"there are {len(wide)}. Use a larger K.")
    hib = HIGHER_IS_BETTER[metric] if higher_is_better is None else bool(higher_is_better)
    wide.columns = [str(c) for c in wide.columns]
    return SweepTest(metric=metric, classifier=classifier, control=control, higher_is_better=hib,
                     ks=tuple(int(k) for k in wide.index),
                     friedman=friedman_aligned_ranks_test(wide, higher_is_better=hib),
                     posthoc=posthoc_vs_control(wide, control, test="aligned", alpha=alpha, higher_is_better=hib))


# --------------------------------------------------------------------------- partitions vs natural views

def feature_groups(views: Mapping[str, Sequence[int]], feature_index: Sequence[int]) -> np.ndarray:
    """Natural view name of each used feature: ``views`` maps names to input columns (a dataset's
    ``views``), ``feature_index`` the input columns used.  Columns in no view get ``"(none)"``."""
    feature_index = np.asarray(feature_index, dtype=np.intp)
    size = max([int(feature_index.max()) + 1 if feature_index.size else 0]
               + [int(np.max(v)) + 1 for v in views.values() if len(v)])
    owner = np.full(size, "(none)", dtype=object)
    for name, idx in views.items():
        owner[np.asarray(idx, dtype=np.intp)] = str(name)
    return owner[feature_index].astype(str)


def partition_crosstab(membership: np.ndarray, groups: Sequence[str], group_order: Sequence[str] | None = None
                       ) -> pd.DataFrame:
    """Counts of features: rows natural groups, columns ``view 1..k`` and ``discarded``.

    ``membership`` is the bool (k, d) matrix of :meth:`KSweepResult.membership`; a feature in
    several (overlapping) views counts in each of them; ``discarded`` counts the features in none.
    """
    M = np.asarray(membership, dtype=bool)
    groups = np.asarray(groups).astype(str)
    if M.ndim != 2 or M.shape[1] != len(groups):
        raise ValueError(f"membership must be (k, {len(groups)}), got shape {M.shape}.")
    order = list(group_order) if group_order is not None else list(dict.fromkeys(groups.tolist()))
    data = {f"view {i + 1}": [int(M[i, groups == g].sum()) for g in order] for i in range(M.shape[0])}
    data["discarded"] = [int((~M[:, groups == g].any(axis=0)).sum()) for g in order]
    return pd.DataFrame(data, index=pd.Index(order, name="natural view"))


# --------------------------------------------------------------------------- the family

def check_params(params: dict) -> dict:
    """The view-construction family's parameters (methods, classifiers, ``max_views`` and the
    options of :func:`make_partitioner`) with defaults filled in."""
    keys = {"methods", "classifiers", "max_views"} | set(_OPTION_DEFAULTS)
    unknown = set(params) - keys
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} of the view-construction family; known: "
                         f"{sorted(keys)}.")
    methods = VIEW_CONSTRUCTION.check_methods(params.get("methods", METHODS))
    classifiers = list(params.get("classifiers", ("knn", "nb")))
    bad = [c for c in classifiers if c not in CLASSIFIERS]
    if bad or not classifiers:
        raise ValueError(f"unknown classifier(s) {bad}; choose from {list(CLASSIFIERS)}." if bad else
                         "choose at least one classifier.")
    opts = {k: params[k] for k in _OPTION_DEFAULTS if k in params}
    out = {"methods": methods, "classifiers": classifiers, "max_views": int(params.get("max_views", 10)),
           **_OPTION_DEFAULTS, **opts}
    if out["ga_runs"] == _OPTION_DEFAULTS["ga_runs"]:
        del out["ga_runs"]  # the first reading: runs stored before the option keep their keys
    return out


def _evaluate(ds, split, params, n_jobs, keep, progress=None):
    return evaluate_split(ds.X, ds.y, split.train, split.test, random_state=split.seed, n_jobs=n_jobs,
                          keep_partitions=keep, progress=progress, **params)


VIEW_CONSTRUCTION = Family(
    name="view-construction",
    title=N_("View construction: OFSP and five baselines (Kumar & Minz 2016)"),
    methods=METHODS,
    method_titles=METHOD_TITLES,
    baseline="RFSP",
    control="OFSP",
    evaluate=_evaluate,
    check_params=check_params,
    group_by=("classifier",),
    presets={
        "quick": Preset({"classifiers": ["knn", "nb"], "max_views": 10, "inner_cv": 3, "ga_generations": 3},
                        RepeatedKFold(1, 3)),
        "paper": Preset({"classifiers": ["knn", "nb", "svm"], "max_views": 10, "inner_cv": 5, "ga_generations": 30,
                         "ga_runs": "shared"}, RepeatedKFold(10, 5)),
    },
)
"""OFSP, RFSP, Bagging, AB, VG-AC and VC-GA, each for k = 1..K views with every base classifier, on
the same folds (B.5-B.6).  Results are per (method, classifier, k); reports compare methods per
classifier (mean over k and folds), the sign test against RFSP (random partitions), the
post-hoc against OFSP."""
