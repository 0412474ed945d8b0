"""mvlab.engine when something fails under it (issue #53, item 4): a run whose start fails (the results store locked
or down, the scheduler refusing its task) leaves nothing registered and starts when asked again; the engine's lock is
never held while the store is read or written; a worker's death is said for what it was (killed, out of memory,
exit status, unknown), never guessed."""

import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from test_engine import Rows, failing_first, loop_threads, request, steps, still_running, store_only_at, wait_state

from mvlab.engine import Engine, EngineConfig, records
from mvlab.engine.deaths import Death, _death_in_log, death_message
from mvlab.engine.requests import RunNotStarted
from mvlab.store import ResultsStore


def reports_pid(data, progress):
    """``data = (pid file, n steps)``: writes this worker's process id, then reports progress every 0.05 s."""
    path, n = data
    Path(path).write_text(str(os.getpid()))
    for i in range(n):
        time.sleep(0.05)
        progress((i + 1) / n, f"step {i + 1} of {n}")
    return Rows(1.0)


@pytest.fixture(scope="module")
def engine():
    eng = Engine(EngineConfig(n_workers=1, dashboard=None), stop_grace=3.0)
    eng.connect()  # one embedded worker for the module
    yield eng
    eng.close()


@pytest.fixture
def quick_store(tmp_path, monkeypatch):
    """The store the engine records in, with a busy timeout of 0.3 s (the default 30 s would make each test wait)."""
    store = ResultsStore(tmp_path / "r.sqlite", timeout=0.3)
    store_only_at(monkeypatch, store.location, store)
    return store


def registered(engine, key):
    """What the engine keeps of runs with this key: (jobs, key entries, queued count)."""
    status = engine.server_status()
    jobs = [j for j in engine._jobs.values() if j.request.key == key]
    return jobs, key in engine._by_key, status.queued


