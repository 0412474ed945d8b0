"""The job engine: every heavy computation a page or the command line starts runs on Dask's
``distributed`` (an embedded cluster of worker processes, or an existing cluster), isolated,
queued, shared when identical and stoppable (:mod:`mvlab.engine.jobs`)."""

from __future__ import annotations

import atexit
import threading

from mvlab.engine.cluster import EngineConfig, connect, parse_bytes
from mvlab.engine.jobs import Engine
from mvlab.engine.requests import JobStatus, Request, RunRecord, ServerBusy, ServerStatus
from mvlab.engine.task import Outcome, RunStopped

__all__ = ["Engine", "EngineConfig", "JobStatus", "Outcome", "Request", "RunRecord", "RunStopped", "ServerBusy",
           "ServerStatus", "connect", "parse_bytes", "shared_engine", "use_engine"]

_SHARED: Engine | None = None
_LOCK = threading.Lock()


def shared_engine() -> Engine:
    """The engine of this process (one per server: every session's runs share its workers and
    queue), created on first use from the environment (:meth:`EngineConfig.from_env`)."""
    global _SHARED
    with _LOCK:
        if _SHARED is None:
            _SHARED = Engine()
            atexit.register(_SHARED.close)
        return _SHARED


def use_engine(engine: Engine | None) -> Engine | None:
    """Make ``engine`` the shared one (tests: an engine with a small memory limit); returns the
    previous one, which the caller closes or puts back."""
    global _SHARED
    with _LOCK:
        previous, _SHARED = _SHARED, engine
        return previous
