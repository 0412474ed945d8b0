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
  ``bench/bench_class_round.py --profile``), in one engine per process and location that every store on it shares
  (:mod:`mvlab.store.connections`): a process opens at most ``MVLAB_STORE_CONNECTIONS`` (16) to a PostgreSQL server.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

from mvlab.i18n import N_, gettext
from mvlab.store.connections import SQLITE_KEPT, database_engine, waiting

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


UNAVAILABLE_WORDS = N_("The results store is unavailable right now.")
"""What a page says of a store that cannot answer: no location and no driver's words (a student must not read the
store's host, user, database or file path on a page); the server's log has them (:func:`note_outage`)."""


class StoreUnavailable(RuntimeError):
    """The store could not be reached, or stayed locked, for the time a call may wait (PostgreSQL stopped or
    unreachable, SQLite's write lock held by another process past the busy timeout). Nothing was written: the call
    can be made again once the store is back. Its message says so in words fit for any page
    (:data:`UNAVAILABLE_WORDS`); ``detail`` holds the location (its password hidden) and the driver's reason, for
    the log and the command line."""

    def __init__(self, message: str = UNAVAILABLE_WORDS, detail: str = ""):
        super().__init__(message)
        self.detail = detail

    def __str__(self) -> str:  # said where it is shown, in the reader's language (the catalogue has the words)
        return gettext(self.args[0]) if self.args else ""

    def __reduce__(self):
        return type(self), (self.args[0] if self.args else UNAVAILABLE_WORDS, self.detail)


_AWAY: dict[str, float] = {}
"""The locations this process found unavailable, and since when (monotonic seconds): said once in the log."""
_AWAY_LOCK = threading.Lock()


def note_outage(location: str, detail: str) -> None:
    """A store call found ``location`` unavailable: said once in the log (the location and the driver's reason),
    however many calls fail until it is back."""
    with _AWAY_LOCK:
        if location in _AWAY:
            return
        _AWAY[location] = time.monotonic()
    logging.getLogger(__name__).warning("mvlab: the results store is unavailable (%s); the pages say so in words and "
                                        "look again by themselves, nothing is lost", detail)


def note_answered(location: str, shown: str) -> None:
    """A store call on ``location`` was answered: if it was away, said once in the log that it is back."""
    if location not in _AWAY:  # the common case, without the lock
        return
    with _AWAY_LOCK:
        since = _AWAY.pop(location, None)
    if since is not None:
        logging.getLogger(__name__).warning("mvlab: the results store is back (%s), after %.1f s", shown,
                                            time.monotonic() - since)


_UNAVAILABLE = (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.TimeoutError)
"""SQLAlchemy's errors of a store that cannot answer now (the driver's OperationalError and InterfaceError: a
server down, a connection lost, a lock not granted in time; the pool's TimeoutError: no connection in time)."""


def plain_text(value, what: str) -> str:
    """``value`` as text a store keeps alike on SQLite and PostgreSQL: a ``ValueError`` in words for a NUL character,
    which PostgreSQL's text cannot hold (SQLite's can: refused on both, so that a store behaves the same on both;
    whatever a browser sends reaches here as text: a round's name, an upload's name, a view's name in a row)."""
    text = str(value)
    if "\x00" in text:
        raise ValueError(f"{what} cannot hold a NUL character (\\x00); remove it and try again.")
    return text


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

    KEPT = SQLITE_KEPT
    """Connections to a SQLite file kept open for the next calls (more are opened when more threads call at once;
    PostgreSQL's are bounded per process: :func:`mvlab.store.connections.connections_per_process`)."""

    def __init__(self, location, timeout: float = 30.0):
        self.url = database_url(location)
        self.dialect = self.url.get_backend_name()
        self.timeout = float(timeout)
        if self.dialect == "sqlite":
            self.path = Path(self.url.database)
            self.location = str(self.path)
        else:
            self.path = None
            self.location = self.url.render_as_string(hide_password=False)
        self._pid, self._engine = os.getpid(), database_engine(self.url)

    @property
    def engine(self) -> sa.Engine:
        """This process's one engine on the location, shared with every other store on it
        (:func:`mvlab.store.connections.database_engine`; after a fork, the child's own)."""
        if self._pid != os.getpid():
            self._pid, self._engine = os.getpid(), database_engine(self.url)
        return self._engine

    @property
    def shown(self) -> str:
        """The location as messages show it (a URL's password hidden)."""
        return shown_location(self.location)

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
            with self._checked_out() as conn:
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
        """A store that cannot answer now raises :class:`StoreUnavailable` (words fit for a page; the location and the
        driver's reason in its ``detail`` and, once per outage, in the log) instead of the driver's error, and a
        value the database cannot hold a ``ValueError`` with the driver's reason (not its statement); the block's own
        errors (a refusal, a constraint) pass as they are. A call answered after an outage says in the log that the
        store is back."""
        try:
            yield
        except _UNAVAILABLE as exc:
            detail = f"{self.shown}: {error_reason(exc)}"
            note_outage(self.location, detail)
            raise StoreUnavailable(UNAVAILABLE_WORDS, detail) from exc
        except sa.exc.DataError as exc:  # a value the database cannot hold: the driver's reason, never its SQL
            raise ValueError(f"The results store refused a value: {error_reason(exc)}.") from None
        note_answered(self.location, self.shown)

    def _checked_out(self) -> sa.Connection:
        """A connection of the shared engine, waiting at most this store's ``timeout`` for it."""
        with waiting(self.timeout):
            return self.engine.connect()

    @contextmanager
    def _connect(self):
        """A connection for reading (SQLite: autocommit, each statement sees what is committed when it runs); a
        store that cannot answer raises :class:`StoreUnavailable`."""
        with self._unavailable_in_words(), self._checked_out() as conn:
            yield conn

    @contextmanager
    def _transaction(self):
        """A connection in one transaction, committed at the end of the block or rolled back on an error (SQLite:
        holding the file's write lock from the start); a store that cannot answer raises :class:`StoreUnavailable`,
        and nothing of the block is kept."""
        with self._unavailable_in_words(), self._checked_out() as conn:
            conn.execution_options(mvlab_write=True)
            with conn.begin():
                yield conn

    def dispose(self) -> None:
        """Close the kept connections of this process's engine on the location (every store on it opens new ones at
        its next call)."""
        self.engine.dispose()

