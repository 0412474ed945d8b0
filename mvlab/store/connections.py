"""One SQLAlchemy engine per process and location, and the connections it may open.

Every store object of a process on one location (the pages' :class:`~mvlab.store.ResultsStore`, the job engine's
records, the lessons' :class:`~mvlab.store.ClassRounds`) draws its connections from one engine, so a process opens
at most :func:`connections_per_process` connections to a PostgreSQL server, however many stores it made. The engine
is found by the location and this process's id (:func:`database_engine`): a process made by ``fork`` opens its own
instead of writing on its parent's sockets. The registry holds its engines weakly: an engine lives as long as a
store uses it, so a temporary store's connections close with it.

The stores on one engine keep their own patience: the seconds a call waits for SQLite's write lock, for a free
connection of the pool or for PostgreSQL to answer a new connection are the calling store's ``timeout``
(:func:`waiting`), not the engine's.
"""

from __future__ import annotations

import contextvars
import os
import threading
import weakref
from collections.abc import Mapping
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL

__all__ = ["CONNECTIONS_VARIABLE", "DEFAULT_CONNECTIONS", "SQLITE_KEPT", "connections_per_process",
           "database_engine", "waiting", "server_connection_limit", "check_connection_budget"]

CONNECTIONS_VARIABLE = "MVLAB_STORE_CONNECTIONS"
"""The environment variable that bounds the connections one process opens to a PostgreSQL store."""
DEFAULT_CONNECTIONS = 16
"""Connections one process opens to a PostgreSQL store at most, where :data:`CONNECTIONS_VARIABLE` is unset: half
kept open between calls, half opened while more threads call at once (docs/guide/deploy.md)."""
SQLITE_KEPT = 8
"""Connections to a SQLite file kept open for the next calls (more are opened while more threads call at once: a
file has no connection limit)."""
DEFAULT_WAIT = 30.0
"""Seconds a call waits (see :func:`waiting`) where no store said how long."""

_WAIT: contextvars.ContextVar[float] = contextvars.ContextVar("mvlab_store_wait", default=DEFAULT_WAIT)
_ENGINES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_LOCK = threading.Lock()


def connections_per_process(environ: Mapping[str, str] | None = None) -> int:
    """The most connections one process opens to a PostgreSQL store: ``MVLAB_STORE_CONNECTIONS`` of ``environ`` (this
    process's environment by default) if set, else :data:`DEFAULT_CONNECTIONS`. ``ValueError`` in words for a value
    that is not a whole number of at least 2."""
    text = (os.environ if environ is None else environ).get(CONNECTIONS_VARIABLE, "").strip()
    if not text:
        return DEFAULT_CONNECTIONS
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 2:
        raise ValueError(f"{CONNECTIONS_VARIABLE}={text!r}: the connections one process may open to the store must "
                         f"be a whole number of at least 2; leave it unset for {DEFAULT_CONNECTIONS}.")
    return number


@contextmanager
def waiting(seconds: float):
    """Within the block, a connection taken from a shared engine waits at most ``seconds`` for a free slot of the
    pool, for PostgreSQL to answer a new connection, and (SQLite) for another writer's lock."""
    token = _WAIT.set(float(seconds))
    try:
        yield
    finally:
        _WAIT.reset(token)


class _CallersPool(sa.pool.QueuePool):
    """A QueuePool whose wait for a free connection is the calling store's (:func:`waiting`). QueuePool reads its
    wait from ``_timeout`` at each checkout (SQLAlchemy 2); tests/test_store.py checks that it still does."""

    @property
    def _timeout(self) -> float:
        return _WAIT.get()

    @_timeout.setter
    def _timeout(self, _value) -> None:  # QueuePool.__init__ sets it: the wait is the caller's instead
        pass


def database_engine(url: URL) -> sa.Engine:
    """This process's engine on ``url``: made at the first call (in this process: a forked child makes its own),
    the same one afterwards while a store holds it. A SQLite file is known by its absolute path, so the same file
    named from two folders is one engine."""
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        url = url.set(database=os.path.abspath(url.database))
    key = (os.getpid(), url.render_as_string(hide_password=False))
    with _LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = _ENGINES[key] = _sqlite_engine(url) if url.get_backend_name() == "sqlite" else \
                _postgresql_engine(url)
    return engine


