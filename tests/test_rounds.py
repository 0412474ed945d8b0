"""Class rounds: answers counted once per student and step, nobody named; only the teacher key reveals,
advances, renames, exports or deletes; several processes on one store count together."""

import multiprocessing as mp
import re

import pytest

from mvlab.store import ClassRounds, RoundError


@pytest.fixture
def rounds(store_location):
    return ClassRounds(store_location)


def test_a_round_has_a_short_code_and_a_key_that_is_not_stored(rounds):
    started = rounds.start("dvs")
    assert re.fullmatch(r"[A-HJ-NP-Z2-9]{4}", started.round.code)
    assert rounds.get(started.round.code.lower() + " ") == started.round  # any case, spaces ignored
    with rounds.engine.connect() as conn:
        stored = conn.exec_driver_sql("SELECT * FROM class_rounds").all()
    assert len(stored) == 1 and started.key not in str(stored)
    assert rounds.get("ZZZZ") is None


def test_a_student_who_changes_their_mind_is_counted_once(rounds):
    r = rounds.start("dvs").round
    for token, choice in [("a", 0), ("b", 1), ("c", 1), ("a", 2), ("a", 1)] + [("flood", 0)] * 50:
        rounds.answer(r.code, token, 1, choice)
    assert rounds.counts(r.code, 1) == {0: 1, 1: 3}
    assert rounds.answer_of(r.code, "a", 1) == 1 and rounds.counts(r.code, 2) == {}


def test_only_the_teacher_key_reveals_advances_renames_exports_and_deletes(rounds):
    started = rounds.start("dvs")
    code = started.round.code
    for wrong in ("", "not-the-key", code):
        for act in (lambda k: rounds.reveal(code, k, 1), lambda k: rounds.move_to(code, k, 2),
                    lambda k: rounds.rename(code, k, "x"), lambda k: rounds.delete(code, k),
                    lambda k: rounds.export_csv(code, k)):
            with pytest.raises(RoundError, match="only the teacher"):
                act(wrong)
    rounds.reveal(code, started.key, 1)
    rounds.move_to(code, started.key, 2)
    rounds.rename(code, started.key, "Tuesday 9:00")
    r = rounds.get(code)
    assert (r.revealed, r.step, r.name) == (frozenset({1}), 2, "Tuesday 9:00")
    rounds.delete(code, started.key)
    assert rounds.get(code) is None


def test_a_revealed_step_takes_no_more_answers_and_an_unknown_round_says_so(rounds):
    started = rounds.start("dvs")
    rounds.answer(started.round.code, "a", 1, 0)
    rounds.reveal(started.round.code, started.key, 1)
    with pytest.raises(RoundError, match="revealed"):
        rounds.answer(started.round.code, "a", 1, 2)
    assert rounds.counts(started.round.code, 1) == {0: 1}
    with pytest.raises(RoundError, match="no round 'QQQQ'"):
        rounds.answer("qqqq", "a", 1, 0)


def test_a_full_round_says_so_and_still_lets_a_student_change_their_answer(store_location):
    rounds = ClassRounds(store_location, max_answers=3)
    code = rounds.start("ofsp").round.code
    for token in "abc":
        rounds.answer(code, token, 0, 0)
    with pytest.raises(RoundError, match="full: it has taken its 3 answers"):
        rounds.answer(code, "d", 0, 0)
    rounds.answer(code, "a", 0, 1)
    assert rounds.counts(code, 0) == {0: 2, 1: 1}


def test_old_rounds_expire_and_are_swept(rounds):
    old = rounds.start("dvs", now=0.0).round
    new = rounds.start("dvs").round
    assert rounds.get(old.code) is None and rounds.get(new.code) is not None
    with pytest.raises(RoundError, match="expired"):
        rounds.answer(old.code, "a", 0, 0)
    assert rounds.sweep() == 1 and [r.code for r in rounds.rounds()] == [new.code]


def test_after_class_the_round_downloads_without_identities(rounds):
    started = rounds.start("dvs")
    code = started.round.code
    for token, step, choice in [("tab-1", 1, 0), ("tab-2", 1, 1), ("tab-3", 1, 1), ("tab-1", 2, 2)]:
        rounds.answer(code, token, step, choice)
    totals, per_answer = rounds.export_csv(code, started.key)
    assert totals.splitlines() == ["step,choice,count", "2,1,1", "2,2,2", "3,3,1"]
    assert "tab-" not in per_answer and per_answer.splitlines()[0] == "step,student,choice,seconds after the start"
    assert [r["student"] for r in _rows(per_answer)] == ["1", "2", "3", "1"]
    summary = rounds.summary(code, started.key, {1: 1, 2: 0})
    assert [(s["step"], s["answers"], round(s["share correct"], 3)) for s in summary] == [(1, 3, 0.667), (2, 1, 0.0)]


