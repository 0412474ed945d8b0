"""One settings object per page: what the user chose, in one frozen dataclass.

Each page of the dashboard asks one question and trains one experiment.  Its settings object is
the single source of what was chosen: it

* builds the library call (:meth:`ExperimentSettings.run`), with the paper's sizes when the
  ``paper`` switch is on (the presets of :mod:`mvlab.experiments.families`, not a copy);
* gives the key a result is stored and found under (:meth:`ExperimentSettings.key`);
* gives the manifest of a download (:meth:`ExperimentSettings.manifest`: settings, seed, data
  fingerprint, package versions);
* declares, per field, the options or bounds and the help that the page's widgets and its link
  (:mod:`mvlab.ui.query`, the UI layer's) read, taken from the estimator where the field is an
  estimator's parameter (:func:`_declared`);
* says, before training, why the data cannot work (:meth:`ExperimentSettings.problems`).

Field metadata ``options`` (allowed strings) and ``range`` (inclusive bounds) drive the checks
of a link's values (:func:`mvlab.ui.query.settings_from_query`); the page's widgets use the same bounds.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mvlab.construction.partition import GeneticViews
from mvlab.core.declared import declared_bounds, declared_doc, declared_options
from mvlab.core.params import StrOptions
from mvlab.core.progress import ProgressCallback, report_partial, scaled
from mvlab.core.threads import split_workers
from mvlab.datasets.bundled import dataset_info, list_datasets, load_dataset
from mvlab.datasets.container import MultiViewDataset
from mvlab.datasets.synthetic import make_madelon, make_multiview_classification
from mvlab.experiments.combinations import DISSIMILARITY, DVS_METHODS, DVS_VARIANTS, compare_combinations
from mvlab.experiments.families import FAMILIES, make_protocol, run_experiment
from mvlab.experiments.pair_methods import PAIRS
from mvlab.experiments.proximity_walk import proximity_walk
from mvlab.experiments.siamese_comparison import run_siamese_experiment
from mvlab.experiments.view_construction_sweep import (
    CLASSIFIER_TITLES,
    CLASSIFIERS,
    GA_RUNS,
    METHODS,
    VIEW_CONSTRUCTION,
    k_sweep,
)
from mvlab.forest.dissimilarity import ForestDissimilarity
from mvlab.forest.measures import MEASURES, RFD, PathLength, measure_spec, resolve_measure
from mvlab.i18n import N_, Message, format_list, format_number, gettext, ngettext
from mvlab.rfd.baselines import BASELINES
from mvlab.rfd.classifier import COMBINATIONS, RFDClassifier, StaticCombiner
from mvlab.rfd.cost import estimate_cost
from mvlab.rfd.dvs import DVSCombiner
from mvlab.rfd.dvs_pool import check_pool_size
from mvlab.rfd.weights import STATIC_COMBINATIONS
from mvlab.siamese.forest import SiameseDeepForest
from mvlab.siamese.pairs import max_train_pairs
from mvlab.store import package_versions

__all__ = [
    "APP_N_JOBS", "ExperimentSettings", "DissimilaritySettings", "DVSSettings", "ViewConstructionSettings",
    "SiameseSettings", "ProximitySettings", "BenchmarkSettings", "make_region_demo", "region_demo_name", "page_data",
]

APP_N_JOBS = None
"""Threads of the dashboard's computations: ``None``, i.e. what the job engine gives the run
(:func:`joblib.parallel_config` around it in the worker: the cores of its worker), as
scikit-learn reads ``n_jobs=None``; outside the engine, one."""


def _opt(default, options=None, range=None, help=""):
    return field(default=default, metadata={"options": options, "range": range, "help": help,
                                            "help_parts": ((help, {}),) if help else ()})


_RANGE_NOTES = {
    "up": N_("This page allows {low} to {high}, to keep a run short (the estimator takes {least} or more)."),
    "between": N_("This page allows {low} to {high}, to keep a run short (the estimator takes {least} to {most})."),
}
"""What a page's narrower range says, for an estimator bounded above or not."""


def _declared(default, estimator_cls, name: str, *, range=None, help=""):
    """A field for the parameter ``name`` of ``estimator_cls``: its choices, bounds and help come from the
    estimator (:mod:`mvlab.core.declared`), not from a second declaration.  ``range`` narrows the estimator's
    bounds for the page (the help then says so); it must lie inside them.  ``help`` adds the page's own note."""
    doc = declared_doc(estimator_cls, name)
    parts = [(doc, {}), (help, {})] if help else [(doc, {})]
    options = None
    if any(isinstance(c, StrOptions) for c in estimator_cls._parameter_constraints[name]):
        options = declared_options(estimator_cls, name)
    else:
        low, high = declared_bounds(estimator_cls, name)
        if range is None:
            range = (low, high)
        if not low <= range[0] <= range[1] <= high:
            raise ValueError(f"the page's range {range} for {estimator_cls.__name__}.{name} leaves its declared "
                             f"bounds {low}..{high}.")
        if tuple(range) != (low, high):
            parts.append((_RANGE_NOTES["up" if math.isinf(high) else "between"],
                          {"low": range[0], "high": range[1], "least": low, "most": high}))
    help_text = " ".join(message.format(**{k: f"{v:g}" for k, v in values.items()}) if values else message
                         for message, values in parts)
    return field(default=default, metadata={"options": options, "range": range, "help": help_text,
                                            "help_parts": tuple(parts), "estimator": (estimator_cls, name)})