def test_a_start_the_locked_store_refuses_leaves_no_run_and_the_same_train_starts_once_it_is_free(engine, quick_store):
    """Another process holds SQLite's write lock past the busy timeout: the Train is refused in words, nothing of it
    stays in the engine, and the same Train (this holder's or another's) starts as soon as the lock is gone.

    Fails when the registration is not undone on a failed start (tried: ``_withdraw`` reduced to ``pass``: the
    retry attaches to a run that has no task, queued forever, and the engine keeps the job)."""
    req = request(steps, (2, 0.05, 0.5), quick_store, key="locked-once")
    other = sqlite3.connect(quick_store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's write lock, held
    try:
        with pytest.raises(RunNotStarted, match=r"The results store is unavailable right now\. Your run "
                                                r"was not started: try again in a moment"):
            engine.submit(req, "ann")
        assert registered(engine, req.key) == ([], False, 0)
        assert engine.job_of("ann") is None
    finally:
        other.execute("ROLLBACK")
        other.close()
    again = engine.submit(req, "bob")  # another student's Train on the same settings
    assert wait_state(engine, again, ("finished",), timeout=60).state == "finished"
    runs = quick_store.runs()
    assert runs["status"].tolist() == ["finished"]  # the refused start left no record behind


def test_a_task_the_scheduler_refuses_is_taken_back_and_its_record_marked_failed(engine, quick_store, monkeypatch):
    """Anything failing between the run's registration and its task's submission (here the Dask client) takes the
    run back out; the record it had started is marked failed with the reason, and the next Train starts.

    Fails when the failure is not caught in ``submit`` (tried: the ``try`` around ``_launch`` removed: an
    OSError, not RunNotStarted, and the job stays registered)."""
    req = request(steps, (2, 0.05, 0.25), quick_store, key="refused-once")
    real = engine.client.submit
    calls = []

    def refuse_once(*args, **kwargs):
        calls.append(args[0])
        if len(calls) == 1:
            raise OSError("the scheduler closed the connection")
        return real(*args, **kwargs)

    monkeypatch.setattr(engine.client, "submit", refuse_once)
    with pytest.raises(RunNotStarted, match="could not be started .*OSError: the scheduler closed the connection"):
        engine.submit(req, "cy")
    assert registered(engine, req.key) == ([], False, 0) and engine.job_of("cy") is None
    failed = quick_store.runs()
    assert failed["status"].tolist() == ["failed"] and "scheduler closed" in failed.loc[0, "summary"]["error"]
    again = engine.submit(req, "cy")
    assert wait_state(engine, again, ("finished",), timeout=60).state == "finished"


def train_page(location):
    """A page with one Train button on the engine (:func:`mvlab.ui.runs.engine_button`), recorded at ``location``."""
    from types import SimpleNamespace

    import streamlit as st
    from test_engine import request, steps

    from mvlab.ui import runs

    outcome = runs.engine_button(request(steps, (2, 0.05, 0.5), SimpleNamespace(location=location), key="ui-locked"),
                                 "train", "Training")
    if outcome is not None:
        st.write(f"value {outcome.result.value}")


@pytest.fixture
def shared(engine):
    """The module's engine as the pages' shared one."""
    from mvlab.engine import use_engine

    previous = use_engine(engine)
    yield engine
    use_engine(previous)


def test_a_train_while_the_store_is_locked_says_so_in_words_and_the_next_train_runs(shared, quick_store):
    """The page of a Train refused by a locked store shows the reason and that the run was not started (an
    ``st.error``, no exception), and the same button runs it once the store is free.

    Fails when the page lets the store's error through (tried: ``RunNotStarted`` deriving from RuntimeError, which
    ``engine_button`` does not catch: the AppTest holds the exception)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(train_page, args=(quick_store.location,), default_timeout=60).run()
    other = sqlite3.connect(quick_store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        at.button(key="train").click().run()
        assert not at.exception, at.exception
        [said] = [e.value for e in at.error]
        assert "is unavailable right now" in said and "Your run was not started: try again in a moment" in said
    finally:
        other.execute("ROLLBACK")
        other.close()
    at.button(key="train").click().run()
    assert not at.exception and not at.error, (at.exception, at.error)
    assert [m.value for m in at.markdown if m.value.startswith("value")] == ["value 0.5"]


def lookup_page():
    """A page that looks up a stored result (:func:`mvlab.ui.runs.lookup`)."""
    from types import SimpleNamespace

    import streamlit as st
    from test_engine import Rows

    from mvlab.ui import runs

    settings, data = SimpleNamespace(kind="test", key=lambda: {"trees": 1}), SimpleNamespace(fingerprint=lambda: "fp")
    found = runs.lookup(settings, data, Rows)
    st.write(f"found {found}")


def test_a_store_that_cannot_answer_is_said_on_the_page_and_looked_up_again_once_it_is_back(monkeypatch):
    """Fails when ``lookup`` lets StoreUnavailable through (tried: its ``except StoreUnavailable`` removed: a
    traceback in the AppTest)."""
    from streamlit.testing.v1 import AppTest

    from mvlab.store import StoreUnavailable
    from mvlab.ui import runs

    real = runs.shared.stored_result

    def down(*args, **kwargs):
        raise StoreUnavailable(detail="postgresql://mvlab@db/mvlab: connection refused")

    monkeypatch.setattr(runs.shared, "stored_result", down)
    at = AppTest.from_function(lookup_page, default_timeout=30).run()
    assert not at.exception, at.exception
    [said] = [w.value for w in at.warning]
    assert "unavailable right now" in said and "cannot be shown until it is back" in said
    assert "mvlab@db" not in said and "refused" not in said  # the store's internals stay in the server's log
    monkeypatch.setattr(runs.shared, "stored_result", real)
    at.run()
    assert not at.exception and not at.warning
    assert [m.value for m in at.markdown] == ["found None"]


class LockWatchingStore:
    """A results store that notes, for each call, whether the thread making it held the engine's lock (an RLock's
    ``_is_owned``: asked from another thread, the engine's own threads taking the lock for a moment meanwhile
    would count)."""

    def __init__(self, store, lock):
        self._store, self._lock, self.calls = store, lock, []

    def __getattr__(self, name):
        attr = getattr(self._store, name)
        if not callable(attr):
            return attr

        def watched(*args, **kwargs):
            self.calls.append((name, self._lock._is_owned()))
            return attr(*args, **kwargs)

        return watched


def test_the_engine_lock_is_never_held_while_the_store_is_read_or_written(engine, tmp_path, monkeypatch):
    """Every store call of a run (its typical duration read, its start, running mark, results, artifact and end)
    is made with the engine's lock free: a store slow to answer (SQLite locked for 30 s) holds up the caller
    that asked, never every page's status and every other Train.

    Fails when the store is read under the lock (tried: ``self._typical(request)`` called inside ``with
    self._lock`` in ``submit``, as before: ``typical_seconds`` is noted as held)."""
    watching = LockWatchingStore(ResultsStore(tmp_path / "watched.sqlite"), engine._lock)
    store_only_at(monkeypatch, watching.location, watching)
    req = request(steps, (2, 0.05, 0.75), watching, kind=f"watched-{time.time_ns()}")  # never measured: store read
    job = engine.submit(req, "dee")
    assert wait_state(engine, job, ("finished",), timeout=60).state == "finished"
    assert engine.wait(job, timeout=10)
    called = [name for name, _ in watching.calls]
    for expected in ("typical_seconds", "start_run", "mark_running", "add_results", "put_artifact", "finish_run"):
        assert expected in called, called
    assert [name for name, held in watching.calls if held] == []


def test_a_worker_killed_during_a_run_is_said_killed_not_out_of_memory(engine, tmp_path):
    """SIGKILL sent to the worker that runs a Train, from outside: the run fails saying its worker was killed by
    signal 9, not that it needed more memory; the restarted worker takes the next run.

    Fails when every worker death is said to be memory (tried: ``death_message`` returning the memory message for
    every cause, as before)."""
    pid_file = tmp_path / "pid"
    job = engine.submit(request(reports_pid, (str(pid_file), 600)), "eve")
    wait_state(engine, job, ("running",))
    deadline = time.time() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.time() < deadline
        time.sleep(0.05)
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    status = wait_state(engine, job, ("failed",), timeout=60)
    assert "killed (signal 9, SIGKILL) from outside mvlab" in status.error, status.error
    assert "memory" not in status.error
    nxt = engine.submit(request(steps, (2, 0.05, 1.0)), "eve")
    assert wait_state(engine, nxt, ("finished",), timeout=60).state == "finished"


def starts_a_run_and_waits(pid_file, store, progress):
    """A computation that records its own run (as the Benchmark page's) and then waits, its worker's process id
    written to ``pid_file``, without ever ending the run."""
    store.start_run("relay-death", "toy", "fp", 0, {})
    Path(pid_file).write_text(str(os.getpid()))
    for i in range(1200):
        time.sleep(0.05)
        progress(i / 1200, "waiting")


def test_a_relayed_run_whose_worker_dies_is_ended_failed_not_left_running(engine, tmp_path):
    """A computation given a StoreRelay records its run from the worker; SIGKILL to the worker: the engine, when it
    collects the relay at the task's end, ends that run ``failed`` saying why, instead of leaving it ``running``
    until the server's next start (its owner, the server, is alive: no sweep would end it).

    Fails when the engine does not collect the relay of a task that ended (tried: ``self._collect_relay(job)`` taken
    out of ``Engine._finish``: the run stays ``running``)."""
    import functools

    from mvlab.engine import Request
    from mvlab.engine.relay import StoreRelay

    store = ResultsStore(tmp_path / "asker.sqlite")
    pid_file = tmp_path / "pid"
    fn = functools.partial(starts_a_run_and_waits, str(pid_file))
    job = engine.submit(Request("relay-death", f"relay-death-{time.time_ns()}", fn, StoreRelay(store.location)),
                        "zoe")
    deadline = time.time() + 60
    while store.runs().empty or not pid_file.exists() or not pid_file.read_text():  # the start came back first
        assert time.time() < deadline, engine.status(job)
        time.sleep(0.05)
    assert store.runs().loc[0, "status"] == "running"
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert wait_state(engine, job, ("failed",), timeout=60).state == "failed"
    assert engine.wait(job, timeout=10)
    run = store.runs().loc[0]
    assert run["status"] == "failed" and "worker" in run["summary"]["error"], run
    assert engine._receiver._relays == {}  # the relay forgotten: nothing of it kept by the engine


NANNY_LINES = [  # as distributed 2026.8's nanny logs them, newest first
    "2026-11-27 03:33:33,503 - distributed.nanny - WARNING - Restarting worker (status=Status.running)",
    "2026-11-27 03:33:33,499 - distributed.nanny - INFO - Worker process 7957 was killed by signal 15",
    "2026-11-27 03:33:33,489 - distributed.nanny.memory - WARNING - Worker tcp://127.0.0.1:39757 (pid=7957) "
    "exceeded 95% memory budget. Restarting...",
    "2026-11-27 03:30:00,000 - distributed.nanny - INFO - Worker process 7001 exited with status 3",
    "2026-11-27 03:29:00,000 - distributed.nanny - INFO - Worker process 6999 was killed by signal 9",
]


def test_the_nanny_log_tells_each_death_of_its_own_process():
    """Fails when a death is read from another process's line (tried: matching any "Worker process N" line: 7001
    reads as the newest line's signal 15), or when the memory restart is read as a plain SIGTERM."""
    assert _death_in_log(NANNY_LINES, 7957) == Death("memory")  # its SIGTERM came from the memory monitor
    assert _death_in_log(NANNY_LINES, 7001) == Death("exited", status=3)
    assert _death_in_log(NANNY_LINES, 6999) == Death("killed", signal=9)
    assert _death_in_log(NANNY_LINES, 1234) is None


NOT_MEMORY = ("needed more memory", "out of memory")
NOT_OUTSIDE = ("from outside", "nothing says why")


@pytest.mark.parametrize("death, used, said, not_said", [
    (Death("memory"), 0, "needed more memory than a worker has (2.0 GB)", NOT_OUTSIDE),
    (Death("killed", signal=9), 100_000_000, "killed (signal 9, SIGKILL) from outside mvlab", NOT_MEMORY),
    (Death("killed", signal=9), 1_900_000_000, "killed (signal 9, SIGKILL) while it used 1.9 of its 2.0 GB: most "
                                               "likely it ran out of memory", NOT_OUTSIDE),
    (Death("killed", signal=15), 1_900_000_000, "killed (signal 15, SIGTERM) from outside mvlab", NOT_MEMORY),
    (Death("exited", status=3), 0, "exited with status 3", NOT_MEMORY),
    (Death("unknown"), 0, "nothing says why", NOT_MEMORY),
])
def test_a_death_is_said_for_what_the_evidence_shows(death, used, said, not_said):
    """Out of memory only on evidence: the nanny's memory restart, or a SIGKILL while the worker used 90 % of its
    limit (the system's out-of-memory killer); a SIGTERM near the limit is still someone's kill.

    Fails when memory is guessed (tried: the memory message for any death with ``used`` near the limit: the
    SIGTERM row fails)."""
    text = death_message(death, 2_000_000_000, used)
    assert said in text and not any(words in text for words in not_said), text


# ---------------------------------------------------------------------------- a connection that fails or is lost
def test_a_slow_failing_connection_holds_no_other_call_and_its_waiters_share_its_failure(monkeypatch):
    """Connecting may take a scheduler's 10 s to fail (``MVLAB_SCHEDULER`` unreachable). Meanwhile the engine's other
    calls (a page's run, a Stop, the panel's start) answer at once; three Trains that wait on one attempt are all
    told its failure in words when it ends, not one after another; the background start tries again once it
    failed, and a later attempt that succeeds clears its error. Fails when the attempt holds the engine's lock (tried:
    the old ``client``, which connected under it: ``job_of`` waited until the three Trains' attempts had been made
    one after another, the third connecting). The stand-in attempt takes 2.5 s: the Trains' threads have that long
    to start waiting on it, on a loaded machine too."""
    from mvlab.engine import jobs

    attempts = []
    real = jobs.connect

    def slow_refusal(config):
        attempts.append(time.monotonic())
        if len(attempts) <= 2:
            time.sleep(2.5)
            raise ValueError("Cannot reach the Dask scheduler (a stand-in)")
        return real(config)

    monkeypatch.setattr(jobs, "connect", slow_refusal)
    eng = Engine(EngineConfig(n_workers=1, dashboard=None), stop_grace=3.0)
    told = {}

    def train(holder):
        began = time.monotonic()
        try:
            eng.submit(request(steps, (1, 0.01, 1.0)), holder)
        except RunNotStarted as exc:
            told[holder] = (time.monotonic() - began, str(exc))

    try:
        trainers = [threading.Thread(target=train, args=(f"s{i}",)) for i in range(3)]
        for thread in trainers:
            thread.start()
        time.sleep(0.3)
        began = time.monotonic()
        assert eng.job_of("another") is None and eng.status("none") is None and not eng.ready()
        assert eng.detach("another") == ("none", 0)  # a Stop on another page
        eng.start_in_background()  # the panel of another page: a start already under way, nothing to wait for
        assert time.monotonic() - began < 0.5
        background = eng._starting

        def started_again():
            eng.start_in_background()
            thread = eng._starting
            if thread is not None:
                thread.join(60)

        for thread in trainers:
            thread.join(10)
        assert sorted(told) == ["s0", "s1", "s2"] and len(attempts) == 1
        assert all(seconds < 4.5 and "Cannot reach the Dask scheduler" in said for seconds, said in told.values())
        if background is not None:  # the background start had waited on the same attempt: said, not retried
            background.join(10)
        assert eng.start_error is not None and "Cannot reach" in eng.start_error and len(attempts) == 1
        started_again()  # a later page: tried again (refused once more)
        assert len(attempts) == 2 and not eng.ready()
        started_again()  # and again: connected this time, the error gone
        assert eng.ready() and eng.start_error is None and len(attempts) == 3
    finally:
        eng.close()


def test_a_store_error_of_any_kind_never_ends_the_engines_bookkeeping(tmp_path, monkeypatch):
    """The engine's one bookkeeper thread records every run's start and end; if it died, every later run would stay
    "running" for good. A store that raises a database error the store does not turn into words (SQLite's
    "database disk image is malformed" is SQLAlchemy's ``DatabaseError``) costs the step it was writing only, and an
    error while a failed run is being ended (here: the record's own code raising) ends that run all the same.
    Fails without either mend (tried: ``records._written`` catching ``ValueError`` and ``StoreUnavailable`` only:
    run a was said failed for the store's error, not its own (a review's script, without both mends: the bookkeeper
    died there and the next run stayed "running"); the bookkeeper without its inner ``try``: it died at run c's end
    and run d stayed "running" at 100 % for the test's 60 s)."""
    import sqlalchemy as sa

    store = ResultsStore(tmp_path / "r.sqlite")
    malformed = {"left": 2}

    def once(real):
        def write(self, *args, **kwargs):
            if malformed["left"] and self.location == store.location:  # not another engine's store
                malformed["left"] -= 1
                raise sa.exc.DatabaseError("UPDATE runs", {}, Exception("database disk image is malformed"))
            return real(self, *args, **kwargs)
        return write

    for name in ("mark_running", "finish_run"):
        monkeypatch.setattr(ResultsStore, name, once(getattr(ResultsStore, name)))
    eng = Engine(EngineConfig(n_workers=1, dashboard=None), stop_grace=3.0)
    try:
        a = eng.submit(request(failing_after_steps, 3, store), "ann")  # fails; its end's write raises too
        assert wait_state(eng, a, ("failed",), timeout=60).error == "these settings do not suit these data"
        b = eng.submit(request(steps, (2, 0.05, 2.0), store), "bob")
        assert wait_state(eng, b, ("finished",), timeout=60).state == "finished"
        assert eng.outcome(b).result.value == 2.0
        assert store.runs().set_index("run_id").loc[eng._jobs[b].run_id, "status"] == "finished"
        assert malformed["left"] == 0  # both writes were refused

        bookkeeper = next(t for t in eng._threads if t.name.endswith("_bookkeeper"))  # not another engine's
        for name in ("finish", "ended"):
            monkeypatch.setattr(records, name, failing_first(getattr(records, name), RuntimeError(
                f"the record's own code failed ({name})"), thread=bookkeeper))
        c = eng.submit(request(steps, (2, 0.05, 3.0), store), "cy")  # its result's record fails, then its end's
        said = wait_state(eng, c, ("failed",), timeout=60).error
        assert said == "RuntimeError: the record's own code failed (finish)"
        d = eng.submit(request(steps, (2, 0.05, 4.0), store), "dee")
        assert wait_state(eng, d, ("finished",), timeout=60).state == "finished"
        assert all(t.is_alive() for t in eng._threads)
    finally:
        eng.close()


def failing_after_steps(n, progress):
    """``n`` progress reports, then the library's refusal of the settings."""
    for i in range(n):
        time.sleep(0.05)
        progress((i + 1) / n, f"step {i + 1} of {n}")
    raise ValueError("these settings do not suit these data")


def test_a_connection_dask_gave_up_fails_its_runs_in_words_and_the_next_train_connects_anew(tmp_path):
    """When Dask gives its scheduler up (gone for longer than it waits to reconnect), it closes the engine's client
    and cancels its runs' tasks. Nobody pressed Stop: the run is said failed, with words that say why and what to
    do, not "stopped"; the engine is no longer ready, and the next Train connects anew and runs, the panel's status
    with it. Fails when a closed client is kept (tried: the old ``ready``: it stayed True; a review's script against
    a real scheduler gone and back showed every later Train failing on the closed client) and when a cancelled task
    is taken for a Stop (tried: the run said "stopped" with no error)."""
    from mvlab.engine.jobs import LOST_WORDS

    store = ResultsStore(tmp_path / "r.sqlite")
    baseline = loop_threads()
    eng = Engine(EngineConfig(n_workers=1, dashboard=None), stop_grace=3.0)
    try:
        job = eng.submit(request(steps, (60, 0.05, 1.0), store), "ida")
        wait_state(eng, job, ("running",), timeout=60)
        lost = loop_threads() - baseline
        client = eng._client
        client.sync(client._close, fast=True)  # as Dask does when it gives its scheduler up: its loop left running
        assert client.status == "closed" and not eng.ready()
        status = wait_state(eng, job, ("failed", "stopped"), timeout=60)
        assert (status.state, status.error) == ("failed", LOST_WORDS)
        again = eng.submit(request(steps, (2, 0.05, 5.0), store), "ida")
        assert wait_state(eng, again, ("finished",), timeout=60).state == "finished"
        assert eng.outcome(again).result.value == 5.0 and eng.ready()
        assert len(eng.server_status().workers) == 1
        assert lost and not lost & loop_threads()  # the lost connection's event loop ended with it
    finally:
        eng.close()


def test_an_engine_closed_while_it_connects_keeps_nothing_of_that_connection(monkeypatch, started_clusters):
    """A server that shuts down while its engine's background start is connecting: the connection that arrives
    after the close is closed at once (its client, its cluster and their worker), the engine keeps no client and
    starts no thread. Fails when the attempt is stored whatever happened meanwhile (tried: without the check of
    ``_closed`` when the attempt is stored: after the close the engine was ready, its bookkeeper running, its
    cluster's worker alive)."""
    from mvlab.engine import jobs

    real = jobs.connect
    began = threading.Event()

    def slow(config):
        began.set()
        time.sleep(1.0)
        return real(config)

    monkeypatch.setattr(jobs, "connect", slow)
    baseline = loop_threads()
    eng = Engine(EngineConfig(n_workers=1, dashboard=None), stop_grace=3.0)
    eng.start_in_background()
    starting = eng._starting
    assert began.wait(10)
    eng.close()
    starting.join(60)
    assert not eng.ready() and eng._client is None and eng._threads == []
    assert "closed while it connected" in (eng.start_error or "")
    assert len(started_clusters) == 1 and still_running(started_clusters) == []
    assert loop_threads() - baseline == set()


def test_a_stop_whose_flag_the_scheduler_does_not_take_still_ends_a_queued_run(engine, tmp_path, monkeypatch):
    """A Stop raises the run's stop flag on the scheduler, then takes a queued run out of the queue. A scheduler that
    does not answer the flag (a connection dropped for a moment) must not lose the Stop: the queued run leaves at
    once, said stopped, and the page's Stop raises nothing. Fails when the flag's failure ends the Stop (tried: the
    old ``_signal_stop``: ``detach`` raised the OSError; a review's script saw the run then stay queued with nobody
    waiting on it, and run to its end)."""
    import distributed

    store = ResultsStore(tmp_path / "r.sqlite")
    busy = engine.submit(request(steps, (120, 0.05, 1.0), store), "amy")  # the one worker is taken for 6 s
    wait_state(engine, busy, ("running",), timeout=60)
    queued = engine.submit(request(steps, (2, 0.05, 2.0), store), "bob")
    assert engine.status(queued).state == "queued"
    unanswered = failing_first(distributed.Event.set, OSError("Timed out during handshake while connecting"),
                               thread=threading.current_thread())  # the Stop's own call, not a reaper's
    monkeypatch.setattr(distributed.Event, "set", unanswered)
    assert engine.detach("bob") == ("stopped", 0) and unanswered.left == [0]
    assert engine.status(queued).state == "stopped"
    monkeypatch.undo()
    assert engine.detach("amy") == ("stopped", 0)
    assert wait_state(engine, busy, ("stopped",), timeout=40).state == "stopped"


def test_a_connection_lost_while_a_train_is_being_submitted_is_said_and_leaves_nothing(tmp_path, monkeypatch):
    """The connection may be lost and dropped (by another session's request) between a Train's look at the client
    and its run's registration. The Train is then told in words that the connection was lost, nothing of its run
    is left, and the next Train connects anew and runs; a run that records through the store's relay is collected
    by the receiver of the connection it was launched on. Fails when ``submit`` reads the engine's receiver after
    the drop (tried: the old ``self._receiver.expect``: a bare ``AttributeError`` on the page)."""
    from mvlab.engine.jobs import LOST_WORDS
    from mvlab.engine.relay import StoreRelay

    store = ResultsStore(tmp_path / "r.sqlite")
    eng = Engine(EngineConfig(n_workers=1, dashboard=None), stop_grace=3.0)
    try:
        eng.connect()
        typical = Engine._typical

        def lost_meanwhile(self, request):
            client = self._client
            client.sync(client._close, fast=True)  # Dask gives its scheduler up ...
            self._drop_lost_connection()  # ... and another session's request drops it
            return typical(self, request)

        monkeypatch.setattr(Engine, "_typical", lost_meanwhile)
        with pytest.raises(RunNotStarted) as said:
            eng.submit(request(steps, StoreRelay(store.location)), "kim")
        assert LOST_WORDS in str(said.value)
        assert eng.job_of("kim") is None and eng._jobs == {}
        monkeypatch.undo()
        again = eng.submit(request(steps, (2, 0.05, 6.0), store), "kim")
        assert wait_state(eng, again, ("finished",), timeout=60).state == "finished"
    finally:
        eng.close()
