"""How long a queued run will wait: durations of similar runs, and the queue played out on the workers."""

from __future__ import annotations

import statistics

from mvlab.engine import records

__all__ = ["DEFAULT_SECONDS", "estimated_start", "typical_seconds"]

DEFAULT_SECONDS = 30.0
"""Assumed duration of a kind of run never measured yet (for the first estimated waits)."""


def typical_seconds(measured: list[float] | None, kind: str | None = None,
                    store_location: str | None = None) -> float:
    """Typical computing seconds of runs like this one: the median of the last 20 ``measured`` (this
    server's), else of the results store's finished runs of ``kind``, else :data:`DEFAULT_SECONDS`.

    Reads the results store when nothing was measured: call it without holding the engine's lock.  A store that
    cannot be opened counts as no runs; one that cannot answer now raises :class:`mvlab.store.StoreUnavailable`."""
    if not measured and kind is not None:
        try:
            measured = records.store_at(store_location).typical_seconds(kind)
        except ValueError:
            measured = []
    return float(statistics.median(measured[-20:])) if measured else DEFAULT_SECONDS


def estimated_start(running: list[float], ahead: list[float], n_workers: int) -> float:
    """When a queued run starts, in seconds from now: ``n_workers`` workers, busy for the
    ``running`` remaining seconds, each taking the next of the runs ``ahead`` (their durations,
    in queue order) as soon as it is free.  With no worker free and nobody ahead, the soonest
    end of a running run."""
    free = sorted(list(running)[:n_workers] + [0.0] * max(n_workers - len(running), 0))
    for duration in ahead:
        free[0] += duration
        free.sort()
    return free[0]
