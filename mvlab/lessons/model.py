"""What a lesson is made of: steps, each with its computation, its figures and a question asked
before the figures are explained (predict, then see).

A :class:`Step` names the run it needs (:class:`StepRun`: a page's settings object and the data),
so a step shown in class reuses a stored result or the engine's shared run of the same settings;
several steps of a lesson usually share one run.  Its figures are named figures of the registry
(:data:`mvlab.lessons.figure_registry.FIGURES`) with their parameters, each one figure or small table drawn
from the run's result with the same :mod:`mvlab.viz` builders as the pages; its claims are named checks
(:data:`mvlab.lessons.check_registry.CHECKS`). A lesson is written as a file (:mod:`mvlab.lessons.lesson_file`);
nothing in it is code.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
from dataclasses import dataclass, field
from typing import Mapping

import pandas as pd
import plotly.graph_objects as go

from mvlab.datasets.bundled import load_dataset
from mvlab.datasets.container import MultiViewDataset
from mvlab.experiments.settings import ExperimentSettings
from mvlab.i18n import gettext

__all__ = ["Question", "StepRun", "StepContext", "Use", "entry_use", "Step", "Lesson", "Shown", "MAX_STEPS",
           "lesson_texts"]

MAX_STEPS = 12
"""Steps a lesson may have."""

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
    ``dataset``, or the lesson's own CSV file named ``dataset`` when ``csv`` holds its bytes, passed through
    ``settings.data`` when the settings choose their own data (``dataset`` then "": the region demo, the
    Madelon-like set).  ``result_type`` reads the stored artifact back (``from_npz``)."""

    settings: ExperimentSettings
    dataset: str
    result_type: type
    csv: bytes | None = None

    def data(self) -> MultiViewDataset:
        """The step's data: the bundled dataset or the lesson's CSV, through ``settings.data`` when the settings
        choose their own."""
        if not self.dataset:
            return self.settings.data(None)  # the page's own data, generated
        ds = load_dataset(self.dataset) if self.csv is None else _csv_dataset(self.csv, self.dataset)
        return self.settings.data(ds) if hasattr(self.settings, "data") else ds

    @property
    def label(self) -> str:
        """``"<kind> on <dataset>"``, for people (in the language being served)."""
        # Translators: a lesson's computation: a page's name (proximity, dvs...) and the data it computes on, e.g.
        # "dvs on iris" or "dvs on its own data"
        return gettext("{page} on {data}").format(page=self.settings.kind,
                                                   data=self.dataset or gettext("its own data"))


@functools.lru_cache(maxsize=16)  # a lesson's CSV is read once per process (its steps share it)
def _csv_dataset(csv: bytes, name: str) -> MultiViewDataset:
    from mvlab.datasets.reader import read_multiview_csv

    return read_multiview_csv(io.BytesIO(csv), name=name)


def csv_digest(csv: bytes) -> str:
    """A CSV's identity (its SHA-256, 12 hex digits), for people and keys."""
    return hashlib.sha256(csv).hexdigest()[:12]


@dataclass(frozen=True)
class StepContext:
    """What a step's figures are drawn from: the run's result, its data and settings."""

    result: object
    data: MultiViewDataset
    settings: ExperimentSettings


@dataclass(frozen=True)
class Use:
    """A named figure or check of a registry with its parameters (checked when the lesson was read)."""

    name: str
    params: tuple[tuple[str, object], ...] = ()

    def kwargs(self) -> dict:
        """The parameters as keyword arguments (lists as tuples)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.params}


def entry_use(entry, params: dict) -> Use:
    """The use of a registry's ``entry`` (:class:`mvlab.lessons.parameters.Entry`) with ``params``: every declared
    parameter, its default where ``params`` leaves it out (the declaration is the one source of a default); those
    whose default is None (worked out by the figure or check) only when given."""
    filled = {p.name: params.get(p.name, p.default) for p in entry.params}
    return Use(entry.name, tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in filled.items()
                                 if v is not None))


@dataclass(frozen=True)
class Step:
    """One step: a short text, the figures, a question to answer first, what to notice, one common
    mistake.  ``captions`` (optional) go under the figures, one per item."""

    title: str
    text: str
    run: StepRun
    figures: tuple[Use, ...]
    question: Question
    notice: str
    mistake: str
    captions: tuple[str, ...] = ()
    layout: tuple[int, ...] = ()
    """Items per row on the page (e.g. ``(1, 2)``: one wide figure, then two side by side); default
    one per row."""
    checks: tuple[Use, ...] = ()
    """For a question about the data (not about the method), the claims its answer makes of the step's result:
    ``lesson check --compute`` and the lessons' tests check them on the computed result, so a text never claims
    what its figure does not show."""

    def items(self, ctx: StepContext) -> list[Shown]:
        """The step's figures and tables drawn from ``ctx``, in order."""
        from mvlab.lessons.figure_registry import FIGURES

        return [FIGURES[use.name].build(ctx, **use.kwargs()) for use in self.figures]

    def verdicts(self, ctx: StepContext) -> list[tuple[Use, bool, str]]:
        """Each check with whether it holds on ``ctx`` and what was measured, in words."""
        from mvlab.lessons.check_registry import CHECKS

        out = []
        for use in self.checks:
            holds, measured = CHECKS[use.name].build(ctx, **use.kwargs())
            out.append((use, bool(holds), measured))
        return out

    def holds(self, ctx: StepContext) -> bool | None:
        """Whether every claim holds on ``ctx`` (None: the step makes none)."""
        return all(holds for _, holds, _ in self.verdicts(ctx)) if self.checks else None

    def rows(self, n_items: int) -> list[int]:
        """Items per row for ``n_items`` items: ``layout``, then one per row for any left over."""
        rows, left = [], n_items
        for width in self.layout:
            if left <= 0:
                break
            rows.append(min(width, left))
            left -= rows[-1]
        return rows + [1] * left


