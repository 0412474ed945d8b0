"""Where the work runs: Dask's ``distributed``, an embedded cluster of worker processes by default,
or an existing cluster named by its scheduler's address.

:class:`EngineConfig` reads the environment once:

``MVLAB_SCHEDULER``
    ``tls://host:8786`` of an existing Dask scheduler (a class that outgrows one machine: start
    ``dask scheduler`` and ``dask worker tls://host:8786 --nthreads 1 --memory-limit 8GB`` on other
    machines, all with the certificates of ``mvlab certificates``: docs/guide/deploy.md).  Unset or ``local``:
    an embedded :class:`distributed.LocalCluster`.  Whoever reaches a scheduler runs code on its workers, so
    an address on another machine must be ``tls://`` with Dask's own TLS settings
    (``DASK_DISTRIBUTED__COMM__TLS__CA_FILE``, ``…__CLIENT__CERT``, ``…__CLIENT__KEY``); plain ``tcp://`` is
    refused there unless ``MVLAB_ALLOW_PLAIN_TCP=1`` (a network nobody else reaches).  On connecting, workers
    whose mvlab or libraries differ from this process's are named, with their versions (:func:`check_versions`).
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
    and run *slower* on two threads than on one, so a class server gives each worker one core,
    and one person alone may prefer ``MVLAB_WORKERS=1`` (one worker with every core).
``MVLAB_DASHBOARD``
    Where the embedded engine serves Dask's own dashboard (default ``127.0.0.1:8787``, this
    machine only; ``:8787`` for every interface; ``off`` for none).  It needs ``bokeh``.

Every worker runs one computation at a time (``nthreads=1``): a run's own parallelism uses
threads inside its worker (scikit-learn's forests already do), never the process-wide loky
executor of the web server, so one run's Stop, failure or memory blow-up cannot touch another's.
"""

from __future__ import annotations

import logging
import os
import sys
import types
from contextlib import contextmanager
from dataclasses import dataclass, field

import dask
import psutil
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin

__all__ = ["EngineConfig", "connect", "parse_bytes", "check_versions", "version_differences", "scheduler_security"]

_LOOPBACK = ("127.", "localhost", "[::1]", "::1")


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
    dashboard: str | None = "127.0.0.1:8787"
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
            dashboard = env["MVLAB_DASHBOARD"].strip()
            values["dashboard"] = None if dashboard.lower() in ("", "off", "none", "no") else dashboard
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
        config = cls(**values)
        if config.n_workers < 1 or config.max_queued < 1 or (config.threads_per_run or 1) < 1:
            raise ValueError("MVLAB_WORKERS, MVLAB_MAX_QUEUED and MVLAB_THREADS_PER_RUN must be at least 1.")
        return config

    def run_threads(self) -> int:
        """Threads of one run in its worker (see ``MVLAB_THREADS_PER_RUN``)."""
        if self.threads_per_run is not None:
            return self.threads_per_run
        if self.scheduler is not None:
            return 1
        return max(1, (os.cpu_count() or 1) // self.n_workers)

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


def scheduler_security(address: str, environ=None):
    """Dask's :class:`distributed.Security` for a scheduler's address, from Dask's own settings (its config files or
    ``DASK_DISTRIBUTED__COMM__TLS__*`` variables), or ``ValueError`` in words: ``tls://`` without a certificate
    authority and a client certificate, or plain ``tcp://`` to another machine (anyone who reaches that port runs
    code on the workers) unless ``MVLAB_ALLOW_PLAIN_TCP=1``."""
    from distributed import Security

    env = os.environ if environ is None else environ
    scheme, _, rest = address.partition("://") if "://" in address else ("tcp", "", address)
    if scheme == "tls":
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
    if scheme == "tcp" and not rest.startswith(_LOOPBACK) and not env.get("MVLAB_ALLOW_PLAIN_TCP"):
        raise ValueError(f"MVLAB_SCHEDULER={address} is plain tcp:// to another machine: anyone who reaches that "
                         "port runs code on the workers. Use tls:// with certificates (mvlab certificates; "
                         "docs/guide/deploy.md), or set MVLAB_ALLOW_PLAIN_TCP=1 on a network nobody else reaches.")
    return None


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


def connect(config: EngineConfig) -> tuple[Client, LocalCluster | None]:
    """A client of the configured engine, and the embedded cluster it started (None for an
    existing cluster, whose workers' versions are checked: :func:`check_versions`).  The embedded scheduler lives in
    this process; a worker killed for memory fails its run at once (``allowed-failures: 0``) rather than retrying it
    on the next worker."""
    if config.scheduler is not None:
        security = scheduler_security(config.scheduler)
        try:
            client = Client(config.scheduler, timeout="10s", set_as_default=False, security=security)
        except (OSError, TimeoutError) as exc:
            raise ValueError(f"Cannot reach the Dask scheduler at MVLAB_SCHEDULER={config.scheduler}: {exc}. "
                             "Start it (dask scheduler) or unset MVLAB_SCHEDULER to use the embedded engine."
                             ) from None
        try:
            check_versions(client)
        except ValueError:
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
    }), _workers_start_clean():
        cluster = LocalCluster(n_workers=config.n_workers, threads_per_worker=1, processes=True,
                               memory_limit=config.memory_per_worker(), dashboard_address=dashboard,
                               scheduler_port=0, silence_logs=logging.ERROR)
        client = Client(cluster, set_as_default=False)
    client.register_plugin(_PoliteWorker())
    return client, cluster
