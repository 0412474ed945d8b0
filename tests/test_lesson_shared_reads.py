"""What a class shown a step shares instead of each student asking again (issue #53, item 10: a woken student's
rerun close to Streamlit's own floor): a revealed step's counts and a step's stored result are read once per server
process, and the rounds and their watch are found without Streamlit's cache machinery on every page run."""

import time

import pytest

from mvlab.core.memo import Memo
from mvlab.lessons import get_lesson
from mvlab.store import Round, StoreUnavailable
from mvlab.ui import class_round, shared
from mvlab.ui import lesson_step as lessons_ui


@pytest.fixture
def fresh_shared(monkeypatch):
    """An empty store of shared values (the process's own is shared by every test that draws a page)."""
    monkeypatch.setattr(shared, "VALUES", Memo(16))


def test_a_revealed_steps_counts_are_read_once_per_process(monkeypatch, fresh_shared):
    """Three students woken by the reveal share one read of the class's answers; the same code for a round started
    again later (deleted, its code drawn anew) reads its own. Fails when each page reads them (tried:
    revealed_counts calling class_rounds().counts itself: three reads)."""
    reads = []

    class Store:
        def counts(self, code, step):
            reads.append((code, step))
            return {1: 2, 0: 1}

    monkeypatch.setattr(class_round, "class_rounds", lambda: Store())
    now = time.time()
    revealed = Round("T3ST", "ofsp", "a round", now, 1, frozenset({1}))
    for _ in range(3):
        view = class_round.RoundView("T3ST", None)
        view._drawn = (revealed,)  # the round as the student's rerun drew it: step 2 revealed
        assert class_round.revealed_counts(view, 1) == {1: 2, 0: 1}
    assert reads == [("T3ST", 1)]
    view = class_round.RoundView("T3ST", None)
    view._drawn = (Round("T3ST", "ofsp", "a later round", now + 60, 1, frozenset({1})),)
    class_round.revealed_counts(view, 1)
    assert len(reads) == 2


def test_a_steps_stored_result_is_looked_up_once_per_process_and_a_missing_one_again(monkeypatch, fresh_shared):
    """Fails when every reader looks it up in the store (tried: stored_context calling its read() directly: three
    lookups for three readers) and when a step not stored yet is kept as missing (tried: read() returning None
    instead of raising: the result stored later was never found)."""
    looked, stored = [], {"result": None}

    def lookup(settings, data, result_type):
        looked.append(settings)
        return stored["result"]

    monkeypatch.setattr(lessons_ui.runs, "lookup", lookup)
    run = get_lesson("ofsp").steps[0].run
    assert lessons_ui.stored_context(run) is None and lessons_ui.stored_context(run) is None
    assert len(looked) == 2  # not stored yet: looked for again
    stored["result"] = object()
    contexts = [lessons_ui.stored_context(run) for _ in range(3)]
    assert len(looked) == 3 and all(c is contexts[0] for c in contexts) and contexts[0].result is stored["result"]


def test_the_rounds_and_their_watch_are_kept_per_process_for_their_environment(monkeypatch):
    """One opening per environment, kept; another environment opens its own; a store that cannot be opened is said
    (StoreUnavailable) and opened again at the next call. Fails when each call goes through Streamlit's cache again
    (tried: class_rounds() returning _rounds(*_settings()): a new opening per call) and when a failed opening is kept
    (tried: the failure stored in _KEPT)."""
    monkeypatch.setattr(class_round, "_KEPT", Memo(None))
    monkeypatch.setattr(class_round, "_settings", lambda: ("a store", 30.0, 5000, 120, 5.0))
    opened = []
    monkeypatch.setattr(class_round, "_rounds", lambda *settings: opened.append(settings) or object())
    monkeypatch.setattr(class_round, "_watch", lambda *settings: opened.append(settings) or object())
    first, watch = class_round.class_rounds(), class_round.round_watch()
    assert class_round.class_rounds() is first and class_round.round_watch() is watch and len(opened) == 2
    monkeypatch.setenv("MVLAB_ROUND_MAX_ANSWERS", "10")
    assert class_round.class_rounds() is not first and len(opened) == 3

    monkeypatch.setenv("MVLAB_ROUND_MAX_ANSWERS", "11")

    def down(*settings):
        raise ValueError("Cannot open the results store: connection refused.")

    monkeypatch.setattr(class_round, "_rounds", down)
    with pytest.raises(StoreUnavailable, match="connection refused"):
        class_round.class_rounds()
    monkeypatch.setattr(class_round, "_rounds", lambda *settings: "opened")
    assert class_round.class_rounds() == "opened"


def test_a_steps_keys_are_worked_out_once_per_process_and_equal_the_plain_ones(monkeypatch):
    """A step's result key (and its stored-result and data keys) come from its settings once per process, not at
    each woken run of each student; each equals the key worked out directly (the reference). Fails when the key is
    worked out again (tried: _once calling compute() always) or kept for another run (tried: keyed by kind alone)."""
    from mvlab.lessons import LESSONS
    from mvlab.lessons.model import StepContext
    from mvlab.ui import runs

    monkeypatch.setattr(lessons_ui, "_ONCE", Memo(None))
    keys = {}
    for lesson in LESSONS.values():
        for step in lesson.steps:
            data = lessons_ui._data(step.run)
            ctx = StepContext(None, data, step.run.settings)
            keys[step.run] = lessons_ui._result_key(step, ctx)
            assert keys[step.run] == runs.result_key(step.run.settings, data)  # the plain reference
    assert len(set(keys.values())) == len(keys)  # each run its own key
    calls = []
    original = type(next(iter(keys)).settings).key
    monkeypatch.setattr(type(next(iter(keys)).settings), "key", lambda self: calls.append(1) or original(self))
    for run in keys:
        lessons_ui._once("result", run, lambda: calls.append("again"))
    assert "again" not in calls and not calls
