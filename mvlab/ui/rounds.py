"""A class round on the Lessons page: every student predicts, the teacher sees the room's answers live,
reveals the answer to everyone and moves the class on (the store part: :mod:`mvlab.store.rounds`).

A teacher (teacher mode) starts a round and gets two links: the students' (``?lesson=dvs&step=2&round=K7Q2``,
also as a QR code drawn here, on the server) and the teacher's own, which also carries the teacher key
(``&key=...``: whoever has it can reveal, advance, rename, download and delete; a student's link never carries
it, and the key is checked by the store, not hidden in the page). A student's committed answer is recorded
under a random token of their browser tab. Live parts refresh themselves as fragments (``run_every``), not as
reruns of the whole page: the teacher's count of answers every second. A student's page does not look at
the round at all: one reader per server process (:class:`mvlab.ui.wake.Watch`) looks at every followed round
four times a second and reruns only the students whose round changed (the reveal, the next step, and, when the
round shares it, the class's distribution every ``SHARE_REFRESH`` seconds); where the server cannot wake a
session (:func:`mvlab.ui.wake.available`), the student's page looks every ``STUDENT_REFRESH`` seconds instead.

Settings: ``MVLAB_ROUND_RETENTION_DAYS`` (default 30: older rounds are deleted by the server) and
``MVLAB_ROUND_MAX_ANSWERS`` (default 5000 answers per round).
"""

from __future__ import annotations

import html
import os
import secrets
import time
from datetime import datetime
from urllib.parse import urlsplit

import streamlit as st

from mvlab.lessons import Lesson, Step
from mvlab.store import ClassRounds, Round, RoundError
from mvlab.store.rounds import normal_code
from mvlab.ui import runs, shared, touch, wake
from mvlab.ui.figure_text import show_figure
from mvlab.viz.class_figures import answer_distribution

__all__ = ["class_rounds", "RoundView", "join", "teacher_panel", "record", "live_answers", "follow_the_round",
           "class_distribution", "moved_to", "round_watch", "students_base"]

TEACHER_REFRESH = 1.0
"""Seconds between two looks of the teacher's view at the answers."""
WATCH_INTERVAL = 0.25
"""Seconds between two looks of a server process at the rounds its students follow (all of them in one query)."""
SHARE_REFRESH = 2.0
"""Seconds between two updates of the class's distribution on the waiting students' pages (rounds that share it)."""
STUDENT_REFRESH = 1.0
"""Seconds between two looks of a student's page at the round where the server cannot wake it (the fallback)."""


@st.cache_resource(show_spinner=False)
def _rounds(path: str, retention: float, cap: int) -> ClassRounds:
    store = ClassRounds(path, retention_days=retention, max_answers=cap)
    store.sweep()  # once per server process (and path): rounds past the retention go
    return store


def _settings() -> tuple[str, float, int]:
    retention = float(os.environ.get("MVLAB_ROUND_RETENTION_DAYS", "30"))
    cap = int(os.environ.get("MVLAB_ROUND_MAX_ANSWERS", "5000"))
    return runs.results_store().location, retention, cap


def class_rounds() -> ClassRounds:
    """The rounds in this server's results store (the retention and cap from the environment)."""
    return _rounds(*_settings())


class RoundNow:
    """What the server process's watch read of a round: the round, and its counts per step (``{step: {choice:
    count}}``, read every ``SHARE_REFRESH`` seconds) when it shares the distribution, else None."""

    def __init__(self, round: Round, counts: dict | None):
        self.round, self.counts = round, counts


def _reader(rounds: ClassRounds):
    """``read(codes)`` for the watch: the rounds in one query; the counts of those that share their
    distribution in one more, at most every ``SHARE_REFRESH`` seconds."""
    kept = {"at": float("-inf"), "counts": {}}

    def read(codes) -> dict[str, RoundNow]:
        found = rounds.many(codes)
        sharing = [code for code, r in found.items() if r.share]
        if sharing and time.monotonic() - kept["at"] >= SHARE_REFRESH:
            kept["counts"], kept["at"] = rounds.all_counts(sharing), time.monotonic()
        counts = kept["counts"]
        return {code: RoundNow(r, {step: n for (c, step), n in counts.items() if c == code} if r.share else None)
                for code, r in found.items()}

    return read


