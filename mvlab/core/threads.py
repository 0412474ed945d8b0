"""Worker counts and running independent numpy/scipy jobs on a few threads (their kernels release the GIL)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence


def run_threads(jobs: Sequence[Callable[[], None]], n_threads: int) -> None:
    """Call every job, on ``n_threads`` threads when there is more than one.

    Jobs write their results into preallocated arrays; an exception raised by a job is
    re-raised here, in the caller's thread.
    """
    if n_threads <= 1 or len(jobs) <= 1:
        for job in jobs:
            job()
        return
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        for future in [pool.submit(job) for job in jobs]:
            future.result()


def worker_count(n_jobs) -> int:
    """Number of workers for an ``n_jobs`` setting (joblib convention, at least 1).

    ``None`` -> 1; a negative value counts back from the cores (``-1`` = all, ``-2`` = all
    but one); a positive value is used as is.
    """
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, int(n_jobs))


def split_workers(n_jobs, n_tasks: int) -> tuple[int, int]:
    """Share ``n_jobs`` workers between independent tasks and the work inside each task.

    Returns ``(outer, inner)``: ``outer`` tasks run at a time (at most one per task) and each gets
    ``inner`` workers of its own (what the outer level leaves over, at least 1), so that
    ``outer * inner <= worker_count(n_jobs)`` whenever there are at least as many tasks as workers.
    One place for the rule, as scikit-learn's ``_partition_estimators`` is for its forests.

    Parameters
    ----------
    n_jobs : int or None
        As :func:`worker_count`.
    n_tasks : int
        Independent tasks (views, candidate forests, models of a cascade level).
    """
    total = worker_count(n_jobs)
    outer = max(1, min(total, int(n_tasks)))
    return outer, max(1, total // outer)


def chunk_count(n_jobs, n_items: int, per_worker: int = 4) -> int:
    """Chunks to cut ``n_items`` into for ``n_jobs`` threads: ``per_worker`` per worker (so that
    uneven chunks even out), never more than the items and at least 1."""
    return max(1, min(int(n_items), per_worker * worker_count(n_jobs)))
