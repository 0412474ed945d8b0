"""Worker counts and running independent numpy/scipy jobs on a few threads (their kernels release the GIL)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

from joblib import effective_n_jobs, parallel_config


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

    ``None`` -> what an enclosing :func:`joblib.parallel_config` says (1 outside one): the job
    engine gives each run the threads of its worker this way; a negative value counts back from
    the cores (``-1`` = all, ``-2`` = all but one); a positive value is used as is.
    """
    if n_jobs is None:
        return max(1, int(effective_n_jobs(None)))
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, int(n_jobs))


def call_on_threads(fn: Callable[..., Any], *args, **kwargs) -> Any:
    """``fn(*args, **kwargs)`` as one task of a parallel backend (a loky or Dask worker): the
    parallel loops inside it run on this worker's threads (``n_jobs=None``: one), never as further
    tasks of the backend.  Under joblib's Dask backend a loop with ``n_jobs=None`` would otherwise
    send each of its calls to the cluster as a task of its own (thousands of tiny tasks)."""
    with parallel_config(backend="threading", n_jobs=1):
        return fn(*args, **kwargs)


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


def in_order(fn, items, n_threads):
    """``fn(item)`` for every item, yielded in order, computed on ``n_threads`` threads.

    At most ``2 * n_threads`` results are pending at a time, so large per-item results (tree
    probabilities) do not pile up while the caller consumes them. Exceptions are re-raised in the
    caller's thread.
    """
    items = list(items)
    if n_threads <= 1 or len(items) <= 1:
        for item in items:
            yield fn(item)
        return
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        ahead = 2 * n_threads
        futures = [pool.submit(fn, item) for item in items[:ahead]]
        for i in range(len(items)):
            result = futures[i].result()
            futures[i] = None
            if i + ahead < len(items):
                futures.append(pool.submit(fn, items[i + ahead]))
            yield result
