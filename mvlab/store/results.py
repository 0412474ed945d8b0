"""mvlab.store.results: runs and results survive restarts, interruptions and concurrent writers.

The app and the CLI both read and write it, so a browser refresh or a restart loses nothing.

- Location: ``$MVLAB_STORE`` if set, else ``~/.mvlab/results.sqlite`` (:func:`default_path`).
- Atomicity: every write is one transaction; a run is recorded as ``queued`` (waiting for the job
  engine) or ``running`` when it starts, its per-repetition results are committed as they finish,
  and it ends ``finished``, ``failed`` or ``stopped`` (by the people who waited on it), so an
  interrupted run keeps what finished.
- Restarts: every run names its *owner*, the process that records it (host, pid and the process's
  start time).  :meth:`ResultsStore.sweep_orphans` marks the ``queued`` or ``running`` runs whose
  owner process is gone as ``interrupted``, so no run stays "running" forever after a crash or a
  server restart; the job engine calls it when it starts, and so does the command line.
- Concurrency: WAL journal and a busy timeout, so two app sessions (or the app and the CLI)
  can write at once; each call opens its own short-lived connection (safe across threads).

Tables: ``runs`` (one row per run: kind, dataset, data fingerprint, seed, settings JSON,
package versions JSON, status, timestamps, summary JSON), ``results`` (tidy rows: run,
repetition, method, metric, value, seconds) and ``artifacts`` (named binary blobs of a run,
e.g. an ``.npz`` of matrices).
"""

from __future__ import annotations

import functools
import json
import os
import platform
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any, Iterable, Mapping

import pandas as pd

from mvlab.core.serialize import _jsonable
from mvlab.core.version import VERSION
from mvlab.store.sqlite import SQLiteFile

__all__ = ["ResultsStore", "default_path", "package_versions", "process_identity", "STATUSES"]

STATUSES = ("queued", "running", "finished", "failed", "stopped", "interrupted")
"""What can become of a run: waiting for a worker, computing, then finished, failed (an error, or
a worker that died), stopped (everyone who waited on it stopped it) or interrupted (its owner
process ended before it did, e.g. a server restart)."""
ACTIVE = ("queued", "running")

_RUNS_TABLE = """
CREATE TABLE IF NOT EXISTS runs (
    run_id      TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    dataset     TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    seed        INTEGER,
    settings    TEXT NOT NULL,
    settings_key TEXT NOT NULL,
    versions    TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ({statuses})),
    started     REAL NOT NULL,
    finished    REAL,
    summary     TEXT,
    private     INTEGER NOT NULL DEFAULT 0,
    owner       TEXT
);
""".format(statuses=", ".join(f"'{s}'" for s in STATUSES))
_INDEXES_AND_CHILDREN = """
CREATE INDEX IF NOT EXISTS runs_lookup ON runs (kind, fingerprint, settings_key, status);
CREATE TABLE IF NOT EXISTS results (
    run_id     TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    repetition INTEGER NOT NULL,
    fold       INTEGER NOT NULL DEFAULT 0,
    method     TEXT NOT NULL,
    metric     TEXT NOT NULL,
    value      REAL,
    seconds    REAL,
    params     TEXT
);
CREATE INDEX IF NOT EXISTS results_run ON results (run_id);
CREATE TABLE IF NOT EXISTS artifacts (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    data   BLOB NOT NULL,
    PRIMARY KEY (run_id, name)
);
"""


def default_path() -> Path:
    """``$MVLAB_STORE`` if set, else ``~/.mvlab/results.sqlite``."""
    env = os.environ.get("MVLAB_STORE")
    return Path(env) if env else Path.home() / ".mvlab" / "results.sqlite"


