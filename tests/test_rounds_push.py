"""A class round on a real Streamlit server, spoken to in Streamlit's own protocol (no browser): a waiting
student's page asks the server nothing, and the reveal and the next step still reach it, pushed by the
server's watch (mvlab.ui.wake), within the 2 s a class waits at most."""

import time

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from browser import running_app
from mvlab.lessons import get_lesson
from mvlab.lessons.step_results import warm
from mvlab.store import ClassRounds, ResultsStore
from streamlit_client import StudentSession

LIVE = 2.0  # seconds: the bound for the reveal and the next step to reach a student
JOINS_PER_ADDRESS = 5  # the server's limit of new students from one network address per minute (default 120)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("push") / "results.sqlite"
    warm(get_lesson("ofsp"), ResultsStore(store), say=lambda line: None)
    with running_app(store, MVLAB_WORKERS="1", MVLAB_ROUND_JOINS_PER_ADDRESS=str(JOINS_PER_ADDRESS)) as url:
        yield url, store


def one_student_answered(url: str, store) -> tuple[StudentSession, str, str]:
    """A round of the ofsp lesson started at step 2, and one student's session that sent (b) there and read the rest
    of that run; with the round's code and teacher key."""
    started = ClassRounds(store).start("ofsp", step=1)
    code, key = started.round.code, started.key
    student = StudentSession(url, "lessons", f"lesson=ofsp&step=2&round={code}")
    student.choose(get_lesson("ofsp").steps[1].question.prompt, 1)
    student.click("Send my answer")
    assert student.wait_for_text("Your answer is in", 60)
    student._read_until(lambda: False, 30)  # the rest of that run
    return student, code, key


def arrives(session: StudentSession, words: str, timeout: float) -> float | None:
    """Seconds until an element with ``words`` arrives, reading only (the session sends nothing)."""
    start, session.texts = time.perf_counter(), []
    try:
        session._read_until(lambda: any(words in t for t in session.texts), timeout)
    except TimeoutError:
        return None
    return time.perf_counter() - start if any(words in t for t in session.texts) else None


def test_a_waiting_student_is_woken_by_the_server_for_the_reveal_and_the_next_step(server):
    url, store = server
    lesson = get_lesson("ofsp")
    started = ClassRounds(store).start("ofsp", step=1)
    code, key = started.round.code, started.key
    students = [StudentSession(url, "lessons", f"lesson=ofsp&step=2&round={code}") for _ in range(3)]
    for s, choice in zip(students, (1, 0, 1)):
        s.choose(lesson.steps[1].question.prompt, choice)
        s.click("Send my answer")
        assert s.wait_for_text("Your answer is in", 60)
        s._read_until(lambda: False, 30)  # the rest of that run
        assert s.auto == {}, "a student's page set itself a timer: the server's push is off"
    assert ClassRounds(store).counts(code, 1) == {1: 2, 0: 1}

    ClassRounds(store).reveal(code, key, 1)  # as the teacher's button does, on this or another process
    answer = f"Answer: ({chr(97 + lesson.steps[1].question.answer)})"
    took = [arrives(s, answer, 10) for s in students]
    assert all(t is not None and t <= LIVE for t in took), took
    for s in students:
        s._read_until(lambda: False, 30)

    ClassRounds(store).move_to(code, key, 2)
    took = [arrives(s, lesson.steps[2].title, 10) for s in students]
    assert all(t is not None and t <= LIVE for t in took), took
    assert not any(s.exceptions for s in students)
    for s in students:
        s.close()


def woken_run(session: StudentSession, timeout: float = 10.0) -> dict:
    """What the server sent ``session`` (woken, asking nothing) until that run finished: the fragments its elements
    were drawn in ("" for the page's own), whether it was a fragment's run, how often it wrote the address, and the
    texts."""
    parts, writes, texts, finished, sent = set(), 0, [], None, []
    deadline = time.time() + timeout
    while finished is None:
        msg = ForwardMsg()
        msg.ParseFromString(session.ws.recv(timeout=max(0.01, deadline - time.time())))
        kind = msg.WhichOneof("type")
        if kind == "delta":
            parts.add(msg.delta.fragment_id)
            sent.append(msg.delta.WhichOneof("type") if msg.delta.WhichOneof("type") != "new_element"
                        else msg.delta.new_element.WhichOneof("type"))
            element = msg.delta.new_element if msg.delta.WhichOneof("type") == "new_element" else None
            if element is not None and element.WhichOneof("type") in ("heading", "markdown", "alert"):
                texts.append(getattr(element, element.WhichOneof("type")).body)
        elif kind == "page_info_changed":
            writes += 1
            session.query = msg.page_info_changed.query_string
        elif kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            finished = msg.script_finished
    return {"parts": parts, "fragment run": finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
            "writes": writes, "texts": texts, "sent": sent}


