"""AppTest: a class round on the Lessons page. The teacher starts it, students' answers are counted (a change
of mind once), the teacher's view shows them, the reveal and the next step reach the students; a student's
link has no teacher key, an unknown round says so."""

import pytest

from conftest import lessons_session, step_titles
from mvlab.core.memo import Memo
from mvlab.lessons import get_lesson
from mvlab.lessons.step_results import warm
from mvlab.store import ClassRounds, ResultsStore


@pytest.fixture(scope="module", autouse=True)
def warmed_ofsp():
    warm(get_lesson("ofsp"), ResultsStore(), say=lambda line: None)  # the session's private store


session = lessons_session


def values(elements):
    return [e.value for e in elements]


def drawn(at) -> str:
    """Everything the page draws (every element's message, the sidebar's too), as text: what a projector shows. The
    script that writes the browser's cookies (mvlab.ui.identity.write_cookies) is left out: in a browser it empties
    itself once run, which tests/test_browser_rounds.py's projected_carries_no_key checks on the real page."""
    texts = []

    def walk(node):
        for child in getattr(node, "children", {}).values():
            if hasattr(child, "proto") and not getattr(child, "children", None) and \
                    "document.cookie" not in str(child.proto):
                texts.append(str(child.proto))
            walk(child)

    walk(at._tree)
    return "\n".join(texts)


def test_a_round_from_start_to_the_next_step(app):
    """Fails when the teacher key is drawn on the projected page or kept in the address (tried: the old caption with
    the teacher's own link put back, Place.query() writing key= again), and when a student's question stays open
    after the reveal or its verdict is not the answer the student sent (tried: ask() drawing the radio again when
    revealed; show_answer without "You sent no answer")."""
    teacher = session(lesson="ofsp", step=2, teacher=1)
    teacher.button(key="round_start").click().run()
    assert not teacher.exception, teacher.exception
    code = teacher.query_params["round"][0] if isinstance(teacher.query_params["round"], list) \
        else teacher.query_params["round"]
    key = teacher.session_state["_round_keys"][code]
    assert "key" not in teacher.query_params  # the address bar on the projector carries no key
    assert key not in drawn(teacher) and "key=" not in drawn(teacher)
    assert any(f"lessons?lesson=ofsp&step=2&round={code}" in c.value and "key=" not in c.value for c in teacher.code)
    assert not [b for b in teacher.button if b.key == "lesson_ofsp_2_reveal"]  # the teacher does not answer
    assert [b for b in teacher.button if b.key == "round_reveal_1"]  # ... and controls the round

    students = [session(lesson="ofsp", step=2, round=code) for _ in range(3)]
    for s, choice in zip(students, (1, 1, 0)):
        s.radio(key="lesson_ofsp_2_choice").set_value(choice).run()
        s.button(key="lesson_ofsp_2_reveal").click().run()
        assert not s.exception, s.exception
        assert any("Your answer is in" in i.value for i in s.info)
        assert not [m for m in s.markdown if "**Answer:" in m.value]  # no answer before the teacher reveals it
    students[2].radio(key="lesson_ofsp_2_choice").set_value(1).run()  # a change of mind, sent, replaces the answer
    students[2].button(key="lesson_ofsp_2_reveal").click().run()
    rounds = ClassRounds(ResultsStore().path)
    assert rounds.counts(code, 1) == {1: 3}

    teacher.run()
    chart = teacher.get("plotly_chart")[0]
    assert '"3 answered"' in chart.proto.spec or "3 answered" in chart.proto.spec
    teacher.button(key="round_reveal_1").click().run()
    assert rounds.get(code).revealed == frozenset({1})
    students[0].run()
    assert any("**Answer:" in s.value for s in students[0].markdown)
    # closed once revealed: no choices drawn, the sent answer stands (students[2] changed its mind to (b) and sent it)
    students[2].run()
    assert not students[2].radio and not [b for b in students[2].button if b.key == "lesson_ofsp_2_reveal"]
    assert any("You were right. **Answer: (b)" in s.value for s in students[2].markdown)
    silent = session(lesson="ofsp", step=2, round=code)  # joined after the reveal, sent nothing
    assert not silent.radio and any("You sent no answer. **Answer: (b)" in s.value for s in silent.markdown)

    teacher.button(key="round_next_1").click().run()
    assert step_titles(teacher) == [get_lesson("ofsp").steps[2].title]
    assert "key" not in teacher.query_params and key not in drawn(teacher)
    students[1].run()
    assert step_titles(students[1]) == [get_lesson("ofsp").steps[2].title]  # moved by the teacher
    assert "key" not in students[1].query_params