def _rows(text):
    import csv
    import io

    return list(csv.DictReader(io.StringIO(text)))


def _answer_many(path, code, prefix, n):
    store = ClassRounds(path)
    for i in range(n):
        store.answer(code, f"{prefix}-{i}", 1, i % 3)


def test_two_processes_on_one_store_count_together(store_location):
    path = store_location
    code = ClassRounds(path).start("dvs").round.code
    ctx = mp.get_context("spawn")
    workers = [ctx.Process(target=_answer_many, args=(path, code, p, 40)) for p in ("server-a", "server-b")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    assert sum(ClassRounds(path).counts(code, 1).values()) == 80


def test_many_rounds_and_their_counts_are_read_in_one_look(rounds):
    first, second = rounds.start("dvs").round, rounds.start("ofsp", share=True).round
    for token, choice in [("a", 0), ("b", 1), ("c", 1)]:
        rounds.answer(first.code, token, 1, choice)
    rounds.answer(second.code, "a", 0, 2)
    found = rounds.many([first.code.lower(), second.code, "ZZZZ"])
    assert found == {first.code: rounds.get(first.code), second.code: rounds.get(second.code)}
    assert rounds.many([]) == {} and rounds.all_counts([]) == {}
    assert rounds.all_counts([first.code, second.code]) == {(first.code, 1): {0: 1, 1: 2}, (second.code, 0): {2: 1}}
    assert rounds.all_counts([first.code])[(first.code, 1)] == rounds.counts(first.code, 1)


def test_the_store_keeps_its_connections_and_answers_given_at_once_never_pass_the_cap(store_location):
    import threading

    from sqlalchemy import event

    rounds = ClassRounds(store_location, max_answers=30)
    opened = []
    event.listen(rounds.engine, "connect", lambda *_: opened.append(1))
    code = rounds.start("dvs").round.code
    for i in range(20):
        rounds.answer(code, f"t{i}", 1, i % 3)
        assert rounds.get(code) is not None
    assert len(opened) <= 1  # one connection (kept from making the schema, or made once) served 41 calls
    with pytest.raises(RoundError):
        rounds.reveal(code, "wrong key", 1)  # refused inside a transaction: rolled back, the connection kept
    assert rounds.get(code).revealed == frozenset() and len(opened) <= 1

    barrier, errors = threading.Barrier(16), []

    def student(i):
        try:
            barrier.wait()
            rounds.answer(code, f"s{i}", 2, i % 3)
        except RoundError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # 20 answers were in: 10 more fit, 6 students are told the round is full, whatever the order
    assert sum(rounds.counts(code, 2).values()) == 10
    assert len(errors) == 6 and all("full" in str(e) for e in errors)
    assert rounds.engine.pool.checkedin() <= rounds.KEPT + (rounds.KEPT if rounds.dialect == "postgresql" else 0)


def test_the_students_link_uses_the_public_address_and_says_when_it_names_the_teachers_machine():
    from mvlab.ui.rounds import students_base

    assert students_base("http://10.1.2.3:8501/lessons?lesson=dvs&step=2", None) == ("http://10.1.2.3:8501", None)
    assert students_base("https://mvlab.example.edu/lessons", None) == ("https://mvlab.example.edu", None)
    for local in ("http://localhost:8501/lessons?teacher=1", "http://127.0.0.1:8501/lessons", "http://[::1]:8501/"):
        base, note = students_base(local, None)
        assert base.startswith("http") and "will not open on their devices" in note and "MVLAB_PUBLIC_URL" in note
    assert students_base("http://localhost:8501/lessons", "https://mvlab.example.edu/ ") == \
        ("https://mvlab.example.edu", None)  # behind a proxy, or a teacher on localhost: the address students use
    with pytest.raises(ValueError, match="MVLAB_PUBLIC_URL='mvlab.example.edu' is not an address"):
        students_base("http://localhost:8501/lessons", "mvlab.example.edu")
