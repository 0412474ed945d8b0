"""The Lessons page's glue: where the lesson and step come from (the address, so a step has its own
link and a reload stays there), the predict-first question, teacher mode, and the step's figures,
computed on the job engine once per server and shared by every session that opens the step."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from mvlab.lessons import LESSONS, Lesson, Step, StepContext, StepRun
from mvlab.lessons.handout import render_handout
from mvlab.ui import rounds, runs, shared, touch
from mvlab.ui.figure_text import show_figure
from mvlab.viz.frozen import freeze

__all__ = ["ADDRESS_KEYS", "Place", "place_from_address", "publish_place", "question", "round_panel", "teacher_style",
           "step_result", "step_items", "show_items", "prepare", "handout_button"]

TEACHER_FONT = 20
"""Font size (px) of figures in teacher mode (projector)."""


ADDRESS_KEYS = ("lesson", "step", "teacher", "round", "key")


class Place:
    """Where the reader is: a lesson id, a step number (1-based), teacher mode on or off, and the class round
    taken part in (its code). A teacher key is never part of a place: a link that carries one (``key=``) is read
    once by :func:`mvlab.ui.rounds.join` and leaves the address when the place is published."""

    def __init__(self, lesson: str, step: int, teacher: bool, round: str | None = None):
        self.lesson, self.step, self.teacher, self.round = lesson, step, teacher, round

    def moved(self, step: int) -> "Place":
        """The same place at another step."""
        return Place(self.lesson, step, self.teacher, self.round)

    def address(self) -> str:
        """The query of this place as a link's text (``lesson=dvs&step=2...``)."""
        return "&".join(f"{k}={v}" for k, v in self.query().items())

    def query(self) -> dict[str, str]:
        """The place as URL query values: ``lesson`` and ``step``, and ``teacher`` and ``round`` when set."""
        out = {"lesson": self.lesson, "step": str(self.step)}
        if self.teacher:
            out["teacher"] = "1"
        if self.round:
            out["round"] = self.round
        return out


def _read_address(notes: list[str]) -> Place:
    q = st.query_params
    lesson = q.get("lesson", next(iter(LESSONS)))
    if lesson not in LESSONS:
        notes.append(f"There is no lesson '{lesson[:40]}'; the lessons are {', '.join(LESSONS)}. Showing the first.")
        lesson = next(iter(LESSONS))
    total = len(LESSONS[lesson].steps)
    raw = q.get("step", "1")
    step = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else 0
    if not 1 <= step <= total:
        notes.append(f"'step={raw[:40]}' is not a step of this lesson (1 to {total}); showing step 1.")
        step = 1
    teacher = q.get("teacher", "0").lower() in ("1", "true", "yes", "on")
    return Place(lesson, step, teacher, q.get("round") or None)


def place_from_address() -> tuple[Place, list[str]]:
    """The place in the address when it changed since this session last wrote it (a link, a
    reload, the browser's back button), else the session's own; with notes on ignored values."""
    notes: list[str] = []
    address = {k: st.query_params.get(k) for k in ADDRESS_KEYS if k in st.query_params}
    mine = st.session_state.get("_lesson_place")
    if mine is None or address != mine.query():
        place = _read_address(notes)
        st.session_state["_lesson_place"] = place
    return st.session_state["_lesson_place"], notes


def publish_place(place: Place) -> None:
    """Write the place into the session and the address (a reload or a shared link comes back here)."""
    st.session_state["_lesson_place"] = place
    for key in ADDRESS_KEYS:
        if key not in place.query() and key in st.query_params:
            del st.query_params[key]
    st.query_params.update(place.query())


def round_panel(lesson: Lesson, place: Place, view) -> None:
    """Teacher mode's class-round panel (:func:`mvlab.ui.rounds.teacher_panel`) with this step's links: the
    students' (the round's code) and, only in a file to download, the teacher's own (also its key)."""
    rounds.teacher_panel(
        lesson, view,
        student_query=lambda code: Place(lesson.id, place.step, False, code).address(),
        teacher_query=lambda code, key: Place(lesson.id, place.step, True, code).address() + f"&key={key}",
        on_start=lambda code: publish_place(Place(lesson.id, place.step, True, code)))


