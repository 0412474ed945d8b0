"""Workers never write the results store: what a computation in a worker stores travels back through the engine to
the process that asked for it, which records it.

A worker may run on another machine, and a SQLite file cannot be shared between machines (its WAL journal needs
every writer on the machine that holds it), nor should a worker hold the store's password. So a computation that
records runs itself is given a :class:`StoreRelay` where it would be given a store, and opens it in the worker
(:meth:`StoreRelay.open`) as a :class:`RelayedStore`: :class:`mvlab.store.ResultsStore`'s methods, each write
numbered and sent on a Dask event topic as it happens (a run's finished splits reach the store while it computes),
and applied, in order and once each, by the process that asked (:class:`Applier`), to the store at
:attr:`StoreRelay.location`.

- The Benchmark page's request has a relay as its data: :func:`mvlab.engine.task.execute` opens it, the engine
  applies the writes as they come and, at the end of the task, whatever the messages have not brought yet from the
  full list the task returns, so nothing is lost when a message is.
- The command line's OFSP repetitions keep their finished folds (``run_ofsp_draw(split_store=relay)``): the relay
  carries the folds of the repetitions cut off earlier (:meth:`mvlab.store.ResultsStore.dump`), which the worker
  reads back from a private copy, and :func:`relayed_into` applies what the workers send while the command runs.
- Opened outside a worker (one process, ``--n-jobs 1``), a relay is the store itself.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from mvlab.core.serialize import _jsonable

__all__ = ["StoreRelay", "RelayedStore", "WRITES", "STORE_TOPIC", "apply", "Applier", "relayed_into"]

STORE_TOPIC = "mvlab-store"
"""The Dask event topic of the writes of relays opened outside an engine job (:func:`relayed_into`)."""

WRITES = ("start_run", "mark_running", "add_results", "put_artifact", "finish_run", "reopen_run")
"""The store's methods a worker may call; the engine applies nothing else."""


@dataclass(frozen=True)
class StoreRelay:
    """Says to a computation: record into the results store at ``location`` (the asking process's), through the
    engine; ``seed`` (:meth:`mvlab.store.ResultsStore.dump`) holds what it may read back (runs to resume)."""

    location: str
    seed: dict | None = field(default=None, compare=False, repr=False)

    def __reduce__(self):
        """What travels to a worker: never the store's location (a URL may hold its password), only the rows it may
        read back; the asking process keeps the location and applies the writes itself."""
        return (StoreRelay, ("", self.seed))

    def __copy__(self):
        return self  # a copy in this process keeps the location (copy would otherwise go through __reduce__)

    def __deepcopy__(self, memo):
        return self

    def open(self, send: Callable[[dict], None] | None = None):
        """In a Dask worker, a :class:`RelayedStore` whose writes go to ``send`` (default: the event topic
        :data:`STORE_TOPIC`, tagged with the relayed store's id); outside one, the store itself."""
        from distributed import get_worker

        try:
            worker = get_worker()
        except ValueError:  # not in a worker: this process records itself
            from mvlab.store import ResultsStore

            if not self.location:
                raise ValueError("a store relay sent to another process opens only in a worker of the job engine "
                                 "(Dask): the store's location stays with the process that asked.") from None
            return ResultsStore(self.location)
        if send is None:
            instance = uuid.uuid4().hex

            def send(operation, instance=instance):
                worker.log_event(STORE_TOPIC, {"relay": instance, "operation": operation})

        return RelayedStore(send, self.seed)


def _plain(value):
    """JSON's types only (the engine's messages are msgpack): numpy numbers and arrays become numbers and lists."""
    return json.loads(json.dumps(value, default=_jsonable))


