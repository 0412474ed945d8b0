"""The job engine behind the pages: every run on a Dask worker, queued with a visible position,
computed once when identical, stoppable one waiter at a time, recorded in the results store.

A page submits a :class:`Request` (what to compute and its identity ``key``) on behalf of a
*holder* (one browser session).  :class:`Engine`

* attaches the holder to a run in progress with the same key, or submits a new Dask task
  (:func:`mvlab.engine.task.execute`); a holder holds at most one run, so a second Train replaces
  the first;
* refuses with :class:`ServerBusy` ("The server is busy: N runs are waiting for a worker, about M
  before a new one could start") when ``max_queued`` runs already wait;
* keeps each run's state from the workers' messages (queued -> running with progress -> finished,
  failed or stopped) and gives every holder its position and an estimated wait
  (:meth:`Engine.status`), from measured durations of similar runs;
* on :meth:`Engine.detach` (a Stop, a closed tab after its time to live) drops that holder only:
  the computation is stopped only when nobody waits on it any more, and a worker that does not
  stop within ``stop_grace`` seconds is restarted;
* records runs with a :class:`RunRecord` in the results store as they go (``queued``,
  ``running``, then ``finished`` with the result's rows and artifact, ``failed`` or ``stopped``),
  from the engine's own thread, so a result is kept even when every page that asked for it has
  closed; a computation that records its own runs (the Benchmark page's) is given a relay whose writes this
  process applies as they come and collects when its task ends (:mod:`mvlab.engine.relay`): no worker ever opens
  the results store;
* never holds its lock while it reads or writes the results store (a store that is slow to answer holds up the
  caller that asked, not every page's status), and takes a new run back out when anything fails before its task
  is submitted (the store unavailable when the run is recorded as ``queued``): the caller gets
  :class:`RunNotStarted` in words and the same request can start again at once;
* says why a run's worker died, from what distributed keeps (:mod:`mvlab.engine.deaths`): over its memory limit (the
  nanny's restart), killed by a signal from outside, an exit status, or not known.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
import uuid
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from typing import Any, Callable

from distributed import Event, KilledWorker, Variable

from mvlab.engine import records
from mvlab.engine.cluster import EngineConfig, close_quietly, connect
from mvlab.engine.deaths import Death, death_message, worker_death
from mvlab.engine.estimates import DEFAULT_SECONDS, estimated_start, typical_seconds
from mvlab.engine.relay import StoreRelay, receiver
from mvlab.engine.requests import JobStatus, Request, RunNotStarted, ServerBusy, ServerStatus
from mvlab.engine.task import TOPIC, Outcome, RunStopped, execute, partial_name, stop_flag_name
from mvlab.i18n import Message
from mvlab.store import StoreUnavailable

__all__ = ["Engine"]

LOG = logging.getLogger(__name__)

@dataclass
class Holder:
    id: str
    alive: Callable[[], bool] | None = None


@dataclass
class Job:
    id: str
    request: Request
    order: int
    submitted: float
    holders: set = field(default_factory=set)
    state: str = "queued"  # queued, running, finished, failed, stopped
    started: float | None = None
    ended: float | None = None
    fraction: float = 0.0
    message: str = ""
    worker: str | None = None
    memory_limit: int = 0
    pid: int | None = None
    """The process id of the worker that runs it, its nanny's address and its memory in use at the last progress
    message: what tells a worker's death for what it was (:func:`~mvlab.engine.deaths.worker_death`)."""
    nanny: str | None = None
    memory: int = 0
    outcome: Outcome | None = None
    error: str | None = None
    run_id: str | None = None
    stop_requested: float | None = None
    future: Any = None
    typical: float = DEFAULT_SECONDS
    done: threading.Event = field(default_factory=threading.Event)
    relay: str | None = None
    """The token of the relay of a computation that records its own runs (:mod:`mvlab.engine.relay`), and the
    receiver of the connection it was launched on, which collects its writes."""
    receiver: Any = None
    partial_number: int = 0
    partial_note: str = ""
    partial_fetched: tuple | None = None
    """The newest partial result the worker has announced (its number and what it holds in words), and the last one
    fetched for the pages: ``(number, note, payload)`` (:meth:`Engine.partial`)."""

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")


