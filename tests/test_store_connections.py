"""One store engine per process and location (mvlab.store.connections): the pages, the job engine's records and
the class rounds share its connections, a forked process opens its own, each store keeps its own patience, and
``serve`` on PostgreSQL checks the connection budget against the server's ``max_connections`` before it starts."""

import multiprocessing
import os
import sqlite3
import time

import pytest
import sqlalchemy as sa

from mvlab.store import ClassRounds, ResultsStore, StoreUnavailable, connections
from mvlab.store.database import database_url


def test_every_store_of_a_process_on_one_location_shares_one_engine(store_location, tmp_path, monkeypatch):
    """Fails when each store makes its own engine (tried: Database.__init__ calling sa.create_engine as before)."""
    results, rounds = ResultsStore(store_location), ClassRounds(store_location, timeout=5)
    assert results.engine is rounds.engine is ResultsStore(store_location).engine
    assert ResultsStore(tmp_path / "other.sqlite").engine is not results.engine
    monkeypatch.chdir(tmp_path)  # one file named from two folders (relative, absolute) is one location
    assert ResultsStore("here.sqlite").engine is ResultsStore(tmp_path / "here.sqlite").engine


def test_the_pages_the_records_and_the_rounds_draw_on_one_engine(tmp_path, monkeypatch):
    """What serve --processes N multiplies: a server process holds one pool on its store, not one per part (three
    before). Fails when the rounds or the records open an engine of their own (tried: a Database that creates its
    engine)."""
    from mvlab.engine import records
    from mvlab.ui import class_round, runs

    monkeypatch.setenv("MVLAB_STORE", str(tmp_path / "server.sqlite"))
    page_store = runs.results_store()
    assert page_store.engine is records.store_at(page_store.location).engine is class_round.class_rounds().engine


def _record_in_a_forked_child(store, queue):
    engine_copy = store._engine  # the parent's engine, copied into this process by fork
    run_id = store.start_run("dvs", "iris", "f", 0, {"from": "child"})
    queue.put((store.engine is not engine_copy, run_id))


def test_a_forked_process_opens_its_own_engine_never_its_parents_sockets(store_location):
    """Fails when a store keeps the engine it was made with after a fork (tried: Database.engine returning
    self._engine whatever the pid)."""
    store = ResultsStore(store_location)
    store.start_run("dvs", "iris", "f", 0, {"from": "parent"})  # the parent's pool holds a connection now
    queue = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(target=_record_in_a_forked_child, args=(store, queue))
    child.start()
    own_engine, run_id = queue.get(timeout=60)
    child.join(60)
    assert own_engine and child.exitcode == 0
    assert store.find_run("dvs", "f", {"from": "child"}) == run_id
    assert len(store.runs()) == 2  # the parent's connection still works


def test_each_store_on_a_shared_engine_waits_as_long_as_it_says(tmp_path):
    """A round waits 0.2 s for SQLite's write lock although the results store on the same engine waits 30 s. Fails
    when the busy timeout is the engine's (tried: _sqlite_wait_at_checkout not listened to: the call waited 30 s)."""
    path = tmp_path / "store.sqlite"
    results = ResultsStore(path, timeout=30)
    results.start_run("dvs", "iris", "f", 0, {})  # the engine's kept connection now waits 30 s
    rounds = ClassRounds(path, timeout=0.2)
    code = rounds.start("dvs", step=1).round.code
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    began = time.monotonic()
    with pytest.raises(StoreUnavailable) as away:
        rounds.answer(code, "a", 1, 0)
    assert "database is locked" in away.value.detail and time.monotonic() - began < 5
    holder.execute("ROLLBACK")
    assert list(results.runs()["status"]) == ["running"]


