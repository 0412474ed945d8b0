"""Several web-server processes behind one address: ``python -m mvlab serve --processes 4``.

One Streamlit process runs its sessions' scripts on about one core (Python's interpreter lock), so a lecture
hall that outgrows a process, or a machine with more cores, is served by several: ``processes`` Streamlit
servers on loopback ports, one job engine that they all send their runs to (a Dask cluster started here, or
the one ``MVLAB_SCHEDULER`` names), one results store (the class rounds in it span the processes), and Debian's
``nginx`` in front, on the address students open.

The proxy keeps each browser on one process (*sticky sessions*): a browser's first request draws a random key,
the proxy sends it a cookie (``mvlab_server``) holding it, and every later request of that browser (the
websocket, the images of its session, its uploads) goes to the process its key hashes to
(``hash ... consistent``). Without it, an image drawn by one process would be asked of another, which never
made it. All processes share one cookie secret, so Streamlit's own cookies are valid on each.

A lecture outlives a process: a :class:`Supervisor` (as gunicorn's arbiter) starts again, on the same port, a
Streamlit process or nginx that died, after a back-off that grows while it keeps dying at once
(:class:`RestartPolicy`), and gives up on it after a few quick deaths in a row. Meanwhile nginx sends the students
of a dead process to the others (a refused connection is retried on the next process of the hash ring, and the
dead one is skipped for a few seconds), their browsers reconnect by themselves, and once the process answers again
its students' next connection goes back to it (the hash is consistent: the same key, the same process).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from mvlab.core import resources
from mvlab.core.addresses import TRUSTED_PROXIES_DEFAULT, trusted_proxies
from mvlab.store.connections import check_connection_budget
from mvlab.store.database import absolute_location, database_url, default_location

__all__ = ["ROOT", "nginx_config", "free_port", "wait_healthy", "RestartPolicy", "Supervised", "Supervisor",
           "Served", "serving", "serve_forever"]

ROOT = resources.root()
"""The folder of ``app.py`` and ``pages/`` (a checkout's top, or an installed wheel's copies)."""
COOKIE = "mvlab_server"
"""The proxy's cookie that keeps a browser on one process."""
SKIP_DEAD_FOR = 2
"""Seconds nginx leaves a process alone after it refused a connection (``fail_timeout``); the first connection
after that tries it again, so a restarted process gets its students back within this long of answering."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def nginx_config(backends: list[int], listen: str, folder: Path) -> str:
    """nginx's configuration: listen on ``listen`` (``host:port``) and spread browsers over the Streamlit
    processes on the loopback ports ``backends``, each browser kept on one (see the module docstring); its
    pid, logs and temporary files in ``folder``. Runs in the foreground (``daemon off``) as the caller.

    A process that refuses a connection (dead, or restarting) is skipped for :data:`SKIP_DEAD_FOR` seconds and
    the request goes to the next process of the ring (``proxy_next_upstream``), a websocket's handshake included.
    Every request header of the browser, its cookies included, reaches the process as sent, except
    ``X-Real-IP``, which nginx sets to the address the connection came from (a browser cannot choose it)."""
    if not backends:
        raise ValueError("nginx_config needs at least one backend port.")
    servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=1 fail_timeout={SKIP_DEAD_FOR}s;"
                        for port in backends)
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi",
                                                                          "uwsgi", "scgi"))
    return f"""# written by mvlab serve: {len(backends)} Streamlit process(es) behind one address
