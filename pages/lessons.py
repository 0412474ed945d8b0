"""Lessons page: a guided ten-minute lesson per method, one step at a time (predict, then see)."""

import streamlit as st

from mvlab.lessons import LESSONS
from mvlab.ui import lessons as ui
from mvlab.ui import runs
from mvlab.ui.state import plain_sidebar

plain_sidebar()
place, notes = ui.place_from_address()
for note in notes:
    st.warning(note)
if place.teacher:
    ui.teacher_style()

st.title("Lessons")
top = st.columns([3, 1])
chosen = top[0].selectbox("Lesson", list(LESSONS), index=list(LESSONS).index(place.lesson),
                          format_func=lambda i: LESSONS[i].title, key=f"lesson_pick_{place.lesson}")
teacher = top[1].toggle("Teacher mode", value=place.teacher, key=f"lesson_teacher_{place.teacher}",
                        help="For the projector: larger text and figures, no sidebar, answers shown at once.")
if chosen != place.lesson or teacher != place.teacher:
    ui.publish_place(ui.Place(chosen, 1 if chosen != place.lesson else place.step, teacher))
    st.rerun()

lesson = LESSONS[place.lesson]
step, total = lesson.step(place.step), len(lesson.steps)
if place.step == 1 and not place.teacher:
    st.caption(lesson.summary)
st.progress(place.step / total, text=f"Step {place.step} of {total}")
st.header(step.title)
st.markdown(step.text)

key = f"lesson_{lesson.id}_{place.step}"
answered = ui.question(step, key, place.teacher)
ctx = ui.step_result(step.run, f"lesson_run_{lesson.id}", place.step)
if ctx is not None:
    items = ui.step_items(step, ctx, [lesson.id, place.step, runs.result_key(ctx.settings, ctx.data)])
    if answered:
        ui.show_items(items, step, key, place.teacher)
        st.markdown(f":material/visibility: **What to notice.** {step.notice}")
        st.markdown(f":material/error: **A common mistake.** {step.mistake}")
    else:
        st.info("Make your prediction above, then reveal the answer to see the figures.")

back, link, forward = st.columns([1, 3, 1])
if back.button("← Back", disabled=place.step == 1, key="lesson_back", width="stretch"):
    ui.publish_place(ui.Place(lesson.id, place.step - 1, place.teacher))
    st.rerun()
if forward.button("Next →", disabled=place.step == total, key="lesson_next", type="primary", width="stretch"):
    ui.publish_place(ui.Place(lesson.id, place.step + 1, place.teacher))
    st.rerun()
ui.publish_place(place)
link.caption(f"Link to this step: `?{'&'.join(f'{k}={v}' for k, v in place.query().items())}` "
             "(add it to the page's address; students who reload stay on their step).")
if not place.teacher:
    ui.handout_button(lesson)
