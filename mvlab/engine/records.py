"""How the job engine records a run in the results store as it goes: ``queued`` when submitted,
``running`` when a worker takes it, then ``finished`` with the result's rows and artifact, or
``failed`` / ``stopped``.  Once a run is started, a store that cannot be written only costs the record, never the
run; a store unavailable when a run would start (:class:`mvlab.store.StoreUnavailable`) keeps it from starting, so
that the page says so and the student presses Train again when the store is back."""

from __future__ import annotations

from typing import Callable

from sqlalchemy.exc import SQLAlchemyError

from mvlab.core.memo import Memo
from mvlab.engine.requests import RunRecord
from mvlab.store import ResultsStore, RunWrites, StoreUnavailable, record_result

__all__ = ["start", "running", "ended", "finish", "store_at"]


_OPENED = Memo(8)
"""The stores this process records runs in, by location (a store that cannot be opened is not kept)."""


def store_at(location: str | None) -> ResultsStore:
    """The results store at ``location`` (the default one for None), opened once per process and location (its
    tables made once): the engine records every run's steps in it, and the writes relayed from its workers
    (:mod:`mvlab.engine.relay`), on the connections this process's pages and class rounds use too (one engine per
    process and location: :mod:`mvlab.store.connections`)."""
    return ResultsStore() if location is None else _OPENED.get(str(location), lambda: ResultsStore(str(location)))


def start(record: RunRecord | None) -> str | None:
    """Record a new run as ``queued``; its id, or None (no record asked for, or no usable store: a location that
    cannot be opened).  A store that cannot answer now raises :class:`mvlab.store.StoreUnavailable`: nothing was
    recorded, and the run must not start (the engine says so and forgets it)."""
    if record is None:
        return None
    try:
        store = store_at(record.store_location)
        return store.start_run(record.kind, record.dataset, record.fingerprint, record.seed, record.settings,
                               private=record.private, status="queued")
    except ValueError:
        return None


def _written(record: RunRecord | None, run_id: str | None, write: Callable[[RunWrites], object]) -> str | None:
    """``write(store)`` on the record's store, a :class:`mvlab.store.RunWrites` (the writes a computation may make,
    declared once: the same the relay applies for a worker, :mod:`mvlab.engine.relay`); the store's refusal in words,
    or None. A store that refuses or cannot answer now costs this step of the record only: the run goes on, and a
    record left ``queued`` or ``running`` is marked ``interrupted`` by the server's next start
    (:meth:`mvlab.store.ResultsStore.sweep_orphans`)."""
    if record is None or run_id is None:
        return None
    try:
        write(store_at(record.store_location))
    except (ValueError, StoreUnavailable) as exc:
        return str(exc)
    except (SQLAlchemyError, OSError) as exc:  # a database error of another kind: a damaged file, a permission
        return f"The results store could not record it ({type(exc).__name__}: {exc})."
    return None


def running(record: RunRecord | None, run_id: str | None) -> None:
    """The queued run has started computing (:meth:`RunWrites.mark_running`)."""
    _written(record, run_id, lambda store: store.mark_running(run_id))


def ended(record: RunRecord | None, run_id: str | None, status: str, error: str | None = None) -> None:
    """The run ended without a result: ``"failed"`` (with ``error``, the words the page shows) or ``"stopped"``
    (:meth:`RunWrites.finish_run`)."""
    summary = {"error": error} if error else None
    _written(record, run_id, lambda store: store.finish_run(run_id, summary, status=status))


def finish(record: RunRecord | None, run_id: str | None, result, seconds: float,
           artifact: bytes | None = None) -> str | None:
    """Store a finished run's rows (``result.result_rows()``) and artifact (``artifact``, packed by the worker, else
    ``result.to_npz()``) and mark it ``finished`` with its computing time (:func:`mvlab.store.record_result`);
    returns a message when the store refused it."""
    refused = _written(record, run_id, lambda store: record_result(
        store, run_id, result.result_rows(), artifact if artifact is not None else result.to_npz(),
        {"compute_seconds": seconds}))
    return None if refused is None else f"The result is shown but could not be saved in the results store: {refused}"
