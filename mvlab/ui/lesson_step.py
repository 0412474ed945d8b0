"""The Lessons page's glue: where the lesson and step come from (the address, so a step has its own
link and a reload stays there), the predict-first question, teacher mode, and the step's figures,
computed on the job engine once per server and shared by every session that opens the step."""

from __future__ import annotations

import html
import logging
import threading
from contextlib import nullcontext

import plotly.graph_objects as go
import streamlit as st

from mvlab.core.memo import Memo
from mvlab.i18n import N_, _, current_language, format_list, language_name, use_language
from mvlab.lessons import LESSONS, Lesson, Step, StepContext, StepRun
from mvlab.lessons.added import find_lesson
from mvlab.lessons.handout import render_handout
from mvlab.store import StoreUnavailable
from mvlab.ui import class_round, identity, runs, shared, touch
from mvlab.ui import streamlit_insides as insides
from mvlab.ui.built_once import shared_chart, shared_markdown
from mvlab.ui.figure_text import figure_text, show_figure, text_alternative
from mvlab.ui.prose import markdown_literal
from mvlab.viz import palette
from mvlab.viz.frozen import freeze, without_drag

__all__ = ["ADDRESS_KEYS", "Place", "lesson_named", "in_readers_language", "place_from_address", "address_notes",
           "current_place",
           "publish_place", "round_panel", "teacher_style", "progress_html", "step_top", "Asked", "ask", "show_answer",
           "question", "off_the_class", "show_step", "student_step", "nav_state", "step_navigation", "stored_context",
           "step_result", "items_key", "step_items", "show_items", "prepare", "prepare_soon", "handout_button"]

TEACHER_FONT = 20
"""Font size (px) of figures in teacher mode (projector)."""


ADDRESS_KEYS = ("lesson", "step", "teacher", "round", "key")


class Place:
    """Where the reader is: a lesson id, a step number (1-based), teacher mode on or off, and the class round
    taken part in (its code). A teacher key is never part of a place: a link that carries one (``key=``) is read
    once by :func:`mvlab.ui.class_round.join` and leaves the address when the place is published."""

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


def lesson_named(lesson_id: str) -> Lesson | None:
    """The built-in lesson ``lesson_id``, else the one added to this server's results store, else None (a store that
    cannot answer now: :class:`~mvlab.store.StoreUnavailable`)."""
    if lesson_id in LESSONS:
        return LESSONS[lesson_id]
    try:
        return find_lesson(lesson_id, runs.results_store().location)
    except StoreUnavailable:
        raise
    except ValueError:
        return None


def in_readers_language(lesson: Lesson) -> Lesson:
    """``lesson`` as this session's reader reads it (:meth:`~mvlab.lessons.model.Lesson.in_language`), and, where
    the lesson lacks the reader's language or has others, a line saying in which languages it is written."""
    code = current_language()
    shown = lesson.in_language(code)
    if code not in lesson.languages:
        st.caption(_("This lesson is written in {languages}; it is shown in {language}.").format(
            languages=format_list(language_name(c) for c in lesson.languages), language=language_name(lesson.language)))
    elif len(lesson.languages) > 1:
        st.caption(_("This lesson is written in {languages}.").format(
            languages=format_list(language_name(c) for c in lesson.languages)))
    return shown


def _read_address(notes: list[str]) -> Place:
    q = st.query_params
    lesson = q.get("lesson", next(iter(LESSONS)))
    found = lesson_named(lesson)
    if found is None:
        notes.append(_("There is no lesson '{lesson}'; the lessons are {lessons} and those added to this server. "
                       "Showing the first.").format(lesson=markdown_literal(lesson[:40]), lessons=", ".join(LESSONS)))
        lesson, found = next(iter(LESSONS)), LESSONS[next(iter(LESSONS))]
    total = len(found.steps)
    raw = q.get("step", "1")
    step = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else 0
    if not 1 <= step <= total:
        notes.append(_("'step={step}' is not a step of this lesson (1 to {total}); showing step 1.").format(
            step=markdown_literal(raw[:40]), total=total))
        step = 1
    teacher = q.get("teacher", "0").lower() in ("1", "true", "yes", "on")
    return Place(lesson, step, teacher, q.get("round") or None)


