"""The Lessons page (pages/lessons.py declares it): a guided lesson one step at a time (predict, then see), for a
reader alone, on the projector (teacher mode) or in a class round, where every student predicts and the teacher sees
the room's answers live. The step's parts are :mod:`mvlab.ui.lesson_step`'; here is the page's order and its round."""

from __future__ import annotations

import streamlit as st

from mvlab.i18n import _, current_language
from mvlab.lessons import LESSONS
from mvlab.lessons.added import added_titles
from mvlab.ui import class_round, identity, lesson_editor, runs
from mvlab.ui import lesson_step as ui
from mvlab.ui.state import enter_through_app, plain_sidebar

__all__ = ["page", "joined", "chooser"]


def page() -> None:
    """The page: the place in the address, the round it names joined, the notes on the address's values, the lesson
    chooser (not for a student in a round: the teacher moves the class), the step, the navigation, the handout."""
    enter_through_app()  # a deep link to a fresh server goes through app.py with its address as given
    try:
        place, notes = ui.place_from_address()
    except class_round.StoreUnavailable as exc:  # an added lesson's store cannot answer: the address stays
        plain_sidebar(server=False)
        st.warning(f"{exc} " + _("Nothing is lost: this page looks again by itself."), icon=":material/cloud_off:")
        class_round.wait_for_the_store(st.query_params.get("round") or "")
        st.stop()
    view, place, round_notes = joined(place)
    student = view is not None and not view.teacher
    plain_sidebar(server=not student)
    for note in ui.address_notes(place, notes + round_notes):
        st.warning(note)  # Markdown: the address's values in them are written as text (markdown_literal)
    if place.teacher:
        ui.teacher_style()
        if place.round and view is not None and not view.teacher:  # a teacher link opened on another device
            identity.take_key_from_fragment(view.code, class_round.class_rounds().retention_days)
    st.title(_("Lessons"))
    if not student:
        chooser(place)
        if not place.teacher and st.toggle(_("Your own lesson: write one, check it, save it and teach it"),
                                           key="lesson_editor_open"):
            with st.container(border=True):  # drawn only when asked: a reader's page carries none of it
                lesson_editor.panel()
    lesson = ui.in_readers_language(ui.lesson_named(place.lesson))
    if place.teacher:
        ui.round_panel(lesson, place, view)
    if student:  # the parts the server's watch reruns alone for the reveal and the next step
        ui.student_step(lesson, view)
    else:
        ui.show_step(lesson, place, view)
    ui.step_navigation(lesson, place, link=not student)  # a student in a round has the round's link already
    ui.publish_place(place)
    if not place.teacher and not student:  # a student in a round gets it with the last step's answer
        ui.handout_button(lesson)
    identity.write_cookies()  # this browser's token and the teacher's key, kept for a reload, a tab, a restart


def joined(place: ui.Place) -> tuple[class_round.RoundView | None, ui.Place, list[str]]:
    """The class round the place names, joined (:func:`mvlab.ui.class_round.join`): ``(view, place, notes)``, the place
    moved to the round's step where the teacher moved the class, without the round where it is unknown or another
    lesson's. While the store cannot answer, the page says so, keeps the round in the address and stops; it looks
    again by itself."""
    try:
        view, notes = class_round.join(place.round, st.query_params.get("key"), place.step - 1)
    except class_round.StoreUnavailable as exc:
        plain_sidebar(server=False)
        st.warning(_("Class round {code}:").format(code=place.round) + f" {exc} "
                   + _("Nothing is lost: this page looks again by itself."), icon=":material/cloud_off:")
        class_round.wait_for_the_store(place.round)
        st.stop()
    state = view.state() if view is not None else None
    if place.round and (state is None or state.lesson != place.lesson):
        place, view = ui.Place(place.lesson, place.step, place.teacher), None  # unknown, or another lesson's
        ui.publish_place(place)
    elif view is not None and (moved := class_round.moved_to(view, state)) is not None:
        place = place.moved(moved + 1)  # the teacher moved the class on: this page goes there
        ui.publish_place(place)
    elif "key" in st.query_params:
        ui.publish_place(place)  # a teacher link's key leaves the address at once (the browser keeps it)
    return view, place, notes


def chooser(place: ui.Place) -> None:
    """The lesson to follow and the teacher-mode toggle; a change goes to the new place at once."""
    top = st.columns([3, 1])
    titles, away = {lid: lesson.in_language(current_language()).title for lid, lesson in LESSONS.items()}, False
    try:
        titles |= {lid: _("{title} (added)").format(title=title)
                   for lid, title in added_titles(runs.results_store().location).items()}
    except class_round.StoreUnavailable:
        away = True  # the built-in lessons are offered; the added ones once the store answers
    if place.lesson not in titles:
        titles[place.lesson] = _("{title} (added)").format(title=ui.lesson_named(place.lesson).title)
    chosen = top[0].selectbox(_("Lesson"), list(titles), index=list(titles).index(place.lesson),
                              format_func=titles.get, key=f"lesson_pick_{place.lesson}")
    if away:
        top[0].caption(_("The lessons added to this server show here once its results store answers again."))
    teacher = top[1].toggle(_("Teacher mode"), value=place.teacher, key=f"lesson_teacher_{place.teacher}",
                            help=_("For the projector: larger text and figures, no sidebar, answers shown at once (in "
                                   "a class round: when you reveal them)."))
    if chosen != place.lesson or teacher != place.teacher:
        same = chosen == place.lesson
        ui.publish_place(ui.Place(chosen, place.step if same else 1, teacher, place.round if same else None))
        st.rerun()