@functools.lru_cache(maxsize=1)
def _versions() -> tuple:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "mvlab": VERSION}
    for name in ("numpy", "scipy", "scikit-learn", "pandas", "cvxpy"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "absent"
    return tuple(out.items())


def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages that decide the numbers (read once per process: every
    manifest and stored run asks)."""
    return dict(_versions())


def process_identity(pid: int | None = None) -> str | None:
    """``host:pid:start time`` of a process (this one by default); None when it does not exist.

    The start time tells a live process from a later one that reuses the pid."""
    import psutil

    try:
        proc = psutil.Process(pid)
        return f"{platform.node()}:{proc.pid}:{proc.create_time():.3f}"
    except psutil.Error:
        return None


def _owner_alive(owner: str | None) -> bool:
    """Whether the process named by ``owner`` still runs (owners on other hosts count as alive:
    this host cannot tell)."""
    if not owner:
        return False  # recorded before runs had owners: nobody can be computing it any more
    host, pid, _ = owner.rsplit(":", 2)
    if host != platform.node():
        return True
    return process_identity(int(pid)) == owner


def _where(filters: Mapping[str, Any]) -> tuple[str, list]:
    """A WHERE clause for the filters that are not None (column names are ours, never user input)."""
    used = {k: v for k, v in filters.items() if v is not None}
    if not used:
        return "", []
    return " WHERE " + " AND ".join(f"{k} = ?" for k in used), list(used.values())


def _canonical(settings: Mapping[str, Any]) -> str:
    try:
        return json.dumps(settings, sort_keys=True, separators=(",", ":"), default=_jsonable)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"settings must be JSON-serialisable: {exc}") from None


def _allow_every_status(conn) -> None:
    """Rebuild the runs table of a store written when a run was only running, finished or failed
    (SQLite cannot change a CHECK constraint in place; this is its documented 12-step procedure)."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runs'").fetchone()[0]
    if all(f"'{status}'" in sql for status in STATUSES):
        return
    columns = ", ".join(row[1] for row in conn.execute("PRAGMA table_info(runs)"))
    conn.execute("PRAGMA foreign_keys=OFF")  # results and artifacts keep pointing at 'runs'
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("DROP INDEX IF EXISTS runs_lookup")
        conn.execute(_RUNS_TABLE.replace("runs (", "runs_new (", 1))
        conn.execute(f"INSERT INTO runs_new ({columns}) SELECT {columns} FROM runs")
        conn.execute("DROP TABLE runs")
        conn.execute("ALTER TABLE runs_new RENAME TO runs")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    finally:
        conn.execute("PRAGMA foreign_keys=ON")


