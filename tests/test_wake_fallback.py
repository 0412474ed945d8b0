"""The fallbacks of Streamlit's insides on a real Streamlit server (mvlab.ui.streamlit_insides): where the installed
Streamlit lacks a part of a feature, as an upgrade could rename it (here ``AppSession._client_state`` of the wake and
``ScriptRequests._state`` of the waiting click, each renamed in every method of its class; ``string_util.clean_text``
of the elements built once, gone from its module), the server says so in its log, one line a feature with what falls
back; a waiting student's page sets itself a timer (``STUDENT_REFRESH``), the reveal and the next step still reach it
within a few seconds, each tick a rerun of the waiting part alone, and the step's figures still show, drawn by
Streamlit's own calls. (The other two features' parts cannot be taken from a running Streamlit without breaking it:
tests/test_streamlit_insides.py takes each away in the test process.)"""

import time
from pathlib import Path

import pytest
from test_rounds_push import one_student_answered

from browser import ROOT, running_streamlit
from mvlab.lessons import get_lesson
from mvlab.lessons.step_results import warm
from mvlab.store import ClassRounds, ResultsStore
from mvlab.ui.class_round import STUDENT_REFRESH
from mvlab.ui.streamlit_insides import FEATURES
from streamlit_client import StudentSession

SOON = STUDENT_REFRESH + 2.0
"""Seconds for a change to reach a student on the timer: one tick, and the page's rerun on a busy machine."""

SERVER = """
import sys
sys.path.insert(0, {tests!r})
import streamlit.elements.markdown  # holds its own reference to clean_text: Streamlit's markdown keeps working
import streamlit.string_util
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequests
from test_streamlit_insides import rename_attribute
rename_attribute(AppSession, "_client_state", "_client_state_renamed")
rename_attribute(ScriptRequests, "_state", "_state_renamed")
del streamlit.string_util.clean_text
from streamlit.web.cli import main
main(prog_name="streamlit")
"""
"""``streamlit run`` in a process whose Streamlit keeps a session's client state and its script requests' state under
other names and has no ``string_util.clean_text``: the server works as before, but the door's check finds a part of
three features gone."""


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
    said = log.read_text()  # the server said what it lacks and what falls back, a line a feature
    for feature, part in (("wake", "AppSession._client_state"), ("waiting_click", "ScriptRequests._state"),
                          ("built_once", "streamlit.string_util:clean_text")):
        assert part in said and FEATURES[feature].without in said, (feature, said[-2000:])
    assert student.auto and {interval for interval, _ in student.auto.values()} == {STUDENT_REFRESH}, student.auto

    ClassRounds(store).reveal(code, key, 1)  # as the teacher's button does, on any process
    took = reaches(student, f"Answer: ({chr(97 + lesson.steps[1].question.answer)})")
    assert took is not None and took <= SOON, took
    student._read_until(lambda: False, 30)
    assert any(text.startswith("{") and '"data"' in text for text in student.texts)  # its figures, drawn by st
    ClassRounds(store).move_to(code, key, 2)
    took = reaches(student, lesson.steps[2].title)
    assert took is not None and took <= SOON, took
    assert not student.exceptions, student.exceptions
    assert "Traceback" not in log.read_text()
    student.close()
