"""AppTest: the Lessons page on a warmed store (no browser): a step from its link, the figures only
after the prediction, Next and Back in the address, teacher mode, a bad link named."""

import pytest

from conftest import step_titles
from mvlab.lessons import get_lesson
from mvlab.lessons.step_results import warm
from mvlab.store import ResultsStore


@pytest.fixture(scope="module", autouse=True)
def warmed_ofsp():
    warm(get_lesson("ofsp"), ResultsStore(), say=lambda line: None)  # the session's private store


def open_lesson(app, **query):
    for k, v in query.items():
        app.query_params[k] = str(v)
    app.switch_page("pages/lessons.py").run()
    assert not app.exception, app.exception
    return app


def test_a_step_from_its_link_shows_figures_only_after_the_prediction(app):
    ofsp = get_lesson("ofsp")
    open_lesson(app, lesson="ofsp", step=4)
    assert step_titles(app) == [ofsp.steps[3].title]
    assert any("Make your prediction above" in i.value for i in app.info)
    assert not app.get("plotly_chart")
    app.radio(key="lesson_ofsp_4_choice").set_value(1).run()
    app.button(key="lesson_ofsp_4_reveal").click().run()
    assert not app.exception, app.exception
    assert any("You were right. **Answer: (b) OFSP.**" in s.value for s in app.markdown)
    assert len(app.get("plotly_chart")) == 1
    # the figure's text alternative in one element: a sentence from its data, and the data in a closed disclosure
    figure_text = [c.value for c in app.caption if "<p>Figure: " in c.value]
    assert len(figure_text) == 1 and "OFSP" in figure_text[0]
    assert "<details><summary>The figure's data as a table</summary><table" in figure_text[0]
    app.button(key="lesson_next").click().run()
    assert step_titles(app) == [ofsp.steps[4].title]
    assert app.query_params["step"] == ["5"] or app.query_params["step"] == "5"
    app.button(key="lesson_back").click().run()
    app.button(key="lesson_back").click().run()
    assert step_titles(app) == [ofsp.steps[2].title]


def test_teacher_mode_shows_the_answer_at_once(app):
    open_lesson(app, lesson="ofsp", step=3, teacher=1)
    assert any("**Answer: (b)" in s.value for s in app.markdown)
    assert any("useful share" in d.value.columns for d in app.dataframe)  # the step's table, without a click
    assert not [b for b in app.button if b.key == "lesson_ofsp_3_reveal"]


def test_a_bad_link_is_named_and_falls_back(app):
    open_lesson(app, lesson="ofsp", step=0)
    assert any("'step=0' is not a step of this lesson (1 to 6); showing step 1." in w.value for w in app.warning)
    assert step_titles(app) == [get_lesson("ofsp").steps[0].title]
    # the note stays while the reader is on that step (the address is rewritten, so it says nothing more), and goes
    # with a move: fails when the page draws only the notes of its own run (tried: pages/lessons.py without
    # address_notes: the note went at the first click)
    app.radio(key="lesson_ofsp_1_choice").set_value(1).run()
    assert any("'step=0' is not a step" in w.value for w in app.warning)
    app.button(key="lesson_next").click().run()
    assert not any("'step=0' is not a step" in w.value for w in app.warning)


def test_a_prepared_step_has_its_figures_and_their_texts_ready():
    """``prepare`` (the teacher's page calls it for this step and the next) builds a step's figures and each one's
    text alternative, for a touch screen's variant too, so that a class woken to the reveal finds them ready (the
    students asked for them at once and 17 of 150 each built the same text before, issue #53 item 10). Fails when
    prepare builds the figures alone (tried: its loop over the figures removed)."""
    from mvlab.ui import lesson_step as ui
    from mvlab.viz.frozen import without_drag

    lesson = get_lesson("ofsp")
    ui.prepare(lesson, 4)
    step = lesson.step(4)
    ctx = ui.stored_context(step.run)
    figures = [i for i in ui.step_items(step, ctx, ui.items_key(lesson, 4, step, ctx))
               if hasattr(i, "_derived")]
    assert figures
    for figure in figures:
        # its text in the preparing thread's language (English: prepared texts are the English ones; #73)
        assert "text_alternative:en" in figure._derived and "text_alternative:en" in without_drag(figure)._derived