def place_from_address() -> tuple[Place, list[str]]:
    """The place in the address when it changed since this session last wrote or read it (a link, a
    reload, the browser's back button), else the session's own (which may be ahead of the address: a student's step
    moved by the teacher, :func:`publish_place` with ``address=False``); with notes on ignored values (Markdown, the
    values written as text: :func:`mvlab.ui.prose.markdown_literal`)."""
    notes: list[str] = []
    address = {k: st.query_params.get(k) for k in ADDRESS_KEYS if k in st.query_params}
    mine = st.session_state.get("_lesson_place")
    if mine is None or address != st.session_state.get("_lesson_address", mine.query()):
        st.session_state["_lesson_place"] = _read_address(notes)
        st.session_state["_lesson_address"] = address
    return st.session_state["_lesson_place"], notes


def address_notes(place: Place, notes: list[str]) -> list[str]:
    """The notes on a link's values (:func:`place_from_address`, a round's :func:`mvlab.ui.class_round.join`), kept for
    the step they were made at: the page's later runs there (its address already rewritten, so nothing is read from
    it again: the run after a page switch, a widget's) keep showing them, and a move to another step or lesson drops
    them. Before, they showed for an instant and went with the next run."""
    where = (place.lesson, place.step, place.teacher)
    if notes:
        st.session_state["_address_notes"] = (where, list(notes))
        return notes
    kept = st.session_state.get("_address_notes")
    return list(kept[1]) if kept is not None and kept[0] == where else []


def current_place() -> Place:
    """The place this session shows (:func:`place_from_address` read it, :func:`publish_place` changed it)."""
    return st.session_state["_lesson_place"]


def publish_place(place: Place, address: bool = True) -> None:
    """Write the place into the session and, with ``address``, into the address (a reload or a shared link comes
    back here); the address is written only when it says something else (each write is a message to the browser).
    ``address`` False (a student's step moved by the teacher, in the part the watch reruns alone: one message fewer
    for each of a woken class, issue #53 item 10): the session goes there and the address follows at the page's next
    whole run; a reload meanwhile opens the round's step anyway (:func:`mvlab.ui.class_round.moved_to`)."""
    st.session_state["_lesson_place"] = place
    if not address:
        return
    wanted = place.query()
    st.session_state["_lesson_address"] = wanted
    if {k: st.query_params.get_all(k) for k in ADDRESS_KEYS if k in st.query_params} == \
            {k: [v] for k, v in wanted.items()}:
        return
    for key in ADDRESS_KEYS:
        if key not in place.query() and key in st.query_params:
            del st.query_params[key]
    st.query_params.update(wanted)


def round_panel(lesson: Lesson, place: Place, view) -> None:
    """Teacher mode's class-round panel (:func:`mvlab.ui.class_round.teacher_panel`) with this step's links: the
    students' (the round's code) and, only in a file to download, the teacher's own (also its key)."""
    class_round.teacher_panel(
        lesson, view,
        student_query=lambda code: Place(lesson.id, place.step, False, code).address(),
        teacher_query=lambda code, key: Place(lesson.id, place.step, True, code).address() + identity.key_fragment(key),
        on_start=lambda code: publish_place(Place(lesson.id, place.step, True, code)), step_index=place.step - 1)


def teacher_style() -> None:
    """Teacher mode: larger text, no sidebar (the projector shows the lesson alone)."""
    st.markdown(
        "<style>[data-testid='stSidebar'], [data-testid='stSidebarCollapsedControl'] {display: none;} "
        "[data-testid='stMarkdownContainer'] p, [data-testid='stMarkdownContainer'] li, label p "
        "{font-size: 1.3rem !important; line-height: 1.5;} h1 {font-size: 2.6rem !important;}</style>",
        unsafe_allow_html=True)


def progress_html(number: int, total: int, label: str) -> str:
    """Step ``number`` of ``total`` as one line of HTML: ``label`` (escaped) over a ``<progress>`` bar named by it
    (its colour the palette's blue), for the top of a step (:func:`step_top`)."""
    said = html.escape(label)
    return (f"<p style='margin-bottom:0.3rem'>{said}</p><progress value='{number}' max='{total}' "
            f"aria-label='{said}' style='width:100%;height:0.5rem;accent-color:{palette.BLUE}'></progress>")