def teacher_style() -> None:
    """Teacher mode: larger text, no sidebar (the projector shows the lesson alone)."""
    st.markdown(
        "<style>[data-testid='stSidebar'], [data-testid='stSidebarCollapsedControl'] {display: none;} "
        "[data-testid='stMarkdownContainer'] p, [data-testid='stMarkdownContainer'] li, label p "
        "{font-size: 1.3rem !important; line-height: 1.5;} h1 {font-size: 2.6rem !important;}</style>",
        unsafe_allow_html=True)


def question(step: Step, key: str, teacher: bool, view=None, step_index: int = 0) -> bool:
    """The predict-first question; returns True once the answer is shown.

    Alone: the reader reveals it (teacher mode: shown at once). In a class round (``view``, a
    :class:`mvlab.ui.rounds.RoundView`): a student sends their answer, shown as sent only once the store has
    confirmed it (``{key}_revealed``; a failure is said and the answer can be sent again), a change of mind before
    the reveal is sent the same way and replaces it, and a student who reloads or opens another tab finds the
    answer their browser sent; the answer shows when the teacher reveals it to the class, for the teacher too. A
    choice that is not one of the question's (a value a browser made up) is refused in words."""
    q = step.question
    st.markdown(f"**Predict first:** {q.prompt}")
    letters = [f"({chr(97 + i)}) {c}" for i, c in enumerate(q.choices)]
    student = view is not None and not view.teacher
    sent, confirmed_key = f"{key}_revealed", f"{key}_sent"
    if student and confirmed_key not in st.session_state:  # a reload, a tab: what this browser sent before
        before = rounds.sent_before(view, step_index)
        st.session_state[confirmed_key] = before
        if before is not None:
            st.session_state[f"{key}_choice"], st.session_state[sent] = before, True

    def send():
        choice = rounds.checked_choice(st.session_state.get(f"{key}_choice"), len(q.choices))
        if not student:
            st.session_state[sent] = choice is not None
        elif rounds.record(view, step_index, choice, len(q.choices)):
            st.session_state[sent], st.session_state[confirmed_key] = True, choice

    chosen = st.radio(q.prompt, range(len(q.choices)), index=None, key=f"{key}_choice", label_visibility="collapsed",
                      format_func=lambda i: letters[i] if isinstance(i, int) and 0 <= i < len(letters) else str(i),
                      disabled=view is not None and view.teacher)
    chosen = rounds.checked_choice(chosen, len(q.choices))
    if view is None:
        revealed = teacher or st.session_state.get(sent, False)
    else:
        state = view.state()
        revealed = state is not None and step_index in state.revealed
    confirmed = st.session_state.get(confirmed_key)
    unsent = not st.session_state.get(sent) or (student and chosen is not None and chosen != confirmed)
    if not revealed and (view is None or student) and unsent:
        label = ("Reveal the answer" if not student else "Send my answer" if confirmed is None
                 else "Send my new answer")
        st.button(label, key=f"{key}_reveal", disabled=chosen is None, on_click=send,
                  help="Choose an answer first: predicting before you see is the point.")
    refused = st.session_state.pop("_round_refused", None)
    if refused:
        st.error(refused)
    if revealed:
        verdict = "" if chosen is None or (view is not None and view.teacher) else (
            "You were right. " if chosen == q.answer else f"You chose ({chr(97 + chosen)}). ")
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


def prepare(lesson: Lesson, number: int) -> None:
    """Read step ``number``'s stored result and build its figures now, once per server, so that a class moved
    there (a round's *next step for everyone*) finds them ready instead of waiting on the first reader."""
    if not 1 <= number <= len(lesson.steps):
        return
    step = lesson.step(number)
    data = _data(step.run)
    result = runs.lookup(step.run.settings, data, step.run.result_type)
    if result is not None:
        ctx = StepContext(result, data, step.run.settings)
        step_items(step, ctx, [lesson.id, number, runs.result_key(ctx.settings, ctx.data)])


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
                    show_figure(st, _larger(item) if teacher else touch.for_this_screen(item), key=f"{key}_fig{i}")
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
