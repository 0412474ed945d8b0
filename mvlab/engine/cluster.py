"""Where the work runs: Dask's ``distributed``, an embedded cluster of worker processes by default,
or an existing cluster named by its scheduler's address.

:class:`EngineConfig` reads the environment once:

``MVLAB_SCHEDULER``
    ``tls://host:8786`` of an existing Dask scheduler (a class that outgrows one machine: start
    ``dask scheduler`` and ``dask worker tls://host:8786 --nthreads 1 --memory-limit 8GB`` on other
    machines, all with the certificates of ``mvlab certificates``: docs/guide/deploy.md).  Unset or ``local``:
    an embedded :class:`distributed.LocalCluster`.  Whoever reaches a scheduler runs code on its workers, so
    the address is checked against an allow-list before any byte is sent (:func:`checked_scheduler`):
    ``tls://`` or ``wss://`` with Dask's own TLS settings (``DASK_DISTRIBUTED__COMM__TLS__CA_FILE``,
    ``…__CLIENT__CERT``, ``…__CLIENT__KEY``) to any machine; plain ``tcp://`` or ``ws://`` only when every
    address its host name resolves to is a loopback address (this machine); any other scheme is refused.  On
    connecting, workers whose mvlab or libraries differ from this process's are named, with their versions
    (:func:`check_versions`).
``MVLAB_ALLOW_PLAIN_TCP``
    On (``1``, ``true``, ``yes``, ``on``): plain ``tcp://`` to another machine is allowed too, for a network
    nobody else reaches.  Off: ``0``, ``false``, ``no``, ``off``, empty or unset; any other value is an error
    (:func:`env_switch`).  It never allows ``ws://`` to another machine: use ``wss://``.
``MVLAB_WORKERS``
    Worker processes of the embedded cluster (default: as many as cores).
``MVLAB_WORKER_MEMORY``
    Memory limit of each embedded worker, e.g. ``4GB`` (default: 80 % of the machine's memory
    shared between the workers; the rest is for the web server).  A worker that goes over it is
    restarted by its nanny; the run it held fails with a message saying so.
``MVLAB_MAX_QUEUED``
    How many runs may wait for a worker at once (default 60); past it, Train says the server is
    busy instead of queueing without end.
``MVLAB_THREADS_PER_RUN``
    Threads of one run inside its worker (default: the cores shared by the embedded workers,
    ``cores // workers``, at least 1; on an existing cluster, 1).  Threads only pay for work that
    releases the GIL (forests, matrix products); the view-construction sweeps are pure Python
    and run *slower* on two threads than on one, so a class server gives each worker one core.
    By default a run that starts while **no other run is running or waiting** on the embedded engine takes every
    core (:meth:`EngineConfig.idle_threads`): one person alone, a teacher's demo, gets the machine, not a worker's
    share of it (#72: the forests of a page's default run on two cores instead of one); a run that starts beside
    another keeps its share.  Setting the variable fixes the threads of every run.
``MVLAB_DASHBOARD``
    Where the embedded engine serves Dask's own dashboard (default ``127.0.0.1:8787``, this
    machine only; ``:8787`` for every interface; ``off``, ``0``, ``false``, ``no`` or empty for none; ``on``,
    ``1``, ``true`` or ``yes`` for the default).  It needs ``bokeh``.

Every worker runs one computation at a time (``nthreads=1``): a run's own parallelism uses
threads inside its worker (scikit-learn's forests already do), never the process-wide loky
executor of the web server, so one run's Stop, failure or memory blow-up cannot touch another's.

The embedded workers never get the results store's location (a ``postgresql://`` URL may hold its password): the
process that starts them records what they compute, so while an embedded cluster runs, the variables that hold it
(:func:`store_variables`) are taken out of the environment its child processes inherit (the workers, the ones their
nannies restart, multiprocessing's resource tracker), and kept in ``os.environ``, where this process reads them.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import shutil
import socket
import sys
import tempfile
import threading
import types
from contextlib import contextmanager
from dataclasses import dataclass, field

import dask
import psutil
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin

from mvlab.engine.certificates import private_security

__all__ = ["EngineConfig", "EngineClient", "connect", "close_quietly", "parse_bytes", "check_versions",
           "version_differences", "scheduler_security", "checked_scheduler", "env_switch", "store_variables"]

_SWITCH_ON = ("1", "true", "yes", "on")
_SWITCH_OFF = ("", "0", "false", "no", "off")
_ENCRYPTED = ("tls", "wss")  # Dask's transports with TLS: mvlab's certificates on both ends
_PLAIN = ("tcp", "ws")  # plain text: this machine only
_DEFAULT_DASHBOARD = "127.0.0.1:8787"


def env_switch(name: str, environ=None) -> bool:
    """The on/off environment variable ``name`` (of ``os.environ``, or the mapping ``environ``), parsed strictly:
    ``1``, ``true``, ``yes``, ``on`` are on; ``0``, ``false``, ``no``, ``off``, empty or unset are off (any case,
    spaces around ignored); anything else is a ``ValueError`` naming the variable, since a typo must neither open
    nor close a door silently."""
    env = os.environ if environ is None else environ
    raw = env.get(name)
    value = "" if raw is None else str(raw).strip().lower()
    if value in _SWITCH_ON:
        return True
    if value in _SWITCH_OFF:
        return False
    raise ValueError(f"{name}={raw!r} is neither on nor off: write 1, true, yes or on to turn it on, and 0, false, "
                     "no, off or nothing to leave it off.")


def _dashboard_address(raw: str) -> str | None:
    """``MVLAB_DASHBOARD``'s value: None for off, the default for on, else ``[host]:port``; ``ValueError`` in words
    for anything else."""
    value = raw.strip()
    if value.lower() in _SWITCH_OFF + ("none",):
        return None
    if value.lower() in _SWITCH_ON:
        return _DEFAULT_DASHBOARD
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536 or any(c.isspace() for c in host):
        raise ValueError(f"MVLAB_DASHBOARD={raw!r} is not valid: give host:port (127.0.0.1:8787), :port for every "
                         "interface, or off.")
    return value


def parse_bytes(text: str) -> int:
    """``"4GB"``, ``"512 MiB"``, ``"2e9"`` -> bytes; ValueError naming the value otherwise."""
    try:
        return int(dask.utils.parse_bytes(str(text)))
    except (ValueError, TypeError):
        raise ValueError(f"{text!r} is not an amount of memory (write e.g. 4GB or 512MiB).") from None


@dataclass(frozen=True)
class EngineConfig:
    """How to reach or start the job engine (see the module docstring for the environment)."""

    scheduler: str | None = None
    n_workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    worker_memory: int | None = None
    max_queued: int = 60
    dashboard: str | None = _DEFAULT_DASHBOARD
    threads_per_run: int | None = None

    @classmethod
    def from_env(cls, environ=None) -> "EngineConfig":
        """The configuration from the environment variables of the module docstring (``os.environ``, or the
        mapping ``environ``); ``ValueError`` naming a variable whose value does not parse or is below 1."""
        env = os.environ if environ is None else environ
        scheduler = env.get("MVLAB_SCHEDULER", "").strip() or None
        if scheduler == "local":
            scheduler = None
        values = {"scheduler": scheduler}
        if "MVLAB_DASHBOARD" in env:
            values["dashboard"] = _dashboard_address(env["MVLAB_DASHBOARD"])
        for name, key, parse in (("n_workers", "MVLAB_WORKERS", int), ("max_queued", "MVLAB_MAX_QUEUED", int),
                                 ("threads_per_run", "MVLAB_THREADS_PER_RUN", int),
                                 ("worker_memory", "MVLAB_WORKER_MEMORY", parse_bytes)):
            raw = env.get(key, "").strip()
            if raw:
                try:
                    values[name] = parse(raw)
                except ValueError:
                    raise ValueError(f"{key}={raw!r} is not valid: give "
                                     + ("an amount of memory such as 4GB." if parse is parse_bytes
                                        else "a whole number.")) from None
        env_switch("MVLAB_ALLOW_PLAIN_TCP", env)  # a typo is said when the server starts, not at its first run
        config = cls(**values)
        if config.n_workers < 1 or config.max_queued < 1 or (config.threads_per_run or 1) < 1:
            raise ValueError("MVLAB_WORKERS, MVLAB_MAX_QUEUED and MVLAB_THREADS_PER_RUN must be at least 1.")
        return config

    def run_threads(self) -> int:
        """Threads of one run in its worker beside others (see ``MVLAB_THREADS_PER_RUN``)."""
        if self.threads_per_run is not None:
            return self.threads_per_run
        if self.scheduler is not None:
            return 1
        return max(1, (os.cpu_count() or 1) // self.n_workers)

    def idle_threads(self) -> int:
        """Threads of a run that starts while no other run is running or waiting: every core of the machine on the
        embedded engine, :meth:`run_threads` otherwise (``MVLAB_THREADS_PER_RUN`` set, or an existing cluster, whose
        machines' cores this process does not know)."""
        if self.threads_per_run is not None or self.scheduler is not None:
            return self.run_threads()
        return max(self.run_threads(), os.cpu_count() or 1)

    def memory_per_worker(self) -> int:
        """The embedded workers' memory limit in bytes."""
        if self.worker_memory is not None:
            return self.worker_memory
        return int(0.8 * psutil.virtual_memory().total / self.n_workers)


class _PoliteWorker(WorkerPlugin):
    """Embedded workers run at a lower priority than the web server (pages open while the class
    trains) and import mvlab's computations once, at start, rather than in the first run."""

    name = "mvlab-polite-worker"

    def setup(self, worker):
        try:
            os.nice(5)
        except OSError:  # not permitted here: the workers keep the server's priority
            pass
        import mvlab.experiments.settings  # noqa: F401  (warm the imports)


_WITHHELD_LOCK = threading.Lock()
_withholding = 0  # embedded clusters alive in this process: while any is, children inherit no store variable


def _holds_database_url(value: str) -> bool:
    """Whether ``value`` is a PostgreSQL URL (``postgresql://``, ``postgres://``, ``postgresql+driver://``), which
    names a database and may carry its password."""
    scheme = value.strip().partition("://")[0].lower()
    return "://" in value and scheme.split("+", 1)[0] in ("postgresql", "postgres")


def store_variables(environ=None) -> list[str]:
    """The names of the environment variables (of ``os.environ``, or the mapping ``environ``) that hold the results
    store's location: ``MVLAB_STORE``, any other whose value is the same location, and any that holds a PostgreSQL
    URL (a deployment's ``DATABASE_URL``, say).  libpq's own variables (``PGPASSWORD``, ``PGPASSFILE``) are not
    among them: this process's libpq reads them from the very environment its children inherit."""
    env = os.environ if environ is None else environ
    store = str(env.get("MVLAB_STORE", "")).strip()
    return [name for name, value in env.items()
            if name == "MVLAB_STORE" or (store and str(value).strip() == store) or _holds_database_url(str(value))]


def _withhold_store_from_children() -> None:
    """Take the store's variables (:func:`store_variables`) out of the environment that processes started from now
    on inherit (the C library's, which ``multiprocessing`` and ``subprocess`` pass on when given none), and leave them
    in ``os.environ``, where this process's own code reads them.  Undone by :func:`_give_store_back_to_children` once
    no embedded cluster needs it."""
    global _withholding
    with _WITHHELD_LOCK:
        _withholding += 1
        for name in store_variables():
            os.unsetenv(name)


def _give_store_back_to_children() -> None:
    """The end of one :func:`_withhold_store_from_children`: when no embedded cluster is left, processes started
    afterwards inherit ``os.environ``'s store variables again (as they did before the engine started)."""
    global _withholding
    with _WITHHELD_LOCK:
        _withholding = max(0, _withholding - 1)
        if _withholding == 0:
            for name in store_variables():
                os.putenv(name, os.environ[name])


class _EmbeddedCluster(LocalCluster):
    """The embedded engine's :class:`distributed.LocalCluster`: its worker processes (those its nannies restart later
    included) and multiprocessing's helper processes start without the results store's variables, from its start
    to its close (:func:`_withhold_store_from_children`); it speaks TLS only, with certificates made for this run
    (:func:`mvlab.engine.certificates.private_security`), so that no other process on the machine can reach its
    scheduler and run code as the server (issue #71: it listened on plain TCP before)."""

    def __init__(self, *args, **kwargs):
        _withhold_store_from_children()
        self._withholding_store = True
        self._certificates = tempfile.mkdtemp(prefix="mvlab-engine-")  # mode 0700: its owner's alone
        try:
            super().__init__(*args, security=private_security(self._certificates), **kwargs)
        except BaseException:
            runner = getattr(self, "_loop_runner", None)
            if runner is not None:  # a scheduler that failed to start leaves the cluster's loop thread running
                runner.stop()
            self._stop_withholding_store()
            shutil.rmtree(self._certificates, ignore_errors=True)
            raise

    def _stop_withholding_store(self) -> None:
        if getattr(self, "_withholding_store", False):
            self._withholding_store = False
            _give_store_back_to_children()

    async def _close(self):
        try:
            await super()._close()
        finally:
            self._stop_withholding_store()
            shutil.rmtree(self._certificates, ignore_errors=True)


@contextmanager
def _workers_start_clean():
    """multiprocessing's spawn re-runs the file of ``sys.modules["__main__"]`` in every new worker.
    Under Streamlit that is the script of the moment (the app, or a test's temporary script), so the
    embedded workers are started with a plain ``__main__`` (functions of a user's ``__main__`` still
    reach them: cloudpickle sends those by value).  The app guards itself too, for the workers a
    nanny restarts later."""
    real = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if real is not None:
            sys.modules["__main__"] = real


def _engine_tls_security(address: str):
    """Dask's :class:`distributed.Security` from its own settings (its config files or
    ``DASK_DISTRIBUTED__COMM__TLS__*`` variables), or ``ValueError`` naming the settings a ``tls://`` or ``wss://``
    client still lacks."""
    from distributed import Security

    security = Security()
    missing = [name for name, value in (("DASK_DISTRIBUTED__COMM__TLS__CA_FILE", security.tls_ca_file),
                                        ("DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT", security.tls_client_cert),
                                        ("DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY", security.tls_client_key
                                         or security.tls_client_cert))
               if not value]
    if missing:
        raise ValueError(f"MVLAB_SCHEDULER={address} needs the engine's certificates: set {', '.join(missing)} "
                         "(mvlab certificates DIR writes them and the settings file; docs/guide/deploy.md).")
    return security


def _is_loopback(ip: str) -> bool:
    """Whether the numeric address ``ip`` (as ``getaddrinfo`` gives it, an IPv6 scope ``%eth0`` included) is this
    machine's loopback, ``::ffff:127.0.0.1`` included."""
    address = ipaddress.ip_address(ip.split("%", 1)[0])
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def _resolved(address: str, host: str, port: int) -> list[str]:
    """Every numeric address ``host`` resolves to (``socket.getaddrinfo``, as a connection would), or ``ValueError``
    in words when it resolves to none."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:  # socket.gaierror is an OSError
        raise ValueError(f"MVLAB_SCHEDULER={address} names the host {host!r}, which does not resolve to any address "
                         f"({exc}): check the name, or give the scheduler's IP address.") from None
    ips = list(dict.fromkeys(info[4][0] for info in found))
    if not ips:
        raise ValueError(f"MVLAB_SCHEDULER={address} names the host {host!r}, which does not resolve to any address: "
                         "check the name, or give the scheduler's IP address.")
    return ips


def checked_scheduler(address: str, environ=None):
    """The address to connect to and Dask's :class:`distributed.Security` for it (None for plain text), once the
    scheduler's address ``address`` has passed mvlab's allow-list, or ``ValueError`` in words.

    Whoever reaches a scheduler runs code on its workers, so the decision is made on the address as Dask parses it
    (its default scheme when none is written), with the host name resolved: ``tls://`` and ``wss://`` go anywhere,
    with the engine's certificates (:func:`mvlab.engine.certificates.make_certificates`); plain ``tcp://`` and
    ``ws://`` only when *every* address the name resolves to is a loopback address, and then to the checked
    address itself (a name cannot resolve elsewhere between the check and the connection); plain ``tcp://`` to
    another machine only with ``MVLAB_ALLOW_PLAIN_TCP`` on (:func:`env_switch`, of ``os.environ`` or the mapping
    ``environ``). Any other scheme, a missing port and a host that resolves to nothing are refused."""
    from distributed.comm.addressing import parse_address, parse_host_port, unparse_host_port

    env = os.environ if environ is None else environ
    scheme, location = parse_address(address.strip())
    if scheme not in _ENCRYPTED + _PLAIN:
        raise ValueError(f"MVLAB_SCHEDULER={address} uses the transport {scheme + '://'!r}, which mvlab's engine does "
                         "not speak: give tls://host:8786 (or wss://) with the engine's certificates, or tcp:// to "
                         "this machine (docs/guide/deploy.md).")
    try:
        host, port = parse_host_port(location)
    except ValueError as exc:
        raise ValueError(f"MVLAB_SCHEDULER={address} is not a scheduler's address ({exc}): write "
                         f"{scheme}://host:8786, an IPv6 address in brackets ({scheme}://[::1]:8786).") from None
    if not host or not 0 < int(port) < 65536:
        raise ValueError(f"MVLAB_SCHEDULER={address} is not a scheduler's address: it needs a host and a port "
                         f"between 1 and 65535 ({scheme}://host:8786).")
    ips = _resolved(address, host, port)
    if scheme in _ENCRYPTED:
        return f"{scheme}://{location}", _engine_tls_security(address)
    if all(_is_loopback(ip) for ip in ips):
        return f"{scheme}://{unparse_host_port(ips[0], port)}", None
    if scheme == "tcp" and env_switch("MVLAB_ALLOW_PLAIN_TCP", env):
        return f"{scheme}://{location}", None
    elsewhere = ", ".join(ip for ip in ips if not _is_loopback(ip))
    where = host if elsewhere == host else f"{host} resolves to {elsewhere}"
    allow = ("" if scheme != "tcp" else
             ", or set MVLAB_ALLOW_PLAIN_TCP=1 on a network nobody else reaches")
    raise ValueError(f"MVLAB_SCHEDULER={address} is plain {scheme}:// to another machine ({where}): "
                     f"anyone who reaches that port runs code on the workers. Use tls:// (or wss://) with "
                     f"certificates (mvlab certificates; docs/guide/deploy.md){allow}.")


def scheduler_security(address: str, environ=None):
    """Dask's :class:`distributed.Security` for a scheduler's address (None for plain text to this machine), or
    ``ValueError`` in words: :func:`checked_scheduler`'s allow-list."""
    return checked_scheduler(address, environ)[1]


def version_differences(here: dict, workers: dict) -> list[str]:
    """What differs between this process's versions (``{package: version}``) and each worker's
    (``{address: {package: version}}``, a worker's missing package as None), one sentence per worker."""
    out = []
    for address, theirs in sorted(workers.items()):
        differ = [f"{name} {theirs.get(name) or 'not installed'} (here {version})" for name, version in here.items()
                  if theirs.get(name) != version]
        if differ:
            out.append(f"{address} has " + ", ".join(differ))
    return out


def _worker_versions(client, names) -> dict:
    """``{address: {package: version or None}}`` of the workers, asked with functions of the standard library only
    (a worker without mvlab can still answer)."""
    import importlib.metadata
    import platform

    out: dict = {}
    for address, value in client.run(platform.python_version, on_error="return").items():
        out.setdefault(address, {})["python"] = value if isinstance(value, str) else None
    for name in names:
        for address, value in client.run(importlib.metadata.version, name, on_error="return").items():
            out.setdefault(address, {})[name] = value if isinstance(value, str) else None
    return out


def check_versions(client) -> None:
    """``ValueError`` naming every worker whose Python, mvlab or numerical libraries differ from this process's (a
    run would fail later, or worse, compute other numbers), and Dask's own check of its required packages."""
    from mvlab.store import package_versions

    here = package_versions()
    try:
        client.get_versions(check=True)
    except ValueError as exc:
        raise ValueError(f"The Dask scheduler or workers run other versions of Dask's packages than this process: "
                         f"{exc}") from None
    differ = version_differences(here, _worker_versions(client, [n for n in here if n != "python"]))
    if differ:
        raise ValueError("The engine's workers differ from this process: " + "; ".join(differ) + ". Install the "
                         "same on every machine (pip install --require-hashes -r requirements.lock, then this mvlab; "
                         "docs/guide/deploy.md).")


def worker_environ() -> dict:
    """The variables Dask sets in an embedded worker before it starts (``distributed.nanny.pre-spawn-environ``):
    Dask's own (one BLAS and OpenMP thread per worker) but ``MALLOC_TRIM_THRESHOLD_``. Setting it fixes glibc's
    thresholds, and every temporary array above 128 kB is then a fresh mapping of memory, paged in and unmapped
    again: measured (#72), the View construction page's default sweep took 6.1–6.5 s in such a worker, 5.4–5.8 s
    without it, as in the server's own process (5.4 s). Left to itself, glibc keeps up to some tens of MB of freed
    memory for the next run, well inside a worker's limit; a run's memory is still measured by its own peak."""
    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {})
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    return environ