def step_top(lesson: Lesson, place: Place, view=None, then: str = "") -> None:
    """The step's progress (:func:`progress_html`), title (a level-2 heading) and text, ending with its question's
    prompt, then ``then`` (Markdown: a closed question's answer, :func:`answer_markdown`): one element, not three or
    four (a class woken to the next step or to the reveal is sent it once per student, issue #53 item 10), built once
    per process for each text (:func:`mvlab.ui.built_once.shared_markdown`)."""
    step, total = lesson.step(place.step), len(lesson.steps)
    if place.step == 1 and not place.teacher:
        st.caption(lesson.summary)
    label = _("Step {step} of {total}").format(step=place.step, total=total) + (
        " · " + _("class round {code}").format(code=view.code) if view is not None else "")
    shared_markdown(f"{progress_html(place.step, total, label)}\n\n## {step.title}\n\n{step.text}\n\n"
                    + _("**Predict first:** {prompt}").format(prompt=step.question.prompt)
                    + (f"\n\n{then}" if then else ""),
                    unsafe_allow_html=True)  # alike for a class: its element built once (few texts per step)


class Asked:
    """What :func:`ask` drew: whether the answer is shown (``revealed``), the reader's checked choice (or None),
    whether a *Send*/*Reveal* button was drawn (``sendable``: it goes when the answer is shown)."""

    def __init__(self, revealed: bool, chosen: int | None, sendable: bool):
        self.revealed, self.chosen, self.sendable = revealed, chosen, sendable


def ask(step: Step, key: str, teacher: bool, view=None, step_index: int = 0, look_up: bool = True) -> Asked:
    """The predict-first question's choices (its prompt ends :func:`step_top`) and the button that sends or reveals.

    Alone: the reader reveals it (teacher mode: shown at once). In a class round (``view``, a
    :class:`mvlab.ui.class_round.RoundView`): a student sends their answer, shown as sent only once the store has
    confirmed it (``{key}_revealed``; a failure is said and the answer can be sent again), a change of mind before
    the reveal is sent the same way and replaces it, and a student who reloads or opens another tab finds the
    answer their browser sent; the answer shows when the teacher reveals it to the class, for the teacher too. A
    choice that is not one of the question's (a value a browser made up) is refused in words. Once the answer is
    revealed, a student's question is closed: its choices are not drawn (a woken class is sent one widget fewer
    each) and what the student sent stands, shown by :func:`show_answer`. A student's *Send* is drawn once a choice is
    made (not disabled before it: one widget fewer for a woken class).

    ``look_up`` False (a student's page the teacher just moved to this step): what this browser sent on the step is
    not asked of the store (the class moved at once would each ask it); the session's own answer is still shown, and
    an answer another tab of the browser sent ahead of the class shows as unsent here (sent again, it replaces
    itself: counted once)."""
    q = step.question
    letters = _letters(step)
    student = view is not None and not view.teacher
    sent, confirmed_key = f"{key}_revealed", f"{key}_sent"
    if student and (closed := closed_question(key, view, step_index, look_up)) is not None:
        return closed  # what the student sent stands, no choices are drawn
    if student and (elsewhere := off_the_class(view, step_index)) is not None:
        st.info(elsewhere)
        return Asked(False, None, False)  # nothing to send here: the store would refuse it

    def send():
        choice = class_round.checked_choice(st.session_state.get(f"{key}_choice"), len(q.choices))
        if not student:
            st.session_state[sent] = choice is not None
        elif class_round.record(view, step_index, choice, len(q.choices)):
            st.session_state[sent], st.session_state[confirmed_key] = True, choice

    chosen = st.radio(q.prompt, range(len(q.choices)), index=None, key=f"{key}_choice", label_visibility="collapsed",
                      format_func=lambda i: letters[i] if isinstance(i, int) and 0 <= i < len(letters) else str(i),
                      disabled=view is not None and view.teacher)
    chosen = class_round.checked_choice(chosen, len(q.choices))
    revealed = (teacher or st.session_state.get(sent, False)) if view is None else step_index in _revealed(view)
    confirmed = st.session_state.get(confirmed_key)
    unsent = not st.session_state.get(sent) or (student and chosen is not None and chosen != confirmed)
    # a student's Send appears once a choice is made: a class woken to a next step is sent one widget fewer each
    # (issue #53 item 10); alone, the reader's Reveal is there from the start, disabled, saying to choose first
    sendable = not revealed and (view is None or student) and unsent and (chosen is not None or not student)
    if sendable:
        label = (_("Reveal the answer") if not student else _("Send my answer") if confirmed is None
                 else _("Send my new answer"))
        st.button(label, key=f"{key}_reveal", disabled=chosen is None, on_click=send,
                  help=_("Choose an answer first: predicting before you see is the point."))
    refused = st.session_state.pop("_round_refused", None)
    if refused:
        st.error(refused)
    return Asked(revealed, chosen, sendable)