worker_processes 1;
daemon off;
pid {folder / 'nginx.pid'};
error_log {folder / 'error.log'} warn;
events {{ worker_connections 8192; }}
http {{
    access_log off;
{temp}
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    # a browser keeps the key its first request drew: every request of it goes to one process
    map $cookie_{COOKIE} $mvlab_sticky {{ "" $request_id; default $cookie_{COOKIE}; }}
    upstream mvlab {{
        hash $mvlab_sticky consistent;
        # a process that refuses a connection is left alone for {SKIP_DEAD_FOR} s; its browsers go to the next one
{servers}
    }}
    server {{
        listen {listen};
        client_max_body_size 200m;
        location / {{
            proxy_pass http://mvlab;
            proxy_next_upstream error timeout;  # a refused connection (a dead process): the next process
            proxy_connect_timeout 5s;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Real-IP $remote_addr;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_buffering off;
            proxy_read_timeout 1d;
            proxy_send_timeout 1d;
            add_header Set-Cookie "{COOKIE}=$mvlab_sticky; Path=/; SameSite=Lax; HttpOnly" always;
            add_header X-Mvlab-Server $upstream_addr always;  # the processes tried, the one that answered last
        }}
    }}
}}
"""


def _nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        raise ValueError("Several server processes need nginx in front of them, and it is not installed: "
                         "apt-get install nginx (Debian's package), or serve one process with make run.")
    return found


def wait_healthy(url: str, proc: subprocess.Popen, what: str, log: Path, timeout: float = 90.0) -> None:
    """Wait until the Streamlit server (or the proxy in front of it) at ``url`` answers its health check;
    ``RuntimeError`` with the end of ``log`` when ``proc`` exits first or ``timeout`` seconds pass."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with status {proc.returncode}: {_tail(log)}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{what} did not answer {url}/_stcore/health within {timeout:.0f} s: {_tail(log)}")


def _tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-2000:]
    except OSError:
        return "(no log)"


def how_it_ended(returncode: int) -> str:
    """A process's end in words: ``killed by SIGKILL`` for a negative return code, ``exited with status 1``."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


def _seconds(duration: float) -> str:
    return f"{duration:.0f} s" if duration < 120 else f"{duration / 60:.0f} min"


def _kill_leftovers(proc) -> None:
    """Kill what is left of a dead process's group (each process here is started in a session of its own, so
    its group id is its pid): nginx's worker outlives its master and keeps the port, so a new nginx could not
    listen on it; a Streamlit process's helpers would run on, orphaned."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # nothing left (the usual case)
        pass


def _stop_all(procs: list) -> None:
    """SIGTERM to each running process of ``procs``, then wait for each (SIGKILL after 10 s)."""
    running = [p for p in procs if p is not None and p.poll() is None]
    for proc in running:
        proc.terminate()
    for proc in running:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass(frozen=True)
class RestartPolicy:
    """When a supervised process that died is started again.

    A death within ``steady_after`` seconds of the process's start is *quick*; the wait before a restart is
    ``first_delay`` after a process that ran steadily and after the first quick death, then doubles with each
    quick death in a row up to ``longest_delay``; after ``give_up_after`` quick deaths in a row the process is not
    started again (something is wrong that a restart does not mend: its log says what)."""

    first_delay: float = 1.0
    longest_delay: float = 30.0
    steady_after: float = 60.0
    give_up_after: int = 5

    def __post_init__(self):
        if not 0 <= self.first_delay <= self.longest_delay:
            raise ValueError(f"RestartPolicy needs 0 <= first_delay <= longest_delay; got {self.first_delay!r} "
                             f"and {self.longest_delay!r}.")
        if self.steady_after <= 0 or int(self.give_up_after) < 1:
            raise ValueError(f"RestartPolicy needs steady_after > 0 and give_up_after >= 1; got "
                             f"{self.steady_after!r} and {self.give_up_after!r}.")

    def delay(self, quick_deaths: int) -> float:
        """Seconds to wait before a restart after ``quick_deaths`` quick deaths in a row (0: it ran steadily)."""
        return min(self.longest_delay, self.first_delay * 2.0 ** max(0, quick_deaths - 1))


@dataclass
class Supervised:
    """One process kept running by a :class:`Supervisor`: ``start()`` starts it (a ``Popen``, or anything with
    ``poll``, ``pid`` and ``returncode``); ``log``, where it writes, is named when the supervisor gives up."""

    name: str
    start: Callable
    process: object = None
    started: float = 0.0
    quick_deaths: int = 0
    restart_at: float | None = None
    gave_up: bool = False
    restarts: int = 0
    log: Path | None = None

    def running(self) -> bool:
        """Whether its process runs now (as last seen; a dead one waiting for its restart is not running)."""
        return self.restart_at is None and not self.gave_up and self.process is not None


