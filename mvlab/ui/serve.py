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
import time
import urllib.request
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mvlab.core import resources
from mvlab.store.database import absolute_location

__all__ = ["ROOT", "nginx_config", "free_port", "wait_healthy", "Served", "serving", "serve_forever"]

ROOT = resources.root()
"""The folder of ``app.py`` and ``pages/`` (a checkout's top, or an installed wheel's copies)."""
COOKIE = "mvlab_server"
"""The proxy's cookie that keeps a browser on one process."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def nginx_config(backends: list[int], listen: str, folder: Path) -> str:
    """nginx's configuration: listen on ``listen`` (``host:port``) and spread browsers over the Streamlit
    processes on the loopback ports ``backends``, each browser kept on one (see the module docstring); its
    pid, logs and temporary files in ``folder``. Runs in the foreground (``daemon off``) as the caller."""
    if not backends:
        raise ValueError("nginx_config needs at least one backend port.")
    servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=0;" for port in backends)
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
{servers}
    }}
    server {{
        listen {listen};
        client_max_body_size 200m;
        location / {{
            proxy_pass http://mvlab;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_buffering off;
            proxy_read_timeout 1d;
            proxy_send_timeout 1d;
            add_header Set-Cookie "{COOKIE}=$mvlab_sticky; Path=/; SameSite=Lax; HttpOnly" always;
            add_header X-Mvlab-Server $upstream_addr always;  # which process answered (the tests look)
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


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Served:
    """What :func:`serving` started: the address to open, the Streamlit processes (their loopback URLs and
    ``Popen``), the proxy's, and the engine's scheduler address."""

    url: str
    backends: list[str]
    processes: list[subprocess.Popen] = field(default_factory=list)
    proxy: subprocess.Popen | None = None
    scheduler: str = ""
    folder: Path | None = None

    def pids(self) -> list[int]:
        """The process ids of the web servers and the proxy (the engine's workers are not among them)."""
        return [p.pid for p in self.processes] + ([self.proxy.pid] if self.proxy else [])

    def dead(self) -> str | None:
        """A sentence naming a process that has exited, or None while all run."""
        for url, proc in zip(self.backends, self.processes):
            if proc.poll() is not None:
                return f"the server process at {url} exited with status {proc.returncode}"
        if self.proxy is not None and self.proxy.poll() is not None:
            return f"nginx exited with status {self.proxy.returncode}: {_tail(self.folder / 'error.log')}"
        return None


def _engine(stack: ExitStack) -> str:
    """The scheduler address every process sends its runs to: ``MVLAB_SCHEDULER``'s, or a cluster started
    here (closed with ``stack``)."""
    from mvlab.engine.cluster import EngineConfig, connect

    config = EngineConfig.from_env()
    if config.scheduler is not None:
        return config.scheduler
    client, cluster = connect(config)
    stack.callback(cluster.close)
    stack.callback(client.close)
    return cluster.scheduler_address


@contextmanager
def serving(processes: int, port: int | None = None, address: str = "127.0.0.1", store: str | None = None,
            streamlit_args=(), env: dict | None = None, say=print):
    """Start ``processes`` Streamlit servers of the dashboard on one engine and one store, behind nginx on
    ``address:port`` (a free port when None); yield :class:`Served`; stop everything on leaving.

    ``store`` sets ``MVLAB_STORE`` for them; ``streamlit_args`` go to every ``streamlit run``; ``env`` adds
    environment variables. ``ValueError`` when nginx is missing or ``processes`` < 1."""
    if int(processes) < 1:
        raise ValueError(f"--processes must be at least 1; got {processes!r}.")
    nginx = _nginx()
    port = free_port(address) if port is None else int(port)
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mvlab-serve-")))
        folder.chmod(0o755)  # nginx's workers (another user when started as root) reach their temp folders
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (folder / kind).mkdir(mode=0o777)
            (folder / kind).chmod(0o777)
        scheduler = _engine(stack)
        child_env = {**os.environ, **(env or {}), "MVLAB_SCHEDULER": scheduler}
        if store is not None:
            child_env["MVLAB_STORE"] = absolute_location(store)
        if "MVLAB_THREADS_PER_RUN" not in child_env:  # as the embedded engine shares the cores between its workers
            workers = int(child_env.get("MVLAB_WORKERS") or os.cpu_count() or 1)
            child_env["MVLAB_THREADS_PER_RUN"] = str(max(1, (os.cpu_count() or 1) // max(1, workers)))
        secret = secrets.token_hex(16)
        served = Served(url=f"http://{'127.0.0.1' if address in ('0.0.0.0', '') else address}:{port}", backends=[],
                        scheduler=scheduler, folder=folder)
        for i in range(int(processes)):
            backend = free_port()
            log = folder / f"server-{i + 1}.log"
            proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(backend),
                 "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats",
                 "false", *streamlit_args],
                cwd=ROOT, env={**child_env, "STREAMLIT_SERVER_COOKIE_SECRET": secret}, stdout=log.open("w"),
                stderr=subprocess.STDOUT, start_new_session=True)
            stack.callback(_stop, proc)
            served.processes.append(proc)
            served.backends.append(f"http://127.0.0.1:{backend}")
        for i, (url, proc) in enumerate(zip(served.backends, served.processes)):
            wait_healthy(url, proc, f"server process {i + 1}", folder / f"server-{i + 1}.log")
        conf = folder / "nginx.conf"
        conf.write_text(nginx_config([int(u.rsplit(":", 1)[1]) for u in served.backends], f"{address}:{port}",
                                     folder))
        log = folder / "error.log"
        served.proxy = subprocess.Popen([nginx, "-c", str(conf), "-p", str(folder), "-e", str(log)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        stack.callback(_stop, served.proxy)
        wait_healthy(served.url, served.proxy, "nginx", log, timeout=30)
        say(f"mvlab: {processes} server process(es) behind nginx at {served.url} (engine {scheduler})")
        yield served


def serve_forever(processes: int, port: int, address: str, store: str | None, streamlit_args=()) -> int:
    """``python -m mvlab serve``: :func:`serving` until Ctrl+C or SIGTERM (0), or until a process dies (1)."""
    stop = {"now": False}

    def ask_stop(*_):
        stop["now"] = True

    signal.signal(signal.SIGTERM, ask_stop)
    signal.signal(signal.SIGINT, ask_stop)
    with serving(processes, port, address, store, streamlit_args) as served:
        print(f"Students and teachers open {served.url} (Ctrl+C stops every process).", flush=True)
        while not stop["now"]:
            dead = served.dead()
            if dead is not None:
                print(f"error: {dead}; stopping the others.", file=sys.stderr)
                return 1
            time.sleep(0.5)
    return 0
