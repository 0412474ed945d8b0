"""What a lesson is made of: steps, each with its computation, its figures and a question asked
before the figures are explained (predict, then see).

A :class:`Step` names the run it needs (:class:`StepRun`: a page's settings object and the data),
so a step shown in class reuses a stored result or the engine's shared run of the same settings;
several steps of a lesson usually share one run.  Its figures are built by a function of the run's
result (``figures(StepContext) -> list``), from the same :mod:`mvlab.viz` builders as the pages; an
item is a plotly figure or a small table (a DataFrame).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pandas as pd
import plotly.graph_objects as go

from mvlab.datasets.bundled import load_dataset
from mvlab.datasets.container import MultiViewDataset
from mvlab.experiments.settings import ExperimentSettings

__all__ = ["Question", "StepRun", "StepContext", "Step", "Lesson", "Shown"]

Shown = go.Figure | pd.DataFrame
"""What a step shows: a figure or a small table."""


@dataclass(frozen=True)
class Question:
    """A multiple-choice question asked before the answer is revealed; ``answer`` indexes ``choices``."""

    prompt: str
    choices: tuple[str, ...]
    answer: int
    why: str

    def __post_init__(self):
        if not 0 <= self.answer < len(self.choices) or len(self.choices) < 2:
            raise ValueError(f"question '{self.prompt}': needs at least two choices and an answer among them.")


@dataclass(frozen=True)
class StepRun:
    """The computation a step shows: ``settings.run(data)`` where ``data`` is the bundled dataset
    ``dataset`` (passed through ``settings.data`` when the settings choose their own data, e.g. the
    region demo).  ``result_type`` reads the stored artifact back (``from_npz``)."""

    settings: ExperimentSettings
    dataset: str
    result_type: type

    def data(self) -> MultiViewDataset:
        """The step's data: the bundled dataset ``dataset``, through ``settings.data`` when the settings
        choose their own."""
        ds = load_dataset(self.dataset)
        return self.settings.data(ds) if hasattr(self.settings, "data") else ds

    @property
    def label(self) -> str:
        """``"<kind> on <dataset>"``, for people."""
        return f"{self.settings.kind} on {self.dataset}"


@dataclass(frozen=True)
class StepContext:
    """What a step's figures are drawn from: the run's result, its data and settings."""

    result: object
    data: MultiViewDataset
    settings: ExperimentSettings


@dataclass(frozen=True)
class Step:
    """One step: a short text, the figures, a question to answer first, what to notice, one common
    mistake.  ``captions`` (optional) go under the figures, one per item."""

    title: str
    text: str
    run: StepRun
    figures: Callable[[StepContext], list[Shown]]
    question: Question
    notice: str
    mistake: str
    captions: tuple[str, ...] = ()
    layout: tuple[int, ...] = ()
    """Items per row on the page (e.g. ``(1, 2)``: one wide figure, then two side by side); default
    one per row."""
    holds: Callable[[StepContext], bool] | None = None
    """For a question about the data (not about the method), whether its answer is true of the
    step's result: the lesson's tests check it on the computed result, so a text never claims
    what its figure does not show."""

    def rows(self, n_items: int) -> list[int]:
        """Items per row for ``n_items`` items: ``layout``, then one per row for any left over."""
        rows, left = [], n_items
        for width in self.layout:
            if left <= 0:
                break
            rows.append(min(width, left))
            left -= rows[-1]
        return rows + [1] * left


@dataclass(frozen=True)
class Lesson:
    """A lesson: an id (its link name), a title, a one-paragraph summary and 5-8 steps."""

    id: str
    title: str
    summary: str
    steps: tuple[Step, ...]

    def __post_init__(self):
        if not 5 <= len(self.steps) <= 8:
            raise ValueError(f"lesson '{self.id}' has {len(self.steps)} steps; a lesson has 5 to 8.")

    def runs(self) -> list[StepRun]:
        """The distinct computations of the lesson, in the order of its steps."""
        out: list[StepRun] = []
        for step in self.steps:
            if step.run not in out:
                out.append(step.run)
        return out

    def step(self, number: int) -> Step:
        """Step ``number`` (1-based); ValueError naming the valid range."""
        if not 1 <= number <= len(self.steps):
            raise ValueError(f"lesson '{self.id}' has steps 1 to {len(self.steps)}; there is no step {number}.")
        return self.steps[number - 1]
