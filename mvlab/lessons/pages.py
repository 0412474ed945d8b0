"""The pages whose computation a lesson step may show: each page's settings (the same frozen dataclass the page's
controls fill, by its declared parameter names), the result it stores, and the accuracies its result reports by
name (what the generic checks of :mod:`mvlab.lessons.check_registry` compare)."""

from __future__ import annotations

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
               lambda s: PROXIMITY_MEASURES + ("out-of-bag",), _proximity_accuracies),
    LessonPage("dvs", "Dynamic view selection", DVSSettings, CombinationComparison,
               lambda s: COMPARISON_METHODS + ("oracle",), _comparison_accuracies),
    LessonPage("view_construction", "View construction (the k sweep)", ViewConstructionSettings, KSweepResult,
               lambda s: tuple(s.methods), _sweep_accuracies),
    LessonPage("siamese", "Siamese deep forest", SiameseSettings, SiameseExperiment,
               lambda s: ("SDF", "gcForest"), _siamese_accuracies),
)}
"""The pages a lesson's run may name (``page:``), by kind."""


def page_of(settings: ExperimentSettings) -> LessonPage:
    """The page whose settings ``settings`` are."""
    return PAGES[settings.kind]
