"""Running independent numpy/scipy jobs on a few threads (their kernels release the GIL)."""

from __future__ import annotations

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
