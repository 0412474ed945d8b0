"""A class round on the Lessons page: every student predicts, the teacher sees the room's answers live,
reveals the answer to everyone and moves the class on (the store part: :mod:`mvlab.store.rounds`).

A teacher (teacher mode) starts a round and gets the students' link (``?lesson=dvs&step=2&round=K7Q2``, also as a
QR code drawn here, on the server). The teacher key (whoever has it can reveal, advance, rename, download and
delete; the store checks it) is never shown on the projected page nor kept in the address: the teacher's browser
holds it in its session and a cookie (:mod:`mvlab.ui.identity`), so a reload or a second tab still controls the
round; a file with a link that carries it can be downloaded to take the round to another device, and that link's
key leaves the address as soon as the page has read it. A student's answer is recorded under their browser's
anonymous token (a cookie: a reload, a tab, a restarted server find the same student), only once the store has
confirmed it is the answer shown as sent, and every value a page sends is checked against what the step allows.
When the store cannot answer (PostgreSQL stopped, SQLite locked), the pages say so in words and look again by
themselves until it is back. Live parts refresh themselves as fragments (``run_every``), not as
reruns of the whole page: the teacher's count of answers every second. A student's page does not look at
the round at all: one reader per server process (:class:`mvlab.ui.wake.Watch`) looks at every followed round
four times a second and reruns only the students whose round changed (the reveal, the next step, and, when the
round shares it, the class's distribution every ``SHARE_REFRESH`` seconds), and of their page only the part that
shows the change (the step, a fragment: :func:`follow_the_round`); where the server cannot wake a session
(:func:`mvlab.ui.wake.available`), the student's page looks every ``STUDENT_REFRESH`` seconds instead. What a woken
class shows is read and built once per server process: the round (the watch's look), a revealed step's counts
(:func:`revealed_counts`), the step's figures (:mod:`mvlab.ui.shared`).

Settings: ``MVLAB_ROUND_RETENTION_DAYS`` (default 30: older rounds are deleted by the server),
``MVLAB_ROUND_MAX_ANSWERS`` (default 5000 answers per round), ``MVLAB_ROUND_JOINS_PER_ADDRESS`` (default 120 new
students per network address and minute; 0: no limit; raise it when a large class reaches the server through one
NAT address) and ``MVLAB_ROUND_STORE_WAIT`` (default 5: seconds an answer waits for a locked or unreachable store
before the student is told it was not sent).
"""

from __future__ import annotations

import html
import os
import time
from contextlib import contextmanager
from datetime import datetime
from urllib.parse import urlsplit

import streamlit as st

from mvlab.core.memo import Memo
from mvlab.i18n import _, current_language
from mvlab.lessons import Lesson, Step
from mvlab.store import ClassRounds, Round, RoundError, StoreUnavailable
from mvlab.store.rounds import normal_code, valid_code
from mvlab.ui import identity, runs, shared, wake
from mvlab.ui import streamlit_insides as insides
from mvlab.ui.figure_text import show_figure
from mvlab.ui.prose import markdown_literal
from mvlab.viz.class_figures import answer_bars_html, answer_distribution

__all__ = ["class_rounds", "RoundView", "join", "teacher_panel", "record", "sent_before", "live_answers",
           "follow_the_round", "class_distribution", "class_bars", "revealed_bars", "revealed_counts", "moved_to",
           "round_watch", "students_base", "store_trouble", "wait_for_the_store", "StoreUnavailable", "hidden_steps"]

TEACHER_REFRESH = 1.0
"""Seconds between two looks of the teacher's view at the answers."""
WATCH_INTERVAL = 0.25
"""Seconds between two looks of a server process at the rounds its students follow (all of them in one query)."""
SHARE_REFRESH = 2.0
"""Seconds between two updates of the class's distribution on the waiting students' pages (rounds that share it)."""
STUDENT_REFRESH = 1.0
"""Seconds between two looks of a student's page at the round where the server cannot wake it (the fallback)."""
STORE_RETRY = 2.0
"""Seconds between two looks of a page at a store that could not answer, until it is back."""