@st.cache_resource(show_spinner=False)
def _watch(path: str, retention: float, cap: int) -> wake.Watch:
    return wake.Watch(_reader(_rounds(path, retention, cap)), interval=WATCH_INTERVAL)


def round_watch() -> wake.Watch:
    """This server process's watch of the rounds its students follow (:class:`mvlab.ui.wake.Watch`)."""
    return _watch(*_settings())


class RoundView:
    """The round this browser tab takes part in: its code, the teacher key when this tab holds it, and the
    tab's token (the only thing an answer is recorded under)."""

    def __init__(self, code: str, key: str | None):
        self.code, self.key = code, key
        self._drawn: tuple[Round | None] | None = None

    @property
    def teacher(self) -> bool:
        """Whether this tab holds the round's teacher key."""
        return self.key is not None

    @property
    def token(self) -> str:
        """This tab's token (made once per session), under which its answers are recorded."""
        return st.session_state.setdefault("_round_token", secrets.token_urlsafe(12))

    def state(self, fresh: bool = False) -> Round | None:
        """The round as this run of the page draws it (read once per run; ``fresh``: read it again), or None
        when it has expired or was deleted."""
        if fresh or self._drawn is None:
            self._drawn = (class_rounds().get(self.code),)
        return self._drawn[0]


def _student_look(code: str) -> Round | None:
    """The round as this server process's watch read it within the last two intervals (a student's page runs
    on it instead of reading the store again: the watch looks for every student of the process at once), or
    None when the watch does not follow it (the store is read then)."""
    if not wake.available():
        return None
    now = round_watch().latest(normal_code(code), 2 * WATCH_INTERVAL)
    return None if now is None else now.round


def join(code: str | None, key: str | None) -> tuple[RoundView | None, list[str]]:
    """The round of the address (``round=``, and ``key=`` on the teacher's link), or None; with notes for a
    code that is unknown or expired (the lesson then runs without a round) or a key that is not the round's."""
    if not code:
        return None, []
    found = _student_look(code) if key is None else None
    if found is None:
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
    view = RoundView(found.code, key)
    view._drawn = (found,)  # this run draws the round as just read
    return view, notes


def record(view: RoundView, step_index: int, choice: int | None) -> None:
    """Record this tab's choice on a step (0-based); a refusal (step revealed, round full) shown in words."""
    if choice is None:
        return
    try:
        class_rounds().answer(view.code, view.token, step_index, int(choice))
    except RoundError as exc:
        st.session_state["_round_refused"] = str(exc)


def class_distribution(step: Step, counts: dict, correct: bool, teacher: bool) -> None:
    """The room's answers to the step's question (the right choice marked once revealed), built once per server
    for these counts (a class looking at the same counts shares the figure)."""
    choices, answer = list(step.question.choices), step.question.answer if correct else None
    font = 20 if teacher else None
    figure = shared.figure("class_distribution", [choices, sorted(counts.items()), answer, font],
                           lambda: answer_distribution(choices, counts, correct=answer, font_size=font))
    show_figure(st, figure if teacher else touch.for_this_screen(figure))


def live_answers(view: RoundView, step: Step, step_index: int, total: int, on_next) -> None:
    """The teacher's view of a step, refreshing itself: how many answered and what they chose, with the
    buttons that reveal the answer to the class and move everyone on (``on_next()`` after the move)."""

    @st.fragment(run_every=TEACHER_REFRESH)
    def panel():
        now = view.state(fresh=True)
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


def moved_to(view: RoundView, now: Round | None) -> int | None:
    """The step (0-based) the teacher moved the class to since this student's page last saw the round, or None
    (the page then goes there; the student can still go back on their own)."""
    if view.teacher or now is None or now.step == st.session_state.get("_round_seen"):
        return None
    st.session_state["_round_seen"] = now.step
    return now.step


def _counts_key(counts: dict | None):
    return None if counts is None else tuple(sorted(counts.items()))