def _sqlite_engine(url: URL) -> sa.Engine:
    engine = sa.create_engine(url, pool_size=SQLITE_KEPT, max_overflow=-1, poolclass=sa.pool.QueuePool,
                              connect_args={"check_same_thread": False})
    event.listen(engine, "do_connect", _sqlite_wait_at_connect)
    event.listen(engine, "connect", _sqlite_connection)
    event.listen(engine, "checkout", _sqlite_wait_at_checkout)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _postgresql_engine(url: URL) -> sa.Engine:
    most = connections_per_process()
    kept = (most + 1) // 2
    engine = sa.create_engine(url, poolclass=_CallersPool, pool_size=kept, max_overflow=most - kept,
                              pool_pre_ping=True)
    event.listen(engine, "do_connect", _postgresql_wait_at_connect)
    return engine


def _postgresql_wait_at_connect(_dialect, _record, _cargs, cparams) -> None:
    cparams["connect_timeout"] = max(1, round(_WAIT.get()))


def _sqlite_wait_at_connect(_dialect, _record, _cargs, cparams) -> None:
    cparams["timeout"] = _WAIT.get()


def _sqlite_connection(dbapi_connection, record) -> None:
    """A new SQLite connection: autocommit at the driver (the transactions are ours, see :func:`_sqlite_begin`),
    foreign keys on."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_wait_at_checkout(dbapi_connection, record, _proxy) -> None:
    """The connection's busy timeout set to the calling store's wait, where it differs from the last caller's."""
    wait_ms = int(_WAIT.get() * 1000)
    if record.info.get("busy_timeout") != wait_ms:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={wait_ms}")
        cursor.close()
        record.info["busy_timeout"] = wait_ms


def _sqlite_begin(conn) -> None:
    """SQLite's transaction of a write starts with the write lock (``BEGIN IMMEDIATE``); a read starts none."""
    if conn.get_execution_options().get("mvlab_write"):
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def server_connection_limit(url: URL, wait: float = 10.0) -> int:
    """The connections a PostgreSQL server gives clients that are not superusers: ``max_connections`` less the
    slots it reserves (``superuser_reserved_connections``, and ``reserved_connections`` from PostgreSQL 16 on),
    read on one connection that is closed at once. ``sqlalchemy.exc.OperationalError`` when the server cannot be
    reached."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool, connect_args={"connect_timeout": max(1, round(wait))})
    try:
        with engine.connect() as conn:
            return int(conn.exec_driver_sql(
                "SELECT current_setting('max_connections')::int"
                " - current_setting('superuser_reserved_connections')::int"
                " - coalesce(current_setting('reserved_connections', true), '0')::int").scalar_one())
    finally:
        engine.dispose()


def check_connection_budget(url: URL, processes: int, environ: Mapping[str, str] | None = None) -> str | None:
    """Whether ``processes`` processes, each opening up to :func:`connections_per_process` connections (read from
    ``environ``, the environment they will have: this process's by default), fit in the PostgreSQL server's limit
    (:func:`server_connection_limit`), said before anything starts: a ``ValueError`` saying what to do when they do
    not; else the sum in words (None for a SQLite file, which has no connection limit). A server that cannot be
    reached now is said, not refused: its pages say so until it is back. (``serve``'s launcher holds no connection
    while it serves: the one this check opens is closed before the servers start.)"""
    if url.get_backend_name() == "sqlite":
        return None
    per_process = connections_per_process(environ)
    needed = int(processes) * per_process
    try:
        limit = server_connection_limit(url)
    except sa.exc.SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        return (f"the store's connection budget ({processes} × {per_process} connections) was not checked: the "
                f"PostgreSQL server did not answer ({reason}).")
    if needed > limit:
        fewer, smaller = limit // per_process, limit // max(1, int(processes))
        ways = ([f"serve with --processes {fewer} or fewer"] if fewer >= 1 else []) + \
            ([f"set {CONNECTIONS_VARIABLE} to {smaller} or less (fewer connections per process: more waits under "
              "load)"] if smaller >= 2 else []) + ["raise max_connections in postgresql.conf and restart the server"]
        raise ValueError(
            f"{processes} server processes may open {per_process} connections each to the PostgreSQL store "
            f"({needed} in all), and the server accepts {limit} (max_connections, less the slots it reserves for "
            f"superusers). To fit, {', or '.join(ways)}.")
    return f"{needed} PostgreSQL connections at most ({processes} × {per_process}) of the {limit} the server accepts."