def off_the_class(view, step_index: int) -> str | None:
    """Where a round's student is on a step the class is not on (gone ahead, or back to a step the teacher did not
    reveal): what to say instead of the question's choices (an answer counts only for the class's step, and the
    store refuses one elsewhere); None on the class's step, or while the round cannot be read."""
    state = view.state()
    if state is None or state.step == step_index:
        return None
    return _("The class is on step {step}: answers count only there. This step's question opens for you when your "
             "teacher brings the class here; until then, read it and think about your answer.").format(
        step=state.step + 1)


def closed_question(key: str, view, step_index: int, look_up: bool = True) -> Asked | None:
    """A round student's question (keys ``{key}_…``) once the teacher has revealed its answer: what the student sent
    (None: nothing), or None while the question is open. What this browser sent on the step is first taken from the
    store, once per session (a reload, a tab), unless ``look_up`` is False (:func:`ask`)."""
    sent, confirmed_key = f"{key}_revealed", f"{key}_sent"
    if confirmed_key not in st.session_state:
        before = class_round.sent_before(view, step_index) if look_up else None
        st.session_state[confirmed_key] = before
        if before is not None:
            st.session_state[f"{key}_choice"], st.session_state[sent] = before, True
    if step_index not in _revealed(view):
        return None
    return Asked(True, st.session_state.get(confirmed_key), False)


def _revealed(view) -> frozenset | set:
    """The steps whose answer the round has shown (none while the round cannot be read)."""
    state = view.state()
    return frozenset() if state is None else state.revealed


def _letters(step: Step) -> list[str]:
    return [f"({chr(97 + i)}) {c}" for i, c in enumerate(step.question.choices)]


ANSWER_BOX = ("<div role='note' aria-label='{label}' style='background:rgba(33,195,84,0.12);color:#0f4a24;"
              "border-radius:0.5rem;padding:0.9rem 1rem 0.1rem;margin-bottom:1rem'>")
"""The answer's box: the green of Streamlit's success message, its text at about 8:1 (WCAG AA asks 4.5:1); its name
for a screen reader in the reader's language (:func:`answer_box`)."""


def answer_box() -> str:
    """:data:`ANSWER_BOX` named in the reader's language."""
    return ANSWER_BOX.format(label=html.escape(_("The answer"), quote=True))


def show_answer(step: Step, chosen: int | None, view=None, below: str = "") -> None:
    """The question's answer (:func:`answer_markdown`) as one element."""
    st.markdown(answer_markdown(step, chosen, view, below), unsafe_allow_html=True)


def answer_markdown(step: Step, chosen: int | None, view=None, below: str = "") -> str:
    """The question's answer and why, with the reader's own verdict (not the teacher's of a round), then what to
    notice in the step's figures and the common mistake, and ``below`` (HTML: the class's answers, on a student's
    page in a round), in a green box (Markdown with HTML; a class woken to the reveal is sent it once per student,
    in the element of the step's top: :func:`student_step`)."""
    q = step.question
    if view is not None and view.teacher:
        verdict = ""
    elif chosen is None:
        verdict = "" if view is None else _("You sent no answer.") + " "
    else:
        verdict = (_("You were right.") if chosen == q.answer else _("You chose ({letter}).").format(
            letter=chr(97 + chosen))) + " "
    answer = _("**Answer: {answer}.**").format(answer=_letters(step)[q.answer])
    return (f"{answer_box()}\n\n:material/lightbulb: {verdict}{answer} {q.why}"
            f"\n\n{_notes(step)}\n\n{below}\n\n</div>")


def _notes(step: Step) -> str:
    return (":material/visibility: " + _("**What to notice.**") + f" {step.notice}\n\n"
            ":material/error: " + _("**A common mistake.**") + f" {step.mistake}")


