"""Lessons page: a guided ten-minute lesson per method, one step at a time (predict, then see); in a class
round, every student predicts and the teacher sees the room's answers live."""

import streamlit as st

from mvlab.lessons import LESSONS
from mvlab.ui import identity, rounds, runs
from mvlab.ui import lessons as ui
from mvlab.ui.prose import markdown_literal
from mvlab.ui.state import plain_sidebar

place, notes = ui.place_from_address()
try:
    view, round_notes = rounds.join(place.round, st.query_params.get("key"))
except rounds.StoreUnavailable as exc:  # the round stays in the address; the page looks again by itself
    plain_sidebar(server=False)
    st.warning(f"Class round {place.round}: {exc} Nothing is lost: this page looks again by itself.",
               icon=":material/cloud_off:")
    rounds.wait_for_the_store(place.round)
    st.stop()
state = view.state() if view is not None else None
if place.round and (state is None or state.lesson != place.lesson):
    place = ui.Place(place.lesson, place.step, place.teacher)  # an unknown round, or another lesson's: none
    view = None
    ui.publish_place(place)
elif view is not None and (moved := rounds.moved_to(view, state)) is not None:
    place = place.moved(moved + 1)  # the teacher moved the class on: this page goes there
    ui.publish_place(place)
elif "key" in st.query_params:
    ui.publish_place(place)  # a teacher link's key leaves the address at once (the browser keeps it)
student = view is not None and not view.teacher  # in a class round: the teacher moves the class on
plain_sidebar(server=not student)
for note in notes + round_notes:
    st.warning(markdown_literal(note))
if place.teacher:
    ui.teacher_style()

st.title("Lessons")
if not student:  # a student in a round follows the teacher's lesson: no lesson to choose, no teacher mode
    top = st.columns([3, 1])
    chosen = top[0].selectbox("Lesson", list(LESSONS), index=list(LESSONS).index(place.lesson),
                              format_func=lambda i: LESSONS[i].title, key=f"lesson_pick_{place.lesson}")
    teacher = top[1].toggle("Teacher mode", value=place.teacher, key=f"lesson_teacher_{place.teacher}",
                            help="For the projector: larger text and figures, no sidebar, answers shown at once (in "
                                 "a class round: when you reveal them).")
    if chosen != place.lesson or teacher != place.teacher:
        same = chosen == place.lesson
        ui.publish_place(ui.Place(chosen, place.step if same else 1, teacher, place.round if same else None))
        st.rerun()

lesson = LESSONS[place.lesson]
step, total = lesson.step(place.step), len(lesson.steps)
if place.teacher:
    ui.round_panel(lesson, place, view)
if place.step == 1 and not place.teacher:
    st.caption(lesson.summary)
st.progress(place.step / total, text=f"Step {place.step} of {total}" + (f" · class round {view.code}" if view else ""))
st.header(step.title)
st.markdown(step.text)

key = f"lesson_{lesson.id}_{place.step}"
answered = ui.question(step, key, place.teacher, view, place.step - 1)
if view is not None and view.teacher:
    rounds.live_answers(view, step, place.step - 1, total,
                        on_next=lambda: ui.publish_place(place.moved(place.step + 1)))
    ui.prepare(lesson, place.step + 1)  # the class's next step, ready before the teacher moves everyone there
elif view is not None:
    rounds.follow_the_round(view, step, place.step - 1, st.session_state.get(f"{key}_revealed", False))
ctx = ui.step_result(step.run, f"lesson_run_{lesson.id}", place.step)
if ctx is not None:
    items = ui.step_items(step, ctx, [lesson.id, place.step, runs.result_key(ctx.settings, ctx.data)])
    if answered:
        if view is not None and not view.teacher:
            with rounds.store_trouble("The class's answers cannot be read now. "):
                rounds.class_distribution(step, rounds.class_rounds().counts(view.code, place.step - 1),
                                          correct=True, teacher=False)
        ui.show_items(items, step, key, place.teacher)
        st.markdown(f":material/visibility: **What to notice.** {step.notice}")
        st.markdown(f":material/error: **A common mistake.** {step.mistake}")
    elif view is None:
        st.info("Make your prediction above, then reveal the answer to see the figures.")

back, link, forward = st.columns([1, 3, 1])
if back.button("← Back", disabled=place.step == 1, key="lesson_back", width="stretch"):
    ui.publish_place(place.moved(place.step - 1))
    st.rerun()
if forward.button("Next →", disabled=place.step == total, key="lesson_next", type="primary", width="stretch"):
    ui.publish_place(place.moved(place.step + 1))
    st.rerun()
ui.publish_place(place)
link.caption(f"Link to this step: `?{ui.Place(lesson.id, place.step, place.teacher, place.round).address()}` "
             "(add it to the page's address; students who reload stay on their step).")
if not place.teacher:
    ui.handout_button(lesson)
identity.write_cookies()  # this browser's token and the teacher's key, kept for a reload, a tab, a restart