class Supervisor:
    """Keeps processes running, as gunicorn's arbiter keeps its workers: :meth:`check` (called every fraction of
    a second by :meth:`run`) notices a process that died, says so in words, and starts it again after the wait
    :class:`RestartPolicy` gives, or gives up on it; the others are never touched.

    ``clock`` (seconds, monotonic), ``say`` (one line of the log) and ``after_death`` (called with a dead
    process, to clean what it left) are injectable, so the back-off is tested without processes or waits."""

    def __init__(self, policy: RestartPolicy | None = None, clock: Callable[[], float] = time.monotonic,
                 say: Callable[[str], object] = print, after_death: Callable = _kill_leftovers):
        self.policy = policy or RestartPolicy()
        self.clock, self.say, self.after_death = clock, say, after_death
        self.children: list[Supervised] = []
        self._lock = threading.Lock()

    def add(self, name: str, start: Callable, log: Path | None = None) -> Supervised:
        """Start a process with ``start()`` and keep it running; its :class:`Supervised`."""
        child = Supervised(name=name, start=start, log=log)
        with self._lock:
            child.process, child.started = start(), self.clock()
            self.children.append(child)
        return child

    def check(self) -> None:
        """One look at every process: a death is said and its restart scheduled (or given up); a restart that is
        due is made."""
        with self._lock:
            for child in self.children:
                if child.gave_up:
                    continue
                if child.restart_at is None:
                    returncode = child.process.poll()
                    if returncode is not None:
                        self._died(child, how_it_ended(returncode))
                elif self.clock() >= child.restart_at:
                    self._restart(child)

    def _died(self, child: Supervised, how: str) -> None:
        now = self.clock()
        lived = now - child.started
        if child.process is not None:
            self.after_death(child.process)
        child.quick_deaths = child.quick_deaths + 1 if lived < self.policy.steady_after else 0
        if child.quick_deaths >= self.policy.give_up_after:
            child.gave_up = True
            where = f" (its log: {child.log})" if child.log else ""
            self.say(f"mvlab: {child.name} {how} after {_seconds(lived)}: {child.quick_deaths} deaths in a row, "
                     f"each within {_seconds(self.policy.steady_after)} of its start; giving up on it{where}.")
            return
        wait = self.policy.delay(child.quick_deaths)
        child.restart_at = now + wait
        self.say(f"mvlab: {child.name} {how} after {_seconds(lived)}; starting it again in {wait:g} s.")

    def _restart(self, child: Supervised) -> None:
        try:
            child.process = child.start()
        except OSError as exc:  # the program vanished, no memory for a new process...: a death like another
            child.process, child.restart_at, child.started = None, None, self.clock()
            self._died(child, f"could not be started ({exc})")
            return
        child.started, child.restart_at = self.clock(), None
        child.restarts += 1
        self.say(f"mvlab: {child.name} started again (pid {child.process.pid}).")

    def run(self, stop: threading.Event, every: float = 0.25) -> None:
        """:meth:`check` every ``every`` seconds until ``stop`` is set (a thread's loop). An error of one check
        is said and the next check comes all the same: a supervisor that stopped would stop every restart."""
        while not stop.wait(every):
            try:
                self.check()
            except Exception as exc:  # noqa: BLE001 - said, and the supervision goes on
                self.say(f"mvlab: the supervisor's check failed ({type(exc).__name__}: {exc}); trying again.")

    def stop_all(self) -> None:
        """SIGTERM to every running process, then wait for each (SIGKILL after 10 s); none is started again."""
        with self._lock:
            procs = [child.process for child in self.children]
            for child in self.children:
                child.gave_up = True
        _stop_all(procs)


class Served:
    """What :func:`serving` started: the address to open, the Streamlit processes (their loopback URLs, and
    their :class:`Supervised` entries, whose ``process`` is the running ``Popen``), nginx's, and the engine's
    scheduler address."""

    def __init__(self, url: str, scheduler: str, folder: Path, supervisor: Supervisor):
        self.url, self.scheduler, self.folder, self.supervisor = url, scheduler, folder, supervisor
        self.backends: list[str] = []
        self.servers: list[Supervised] = []
        self.nginx: Supervised | None = None

    @property
    def processes(self) -> list:
        """The Streamlit processes' ``Popen`` now (a restarted one replaces the dead one)."""
        return [s.process for s in self.servers]

    @property
    def proxy(self):
        """nginx's ``Popen`` now, or None before it started."""
        return self.nginx.process if self.nginx else None

    def pids(self) -> list[int]:
        """The process ids of the web servers and the proxy now (the engine's workers are not among them)."""
        return [p.pid for p in self.processes] + ([self.proxy.pid] if self.proxy else [])

    def failure(self) -> str | None:
        """A sentence saying why students can no longer be served (the supervisor gave up on nginx, or on every
        server process), or None while they can (a process restarting is not a failure: nginx sends its students
        to the others)."""
        if self.nginx is not None and self.nginx.gave_up:
            return f"nginx kept dying and was given up: {_tail(self.folder / 'error.log')}"
        if self.servers and all(s.gave_up for s in self.servers):
            return (f"every server process kept dying and was given up (their logs: "
                    f"{', '.join(str(s.log) for s in self.servers)})")
        return None


