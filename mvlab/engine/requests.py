"""What the job engine takes and tells: a request (what to compute and how to store it), a run's
status as a page shows it, the server's status for the teacher's panel, and the refusal of a full
queue."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Request", "RunRecord", "JobStatus", "ServerStatus", "ServerBusy", "RunNotStarted", "result_key",
           "settings_request"]


class ServerBusy(ValueError):
    """Too many runs already wait for a worker; the message says how many and for how long."""


class RunNotStarted(ValueError):
    """A run could not be started (the results store unavailable, the scheduler unreachable); the message says why.
    Nothing of it is left waiting in the engine: the same request can be submitted again at once."""


@dataclass(frozen=True)
class RunRecord:
    """How a run is recorded in the results store: the result's kind, data and settings key.
    The result object must have ``result_rows()`` and ``to_npz()``."""

    kind: str
    dataset: str
    fingerprint: str
    seed: int | None
    settings: dict
    private: bool = False
    store_location: str | None = None


@dataclass(frozen=True)
class Request:
    """One computation: ``fn(data, progress)`` in a worker.  Requests with equal ``key`` are the
    same computation (the engine runs it once).  ``kind`` groups similar runs for the estimated
    waits; ``record`` (optional) says how to store the result."""

    kind: str
    key: str
    fn: Callable[[Any, Callable[[float, str], None]], Any]
    data: Any = None
    record: RunRecord | None = None
    label: str = ""


@dataclass(frozen=True)
class JobStatus:
    """What a waiting page shows.  ``position``: 1 = next to start (queued only); ``wait``:
    estimated seconds before it starts (queued) or ends (running); ``shared``: how many holders
    wait on it; ``partial``: the number of the newest partial result the run has sent (0: none yet,
    :meth:`mvlab.engine.jobs.Engine.partial`)."""

    job_id: str
    state: str
    position: int | None
    wait: float | None
    fraction: float
    message: str
    elapsed: float
    shared: int
    error: str | None = None
    partial: int = 0


@dataclass(frozen=True)
class ServerStatus:
    """The server panel: workers with their memory, runs running and queued."""

    address: str
    dashboard: str | None
    workers: list[dict]
    running: int
    queued: int
    max_queued: int
    embedded: bool


def result_key(settings, ds) -> str:
    """The identity of a page's result: its kind, the data fingerprint and the settings actually used
    (``settings.key()``); equal keys are the same computation and the same stored result."""
    return json.dumps([settings.kind, ds.fingerprint(), settings.key()], sort_keys=True, default=str)


def settings_request(settings, ds, store_location: str, label: str = "") -> Request:
    """The request of a page's settings object on the dataset ``ds``: ``settings.run(ds, progress)``
    in a worker, identified by :func:`result_key`, recorded in the results store at ``store_location``
    (privately for uploaded data)."""
    record = RunRecord(settings.kind, ds.name, ds.fingerprint(), settings.seed, settings.key(),
                       private=ds.origin == "upload", store_location=store_location)
    return Request(settings.kind, result_key(settings, ds), settings.run, ds, record, label)
