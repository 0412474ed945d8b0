"""A class round on the Lessons page: every student predicts, the teacher sees the room's answers live,
reveals the answer to everyone and moves the class on (the store part: :mod:`mvlab.store.rounds`).

A teacher (teacher mode) starts a round and gets two links: the students' (``?lesson=dvs&step=2&round=K7Q2``,
also as a QR code drawn here, on the server) and the teacher's own, which also carries the teacher key
(``&key=...``: whoever has it can reveal, advance, rename, download and delete; a student's link never carries
it, and the key is checked by the store, not hidden in the page). A student's committed answer is recorded
under a random token of their browser tab. Live parts refresh themselves as fragments (``run_every``), not as
reruns of the whole page: the teacher's count of answers every 1.5 s, a student's look at the round every half second.

Settings: ``MVLAB_ROUND_RETENTION_DAYS`` (default 30: older rounds are deleted by the server) and
``MVLAB_ROUND_MAX_ANSWERS`` (default 5000 answers per round).
"""

from __future__ import annotations

import html
import os
import secrets
from datetime import datetime

import streamlit as st

from mvlab.lessons import Lesson, Step
from mvlab.store import ClassRounds, Round, RoundError
from mvlab.ui import runs
from mvlab.viz.class_figures import answer_distribution

__all__ = ["class_rounds", "RoundView", "join", "teacher_panel", "record", "live_answers", "follow_the_round",
           "class_distribution"]

TEACHER_REFRESH = 1.5
"""Seconds between two looks of the teacher's view at the answers."""
STUDENT_REFRESH = 0.5
"""Seconds between two looks of a student's page at the round (reveal, next step)."""


@st.cache_resource(show_spinner=False)
def _rounds(path: str, retention: float, cap: int) -> ClassRounds:
    store = ClassRounds(path, retention_days=retention, max_answers=cap)
    store.sweep()  # once per server process (and path): rounds past the retention go
    return store


def class_rounds() -> ClassRounds:
    """The rounds in this server's results store (the retention and cap from the environment)."""
    retention = float(os.environ.get("MVLAB_ROUND_RETENTION_DAYS", "30"))
    cap = int(os.environ.get("MVLAB_ROUND_MAX_ANSWERS", "5000"))
    return _rounds(str(runs.results_store().path), retention, cap)


class RoundView:
    """The round this browser tab takes part in: its code, the teacher key when this tab holds it, and the
    tab's token (the only thing an answer is recorded under)."""

    def __init__(self, code: str, key: str | None):
        self.code, self.key = code, key

    @property
    def teacher(self) -> bool:
        """Whether this tab holds the round's teacher key."""
        return self.key is not None

    @property
    def token(self) -> str:
        """This tab's token (made once per session), under which its answers are recorded."""
        return st.session_state.setdefault("_round_token", secrets.token_urlsafe(12))

    def state(self) -> Round | None:
        """The round as it stands now, or None when it has expired or was deleted."""
        return class_rounds().get(self.code)


def join(code: str | None, key: str | None) -> tuple[RoundView | None, list[str]]:
    """The round of the address (``round=``, and ``key=`` on the teacher's link), or None; with notes for a
    code that is unknown or expired (the lesson then runs without a round) or a key that is not the round's."""
    if not code:
        return None, []
    found = class_rounds().get(code)
    if found is None:
        return None, [f"There is no class round '{code}' (or it has expired): the lesson runs without a round, "
                      "and your answers are not counted. Ask your teacher for the current link."]
    notes = []
    if key is not None and not class_rounds().holds(found.code, key):
        notes.append("This link's teacher key is not this round's: you take part as a student.")
        key = None
    if key is not None:
        st.session_state.setdefault("_round_keys", {})[found.code] = key
    if st.session_state.get("_round_seen") is None or st.session_state.get("_round_code") != found.code:
        st.session_state["_round_code"] = found.code
        st.session_state["_round_seen"] = found.step  # joining does not move anyone; the teacher's next steps do
    return RoundView(found.code, key), notes


def record(view: RoundView, step_index: int, choice: int | None) -> None:
    """Record this tab's choice on a step (0-based); a refusal (step revealed, round full) shown in words."""
    if choice is None:
        return
    try:
        class_rounds().answer(view.code, view.token, step_index, int(choice))
    except RoundError as exc:
        st.session_state["_round_refused"] = str(exc)


def class_distribution(step: Step, counts: dict, correct: bool, teacher: bool) -> None:
    """The room's answers to the step's question (the right choice marked once revealed)."""
    st.plotly_chart(answer_distribution(step.question.choices, counts,
                                        correct=step.question.answer if correct else None,
                                        font_size=20 if teacher else None))


def live_answers(view: RoundView, step: Step, step_index: int, total: int, on_next) -> None:
    """The teacher's view of a step, refreshing itself: how many answered and what they chose, with the
    buttons that reveal the answer to the class and move everyone on (``on_next()`` after the move)."""

    @st.fragment(run_every=TEACHER_REFRESH)
    def panel():
        now = view.state()
        if now is None:
            st.warning("This round no longer exists.")
            return
        counts = class_rounds().counts(view.code, step_index)
        revealed = step_index in now.revealed
        class_distribution(step, counts, correct=revealed, teacher=True)
        left, right = st.columns(2)
        if left.button("Reveal the answer to the class", key=f"round_reveal_{step_index}", disabled=revealed,
                       type="primary", width="stretch"):
            class_rounds().reveal(view.code, view.key, step_index)
            st.rerun()  # the whole page: the answer and the figures show on the projector too
        if right.button("Next step for everyone →", key=f"round_next_{step_index}", disabled=step_index + 1 >= total,
                        width="stretch"):
            class_rounds().move_to(view.code, view.key, step_index + 1)
            st.session_state["_round_seen"] = step_index + 1
            on_next()
            st.rerun()

    panel()


