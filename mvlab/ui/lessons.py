"""The Lessons page's glue: where the lesson and step come from (the address, so a step has its own
link and a reload stays there), the predict-first question, teacher mode, and the step's figures,
computed on the job engine once per server and shared by every session that opens the step."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from mvlab.lessons import LESSONS, Lesson, Step, StepContext, StepRun
from mvlab.lessons.handout import render_handout
from mvlab.ui import runs, shared
from mvlab.viz.frozen import freeze

__all__ = ["Place", "place_from_address", "publish_place", "question", "teacher_style", "step_result", "step_items",
           "show_items", "handout_button"]

TEACHER_FONT = 20
"""Font size (px) of figures in teacher mode (projector)."""


class Place:
    """Where the reader is: a lesson id, a step number (1-based), teacher mode on or off."""

    def __init__(self, lesson: str, step: int, teacher: bool):
        self.lesson, self.step, self.teacher = lesson, step, teacher

    def query(self) -> dict[str, str]:
        out = {"lesson": self.lesson, "step": str(self.step)}
        if self.teacher:
            out["teacher"] = "1"
        return out


def _read_address(notes: list[str]) -> Place:
    q = st.query_params
    lesson = q.get("lesson", next(iter(LESSONS)))
    if lesson not in LESSONS:
        notes.append(f"There is no lesson '{lesson}'; the lessons are {', '.join(LESSONS)}. Showing the first.")
        lesson = next(iter(LESSONS))
    total = len(LESSONS[lesson].steps)
    raw = q.get("step", "1")
    try:
        step = int(raw)
        if not 1 <= step <= total:
            raise ValueError
    except ValueError:
        notes.append(f"'step={raw}' is not a step of this lesson (1 to {total}); showing step 1.")
        step = 1
    teacher = q.get("teacher", "0").lower() in ("1", "true", "yes", "on")
    return Place(lesson, step, teacher)


def place_from_address() -> tuple[Place, list[str]]:
    """The place in the address when it changed since this session last wrote it (a link, a
    reload, the browser's back button), else the session's own; with notes on ignored values."""
    notes: list[str] = []
    address = {k: st.query_params.get(k) for k in ("lesson", "step", "teacher") if k in st.query_params}
    mine = st.session_state.get("_lesson_place")
    if mine is None or address != mine.query():
        place = _read_address(notes)
        st.session_state["_lesson_place"] = place
    return st.session_state["_lesson_place"], notes


def publish_place(place: Place) -> None:
    """Write the place into the session and the address (a reload or a shared link comes back here)."""
    st.session_state["_lesson_place"] = place
    for key in ("lesson", "step", "teacher"):
        if key not in place.query() and key in st.query_params:
            del st.query_params[key]
    st.query_params.update(place.query())


def teacher_style() -> None:
    """Teacher mode: larger text, no sidebar (the projector shows the lesson alone)."""
    st.markdown(
        "<style>[data-testid='stSidebar'], [data-testid='stSidebarCollapsedControl'] {display: none;} "
        "[data-testid='stMarkdownContainer'] p, [data-testid='stMarkdownContainer'] li, label p "
        "{font-size: 1.3rem !important; line-height: 1.5;} h1 {font-size: 2.6rem !important;}</style>",
        unsafe_allow_html=True)


def question(step: Step, key: str, teacher: bool) -> bool:
    """The predict-first question; returns True once the answer is shown (revealed, or teacher mode)."""
    q = step.question
    st.markdown(f"**Predict first:** {q.prompt}")
    letters = [f"({chr(97 + i)}) {c}" for i, c in enumerate(q.choices)]
    chosen = st.radio(q.prompt, range(len(q.choices)), index=None, key=f"{key}_choice", label_visibility="collapsed",
                      format_func=lambda i: letters[i])
    revealed = teacher or st.session_state.get(f"{key}_revealed", False)
    if not revealed:
        st.button("Reveal the answer", key=f"{key}_reveal", disabled=chosen is None,
                  on_click=lambda: st.session_state.__setitem__(f"{key}_revealed", True),
                  help="Choose an answer first: predicting before you see is the point.")
    if revealed:
        verdict = "" if chosen is None else ("You were right. " if chosen == q.answer else
                                             f"You chose ({chr(97 + chosen)}). ")
        st.success(f"{verdict}**Answer: {letters[q.answer]}.** {q.why}", icon=":material/lightbulb:")
    return revealed


def _data(run: StepRun):
    """The run's data, built once per server (the synthetic sets are generated, not loaded)."""
    return shared.value("lesson_data", [run.dataset, run.settings.kind, run.settings.key()], run.data)


def step_result(run: StepRun, key: str, number: int):
    """The run's result: stored already (this session, or the results store), or computed now on the
    job engine for this session (shared with every session opening the same step)."""
    data = _data(run)
    result = runs.lookup(run.settings, data, run.result_type)
    if result is None:
        result = runs.train_button(run.settings, data, key, label=f"Computing step {number}", auto=True,
                                   button="Compute this step")
    return None if result is None else StepContext(result, data, run.settings)


def step_items(step: Step, ctx: StepContext, key) -> list:
    """The step's figures and tables, built once per server for this step and result (a class that opens
    the step shares them), figures frozen (their wire form encoded once: :mod:`mvlab.viz.frozen`)."""
    return shared.value("lesson_step", key, lambda: [freeze(item) if isinstance(item, go.Figure) else item
                                                     for item in step.figures(ctx)])


def _larger(fig: go.Figure) -> go.Figure:
    fig = go.Figure(fig)  # a copy: the shared figure is never changed in place
    fig.update_layout(font_size=TEACHER_FONT, title_font_size=TEACHER_FONT + 4,
                      height=(fig.layout.height or 450) * 1.25)
    return fig


def show_items(items: list, step: Step, key: str, teacher: bool) -> None:
    """The step's figures and tables, in order, with their captions, in the rows of ``step.layout``."""
    i = 0
    for width in step.rows(len(items)):
        for column in st.columns(width) if width > 1 else [st.container()]:
            with column:
                item = items[i]
                if isinstance(item, go.Figure):
                    st.plotly_chart(_larger(item) if teacher else item, key=f"{key}_fig{i}")
                else:
                    st.dataframe(item, hide_index=True, width="stretch")
                if i < len(step.captions):
                    st.caption(step.captions[i])
            i += 1


def handout_button(lesson: Lesson) -> None:
    """The handout of the lesson as a download, once every run of the lesson is stored."""
    contexts = {}
    for run in lesson.runs():
        data = _data(run)
        result = runs.lookup(run.settings, data, run.result_type)
        contexts[run] = None if result is None else StepContext(result, data, run.settings)
    missing = [n for n, step in enumerate(lesson.steps, 1) if contexts[step.run] is None]
    if missing:
        st.caption(f"The handout can be downloaded once every step has been computed (steps {missing} are not yet: "
                   "open them, or run `python -m mvlab lesson " + lesson.id + " --warm` before class).")
        return
    st.download_button("Download the handout (.html, works offline)", lambda: render_handout(lesson, contexts),
                       file_name=f"mvlab-lesson-{lesson.id}.html", mime="text/html", key=f"handout_{lesson.id}")
