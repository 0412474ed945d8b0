"""What runs inside a worker: one computation, its progress sent to the pages that wait on it, and
a Stop that ends it at its next progress report.

A computation is ``fn(data, progress)`` (e.g. a page's ``settings.run(ds, progress)``).  The
worker tells the engine when it starts and how far it is (Dask's event topics, :data:`TOPIC`),
and checks its job's stop flag (a Dask :class:`distributed.Event`) at most twice a second, from
the progress callback: the library's long loops already call it, so no thread is ever killed
(:mod:`mvlab.engine.jobs` restarts the worker of a run that ignores its Stop for too long).  The messages carry
the worker's process id, its nanny and its memory in use, so that a worker's death can be told for what it was.

**Partial results** (:func:`mvlab.core.progress.report_partial`): the progress callback takes the result computed so
far at most every :data:`PARTIAL_EVERY` seconds; its bytes (``to_npz()``, or the value itself when it is small and
plain) go to a Dask :class:`distributed.Variable` of the job (:func:`partial_name`: the newest one only, never a
history in the scheduler's event log) and a ``partial`` message with its number and what it holds in words tells the
engine, which fetches it when a page asks (:meth:`mvlab.engine.jobs.Engine.partial`) and deletes it when the run
ends.  A partial that cannot be built or sent is skipped: it never costs the run.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import psutil
from distributed import Event, Variable, get_worker
from joblib import parallel_config

from mvlab.core.progress import Stopped
from mvlab.i18n import to_wire

__all__ = ["TOPIC", "RunStopped", "Outcome", "execute", "stop_flag_name", "partial_name", "PARTIAL_EVERY",
           "PARTIAL_MAX_BYTES"]

TOPIC = "mvlab-jobs"
"""The event topic on which workers report ``{"job", "state", ...}`` messages to the engine."""

SEND_EVERY = 0.2
"""Seconds between two progress messages of one run (the first and the last always go)."""
CHECK_EVERY = 0.5
"""Seconds between two looks at the run's stop flag."""
PARTIAL_MAX_BYTES = 16_000_000
"""The largest partial result sent (packed bytes); past it the run sends no more parts, only its whole result."""
PARTIAL_EVERY = 2.0
"""Seconds between two partial results of one run (the first always goes): each is built, packed and drawn again by
every page that follows the run. Measured (#72, the Dissimilarity page on two cores): parts 0.5 s apart were replaced
in the browser before it had drawn them (the first figure of a part came 2.9 s after Train, not 1.4 s), and their
drawing took the cores from the run."""


class RunStopped(Stopped):
    """Everyone who waited on this run stopped it; nothing is stored (a run of the results store that
    the computation opened itself, e.g. the Benchmark page's, is recorded as ``stopped``)."""


@dataclass
class Outcome:
    """What a finished computation sends back: its result, its computing time (wall seconds in
    the worker, queueing excluded), the warnings it raised, each distinct message counted, and the
    result's artifact for the results store (``result.to_npz()``) when it was asked for.  What a computation
    records itself as it goes has already come back, on its own way (:mod:`mvlab.engine.relay`)."""

    result: Any
    seconds: float
    warnings: dict[str, int] = field(default_factory=dict)
    artifact: bytes | None = None


def _used(process: psutil.Process) -> int:
    """The worker process's resident memory in bytes (0 when it cannot be read): sent with each progress message, so
    that the engine can say whether a worker that died was near its memory limit."""
    try:
        return int(process.memory_info().rss)
    except psutil.Error:
        return 0


def stop_flag_name(job_id: str) -> str:
    """Name of the Dask :class:`distributed.Event` whose setting stops the job ``job_id``."""
    return f"mvlab-stop-{job_id}"


def partial_name(job_id: str) -> str:
    """Name of the Dask :class:`distributed.Variable` that holds the newest partial result of the job ``job_id``."""
    return f"mvlab-partial-{job_id}"


def execute(job_id: str, fn: Callable[[Any, Callable[[float, str], None]], Any], data: Any,
            threads: int = 1, artifact: bool = False) -> Outcome:
    """Run ``fn(data, progress)`` in this worker on ``threads`` threads (see the module
    docstring); raise :class:`RunStopped` when the job's stop flag is set.  With ``artifact``, the
    worker also packs the result for the results store (its compressed ``.npz``: tens of
    milliseconds of CPU per run that the web server, where every page waits on it, does not spend).  ``data``
    is handed to ``fn`` as it came (a :class:`mvlab.engine.relay.StoreRelay` is a store in the worker)."""
    worker = get_worker()
    stop = Event(stop_flag_name(job_id))

    def tell(**msg) -> None:
        worker.log_event(TOPIC, {"job": job_id, **msg})

    if stop.is_set():  # everyone left while it waited
        raise RunStopped()
    me = psutil.Process()
    tell(state="running", worker=worker.address, memory_limit=int(worker.memory_manager.memory_limit or 0),
         pid=me.pid, nanny=worker.nanny)
    clock = {"sent": 0.0, "checked": time.monotonic()}

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - clock["checked"] >= CHECK_EVERY:
            clock["checked"] = now
            if stop.is_set():
                raise RunStopped()
        if now - clock["sent"] >= SEND_EVERY or fraction >= 1:
            clock["sent"] = now
            tell(state="progress", fraction=float(fraction), message=to_wire(message), memory=_used(me))

    sent = {"at": float("-inf"), "count": 0}

    def partial(build: Callable[[], Any], note: str) -> None:
        now = time.monotonic()
        if now - sent["at"] < PARTIAL_EVERY:
            return
        sent["at"] = now
        try:
            value = build()
            packed = value.to_npz() if hasattr(value, "to_npz") else value
            if isinstance(packed, bytes) and len(packed) > PARTIAL_MAX_BYTES:
                sent["at"] = float("inf")  # too large to send: no more parts of this run
                return
            Variable(partial_name(job_id)).set(packed)
        except RunStopped:
            raise
        except Exception:  # noqa: BLE001 - a partial is a courtesy to the pages: the whole result still comes
            return
        sent["count"] += 1
        tell(state="partial", number=sent["count"], note=to_wire(note))

    progress.partial = partial
    start = time.perf_counter()
    # threads, never loky's process-wide executor: the pool belongs to this run alone; n_jobs=None in the
    # library (and in scikit-learn) reads this run's share of the cores from here
    with parallel_config(backend="threading", n_jobs=threads), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(data, progress)
    seen: dict[str, int] = {}
    for w in caught:
        text = f"{w.category.__name__}: {w.message}"
        seen[text] = seen.get(text, 0) + 1
    seconds = time.perf_counter() - start
    packed = None
    if artifact:
        try:
            packed = result.to_npz()
        except Exception:  # noqa: BLE001 - a result that cannot be packed costs its record, never the run:
            packed = None  # the engine packs it again and says why the store refused it
    return Outcome(result, seconds, seen, packed)