class EngineClient(Client):
    """Dask's :class:`distributed.Client`, but one whose failed start leaves nothing behind.

    Dask's own client, when its connection fails (a scheduler that is down, refuses the handshake, or was given
    wrong certificates), raises from its constructor and keeps its event-loop thread running; half-connected, it
    also leaves a finalizer that closes it whenever the garbage collector next runs, in whatever thread that is,
    and that takes the lock every new client's start holds: a later client could wait out the 10 s of Dask's loop
    start and fail (seen once in CI: ``assert loop is not None`` in ``LoopRunner``). The engine connects again on
    every request while a scheduler is unreachable, so each outage would leave one thread per request. This client
    closes itself and stops its loop before the error reaches the caller."""

    def start(self, **kwargs):
        """Dask's start; on any error the client is closed and its loop ended first, then the error raised."""
        try:
            super().start(**kwargs)
        except BaseException:
            self._end_failed_start()
            raise

    def end_loop(self) -> None:
        """End the client's event-loop thread: Dask, when it gives a lost scheduler up, marks its client closed but
        leaves that thread running (and a later ``close`` returns at once)."""
        self._loop_runner.stop(timeout=5)

    def _end_failed_start(self) -> None:
        try:
            self.close(timeout=5)  # a client still "connecting" closes its connections on its own loop
        except Exception:  # noqa: BLE001 (the start's own error is the one to tell)
            pass
        self.status = "closed"  # nothing left for the finalizer to do
        self._loop_runner.stop(timeout=5)


