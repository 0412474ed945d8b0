"""What the job engine takes and tells: a request (what to compute and how to store it), a run's
status as a page shows it, the server's status for the teacher's panel, and the refusal of a full
queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Request", "RunRecord", "JobStatus", "ServerStatus", "ServerBusy"]


class ServerBusy(ValueError):
    """Too many runs already wait for a worker; the message says how many and for how long."""


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
    store_path: str | None = None


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
    wait on it."""

    job_id: str
    state: str
    position: int | None
    wait: float | None
    fraction: float
    message: str
    elapsed: float
    shared: int
    error: str | None = None


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