def help_messages() -> list[str]:
    """The help texts of every page's settings that are not literals in this module: the estimators' own
    parameter docs (:func:`mvlab.core.declared.declared_doc`) that :func:`_declared` fields show, for the
    catalogues (:func:`mvlab.i18n.extract.extract` adds them to the template)."""
    classes, stack = [], [ExperimentSettings]
    while stack:
        classes.append(stack.pop())
        stack.extend(classes[-1].__subclasses__())
    return sorted({message for cls in classes for f in dataclasses.fields(cls) if "estimator" in f.metadata
                   for message, _values in f.metadata["help_parts"][:1]})


@functools.cache  # not a Memo: a pure function of a class (a few settings classes), nothing to drop
def _field_types(settings_cls) -> dict[str, Any]:
    return typing.get_type_hints(settings_cls)


@dataclass(frozen=True)
class ExperimentSettings:
    """Base of the page settings (see the module docstring).  ``seed`` is the sidebar's seed."""

    kind: ClassVar[str] = ""
    seed: int = 0

    # ------------------------------------------------------------------ to override
    def effective(self) -> "ExperimentSettings":
        """The settings actually used (the ``paper`` switch applies the paper's sizes)."""
        return self

    def run(self, ds: MultiViewDataset, progress: ProgressCallback = None):
        """Train on ``ds``; returns the page's result object."""
        raise NotImplementedError

    def problems(self, ds: MultiViewDataset) -> list[str]:
        """Why these settings cannot work on ``ds`` (empty if they can), in words naming the page's
        controls, before training."""
        return []

    def notes(self, ds: MultiViewDataset) -> list[str]:
        """What will make the results weak on the data used (training still runs), in words."""
        data = self.data(ds) if hasattr(self, "data") else ds
        return data.weaknesses()

    display_only: ClassVar[tuple[str, ...]] = ()
    """Fields that choose what to show, not what to compute: in the URL, not in the key."""

    # ------------------------------------------------------------------ shared
    def key(self) -> dict:
        """JSON-able settings actually used (store key and download manifest)."""
        out = json.loads(json.dumps(dataclasses.asdict(self.effective()), default=list))
        for name in self.display_only:
            out.pop(name, None)
        return out

    def manifest(self, ds: MultiViewDataset) -> dict:
        """What a download carries: kind, settings, seed, data name and fingerprint, versions."""
        return {"kind": self.kind, "settings": self.key(), "seed": self.seed, "dataset": ds.name,
                "fingerprint": ds.fingerprint(), "versions": package_versions()}

    @classmethod
    def field_types(cls) -> dict[str, Any]:
        """The fields' types, the string annotations evaluated once per class (``typing.get_type_hints``
        evaluates them anew at every call: 1.5 ms, several times per page run of every session)."""
        return _field_types(cls)


