"""The wake's fallback on a real Streamlit server: where the installed Streamlit lacks a part a wake uses (here
``AppSession._client_state`` renamed in every method of the class, as an upgrade could rename it), the server says
so in its log, a waiting student's page sets itself a timer (``STUDENT_REFRESH``), and the reveal and the next step
still reach it within a few seconds, each tick a rerun of the waiting part alone."""

import time
from pathlib import Path

import pytest
from test_rounds_push import one_student_answered

from browser import ROOT, running_streamlit
from mvlab.lessons import get_lesson
from mvlab.lessons.step_results import warm
from mvlab.store import ClassRounds, ResultsStore
from mvlab.ui.class_round import STUDENT_REFRESH
from streamlit_client import StudentSession

SOON = STUDENT_REFRESH + 2.0
"""Seconds for a change to reach a student on the timer: one tick, and the page's rerun on a busy machine."""

SERVER = """
import sys
sys.path.insert(0, {tests!r})
from streamlit.runtime.app_session import AppSession
from test_streamlit_insides import rename_attribute
rename_attribute(AppSession, "_client_state", "_client_state_renamed")
from streamlit.web.cli import main
main(prog_name="streamlit")
"""
"""``streamlit run`` in a process whose Streamlit keeps a session's client state under another name: the server
works as before, but the wake's check finds ``_client_state`` gone."""


def running_app_without_client_state(store: Path):
    """The dashboard served by a Streamlit that renamed ``AppSession._client_state``; yields its URL and its log."""
    return running_streamlit(store, ("-c", SERVER.format(tests=str(ROOT / "tests"))), MVLAB_WORKERS="1")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("fallback") / "results.sqlite"
    warm(get_lesson("ofsp"), ResultsStore(store), say=lambda line: None)
    with running_app_without_client_state(store) as (url, log):
        yield url, store, log


def reaches(student: StudentSession, words: str, timeout: float = 10.0) -> float | None:
    """Seconds until an element with ``words`` arrives, the student's page rerunning its timed parts as a
    browser does; None if it does not come within ``timeout``."""
    start = time.perf_counter()
    return time.perf_counter() - start if student.watch(words, timeout) else None


def test_without_a_part_of_the_wake_the_student_page_looks_on_a_timer_and_the_class_still_moves(server):
    """Fails when the fallback timer is removed (tried: ``mvlab.ui.class_round.STUDENT_REFRESH = None`` set in the
    server, the waiting part a fragment without ``run_every``: no timer, and with the timer assert left out, the
    reveal never arrives), and failed before ``available()`` checked ``AppSession._client_state`` (tried with it
    left out of ``PRIVATE_PARTS``: the server took the push for on, set no timer, and its wakes raised on the
    event loop)."""
    url, store, log = server
    lesson = get_lesson("ofsp")
    student, code, key = one_student_answered(url, store)
    assert "AppSession._client_state" in log.read_text()  # the server said why it wakes no one
    assert student.auto and {interval for interval, _ in student.auto.values()} == {STUDENT_REFRESH}, student.auto

    ClassRounds(store).reveal(code, key, 1)  # as the teacher's button does, on any process
    took = reaches(student, f"Answer: ({chr(97 + lesson.steps[1].question.answer)})")
    assert took is not None and took <= SOON, took
    student._read_until(lambda: False, 30)

    ClassRounds(store).move_to(code, key, 2)
    took = reaches(student, lesson.steps[2].title)
    assert took is not None and took <= SOON, took
    assert not student.exceptions, student.exceptions
    assert "Traceback" not in log.read_text()
    student.close()