class Engine:
    """The job engine (see the module docstring).  Connects lazily, on the first request.

    Parameters
    ----------
    config : EngineConfig, optional
        Default :meth:`EngineConfig.from_env`.
    stop_grace : float
        Seconds a stopped run may take to reach its next progress report before its worker is
        restarted.
    keep_finished : float
        Seconds a finished run stays in memory for the pages that wait on it (it is in the
        results store anyway).
    death_wait : float
        Seconds a run whose worker died waits for the worker's nanny to say why (it says so once its new worker
        has started); past them the cause is said to be unknown.
    """

    def __init__(self, config: EngineConfig | None = None, stop_grace: float = 20.0, keep_finished: float = 600.0,
                 death_wait: float = 15.0):
        self.config = config or EngineConfig.from_env()
        self.stop_grace = stop_grace
        self.keep_finished = keep_finished
        self.death_wait = death_wait
        self._lock = threading.RLock()
        self._jobs: dict[str, Job] = {}
        self._by_key: dict[str, str] = {}
        self._held: dict[str, str] = {}
        self._holders: dict[str, Holder] = {}
        self._order = itertools.count()
        self._durations: dict[str, list[float]] = {}
        self._client = self._cluster = None
        self._receiver = None
        self._workers: list[dict] = []
        self._todo: queue.Queue = queue.Queue()
        self._closed = threading.Event()
        self._threads: list[threading.Thread] = []
        self._starting: threading.Thread | None = None
        self._connecting = threading.Lock()  # one connection attempt at a time (:attr:`client`)
        self._failed: tuple[float, Exception] | None = None  # when the last attempt failed, and why
        self._status_asked = float("-inf")
        self._dashboard: str | None = None
        self._start_error: str | None = None

    # ------------------------------------------------------------------ connection
    def connect(self):
        """Connect now (start the embedded cluster); returns the Dask client."""
        return self.client

    @property
    def client(self):
        """The Dask client, connecting (and starting the embedded cluster) on first use.

        One connection attempt at a time, never under the engine's lock: an attempt may take the scheduler's
        10 s to fail, and the pages' other calls (a run's status, a Stop) go on meanwhile; the callers that waited
        for an attempt that failed are given its error rather than trying again one after another."""
        client = self._client  # read once: another thread may drop a lost one meanwhile
        if client is not None and client.status != "closed":
            return client
        asked = time.monotonic()
        with self._connecting:
            client = self._client
            if client is not None and client.status != "closed":
                return client
            self._drop_lost_connection()
            if self._failed is not None and self._failed[0] >= asked:
                raise self._failed[1]  # the attempt this caller waited for
            try:
                made = self._connected()
            except Exception as exc:
                self._failed = (time.monotonic(), exc)
                raise
            self._failed = None
            with self._lock:
                closed = self._closed.is_set()  # closed while it connected: nothing of it may outlive the engine
                if not closed:
                    self._client, self._cluster, self._receiver, self._workers = made
                    self._start_error = None
                if not closed and not self._threads:
                    for target in (self._bookkeeper, self._reaper):
                        thread = threading.Thread(target=target, daemon=True,
                                                  name=f"mvlab-engine-{target.__name__}")
                        thread.start()
                        self._threads.append(thread)
            if closed:
                close_quietly(made[2], made[0], made[1])  # receiver, client, cluster
                raise RuntimeError("The job engine was closed while it connected.")
            return made[0]

    def _connected(self):
        """``(client, cluster, receiver, workers)`` of a new connection, set up all or nothing: when a step after
        :func:`connect` fails (the scheduler gone again at once), what the steps before it opened is closed and the
        error raised, so that the next request connects anew instead of finding a client no thread keeps books for."""
        client, cluster = connect(self.config)
        into = None
        try:
            workers = _worker_rows(client.scheduler_info(n_workers=-1))
            into = receiver(client)
            client.subscribe_topic(TOPIC, self._on_event)  # its handler takes the engine's lock: subscribed last
        except BaseException:
            close_quietly(into, client, cluster)
            raise
        return client, cluster, into, workers

    def _drop_lost_connection(self) -> None:
        """Forget a client Dask has closed (its scheduler lost for longer than Dask waits to reconnect), with its
        receiver and embedded cluster: the next request connects anew."""
        with self._lock:
            if self._client is None or self._client.status != "closed":
                return
            client, cluster, into = self._client, self._cluster, self._receiver
            self._client = self._cluster = self._receiver = None
            self._workers = []
        end_loop = getattr(client, "end_loop", None)  # Dask closed it but left its event loop running
        if end_loop is not None:
            end_loop()
        close_quietly(into, cluster)

    def start_in_background(self) -> None:
        """Connect (start the embedded workers) on a thread of its own, so that the first Train
        does not wait for worker processes to start; :meth:`ready` says when it is done."""
        with self._lock:
            if self.ready() or (self._starting is not None and self._starting.is_alive()):
                return
            self._starting = threading.Thread(target=self._start_quietly, daemon=True, name="mvlab-engine-start")
            self._starting.start()

    def _start_quietly(self) -> None:
        try:
            self.connect()
        except Exception as exc:  # said by server_status / submit, which connect again
            with self._lock:
                self._start_error = str(exc)
                self._starting = None  # the next page's start_in_background tries again

    @property
    def start_error(self) -> str | None:
        """Why the background start failed (the next request connects again), or None."""
        return self._start_error

    def ready(self) -> bool:
        """Whether the engine is connected (its workers started) and its client open."""
        client = self._client
        return client is not None and client.status != "closed"

    def close(self) -> None:
        """Stop every run and shut the embedded cluster down."""
        self._closed.set()
        self._todo.put(None)
        with self._lock:
            client, cluster, self._client, self._cluster = self._client, self._cluster, None, None
            into, self._receiver = self._receiver, None
        if into is not None:
            into.close()
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    # ------------------------------------------------------------------ requests
    def submit(self, request: Request, holder: str, alive: Callable[[], bool] | None = None) -> str:
        """Run ``request`` for ``holder`` (attaching to an identical run in progress); returns the job id.

        A holder holds one run: its previous run is detached first (and stopped if nobody else
        waits on it).  ``alive()`` says whether the holder is still there (a closed browser tab
        is released when it returns False).  Raises :class:`ServerBusy` when ``max_queued`` runs
        already wait and this one would be new, and :class:`RunNotStarted` when a new run could not be started
        (the results store unavailable, the scheduler unreachable): then nothing of it is left in the engine, and
        the same request submitted again starts it.  The results store is read and written outside the engine's
        lock, so a store that is slow to answer holds up this caller only."""
        try:
            client = self.client
        except Exception as exc:  # noqa: BLE001 - the scheduler unreachable, the embedded cluster failed to start
            raise RunNotStarted(_not_started(exc)) from exc
        typical = None if self._attachable(request.key) else self._typical(request)
        with self._lock:
            into = self._receiver
            if self._client is not client or into is None:  # the connection was lost and dropped just now
                raise RunNotStarted(f"{LOST_WORDS} Nothing of your run is left waiting.")
            self._holders[holder] = Holder(holder, alive)
            same = self._by_key.get(request.key)
            job = self._jobs.get(same) if same else None
            if job is not None and job.active:
                if self._held.get(holder) == job.id:
                    return job.id
                replaced = self._detach_locked(holder)
                job.holders.add(holder)
                self._held[holder] = job.id
                new = None
            else:
                queued = [j for j in self._jobs.values() if j.state == "queued"]
                if len(queued) >= self.config.max_queued:
                    wait = self._wait_before(len(queued), None)
                    raise ServerBusy(f"The server is busy: {len(queued)} runs are waiting for a worker, about "
                                     f"{_minutes(wait)} before a new one could start. Try again in a few minutes.")
                replaced = self._detach_locked(holder)
                job = new = Job(uuid.uuid4().hex[:12], request, next(self._order), time.time(), {holder},
                                typical=typical if typical is not None else self._measured_typical(request))
                if isinstance(request.data, StoreRelay):
                    into.expect(request.data)
                    job.relay, job.receiver = request.data.token, into
                self._jobs[job.id] = job
                self._by_key[request.key] = job.id
                self._held[holder] = job.id
        if new is None:
            self._signal_stop(replaced)  # Dask calls only outside the lock (its event thread takes the lock too)
            return job.id
        try:  # from here to its task's submission, anything that fails takes the new run back out of the engine
            self._signal_stop(replaced)
            self._launch(new, client)
        except Exception as exc:  # noqa: BLE001 - every failure: a job left without a task would wait forever
            said = _not_started(exc)
            self._withdraw(new, holder, said)
            raise RunNotStarted(said) from exc
        return job.id

    def _launch(self, job: Job, client) -> None:
        """Record the new run ``job`` as queued in the results store and submit its Dask task."""
        request = job.request
        job.run_id = records.start(request.record)
        if not job.active:  # stopped (its holder left) before it reached the scheduler
            records.ended(request.record, job.run_id, "stopped")
            return
        # the data travel with the task (not scattered ahead): a task without dependencies waits in the
        # scheduler's queue, in submission order, until a worker is free, and leaves it at once on a Stop
        job.future = client.submit(execute, job.id, request.fn, request.data, self._threads_for(job),
                                   job.run_id is not None, key=f"mvlab-{request.kind}-{job.id}", pure=False,
                                   retries=0)
        job.future.add_done_callback(lambda _f, j=job: self._todo.put(("ended", j)))

    def _threads_for(self, job: Job) -> int:
        """The threads of the new run ``job``: every core when no other run is running or waiting
        (:meth:`EngineConfig.idle_threads`), else its worker's share (:meth:`EngineConfig.run_threads`)."""
        with self._lock:
            alone = not any(j.active for j in self._jobs.values() if j is not job)
        return self.config.idle_threads() if alone else self.config.run_threads()

    def _withdraw(self, job: Job, holder: str, said: str) -> None:
        """Take back a new run whose start failed (see :meth:`submit`): its key is free again and ``holder`` holds
        nothing; the holders that attached to it meanwhile see it failed with ``said``; a record it started is
        marked failed."""
        with self._lock:
            if self._by_key.get(job.request.key) == job.id:
                del self._by_key[job.request.key]
            if self._held.get(holder) == job.id:
                del self._held[holder]
            job.holders.discard(holder)
            if not job.holders:
                self._jobs.pop(job.id, None)
            if job.active:
                job.state, job.ended, job.error = "failed", time.time(), said
        if job.receiver is not None:
            job.receiver.forget(job.relay)  # its task never ran: nothing of it to wait for
        job.done.set()
        if job.future is not None:
            try:
                job.future.cancel()
            except Exception:  # noqa: BLE001 - the scheduler is what failed: its task, if any, goes with it
                pass
        records.ended(job.request.record, job.run_id, "failed", said)

    def detach(self, holder: str) -> tuple[str, int]:
        """``holder`` no longer waits on its run; the run is stopped when nobody else does.

        Returns what became of the run and how many holders still wait on it: ``("stopped", 0)``,
        ``("goes on", n)`` (others wait), ``("ended", 0)`` (it had already finished, failed or
        been stopped: nothing to stop) or ``("none", 0)`` (the holder held no run)."""
        with self._lock:
            job = self._jobs.get(self._held.get(holder) or "")
            if job is None:
                self._held.pop(holder, None)
                return "none", 0
            was_active = job.active
            to_stop = self._detach_locked(holder)
            others = len(job.holders) if job.active else 0
        self._signal_stop(to_stop)
        if not was_active:
            return "ended", 0
        return ("goes on", others) if others else ("stopped", 0)

    def _detach_locked(self, holder: str) -> Job | None:
        """Drop ``holder`` from its run; the run if nobody waits on it any more (to be stopped)."""
        job = self._jobs.get(self._held.pop(holder, None) or "")
        if job is None:
            return None
        job.holders.discard(holder)
        if job.holders or not job.active:
            return None
        job.stop_requested = time.time()
        return job

    def _signal_stop(self, job: Job | None) -> None:
        """Raise the run's stop flag (it ends at its next progress report); a queued run leaves
        the queue at once."""
        if job is None:
            return
        try:
            Event(stop_flag_name(job.id), client=self.client).set()
        except Exception as exc:  # noqa: BLE001 - the scheduler not answering now: a queued run still leaves below,
            # and a running one that does not stop within stop_grace has its worker restarted (the reaper)
            LOG.warning("The stop flag of run %s was not set (%s: %s); the reaper ends it if it does not stop.",
                        job.id, type(exc).__name__, exc)
        if job.state == "queued":
            if job.future is not None:
                job.future.cancel()
            self._end(job, "stopped")

    def job_of(self, holder: str) -> str | None:
        """The id of the run ``holder`` waits on (active or just ended), or None."""
        with self._lock:
            return self._held.get(holder)

    def release(self, holder: str) -> None:
        """``holder`` has collected its ended run (the page showed it)."""
        with self._lock:
            job = self._jobs.get(self._held.get(holder) or "")
            if job is not None and not job.active:
                self._held.pop(holder, None)
                job.holders.discard(holder)

    def key_of(self, job_id: str) -> str | None:
        """The request key of the run ``job_id``, or None for an unknown run."""
        with self._lock:
            job = self._jobs.get(job_id)
            return None if job is None else job.request.key

    def outcome(self, job_id: str) -> Outcome | None:
        """The :class:`mvlab.engine.task.Outcome` of the run ``job_id`` once it has finished; None before, for a
        run that failed or stopped, and for an unknown run."""
        with self._lock:
            job = self._jobs.get(job_id)
            return None if job is None else job.outcome

    def wait(self, job_id: str, timeout: float | None = None) -> bool:
        """Block until the run ends (or ``timeout``); True when it has ended."""
        with self._lock:
            job = self._jobs.get(job_id)
        return True if job is None else job.done.wait(timeout)

    # ------------------------------------------------------------------ what pages show
    def status(self, job_id: str) -> JobStatus | None:
        """Where the run stands: state, queue position, estimated wait, progress."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return None
            now = time.time()
            position = wait = None
            if job.state == "queued":
                ahead = [j for j in self._jobs.values() if j.state == "queued" and j.order < job.order]
                position = len(ahead) + 1
                wait = self._wait_before(len(ahead), job)
            elif job.state == "running":
                wait = self._remaining(job, now)
            elapsed = (job.ended or now) - (job.started or job.submitted)
            return JobStatus(job.id, job.state, position, wait, job.fraction, job.message, elapsed,
                             len(job.holders), job.error, job.partial_number)

    def stage(self, job_id: str) -> tuple[str, int] | None:
        """``(state, number of the newest partial result)`` of the run ``job_id``, None for an unknown run: what a
        waiting page looks at between two of its updates (cheaper than :meth:`status`, which plays the queue out)."""
        with self._lock:
            job = self._jobs.get(job_id)
            return None if job is None else (job.state, job.partial_number)

    def partial(self, job_id: str, timeout: float = 5.0) -> tuple[int, str, Any] | None:
        """The newest partial result of the run ``job_id`` as ``(number, note, payload)``: the payload as the worker
        sent it (the result's ``to_npz()`` bytes, :mod:`mvlab.engine.task`), ``note`` what it holds in words.  None
        before the first one, for an unknown run, and when it cannot be fetched now (the page shows the whole
        result when it comes).  Fetched from the scheduler once per number and kept for every page that asks; once
        the run has ended, the one fetched last (the scheduler's copy is deleted as the run ends: asked for, it would
        be waited for ``timeout`` seconds in vain, and a page that reran on the run's last part would show its whole
        result that much later)."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.partial_number == 0:
                return None
            number, note, fetched = job.partial_number, job.partial_note, job.partial_fetched
            ended = not job.active
        if ended or (fetched is not None and fetched[0] == number):
            return fetched
        try:
            payload = Variable(partial_name(job_id), client=self.client).get(timeout=timeout)
        except Exception:  # noqa: BLE001 - the scheduler is busy or the variable is gone: the one fetched before
            return fetched
        with self._lock:  # the variable may already hold a newer one than announced: numbered as announced
            if job.partial_fetched is None or job.partial_fetched[0] < number:
                job.partial_fetched = (number, note, payload)
            return job.partial_fetched

    def server_status(self, max_age: float = 2.0) -> ServerStatus:
        """Workers and their memory, runs running and queued (no names of data).  The scheduler is
        asked at most every ``max_age`` seconds (every page of every session shows the panel)."""
        client = self.client
        now = time.monotonic()
        if now - self._status_asked > max_age:
            self._refresh_workers()
            self._dashboard = client.dashboard_link if self._has_dashboard() else None
            self._status_asked = now
        with self._lock:
            running = sum(j.state == "running" for j in self._jobs.values())
            queued = sum(j.state == "queued" for j in self._jobs.values())
            workers = list(self._workers)
        return ServerStatus(client.scheduler.address, self._dashboard, workers, running, queued, self.config.max_queued,
                            self._cluster is not None)

    # ------------------------------------------------------------------ estimates
    def _attachable(self, key: str) -> bool:
        """Whether a run with this key is in progress (a request for it attaches to it)."""
        with self._lock:
            job = self._jobs.get(self._by_key.get(key) or "")
            return job is not None and job.active

    def _measured_typical(self, request: Request) -> float:
        """Typical seconds of runs like ``request`` from this server's own measures alone (no store read)."""
        with self._lock:
            measured = list(self._durations.get(request.key) or self._durations.get(request.kind) or [])
        return typical_seconds(measured)

    def _typical(self, request: Request) -> float:
        """Typical seconds of runs like ``request``: this server's measures, else the results store's (read
        outside the engine's lock).  A store that cannot answer now raises :class:`RunNotStarted`: the run's start
        would need it too."""
        with self._lock:
            measured = list(self._durations.get(request.key) or self._durations.get(request.kind) or [])
        record = request.record
        try:
            return typical_seconds(measured, record.kind if record else None,
                                   record.store_location if record else None)
        except StoreUnavailable as exc:
            raise RunNotStarted(_not_started(exc)) from exc

    def _remaining(self, job: Job, now: float) -> float:
        elapsed = now - (job.started or now)
        if job.fraction > 0.05:
            return elapsed * (1 - job.fraction) / job.fraction
        return max(job.typical - elapsed, 0.0)

    def _wait_before(self, n_ahead: int, job: Job | None) -> float:
        """Seconds before the run after ``n_ahead`` queued runs (those queued before ``job``)
        starts: :func:`estimated_start` from the running runs' remaining time and the queued
        runs' typical durations."""
        now = time.time()
        running = [self._remaining(j, now) for j in self._jobs.values() if j.state == "running"]
        queued = [j for j in self._jobs.values() if j.state == "queued" and (job is None or j.order < job.order)]
        ahead = sorted(queued, key=lambda j: j.order)[:n_ahead]
        return estimated_start(running, [j.typical for j in ahead], max(len(self._workers), 1))

    # ------------------------------------------------------------------ engine threads
    def _on_event(self, event) -> None:
        _, msg = event
        with self._lock:
            job = self._jobs.get(msg.get("job"))
            if job is None or not job.active:
                return
            if msg.get("state") == "running":  # also a task tried again on another worker: the worker it is on
                job.worker, job.memory_limit = msg.get("worker"), int(msg.get("memory_limit") or 0)
                job.pid, job.nanny, job.memory = msg.get("pid"), msg.get("nanny"), 0
                if job.state == "queued":
                    job.state, job.started = "running", time.time()
                    self._todo.put(("running", job))
            elif msg.get("state") == "progress":
                job.fraction, job.message = float(msg.get("fraction", 0.0)), Message.from_wire(msg.get("message", ""))
                job.memory = int(msg.get("memory") or 0)
            elif msg.get("state") == "partial" and int(msg.get("number") or 0) > job.partial_number:
                job.partial_number, job.partial_note = int(msg["number"]), Message.from_wire(msg.get("note", ""))

    def _bookkeeper(self) -> None:
        """Records what the workers say in the results store and ends runs as their tasks finish
        (one thread: the store's writes never hold up the Dask client's event thread)."""
        while not self._closed.is_set():
            item = self._todo.get()
            if item is None:
                return
            what, job = item
            try:
                if what == "running":
                    records.running(job.request.record, job.run_id)
                else:
                    self._finish(job)
            except Exception as exc:  # never let the engine's thread die
                job.error = job.error or f"{type(exc).__name__}: {exc}"
                try:
                    self._end(job, "failed")
                except Exception as again:  # noqa: BLE001 - _end ended it in memory and told its pages first
                    LOG.warning("Run %s ended failed, but its record could not be written (%s: %s).",
                                job.id, type(again).__name__, again)

    def _collect_relay(self, job: Job) -> None:
        """Once the run's task has ended: every write its computation relayed applied (:mod:`mvlab.engine.relay`);
        a write the store refused is said on the run's status, never lost silently, and a run the computation left
        open (its worker died) is ended ``failed``, or ``stopped`` when its worker was restarted to stop it."""
        if job.receiver is None:
            return
        stopped = job.stop_requested is not None
        relayed = job.receiver.collect(
            job.relay, unfinished="stopped" if stopped else "failed",
            summary=None if stopped else {"error": "the worker that computed it ended before the run did"})
        if relayed.refused:
            job.error = job.error or f"The results could not all be saved in the results store: {relayed.refused}"

    def _finish(self, job: Job) -> None:
        future = job.future
        self._collect_relay(job)  # before the run is said ended: a page that reads the store then finds it all
        try:
            if future.cancelled():  # asked of the future itself: a lost client's loop may be ended already
                raise CancelledError()
            outcome = future.result()
        except (RunStopped, CancelledError) as exc:
            if isinstance(exc, CancelledError) and job.stop_requested is None:  # nobody stopped it: Dask did
                job.error = job.error or LOST_WORDS
                self._end(job, "failed")
                return
            self._end(job, "stopped")
            return
        except KilledWorker as exc:
            if job.stop_requested is not None:  # its worker was restarted to stop it
                self._end(job, "stopped")
                return
            # why it died is told by its nanny once the nanny's new worker has registered: asked on a thread of
            # its own, so that the other runs' records do not wait for it
            threading.Thread(target=self._fail_on_death, args=(job, exc), daemon=True,
                             name=f"mvlab-engine-death-{job.id}").start()
            return
        except ValueError as exc:  # settings that do not suit these data: the library's own words
            job.error = str(exc)
            self._end(job, "failed")
            return
        except Exception as exc:
            job.error = f"The run failed: {type(exc).__name__}: {exc}"
            self._end(job, "failed")
            return
        job.outcome = outcome
        with self._lock:
            self._durations.setdefault(job.request.key, []).append(outcome.seconds)
            self._durations.setdefault(job.request.kind, []).append(outcome.seconds)
            job.fraction = 1.0
        job.error = records.finish(job.request.record, job.run_id, outcome.result, outcome.seconds,
                                   outcome.artifact) or job.error
        self._end(job, "finished")

    def _fail_on_death(self, job: Job, exc: KilledWorker) -> None:
        """End the run whose worker died, saying why (:func:`~mvlab.engine.deaths.worker_death`,
        :func:`~mvlab.engine.deaths.death_message`)."""
        last = exc.last_worker
        address = getattr(last, "address", None) or job.worker
        nanny = getattr(last, "nanny", None) or job.nanny
        try:
            death = worker_death(self.client, address, nanny, job.pid, self.death_wait)
        except Exception:  # noqa: BLE001 - a scheduler that cannot say: the cause is unknown, not a guess
            death = Death("unknown")
        if job.stop_requested is not None:  # stopped meanwhile
            self._end(job, "stopped")
            return
        limit = job.memory_limit or self.config.memory_per_worker()
        job.error = death_message(death, limit, job.memory)
        self._end(job, "failed")

    def _end(self, job: Job, state: str) -> None:
        with self._lock:
            if not job.active:
                return
            job.state, job.ended = state, time.time()
            if self._by_key.get(job.request.key) == job.id:
                del self._by_key[job.request.key]
        try:
            if state != "finished":
                records.ended(job.request.record, job.run_id, "failed" if state == "failed" else "stopped", job.error)
        finally:  # the pages that wait on it are told even when its record could not be written
            job.done.set()
            self._forget_partial(job)

    def _forget_partial(self, job: Job) -> None:
        """Delete the scheduler's copy of an ended run's partial result (the last one fetched stays with the job for
        the pages that showed it)."""
        if job.partial_number == 0 or self._client is None:
            return
        try:
            Variable(partial_name(job.id), client=self._client).delete()
        except Exception:  # noqa: BLE001 - a scheduler gone takes its variables with it
            pass

    def _reaper(self) -> None:
        """Every second: release the holders that left, restart the workers of runs that ignore
        their Stop, forget runs ended long ago, refresh the workers' list."""
        tick = 0
        while not self._closed.wait(1.0):
            tick += 1
            try:
                self._reap(refresh=tick % 5 == 0)
            except Exception:  # a scheduler hiccup: try again next tick
                continue

    def _reap(self, refresh: bool) -> None:
        now = time.time()
        with self._lock:
            gone = [h for h in list(self._held) if self._holders.get(h) and self._holders[h].alive
                    and not self._holders[h].alive()]
        for holder in gone:
            self.detach(holder)
            with self._lock:
                self._holders.pop(holder, None)
        with self._lock:
            stuck = [j for j in self._jobs.values() if j.state == "running" and j.stop_requested is not None
                     and not j.holders and now - j.stop_requested > self.stop_grace and j.worker]
            for job in stuck:
                job.stop_requested = now  # once per grace period
            # ended long ago: the results store has them; a page that comes back finds its result there
            old = {j.id for j in self._jobs.values() if not j.active and now - (j.ended or now) > self.keep_finished}
            for job_id in old:
                del self._jobs[job_id]
            for holder in [h for h, job_id in self._held.items() if job_id in old]:
                del self._held[holder]
        for job in stuck:  # it has not reached a progress report since its Stop: end its process
            self.client.restart_workers([job.worker], raise_for_error=False)
        if refresh:
            self._refresh_workers()

    def _refresh_workers(self) -> None:
        client = self._client  # read once: a lost one may be dropped meanwhile
        info = client.scheduler_info(n_workers=-1) if client is not None else {"workers": {}}
        workers = _worker_rows(info)
        with self._lock:
            self._workers = workers

    def _has_dashboard(self) -> bool:
        if self._cluster is not None and self.config.dashboard is None:
            return False
        client = self._client
        try:
            return bool(client.scheduler_info().get("services", {}).get("dashboard"))
        except Exception:
            return False

LOST_WORDS = ("The connection to the job engine's scheduler was lost while this run waited or ran (Dask cancels a "
              "client's runs when it loses its scheduler). Train again: the engine connects anew.")
"""What a run says when its task was cancelled by nobody's Stop (the client lost its scheduler)."""


def _worker_rows(info: dict) -> list[dict]:
    """The workers of a scheduler's ``scheduler_info``, sorted by address: address, memory limit and use, threads."""
    return [{"address": addr, "memory_limit": int(w.get("memory_limit") or 0),
             "memory": int((w.get("metrics") or {}).get("memory") or 0), "nthreads": int(w.get("nthreads", 1))}
            for addr, w in sorted(info.get("workers", {}).items())]


def _minutes(seconds: float) -> str:
    return "less than a minute" if seconds < 60 else f"{seconds / 60:.0f} min"


def _not_started(exc: BaseException) -> str:
    """Why a new run could not be started, in words, and what to do."""
    if isinstance(exc, RunNotStarted):
        return str(exc)
    if isinstance(exc, StoreUnavailable):
        return f"{exc} Your run was not started: try again in a moment."
    return (f"Your run could not be started ({type(exc).__name__}: {exc}). Nothing of it is left waiting: "
            "try again in a moment.")
