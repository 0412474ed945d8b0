"""mvlab.store.results: runs and results survive restarts, interruptions and concurrent writers.

The app and the CLI both read and write it, so a browser refresh or a restart loses nothing.

- Location: ``$MVLAB_STORE`` if set, else ``~/.mvlab/results.sqlite`` (:func:`default_location`): a SQLite file,
  or a ``postgresql://`` URL where several machines share the results (:mod:`mvlab.store.database`).
- Atomicity: every write is one transaction; a run is recorded as ``queued`` (waiting for the job
  engine) or ``running`` when it starts, its per-repetition results are committed as they finish,
  and it ends ``finished``, ``failed`` or ``stopped`` (by the people who waited on it), so an
  interrupted run keeps what finished.
- Restarts: every run names its *owner*, the process that records it (host, pid and the process's
  start time).  :meth:`ResultsStore.sweep_orphans` marks the ``queued`` or ``running`` runs whose
  owner process is gone as ``interrupted``, so no run stays "running" forever after a crash or a
  server restart; the job engine calls it when it starts, and so does the command line.
- Concurrency: two app sessions (or the app and the CLI, or several server processes) write at once; connections
  are kept between calls, one thread at a time each.  The job engine's workers never write it: what a worker
  stores travels back to the process that asked (:mod:`mvlab.engine.relay`), which writes it.
- What a computation may call is declared once, in :mod:`mvlab.store.protocol` (:class:`RunStore`).

Tables: ``runs`` (one row per run: kind, dataset, data fingerprint, seed, settings JSON,
package versions JSON, status, timestamps, summary JSON), ``results`` (tidy rows: run,
repetition, method, metric, value, seconds, in the order written) and ``artifacts`` (named binary blobs of a run,
e.g. an ``.npz`` of matrices).
"""

from __future__ import annotations

import functools
import json
import platform
import time
import uuid
from typing import Any, Iterable, Mapping

import pandas as pd
import sqlalchemy as sa
from sqlalchemy.schema import CreateTable

from mvlab.core.serialize import _jsonable
from mvlab.core.version import VERSION
from mvlab.store.database import Database, default_location, plain_text
from mvlab.store.protocol import RunStore

__all__ = ["ResultsStore", "default_location", "package_versions", "process_identity", "STATUSES"]

STATUSES = ("queued", "running", "finished", "failed", "stopped", "interrupted")
"""What can become of a run: waiting for a worker, computing, then finished, failed (an error, or
a worker that died), stopped (everyone who waited on it stopped it) or interrupted (its owner
process ended before it did, e.g. a server restart)."""
ACTIVE = ("queued", "running")

