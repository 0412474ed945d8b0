"""A lesson's results: read from the results store, or computed on the job engine and recorded there
(``python -m mvlab lesson ID --warm`` before class), under the same keys as the pages use, so that a
step opened in class finds its result without training."""

from __future__ import annotations

import time
from typing import Callable

from mvlab.engine import Engine
from mvlab.engine.requests import settings_request
from mvlab.lessons.model import Lesson, StepContext, StepRun
from mvlab.store import ResultsStore

__all__ = ["stored_result", "step_contexts", "warm"]


def stored_result(run: StepRun, store: ResultsStore, data=None):
    """The finished result of ``run`` in ``store`` (the newest), or None."""
    data = run.data() if data is None else data
    return store.finished_result(run.settings.kind, data.fingerprint(), run.settings.key(), run.result_type)


def step_contexts(lesson: Lesson, store: ResultsStore) -> dict[StepRun, StepContext | None]:
    """Every run of ``lesson`` with its stored result as a :class:`StepContext` (None: not stored yet)."""
    out = {}
    for run in lesson.runs():
        data = run.data()
        result = stored_result(run, store, data)
        out[run] = None if result is None else StepContext(result, data, run.settings)
    return out


def warm(lesson: Lesson, store: ResultsStore, engine: Engine | None = None,
         say: Callable[[str], None] = print, holder: str = "lesson-warm") -> dict[StepRun, str]:
    """Compute every run of ``lesson`` missing from ``store`` and record it there; returns each run's
    fate (``"stored already"``, ``"computed in N s"``, or the failure in words).  Each line said names the steps
    that show the run, so a teacher reads how long each step's computation takes.

    With an ``engine``, each missing run is submitted to it (as a page would) and waited for; without,
    it is computed in this process and recorded the same way."""
    fates = {}
    for run in lesson.runs():
        data = run.data()
        steps = [i for i, step in enumerate(lesson.steps, start=1) if step.run == run]
        where = f"{lesson.id}: step{'s' if len(steps) > 1 else ''} {', '.join(map(str, steps))}, " \
                f"{run.settings.kind} on {data.name}"
        if stored_result(run, store, data) is not None:
            fates[run] = "stored already"
            say(f"{where}: stored already")
            continue
        request = settings_request(run.settings, data, store.location, label=run.label)
        start = time.perf_counter()
        if engine is None:
            fates[run] = _compute_here(request)
        else:
            fates[run] = _compute_on(engine, request, holder)
        if fates[run] == "computed":
            fates[run] = f"computed in {time.perf_counter() - start:.1f} s"
        say(f"{where}: {fates[run]}")
    return fates


def _compute_here(request) -> str:
    from mvlab.engine import records

    run_id = records.start(request.record)
    records.running(request.record, run_id)
    start = time.perf_counter()
    try:
        result = request.fn(request.data, None)
    except Exception as exc:  # noqa: BLE001 (a failed run is recorded and reported in words)
        records.ended(request.record, run_id, "failed", str(exc))
        return f"failed: {exc}"
    refused = records.finish(request.record, run_id, result, time.perf_counter() - start)
    return refused or "computed"


def _compute_on(engine: Engine, request, holder: str) -> str:
    job = engine.submit(request, holder)
    while not engine.wait(job, timeout=1.0):
        pass
    status = engine.status(job)
    engine.release(holder)
    if status is None or status.state != "finished":
        return f"failed: {status.error if status is not None else 'the run was lost'}"
    return status.error or "computed"