def question(step: Step, key: str, teacher: bool, view=None, step_index: int = 0) -> bool:
    """The predict-first question (:func:`ask`) and, once it is shown, its answer (:func:`show_answer`); returns
    True once the answer is shown."""
    asked = ask(step, key, teacher, view, step_index)
    if asked.revealed:
        show_answer(step, asked.chosen, view)
    return asked.revealed


HIDDEN_BY_A_ROUND = N_("A class round of this lesson is running: this step's answer and figures show here once the "
                       "teacher has revealed them to the class (a teacher opens the round from their own link).")
"""What a reader alone, or teacher mode without the round's key, sees on a step that a running round has not
revealed (:func:`mvlab.ui.class_round.hidden_steps`)."""


def show_step(lesson: Lesson, place: Place, view=None) -> None:
    """A step for a reader alone or the teacher (teacher mode; in a class round, the room's answers live and the
    class's next step prepared): :func:`step_top`, the question, and the step's figures once the answer is shown."""
    step = lesson.step(place.step)
    step_top(lesson, place, view)
    key = f"lesson_{lesson.id}_{place.step}"
    if view is None and place.step - 1 in class_round.hidden_steps(lesson.id):
        st.info(_(HIDDEN_BY_A_ROUND))  # no choices to reveal, no answer, no figures: a round of this lesson is on
        return
    answered = question(step, key, place.teacher, view, place.step - 1)
    if view is not None:
        class_round.live_answers(view, step, place.step - 1, len(lesson.steps),
                            on_next=lambda: publish_place(place.moved(place.step + 1)))
        prepare(lesson, place.step)  # this step's figures, ready before the teacher reveals its answer
        prepare(lesson, place.step + 1)  # the class's next step, ready before the teacher moves everyone there
    ctx = step_result(step.run, f"lesson_run_{lesson.id}", place.step)
    if ctx is None:
        return
    if answered:
        _figures(lesson, place, step, ctx, key)
    elif view is None:
        st.info(_("Make your prediction above, then reveal the answer to see the figures."))


def _figures(lesson: Lesson, place: Place, step: Step, ctx: StepContext, key: str) -> None:
    try:
        items = step_items(step, ctx, items_key(lesson, place.step, step, ctx))
    except ValueError as exc:  # a teacher's lesson asks a figure of what its result does not hold (a row past it)
        st.error(_("This step's figures cannot be drawn on its result: {error} Tell the lesson's author (python -m "
                   "mvlab lesson check FILE --compute shows it).").format(error=markdown_literal(str(exc))))
        return
    show_items(items, step, key, place.teacher)


def nav_state(lesson: Lesson, place: Place) -> tuple[bool, bool]:
    """Whether *Back* and *Next* are disabled at this place (the first and the last step)."""
    return place.step == 1, place.step == len(lesson.steps)