_METADATA = sa.MetaData()
RUNS = sa.Table(
    "runs", _METADATA,
    sa.Column("run_id", sa.Text, primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("dataset", sa.Text, nullable=False),
    sa.Column("fingerprint", sa.Text, nullable=False),
    sa.Column("seed", sa.BigInteger),
    sa.Column("settings", sa.Text, nullable=False),
    sa.Column("settings_key", sa.Text, nullable=False),
    sa.Column("versions", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("started", sa.Double, nullable=False),
    sa.Column("finished", sa.Double),
    sa.Column("summary", sa.Text),
    sa.Column("private", sa.Integer, nullable=False, server_default="0"),
    sa.Column("owner", sa.Text),
    sa.CheckConstraint("status IN ({})".format(", ".join(f"'{s}'" for s in STATUSES)), name="runs_status"),
    sa.Index("runs_lookup", "kind", "fingerprint", "settings_key", "status"),
)
RESULTS = sa.Table(
    "results", _METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),  # the order rows were written in
    sa.Column("run_id", sa.Text, sa.ForeignKey("runs.run_id", ondelete="CASCADE"), nullable=False),
    sa.Column("repetition", sa.Integer, nullable=False),
    sa.Column("fold", sa.Integer, nullable=False, server_default="0"),
    sa.Column("method", sa.Text, nullable=False),
    sa.Column("metric", sa.Text, nullable=False),
    sa.Column("value", sa.Double),
    sa.Column("seconds", sa.Double),
    sa.Column("params", sa.Text),
    sa.Index("results_run", "run_id"),
)
ARTIFACTS = sa.Table(
    "artifacts", _METADATA,
    sa.Column("run_id", sa.Text, sa.ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("data", sa.LargeBinary, nullable=False),
)


@functools.lru_cache(maxsize=1)  # not a Memo: one fact of this process (its versions), no key, nothing to drop
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


def _where(table: sa.Table, filters: Mapping[str, Any]) -> list:
    """Equality conditions on ``table``'s columns for the filters that are not None."""
    return [table.c[k] == v for k, v in filters.items() if v is not None]


def _canonical(settings: Mapping[str, Any]) -> str:
    try:
        return json.dumps(settings, sort_keys=True, separators=(",", ":"), default=_jsonable)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"settings must be JSON-serialisable: {exc}") from None


def _migrate_sqlite(engine) -> None:
    """Bring a SQLite store written by an earlier version up to date (PostgreSQL stores start at this schema):
    columns added since (``private``, ``owner``, ``fold``), a ``status`` check that allows every status, and
    ``results.id`` (the order rows were written in; SQLite's ``rowid`` before). SQLite's own procedure, on the
    driver's connection: foreign keys off (a table dropped with them on would delete its runs' results), one
    transaction."""
    raw = engine.raw_connection()
    try:
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables & {"runs", "results"}:
            return
        raw.execute("PRAGMA foreign_keys=OFF")
        raw.execute("BEGIN IMMEDIATE")
        try:
            if "runs" in tables:
                columns = {row[1] for row in raw.execute("PRAGMA table_info(runs)")}
                if "private" not in columns:  # a store written before uploads were kept private
                    raw.execute("ALTER TABLE runs ADD COLUMN private INTEGER NOT NULL DEFAULT 0")
                if "owner" not in columns:  # a store written before runs had owners
                    raw.execute("ALTER TABLE runs ADD COLUMN owner TEXT")
                (sql,) = raw.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runs'").fetchone()
                if not all(f"'{status}'" in sql for status in STATUSES):  # written when a run was only running,
                    _rebuild_sqlite(raw, engine.dialect, RUNS)  # finished or failed: a CHECK cannot change in place
            if "results" in tables:
                columns = [row[1] for row in raw.execute("PRAGMA table_info(results)")]
                if "fold" not in columns:  # a store written before folds were recorded
                    raw.execute("ALTER TABLE results ADD COLUMN fold INTEGER NOT NULL DEFAULT 0")
                if "id" not in columns:
                    _rebuild_sqlite(raw, engine.dialect, RESULTS, {"id": "rowid"})
            raw.execute("COMMIT")
        except BaseException:
            raw.execute("ROLLBACK")
            raise
        finally:
            raw.execute("PRAGMA foreign_keys=ON")
    finally:
        raw.close()


def _rebuild_sqlite(raw, dialect, table: sa.Table, computed: Mapping[str, str] | None = None) -> None:
    """Rebuild a SQLite table with this version's definition, keeping its rows (SQLite's documented procedure for a
    change ALTER TABLE cannot make: a new table, the rows copied, the old one dropped, the new one renamed; its
    indexes are made again by :meth:`Database._create`). ``computed``: new columns and the SQL that fills them from
    the old table (``{"id": "rowid"}``)."""
    computed = dict(computed or {})
    kept = [row[1] for row in raw.execute(f"PRAGMA table_info({table.name})") if row[1] in table.c]
    both = sa.MetaData()
    RUNS.to_metadata(both)  # what the new table's foreign keys name
    new = table.to_metadata(both, name=f"{table.name}_new")
    raw.execute(str(CreateTable(new).compile(dialect=dialect)))
    targets = ", ".join([*computed, *kept])
    sources = ", ".join([*computed.values(), *kept])
    raw.execute(f"INSERT INTO {new.name} ({targets}) SELECT {sources} FROM {table.name}")
    raw.execute(f"DROP TABLE {table.name}")
    raw.execute(f"ALTER TABLE {new.name} RENAME TO {table.name}")


class ResultsStore(Database, RunStore):
    """The runs and results of a SQLite file or a PostgreSQL database (see the module docstring); a
    :class:`mvlab.store.protocol.RunStore` for the computations that record their own runs.

    Parameters
    ----------
    location : str or Path, optional
        A SQLite file (created with its folder if missing) or a ``postgresql://`` URL; default
        :func:`default_location`.
    timeout : float
        Seconds a writer waits for another writer's lock before giving up.
    """

    def __init__(self, location=None, timeout: float = 30.0):
        super().__init__(default_location() if location is None else location, timeout)
        self._open("the results store", self._prepare)

    def _prepare(self) -> None:
        """An old SQLite file migrated, then the tables and indexes that are missing created."""
        if self.path is not None and self.path.exists():
            _migrate_sqlite(self.engine)
        self._create(_METADATA)

    # ------------------------------------------------------------------ writing
    def start_run(self, kind: str, dataset: str, fingerprint: str, seed: int | None,
                  settings: Mapping[str, Any], *, private: bool = False, status: str = "running",
                  run_id: str | None = None) -> str:
        """Record a new run as ``running`` (or ``queued``: waiting for the job engine); returns its id (``run_id``
        when given: one drawn by a worker, :mod:`mvlab.engine.relay`).

        ``private=True`` (results on uploaded data): the run is found only by its data
        fingerprint (:meth:`find_finished`, :meth:`find_run`), never listed by :meth:`runs`
        unless ``include_private=True`` (the command line, for the server's owner), and
        :meth:`forget` deletes it.  The run's owner is this process (see :meth:`sweep_orphans`)."""
        if status not in ACTIVE:
            raise ValueError(f"a run starts as one of {ACTIVE}, not {status!r}.")
        run_id = run_id or uuid.uuid4().hex
        kind = plain_text(kind, "a run's kind")
        dataset = plain_text(dataset, "a dataset's name")
        fingerprint = plain_text(fingerprint, "a data fingerprint")
        settings_text = _canonical(settings)
        with self._transaction() as conn:
            conn.execute(RUNS.insert().values(
                run_id=run_id, kind=kind, dataset=dataset, fingerprint=fingerprint, seed=seed, settings=settings_text,
                settings_key=settings_text, versions=json.dumps(package_versions()), status=status,
                started=time.time(), private=int(bool(private)), owner=process_identity()))
        return run_id

    def mark_running(self, run_id: str) -> None:
        """A queued run has started computing."""
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute(RUNS.update().where(RUNS.c.run_id == run_id, RUNS.c.status == "queued")
                         .values(status="running"))

    def sweep_orphans(self) -> int:
        """Mark ``interrupted`` every queued or running run whose owner process has ended (a crash
        or a restart of the server or of the command line), saying so in its summary; returns how
        many.  Their stored results stay (a resumed run reads them back)."""
        with self._connect() as conn:
            rows = conn.execute(sa.select(RUNS.c.run_id, RUNS.c.owner, RUNS.c.summary)
                                .where(RUNS.c.status.in_(ACTIVE))).all()
        orphans = [(run_id, summary) for run_id, owner, summary in rows if not _owner_alive(owner)]
        with self._transaction() as conn:
            for run_id, summary in orphans:
                note = {**(json.loads(summary) if summary else {}),
                        "interrupted": "the process that ran it ended before it finished (e.g. a server restart)"}
                conn.execute(RUNS.update().where(RUNS.c.run_id == run_id, RUNS.c.status.in_(ACTIVE))
                             .values(status="interrupted", finished=time.time(), summary=_canonical(note)))
        return len(orphans)

    def forget(self, fingerprint: str) -> int:
        """Delete every run on the data of this fingerprint, with its results and artifacts (one
        transaction); returns how many runs were deleted."""
        with self._transaction() as conn:
            return conn.execute(RUNS.delete().where(RUNS.c.fingerprint == fingerprint)).rowcount

    def add_results(self, run_id: str, rows: Iterable[Mapping[str, Any]]) -> int:
        """Append tidy result rows (keys: repetition, method, metric, value, and optionally fold,
        seconds, params) in one transaction; returns how many were written."""
        records = []
        for r in rows:
            try:
                records.append({"run_id": run_id, "repetition": int(r["repetition"]), "fold": int(r.get("fold") or 0),
                                "method": plain_text(r["method"], "a method's name"),
                                "metric": plain_text(r["metric"], "a metric's name"),
                                "value": None if r["value"] is None else float(r["value"]),
                                "seconds": None if r.get("seconds") is None else float(r["seconds"]),
                                "params": _canonical(r.get("params") or {})})
            except KeyError as exc:
                raise ValueError(f"a result row lacks the field {exc.args[0]!r}: {dict(r)}") from None
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            if records:
                conn.execute(RESULTS.insert(), records)
        return len(records)

    def put_artifact(self, run_id: str, name: str, data: bytes) -> None:
        """Store (or replace) a named binary blob of a run."""
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute(ARTIFACTS.delete().where(ARTIFACTS.c.run_id == run_id, ARTIFACTS.c.name == name))
            conn.execute(ARTIFACTS.insert().values(run_id=run_id, name=name, data=bytes(data)))

    def finish_run(self, run_id: str, summary: Mapping[str, Any] | None = None, *, failed: bool = False,
                   status: str | None = None) -> None:
        """End a run: ``finished`` (or ``failed``, or the ``status`` given: ``stopped``,
        ``interrupted``) with an optional JSON summary."""
        status = status or ("failed" if failed else "finished")
        if status not in STATUSES or status in ACTIVE:
            raise ValueError(f"a run ends as one of {[s for s in STATUSES if s not in ACTIVE]}, not {status!r}.")
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute(RUNS.update().where(RUNS.c.run_id == run_id)
                         .values(status=status, finished=time.time(), summary=_canonical(summary or {})))

    def delete_run(self, run_id: str) -> None:
        """Delete the run ``run_id`` with its results and artifacts (nothing for an unknown run)."""
        with self._transaction() as conn:
            conn.execute(RUNS.delete().where(RUNS.c.run_id == run_id))

    @staticmethod
    def _require_run(conn, run_id: str) -> None:
        """The run must exist (its row locked until the transaction ends, on PostgreSQL)."""
        if conn.execute(sa.select(RUNS.c.run_id).where(RUNS.c.run_id == run_id).with_for_update()).first() is None:
            raise ValueError(f"No run {run_id!r} in the results store.")

    # ------------------------------------------------------------------ reading
    def _frame(self, query) -> pd.DataFrame:
        with self._connect() as conn:
            result = conn.execute(query)
            return pd.DataFrame.from_records(result.all(), columns=list(result.keys()), coerce_float=True)

    def runs(self, kind: str | None = None, status: str | None = None, include_private: bool = False) -> pd.DataFrame:
        """All runs (newest first), optionally of one kind and status; JSON columns decoded.

        Private runs (on uploaded data) are left out unless ``include_private``."""
        columns = [c for c in RUNS.c if c.name != "settings_key"]
        where = _where(RUNS, {"kind": kind, "status": status, "private": None if include_private else 0})
        frame = self._frame(sa.select(*columns).where(*where).order_by(RUNS.c.started.desc()))
        for col in ("settings", "versions", "summary"):
            frame[col] = frame[col].map(lambda s: json.loads(s) if isinstance(s, str) and s else None)
        return frame

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
        kind: private runs only when asked for by id), in the order they were written."""
        r, u = RESULTS, RUNS
        query = (sa.select(r.c.run_id, u.c.kind, u.c.dataset, u.c.seed, r.c.repetition, r.c.fold, r.c.method,
                           r.c.metric, r.c.value, r.c.seconds, r.c.params)
                 .join_from(r, u, r.c.run_id == u.c.run_id)
                 .where(*_where(r, {"run_id": run_id}), *_where(u, {"kind": kind, "private": None if run_id else 0}))
                 .order_by(u.c.started, r.c.id))
        frame = self._frame(query)
        frame["params"] = frame["params"].map(json.loads)
        return frame

    def artifact(self, run_id: str, name: str) -> bytes | None:
        """The artifact ``name`` of the run ``run_id``, or None when it has none."""
        with self._connect() as conn:
            data = conn.execute(sa.select(ARTIFACTS.c.data)
                                .where(ARTIFACTS.c.run_id == run_id, ARTIFACTS.c.name == name)).scalar()
        return None if data is None else bytes(data)

    def _newest(self, kind: str, fingerprint: str, settings: Mapping[str, Any], finished: bool) -> str | None:
        query = sa.select(RUNS.c.run_id).where(RUNS.c.kind == kind, RUNS.c.fingerprint == fingerprint,
                                               RUNS.c.settings_key == _canonical(settings))
        if finished:
            query = query.where(RUNS.c.status == "finished").order_by(RUNS.c.finished.desc())
        else:
            query = query.order_by(RUNS.c.started.desc())
        with self._connect() as conn:
            return conn.execute(query.limit(1)).scalar()

    def find_run(self, kind: str, fingerprint: str, settings: Mapping[str, Any]) -> str | None:
        """The newest run of this kind on the same data with identical settings, whatever its status
        (a run to resume), or None."""
        return self._newest(kind, fingerprint, settings, finished=False)

    def split_rows(self, run_id: str) -> list[dict]:
        """The stored result rows of a run as dicts (repetition, fold, method, metric, value, seconds,
        params), in the order they were written: what a resumed run reads back."""
        frame = self.results(run_id=run_id)
        return [{"repetition": int(r.repetition), "fold": int(r.fold), "method": r.method, "metric": r.metric,
                 "value": r.value, "seconds": r.seconds, "params": r.params} for r in frame.itertuples()]

    def run_summary(self, run_id: str) -> dict:
        """The JSON summary a run was finished with (empty while it has none)."""
        with self._connect() as conn:
            row = conn.execute(sa.select(RUNS.c.summary).where(RUNS.c.run_id == run_id)).first()
        if row is None:
            raise ValueError(f"no run {run_id!r} in {self.shown}.")
        return json.loads(row[0]) if row[0] else {}

    def reopen_run(self, run_id: str) -> None:
        """Mark a stored run ``running`` again (it is being resumed)."""
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute(RUNS.update().where(RUNS.c.run_id == run_id)
                         .values(status="running", finished=None, owner=process_identity()))

    def typical_seconds(self, kind: str, last: int = 20) -> list[float]:
        """Computing seconds of the last ``last`` finished runs of this kind (their summary's
        ``compute_seconds``), oldest first: what the job engine's estimated waits start from."""
        query = (sa.select(RUNS.c.summary)
                 .where(RUNS.c.kind == kind, RUNS.c.status == "finished", RUNS.c.summary.like('%"compute_seconds"%'))
                 .order_by(RUNS.c.finished.desc()))
        out: list[float] = []
        with self._connect() as conn:
            for (summary,) in conn.execute(query):
                seconds = json.loads(summary).get("compute_seconds")
                if seconds is not None:
                    out.append(float(seconds))
                if len(out) >= int(last):
                    break
        return out[::-1]

    def find_finished(self, kind: str, fingerprint: str, settings: Mapping[str, Any]) -> str | None:
        """The newest finished run of this kind on the same data with identical settings, or None."""
        return self._newest(kind, fingerprint, settings, finished=True)

    def dump(self, kind: str, unfinished_only: bool = True) -> dict:
        """The runs of ``kind`` (only those not finished, by default) with their results, as JSON-able rows
        ``{"runs": [...], "results": [...]}``: what a computation elsewhere resumes from (:meth:`load`,
        :mod:`mvlab.engine.relay`)."""
        where = [RUNS.c.kind == kind] + ([RUNS.c.status != "finished"] if unfinished_only else [])
        with self._connect() as conn:
            runs = [dict(r._mapping) for r in conn.execute(sa.select(RUNS).where(*where))]
            ids = [r["run_id"] for r in runs]
            results = [dict(r._mapping) for r in conn.execute(
                sa.select(*[c for c in RESULTS.c if c.name != "id"]).where(RESULTS.c.run_id.in_(ids))
                .order_by(RESULTS.c.id))] if ids else []
        return {"runs": runs, "results": results}

    def load(self, dump: Mapping[str, list]) -> None:
        """Insert the rows of a :meth:`dump` (runs first, then their results, in their order), in one transaction."""
        with self._transaction() as conn:
            if dump.get("runs"):
                conn.execute(RUNS.insert(), list(dump["runs"]))
            if dump.get("results"):
                conn.execute(RESULTS.insert(), list(dump["results"]))

    def finished_result(self, kind: str, fingerprint: str, settings: Mapping[str, Any], result_type):
        """The newest finished run's ``"result"`` artifact read back as ``result_type.from_npz(bytes)``
        (what the pages and the lessons show), or None when no such run or artifact is stored."""
        run_id = self.find_finished(kind, fingerprint, settings)
        return None if run_id is None else self.run_result(run_id, result_type)

    def run_result(self, run_id: str, result_type):
        """The run's ``"result"`` artifact read back as ``result_type.from_npz(bytes)``, or None when it has none."""
        blob = self.artifact(run_id, "result")
        return None if blob is None else result_type.from_npz(blob)