@pytest.fixture
def cookies(monkeypatch):
    """The cookies the browser sends (AppTest sends none): a dict the test fills, read by mvlab.ui.identity."""
    jar: dict[str, str] = {}
    monkeypatch.setattr("mvlab.ui.identity._cookie", jar.get)
    return jar


def test_a_reload_or_a_second_tab_is_the_same_student_and_the_same_teacher(app, cookies):
    """One browser (its cookie), three sessions: the answer is counted once and shown as sent after the reload; the
    teacher's browser controls the round after a reload without any key in the address. Fails when the token is the
    session's instead of the cookie's (tried: the old per-session token: {1: 2}) or when the teacher's cookie is not
    read (tried: teacher_key returning the session's only)."""
    rounds = ClassRounds(ResultsStore().path)
    started = rounds.start("ofsp", step=1)
    code = started.round.code
    cookies["mvlab_id"] = "a-browser-token-0123456789"
    first = session(lesson="ofsp", step=2, round=code)
    first.radio(key="lesson_ofsp_2_choice").set_value(1).run()
    first.button(key="lesson_ofsp_2_reveal").click().run()
    again = session(lesson="ofsp", step=2, round=code)  # a reload, a second tab, a restarted server process
    assert any("Your answer is in" in i.value for i in again.info)
    assert again.radio(key="lesson_ofsp_2_choice").value == 1
    assert not [b for b in again.button if b.key == "lesson_ofsp_2_reveal"]
    again.radio(key="lesson_ofsp_2_choice").set_value(2).run()
    again.button(key="lesson_ofsp_2_reveal").click().run()  # "Send my new answer": replaces, never adds
    assert rounds.counts(code, 1) == {2: 1}

    del cookies["mvlab_id"]
    cookies[f"mvlab_teacher_{code}"] = started.key
    teacher = session(lesson="ofsp", step=2, teacher=1, round=code)  # the teacher reloads: no key in the address
    assert [b for b in teacher.button if b.key == "round_reveal_1"]
    assert started.key not in drawn(teacher)


def test_a_students_link_cannot_reveal_and_an_unknown_round_says_so(app):
    rounds = ClassRounds(ResultsStore().path)
    started = rounds.start("ofsp", step=1)
    forged = session(lesson="ofsp", step=2, round=started.round.code, key="guessed", teacher=1)
    assert any("not this round's" in w.value for w in forged.warning)
    assert not [b for b in forged.button if (b.key or "").startswith("round_reveal")]
    assert "key" not in forged.query_params
    unknown = session(lesson="ofsp", step=2, round="ZZZZ")
    assert any("There is no class round 'ZZZZ'" in w.value for w in unknown.warning)
    assert "round" not in unknown.query_params


def test_a_teacher_link_file_opens_the_round_as_its_teacher_and_its_key_leaves_the_address(app):
    rounds = ClassRounds(ResultsStore().path)
    started = rounds.start("ofsp", step=1)
    opened = session(lesson="ofsp", step=2, round=started.round.code, key=started.key, teacher=1)
    assert [b for b in opened.button if b.key == "round_reveal_1"]
    assert "key" not in opened.query_params
    opened.run()  # the first run's script kept the key in the browser's cookie; from then on it is never drawn
    assert started.key not in drawn(opened) and [b for b in opened.button if b.key == "round_reveal_1"]


@pytest.mark.parametrize("query, shown", [
    ({"lesson": "[click me](http://evil.example)", "step": 2}, "[click me](http://evil.example)"),
    ({"lesson": "ofsp", "step": "**9**"}, "**9**"),
    ({"lesson": "ofsp", "step": 2, "round": ":red[OWNED]"}, ":red[OWNED]"),
    ({"lesson": "ofsp", "step": "99999999999999999999"}, "99999999999999999999"),
])
def test_values_from_the_address_are_refused_in_words_and_shown_as_text(app, query, shown):
    """Fails when a note puts an address's value into Markdown as it is (tried: st.warning(note) without
    markdown_literal: the link and the bold were drawn; and, once the notes escaped their values themselves, the step
    note's value left unescaped)."""
    from mvlab.ui.prose import markdown_literal

    at = session(**query)
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any(markdown_literal(shown) in w for w in warnings), warnings
    if markdown_literal(shown) != shown:
        assert not any(shown in w for w in warnings)  # never the raw Markdown