def _engine(stack: ExitStack) -> tuple[str, dict]:
    """The scheduler address every process sends its runs to, and the environment they need to reach it:
    ``MVLAB_SCHEDULER``'s (nothing more), or a cluster started here (closed with ``stack``), which speaks TLS with
    certificates made for this run (:func:`mvlab.engine.certificates.private_security`): Dask's own settings point the
    server processes (this account's, as the certificates' folder) at them, and no other process can connect."""
    from mvlab.engine.cluster import EngineConfig, connect

    config = EngineConfig.from_env()
    if config.scheduler is not None:
        return config.scheduler, {}
    client, cluster = connect(config)
    stack.callback(cluster.close)
    stack.callback(client.close)
    security = cluster.security
    tls = {"DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True",
           "DASK_DISTRIBUTED__COMM__TLS__CA_FILE": security.tls_ca_file,
           "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": security.tls_client_cert,
           "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": security.tls_client_key}
    return cluster.scheduler_address, tls


def _starter(command: list[str], log: Path, **popen) -> Callable[[], subprocess.Popen]:
    """A function that starts ``command`` in a session of its own, its output appended to ``log``."""

    def start() -> subprocess.Popen:
        with log.open("a") as out:  # the child keeps its own copy of the file
            out.write(f"--- started by mvlab serve at {time.strftime('%Y-%m-%d %H:%M:%S')} ---\n")
            out.flush()
            return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **popen)

    return start


def _folder(stack: ExitStack) -> Path:
    """A temporary folder for the logs and nginx's files, removed with ``stack``."""
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mvlab-serve-")))
    folder.chmod(0o755)  # nginx's workers (another user when started as root) reach their temp folders
    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / kind).mkdir(mode=0o777)
        (folder / kind).chmod(0o777)
    return folder


