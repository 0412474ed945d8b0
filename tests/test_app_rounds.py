"""AppTest: a class round on the Lessons page. The teacher starts it, students' answers are counted (a change
of mind once), the teacher's view shows them, the reveal and the next step reach the students; a student's
link has no teacher key, an unknown round says so."""

import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP
from mvlab.lessons import get_lesson
from mvlab.lessons.results import warm
from mvlab.store import ClassRounds, ResultsStore


@pytest.fixture(scope="module", autouse=True)
def warmed_ofsp():
    warm(get_lesson("ofsp"), ResultsStore(), say=lambda line: None)  # the session's private store


def session(**query):
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    for k, v in query.items():
        at.query_params[k] = str(v)
    at.switch_page("pages/lessons.py").run()
    assert not at.exception, at.exception
    return at


def values(elements):
    return [e.value for e in elements]


def test_a_round_from_start_to_the_next_step(app):
    teacher = session(lesson="ofsp", step=2, teacher=1)
    teacher.button(key="round_start").click().run()
    assert not teacher.exception, teacher.exception
    code = teacher.query_params["round"][0] if isinstance(teacher.query_params["round"], list) \
        else teacher.query_params["round"]
    assert "key" in teacher.query_params  # the teacher's own address keeps the key (a reload stays teacher)
    assert any(f"lessons?lesson=ofsp&step=2&round={code}" in c.value and "key=" not in c.value for c in teacher.code)
    assert not [b for b in teacher.button if b.key == "lesson_ofsp_2_reveal"]  # the teacher does not answer

    students = [session(lesson="ofsp", step=2, round=code) for _ in range(3)]
    for s, choice in zip(students, (1, 1, 0)):
        s.radio(key="lesson_ofsp_2_choice").set_value(choice).run()
        s.button(key="lesson_ofsp_2_reveal").click().run()
        assert not s.exception, s.exception
        assert any("Your answer is in" in i.value for i in s.info)
        assert not s.success  # no answer before the teacher reveals it
    students[2].radio(key="lesson_ofsp_2_choice").set_value(1).run()  # a change of mind replaces the answer
    rounds = ClassRounds(ResultsStore().path)
    assert rounds.counts(code, 1) == {1: 3}

    teacher.run()
    chart = teacher.get("plotly_chart")[0]
    assert '"3 answered"' in chart.proto.spec or "3 answered" in chart.proto.spec
    teacher.button(key="round_reveal_1").click().run()
    assert rounds.get(code).revealed == frozenset({1})
    students[0].run()
    assert any("**Answer:" in s.value for s in students[0].success)

    teacher.button(key="round_next_1").click().run()
    assert values(teacher.header) == [get_lesson("ofsp").steps[2].title]
    students[1].run()
    assert values(students[1].header) == [get_lesson("ofsp").steps[2].title]  # moved by the teacher
    assert "key" not in students[1].query_params


def test_a_students_link_cannot_reveal_and_an_unknown_round_says_so(app):
    rounds = ClassRounds(ResultsStore().path)
    started = rounds.start("ofsp")
    forged = session(lesson="ofsp", step=2, round=started.round.code, key="guessed", teacher=1)
    assert any("not this round's" in w.value for w in forged.warning)
    assert not [b for b in forged.button if (b.key or "").startswith("round_reveal")]
    unknown = session(lesson="ofsp", step=2, round="ZZZZ")
    assert any("There is no class round 'ZZZZ'" in w.value for w in unknown.warning)
    assert "round" not in unknown.query_params
