"""Why a run's worker process died, from what distributed keeps (the nanny's memory-limit restart on the scheduler,
the nanny's log line of the process's end), and what a page says of it: out of memory only on evidence, killed by a
signal from outside, an exit status, or not known; never a guess. Used by :class:`mvlab.engine.jobs.Engine` when a
run's task fails with ``KilledWorker``."""

from __future__ import annotations

import re
import signal
import time
from dataclasses import dataclass

__all__ = ["Death", "worker_death", "death_message", "MEMORY_RESTART_TOPIC", "NEAR_LIMIT"]


MEMORY_RESTART_TOPIC = "worker-restart-memory"
"""The event that distributed's nanny logs on the scheduler when it restarts a worker over its memory limit
(``distributed.worker.memory.terminate``), with the worker's address, process id and memory in use."""
NEAR_LIMIT = 0.9
"""A worker killed while it used at least this share of its memory limit most likely ran out of memory (the
system's out-of-memory killer sends SIGKILL)."""


@dataclass(frozen=True)
class Death:
    """Why a worker process ended while it ran a task: ``cause`` is ``"memory"`` (its nanny restarted it over its
    memory limit; ``rss``: what it used), ``"killed"`` (by the signal ``signal``, from outside), ``"exited"``
    (with the status ``status``) or ``"unknown"`` (nothing said why)."""

    cause: str
    signal: int | None = None
    status: int | None = None
    rss: int = 0


def worker_death(client, address: str | None, nanny: str | None, pid: int | None, wait: float = 15.0) -> Death:
    """Why the worker ``address`` (process ``pid``, its nanny at ``nanny``) died, from what distributed keeps: the
    nanny's memory-limit restart (an event on the scheduler, :data:`MEMORY_RESTART_TOPIC`), else the nanny's log
    line of the process's end ("Worker process <pid> was killed by signal 9", "... exited with status 1"), read once
    the nanny's new worker has registered (up to ``wait`` seconds).  ``Death("unknown")`` when neither says."""
    deadline = time.monotonic() + wait
    while True:
        for _, event in client.get_events(MEMORY_RESTART_TOPIC):
            if (pid is not None and event.get("pid") == pid) or (address and event.get("worker") == address):
                return Death("memory", rss=int(event.get("rss") or 0))
        if nanny is not None and pid is not None:
            found = _death_in_log(_nanny_log(client, nanny), pid)
            if found is not None:
                return found
        if time.monotonic() >= deadline or nanny is None or pid is None:
            return Death("unknown")
        time.sleep(0.25)


def _nanny_log(client, nanny: str) -> list[str]:
    """The recent log lines of the nanny at ``nanny`` (empty while no worker of it is registered)."""
    workers = [addr for addr, info in client.scheduler_info(n_workers=-1).get("workers", {}).items()
               if info.get("nanny") == nanny]
    if not workers:
        return []
    logs = client.get_worker_logs(n=200, workers=workers, nanny=True)
    return [line for lines in logs.values() if isinstance(lines, (list, tuple))
            for entry in lines for line in [entry[-1] if isinstance(entry, (list, tuple)) else entry]]


def _death_in_log(lines: list[str], pid: int) -> Death | None:
    """The end of the process ``pid`` as its nanny logged it, or None when the log does not say."""
    for line in lines:
        if f"(pid={pid}) exceeded" in line and "memory budget" in line:
            return Death("memory")
    for line in lines:
        if found := re.search(rf"Worker process {pid} was killed by signal (\d+)", line):
            return Death("killed", signal=int(found.group(1)))
        if found := re.search(rf"Worker process {pid} exited with status (\d+)", line):
            return Death("exited", status=int(found.group(1)))
        if f"Worker process {pid} was killed by unknown signal" in line:
            return Death("killed")
    return None


def _signal_name(number: int | None) -> str:
    if number is None:
        return "an unknown signal"
    try:
        return f"signal {number}, {signal.Signals(number).name}"
    except ValueError:
        return f"signal {number}"


def death_message(death: Death, memory_limit: int, memory_used: int = 0) -> str:
    """What a page says of a run whose worker died (:func:`worker_death`): out of memory only on evidence (the
    nanny's memory-limit restart, or a worker killed while it used at least :data:`NEAR_LIMIT` of its limit),
    killed by a signal from outside, an exit status, or a cause not known; never a guess."""
    gb = memory_limit / 1e9
    near = memory_limit > 0 and memory_used >= NEAR_LIMIT * memory_limit
    if death.cause == "memory":
        return (f"This run needed more memory than a worker has ({gb:.1f} GB), so its worker was "
                "restarted: use fewer instances or trees.")
    if near and death.cause in ("killed", "unknown") and death.signal in (None, signal.SIGKILL):
        how = f"killed ({_signal_name(death.signal)})" if death.cause == "killed" else "ended"
        return (f"This run's worker was {how} while it used {memory_used / 1e9:.1f} of its {gb:.1f} GB: most likely "
                "it ran out of memory. Use fewer instances or trees.")
    if death.cause == "killed":
        return (f"This run's worker process was killed ({_signal_name(death.signal)}) from outside mvlab, by an "
                "administrator or the system; the worker has been restarted: try again.")
    if death.cause == "exited":
        return (f"This run's worker process exited with status {death.status} while it ran; the worker has been "
                "restarted: try again.")
    return ("This run's worker process stopped while it ran, and nothing says why (no memory-limit restart, no exit "
            "status from its nanny); the worker has been restarted: try again, and tell the server's administrator "
            "if it happens again (the workers' logs may say more).")
