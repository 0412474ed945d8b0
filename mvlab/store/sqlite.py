"""One SQLite file that several processes read and write at once: a WAL journal, a busy timeout, transactions
taken with ``BEGIN IMMEDIATE``, and connections kept for the next call (one thread at a time each)."""

from __future__ import annotations

import queue
import sqlite3
from contextlib import contextmanager
from pathlib import Path

__all__ = ["SQLiteFile"]


class SQLiteFile:
    """Base of the stores kept in one SQLite file (:class:`mvlab.store.ResultsStore`,
    :class:`mvlab.store.ClassRounds`).

    Parameters
    ----------
    path : Path of the database file.
    timeout : float
        Seconds a writer waits for another writer's lock before giving up.
    """

    KEPT = 8
    """Connections kept open for the next calls (more are opened when more threads call at once, and closed)."""

    def __init__(self, path: Path, timeout: float = 30.0):
        self.path = Path(path)
        self.timeout = timeout
        self._idle: queue.SimpleQueue = queue.SimpleQueue()

    def _open(self, schema: str) -> None:
        """Create the folder and the file if missing, switch to WAL and run ``schema`` (idempotent SQL)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(schema)

    def _open_connection(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
        return conn

    @contextmanager
    def _connect(self):
        """A connection for this call, in autocommit mode (each statement sees what is committed when it runs):
        one kept from an earlier call, or a new one. Opening one cost a class round's pages a third of their
        time (a page run reads the round; profiled with bench/bench_class_round.py --profile)."""
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = self._open_connection()
        try:
            yield conn
        except BaseException:
            conn.close()  # a connection left in an unknown state is not kept
            raise
        if conn.in_transaction or self._idle.qsize() >= self.KEPT:
            conn.close()
        else:
            self._idle.put(conn)

    @contextmanager
    def _transaction(self):
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
