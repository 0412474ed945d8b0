"""Computing the draws a draws file lacks: one loop for every paper's protocol.

A protocol's draws are independent jobs; :func:`run_missing_draws` skips those already in the file
(:class:`mvlab.reproduction.cells.DrawsFile`), runs the others one per engine worker and appends each job's rows
as soon as it ends, so a run cut off loses only the jobs in flight and the next run continues from the file.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Hashable, Iterable

from mvlab.reproduction.cells import DrawsFile

__all__ = ["run_missing_draws"]


def run_missing_draws(file: DrawsFile, tasks: Iterable[Any], compute: Callable[..., list[dict]], *,
                      n_jobs: int = 1, say: Callable[[str], None] | None = None,
                      describe: Callable[[list[dict]], str] = lambda rows: "", noun: str = "draw(s)",
                      group: Callable[[Any], Hashable] | None = None) -> int:
    """Compute the tasks whose ``key`` (a tuple in the order of ``file.key``) is not yet in ``file``.

    ``compute(unit, n_jobs=threads)`` returns the rows of one job (dicts with ``file.columns``): ``unit`` is one
    task, or with ``group`` the list of missing tasks that share ``group(task)``, computed together (one job).
    With ``n_jobs != 1`` the jobs run through joblib (the job engine's workers inside
    :func:`mvlab.cli.on_engine`), one per worker, each on one thread (``call_on_threads`` keeps its loops off the
    cluster); with ``n_jobs == 1`` in this process, on two threads. Rows are appended by this process in the
    order the jobs end. ``say`` gets one line first (how many ``noun`` are left and done) and one per job:
    ``[done/left seconds] describe(rows)``. Returns the number of tasks computed.
    """
    from joblib import Parallel, delayed

    from mvlab.core.threads import call_on_threads

    done = file.done()
    todo = [t for t in tasks if t.key not in done]
    if say:
        say(f"{len(todo)} {noun} to compute, {len(done)} already in {file.path}")
    if not todo:
        return 0
    if group is None:
        units = todo
    else:
        groups: dict = {}
        for t in todo:
            groups.setdefault(group(t), []).append(t)
        units = list(groups.values())
    threads = 1 if n_jobs != 1 else 2
    jobs = (delayed(call_on_threads)(compute, unit, n_jobs=threads) for unit in units)
    start, n = time.perf_counter(), 0
    for rows in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs):
        file.append(rows)
        n += len({tuple(r[k] for k in file.key) for r in rows})
        if say:
            say(f"[{n}/{len(todo)} {time.perf_counter() - start:.0f} s] {describe(rows)}")
    return n