def test_a_full_pool_is_waited_for_as_long_as_the_calling_store_says(postgres_url, monkeypatch):
    """The process's connections all taken: a round (timeout 0.5 s) is StoreUnavailable within seconds. Fails when the
    pool waits its own time (tried: poolclass=sa.pool.QueuePool with the default 30 s: the call waited 30 s)."""
    from postgres_server import new_database

    monkeypatch.setenv(connections.CONNECTIONS_VARIABLE, "2")
    location = new_database(postgres_url)
    rounds = ClassRounds(location, timeout=0.5)
    assert rounds.engine.pool.size() == 1 and rounds.engine.pool._max_overflow == 1  # 2 in all, half kept
    taken = [rounds.engine.connect(), rounds.engine.connect()]
    try:
        began = time.monotonic()
        with pytest.raises(StoreUnavailable, match="unavailable right now"):
            rounds.get("ABCD")
        assert time.monotonic() - began < 5
    finally:
        for conn in taken:
            conn.close()
    assert rounds.get("ABCD") is None  # a connection free again: answered


@pytest.mark.parametrize("value", ["1", "0", "many", "2.5", "-4"])
def test_the_connections_per_process_are_a_whole_number_of_at_least_two(monkeypatch, value):
    monkeypatch.setenv(connections.CONNECTIONS_VARIABLE, value)
    with pytest.raises(ValueError, match="MVLAB_STORE_CONNECTIONS=.*whole number of at least 2; leave it unset"):
        connections.connections_per_process()
    monkeypatch.setenv(connections.CONNECTIONS_VARIABLE, " 6 ")
    assert connections.connections_per_process() == 6
    monkeypatch.delenv(connections.CONNECTIONS_VARIABLE)
    assert connections.connections_per_process() == connections.DEFAULT_CONNECTIONS == 16


def test_a_budget_over_the_servers_limit_is_refused_in_words_saying_what_to_do(monkeypatch):
    """Fails when the budget is not compared (tried: check_connection_budget returning before the comparison)."""
    url = database_url("postgresql://u@db.example/mvlab")
    monkeypatch.setattr(connections, "server_connection_limit", lambda _url: 97)  # PostgreSQL's default 100 - 3
    monkeypatch.delenv(connections.CONNECTIONS_VARIABLE, raising=False)
    assert "64 PostgreSQL connections at most (4 × 16) of the 97" in connections.check_connection_budget(url, 4)
    with pytest.raises(ValueError) as refused:
        connections.check_connection_budget(url, 7)
    words = str(refused.value)
    assert "7 server processes may open 16 connections each" in words and "112 in all" in words
    assert "accepts 97 (max_connections" in words
    assert "serve with --processes 6 or fewer" in words and "MVLAB_STORE_CONNECTIONS to 13 or less" in words
    assert "raise max_connections" in words
    monkeypatch.setenv(connections.CONNECTIONS_VARIABLE, "8")
    assert connections.check_connection_budget(url, 7).startswith("56 PostgreSQL connections")
    assert connections.check_connection_budget(database_url("/tmp/x.sqlite"), 100) is None  # a file has no limit


def test_the_budget_is_read_from_a_real_servers_max_connections(postgres_url, monkeypatch):
    """The test server runs with max_connections=300 (tests/postgres_server.py) and reserves 3 for superusers."""
    monkeypatch.delenv(connections.CONNECTIONS_VARIABLE, raising=False)
    url = database_url(postgres_url)
    assert connections.server_connection_limit(url) == 297
    assert "(18 × 16) of the 297" in connections.check_connection_budget(url, 18)
    with pytest.raises(ValueError, match=r"19 server processes .*304 in all.* accepts 297"):
        connections.check_connection_budget(url, 19)


def test_a_server_that_cannot_be_reached_is_said_not_refused(postgres_url):
    port = postgres_url.rsplit(":", 1)[1].split("/")[0]
    said = connections.check_connection_budget(database_url(postgres_url.replace(f":{port}/", ":1/")), 4)
    assert said.startswith("the store's connection budget (4 × 16 connections) was not checked")


def test_the_registry_lets_an_engine_go_with_its_last_store(tmp_path):
    """A temporary store (a worker's private copy) does not keep its file's connections open for the process's
    life. Fails when the registry holds its engines strongly (tried: a plain dict)."""
    import gc

    store = ResultsStore(tmp_path / "temporary.sqlite")
    key = (os.getpid(), str(sa.engine.URL.create("sqlite", database=str(tmp_path / "temporary.sqlite"))))
    assert key in connections._ENGINES
    del store
    gc.collect()
    assert key not in connections._ENGINES