def follow_the_round(view: RoundView, step: Step, step_index: int, answered: bool) -> None:
    """A student's page in a round: it is rerun when the teacher reveals this step (the answer and figures
    appear) or moves the class on (:func:`moved_to` takes the page there). Before the reveal, an answered
    student is told to wait, and sees the class's distribution (without the answer) when the round shares it.

    The page is woken by the server process's watch (:func:`round_watch`), which looks at the round for all
    its students at once (the shared distribution: its part alone, every ``SHARE_REFRESH`` seconds at most);
    where the server cannot wake a session, the waiting part looks every ``STUDENT_REFRESH`` seconds itself."""
    drawn = view.state()
    if drawn is None:
        return
    waiting = answered and step_index not in drawn.revealed
    share, push = waiting and drawn.share, wake.available()

    def page(r: Round):  # what the whole page shows of the round
        return r.step, step_index in r.revealed

    def project(now: RoundNow):
        return page(now.round), _counts_key((now.counts or {}).get(step_index, {}) if share else None)

    def follow(counts: dict | None, fragment: str = "") -> None:  # wake this session when its view changes
        round_watch().follow(wake.current_session(), wake.Subscription(view.code, project,
                                                                       (page(drawn), _counts_key(counts)), fragment))

    def waiting_part():
        now = view.state(fresh=True)
        if now is None or page(now) != page(drawn):
            st.rerun(scope="app")
        if waiting:
            st.info("Your answer is in; wait for the discussion.", icon=":material/how_to_vote:")
        if share:
            seen = round_watch().latest(view.code, 2 * SHARE_REFRESH) if push else None
            counts = (seen.counts or {}).get(step_index, {}) if seen is not None and seen.counts is not None \
                else class_rounds().counts(view.code, step_index)  # the counts the watch compares with
            class_distribution(step, counts, correct=False, teacher=False)
            if push:
                follow(counts, wake.current_fragment())  # a rerun of this part alone follows on from here

    if not push:
        st.fragment(run_every=STUDENT_REFRESH)(waiting_part)()
    elif share:
        st.fragment(waiting_part)()
    else:
        if waiting:
            st.info("Your answer is in; wait for the discussion.", icon=":material/how_to_vote:")
        follow(None)


def _qr_png(text: str) -> bytes:
    import io

    import segno

    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=8, border=2)
    return buffer.getvalue()


def _qr_image(text: str) -> str:
    """The QR code of ``text`` as an ``<img>`` whose text alternative says what it is and where it leads (a screen
    reader reads the link itself from the code block beside it)."""
    import base64
    import html

    data = base64.b64encode(_qr_png(text)).decode()
    alt = html.escape(f"QR code of the students' link, {text}", quote=True)
    return f'<img src="data:image/png;base64,{data}" alt="{alt}" width="180" height="180">'


LOOPBACK = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


def students_base(page_url: str | None, public: str | None) -> tuple[str, str | None]:
    """The address the students' link starts with, and a note for the teacher when that link will not open on
    the students' devices.

    ``public`` (``MVLAB_PUBLIC_URL``, e.g. ``https://mvlab.example.edu``) wins when set: behind a proxy, or when
    the teacher's page is opened on ``localhost``. Otherwise the address of the teacher's page (``page_url``,
    without its page and query), with a note when it names the teacher's own machine. ``ValueError`` when
    ``public`` is not an http(s) address."""
    if public:
        public = public.strip().rstrip("/")
        parts = urlsplit(public)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"MVLAB_PUBLIC_URL={public!r} is not an address students can open: give the server's "
                             "address as they reach it, e.g. http://192.0.2.10:8501 or https://mvlab.example.edu.")
        return public, None
    url = (page_url or "").split("?")[0]
    base = url.rsplit("/", 1)[0] if url.count("/") > 2 else url.rstrip("/")
    host = urlsplit(base).hostname or ""
    if host in LOOPBACK or host.startswith("127."):
        return base, (f"This page is open at {host}, the teacher's own machine: the students' link and its QR code "
                      "will not open on their devices. Open this page at the address students reach the server by "
                      "(e.g. http://<this machine's address>:8501), or start the server with "
                      "MVLAB_PUBLIC_URL=<that address>.")
    return base, None


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
        try:
            base, note = students_base(st.context.url, os.environ.get("MVLAB_PUBLIC_URL"))
        except ValueError as exc:
            st.error(str(exc))
            return
        if note:
            st.warning(note, icon=":material/wifi_off:")
        students = f"{base}/lessons?{student_query(view.code)}"
        c1, c2 = st.columns([3, 1])
        c1.markdown(f"**Round {view.code}**. Students open:")
        c1.code(students, language=None)
        c1.caption("Your own link (keep it to yourself: it carries the teacher key that reveals, advances and "
                   f"deletes): `?{teacher_query(view.code, view.key)}`")
        c2.html(_qr_image(students))
        c2.caption("the students' link")
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