def test_a_woken_student_reruns_its_step_alone_and_the_whole_page_only_where_its_buttons_change(server):
    """The reveal and the next step rerun the student's step alone (one fragment: the navigation, the sidebar and
    the page's setup are not run nor sent again); neither writes the address (the next step's goes at the page's
    next whole run, and a reload meanwhile opens the round's step); a move to the last step reruns the whole page,
    whose Next button goes. Fails when the watch wakes the whole page
    (tried: follow_the_round's step_part left "": every element sent again, outside the fragment), when the address is
    written even where it says so already (tried: publish_place without its check: the last step's run wrote it
    twice), and when the move to the last step stays in the part (tried: student_step's check of the buttons
    removed: a fragment's run). Fails too when a woken student is sent more than the step needs (issue #53 item 10;
    tried: the step's progress, title and text drawn as three elements again; a figure's text as a caption, an
    expander and a table; the radio drawn after the reveal; the notes in an element of their own; the class's
    answers as a plotly figure, or apart from the answer, or the answer apart from the step's top, or the figure's
    text apart from it; the disabled Send drawn before a choice; the address written by the woken move: tried,
    each), and when the page's next whole run goes back to the address's step (tried: place_from_address comparing
    the address with the session's place instead of
    with what it last wrote or read)."""
    url, store = server
    lesson = get_lesson("ofsp")
    student, code, key = one_student_answered(url, store)

    ClassRounds(store).reveal(code, key, 1)
    revealed = woken_run(student)
    assert revealed["fragment run"] and len(revealed["parts"]) == 1 and "" not in revealed["parts"], revealed["parts"]
    assert any(f"Answer: ({chr(97 + lesson.steps[1].question.answer)})" in t for t in revealed["texts"])
    assert revealed["writes"] == 0
    # what a woken reveal sends each student: no choices (closed); the step's top, the answer with its notes, the
    # class's answers (HTML bars) and the text of the step's one figure in one element; the chart, named by its text
    assert revealed["sent"] == ["add_block", "markdown", "plotly_chart"]
    assert any("Answer: (" in t and "<p>Figure: " in t and "The figure's data as a table" in t
               for t in revealed["texts"])
    assert any("The class's answers: 1 answered" in t and "Answer: (" in t for t in revealed["texts"])

    ClassRounds(store).move_to(code, key, 2)
    moved = woken_run(student)
    assert moved["fragment run"] and moved["parts"] == revealed["parts"]
    assert any(f"## {lesson.steps[2].title}" in t for t in moved["texts"])
    assert moved["writes"] == 0 and "step=2" in student.query  # the address follows at the page's next whole run
    assert moved["sent"] == ["add_block", "markdown", "radio"]  # the top, the choices (Send comes with a choice)
    reloaded = StudentSession(url, "lessons", student.query)  # a reload meanwhile: the round's step all the same
    assert any(f"## {lesson.steps[2].title}" in t for t in reloaded.texts), reloaded.texts
    reloaded.close()
    student.run()  # the page's next whole run (a click outside the part): still the moved step, and now the address
    assert any(f"## {lesson.steps[2].title}" in t for t in student.texts) and "step=3" in student.query

    ClassRounds(store).move_to(code, key, len(lesson.steps) - 1)
    last = woken_run(student)
    assert not last["fragment run"] and "" in last["parts"]  # the whole page: Next is disabled on the last step
    assert any(f"## {lesson.steps[-1].title}" in t for t in last["texts"])
    assert f"step={len(lesson.steps)}" in student.query
    assert last["writes"] == 1  # the page's own run wrote the address, once
    student.close()


def test_a_deleted_round_reaches_its_students_as_a_note(server):
    url, store = server
    started = ClassRounds(store).start("ofsp", step=1)
    student = StudentSession(url, "lessons", f"lesson=ofsp&step=2&round={started.round.code}")
    ClassRounds(store).delete(started.round.code, started.key)
    assert arrives(student, "There is no class round", 10) is not None
    student.close()