def _rounds(path: str, retention: float, cap: int, per_address: int, wait: float, in_all: int) -> ClassRounds:
    """The rounds at the results store's location, on its connections (one engine per process and location:
    :mod:`mvlab.store.connections`), each call waiting at most ``wait`` seconds for the store."""
    store = ClassRounds(path, retention_days=retention, max_answers=cap, new_per_address=per_address, timeout=wait,
                        browsers_per_address=in_all)
    store.sweep()  # once per server process (and path): rounds past the retention go
    return store


def _number(name: str, default: str, kind=float):
    text = os.environ.get(name, default).strip() or default
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number; leave it unset for {default}.") from None


def _settings() -> tuple[str, float, int, int, float, int]:
    return (runs.results_store().location, _number("MVLAB_ROUND_RETENTION_DAYS", "30"),
            _number("MVLAB_ROUND_MAX_ANSWERS", "5000", int), _number("MVLAB_ROUND_JOINS_PER_ADDRESS", "120", int),
            _number("MVLAB_ROUND_STORE_WAIT", "5"), _number("MVLAB_ROUND_BROWSERS_PER_ADDRESS", "400", int))


_ENVIRONMENT = ("MVLAB_STORE", "HOME", "MVLAB_ROUND_RETENTION_DAYS", "MVLAB_ROUND_MAX_ANSWERS",
                "MVLAB_ROUND_JOINS_PER_ADDRESS", "MVLAB_ROUND_STORE_WAIT", "MVLAB_ROUND_BROWSERS_PER_ADDRESS")
"""The environment :func:`_settings` comes from (the store's location, and the rounds' settings)."""
_KEPT = Memo(None)
"""This process's rounds and watch by that environment (:data:`_ENVIRONMENT`), opened by one script thread while
the others wait: a class that opens the link at once asks for them from as many threads, which each opened their own
before (a profile found 20 watches in one process, each with its thread reading the store four times a second for as
long as the process lived, and students woken by several). Found by a dict lookup on every page run (a student woken
by the watch asks for both; Streamlit's ``cache_resource`` inspects the function's signature at each call). Never
dropped: a watch owns a thread."""


def _kept(kind: str, open_it):
    """``open_it()`` once per process for the present environment (:data:`_ENVIRONMENT`), kept (:data:`_KEPT`); a
    store that cannot be opened now is :class:`StoreUnavailable` (nothing kept: opened again at the next call)."""

    def opened():
        try:
            return open_it(*_settings())
        except StoreUnavailable:
            raise
        except ValueError as exc:  # the store could not be opened (a server down at the first look)
            raise StoreUnavailable(str(exc)) from exc

    return _KEPT.get((kind, *map(os.environ.get, _ENVIRONMENT)), opened)


def class_rounds() -> ClassRounds:
    """The rounds in this server's results store (the retention, cap, join limit and wait from the environment); a
    store that cannot be opened now is :class:`StoreUnavailable`."""
    return _kept("rounds", _rounds)


ROUND_HOURS_DEFAULT = "4"
"""Hours a round keeps its lesson's unrevealed answers from every other page (``MVLAB_ROUND_OPEN_HOURS``): a lecture."""
_HIDDEN = Memo(256)
"""The steps each lesson's open rounds hide, by lesson and 2-second slot: a page asks the store at most once every
2 s per lesson and process (a class's readers share the look)."""
ALL_STEPS = frozenset(range(100))