def _titled(use: Use, title: str | None) -> Use:
    """``use`` with its ``title`` parameter set to ``title`` (a figure's title in a reader's language), as it is when
    ``title`` is None."""
    if title is None:
        return use
    return Use(use.name, tuple((k, title if k == "title" else v) for k, v in use.params))


def lesson_texts(title: str, summary: str, steps: list[dict]) -> dict:
    """A lesson's texts in one language, as :meth:`Lesson.in_language` reads them: its title and summary, and for
    each step (a step of the file, its texts already in that language) its title, text, question (prompt, choices,
    why), notice, mistake, its figures' captions and the titles its figures are given (None where a figure keeps
    its own)."""
    return {"title": title, "summary": summary, "steps": [
        {"title": s["title"], "text": s["text"], "notice": s["notice"], "mistake": s["mistake"],
         "prompt": s["question"]["prompt"], "choices": list(s["question"]["choices"]), "why": s["question"]["why"],
         "captions": [f.get("caption", "") for f in s["figures"]],
         "figure_titles": [f.get("title") for f in s["figures"]]} for s in steps]}


@dataclass(frozen=True)
class Lesson:
    """A lesson: an id (its link name), a title, a one-paragraph summary and 1 to :data:`MAX_STEPS` steps (the
    built-in ones have 5 to 8); ``source`` the lesson file's text it was read from ("" when built in code).

    Its texts are in ``language``; ``translations`` holds them in other languages (language -> :func:`lesson_texts`
    of the lesson in that language, None for each text the lesson lacks in it), and :meth:`in_language` gives the
    lesson as a reader of a language reads it (its own text where a translation lacks one)."""

    id: str
    title: str
    summary: str
    steps: tuple[Step, ...]
    source: str = ""
    language: str = "en"
    translations: Mapping[str, dict] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self):
        if not 1 <= len(self.steps) <= MAX_STEPS:
            raise ValueError(f"lesson '{self.id}' has {len(self.steps)} steps; a lesson has 1 to {MAX_STEPS}.")

    @functools.cached_property
    def version(self) -> str:
        """The lesson's version: its file's SHA-256 (12 hex digits; "" when built in code), so that what a server
        builds once for a step (its figures) is built anew when a teacher changes the lesson."""
        return hashlib.sha256(self.source.encode()).hexdigest()[:12] if self.source else ""

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages the lesson has texts in: its own first."""
        return (self.language, *(c for c in self.translations if c != self.language))

    def in_language(self, code: str) -> "Lesson":
        """The lesson as a reader of ``code`` reads it: its texts in that language where it has them, in its own
        elsewhere (itself when it has none in ``code``).  The runs, figures and checks are the same objects: a class
        reading it in five languages shares every result."""
        texts = self.translations.get(code)
        if texts is None or code == self.language:
            return self
        read = self._readings.get(code)
        if read is None:  # made once per language (a class's every rerun asks): a benign race makes it twice
            read = self._readings[code] = self._read_in(code, texts)
        return read

    @functools.cached_property
    def _readings(self) -> dict[str, "Lesson"]:
        """The lesson in each language asked of :meth:`in_language` so far."""
        return {}

    def _read_in(self, code: str, texts: dict) -> "Lesson":
        steps = tuple(dataclasses.replace(
            step, title=t["title"] or step.title, text=t["text"] or step.text, notice=t["notice"] or step.notice,
            mistake=t["mistake"] or step.mistake,
            captions=tuple(c or o for c, o in zip(t["captions"], step.captions)) if step.captions else (),
            figures=tuple(_titled(use, title) for use, title in zip(step.figures, t.get("figure_titles", ()))) +
            step.figures[len(t.get("figure_titles", ())):],
            question=dataclasses.replace(
                step.question, prompt=t["prompt"] or step.question.prompt, why=t["why"] or step.question.why,
                choices=tuple(c or o for c, o in zip(t["choices"], step.question.choices))))
            for step, t in zip(self.steps, texts["steps"]))
        return dataclasses.replace(self, title=texts["title"] or self.title, summary=texts["summary"] or self.summary,
                                   steps=steps, language=code, translations=self.translations)

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