def test_an_answer_the_store_could_not_take_is_not_shown_as_sent_and_can_be_sent_again(app, monkeypatch):
    """The store fails as the student sends: the page says the answer was not sent (no traceback, no "Your answer is
    in"), the Send button stays; sent again once the store is back, it counts once. Fails when the page marks the
    answer sent before the store confirms it (tried: the old send(), sent = True first: "Your answer is in" with
    nothing stored)."""
    from mvlab.store import StoreUnavailable

    rounds = ClassRounds(ResultsStore().path)
    code = rounds.start("ofsp", step=1).round.code
    student = session(lesson="ofsp", step=2, round=code)
    real = ClassRounds.answer

    def down(self, *args, **kwargs):
        raise StoreUnavailable(detail="postgresql://mvlab@db.school:5432/mvlab: connection refused")

    monkeypatch.setattr(ClassRounds, "answer", down)
    student.radio(key="lesson_ofsp_2_choice").set_value(2).run()
    student.button(key="lesson_ofsp_2_reveal").click().run()
    assert not student.exception, student.exception
    assert any("Your answer was not sent" in e.value and "unavailable right now" in e.value for e in student.error)
    assert not any("db.school" in e.value or "connection refused" in e.value for e in student.error)  # no internals
    assert not any("Your answer is in" in i.value for i in student.info)
    monkeypatch.setattr(ClassRounds, "answer", real)
    student.button(key="lesson_ofsp_2_reveal").click().run()
    assert any("Your answer is in" in i.value for i in student.info)
    assert not [b for b in student.button if b.key == "lesson_ofsp_2_reveal"]
    assert rounds.counts(code, 1) == {2: 1}


def test_a_page_opened_while_the_store_is_down_says_so_keeps_the_round_and_recovers(app, monkeypatch):
    """Fails when the page shows a traceback, or drops the round from the address, while the store cannot answer
    (tried: the StoreUnavailable branch of the page removed: an exception)."""
    from mvlab.store import StoreUnavailable

    rounds = ClassRounds(ResultsStore().path)
    code = rounds.start("ofsp", step=1).round.code
    real = ClassRounds.get

    def down(self, *args, **kwargs):
        raise StoreUnavailable(detail="/srv/mvlab/results.sqlite: database is locked")

    monkeypatch.setattr(ClassRounds, "get", down)
    student = session(lesson="ofsp", step=2, round=code)
    assert not student.exception, student.exception
    assert any("unavailable right now" in w.value and "looks again by itself" in w.value for w in student.warning)
    assert not any("/srv/mvlab" in w.value or "locked" in w.value for w in student.warning)  # no store internals
    assert student.query_params["round"] in (code, [code])
    monkeypatch.setattr(ClassRounds, "get", real)
    student.run()
    assert not student.exception and not student.warning
    student.radio(key="lesson_ofsp_2_choice").set_value(1).run()  # the question is back: Send comes with a choice
    assert [b for b in student.button if b.key == "lesson_ofsp_2_reveal"]


def test_a_student_who_reconnects_after_the_move_or_opens_an_old_link_lands_where_the_class_is(app):
    """A browser that reconnects (its process died, it reloads) while the teacher moves the class opens a new
    session at its address's step: it is taken to the round's step, and a student opening the link at the round's
    step stays there. Fails when a new session takes the round's step as seen (tried: join's old
    _round_seen = found.step: the page stayed on step 2 for good, as the fault bench's killed process showed)."""
    rounds = ClassRounds(ResultsStore().path)
    started = rounds.start("ofsp", step=1)
    fresh = session(lesson="ofsp", step=2, round=started.round.code)
    assert step_titles(fresh) == [get_lesson("ofsp").steps[1].title]  # started at step 2: nobody moves
    rounds.move_to(started.round.code, started.key, 2)
    late = session(lesson="ofsp", step=2, round=started.round.code)
    assert step_titles(late) == [get_lesson("ofsp").steps[2].title]
    assert late.query_params["step"] in ("3", ["3"])


