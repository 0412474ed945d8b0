"""A real PostgreSQL server for the tests: Debian's ``postgresql`` package (``apt-get install postgresql``; .ci/run
does it), a throw-away cluster of its own (``initdb`` into a temporary folder, ``pg_ctl start`` on a free port of
127.0.0.1), and a fresh database per test.

PostgreSQL refuses to run as root: under root the cluster belongs to the ``postgres`` user the package creates."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path

from mvlab.deploy.serve import free_port

__all__ = ["binaries", "postgres_server", "postgres_cluster", "Cluster", "new_database"]


def binaries() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl`` (Debian keeps them in /usr/lib/postgresql/<version>/bin), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


def _as_owner(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class Cluster:
    """A running throw-away PostgreSQL cluster: its ``url``, and ``stop()`` / ``start()`` to take it away and bring it
    back on the same port and data (a store's outage, for real)."""

    def __init__(self, bin_dir: Path, root: Path, port: int):
        self.bin_dir, self.root, self.port = bin_dir, root, port
        self.data, self.log = root / "data", root / "server.log"
        self.url = f"postgresql://postgres@127.0.0.1:{port}/postgres"

    def start(self) -> None:
        options = f"-p {self.port} -h 127.0.0.1 -k {self.root} -c fsync=off -c max_connections=300"
        started = subprocess.run(_as_owner([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
                                            "-o", options, "-w", "-t", "60", "start"]), capture_output=True, text=True)
        if started.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not start: {started.stderr}\n"
                               f"{self.log.read_text() if self.log.exists() else ''}")

    def stop(self, mode: str = "immediate") -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run(_as_owner([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", mode, "stop"]),
                           capture_output=True)


@contextmanager
def postgres_cluster():
    """Start a PostgreSQL cluster of its own (user ``postgres``, no password: ``trust`` on 127.0.0.1 only); yields
    its :class:`Cluster`; stops it and deletes its files at the end."""
    bin_dir = binaries()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql).")
    root = Path(tempfile.mkdtemp(prefix="mvlab-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    cluster = Cluster(bin_dir, root, free_port())
    try:
        subprocess.run(_as_owner([str(bin_dir / "initdb"), "-D", str(cluster.data), "-U", "postgres", "-A", "trust",
                                  "-E", "UTF8", "--no-sync"]), check=True, capture_output=True)
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def postgres_server():
    """Start a PostgreSQL cluster of its own; yields the URL of its ``postgres`` database; stops it and deletes its
    files at the end."""
    with postgres_cluster() as cluster:
        yield cluster.url


def new_database(server_url: str) -> str:
    """A new, empty database on the server; its URL."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server_url.rsplit("/", 1)[0] + f"/{name}"