# ============================================================================ dissimilarity
@dataclass(frozen=True)
class _MeasureChoice(ExperimentSettings):
    """Settings that grow view forests: the measure and its parameters."""

    measure: str = _opt("breiman", options=tuple(MEASURES),
                        help=N_("The dissimilarity measure of the view forests (docs/algorithms.md §A.3-A.5)."))
    w: float = _declared(1.0, PathLength, "w", range=(0.05, 5.0))
    kdn_k: int = _declared(7, RFD, "kdn_k", range=(1, 50))
    paper: bool = _opt(False, help=N_("The paper's measure and trees (its settings; slower)."))
    n_estimators: int = _declared(100, RFDClassifier, "n_estimators", range=(3, 1000))

    @classmethod
    def paper_note(cls) -> str:
        """What the paper switch sets, in words (the widget's help), from the paper's preset."""
        paper = cls(paper=True).effective()
        return gettext("The chapter's settings: the {measure} measure and {trees} trees per forest.").format(
            measure=gettext(resolve_measure(paper.measure).title), trees=paper.n_estimators)

    def measure_object(self):
        """The measure with the parameters of this page that it takes (e.g. ``RFD(kdn_k=7)``)."""
        m = resolve_measure(self.measure)
        return m.set_params(**{k: getattr(self, k) for k in m.get_params() if hasattr(self, k)})

    def _paper(self, **extra) -> dict:
        preset = DISSIMILARITY.presets["paper"].params
        return {"n_estimators": preset["n_estimators"], "measure": preset["measure"], "paper": False, **extra}

    def key(self) -> dict:
        out = super().key()
        eff = self.effective()
        out["measure"] = measure_spec(eff.measure_object())  # carries w or kdn_k when the measure uses them
        out.pop("w"), out.pop("kdn_k")
        return out

    cost_combination: ClassVar[str] = "average"
    """The combination whose cost stands for the page's run in :meth:`cost`."""

    def cost(self, ds: MultiViewDataset, n_samples: int | None = None, n_jobs: int = 1):
        """The estimated memory and time of the page's run on ``ds`` (or on a sample of ``n_samples`` of its
        rows) with ``n_jobs`` threads (the engine's threads per run): :func:`mvlab.rfd.cost.estimate_cost` for
        its split, views, trees and combination, on the path the comparison takes (the exact space up to
        10,000 training rows, prototypes above)."""
        s, data = self.effective(), self.data(ds) if hasattr(self, "data") else ds
        n = data.n_samples if n_samples is None else n_samples
        n_test = int(round(s.test_size * n))
        estimate = estimate_cost(n - n_test, n_test, data.n_views, data.n_features, s.n_estimators,
                                 self.cost_combination, measure=s.measure_object(), prototypes="auto",
                                 n_classes=data.n_classes, k=s.k, n_jobs=n_jobs)
        if self.comparison_margin:
            extra = self.comparison_margin * (estimate.peak_bytes - estimate.memory["interpreter and libraries"])
            estimate.memory["the comparison's other methods"] = extra
            estimate.peak_bytes += extra
        return estimate

    comparison_margin: ClassVar[float] = 0.0
    """Memory the page's comparison needs beyond :attr:`cost_combination` alone, as a share of that estimate
    (without the interpreter)."""

    def cost_problems(self, ds: MultiViewDataset, limit_bytes: float, n_jobs: int = 1) -> list[str]:
        """What in the estimated cost stops the run on a worker with ``limit_bytes`` of memory and ``n_jobs``
        threads, with the largest sample that fits, in words naming the page's controls."""
        data = self.data(ds) if hasattr(self, "data") else ds

        def fits(n: int) -> bool:
            estimate = self.cost(ds, n, n_jobs)
            return estimate.refusal is None and estimate.peak_bytes <= limit_bytes

        if fits(data.n_samples):
            return []
        # from the top down, not by bisection: the cost is not monotone in n (above 10,000 training rows the
        # prototype path needs less memory than the exact one just below)
        step = max(1, data.n_samples // 100)
        largest = next((n for n in range(data.n_samples, 40, -step) if fits(n)), None)
        estimate = self.cost(ds, n_jobs=n_jobs)
        values = {"instances": largest, "need": format_number(estimate.peak_bytes / 1e9, 1),
                  "limit": format_number(limit_bytes / 1e9, 1)}
        if estimate.refusal:
            values["reason"] = estimate.refusal.rstrip(".")
            message = (gettext("This run cannot start: {reason}. Use a sample of at most {instances} instances (the "
                               "sidebar's instance count), fewer trees, or a larger test share.") if largest else
                       gettext("This run cannot start: {reason}. Use fewer trees, or a larger test share."))
        elif largest:
            message = gettext("This run cannot start: these settings need about {need} GB of memory, more than a "
                              "worker of this server has ({limit} GB). Use a sample of at most {instances} instances "
                              "(the sidebar's instance count), fewer trees, or a larger test share.")
        else:
            message = gettext("This run cannot start: these settings need about {need} GB of memory, more than a "
                              "worker of this server has ({limit} GB). Use fewer trees, or a larger test share.")
        return [message.format(**values)]


@dataclass(frozen=True)
class DissimilaritySettings(_MeasureChoice):
    """The Dissimilarity page: one split, every static combination on the same view forests."""

    kind: ClassVar[str] = "dissimilarity"
    test_size: float = _opt(0.5, range=(0.1, 0.9), help=N_("Paper: 50/50 split."))
    k: int = _declared(7, StaticCombiner, "k", range=(1, 50))

    def effective(self):
        """These settings with the paper's measure and trees when the ``paper`` switch is on."""
        return dataclasses.replace(self, **self._paper()) if self.paper else self

    def run(self, ds, progress=None):
        """Every static combination and the baselines on one split of ``ds``
        (:func:`mvlab.experiments.combinations.compare_combinations`), the methods scored so far offered as partial
        results (the page draws the first combination while the baselines grow)."""
        s = self.effective()
        return compare_combinations(ds.X, ds.y, ds.views, classes=ds.classes,
                                    combinations=tuple(STATIC_COMBINATIONS) + BASELINES,
                                    test_size=s.test_size, measure=s.measure_object(), n_estimators=s.n_estimators,
                                    k=s.k, random_state=s.seed, n_jobs=APP_N_JOBS, progress=progress,
                                    partial_results=True)


@dataclass(frozen=True)
class DVSSettings(_MeasureChoice):
    """The Dynamic view selection page: the paper's DVS and its variants next to the static
    combinations and the baselines, on one split and the same forests.

    ``source="demo"`` (the default) trains on region-structured synthetic data
    (:func:`make_region_demo`), where the view to trust depends on where an instance lies: the
    case dynamic selection is for, so choices differ between instances.  ``"sidebar"`` uses the
    sidebar's dataset.  ``show`` picks the DVS method whose choices the page explains.
    """

    kind: ClassVar[str] = "dvs"
    cost_combination: ClassVar[str] = "dvs"
    comparison_margin: ClassVar[float] = 0.15
    """The DVS page also keeps three DVS explanations and the pool while the baselines grow: at 100,000
    training rows it peaked at 4.82 GB against 4.3 GB estimated for the DVS classifier alone
    (docs/bench/bench_pages_scale.txt)."""
    display_only: ClassVar[tuple[str, ...]] = ("show",)
    source: str = _opt("demo", options=("demo", "sidebar"),
                       help=N_("The data: the region demo (demo) or the dataset chosen (sidebar)."))
    n_estimators: int = _declared(60, RFDClassifier, "n_estimators", range=(3, 1000))
    k: int = _declared(7, DVSCombiner, "k", range=(1, 50))
    test_size: float = _opt(0.5, range=(0.1, 0.9), help=N_("Paper: 50/50 split."))
    show: str = _opt("dvs", options=DVS_METHODS, help=N_("Which DVS method the page explains (display only)."))

    def effective(self):
        """These settings with the paper's measure and trees when the ``paper`` switch is on."""
        return dataclasses.replace(self, **self._paper()) if self.paper else self

    def data(self, ds: MultiViewDataset) -> MultiViewDataset:
        """The data of the page: the region-structured demo (seeded by the sidebar's seed) or ``ds``; the demo
        itself when ``ds`` already is it (:func:`page_data`: built once per request, then handed on)."""
        if self.source != "demo":
            return ds
        return page_data(ds, region_demo_name(self.seed), lambda: make_region_demo(self.seed))

    def problems(self, ds):
        """Why DVS cannot run on the page's data: a single view, or a pool of candidates too large."""
        data = self.data(ds)
        if data.n_views < 2:
            return [gettext("Dynamic view selection chooses, for every instance, a subset of the views: {data} has a "
                            "single view, so there is nothing to choose (it would be one forest). Pick a dataset with "
                            "two views or more (e.g. {example} or {other}), or the region-structured demo.").format(
                data=data.name, example="mfeat", other="htad")]
        try:
            check_pool_size(data.n_views)
        except ValueError as exc:
            return [str(exc)]
        return []

    def run(self, ds, progress=None):
        """The DVS methods, the static combinations and the baselines on one split of the page's data
        (:func:`mvlab.experiments.combinations.compare_combinations`), the methods scored so far offered as partial
        results (the page draws the accuracies of the first ones while DVS's pool and the baselines grow)."""
        s, data = self.effective(), self.data(ds)
        return compare_combinations(data.X, data.y, data.views, classes=data.classes, informative=data.informative,
                                    combinations=tuple(COMBINATIONS) + tuple(DVS_VARIANTS) + BASELINES,
                                    test_size=s.test_size, measure=s.measure_object(), n_estimators=s.n_estimators,
                                    k=s.k, random_state=s.seed, n_jobs=APP_N_JOBS, progress=progress,
                                    partial_results=True)


def region_demo_name(seed: int) -> str:
    """The name of the region demo of ``seed`` (:func:`make_region_demo`): the sidebar's synthetic data never bear
    it, so :func:`page_data` knows the demo by it."""
    return f"region demo (seed {seed})"


def make_region_demo(seed: int = 0) -> MultiViewDataset:
    """The Dynamic view selection page's default data: 600 instances, 4 views of 10 features,
    3 classes, view q carrying the class in latent region q (visible in every view), named
    :func:`region_demo_name` (its rows, and so its fingerprint, are those of the generator's)."""
    ds = make_multiview_classification(600, n_views=4, n_features=10, n_classes=3, relevance="region",
                                       random_state=seed)
    return ds.subset(np.arange(ds.n_samples), name=region_demo_name(seed))


def page_data(ds, name: str, build) -> MultiViewDataset:
    """The data a page generates for itself (the region demo, the Madelon-like set), built once per request: ``ds``
    when it already is that data (synthetic and named ``name``; the page built it and hands it on to its checks,
    cost estimates and the worker's run), else ``build()``. An upload or the sidebar's synthetic data never bear a
    generated set's name, so neither is taken for it."""
    if isinstance(ds, MultiViewDataset) and ds.origin == "synthetic" and ds.name == name:
        return ds
    return build()


# ============================================================================ view construction
@dataclass(frozen=True)
class ViewConstructionSettings(ExperimentSettings):
    """The View construction page: the k sweep of the six methods on the same folds."""

    kind: ClassVar[str] = "view_construction"
    source: str = _opt("sidebar", options=("sidebar", "madelon"),
                       help=N_("The data: the dataset chosen (sidebar) or the Madelon-like set (madelon)."))
    madelon_n: int = _opt(200, range=(20, 5000), help=N_("make_classification: 2 classes, 5 informative, 15 redundant "
                          "and 480 noise features; seeded by the sidebar's seed."))
    methods: tuple[str, ...] = _opt(tuple(METHODS), options=tuple(METHODS),
                                    help=N_("The view-construction methods compared."))
    classifiers: tuple[str, ...] = _opt(("knn", "nb"), options=tuple(CLASSIFIERS),
                                        help=N_("The ensembles' base classifiers (knn: 1-NN, nb: naive Bayes, svm: "
                                             "linear SVM)."))
    paper: bool = _opt(False, help=N_("The paper's sizes (all the data, its folds and GA; hours)."))
    max_views: int = _opt(10, range=(1, 30), help=N_("K: views k = 1..K."))
    n_splits: int = _opt(3, range=(2, 10), help=N_("Folds of the outer cross-validation."))
    n_repeats: int = _opt(1, range=(1, 10), help=N_("Repetitions of the outer cross-validation."))
    inner_cv: int = _opt(3, range=(2, 10),
                         help=N_("Inner cross-validation of OFSP, AB, VC-GA and the ensemble weights."))
    ga_generations: int = _declared(3, GeneticViews, "n_generations", range=(0, 100))
    ga_runs: str = _opt("shared", options=GA_RUNS, help=N_("VC-GA's views for k = 1..K: one GA whose top k chromosomes "
                        "serve every k (shared, the default: the paper's 'the top chromosomes are used for k = "
                        "1..10', and ten times cheaper), or a GA of its own for every k (per_k, mvlab's first "
                        "reading)."))
    n_used: int = _opt(150, range=(4, 100000),
                       help=N_("A stratified sample of the data (all if larger than the data)."))
    d_used: int = _opt(100, range=(1, 100000),
                       help=N_("A random sample of the features (all if larger than the data)."))

    def effective(self):
        """These settings with the paper preset's sizes (all the data, its folds, views and GA generations) when
        the ``paper`` switch is on."""
        if not self.paper:
            return self
        preset = VIEW_CONSTRUCTION.presets["paper"]
        return dataclasses.replace(self, paper=False, max_views=preset.params["max_views"],
                                   inner_cv=preset.params["inner_cv"], ga_generations=preset.params["ga_generations"],
                                   ga_runs=preset.params["ga_runs"], n_splits=preset.protocol.n_splits,
                                   n_repeats=preset.protocol.n_repeats, n_used=100000, d_used=100000)

    def key(self) -> dict:
        """As :meth:`ExperimentSettings.key`; ``ga_runs`` stays out of it where it changes nothing (no VC-GA among the
        methods: a lesson's OFSP-against-RFSP sweep is the same run under either reading) and for the first GA reading
        (``per_k``), so that runs stored before ``ga_runs`` existed keep their keys."""
        out = super().key()
        if out.get("ga_runs") == "per_k" or "VC-GA" not in out.get("methods", ()):
            out.pop("ga_runs", None)
        return out

    @classmethod
    def paper_note(cls) -> str:
        """What the paper switch sets, in words, from the view-construction family's paper preset."""
        p = cls(paper=True).effective()
        return gettext("All instances and features, K = {views}, {repeats} × {folds}-fold CV, {inner} inner folds, "
                       "GA {generations} generations, one GA per fold whose top k chromosomes serve every k.").format(
            views=p.max_views, repeats=p.n_repeats, folds=p.n_splits, inner=p.inner_cv, generations=p.ga_generations)

    @classmethod
    def defaults_note(cls) -> str:
        """The quick defaults against the paper's sizes, in words."""
        d, p = cls(), cls(paper=True).effective()
        return gettext("Defaults: a stratified sample of {instances} instances, {features} random features (the "
                       "Madelon-like set keeps all 500), K = {views}, {repeats} × {folds}-fold CV, {inner} inner "
                       "folds, {classifiers}, a GA of {generations} generations. The **Paper settings** switch "
                       "restores {paper_repeats} × {paper_folds}-fold CV, {paper_inner} inner folds, "
                       "{paper_generations} GA generations and all the data.").format(
            instances=d.n_used, features=d.d_used, views=d.max_views, repeats=d.n_repeats, folds=d.n_splits,
            inner=d.inner_cv, classifiers=format_list(gettext(CLASSIFIER_TITLES[c]) for c in d.classifiers),
            generations=d.ga_generations, paper_repeats=p.n_repeats, paper_folds=p.n_splits, paper_inner=p.inner_cv,
            paper_generations=p.ga_generations)

    def problems(self, ds):
        """Why the sweep cannot run: no method or classifier chosen, a class smaller than the folds, or more
        views than features."""
        s, data = self.effective(), self.data(ds)
        counts = np.bincount(data.y)
        used = min(s.n_used, data.n_samples)
        smallest = int(counts.min()) if used >= data.n_samples else int(np.floor(counts.min() * used / data.n_samples))
        out = []
        if not s.methods or not s.classifiers:
            out.append(gettext("Choose at least one method and one base classifier."))
        if smallest < s.n_splits:
            values = {"folds": s.n_splits, "used": used, "data": data.name, "smallest": smallest,
                      "folds_box": gettext("Folds"), "instances_box": gettext("Instances used")}
            out.append((gettext("{folds}-fold cross-validation needs at least {folds} instances of every class; with "
                                "{used} instances of {data} the smallest class has about {smallest}. Lower "
                                "'{folds_box}', raise '{instances_box}' or use other data.") if used < data.n_samples
                        else gettext("{folds}-fold cross-validation needs at least {folds} instances of every class; "
                                     "with {used} instances of {data} the smallest class has about {smallest}. Lower "
                                     "'{folds_box}' or use other data.")).format(**values))
        if s.max_views > min(s.d_used, data.n_features):
            out.append(gettext("K = {views} views need at least that many features; lower '{views_box}' or raise "
                               "'{features_box}'.").format(views=s.max_views, views_box=gettext("K (largest k)"),
                                                           features_box=gettext("Features used")))
        return out

    def data(self, ds: MultiViewDataset) -> MultiViewDataset:
        """The data the sweep runs on: the sidebar's dataset or the Madelon-like set; the set itself when ``ds``
        already is it (:func:`page_data`: built once per request, then handed on)."""
        if self.source != "madelon":
            return ds
        return page_data(ds, f"madelon-like ({self.madelon_n}, seed {self.seed})",
                         lambda: make_madelon(self.madelon_n, random_state=self.seed))

    def run(self, ds, progress=None):
        """The k sweep (:func:`mvlab.experiments.view_construction_sweep.k_sweep`) on the page's data, on one thread."""
        s, data = self.effective(), self.data(ds)
        return k_sweep(data.X, data.y, methods=list(s.methods), classifiers=list(s.classifiers),
                       max_views=s.max_views, n_splits=s.n_splits, n_repeats=s.n_repeats,
                       max_samples=s.n_used if s.n_used < data.n_samples else None,
                       max_features=s.d_used if s.d_used < data.n_features else None,
                       inner_cv=s.inner_cv, ga_generations=s.ga_generations, ga_runs=s.ga_runs, random_state=s.seed,
                       n_jobs=1, progress=progress)  # pure-Python cells: more threads only fight over the GIL


# ============================================================================ siamese deep forest
@dataclass(frozen=True)
class SiameseSettings(ExperimentSettings):
    """The Siamese deep forest page: SDF and gcForest on the same pairs and trees."""

    kind: ClassVar[str] = "siamese"
    lam_choices: ClassVar[tuple[float, ...]] = (0.001, 0.01, 0.1, 1.0, 10.0, 100.0)
    """The values of λ the page's slider offers (a link may carry any value in the field's range)."""
    paper: bool = _opt(False, help=N_("The paper's pairs, trees and levels (its Table 7; slower)."))
    n_pairs: int = _opt(300, range=(30, 5000),
                        help=N_("Test pairs: 2N/3, from instances never used in training pairs."))
    n_estimators: int = _declared(50, SiameseDeepForest, "n_estimators", range=(5, 1000))
    qp_probas: str = _declared("oof", SiameseDeepForest, "qp_probas")
    max_levels: int = _declared(4, SiameseDeepForest, "max_levels", range=(1, 20))
    lam: float = _declared(1.0, SiameseDeepForest, "lam", range=(0.0, 1000.0),
                           help=N_("Large λ pulls the tree weights towards uniform 1/T (gcForest)."))
    z_schedule: str = _declared("double", SiameseDeepForest, "z_schedule")
    scanning: bool = _opt(True, help=N_("Images only: two lock-step windows slide over the two images of a pair."))
    windows: tuple[int, ...] = _opt((), help=N_("Images only: the scanning windows' sizes (empty: the defaults)."))

    @classmethod
    def paper_note(cls) -> str:
        """What the paper switch sets, in words, from the pairs family's paper preset."""
        paper = cls(paper=True).effective()
        probas = gettext("in-sample") if paper.qp_probas == "insample" else gettext("out-of-fold")
        return gettext("N = {pairs} pairs, T = {trees} trees per forest (the paper's Table 7), {probas} QP "
                       "probabilities (the literal Algorithm 1), up to {levels} levels.").format(
            pairs=paper.n_pairs, trees=paper.n_estimators, probas=probas, levels=paper.max_levels)

    def effective(self):
        """These settings with the pairs family's paper preset (pairs, trees, levels, in-sample QP
        probabilities) when the ``paper`` switch is on."""
        if not self.paper:
            return self
        preset = PAIRS.presets["paper"]
        return dataclasses.replace(self, paper=False, n_pairs=preset.protocol.n_train_pairs,
                                   n_estimators=preset.params["n_estimators"], qp_probas="insample",
                                   max_levels=preset.params["sdf_params"]["max_levels"])

    def problems(self, ds):
        """Why the pairs cannot be drawn: ``ds`` too small for pairs from disjoint pools, or fewer training
        pairs possible than asked."""
        if self.scanning and self.windows and ds.image_shape is not None:
            side = min(ds.image_shape)
            wrong = sorted(w for w in self.windows if not 1 <= w <= side)
            if wrong:
                return [gettext("The scanning windows {windows} do not fit {data}'s {height} × {width} images: a "
                                "window is 1 to {side} pixels wide.").format(
                    windows=wrong, data=ds.name, height=ds.image_shape[0], width=ds.image_shape[1], side=side)]
        most = max_train_pairs(ds.y)
        n = self.effective().n_pairs
        if most < 30:
            return [ngettext("{data} is too small for pairs: its two disjoint pools give at most {most} training "
                             "pairs (similar pairs need two instances of a class in each pool). Use a dataset with "
                             "more instances per class.",
                             "{data} is too small for pairs: its two disjoint pools give at most {most} training "
                             "pairs (similar pairs need two instances of a class in each pool). Use a dataset with "
                             "more instances per class.", most).format(data=ds.name, most=most)]
        if n > most:
            values = {"data": ds.name, "most": most, "asked": n, "pairs_box": gettext("Training pairs N")}
            return [(gettext("{data} gives at most {most} training pairs from disjoint pools (similar pairs need two "
                             "instances of one class in each pool); lower '{pairs_box}' to {most} or fewer (the paper "
                             "settings ask for {asked}).") if self.paper else
                     gettext("{data} gives at most {most} training pairs from disjoint pools (similar pairs need two "
                             "instances of one class in each pool); lower '{pairs_box}' to {most} or fewer."))
                    .format(**values)]
        return []

    def run(self, ds, progress=None):
        """SDF and gcForest on one pair draw of ``ds``
        (:func:`mvlab.experiments.siamese_comparison.run_siamese_experiment`), with multi-grained scanning on image
        data when ``scanning`` is on."""
        s = self.effective()
        scanning = bool(s.scanning and ds.image_shape is not None)
        return run_siamese_experiment(
            ds.X, ds.y, s.n_pairs, n_estimators=s.n_estimators, lam=s.lam, z_schedule=s.z_schedule,
            qp_probas=s.qp_probas, max_levels=s.max_levels, scanning=scanning, image_shape=ds.image_shape,
            window_sizes=sorted(s.windows) if scanning and s.windows else None, classes=ds.classes,
            random_state=s.seed, n_jobs=APP_N_JOBS, progress=progress)


# ============================================================================ proximity
@dataclass(frozen=True)
class ProximitySettings(ExperimentSettings):
    """The proximity lesson: one forest on one view, its leaves tree by tree and three measures
    on the same forest (:func:`mvlab.experiments.proximity_walk.proximity_walk`)."""

    kind: ClassVar[str] = "proximity"
    view: str = _opt("", help=N_("The view's name; empty: the dataset's first view."))
    n_samples: int = _opt(300, range=(20, 5000),
                          help=N_("A stratified sample of the data (all if larger than the data)."))
    n_estimators: int = _declared(50, ForestDissimilarity, "n_estimators", range=(1, 1000))
    k: int = _opt(5, range=(1, 50), help=N_("Neighbours of the leave-one-out kNN accuracy."))

    def _view_name(self, ds: MultiViewDataset) -> str:
        return self.view or next(iter(ds.views))

    def problems(self, ds):
        """Why the walk cannot run: a view ``ds`` does not have, or ``k`` too large for the instances."""
        if self._view_name(ds) not in ds.views:
            return [gettext("{data} has no view '{view}'; its views are {views}.").format(
                data=ds.name, view=self.view, views=list(ds.views))]
        if self.k >= min(self.n_samples, ds.n_samples):
            return [ngettext("k = {k} needs more than {k} instances; use a smaller k.",
                             "k = {k} needs more than {k} instances; use a smaller k.", self.k).format(k=self.k)]
        return []

    def run(self, ds, progress=None):
        """The proximity walk on the chosen view of ``ds`` (its first by default)
        (:func:`mvlab.experiments.proximity_walk.proximity_walk`)."""
        name = self._view_name(ds)
        return proximity_walk(ds.X, ds.y, view=ds.views[name], view_name=name, classes=ds.classes,
                              n_samples=self.n_samples, n_estimators=self.n_estimators, k=self.k,
                              random_state=self.seed, n_jobs=APP_N_JOBS, progress=progress)


# ============================================================================ benchmark
@dataclass(frozen=True)
class BenchmarkSettings(ExperimentSettings):
    """The Benchmark page: one family's methods on several bundled datasets, the same splits for
    every method, stored as one batch of runs."""

    kind: ClassVar[str] = "benchmark"
    family: str = _opt("dissimilarity", options=tuple(FAMILIES))
    datasets: tuple[str, ...] = _opt(("breast-cancer", "digits", "nutrimouse"), options=tuple(list_datasets()))
    methods: tuple[str, ...] = ()
    repetitions: int = _opt(3, range=(1, 100), help=N_("Papers: 10 (DVS), 10 x 5-fold (OFSP), 100 (SDF)."))
    n_estimators: int = _declared(20, RFDClassifier, "n_estimators", range=(3, 1000),
                                  help=N_("Random-forest methods only."))
    n_max: int = _opt(600, range=(40, 5000), help=N_("Larger datasets use a stratified sample."))
    n_pairs: int = _opt(100, range=(20, 5000))

    def problems(self, ds=None) -> list[str]:
        """Why the benchmark cannot run: no dataset, fewer than two methods, methods not of the family, or a
        dataset the family's parameters do not suit.  ``ds`` is not used (the datasets are the settings')."""
        family = FAMILIES[self.family]
        out = []
        if not self.datasets:
            out.append(gettext("Choose at least one dataset."))
        methods = self.methods or family.methods
        if len(methods) < 2:
            out.append(gettext("Choose at least two methods to compare."))
        unknown = [m for m in methods if m not in family.methods]
        if unknown:
            out.append(gettext("{methods} are not methods of {family}.").format(methods=unknown,
                                                                                 family=gettext(family.title)))
        elif len(methods) >= 2:
            params = family.check_params(self.params())
            for name in self.datasets:
                out += [f"{name}: {p}" for p in family.problems(dataset_info(name).n_views, params)]
        return out

    def params(self) -> dict:
        """The family's parameters: its quick preset, these methods and trees."""
        family = FAMILIES[self.family]
        params = {**family.presets["quick"].params, "methods": list(self.methods or family.methods)}
        if "n_estimators" in family.check_params({}):
            params["n_estimators"] = self.n_estimators
        return params

    def run(self, store, progress=None, batch: str | None = None) -> tuple[str, list[str]]:
        """Run the family on every dataset (a stratified sample of at most ``n_max`` instances),
        storing every run under one batch kind; returns (batch, messages about skipped datasets).  After each split
        and each dataset but the last, the batch's name is offered to ``progress`` as a partial result
        (:func:`mvlab.core.progress.report_partial`: the page shows the runs stored so far).

        A dataset's splits run side by side on the run's threads (those of an enclosing
        :func:`joblib.parallel_config`, as the job engine gives a run; one outside one), shared by
        :func:`mvlab.core.threads.split_workers`: as many splits at once as threads, each on the threads left over
        (one, when the splits are at least as many). The batch's forests are small (tens of trees on a few hundred
        rows), and such a forest grows and predicts faster one tree after another than on two threads, whose
        results joblib looks for every 10 ms: the page's default batch took 7.1 s with each split's forests on two
        threads, 4.4 s one split after the other on one thread each, 3.8 s two splits side by side (timed in one
        process by a scratch probe; ``bench/bench_pages.py``'s library column: 7.4-7.6 s before, 3.9-4.0 s after).
        The numbers are the same either way: each split has its own seed.  Two splits at once hold two splits'
        forests, and the progress moves (and a Stop is seen) as each split ends, not inside it: on the job engine,
        a session that stops is let go at once, and a run whose split outlasts the engine's grace has its worker
        restarted (:class:`mvlab.engine.Engine`'s ``stop_grace``)."""
        import uuid

        family = FAMILIES[self.family]
        batch = batch or f"benchmark:{family.name}:{uuid.uuid4().hex[:8]}"
        protocol = make_protocol(family, self.repetitions, n_pairs=self.n_pairs)
        skipped, n = [], len(self.datasets)
        for i, name in enumerate(self.datasets):
            ds = load_dataset(name)
            ds = ds.stratified_sample(min(self.n_max, ds.n_samples), random_state=self.seed)
            prefix = (Message(N_("{dataset}: "), dataset=ds.name) if n == 1 else
                      Message(N_("{dataset} (dataset {number} of {count}): "), dataset=ds.name, number=i + 1, count=n))
            sub = scaled(progress, i / n, 1 / n, prefix=prefix)
            try:
                outer, inner = split_workers(None, len(protocol.splits(ds.y, self.seed)))
                run_experiment(ds, family, self.params(), protocol, random_state=self.seed, n_jobs=outer,
                               inner_jobs=inner, store=store, kind=batch, progress=sub, partial=lambda _splits: batch)
            except ValueError as exc:
                skipped.append(Message(N_("{dataset} was skipped: {error}"), dataset=ds.name, error=str(exc)))
            if i + 1 < n:
                report_partial(progress, lambda: batch, Message(N_("{done} of {total} datasets"), done=i + 1, total=n))
        return batch, skipped