def test_the_revealed_answers_say_in_words_when_the_store_cannot_read_them(monkeypatch):
    """The class's answers under a revealed answer: bars from the counts, or, with the store down, a sentence (the
    answer and the figures still shown). Fails when the store's failure escapes (tried: revealed_bars without its
    ``except StoreUnavailable``) or the words are not escaped."""
    from mvlab.store import StoreUnavailable
    from mvlab.ui import class_round

    step = get_lesson("ofsp").steps[1]
    monkeypatch.setattr(class_round, "revealed_counts", lambda view, index: {0: 1, 1: 3})
    assert "The class's answers: 4 answered" in class_round.revealed_bars(None, step, 1)

    def down(view, index):
        raise StoreUnavailable("The results store <db> cannot be reached.")

    monkeypatch.setattr(class_round, "revealed_counts", down)
    said = class_round.revealed_bars(None, step, 1)
    assert said.startswith("<p>The class's answers cannot be read now.") and "&lt;db&gt;" in said


def test_a_students_part_rerun_while_the_store_is_down_goes_on_with_the_round_it_drew(monkeypatch):
    """A student's step part rerun during an outage (their choosing, their Send: no watch look to take the round
    from) reads the round again; where the store cannot answer, it goes on with the round as last drawn instead of
    a traceback (the fault bench's PostgreSQL outage found one). A page that never drew the round still says the
    store's trouble. Fails when the failure escapes (tried: looked_again without its ``except``)."""
    from mvlab.store import Round, StoreUnavailable
    from mvlab.ui import class_round

    drawn = Round(code="ABCD", lesson="ofsp", name="", created=0.0, step=1)

    class Down:
        def get(self, code):
            raise StoreUnavailable("The results store cannot be reached.")

    monkeypatch.setattr(class_round, "_student_look", lambda code: None)
    monkeypatch.setattr(class_round, "class_rounds", lambda: Down())
    view = class_round.RoundView("ABCD", None)
    with pytest.raises(StoreUnavailable):
        view.looked_again()  # nothing drawn yet: the page's own run says the store's trouble
    view._drawn = (drawn,)
    assert view.looked_again() is drawn
    with pytest.raises(StoreUnavailable):
        view.state(fresh=True)  # the plain fresh read still says so (the waiting part and the teacher rely on it)


def test_a_student_in_a_round_is_offered_the_handout_only_with_the_last_answer(app):
    """The handout holds every step's answer: a student in a class round gets it once the last step's answer is
    shown, not while predicting (a reader alone has it at every step). Fails when a round's student is offered it
    from the start (tried: pages/lessons.py drawing it for every reader but the teacher, as before) or never (tried:
    student_step without it)."""
    def offered(at) -> bool:
        return any("Download the handout" in b.proto.label for b in at.get("download_button"))

    rounds = ClassRounds(ResultsStore().path)
    started = rounds.start("ofsp", step=1)
    code, last = started.round.code, len(get_lesson("ofsp").steps)
    assert offered(session(lesson="ofsp", step=2))
    student = session(lesson="ofsp", step=2, round=code)
    assert not offered(student)
    rounds.move_to(code, started.key, last - 1)
    student.run()
    assert step_titles(student) == [get_lesson("ofsp").steps[-1].title] and not offered(student)
    rounds.reveal(code, started.key, last - 1)
    student.run()
    assert offered(student)


