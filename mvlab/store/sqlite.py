"""One SQLite file that several processes read and write at once: a WAL journal, a busy timeout and a
short-lived connection per call (safe across threads), transactions taken with ``BEGIN IMMEDIATE``."""

from __future__ import annotations

import sqlite3
from contextlib import closing, contextmanager
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

    def __init__(self, path: Path, timeout: float = 30.0):
        self.path = Path(path)
        self.timeout = timeout

    def _open(self, schema: str) -> None:
        """Create the folder and the file if missing, switch to WAL and run ``schema`` (idempotent SQL)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(schema)

    @contextmanager
    def _connect(self):
        with closing(sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)) as conn:
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
            yield conn

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