class ResultsStore(SQLiteFile):
    """A SQLite file of runs and results (see the module docstring).

    Parameters
    ----------
    path : str or Path, optional
        The database file (created with its folder if missing); default :func:`default_path`.
    timeout : float
        Seconds a writer waits for another writer's lock before giving up.
    """

    def __init__(self, path: str | Path | None = None, timeout: float = 30.0):
        super().__init__(Path(path) if path is not None else default_path(), timeout)
        try:
            self._open(_RUNS_TABLE)
            with self._connect() as conn:
                columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
                if "private" not in columns:  # a store written before uploads were kept private
                    conn.execute("ALTER TABLE runs ADD COLUMN private INTEGER NOT NULL DEFAULT 0")
                if "owner" not in columns:  # a store written before runs had owners
                    conn.execute("ALTER TABLE runs ADD COLUMN owner TEXT")
                _allow_every_status(conn)
                conn.executescript(_INDEXES_AND_CHILDREN)
                columns = {row[1] for row in conn.execute("PRAGMA table_info(results)")}
                if "fold" not in columns:  # a store written before folds were recorded
                    conn.execute("ALTER TABLE results ADD COLUMN fold INTEGER NOT NULL DEFAULT 0")
        except (OSError, sqlite3.Error) as exc:
            raise ValueError(f"Cannot open the results store at {self.path}: {exc}. "
                             f"Set MVLAB_STORE to a writable file path.") from None

    # ------------------------------------------------------------------ writing
    def start_run(self, kind: str, dataset: str, fingerprint: str, seed: int | None,
                  settings: Mapping[str, Any], *, private: bool = False, status: str = "running") -> str:
        """Record a new run as ``running`` (or ``queued``: waiting for the job engine); returns its id.

        ``private=True`` (results on uploaded data): the run is found only by its data
        fingerprint (:meth:`find_finished`, :meth:`find_run`), never listed by :meth:`runs`
        unless ``include_private=True`` (the command line, for the server's owner), and
        :meth:`forget` deletes it.  The run's owner is this process (see :meth:`sweep_orphans`)."""
        if status not in ACTIVE:
            raise ValueError(f"a run starts as one of {ACTIVE}, not {status!r}.")
        run_id = uuid.uuid4().hex
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO runs (run_id, kind, dataset, fingerprint, seed, settings, settings_key, versions,"
                " status, started, private, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, kind, dataset, fingerprint, seed, _canonical(settings), _canonical(settings),
                 json.dumps(package_versions()), status, time.time(), int(bool(private)), process_identity()),
            )
        return run_id

    def mark_running(self, run_id: str) -> None:
        """A queued run has started computing."""
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute("UPDATE runs SET status = 'running' WHERE run_id = ? AND status = 'queued'", (run_id,))

    def sweep_orphans(self) -> int:
        """Mark ``interrupted`` every queued or running run whose owner process has ended (a crash
        or a restart of the server or of the command line), saying so in its summary; returns how
        many.  Their stored results stay (a resumed run reads them back)."""
        with self._connect() as conn:
            rows = conn.execute("SELECT run_id, owner, summary FROM runs WHERE status IN ('queued', 'running')"
                                ).fetchall()
        orphans = [(run_id, summary) for run_id, owner, summary in rows if not _owner_alive(owner)]
        with self._transaction() as conn:
            for run_id, summary in orphans:
                note = {**(json.loads(summary) if summary else {}),
                        "interrupted": "the process that ran it ended before it finished (e.g. a server restart)"}
                conn.execute("UPDATE runs SET status = 'interrupted', finished = ?, summary = ? WHERE run_id = ?"
                             " AND status IN ('queued', 'running')", (time.time(), _canonical(note), run_id))
        return len(orphans)

    def forget(self, fingerprint: str) -> int:
        """Delete every run on the data of this fingerprint, with its results and artifacts (one
        transaction); returns how many runs were deleted."""
        with self._transaction() as conn:
            return conn.execute("DELETE FROM runs WHERE fingerprint = ?", (fingerprint,)).rowcount

    def add_results(self, run_id: str, rows: Iterable[Mapping[str, Any]]) -> int:
        """Append tidy result rows (keys: repetition, method, metric, value, and optionally fold,
        seconds, params) in one transaction; returns how many were written."""
        records = []
        for r in rows:
            try:
                records.append((run_id, int(r["repetition"]), int(r.get("fold") or 0), str(r["method"]),
                                str(r["metric"]),
                                None if r["value"] is None else float(r["value"]),
                                None if r.get("seconds") is None else float(r["seconds"]),
                                _canonical(r.get("params") or {})))
            except KeyError as exc:
                raise ValueError(f"a result row lacks the field {exc.args[0]!r}: {dict(r)}") from None
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.executemany(
                "INSERT INTO results (run_id, repetition, fold, method, metric, value, seconds, params)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", records)
        return len(records)

    def put_artifact(self, run_id: str, name: str, data: bytes) -> None:
        """Store (or replace) a named binary blob of a run."""
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute("INSERT OR REPLACE INTO artifacts VALUES (?, ?, ?)", (run_id, name, sqlite3.Binary(data)))

    def finish_run(self, run_id: str, summary: Mapping[str, Any] | None = None, *, failed: bool = False,
                   status: str | None = None) -> None:
        """End a run: ``finished`` (or ``failed``, or the ``status`` given: ``stopped``,
        ``interrupted``) with an optional JSON summary."""
        status = status or ("failed" if failed else "finished")
        if status not in STATUSES or status in ACTIVE:
            raise ValueError(f"a run ends as one of {[s for s in STATUSES if s not in ACTIVE]}, not {status!r}.")
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute("UPDATE runs SET status = ?, finished = ?, summary = ? WHERE run_id = ?",
                         (status, time.time(), _canonical(summary or {}), run_id))

    def delete_run(self, run_id: str) -> None:
        """Delete the run ``run_id`` with its results and artifacts (nothing for an unknown run)."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))

    @staticmethod
    def _require_run(conn, run_id: str) -> None:
        if conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is None:
            raise ValueError(f"No run {run_id!r} in the results store.")

    # ------------------------------------------------------------------ reading
    def runs(self, kind: str | None = None, status: str | None = None, include_private: bool = False) -> pd.DataFrame:
        """All runs (newest first), optionally of one kind and status; JSON columns decoded.

        Private runs (on uploaded data) are left out unless ``include_private``."""
        where, args = _where({"kind": kind, "status": status, "private": None if include_private else 0})
        with self._connect() as conn:
            frame = pd.read_sql_query(f"SELECT * FROM runs{where} ORDER BY started DESC", conn, params=args)
        for col in ("settings", "versions", "summary"):
            frame[col] = frame[col].map(lambda s: json.loads(s) if isinstance(s, str) and s else None)
        return frame.drop(columns="settings_key")

    def batches(self, prefixes: tuple[str, ...] = ("benchmark:", "reproduce:")) -> dict[str, str]:
        """The batches of runs (kinds starting with one of ``prefixes``: the Benchmark page's and the
        command line's reproductions), newest first, each with a label: kind · datasets · when."""
        runs = self.runs()
        runs = runs[runs["kind"].str.startswith(prefixes)]
        out = {}
        for kind in dict.fromkeys(runs["kind"]):
            part = runs[runs["kind"] == kind]
            when = pd.to_datetime(part["started"].max(), unit="s")
            out[kind] = f"{kind} · {', '.join(part['dataset'])} · {when:%Y-%m-%d %H:%M}"
        return out

    def batch_manifest(self, kind: str) -> dict:
        """What a download of a batch carries: its kind and, per run, id, dataset, fingerprint, seed,
        settings, package versions and status."""
        runs = self.runs(kind=kind)
        columns = ["run_id", "dataset", "fingerprint", "seed", "settings", "versions", "status"]
        return {"kind": kind, "runs": json.loads(runs[columns].to_json(orient="records"))}

    def results(self, run_id: str | None = None, kind: str | None = None) -> pd.DataFrame:
        """Tidy results joined with their run's dataset and seed (of one run, or of all runs of a
        kind: private runs only when asked for by id)."""
        query = ("SELECT r.run_id, u.kind, u.dataset, u.seed, r.repetition, r.fold, r.method, r.metric, r.value,"
                 " r.seconds, r.params FROM results r JOIN runs u USING (run_id)")
        where, args = _where({"r.run_id": run_id, "u.kind": kind, "u.private": None if run_id else 0})
        with self._connect() as conn:
            frame = pd.read_sql_query(query + where + " ORDER BY u.started, r.rowid", conn,
                                      params=args)
        frame["params"] = frame["params"].map(json.loads)
        return frame

    def artifact(self, run_id: str, name: str) -> bytes | None:
        """The artifact ``name`` of the run ``run_id``, or None when it has none."""
        with self._connect() as conn:
            row = conn.execute("SELECT data FROM artifacts WHERE run_id = ? AND name = ?", (run_id, name)).fetchone()
        return None if row is None else bytes(row[0])

    def find_run(self, kind: str, fingerprint: str, settings: Mapping[str, Any]) -> str | None:
        """The newest run of this kind on the same data with identical settings, whatever its status
        (a run to resume), or None."""
        with self._connect() as conn:
            row = conn.execute(
                "SELECT run_id FROM runs WHERE kind = ? AND fingerprint = ? AND settings_key = ?"
                " ORDER BY started DESC LIMIT 1",
                (kind, fingerprint, _canonical(settings)),
            ).fetchone()
        return None if row is None else row[0]

    def split_rows(self, run_id: str) -> list[dict]:
        """The stored result rows of a run as dicts (repetition, fold, method, metric, value, seconds,
        params), in the order they were written: what a resumed run reads back."""
        frame = self.results(run_id=run_id)
        return [{"repetition": int(r.repetition), "fold": int(r.fold), "method": r.method, "metric": r.metric,
                 "value": r.value, "seconds": r.seconds, "params": r.params} for r in frame.itertuples()]

    def run_summary(self, run_id: str) -> dict:
        """The JSON summary a run was finished with (empty while it has none)."""
        with self._connect() as conn:
            row = conn.execute("SELECT summary FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise ValueError(f"no run {run_id!r} in {self.path}.")
        return json.loads(row[0]) if row[0] else {}

    def reopen_run(self, run_id: str) -> None:
        """Mark a stored run ``running`` again (it is being resumed)."""
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute("UPDATE runs SET status = 'running', finished = NULL, owner = ? WHERE run_id = ?",
                         (process_identity(), run_id))

    def typical_seconds(self, kind: str, last: int = 20) -> list[float]:
        """Computing seconds of the last ``last`` finished runs of this kind (their summary's
        ``compute_seconds``), oldest first: what the job engine's estimated waits start from."""
        with self._connect() as conn:
            rows = conn.execute("SELECT json_extract(summary, '$.compute_seconds') FROM runs WHERE kind = ? AND"
                                " status = 'finished' AND json_extract(summary, '$.compute_seconds') IS NOT NULL"
                                " ORDER BY finished DESC LIMIT ?", (kind, int(last))).fetchall()
        return [float(r[0]) for r in reversed(rows)]

    def find_finished(self, kind: str, fingerprint: str, settings: Mapping[str, Any]) -> str | None:
        """The newest finished run of this kind on the same data with identical settings, or None."""
        with self._connect() as conn:
            row = conn.execute(
                "SELECT run_id FROM runs WHERE kind = ? AND fingerprint = ? AND settings_key = ?"
                " AND status = 'finished'"
                " ORDER BY finished DESC LIMIT 1",
                (kind, fingerprint, _canonical(settings)),
            ).fetchone()
        return None if row is None else row[0]

    def finished_result(self, kind: str, fingerprint: str, settings: Mapping[str, Any], result_type):
        """The newest finished run's ``"result"`` artifact read back as ``result_type.from_npz(bytes)``
        (what the pages and the lessons show), or None when no such run or artifact is stored."""
        run_id = self.find_finished(kind, fingerprint, settings)
        return None if run_id is None else self.run_result(run_id, result_type)

    def run_result(self, run_id: str, result_type):
        """The run's ``"result"`` artifact read back as ``result_type.from_npz(bytes)``, or None when it has none."""
        blob = self.artifact(run_id, "result")
        return None if blob is None else result_type.from_npz(blob)