def close_quietly(*parts) -> None:
    """Close each of a connection's parts (a receiver, a client, an embedded cluster; None is skipped) whatever the
    others do: an error while closing one must neither hide the error that made the caller close them nor leave the
    next one open; it is logged."""
    for part in parts:
        if part is None:
            continue
        try:
            part.close()
        except Exception as exc:  # noqa: BLE001 - see above
            logging.getLogger(__name__).warning("Closing %s failed: %s: %s", type(part).__name__,
                                                type(exc).__name__, exc)


def connect(config: EngineConfig) -> tuple[Client, LocalCluster | None]:
    """A client of the configured engine, and the embedded cluster it started (None for an
    existing cluster, whose workers' versions are checked: :func:`check_versions`).  The embedded scheduler lives in
    this process; a worker killed for memory fails its run at once (``allowed-failures: 0``) rather than retrying it
    on the next worker."""
    if config.scheduler is not None:
        address, security = checked_scheduler(config.scheduler)
        try:
            client = EngineClient(address, timeout="10s", set_as_default=False, security=security)
        except (OSError, TimeoutError) as exc:
            raise ValueError(f"Cannot reach the Dask scheduler at MVLAB_SCHEDULER={config.scheduler}: {exc}. "
                             "Start it (dask scheduler) or unset MVLAB_SCHEDULER to use the embedded engine."
                             ) from None
        try:
            check_versions(client)
        except BaseException:  # the versions differ, or the scheduler went away while they were asked
            client.close()
            raise
        return client, None
    dashboard = config.dashboard
    try:
        import bokeh  # noqa: F401  (the engine's own dashboard needs it)
    except ImportError:
        dashboard = None
    with dask.config.set({
        "distributed.scheduler.allowed-failures": 0,  # a run that killed its worker is not tried on the next one
        "distributed.scheduler.worker-saturation": 1.0,  # a worker holds one run; the rest wait in the queue, in order
        # a worker computes one run at a time: spilling or pausing it would only stall the queue; past 95 % of its
        # limit its nanny restarts it and the run fails with a message
        "distributed.worker.memory.target": False, "distributed.worker.memory.spill": False,
        "distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": 0.95,
        "distributed.admin.tick.limit": "10s",
        # the statistical profiler samples every thread's stack every 10 ms: measured to make a pure-Python
        # run (the view-construction sweep) 1.5x slower in its worker
        "distributed.worker.profile.enabled": False,
        "distributed.nanny.pre-spawn-environ": worker_environ(),
    }), _workers_start_clean():
        cluster = _EmbeddedCluster(n_workers=config.n_workers, threads_per_worker=1, processes=True,
                                   memory_limit=config.memory_per_worker(), dashboard_address=dashboard,
                                   scheduler_port=0, silence_logs=logging.ERROR)
        try:
            client = EngineClient(cluster, set_as_default=False)
        except BaseException:
            cluster.close()  # its workers would run on, unreachable, for as long as the server
            raise
    try:
        client.register_plugin(_PoliteWorker())
    except BaseException:
        close_quietly(client, cluster)  # the plugin's error is the one told
        raise
    return client, cluster
