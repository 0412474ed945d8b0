"""Workers never write the results store: what a computation in a worker records travels back, on one Dask event
topic, to the process that asked for it, which writes it.

A worker may run on another machine, and a SQLite file cannot be shared between machines (its WAL journal needs
every writer on the machine that holds it), nor should a worker hold the store's password. So the process that asks
gives a computation that records its own runs a :class:`StoreRelay` where it would give a store: a
:class:`mvlab.store.RunStore`, whose writes (:data:`mvlab.store.WRITES`), in a worker, are numbered and sent as they
happen on :data:`STORE_TOPIC` under the relay's token, and applied in their order, once each, by the asking
process's :class:`Receiver` (one per Dask client, on a thread of its own) to the store at the relay's location: a
run's finished splits reach the store while it computes, so a run cut off keeps them. In the asking process itself
(``--n-jobs 1``) a relay is that store.

Every write a task sent is in when its task has ended: Dask's streams keep their order (the worker's messages before
its task's end, the scheduler's to the client too), so :meth:`Receiver.collect`, called once the task has ended,
waits only for the receiver's thread, and reads the topic's log on the scheduler again in the rare case that a
message did not come (a gap, or a run left open).

- The Benchmark page's request has a relay as its data: the engine expects it when the run is submitted and
  collects it when its task ends (:mod:`mvlab.engine.jobs`).
- The command line's OFSP repetitions keep their finished folds (``run_ofsp_draw(split_store=relay)``) while
  :func:`relayed_into` is open; the relay carries the folds of the repetitions cut off earlier
  (:meth:`mvlab.store.ResultsStore.dump`), which a worker reads back from a private copy.
"""

from __future__ import annotations

import functools
import inspect
import json
import queue
import tempfile
import threading
import uuid
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from mvlab.core.serialize import _jsonable
from mvlab.store.protocol import READS, WRITES, RunWrites

__all__ = ["StoreRelay", "STORE_TOPIC", "apply", "Applier", "Relayed", "Receiver", "receiver", "relayed_into"]

STORE_TOPIC = "mvlab-store"
"""The Dask event topic on which relays opened in workers send their writes."""


class StoreRelay:
    """The results store at ``location`` for a computation that may run in a worker (see the module docstring).

    Parameters
    ----------
    location : str
        The asking process's store; it never leaves that process (a URL may hold its password).
    seed : dict, optional
        What the computation may read back (:meth:`mvlab.store.ResultsStore.dump`: runs to resume); without it a
        relay in a worker refuses to read.
    token : str, optional
        Names the relay to the asking process's :class:`Receiver` (drawn when not given).
    """

    def __init__(self, location: str = "", seed: dict | None = None, token: str | None = None):
        self.location = str(location)
        self.seed = seed
        self.token = token or uuid.uuid4().hex
        self._instance = uuid.uuid4().hex  # this copy of the relay: its writes are numbered on their own
        self._lock = threading.Lock()
        self._sent = 0
        self._copy = None

    def __reduce__(self):
        """What travels to a worker: the token and the rows it may read back, never the store's location."""
        return (StoreRelay, ("", self.seed, self.token))

    def __copy__(self):
        return self  # a copy in this process keeps the location (copy would otherwise go through __reduce__)

    def __deepcopy__(self, memo):
        return self

    def __repr__(self) -> str:
        return f"StoreRelay(token={self.token!r})"

    def __getattr__(self, name: str):
        """The store's writes and reads (:mod:`mvlab.store.protocol`); nothing else."""
        if name in WRITES:
            return functools.partial(self._write, name)
        if name in READS:
            return functools.partial(self._read, name)
        raise AttributeError(f"{name!r}: a computation given the results store may call only "
                             f"{', '.join(WRITES + READS)} (mvlab.store.protocol).")

    def _store(self):
        """The asking process's store (this relay never left it)."""
        from mvlab.engine.records import store_at

        return store_at(self.location)

    def _read(self, name: str, *args, **kwargs):
        """A read: of the store itself in the asking process, else of the private copy of the seed."""
        return getattr(self._readable(name), name)(*args, **kwargs)

    def _readable(self, name: str):
        """Where a read goes: the store itself in the asking process, else the private copy of the seed (made at
        the first call), which this relay's own writes update."""
        if self.location:
            return self._store()
        if self.seed is None:
            raise ValueError(f"a computation on the job engine does not read the results store ({name}): its workers "
                             "may run on other machines; the process that asks gives it what it needs.")
        with self._lock:
            if self._copy is None:
                from mvlab.store import ResultsStore

                self._folder = tempfile.TemporaryDirectory(prefix="mvlab-relay-")
                copy = ResultsStore(Path(self._folder.name) / "copy.sqlite")
                copy.load(self.seed)
                self._copy = copy
        return self._copy

    def _write(self, op: str, *args, **kwargs):
        """Call the write ``op`` as the store would take it (a wrong call is a ``TypeError`` here, as there): in the
        asking process on the store itself; in a worker, sent numbered to the asking process (and applied to the
        private copy, which later reads see)."""
        if self.location:
            return getattr(self._store(), op)(*args, **kwargs)
        bound = inspect.signature(getattr(RunWrites, op)).bind(None, *args, **kwargs)
        if op == "start_run":
            bound.arguments["run_id"] = bound.arguments.get("run_id") or uuid.uuid4().hex
        operation = {"op": op, "args": _sendable(list(bound.args[1:])), "kwargs": _sendable(bound.kwargs)}
        copy = None if self.seed is None else self._readable(op)
        with self._lock:
            operation["seq"], self._sent = self._sent, self._sent + 1
            if copy is not None:
                apply(copy, operation)
            _send({"relay": self.token, "instance": self._instance, "operation": operation})
        if op == "start_run":
            return bound.arguments["run_id"]
        return len(operation["args"][1]) if op == "add_results" else None


