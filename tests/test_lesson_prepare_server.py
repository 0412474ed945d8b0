"""On a real Streamlit server with no teacher page in it (as the second process of ``mvlab serve --processes 2``):
a student's page has the server build its step's figures and the next step's when it opens, and, when the class is
moved, the step after the one moved to, after the move's burst of woken reruns (issue #53 item 10)."""

import time
from pathlib import Path

import pytest
from test_rounds_push import one_student_answered

from browser import running_streamlit
from mvlab.lessons import get_lesson
from mvlab.lessons.step_results import warm
from mvlab.store import ClassRounds, ResultsStore
from mvlab.ui.lesson_step import PREPARE_AFTER_MOVE_S

SERVER = """
import mvlab.ui.lesson_step as lessons
real = lessons.prepare
def told(lesson, number):
    ready = real(lesson, number)
    print(f"prepared {lesson.id} {number} {ready} at {__import__('time').time():.3f}", flush=True)
    return ready
lessons.prepare = told
from streamlit.web.cli import main
main(prog_name="streamlit")
"""
"""``streamlit run`` whose ``mvlab.ui.lesson_step.prepare`` says in the server's log each step it prepared and when."""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("prepare") / "results.sqlite"
    warm(get_lesson("ofsp"), ResultsStore(store), say=lambda line: None)
    with running_streamlit(store, ("-c", SERVER), MVLAB_WORKERS="1") as (url, log):
        yield url, store, log


def prepared(log: Path, number: int, timeout: float) -> float | None:
    """When (the server's clock) step ``number`` of ofsp was prepared, waiting up to ``timeout`` s; None if not."""
    deadline = time.monotonic() + timeout
    while True:
        for line in log.read_text().splitlines():
            if line.startswith(f"prepared ofsp {number} True at "):
                return float(line.rsplit(" ", 1)[1])
        if time.monotonic() > deadline:
            return None
        time.sleep(0.1)


def test_a_students_server_prepares_its_steps_when_the_page_opens_and_after_a_move(server):
    """Fails when the student's page asks at its own run only (tried: the ``prepare_soon`` calls of the moved branch
    removed: step 4 never prepared) or not at all (tried: the calls at the page's own run removed: steps 2 and 3
    not prepared when the page opened), and when the move's preparation runs inside the move's burst (tried:
    ``delay=0`` there: step 4 prepared 0.1 s after the move), and when its threads fill the server's log with
    Streamlit's warning for a thread without a script (tried: without ``lessons._NoScriptByDesign``: three "missing
    ScriptRunContext" lines per step)."""
    url, store, log = server
    lesson = get_lesson("ofsp")
    student, code, key = one_student_answered(url, store)  # the class on step 2
    assert prepared(log, 2, 10) is not None and prepared(log, 3, 10) is not None
    assert prepared(log, 4, 0) is None  # not before the class is moved on

    moved = time.time()
    ClassRounds(store).move_to(code, key, 2)  # as the teacher's button does: the class on step 3
    assert student.watch(lesson.steps[2].title, 10)  # woken: the step's part reran alone
    when = prepared(log, 4, PREPARE_AFTER_MOVE_S + 10)
    assert when is not None and when - moved >= PREPARE_AFTER_MOVE_S - 0.05, (when, moved)
    assert not student.exceptions, student.exceptions
    said = log.read_text()
    assert "Traceback" not in said and "ScriptRunContext" not in said, said  # built off any script run, quietly
    student.close()