def hidden_steps(lesson_id: str) -> frozenset[int]:
    """The steps (0-based) of ``lesson_id`` whose answers no page may show now, because a class round of the lesson
    started in the last ``MVLAB_ROUND_OPEN_HOURS`` hours (4) has not revealed them (issue #71 item 3): a reader
    alone, teacher mode without the round's key and the handout wait for the reveal; the round's own teacher and
    students follow the round. Every step while the store cannot answer (it cannot say that no round is on)."""
    hours = _number("MVLAB_ROUND_OPEN_HOURS", ROUND_HOURS_DEFAULT)
    slot = int(time.monotonic() // 2)

    def look() -> frozenset[int]:
        try:
            return class_rounds().unrevealed(lesson_id, time.time() - hours * 3600)
        except StoreUnavailable:
            return ALL_STEPS

    return _HIDDEN.get((lesson_id, hours, slot), look)


def _unavailable_words(exc: StoreUnavailable) -> str:
    return f"{exc} " + _("Nothing is lost: this page looks again by itself every {seconds} s.").format(
        seconds=f"{STORE_RETRY:.0f}")


@contextmanager
def store_trouble(prefix: str = ""):
    """A block whose store calls may fail: a store that cannot answer is said in words (``prefix`` first), not a
    traceback, and the rest of the page goes on."""
    try:
        yield
    except StoreUnavailable as exc:
        st.warning(prefix + _unavailable_words(exc), icon=":material/cloud_off:")


def wait_for_the_store(code: str) -> None:
    """Where the store could not answer as this page opened round ``code``: say so, look again every
    ``STORE_RETRY`` seconds, and reload the page by itself once the store answers."""

    @st.fragment(run_every=STORE_RETRY)
    def look_again():
        try:
            class_rounds().get(code)
        except StoreUnavailable:
            return
        st.rerun(scope="app")

    look_again()


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


def _watch(*_settings) -> wake.Watch:
    """The watch, on this process's rounds (:func:`class_rounds`: one store and one pool of connections for both)."""
    return wake.Watch(_reader(class_rounds()), interval=WATCH_INTERVAL)


def round_watch() -> wake.Watch:
    """This server process's watch of the rounds its students follow (:class:`mvlab.ui.wake.Watch`)."""
    return _kept("watch", _watch)


class RoundView:
    """The round this browser takes part in: its code, the teacher key when this browser holds it, and the
    browser's anonymous token (the only thing an answer is recorded under)."""

    def __init__(self, code: str, key: str | None):
        self.code, self.key = code, key
        self._drawn: tuple[Round | None] | None = None

    @property
    def teacher(self) -> bool:
        """Whether this browser holds the round's teacher key."""
        return self.key is not None

    @property
    def token(self) -> str:
        """This browser's anonymous token (:func:`mvlab.ui.identity.browser_token`), under which its answers are
        recorded."""
        return identity.browser_token()

    def state(self, fresh: bool = False) -> Round | None:
        """The round as this run of the page draws it (read once per run; ``fresh``: read it again), or None
        when it has expired or was deleted. A student's page takes it from the server process's watch when it read
        it just now (:func:`_student_look`), else from the store; the teacher's, from the store."""
        if fresh or self._drawn is None:
            looked = None if self.teacher else _student_look(self.code)
            self._drawn = (looked if looked is not None else class_rounds().get(self.code),)
        return self._drawn[0]

    def looked_again(self) -> Round | None:
        """The round read again (:meth:`state` with ``fresh``), or, where the store cannot answer now, as this page
        last drew it: a student's part of the page rerun during an outage (their choosing, their Send) goes on
        with what it shows, and what needs the store says so itself (:func:`record`: "not sent")."""
        try:
            return self.state(fresh=True)
        except StoreUnavailable:
            if self._drawn is None:
                raise
            return self._drawn[0]


def _student_look(code: str) -> Round | None:
    """The round as this server process's watch read it within the last two intervals (a student's page runs
    on it instead of reading the store again: the watch looks for every student of the process at once), or
    None when the watch does not follow it (the store is read then)."""
    if not wake.available():
        return None
    now = round_watch().latest(normal_code(code), 2 * WATCH_INTERVAL)
    return None if now is None else now.round


def _teacher_key(found: Round, offered: str | None, notes: list[str]) -> str | None:
    """The teacher key this browser holds for ``found`` (the one a link ``offered``, kept from then on in the
    session and a cookie; else the session's or the cookie's), checked by the store; None for a student."""
    for key in (offered, identity.teacher_key(found.code)):
        if key is None:
            continue
        if class_rounds().holds(found.code, key):
            identity.keep_teacher_key(found.code, key, class_rounds().retention_days)
            return key
        if key is offered:
            notes.append(_("This link's teacher key is not this round's: you take part as a student."))
    return None


def join(code: str | None, key: str | None, at_step: int | None = None) -> tuple[RoundView | None, list[str]]:
    """The round of the address (``round=``; ``key`` a teacher key a link carried, once; ``at_step`` the address's
    step, 0-based: a new session there is moved to the round's step when the class is elsewhere, as after a
    reconnection or an old link), or None; with notes, in
    words (Markdown, a value from the address written as text: :func:`mvlab.ui.prose.markdown_literal`), for a code
    that cannot be one, is unknown or expired (the lesson then runs without a round), a key that is not the round's,
    or a student the round does not let in now (:meth:`mvlab.store.ClassRounds.join`: too many joins from this
    browser or new students from its network). :class:`StoreUnavailable` when the store cannot answer (the caller
    keeps the round in the address and waits for it: :func:`wait_for_the_store`)."""
    if not code:
        return None, []
    checked = valid_code(code)
    if checked is None:
        return None, [_("'{code}' is not a class round's code (four letters and digits): the lesson runs without a "
                        "round. Ask your teacher for the current link.").format(code=markdown_literal(str(code)[:20]))]
    found = _student_look(checked) if key is None else None
    if found is None:
        found = class_rounds().get(checked)
    if found is None:
        return None, [_("There is no class round '{code}' (or it has expired): the lesson runs without a round, and "
                        "your answers are not counted. Ask your teacher for the current link.").format(code=checked)]
    notes: list[str] = []
    key = _teacher_key(found, key, notes)
    if key is None and st.session_state.get("_round_joined") != found.code:
        try:  # once per session: a page load, a reload, a tab
            class_rounds().join(found.code, identity.browser_token(), identity.client_address())
        except RoundError as exc:
            return None, [_("You could not join class round {code}: {error}").format(code=found.code, error=exc)]
        except ValueError as exc:  # the server's MVLAB_TRUSTED_PROXIES (mvlab serve refuses to start with it)
            return None, [_("You could not join class round {code}: the server is set up wrongly ({error}); tell its "
                            "administrator.").format(code=found.code, error=exc)]
        st.session_state["_round_joined"] = found.code
    if st.session_state.get("_round_seen") is None or st.session_state.get("_round_code") != found.code:
        st.session_state["_round_code"] = found.code
        # a new session saw the step of its address: where the class is elsewhere (the teacher moved it while this
        # browser reconnected, a late student's old link), moved_to takes it there
        st.session_state["_round_seen"] = found.step if at_step is None else at_step
    view = RoundView(found.code, key)
    view._drawn = (found,)  # this run draws the round as just read
    return view, notes


def checked_choice(value, choices: int):
    """``value`` (what the page's radio sent) when it is one of ``choices`` choices (0-based), else None: a value a
    browser made up (``"7"``, ``"-3"``, ``"abc"``) is never recorded nor drawn."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < choices:
        st.error(_("That answer is not one of the choices (a) to ({last}): choose one of them.").format(
            last=chr(96 + choices)))
        return None
    return value


def record(view: RoundView, step_index: int, choice: int | None, choices: int) -> bool:
    """Record this browser's choice on a step (0-based) of ``choices`` choices; True once the store has confirmed
    it. A refusal (step revealed, round full, a value out of range) or a store that cannot answer is said in words
    on the page (the answer is then not shown as sent, and can be sent again)."""
    if choice is None:
        return False
    try:
        class_rounds().answer(view.code, view.token, step_index, choice, choices=choices)
    except RoundError as exc:
        st.session_state["_round_refused"] = _("Your answer was not counted: {error}").format(error=exc)
        return False
    except StoreUnavailable as exc:
        st.session_state["_round_refused"] = _("Your answer was not sent: {error} Send it again in a moment (the same "
                                               "answer sent twice counts once).").format(error=exc)
        return False
    return True


def sent_before(view: RoundView, step_index: int) -> int | None:
    """The choice this browser sent on a step before (a reload, another tab, a restarted server), or None (none, or
    the store cannot answer now)."""
    try:
        return class_rounds().answer_of(view.code, view.token, step_index)
    except StoreUnavailable:
        return None


def revealed_counts(view: RoundView, step_index: int) -> dict:
    """The class's answers to a revealed step (``{choice: count}``), read once per server process for the round:
    once the answer is revealed, the store takes no more answers to it (:meth:`mvlab.store.ClassRounds.answer`),
    so the class woken by the reveal shares one read instead of each student asking the store. The caller has seen
    the step revealed (a read before the reveal would be kept as final)."""
    now = view.state()
    created = now.created if now is not None else None
    return shared.value("revealed_counts", [view.code, created, int(step_index)],
                        lambda: class_rounds().counts(view.code, step_index))


def class_bars(step: Step, counts: dict, correct: bool) -> str:
    """The class's answers as HTML bars (:func:`mvlab.viz.class_figures.answer_bars_html`, the right choice marked
    once revealed: ``correct``), built once per server for these counts."""
    choices, answer = list(step.question.choices), step.question.answer if correct else None
    return shared.value("class_bars", [choices, sorted(counts.items()), answer, current_language()],
                        lambda: answer_bars_html(choices, counts, correct=answer))


def revealed_bars(view: RoundView, step: Step, step_index: int) -> str:
    """The class's answers to a revealed step as HTML bars (:func:`class_bars`, from :func:`revealed_counts`), or,
    where the store cannot answer now, a sentence saying so."""
    try:
        return class_bars(step, revealed_counts(view, step_index), correct=True)
    except StoreUnavailable as exc:
        return "<p>" + html.escape(_("The class's answers cannot be read now.") + " " + _unavailable_words(exc),
                                   quote=False) + "</p>"


PROJECTOR_FONT = 20
"""Font size (px) of the class's answers on the teacher's projector."""


def class_distribution(step: Step, counts: dict, correct: bool, teacher: bool) -> None:
    """The room's answers to the step's question (the right choice marked once revealed), built once per server
    for these counts (a class looking at the same counts shares it): on the teacher's projector a figure, on a
    student's page its bars as one element of HTML (:func:`mvlab.viz.class_figures.answer_bars_html`: no chart
    for a phone to draw, and one element sent to each of a class woken to the reveal instead of two)."""
    if not teacher:
        st.markdown(class_bars(step, counts, correct), unsafe_allow_html=True)
        return
    choices, answer = list(step.question.choices), step.question.answer if correct else None
    figure = shared.figure("class_distribution", [choices, sorted(counts.items()), answer, PROJECTOR_FONT,
                                                   current_language()],
                           lambda: answer_distribution(choices, counts, correct=answer, font_size=PROJECTOR_FONT))
    show_figure(st, figure)


def live_answers(view: RoundView, step: Step, step_index: int, total: int, on_next) -> None:
    """The teacher's view of a step, refreshing itself: how many answered and what they chose, with the
    buttons that reveal the answer to the class and move everyone on (``on_next()`` after the move)."""

    @st.fragment(run_every=TEACHER_REFRESH)
    def panel():
        with store_trouble(_("The room's answers cannot be read now.") + " "):
            now = view.state(fresh=True)
            if now is None:
                st.warning(_("This round no longer exists."))
                return
            counts = class_rounds().counts(view.code, step_index)
            revealed = step_index in now.revealed
            class_distribution(step, counts, correct=revealed, teacher=True)
        drawn = view.state()  # as just read, or as last read where the store could not answer
        left, right = st.columns(2)
        if left.button(_("Reveal the answer to the class"), key=f"round_reveal_{step_index}",
                       disabled=drawn is None or step_index in drawn.revealed,
                       type="primary", width="stretch"):
            with store_trouble(_("The answer was not revealed.") + " "):
                class_rounds().reveal(view.code, view.key, step_index)
                st.rerun()  # the whole page: the answer and the figures show on the projector too
        if right.button(_("Next step for everyone →"), key=f"round_next_{step_index}", disabled=step_index + 1 >= total,
                        width="stretch"):
            with store_trouble(_("The class was not moved on.") + " "):
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


def follow_the_round(view: RoundView, step: Step, step_index: int, answered: bool, step_part: str = "") -> None:
    """A student's page in a round: it is rerun when the teacher reveals this step (the answer and figures
    appear) or moves the class on (:func:`moved_to` takes the page there). Before the reveal, an answered
    student is told to wait, and sees the class's distribution (without the answer) when the round shares it.

    The page is woken by the server process's watch (:func:`round_watch`), which looks at the round for all
    its students at once, and reruns only the part of the page that shows the change: for the reveal and the next
    step, the part that draws the step (``step_part``, a fragment's id; "" for the whole page); for the shared
    distribution, the waiting part alone (every ``SHARE_REFRESH`` seconds at most). Where the server cannot wake a
    session, the waiting part looks every ``STUDENT_REFRESH`` seconds itself."""
    drawn = view.state()
    if drawn is None:
        return
    waiting = answered and step_index not in drawn.revealed
    share, push = waiting and drawn.share, wake.available()

    def page(r: Round):  # what the page shows of the round
        return r.step, step_index in r.revealed

    def project(now: RoundNow):
        return page(now.round), _counts_key((now.counts or {}).get(step_index, {}) if share else None)

    def follow(counts: dict | None, waiting_part: str = "") -> None:  # wake this session when its view changes
        def part(now) -> str:  # the step's part for the reveal and the next step, the waiting part for the counts
            return step_part if now[0] != page(drawn) or not waiting_part else waiting_part

        round_watch().follow(insides.current_session(), wake.Subscription(view.code, project,
                                                                       (page(drawn), _counts_key(counts)), part))

    def waiting_part():
        with store_trouble(_("The round cannot be looked at now.") + " "):
            now = view.state(fresh=True)
            if now is None or page(now) != page(drawn):
                st.rerun(scope="app")
            if waiting:
                st.info(_("Your answer is in; wait for the discussion."), icon=":material/how_to_vote:")
            if share:
                seen = round_watch().latest(view.code, 2 * SHARE_REFRESH) if push else None
                counts = (seen.counts or {}).get(step_index, {}) if seen is not None and seen.counts is not None \
                    else class_rounds().counts(view.code, step_index)  # the counts the watch compares with
                class_distribution(step, counts, correct=False, teacher=False)
                if push:
                    follow(counts, insides.current_fragment())  # a rerun of this part alone follows on from here

    if not push:
        st.fragment(run_every=STUDENT_REFRESH)(waiting_part)()
    elif share:
        st.fragment(waiting_part)()
    else:
        if waiting:
            st.info(_("Your answer is in; wait for the discussion."), icon=":material/how_to_vote:")
        follow(None)


def _qr_png(text: str) -> bytes:
    import io

    import segno

    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=8, border=2)
    return buffer.getvalue()


def _qr_image(text: str) -> str:
    """The QR code of ``text`` as an ``<img>`` whose text alternative says what it is and where it leads (a screen
    reader reads the link itself from the code block beside it); its image made once per server for this text
    (about 12 ms each: the teacher's page is rerun at each of their clicks)."""
    import base64

    data = shared.value("round_qr", text, lambda: base64.b64encode(_qr_png(text)).decode())
    alt = html.escape(_("QR code of the students' link, {link}").format(link=text), quote=True)
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
        return base, _("This page is open at {host}, the teacher's own machine: the students' link and its QR code "
                       "will not open on their devices. Open this page at the address students reach the server by "
                       "(e.g. http://<this machine's address>:8501), or start the server with "
                       "MVLAB_PUBLIC_URL=<that address>.").format(host=host)
    return base, None


def teacher_panel(lesson: Lesson, view: RoundView | None, student_query, teacher_query, on_start,
                  step_index: int = 0) -> None:
    """Teacher mode: start a round of this lesson, or the running round's students' link (and its QR code), its
    downloads, renaming and deleting; ``student_query(code)`` / ``teacher_query(code, key)`` give the addresses'
    queries, ``on_start(code)`` moves this page into the new round. The teacher key is kept in this browser
    (:func:`mvlab.ui.identity.keep_teacher_key`), never drawn: only a downloaded file carries a link with it."""
    with store_trouble(_("The class round's panel cannot reach the store.") + " "):
        _teacher_panel(lesson, view, student_query, teacher_query, on_start, step_index)


def _teacher_panel(lesson: Lesson, view: RoundView | None, student_query, teacher_query, on_start,
                   step_index: int) -> None:
    # one key per round and one `expanded` for its life: an expander without a key is identified by its arguments, so
    # the run after the start (expanded False then) made a new one, folded, under the teacher's eyes (issue #72 item
    # 5); now it opens when the round starts and stays as the teacher leaves it
    code = view.code if view is not None and view.teacher else None
    with st.expander(_("Class round: the room's answers, live") + (
            " (" + _("round {code}").format(code=code) + ")" if code else ""), expanded=True,
                     key=f"round_panel_{code or 'none'}"):
        if view is None or not view.teacher:
            share = st.checkbox(_("Students who answered see the class's distribution before the reveal"),
                                key="round_share", help=_("For peer discussion; the right answer stays hidden."))
            if st.button(_("Start a class round"), key="round_start", type="primary"):
                rounds = class_rounds()
                started = rounds.start(lesson.id, share=share, step=step_index)
                identity.keep_teacher_key(started.round.code, started.key, rounds.retention_days)
                on_start(started.round.code)
                st.rerun()
            return
        try:
            base, note = students_base(st.context.url, os.environ.get("MVLAB_PUBLIC_URL"))
        except ValueError as exc:
            st.error(str(exc))
            return
        if note:
            st.warning(note, icon=":material/wifi_off:")
        students = f"{base}/lessons?{student_query(view.code)}"
        c1, c2 = st.columns([3, 1])
        c1.markdown(_("**Round {code}**. Students open:").format(code=view.code))
        c1.code(students, language=None)
        c1.caption(_("You control this round from this browser (a reload or a new tab too). To control it from "
                     "another device, download its teacher link there, away from the projector: whoever has that "
                     "link can reveal, move the class on and delete the round."))
        # the file's text (a few hundred bytes, the same at every run: one stable address), not a function called on
        # the click: Streamlit gives a deferred download a new id at every run and forgets the last one's once that
        # run ends, so a click just as a run of the opening teacher page ended fetched nothing (twice in full suites:
        # the browser test waited 30 s for a download that never came; not reproduced alone)
        c1.download_button(_("Teacher link for another device (a file)"), key="round_teacher_link",
                           data=_teacher_link_file(base, view.code, teacher_query(view.code, view.key)),
                           file_name=f"round-{view.code}-teacher-link.html", mime="text/html",
                           icon=":material/key:")
        c2.html(_qr_image(students))
        c2.caption(_("the students' link"))
        _after_class(lesson, view)


def _teacher_link_file(base: str, code: str, query: str) -> str:
    """A small HTML file whose link opens round ``code`` as its teacher (``query`` carries the key; the page takes
    it out of the address at once)."""
    link = html.escape(f"{base}/lessons?{query}", quote=True)
    return (f"<!doctype html><meta charset='utf-8'><title>Teacher link of round {code}</title>"
            f"<p>Open <a href=\"{link}\">round {code} as its teacher</a> on the device you will control the round "
            "from. Keep this file to yourself: the link carries the round's teacher key.</p>")


def _after_class(lesson: Lesson, view: RoundView) -> None:
    """Downloads of the round (answers counted, per-answer rows without identity, a one-page summary), and
    renaming or deleting it."""
    rounds = class_rounds()
    current = view.state()
    totals, per_answer = rounds.export_csv(view.code, view.key)
    correct = {i: s.question.answer for i, s in enumerate(lesson.steps)}
    summary = rounds.summary(view.code, view.key, correct)
    d1, d2, d3 = st.columns(3)
    d1.download_button(_("Answers per choice (CSV)"), totals, file_name=f"round-{view.code}-counts.csv",
                       mime="text/csv", key="round_csv_counts")
    d2.download_button(_("One row per answer (CSV)"), per_answer,
                       file_name=f"round-{view.code}-answers.csv", mime="text/csv", key="round_csv_answers")
    d3.download_button(_("Summary (HTML)"), _summary_html(lesson, current, summary),
                       file_name=f"round-{view.code}.html",
                       mime="text/html", key="round_summary")
    r1, r2, r3 = st.columns([3, 1, 1])
    name = r1.text_input(_("Name of the round"), value=current.name if current else "", key=f"round_name_{view.code}")
    if r2.button(_("Rename"), key="round_rename") and name:
        _guard(lambda: rounds.rename(view.code, view.key, name))
    if r3.button(_("Delete the round"), key="round_delete"):
        _guard(lambda: rounds.delete(view.code, view.key))
        st.session_state.pop("_round_code", None)
        st.rerun()


def _guard(action) -> None:
    """A teacher's action, its refusal said in words (a round's refusal, a value the store cannot hold)."""
    try:
        action()
    except ValueError as exc:
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