def _send(message: dict) -> None:
    """Send a relay's message on :data:`STORE_TOPIC` from the worker this runs in."""
    from distributed import get_worker

    try:
        worker = get_worker()
    except ValueError:
        raise ValueError("a store relay sent to another process opens only in a worker of the job engine (Dask): "
                         "the store's location stays with the process that asked.") from None
    worker.log_event(STORE_TOPIC, message)


def _sendable(value):
    """What msgpack carries: bytes as they are, anything else as JSON's types (numpy numbers and arrays become
    numbers and lists, an iterable of rows a list)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, Mapping):
        return {str(k): _sendable(v) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, str):
        return [_sendable(v) for v in value]
    return json.loads(json.dumps(value, default=_jsonable))


def apply(store, operation: Mapping[str, Any]) -> Any:
    """Apply one operation of a relay to ``store`` (a :class:`mvlab.store.RunStore`)."""
    op = operation.get("op")
    if op not in WRITES:
        raise ValueError(f"{op!r} is not a write a worker may ask for (one of {WRITES}).")
    return getattr(store, op)(*operation.get("args", ()), **operation.get("kwargs", {}))


class Applier:
    """The operations of one relay in one worker applied in their order, each once, in whatever order they come;
    keeps the runs they started or reopened and have not ended.

    Parameters
    ----------
    open_store : callable
        Returns the :class:`mvlab.store.RunStore` to apply them to (opened at the first operation).
    """

    def __init__(self, open_store: Callable[[], Any]):
        self._open_store = open_store
        self._store = None
        self._next = 0
        self._waiting: dict[int, Mapping] = {}
        self.open_runs: set[str] = set()
        self.refused: str | None = None

    @property
    def applied(self) -> int:
        """How many operations have been applied (or refused by the store)."""
        return self._next

    @property
    def waiting(self) -> int:
        """How many operations wait for an earlier one that has not come."""
        return len(self._waiting)

    def take(self, operations: Iterable[Mapping[str, Any]]) -> None:
        """Apply these operations and any that waited for them, in order; one already applied is skipped. A write
        the store refuses is not tried again: the first refusal is kept (:attr:`refused`) and the next go on."""
        for operation in operations:
            if int(operation["seq"]) >= self._next:
                self._waiting[int(operation["seq"])] = operation
        while self._next in self._waiting:
            operation = self._waiting.pop(self._next)
            self._next += 1
            self._follow_runs(operation)
            try:
                if self._store is None:
                    self._store = self._open_store()
                apply(self._store, operation)
            except Exception as exc:  # noqa: BLE001 - the store's refusal, kept in words for whoever collects
                self.refused = self.refused or str(exc)

    def _follow_runs(self, operation: Mapping[str, Any]) -> None:
        """Note the run an operation starts, reopens or ends."""
        op, args = operation.get("op"), operation.get("args") or [None]
        if op == "start_run":
            self.open_runs.add(operation.get("kwargs", {}).get("run_id"))
        elif op == "reopen_run":
            self.open_runs.add(args[0])
        elif op == "finish_run":
            self.open_runs.discard(args[0])


@dataclass
class Relayed:
    """What the writes of one relay came to: how many were applied, the store's first refusal (None: none), and the
    runs its computation started or reopened and never ended (its worker died), which :meth:`Receiver.collect`
    has ended."""

    applied: int = 0
    refused: str | None = None
    unfinished: list = field(default_factory=list)


class Receiver:
    """Applies the writes of the relays this process expects, as they come on :data:`STORE_TOPIC` of ``client``, on a
    thread of its own (a slow store never holds up the Dask client). Messages of a relay it does not expect (another
    process's, on a shared scheduler) are left alone. One per client: :func:`receiver`."""

    def __init__(self, client):
        self._client = client
        self._lock = threading.Lock()
        self._relays: dict[str, tuple[str, dict[str, Applier]]] = {}
        self._todo: queue.Queue = queue.Queue()
        client.subscribe_topic(STORE_TOPIC, lambda event: self._todo.put(event[1]))
        self._thread = threading.Thread(target=self._apply_forever, daemon=True, name="mvlab-store-receiver")
        self._thread.start()

    def expect(self, relay: StoreRelay) -> None:
        """Apply from now on the writes sent under ``relay``'s token, to the store at its location."""
        with self._lock:
            self._relays.setdefault(relay.token, (relay.location, {}))

    def collect(self, token: str, unfinished: str = "interrupted", summary: Mapping | None = None) -> Relayed:
        """Once the computations given the relay ``token`` have ended: every write they sent applied, then the
        relay forgotten (a later message is left alone). A run they left open is ended with the status
        ``unfinished`` and ``summary``."""
        self._drain()
        if not self._complete(token):  # a message lost on the way: the topic's log on the scheduler has it
            try:
                for _, message in self._client.get_events(STORE_TOPIC):
                    if message.get("relay") == token:
                        self._todo.put(message)
            except Exception:  # noqa: BLE001 - a scheduler that cannot answer: what came is what there is
                pass
            self._drain()
        with self._lock:
            location, appliers = self._relays.pop(token, ("", {}))
        relayed = Relayed(sum(a.applied for a in appliers.values()),
                          next((a.refused for a in appliers.values() if a.refused), None),
                          sorted({run for a in appliers.values() for run in a.open_runs}))
        _end_runs(location, relayed.unfinished, unfinished, summary)
        return relayed

    def forget(self, token: str) -> None:
        """Leave the relay ``token``'s messages alone from now on (its task never ran)."""
        with self._lock:
            self._relays.pop(token, None)

    def close(self) -> None:
        """Stop receiving (the client is closing): the next :func:`receiver` of the client is a new one."""
        with _RECEIVERS_LOCK:
            if _RECEIVERS.get(self._client) is self:
                del _RECEIVERS[self._client]
        self._todo.put(None)

    def _complete(self, token: str) -> bool:
        with self._lock:
            appliers = list(self._relays.get(token, ("", {}))[1].values())
        return all(not a.waiting and not a.open_runs for a in appliers)

    def _drain(self) -> None:
        """Wait until every message received so far has been applied."""
        done = threading.Event()
        self._todo.put(done)
        while not done.wait(1.0) and self._thread.is_alive():
            pass

    def _apply_forever(self) -> None:
        while True:
            item = self._todo.get()
            if item is None:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            with self._lock:
                location, appliers = self._relays.get(item.get("relay"), (None, None))
                if appliers is None:
                    continue
                applier = appliers.setdefault(item.get("instance"), Applier(functools.partial(_store_at, location)))
            applier.take([item["operation"]])


def _store_at(location: str):
    from mvlab.engine.records import store_at

    return store_at(location)


def _end_runs(location: str, run_ids: list, status: str, summary: Mapping | None) -> None:
    """End the runs a computation left open (its worker died); a store that refuses costs only these records (the
    next start of the process marks them interrupted)."""
    for run_id in run_ids:
        try:
            _store_at(location).finish_run(run_id, summary, status=status)
        except Exception:  # noqa: BLE001 - see the docstring
            pass


_RECEIVERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_RECEIVERS_LOCK = threading.Lock()


def receiver(client) -> Receiver:
    """The :class:`Receiver` of ``client`` (made at the first call: one subscription to :data:`STORE_TOPIC` per
    client, shared by the engine and the command line)."""
    with _RECEIVERS_LOCK:
        if client not in _RECEIVERS:
            _RECEIVERS[client] = Receiver(client)
        return _RECEIVERS[client]


@contextmanager
def relayed_into(client, relay: StoreRelay):
    """While open, the writes that ``relay`` sends from the workers of ``client`` are applied to its store (the
    command line's OFSP folds); at the end, once the tasks have ended, every one of them. Yields the
    :class:`Relayed` account, filled in when it closes."""
    account = Relayed()
    into = receiver(client)
    into.expect(relay)
    try:
        yield account
    finally:
        done = into.collect(relay.token)
        account.applied, account.refused, account.unfinished = done.applied, done.refused, done.unfinished