class RelayedStore:
    """:class:`mvlab.store.ResultsStore` in a worker: every write becomes a numbered operation
    ``{"seq", "op", "args", "kwargs"}``, sent at once with ``send`` and kept in :attr:`operations`. With a ``seed``
    (:meth:`mvlab.store.ResultsStore.dump`) the worker reads from a private copy of it, which its own writes update;
    without one, reading is refused (``ValueError``): what a computation resumes from is given to it by the process
    that asks."""

    def __init__(self, send: Callable[[dict], None], seed: Mapping | None = None):
        self._send = send
        self.operations: list[dict] = []
        self._copy = None
        if seed is not None:
            from mvlab.store import ResultsStore

            self._folder = tempfile.TemporaryDirectory(prefix="mvlab-relay-")
            self._copy = ResultsStore(Path(self._folder.name) / "copy.sqlite")
            self._copy.load(seed)

    def _record(self, op: str, *args, **kwargs) -> None:
        operation = {"seq": len(self.operations), "op": op, "args": list(args), "kwargs": kwargs}
        if self._copy is not None:
            apply(self._copy, operation)
        self.operations.append(operation)
        self._send(operation)

    def start_run(self, kind: str, dataset: str, fingerprint: str, seed: int | None, settings: Mapping[str, Any], *,
                  private: bool = False, status: str = "running", run_id: str | None = None) -> str:
        """As :meth:`mvlab.store.ResultsStore.start_run`; the run's id is drawn here."""
        run_id = run_id or uuid.uuid4().hex
        self._record("start_run", kind, dataset, fingerprint, None if seed is None else int(seed), _plain(settings),
                     private=bool(private), status=status, run_id=run_id)
        return run_id

    def mark_running(self, run_id: str) -> None:
        """As :meth:`mvlab.store.ResultsStore.mark_running`."""
        self._record("mark_running", run_id)

    def add_results(self, run_id: str, rows: Iterable[Mapping[str, Any]]) -> int:
        """As :meth:`mvlab.store.ResultsStore.add_results`."""
        rows = _plain([dict(r) for r in rows])
        self._record("add_results", run_id, rows)
        return len(rows)

    def put_artifact(self, run_id: str, name: str, data: bytes) -> None:
        """As :meth:`mvlab.store.ResultsStore.put_artifact`."""
        self._record("put_artifact", run_id, name, bytes(data))

    def finish_run(self, run_id: str, summary: Mapping[str, Any] | None = None, *, failed: bool = False,
                   status: str | None = None) -> None:
        """As :meth:`mvlab.store.ResultsStore.finish_run`."""
        self._record("finish_run", run_id, _plain(summary or {}), failed=bool(failed), status=status)

    def reopen_run(self, run_id: str) -> None:
        """As :meth:`mvlab.store.ResultsStore.reopen_run`."""
        self._record("reopen_run", run_id)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if self._copy is not None and name not in WRITES:
            return getattr(self._copy, name)
        raise ValueError(f"a computation on the job engine does not read the results store ({name}): its workers "
                         "may run on other machines; the process that asks gives it what it needs.")


def apply(store, operation: Mapping[str, Any]) -> None:
    """Apply one operation of a :class:`RelayedStore` to ``store`` (a :class:`mvlab.store.ResultsStore`)."""
    op = operation.get("op")
    if op not in WRITES:
        raise ValueError(f"{op!r} is not a write a worker may ask for (one of {WRITES}).")
    getattr(store, op)(*operation.get("args", ()), **operation.get("kwargs", {}))


class Applier:
    """The operations of one task applied in their order, each once, whether they come as messages (in any order,
    some perhaps never) or, at the end, as the task's full list.

    Parameters
    ----------
    open_store : callable
        Returns the :class:`mvlab.store.ResultsStore` to apply them to (opened at the first operation).
    """

    def __init__(self, open_store: Callable[[], Any]):
        self._open_store = open_store
        self._store = None
        self._next = 0
        self._waiting: dict[int, Mapping] = {}

    @property
    def applied(self) -> int:
        """How many operations have been applied."""
        return self._next

    def take(self, operations: Iterable[Mapping[str, Any]]) -> None:
        """Apply these operations and any that waited for them, in order; one already applied is skipped."""
        for operation in operations:
            if int(operation["seq"]) >= self._next:
                self._waiting[int(operation["seq"])] = operation
        while self._next in self._waiting:
            operation = self._waiting.pop(self._next)
            self._next += 1  # an operation the store refuses is not tried again
            if self._store is None:
                self._store = self._open_store()
            apply(self._store, operation)


@contextmanager
def relayed_into(client, store, quiet: float = 1.0, most: float = 10.0):
    """While open, the writes that relays opened in the workers of ``client`` send (:data:`STORE_TOPIC`) are applied
    to ``store``, each relayed store's in its order (the command line's OFSP folds). Yields the appliers by relayed
    store (to see how many writes each brought). At the end it waits for the messages still on their way (until
    ``quiet`` seconds pass without one, at most ``most`` seconds): a task's result may arrive before its last
    writes."""
    appliers: dict[str, Applier] = {}
    lock = threading.Lock()
    last = [time.monotonic()]

    def on_event(event) -> None:
        _, msg = event
        with lock:
            last[0] = time.monotonic()
            applier = appliers.setdefault(msg["relay"], Applier(lambda: store))
            applier.take([msg["operation"]])

    client.subscribe_topic(STORE_TOPIC, on_event)
    try:
        yield appliers
    finally:
        until = time.monotonic() + most
        while time.monotonic() - last[0] < quiet and time.monotonic() < until:
            time.sleep(0.05)
        client.unsubscribe_topic(STORE_TOPIC)
