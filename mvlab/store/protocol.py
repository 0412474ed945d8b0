"""What a computation may ask of the results store, declared once.

A computation that records its own runs as it goes (the experiment runner: a run started or reopened, each split's
rows, its end) is given a :class:`RunStore`: in the process that asks, the :class:`mvlab.store.ResultsStore` itself;
on a worker of the job engine, a :class:`mvlab.engine.relay.StoreRelay`, which sends the writes back to the process
that asked (:data:`WRITES` are what it may send) and answers the reads (:data:`READS`) from the runs it was given to
resume from. Both take these signatures from here; nothing else of the store is a computation's to call.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Protocol, runtime_checkable

__all__ = ["RunWrites", "RunReads", "RunStore", "WRITES", "READS", "record_result"]


@runtime_checkable
class RunWrites(Protocol):
    """The writes of a computation that records its runs (see :class:`mvlab.store.ResultsStore` for each)."""

    def start_run(self, kind: str, dataset: str, fingerprint: str, seed: int | None, settings: Mapping[str, Any], *,
                  private: bool = False, status: str = "running", run_id: str | None = None) -> str:
        """Record a new run (``running`` or ``queued``); its id (``run_id`` when given)."""

    def mark_running(self, run_id: str) -> None:
        """A queued run has started computing."""

    def add_results(self, run_id: str, rows: Iterable[Mapping[str, Any]]) -> int:
        """Append tidy result rows to the run; how many were written."""

    def put_artifact(self, run_id: str, name: str, data: bytes) -> None:
        """Store (or replace) a named binary blob of the run."""

    def finish_run(self, run_id: str, summary: Mapping[str, Any] | None = None, *, failed: bool = False,
                   status: str | None = None) -> None:
        """End the run: ``finished``, ``failed`` or the ``status`` given, with an optional JSON summary."""

    def reopen_run(self, run_id: str) -> None:
        """Mark a stored run ``running`` again (it is being resumed)."""


@runtime_checkable
class RunReads(Protocol):
    """What a computation that resumes a run reads back (see :class:`mvlab.store.ResultsStore` for each)."""

    def find_run(self, kind: str, fingerprint: str, settings: Mapping[str, Any]) -> str | None:
        """The newest run of this kind, data and settings, whatever its status, or None."""

    def split_rows(self, run_id: str) -> list[dict]:
        """The run's stored result rows, in the order they were written."""

    def run_summary(self, run_id: str) -> dict:
        """The JSON summary the run was finished with (empty while it has none)."""


@runtime_checkable
class RunStore(RunWrites, RunReads, Protocol):
    """A results store as a computation that records and resumes its runs sees it."""


def _methods(protocol: type) -> tuple[str, ...]:
    """The names of the methods ``protocol`` itself declares, in their order."""
    return tuple(name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_"))


WRITES = _methods(RunWrites)
"""The names of :class:`RunWrites`' methods: the only writes a worker may send back."""
READS = _methods(RunReads)
"""The names of :class:`RunReads`' methods."""


def record_result(store: RunWrites, run_id: str, rows: Iterable[Mapping[str, Any]], artifact: bytes,
                  summary: Mapping[str, Any]) -> None:
    """A finished run's result written through the protocol: its tidy rows, its artifact (``"result"``), then the run
    marked ``finished`` with ``summary``. What the job engine writes for a page's Train
    (:func:`mvlab.engine.records.finish`); a computation that records its own runs writes the same calls, through a
    relay in a worker."""
    store.add_results(run_id, rows)
    store.put_artifact(run_id, "result", artifact)
    store.finish_run(run_id, summary)