def student_step(lesson: Lesson, view) -> None:
    """A student's step in a class round, drawn as a fragment that the server's watch reruns alone for the reveal
    and the next step (:func:`mvlab.ui.class_round.follow_the_round`): the page's navigation, sidebar and setup stay as
    they are, except where the *Back*/*Next* buttons below it change (the first and the last step: then the whole
    page). The student's own choosing and sending rerun this part too. A rerun of this part alone takes the round
    from the server process's watch, not the store, and does not ask the store what this browser sent on a step the
    teacher just moved the class to (:func:`ask`)."""
    drawn_nav = nav_state(lesson, current_place())
    first = [True]  # the page's own run: the round as join() read it; a rerun of this part alone looks again

    def step_part():
        place, moved = current_place(), None
        if not first[0]:
            now = view.looked_again()  # as last drawn while the store cannot answer
            if now is None:
                st.rerun(scope="app")  # the round is gone (deleted, expired): the whole page says so
            moved = class_round.moved_to(view, now)
            if moved is not None:
                place = place.moved(moved + 1)  # the teacher moved the class on: this part goes there
                publish_place(place, address=False)
                for number in (place.step, place.step + 1):  # ready for their reveals, built after this burst
                    prepare_soon(lesson, number, delay=PREPARE_AFTER_MOVE_S)
                if nav_state(lesson, place) != drawn_nav:
                    st.rerun(scope="app")
        else:
            for number in (place.step, place.step + 1):  # this process's students' reveals find them ready
                prepare_soon(lesson, number)
        first[0] = False
        step = lesson.step(place.step)
        key = f"lesson_{lesson.id}_{place.step}"
        asked, lone = closed_question(key, view, place.step - 1, look_up=moved is None), None
        if asked is not None:  # the step's top, the answer, its notes, the class's answers, the figure's text: one
            lone = _lone_figure(lesson, place, step)
            bars = class_round.revealed_bars(view, step, place.step - 1)
            step_top(lesson, place, view, then=answer_markdown(step, asked.chosen, view, bars) + _text_of(lone, step))
        else:
            step_top(lesson, place, view)
            asked = ask(step, key, False, view, place.step - 1, look_up=moved is None)
        class_round.follow_the_round(view, step, place.step - 1, st.session_state.get(f"{key}_revealed", False),
                                step_part=insides.current_fragment())
        if not asked.revealed:
            return
        if lone is not None:  # its text went above it, and names it for a screen reader
            shared_chart(lone, key=f"{key}_fig0", alt=figure_text(lone)[0])
        elif (ctx := step_result(step.run, f"lesson_run_{lesson.id}", place.step)) is not None:
            _figures(lesson, place, step, ctx, key)
        if place.step == len(lesson.steps):  # the last step's answer is shown: the lesson is over
            handout_button(lesson)

    st.fragment(step_part)()


def _lone_figure(lesson: Lesson, place: Place, step: Step) -> go.Figure | None:
    """The step's figure as this screen takes it, when the step shows one figure alone and its result is stored
    (a revealed step in a class round: :func:`student_step` draws its text with the answer), else None."""
    ctx = stored_context(step.run)
    try:
        items = [] if ctx is None else step_items(step, ctx, items_key(lesson, place.step, step, ctx))
    except ValueError:
        return None  # the step's figures cannot be drawn: _figures says so where they would be
    return touch.for_this_screen(items[0]) if len(items) == 1 and isinstance(items[0], go.Figure) else None


def _text_of(figure: go.Figure | None, step: Step) -> str:
    """The text alternative of a revealed step's lone figure (:func:`mvlab.ui.figure_text.text_alternative`, with
    the step's caption), in caption type, for the element above the figure: a class woken to the reveal is sent one
    element fewer each (issue #53 item 10); the chart itself is named by the sentence. "" for no figure."""
    if figure is None:
        return ""
    caption = step.captions[0] if step.captions else ""
    return f"\n\n<div style='font-size:0.875rem'>\n\n{text_alternative(figure, caption)}\n\n</div>"


def step_navigation(lesson: Lesson, place: Place, link: bool = True) -> None:
    """*Back* and *Next* (a step of the reader's own), and the link to this step (``link``)."""
    back, middle, forward = st.columns([1, 3, 1])
    first, last = nav_state(lesson, place)
    if back.button(_("← Back"), disabled=first, key="lesson_back", width="stretch"):
        publish_place(current_place().moved(current_place().step - 1))
        st.rerun()
    if forward.button(_("Next →"), disabled=last, key="lesson_next", type="primary", width="stretch"):
        publish_place(current_place().moved(current_place().step + 1))
        st.rerun()
    if link:
        middle.caption(_("Link to this step: `?{address}` (add it to the page's address; students who reload stay on "
                         "their step).").format(address=Place(lesson.id, place.step, place.teacher,
                                                               place.round).address()))


def _data(run: StepRun):
    """The run's data, built once per server (the synthetic sets are generated, not loaded)."""
    return shared.value("lesson_data", _once("data", run, lambda: [run.dataset, run.settings.kind,
                                                                   run.settings.key()]), run.data)


class _NotStored(Exception):
    """A step's run has no stored result yet: nothing is kept, the next reader looks again."""


_ONCE = Memo(None)
"""A lesson step's keys and data by step run (the lessons' runs are few and live as long as the process)."""


def _once(kind: str, run: StepRun, compute):
    """``compute()`` once per process for a lesson's step run ``run`` (the lessons' own objects, which live as long
    as the process, with settings that never change): a step's keys, worked out anew from its settings at each
    woken run of each student before (about 0.2 ms each under a class's load, issue #53 item 10)."""
    key = (kind, id(run))  # by identity: hashing a run's settings costs what this saves
    found = _ONCE.get(key, lambda: (run, compute()))
    if found[0] is not run:  # another run at a dead one's address
        _ONCE.forget(key)
        found = _ONCE.get(key, lambda: (run, compute()))
    return found[1]


