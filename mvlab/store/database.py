"""Where mvlab's stores live: one SQLite file (embedded, the default) or a PostgreSQL database that several machines
share, through one SQL code path (SQLAlchemy Core; the two differ only in how a connection starts).

A *location* is what ``MVLAB_STORE`` and ``--store`` take: a file path (SQLite; ``sqlite:///path`` too) or a
``postgresql://user:password@host:port/database`` URL (the psycopg driver). SQLite's file is for one machine: its
WAL journal needs every process on the machine that holds the file (sqlite.org/wal.html), so a store that several
machines write is a PostgreSQL server's.

- SQLite: WAL journal, a busy timeout, foreign keys on; a write takes the file's write lock at its start
  (``BEGIN IMMEDIATE``, so two writers queue instead of failing half-way); a read runs in autocommit (it sees what is
  committed when it runs and never blocks a writer).
- PostgreSQL: transactions at READ COMMITTED; the writes that read before they write lock the row they read
  (``SELECT … FOR UPDATE``: SQLite's write lock already covers the whole file).
- Connections are kept for the next calls (opening one cost a class round's pages a third of their time, profiled with
  ``bench/bench_class_round.py --profile``).
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url

__all__ = ["Database", "StoreUnavailable", "database_url", "default_location", "absolute_location", "shown_location",
           "error_reason"]

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def default_location() -> str:
    """``$MVLAB_STORE`` if set, else ``~/.mvlab/results.sqlite``."""
    env = os.environ.get("MVLAB_STORE", "").strip()
    return env or str(Path.home() / ".mvlab" / "results.sqlite")


def database_url(location) -> URL:
    """The SQLAlchemy URL of a store's location: a file path (SQLite), ``sqlite:///path``, or a ``postgresql://`` URL
    (``postgres://`` too; the psycopg driver unless the URL names one). ``ValueError`` for any other kind."""
    text = str(location).strip()
    if not text:
        raise ValueError("The results store's location is empty: give a file path or a postgresql:// URL.")
    if not _SCHEME.match(text):
        return URL.create("sqlite", database=str(Path(text).expanduser()))
    try:
        url = make_url(text)
    except sa.exc.ArgumentError:
        raise ValueError(f"{shown_location(text)} is not a database URL (write postgresql://user@host/db).") from None
    backend, _, driver = url.drivername.partition("+")
    if backend == "sqlite":
        return url
    if backend in ("postgresql", "postgres"):
        return url.set(drivername=f"postgresql+{driver or 'psycopg'}")
    raise ValueError(f"{shown_location(text)}: the results store is a SQLite file or a PostgreSQL database "
                     f"(postgresql://…), not {backend!r}.")


def absolute_location(location) -> str:
    """A location that another process, started in another folder, opens as the same store: a file path made
    absolute, a URL as it is."""
    text = str(location).strip()
    return text if _SCHEME.match(text) else str(Path(text).expanduser().resolve())


def shown_location(location) -> str:
    """A location as messages show it: a URL's password hidden."""
    text = str(location)
    if not _SCHEME.match(text.strip()):
        return text
    try:
        return make_url(text.strip()).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return re.sub(r"//([^:/@]*):[^@]*@", r"//\1:***@", text)


class StoreUnavailable(RuntimeError):
    """The store could not be reached, or stayed locked, for the time a call may wait (PostgreSQL stopped or
    unreachable, SQLite's write lock held by another process past the busy timeout). Nothing was written: the call
    can be made again once the store is back. Its message says so in words, the location's password hidden."""


_UNAVAILABLE = (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.TimeoutError)
"""SQLAlchemy's errors of a store that cannot answer now (the driver's OperationalError and InterfaceError: a
server down, a connection lost, a lock not granted in time; the pool's TimeoutError: no connection in time)."""


def error_reason(exc: BaseException) -> str:
    """The driver's own words of a database error (its first line), without SQLAlchemy's statement and link."""
    original = getattr(exc, "orig", None)
    return str(original if original is not None else exc).strip().splitlines()[0]


class Database:
    """Base of the stores (:class:`mvlab.store.ResultsStore`, :class:`mvlab.store.ClassRounds`): one SQLAlchemy
    engine on a SQLite file or a PostgreSQL database (see the module docstring).

    Parameters
    ----------
    location : str or Path
        A SQLite file path or a ``postgresql://`` URL (:func:`database_url`).
    timeout : float
        Seconds a writer waits for another writer's lock (SQLite), or for a connection (PostgreSQL), before giving up.

    Attributes
    ----------
    location : str
        What another process is given to open the same store.
    path : Path or None
        The SQLite file; None on PostgreSQL.
    dialect : str
        ``"sqlite"`` or ``"postgresql"``.
    """

    KEPT = 8
    """Connections kept open for the next calls (more are opened when more threads call at once)."""

    def __init__(self, location, timeout: float = 30.0):
        self.url = database_url(location)
        self.dialect = self.url.get_backend_name()
        self.timeout = float(timeout)
        if self.dialect == "sqlite":
            self.path = Path(self.url.database)
            self.location = str(self.path)
            self.engine = sa.create_engine(
                self.url, pool_size=self.KEPT, max_overflow=-1, poolclass=sa.pool.QueuePool,
                connect_args={"timeout": self.timeout, "check_same_thread": False})
            event.listen(self.engine, "connect", self._sqlite_connection)
            event.listen(self.engine, "begin", _sqlite_begin)
        else:
            self.path = None
            self.location = self.url.render_as_string(hide_password=False)
            self.engine = sa.create_engine(
                self.url, pool_size=self.KEPT, max_overflow=self.KEPT, pool_timeout=self.timeout,
                pool_pre_ping=True, connect_args={"connect_timeout": max(1, int(self.timeout))})

    @property
    def shown(self) -> str:
        """The location as messages show it (a URL's password hidden)."""
        return shown_location(self.location)

    def _sqlite_connection(self, dbapi_connection, _record) -> None:
        """A new SQLite connection: autocommit at the driver (the transactions are ours, see :func:`_sqlite_begin`),
        foreign keys on, the busy timeout."""
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
        cursor.close()

    def _open(self, what: str, prepare) -> None:
        """Run ``prepare()`` (create the tables, migrate an old file) on the store being opened; a store that cannot
        be opened (a folder not writable, a server not reachable) is a ``ValueError`` naming ``what`` and the
        location, its connections closed."""
        try:
            prepare()
        except (OSError, sa.exc.SQLAlchemyError, StoreUnavailable) as exc:
            self.dispose()
            cause = exc.__cause__ if isinstance(exc, StoreUnavailable) else exc
            raise ValueError(f"Cannot open {what} at {self.shown}: {error_reason(cause)}. "
                             "Set MVLAB_STORE to a writable file path or a reachable postgresql:// URL.") from None

    def _create(self, metadata: sa.MetaData) -> None:
        """Create the folder and the file if missing (SQLite: WAL journal), then the tables and indexes of
        ``metadata`` that are missing. On PostgreSQL the processes that start at once take turns (an advisory lock),
        so no two create one table."""
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA journal_mode=WAL")
        with self._transaction() as conn:
            if self.dialect == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": 0x6D766C6162})  # "mvlab"
            metadata.create_all(conn)
            for table in metadata.sorted_tables:
                for index in table.indexes:  # a table made by an older version may lack one
                    index.create(conn, checkfirst=True)

    @contextmanager
    def _unavailable_in_words(self):
        """A store that cannot answer now raises :class:`StoreUnavailable` (with the driver's reason) instead of
        the driver's error; the block's own errors (a refusal, a constraint) pass as they are."""
        try:
            yield
        except _UNAVAILABLE as exc:
            raise StoreUnavailable(f"The results store ({self.shown}) is unavailable right now: "
                                   f"{error_reason(exc)}.") from exc

    @contextmanager
    def _connect(self):
        """A connection for reading (SQLite: autocommit, each statement sees what is committed when it runs); a
        store that cannot answer raises :class:`StoreUnavailable`."""
        with self._unavailable_in_words(), self.engine.connect() as conn:
            yield conn

    @contextmanager
    def _transaction(self):
        """A connection in one transaction, committed at the end of the block or rolled back on an error (SQLite:
        holding the file's write lock from the start); a store that cannot answer raises :class:`StoreUnavailable`,
        and nothing of the block is kept."""
        with self._unavailable_in_words(), self.engine.connect() as conn:
            conn.execution_options(mvlab_write=True)
            with conn.begin():
                yield conn

    def dispose(self) -> None:
        """Close the kept connections."""
        self.engine.dispose()


def _sqlite_begin(conn) -> None:
    """SQLite's transaction of a write starts with the write lock (``BEGIN IMMEDIATE``); a read starts none."""
    if conn.get_execution_options().get("mvlab_write"):
        conn.exec_driver_sql("BEGIN IMMEDIATE")