def _child_env(scheduler: tuple[str, dict], store: str | None, env: dict | None) -> dict:
    child_env = {**os.environ, **(env or {}), **scheduler[1], "MVLAB_SCHEDULER": scheduler[0]}
    if store is not None:
        child_env["MVLAB_STORE"] = absolute_location(store)
    if "MVLAB_THREADS_PER_RUN" not in child_env:  # as the embedded engine shares the cores between its workers
        workers = int(child_env.get("MVLAB_WORKERS") or os.cpu_count() or 1)
        child_env["MVLAB_THREADS_PER_RUN"] = str(max(1, (os.cpu_count() or 1) // max(1, workers)))
    return child_env


def _connection_budget(processes: int, store: str | None, env: dict | None) -> str | None:
    """The store's connection budget, checked before anything starts: on PostgreSQL, ``processes`` × the connections
    one process may open against the server's ``max_connections`` (``ValueError`` in words, saying what to do, when
    they do not fit: :func:`mvlab.store.connections.check_connection_budget`); the sum in words, or None for a SQLite
    file. ``MVLAB_STORE_CONNECTIONS`` is read from the environment the server processes will have."""
    environment = {**os.environ, **(env or {})}
    location = store if store is not None else environment.get("MVLAB_STORE") or default_location()
    return check_connection_budget(database_url(location), processes, environ=environment)


@contextmanager
def serving(processes: int, port: int | None = None, address: str = "127.0.0.1", store: str | None = None,
            streamlit_args=(), env: dict | None = None, say=print, policy: RestartPolicy | None = None):
    """Start ``processes`` Streamlit servers of the dashboard on one engine and one store, behind nginx on
    ``address:port`` (a free port when None); yield :class:`Served`; stop everything on leaving.

    While it runs, a :class:`Supervisor` thread starts again (on the same port, after ``policy``'s back-off) a
    server process or nginx that dies, and says so with ``say``; :meth:`Served.failure` tells when it gave up on
    nginx or on every server process. ``store`` sets ``MVLAB_STORE`` for them; ``streamlit_args`` go to every
    ``streamlit run``; ``env`` adds environment variables. ``ValueError`` when nginx is missing or ``processes``
    < 1; ``RuntimeError`` when a process does not start the first time (its log's end says why)."""
    if int(processes) < 1:
        raise ValueError(f"--processes must be at least 1; got {processes!r}.")
    trusted_proxies({**os.environ, **(env or {})}.get("MVLAB_TRUSTED_PROXIES", TRUSTED_PROXIES_DEFAULT))  # in words
    budget = _connection_budget(int(processes), store, env)
    nginx = _nginx()
    port = free_port(address) if port is None else int(port)
    with ExitStack() as stack:
        folder = _folder(stack)
        scheduler = _engine(stack)
        child_env = {**_child_env(scheduler, store, env), "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(16)}
        supervisor = Supervisor(policy, say=say)
        stack.callback(supervisor.stop_all)
        served = Served(url=f"http://{'127.0.0.1' if address in ('0.0.0.0', '') else address}:{port}",
                        scheduler=scheduler[0], folder=folder, supervisor=supervisor)
        for i in range(int(processes)):
            backend, log = free_port(), folder / f"server-{i + 1}.log"
            command = [sys.executable, "-m", "mvlab.ui.launch", "run", str(ROOT / "app.py"), "--server.port",
                       str(backend), "--server.address", "127.0.0.1", "--server.headless", "true",
                       "--browser.gatherUsageStats", "false", *streamlit_args]
            served.servers.append(supervisor.add(f"server process {i + 1} (port {backend})",
                                                 _starter(command, log, cwd=ROOT, env=child_env), log))
            served.backends.append(f"http://127.0.0.1:{backend}")
        for i, (url, child) in enumerate(zip(served.backends, served.servers)):
            wait_healthy(url, child.process, f"server process {i + 1}", child.log)
        conf, log = folder / "nginx.conf", folder / "error.log"
        conf.write_text(nginx_config([int(u.rsplit(":", 1)[1]) for u in served.backends], f"{address}:{port}",
                                     folder))
        served.nginx = supervisor.add(f"nginx (port {port})", _starter(
            [nginx, "-c", str(conf), "-p", str(folder), "-e", str(log)], folder / "nginx.out"), log)
        wait_healthy(served.url, served.nginx.process, "nginx", log, timeout=30)
        stop = threading.Event()
        watcher = threading.Thread(target=supervisor.run, args=(stop,), name="mvlab-supervisor", daemon=True)
        watcher.start()
        stack.callback(watcher.join)
        stack.callback(stop.set)
        for child in served.servers + [served.nginx]:
            say(f"mvlab: {child.name}: pid {child.process.pid}, log {child.log}")
        say(f"mvlab: {processes} server process(es) behind nginx at {served.url} (engine {scheduler[0]})")
        if budget:
            say(f"mvlab: store: {budget}")
        yield served


def serve_forever(processes: int, port: int, address: str, store: str | None, streamlit_args=()) -> int:
    """``python -m mvlab serve``: :func:`serving` until Ctrl+C or SIGTERM (0), or until the supervisor gives up
    on nginx or on every server process (1). A server process that dies is started again meanwhile."""
    stop = {"now": False}  # a flag, not an Event: a handler that set an Event could wait on a lock its thread holds

    def ask_stop(*_):
        stop["now"] = True

    signal.signal(signal.SIGTERM, ask_stop)
    signal.signal(signal.SIGINT, ask_stop)

    def say(line: str) -> None:
        print(line, flush=True)

    with serving(processes, port, address, store, streamlit_args, say=say) as served:
        print(f"Students and teachers open {served.url} (Ctrl+C stops every process).", flush=True)
        while not stop["now"]:
            failure = served.failure()
            if failure is not None:
                print(f"error: {failure}; stopping the others.", file=sys.stderr, flush=True)
                return 1
            time.sleep(0.5)
        say("mvlab: asked to stop; stopping every process.")
    return 0