def _result_key(step: Step, ctx: StepContext) -> str:
    """The identity of a step's result (:func:`mvlab.ui.runs.result_key`), once per process: a step's context is
    always its run's own settings and data."""
    return _once("result", step.run, lambda: runs.result_key(ctx.settings, ctx.data))


def stored_context(run: StepRun) -> StepContext | None:
    """The run's stored result with its data, looked up once per server (the class shown a step shares one look at
    the store instead of one per student), or None while the store has none (looked for again at the next call)."""

    def read() -> StepContext:
        data = _data(run)
        result = runs.lookup(run.settings, data, run.result_type)
        if result is None:
            raise _NotStored
        return StepContext(result, data, run.settings)

    try:
        return shared.value("lesson_stored", _once("stored", run, lambda: [
            run.dataset, run.settings.kind, run.settings.key(), run.result_type.__name__]), read)
    except _NotStored:
        return None


def step_result(run: StepRun, key: str, number: int):
    """The run's result: stored already (:func:`stored_context`), or computed now on the job engine for this
    session (shared with every session opening the same step)."""
    ctx = stored_context(run)
    if ctx is not None:
        return ctx
    data = _data(run)
    result = runs.train_button(run.settings, data, key, label=_("Computing step {n}").format(n=number), auto=True,
                               button=N_("Compute this step"))
    return None if result is None else StepContext(result, data, run.settings)


def items_key(lesson: Lesson, number: int, step: Step, ctx: StepContext) -> list:
    """The key a step's figures are built once under (:func:`step_items`): the lesson, its version (a changed
    lesson file builds them anew), the language its texts are read in (its figures' titles may be given per
    language) and the reader's (the figures' own words: an English lesson read in German has German axes), the
    step and its result."""
    return [lesson.id, lesson.version, lesson.language, current_language(), number, _result_key(step, ctx)]


def step_items(step: Step, ctx: StepContext, key) -> list:
    """The step's figures and tables, built once per server for this step and result (a class that opens
    the step shares them), figures frozen (their wire form encoded once: :mod:`mvlab.viz.frozen`)."""
    return shared.value("lesson_step", key, lambda: [freeze(item) if isinstance(item, go.Figure) else item
                                                     for item in step.items(ctx)])


def prepare(lesson: Lesson, number: int) -> bool:
    """Read step ``number``'s stored result and build its figures and their text alternatives now (for a touch
    screen's variant too), once per server, so that a class moved there (a round's *next step for everyone*) or
    shown its answer finds them ready instead of waiting on the first reader. Returns whether they are ready (False:
    no such step, or the store holds no result for it yet)."""
    if not 1 <= number <= len(lesson.steps):
        return False
    step = lesson.step(number)
    ctx = stored_context(step.run)
    if ctx is None:
        return False
    for item in step_items(step, ctx, items_key(lesson, number, step, ctx)):
        if isinstance(item, go.Figure):
            figure_text(item)
            figure_text(without_drag(item))
    return True


PREPARE_AFTER_MOVE_S = 2.0
"""Seconds after a class is moved to a step before a server process of its students builds that step's figures
(:func:`prepare_soon`): the move's own burst of woken reruns is over by then."""

_PREPARED: set[tuple[str, int]] = set()
_PREPARING = threading.Lock()
_log = logging.getLogger(__name__)
PREPARE_THREAD = "mvlab: a lesson step prepared"
"""The name of :func:`prepare_soon`'s threads."""


