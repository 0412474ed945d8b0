"""The pages whose computation a lesson step may show: each page's settings (the same frozen dataclass the page's
controls fill, by its declared parameter names), the result it stores, and the accuracies its result reports by
name (what the generic checks of :mod:`mvlab.lessons.check_registry` compare)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mvlab.experiments.combinations import COMPARISON_METHODS, CombinationComparison
from mvlab.experiments.proximity_walk import ProximityWalk
from mvlab.experiments.settings import (
    DVSSettings,
    ExperimentSettings,
    ProximitySettings,
    SiameseSettings,
    ViewConstructionSettings,
)
from mvlab.experiments.siamese_comparison import SiameseExperiment
from mvlab.experiments.view_construction_sweep import KSweepResult
from mvlab.i18n import N_

__all__ = ["LessonPage", "PAGES", "page_of"]

PROXIMITY_MEASURES = ("breiman", "rfgap", "rfd")
"""The measures a proximity walk computes on its one forest."""


@dataclass(frozen=True)
class LessonPage:
    """A page a lesson step computes on: its ``kind`` (the settings' and the store's name), ``title`` for people,
    its ``settings`` class and ``result`` type, the names of the accuracies its result reports for given settings
    (``methods``) and the accuracies themselves (``accuracies``)."""

    kind: str
    title: str
    settings: type[ExperimentSettings]
    result: type
    methods: Callable[[ExperimentSettings], tuple[str, ...]]
    accuracies: Callable[[object, ExperimentSettings], dict[str, float]]
    accuracies_doc: str = ""
    """What the accuracies' names mean, for the guide."""
    own_data: dict | None = None
    """The values of the settings' ``source`` that make the page compute on data of its own (e.g. DVS's
    ``demo``: the region demo), in words (marked for the catalogues: a lesson file's problems say them in the
    reader's language, ``gettext(words)``); None when the page has no such setting."""

    def data_value(self) -> str | None:
        """The ``source`` value that computes on the run's own dataset or CSV (None: no ``source`` setting)."""
        if self.own_data is None:
            return None
        options = dataclasses.fields(self.settings)
        return next(o for f in options if f.name == "source" for o in f.metadata["options"] if o not in self.own_data)


def _proximity_accuracies(walk: ProximityWalk, settings) -> dict[str, float]:
    return {**{m: float(a) for m, a in walk.knn_accuracy.items()}, "out-of-bag": float(walk.oob_accuracy)}


def _comparison_accuracies(result: CombinationComparison, settings) -> dict[str, float]:
    out = {m: float(a) for m, a in result.accuracy.items()}
    if result.oracle_accuracy is not None:
        out["oracle"] = float(result.oracle_accuracy)
    return out


def _sweep_accuracies(result: KSweepResult, settings) -> dict[str, float]:
    """Each method's test accuracy, the mean over k of its first classifier's (the page's first box plot)."""
    classifier = settings.classifiers[0]
    table = result.per_k("accuracy", classifier)
    return {m: float(np.mean(table[m])) for m in table.columns}


def _siamese_accuracies(result: SiameseExperiment, settings) -> dict[str, float]:
    return {m: float(result.accuracy(m)) for m in ("SDF", "gcForest")}


PAGES: dict[str, LessonPage] = {page.kind: page for page in (
    LessonPage("proximity", "Proximity (one forest on one view, three measures)", ProximitySettings, ProximityWalk,
               lambda s: PROXIMITY_MEASURES + ("out-of-bag",), _proximity_accuracies,
               "breiman, rfgap, rfd: the leave-one-out kNN accuracy of each measure's neighbours on the training "
               "instances; out-of-bag: the forest's own out-of-bag accuracy."),
    LessonPage("dvs", "Dynamic view selection", DVSSettings, CombinationComparison,
               lambda s: COMPARISON_METHODS + ("oracle",), _comparison_accuracies,
               "The test accuracy of each combination of the view forests: average (Avg), knn, alignment and oob "
               "(the static weights SWknn, SWalign, SWoob), dvs (the paper's dynamic view selection), dvs-soft and "
               "dvs-soft-shared (its soft competence, on each candidate's region or a shared one), and the "
               "baselines concat (one forest on all features), late-fusion and stacking; oracle (each instance's "
               "true view: the region demo only).",
               {"demo": N_("the region demo: 600 instances, 4 views, the view that carries the class depends on the "
                           "instance (seeded by seed)")}),
    LessonPage("view_construction", "View construction (the k sweep)", ViewConstructionSettings, KSweepResult,
               lambda s: tuple(s.methods), _sweep_accuracies,
               "Each method of the run (OFSP, RFSP, Bagging, AB, VG-AC, VC-GA): its ensembles' test accuracy, the "
               "mean over k of the run's first classifier's.",
               {"madelon": N_("the Madelon-like set: madelon_n instances, 5 informative, 15 redundant and 480 noise "
                              "features (seeded by seed)")}),
    LessonPage("siamese", "Siamese deep forest", SiameseSettings, SiameseExperiment,
               lambda s: ("SDF", "gcForest"), _siamese_accuracies,
               "SDF and gcForest: their test accuracy on the same test pairs."),
)}
"""The pages a lesson's run may name (``page:``), by kind."""


def page_of(settings: ExperimentSettings) -> LessonPage:
    """The page whose settings ``settings`` are."""
    return PAGES[settings.kind]