def test_a_class_opening_at_once_opens_one_watch_and_one_store_per_process(tmp_path, monkeypatch):
    """40 script threads asking for the process's watch at the same moment (a class opening the link) open one watch
    (and one rounds store) between them, and every one gets it. A profile of a class of 300 found 20 watches in
    one process, each reading the store four times a second for good and waking its students again; the test fails
    without the lock around the opening (tried: 40 watches)."""
    import threading
    import time

    from mvlab.ui import class_round

    monkeypatch.setenv("MVLAB_STORE", str(tmp_path / "store.sqlite"))
    monkeypatch.setattr(class_round, "_KEPT", Memo(None))
    opened, watch = [], class_round._watch

    def slow_watch(*settings):  # opening takes a moment, as a store's first connection does
        time.sleep(0.05)
        opened.append(1)
        return watch(*settings)

    monkeypatch.setattr(class_round, "_watch", slow_watch)
    start, got = threading.Barrier(40), []

    def student():
        start.wait()
        got.append(class_round.round_watch())

    threads = [threading.Thread(target=student) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(opened) == 1 and len({id(w) for w in got}) == 1 and len(got) == 40
    assert len([k for k in class_round._KEPT.keys() if k[0] == "rounds"]) == 1


def test_a_students_own_process_builds_the_steps_figures_before_the_reveal(monkeypatch):
    """With several server processes, the teacher's page prepares the class's steps in its own process only. The
    first student of another process shown the reveal built the step's figures inside the class's burst of woken
    reruns (86 ms there, issue #53 item 10). A student's page now has its own process build its step's and the next
    step's figures, off its own run. Here no teacher page runs, on a fresh set of shared values. Fails when the
    student's page does not ask (tried: the ``prepare_soon`` calls at the page's own run removed: nothing built in
    30 s) and when a step whose store cannot answer is never tried again (tried: ``_PREPARED`` kept on failure)."""
    import time

    import streamlit as st

    from mvlab.ui import lesson_step as ui
    from mvlab.ui import shared

    st.cache_resource.clear()  # process-wide: an earlier test's store is not this one's (conftest's app does the same)
    values = Memo(256)
    monkeypatch.setattr(shared, "VALUES", values)
    monkeypatch.setattr(ui, "_PREPARED", set())

    def built(step: int) -> bool:
        version = get_lesson("ofsp").version
        start = f'["lesson_step", ["ofsp", "{version}", "en", "en", {step}, '  # its texts' language, the reader's
        return any(k.startswith(start) for k in list(values._values))

    real, failing = ui.prepare, [True]

    def once_unavailable(lesson, number):  # the store cannot answer the first time each step is asked for
        if failing[0]:
            raise OSError("the store is down")
        return real(lesson, number)

    monkeypatch.setattr(ui, "prepare", once_unavailable)
    code = ClassRounds(ResultsStore().path).start("ofsp", step=3).round.code  # the class on step 4
    student = session(lesson="ofsp", step=4, round=code)
    time.sleep(0.5)
    assert not built(4) and not ui._PREPARED  # not prepared, and free to be tried again
    failing[0] = False
    student.run()
    deadline = time.monotonic() + 30
    while not (built(4) and built(5)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert built(4) and built(5), [e.value for e in [*student.warning, *student.error, *student.info]]
    assert not [m for m in student.markdown if "**Answer:" in m.value]  # built, not shown: the answer is not out


def test_a_students_process_prepares_the_steps_figures_in_the_students_language(monkeypatch):
    """A class in several languages: a German student's page has its process build the step's figures in German
    (the lesson's German texts, the figures' German words), once, off the student's run, so that the reveal finds
    them ready for every German student (#73, item 6). Broken once: the preparing thread, which has no session,
    built them in English (``["ofsp", version, "de", "en", ...]``), which no German reader looks up."""
    import time

    import streamlit as st

    from mvlab.ui import lesson_step as ui
    from mvlab.ui import shared

    st.cache_resource.clear()
    values = Memo(256)
    monkeypatch.setattr(shared, "VALUES", values)
    monkeypatch.setattr(ui, "_PREPARED", set())
    version = get_lesson("ofsp").version

    def built(reader: str) -> bool:
        start = f'["lesson_step", ["ofsp", "{version}", "de", "{reader}", 4, '
        return any(k.startswith(start) for k in list(values._values))

    code = ClassRounds(ResultsStore().path).start("ofsp", step=3).round.code
    session(lesson="ofsp", step=4, round=code, lang="de")
    deadline = time.monotonic() + 30
    while not built("de") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert built("de") and not built("en")


def test_a_student_ahead_of_the_class_is_told_so_and_answers_nothing_there():
    """Issue #71 item 2: a student who presses *Next* past the class's step reads the step but is told that answers
    count only on the class's step, and gets no choices to send; back on the class's step, the question is there.
    Fails when the page offers the choices off the class's step (tried: ask() without off_the_class: the choices
    and *Send* were drawn, and the store's refusal came only after the click)."""
    teacher = session(lesson="ofsp", step=2, teacher=1)
    teacher.button(key="round_start").click().run()
    code = teacher.query_params["round"]
    code = code[0] if isinstance(code, list) else code
    student = session(lesson="ofsp", step=2, round=code)
    student.button(key="lesson_next").click().run()
    assert not student.exception, student.exception
    assert step_titles(student) == [get_lesson("ofsp").steps[2].title]
    assert any("The class is on step 2: answers count only there" in i.value for i in student.info)
    assert not [r for r in student.radio if r.key == "lesson_ofsp_3_choice"]
    assert not [b for b in student.button if b.key == "lesson_ofsp_3_reveal"]
    student.button(key="lesson_back").click().run()
    assert [r for r in student.radio if r.key == "lesson_ofsp_2_choice"]
    assert ClassRounds(ResultsStore().path).all_counts([code]) == {}


def test_a_running_round_hides_its_unrevealed_answers_from_every_other_page(monkeypatch):
    """Issue #71 item 3: while a round of a lesson runs, a reader alone, teacher mode without the round's key and the
    handout show none of the answers the round has not revealed, whoever asks; a revealed step shows as before, and
    once the round is over (deleted, or older than MVLAB_ROUND_OPEN_HOURS) everything does. Fails when a reader's
    step does not ask (tried: show_step without hidden_steps: the reader revealed step 2's answer and figures while
    the class was predicting it)."""
    import time

    from mvlab.ui import class_round
    from mvlab.ui.lesson_step import HIDDEN_BY_A_ROUND

    monkeypatch.setenv("MVLAB_ROUND_OPEN_HOURS", "4")
    rounds = ClassRounds(ResultsStore().path)
    rounds.sweep(now=time.time() + 31 * 86400)  # the module's earlier rounds go: this one alone is running
    started = rounds.start("ofsp", step=1)
    code, key = started.round.code, started.key
    class_round._HIDDEN.clear()
    reader = session(lesson="ofsp", step=2)
    assert any(HIDDEN_BY_A_ROUND in i.value for i in reader.info)
    assert not reader.radio and not reader.get("plotly_chart") and not reader.dataframe
    projector = session(lesson="ofsp", step=2, teacher=1)  # teacher mode without the round's key
    assert not any("**Answer:" in m.value for m in projector.markdown) and not projector.get("plotly_chart")
    first = session(lesson="ofsp", step=1)
    assert not first.get("download_button")  # the handout holds every answer
    assert any("once the class round of this lesson that is running" in c.value for c in first.caption)
    rounds.reveal(code, key, 1)
    class_round._HIDDEN.clear()
    projector = session(lesson="ofsp", step=2, teacher=1)
    assert any("**Answer:" in m.value for m in projector.markdown)  # revealed to the class: shown
    assert any(HIDDEN_BY_A_ROUND in i.value for i in session(lesson="ofsp", step=3).info)  # not yet revealed
    rounds.delete(code, key)
    class_round._HIDDEN.clear()
    assert session(lesson="ofsp", step=1).get("download_button")  # the round is over: as before
    assert session(lesson="ofsp", step=3).radio


def test_the_projected_qr_code_decodes_to_the_students_link(tmp_path):
    """Issue #71 item 9: the QR code on the projector, decoded by a real QR reader (Debian's zbarimg, which .ci/run
    installs), is exactly the students' link shown beside it, and holds no teacher key. Fails when the QR code
    encodes anything else (tried: _qr_image given the teacher's link: the decoded text had key=)."""
    import base64
    import os
    import re
    import shutil
    import subprocess

    if shutil.which("zbarimg") is None:
        if os.environ.get("MVLAB_REQUIRE_BROWSER"):
            pytest.fail("zbarimg is missing (apt-get install zbar-tools; .ci/run does it)")
        pytest.skip("zbarimg is not installed (apt-get install zbar-tools)")
    teacher = session(lesson="ofsp", step=2, teacher=1)
    teacher.button(key="round_start").click().run()
    students = next(c.value for c in teacher.code if "round=" in c.value)
    images = [re.search(r'src="data:image/png;base64,([^"]+)"', h.proto.body) for h in teacher.get("html")]
    found = [m.group(1) for m in images if m]
    assert len(found) == 1
    png = tmp_path / "qr.png"
    png.write_bytes(base64.b64decode(found[0]))
    decoded = subprocess.run(["zbarimg", "--raw", "-q", str(png)], capture_output=True, text=True, timeout=30)
    assert decoded.returncode == 0, decoded.stderr
    assert decoded.stdout.strip() == students and "key=" not in decoded.stdout