def follow_the_round(view: RoundView, step: Step, step_index: int, answered: bool, on_move) -> None:
    """A student's page looking at the round every second: the whole page reruns when the teacher reveals
    this step (the answer and figures appear) or moves the class to another step (``on_move(step_index)``
    takes the student there; they can still go back on their own). Before the reveal, an answered student
    is told to wait, and sees the class's distribution (without the answer) when the round shares it."""

    @st.fragment(run_every=STUDENT_REFRESH)
    def watch():
        now = view.state()
        if now is None:
            return
        if now.step != st.session_state.get("_round_seen"):
            st.session_state["_round_seen"] = now.step
            on_move(now.step)
            st.rerun()
        if step_index in now.revealed and not st.session_state.get(f"_round_shown_{step_index}"):
            st.session_state[f"_round_shown_{step_index}"] = True
            st.rerun()
        if answered and step_index not in now.revealed:
            st.info("Your answer is in; wait for the discussion.", icon=":material/how_to_vote:")
            if now.share:
                class_distribution(step, class_rounds().counts(view.code, step_index), correct=False, teacher=False)

    watch()


def _qr_png(text: str) -> bytes:
    import io

    import segno

    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=8, border=2)
    return buffer.getvalue()


def _base_url() -> str:
    url = st.context.url or ""
    return url.split("?")[0].rsplit("/", 1)[0] if "/" in url else url


def teacher_panel(lesson: Lesson, view: RoundView | None, student_query, teacher_query, on_start) -> None:
    """Teacher mode: start a round of this lesson, or the running round's links (the students' as a QR code),
    its downloads, renaming and deleting; ``student_query(code)`` / ``teacher_query(code, key)`` give the
    addresses' queries, ``on_start(code, key)`` moves this page into the new round."""
    with st.expander("Class round: the room's answers, live" + (f" (round {view.code})" if view else ""),
                     expanded=view is None or not st.session_state.get("_round_panel_seen")):
        if view is None or not view.teacher:
            share = st.checkbox("Students who answered see the class's distribution before the reveal",
                                key="round_share", help="For peer discussion; the right answer stays hidden.")
            if st.button("Start a class round", key="round_start", type="primary"):
                started = class_rounds().start(lesson.id, share=share)
                st.session_state.setdefault("_round_keys", {})[started.round.code] = started.key
                on_start(started.round.code, started.key)
                st.rerun()
            return
        st.session_state["_round_panel_seen"] = True
        base = _base_url()
        students = f"{base}/lessons?{student_query(view.code)}"
        c1, c2 = st.columns([3, 1])
        c1.markdown(f"**Round {view.code}**. Students open:")
        c1.code(students, language=None)
        c1.caption("Your own link (keep it to yourself: it carries the teacher key that reveals, advances and "
                   f"deletes): `?{teacher_query(view.code, view.key)}`")
        c2.image(_qr_png(students), caption="the students' link", width=180)
        _after_class(lesson, view)


def _after_class(lesson: Lesson, view: RoundView) -> None:
    """Downloads of the round (answers counted, per-answer rows without identity, a one-page summary), and
    renaming or deleting it."""
    rounds = class_rounds()
    current = view.state()
    totals, per_answer = rounds.export_csv(view.code, view.key)
    correct = {i: s.question.answer for i, s in enumerate(lesson.steps)}
    summary = rounds.summary(view.code, view.key, correct)
    d1, d2, d3 = st.columns(3)
    d1.download_button("Answers per choice (CSV)", totals, file_name=f"round-{view.code}-counts.csv",
                       mime="text/csv", key="round_csv_counts")
    d2.download_button("One row per answer (CSV)", per_answer, file_name=f"round-{view.code}-answers.csv",
                       mime="text/csv", key="round_csv_answers")
    d3.download_button("Summary (HTML)", _summary_html(lesson, current, summary), file_name=f"round-{view.code}.html",
                       mime="text/html", key="round_summary")
    r1, r2, r3 = st.columns([3, 1, 1])
    name = r1.text_input("Name of the round", value=current.name if current else "", key=f"round_name_{view.code}")
    if r2.button("Rename", key="round_rename") and name:
        _guard(lambda: rounds.rename(view.code, view.key, name))
    if r3.button("Delete the round", key="round_delete"):
        _guard(lambda: rounds.delete(view.code, view.key))
        st.session_state.pop("_round_code", None)
        st.rerun()


def _guard(action) -> None:
    try:
        action()
    except RoundError as exc:
        st.error(str(exc))


def _summary_html(lesson: Lesson, current: Round | None, summary: list[dict]) -> str:
    def share(s):
        return "" if s["answers"] == 0 else f"{100 * s['share correct']:.0f} %"

    rows = "".join(
        f"<tr><td>{s['step'] + 1}. {html.escape(lesson.steps[s['step']].title)}</td><td>{s['answers']}</td>"
        f"<td>{share(s)}</td></tr>" for s in summary)
    when = datetime.fromtimestamp(current.created).strftime("%Y-%m-%d %H:%M") if current else ""
    name = html.escape(current.name) if current else ""
    return (f"<!doctype html><meta charset='utf-8'><title>{name}</title><body style='font-family:sans-serif'>"
            f"<h1>{html.escape(lesson.title)}</h1><p>Class round {name}, started {when}.</p>"
            "<table border='1' cellpadding='6' style='border-collapse:collapse'><tr><th>step</th><th>answers</th>"
            f"<th>right before the discussion</th></tr>{rows}</table></body>")