def test_a_round_that_shares_its_distribution_updates_it_and_still_reveals(server):
    """The waiting part alone is rerun when the class's counts change (every SHARE_REFRESH seconds at most), and
    a page woken that way still follows the round: the reveal reaches it after an update of the counts."""
    url, store = server
    lesson = get_lesson("ofsp")
    started = ClassRounds(store).start("ofsp", share=True, step=1)
    code, key = started.round.code, started.key
    ClassRounds(store).answer(code, "someone", 1, 0)
    student = StudentSession(url, "lessons", f"lesson=ofsp&step=2&round={code}")
    student.choose(lesson.steps[1].question.prompt, 1)
    student.click("Send my answer")
    assert student.wait_for_text("Your answer is in", 60)
    student._read_until(lambda: False, 30)
    assert any("2 answered" in t for t in student.texts) and student.auto == {}
    for i in range(2):  # two updates in a row: each wake leaves the page following the round
        ClassRounds(store).answer(code, f"late-{i}", 1, 2)
        took = arrives(student, f"{3 + i} answered", 10)
        assert took is not None and took <= 2.5 + 0.5, took  # SHARE_REFRESH plus a look and a rerun
        student._read_until(lambda: False, 10)
    ClassRounds(store).reveal(code, key, 1)
    took = arrives(student, f"Answer: ({chr(97 + lesson.steps[1].question.answer)})", 10)
    assert took is not None and took <= LIVE, took
    student.close()


@pytest.mark.parametrize("made_up", ["7", "-3", "abc", "9" * 30])
def test_a_made_up_choice_sent_by_a_script_is_refused_in_words_and_never_counted(server, made_up):
    """The radio's value in the protocol's message is one the page never offered: refused in words, nothing stored,
    no exception, never "Your answer is in". The page checks the value (checked_choice) and so does the store
    (_whole): fails when neither does (tried: send() passing the radio's value on and the store's int(choice):
    "7" and "-3" were stored and counted, "abc" and the long one raised)."""
    url, store = server
    lesson = get_lesson("ofsp")
    code = ClassRounds(store).start("ofsp", step=1).round.code
    student = StudentSession(url, "lessons", f"lesson=ofsp&step=2&round={code}")
    widget_id, _ = student.radios[lesson.steps[1].question.prompt]
    student.values[widget_id] = made_up
    student.choose(lesson.steps[1].question.prompt, 0)
    student.values[widget_id] = made_up  # choose() set a real option; the script sends its own
    student.click("Send my answer")
    student._read_until(lambda: False, 30)
    assert not student.exceptions, student.exceptions
    assert any("not one of the choices" in t for t in student.texts), student.texts
    assert not any("Your answer is in" in t for t in student.texts)
    assert ClassRounds(store).counts(code, 1) == {}
    student.close()


def test_one_browser_is_one_student_across_sessions_and_a_new_address_flood_is_held_back(server):
    """Two sessions of one browser (its cookie, as after a reload or in a second tab) answer once between them and
    the second finds the answer sent; sessions that each come as a new browser from one network address (through
    the proxy's X-Real-IP, believed from this machine only) are refused past the address's limit, in words. Fails
    when the token is per session (tried: {1: 2}) or when joins are not limited (tried: the address check removed:
    every session joined)."""
    url, store = server
    lesson = get_lesson("ofsp")
    prompt = lesson.steps[1].question.prompt
    code = ClassRounds(store).start("ofsp", step=1).round.code
    query = f"lesson=ofsp&step=2&round={code}"
    cookie = "mvlab_id=one-browser-0123456789abcdef"
    first = StudentSession(url, "lessons", query, cookie=cookie)
    first.choose(prompt, 1)
    first.click("Send my answer")
    assert first.wait_for_text("Your answer is in", 60)
    again = StudentSession(url, "lessons", query, cookie=cookie)
    assert any("Your answer is in" in t for t in again.texts), again.texts
    assert ClassRounds(store).counts(code, 1) == {1: 1}
    for s in (first, again):
        s.close()

    admitted, refused = 0, []
    while not refused and admitted <= JOINS_PER_ADDRESS:
        s = StudentSession(url, "lessons", query, headers={"X-Real-IP": "203.0.113.9"})
        refused = [t for t in s.texts if "new students joined from your network address" in t]
        admitted += not refused
        s.close()
    assert refused and admitted == JOINS_PER_ADDRESS, (admitted, refused)