class _NoScriptByDesign(logging.Filter):
    """Drops Streamlit's "missing ScriptRunContext" warning for :func:`prepare_soon`'s threads alone: they run no
    script by design (the cached loaders they call draw nothing off a script run), and the warning, three lines per
    step, said otherwise in the server's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.threadName != PREPARE_THREAD


_STREAMLIT_CONTEXT_LOG = logging.getLogger(insides.SCRIPT_RUN_LOG)
if not any(isinstance(f, _NoScriptByDesign) for f in _STREAMLIT_CONTEXT_LOG.filters):
    _STREAMLIT_CONTEXT_LOG.addFilter(_NoScriptByDesign())


def prepare_soon(lesson: Lesson, number: int, delay: float = 0.0) -> None:
    """:func:`prepare` step ``number`` on a thread of its own after ``delay`` seconds, once per process.

    The teacher's page prepares the class's steps in its own server process only; with several processes
    (``mvlab serve --processes``), the first student of another process shown the reveal built the step's figures
    inside the class's burst of woken reruns (86 ms, 0.5 ms for each of 150 students woken there, issue #53 item
    10). A student's page asks for it when it opens (its step and the next) and when the class is moved (the step
    moved to and the next, ``delay`` later): off the student's own run, and off the burst. A step whose result
    is not stored yet, or whose store cannot answer now, is tried again at the next call. The figures are built in
    the asking reader's language (``lesson`` as they read it): a class in five languages has each built once per
    language, by the first of its students to ask, off the burst."""
    if not 1 <= number <= len(lesson.steps):
        return
    language = current_language()  # the thread that builds has no session: it is told the reader's
    done = (lesson.id, lesson.version, number, lesson.language, language)
    with _PREPARING:
        if done in _PREPARED:
            return
        _PREPARED.add(done)

    def build() -> None:
        ready = False
        try:
            with use_language(language):
                ready = prepare(lesson, number)
        except Exception as exc:  # a store that cannot answer now: the reveal reads it then, and says so
            _log.info("step %s of lesson %s not prepared: %s", number, lesson.id, exc)
        finally:
            if not ready:
                with _PREPARING:
                    _PREPARED.discard(done)

    timer = threading.Timer(delay, build)
    timer.name, timer.daemon = PREPARE_THREAD, True
    timer.start()


def _larger(fig: go.Figure) -> go.Figure:
    fig = go.Figure(fig)  # a copy: the shared figure is never changed in place
    fig.update_layout(font_size=TEACHER_FONT, title_font_size=TEACHER_FONT + 4,
                      height=(fig.layout.height or 450) * 1.25)
    return fig


def show_items(items: list, step: Step, key: str, teacher: bool) -> None:
    """The step's figures and tables, in order, with their captions, in the rows of ``step.layout`` (a row of one
    drawn in place: no container of its own, one element less to send to each of a class)."""
    i = 0
    for width in step.rows(len(items)):
        for column in st.columns(width) if width > 1 else [None]:
            with column if column is not None else nullcontext():
                item, caption = items[i], step.captions[i] if i < len(step.captions) else ""
                if isinstance(item, go.Figure):  # the caption joins the figure's text: one element
                    show_figure(st, _larger(item) if teacher else touch.for_this_screen(item), key=f"{key}_fig{i}",
                                caption=caption)
                else:
                    st.dataframe(item, hide_index=True, width="stretch")
                    if caption:
                        st.caption(caption)
            i += 1


def handout_button(lesson: Lesson) -> None:
    """The handout of the lesson as a download, once every run of the lesson is stored. It holds every step's
    answer: a student in a class round is offered it only once the last step's answer is shown
    (:func:`student_step`), not before predicting (and a waiting student's page holds no download, which each run of
    the server's other sessions would look through: issue #53 item 10); to no one while a class round of the lesson
    has a step it has not revealed (:func:`mvlab.ui.class_round.hidden_steps`, issue #71 item 3)."""
    hidden = class_round.hidden_steps(lesson.id)
    if any(i in hidden for i in range(len(lesson.steps))):
        st.caption(_("The handout holds every answer: it can be downloaded once the class round of this lesson that "
                     "is running has revealed them all."))
        return
    contexts = {run: stored_context(run) for run in lesson.runs()}
    missing = [n for n, step in enumerate(lesson.steps, 1) if contexts[step.run] is None]
    if missing:
        st.caption(_("The handout can be downloaded once every step has been computed (steps {missing} are not yet: "
                     "open them, or run `python -m mvlab lesson {lesson} --warm` before class).").format(
            missing=format_list(map(str, missing)), lesson=lesson.id))
        return
    st.download_button(_("Download the handout (.html, works offline)"), lambda: render_handout(lesson, contexts),
                       file_name=f"mvlab-lesson-{lesson.id}.html", mime="text/html", key=f"handout_{lesson.id}")
