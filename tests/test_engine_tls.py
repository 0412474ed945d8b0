"""The job engine across machines, safely (issue #46): a scheduler and a worker started as separate processes over
tls:// with the certificates of `mvlab certificates`, exactly as docs/guide/deploy.md starts them; plain tcp:// to
another machine refused; workers whose versions differ named plainly."""

import json
import os
import socket
import ssl
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from browser import stop_processes
from mvlab.cli import main
from mvlab.deploy.serve import free_port
from mvlab.engine.cluster import check_versions, scheduler_security, version_differences

DASK = str(Path(sys.executable).parent / "dask")
GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guide" / "deploy.md"


def guide_command(start: str, port: int) -> list[str]:
    """The deployment guide's command line that begins with ``start`` (``dask scheduler``, ``dask worker``), on
    127.0.0.1, a free port and 2GB instead of the guide's every interface, 8786 and 8GB."""
    (line,) = [line for line in GUIDE.read_text().splitlines() if line.startswith(start)]
    line = (line.replace("0.0.0.0", "127.0.0.1").replace("SCHEDULER-HOST", "127.0.0.1")
            .replace("8786", str(port)).replace("8GB", "2GB"))
    return [DASK, *line.split()[1:]]


def tls_settings(folder: Path) -> dict:
    """The NAME=value lines of the settings file mvlab certificates wrote."""
    lines = (folder / "engine-tls.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def wait_listening(port: int, proc: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    """Return once something accepts connections on 127.0.0.1:``port``; fail with ``proc``'s log if it exits or
    ``timeout`` seconds pass first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the scheduler did not listen on {port}: {log.read_text()[-2000:]}")
            time.sleep(0.2)


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    """`mvlab certificates`, then `dask scheduler` and `dask worker` as two processes over TLS: the deployment
    guide's own command lines (docs/guide/deploy.md)."""
    folder = tmp_path_factory.mktemp("engine-tls")
    assert main(["certificates", str(folder / "certs")]) == 0
    env = {**os.environ, **tls_settings(folder / "certs")}
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    log = folder / "scheduler.log"
    with log.open("w") as out:
        scheduler = subprocess.Popen(guide_command("dask scheduler", port), env=env, stdout=subprocess.DEVNULL,
                                     stderr=out)
    worker = subprocess.Popen(guide_command("dask worker", port), env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, scheduler, log)
        yield address, env, folder, log
    finally:
        stop_processes(worker, scheduler, wait=20)


CLIENT = textwrap.dedent('''
    import sys, time
    from mvlab.engine import Engine, EngineConfig, Request
    from mvlab.engine.relay import StoreRelay
    from mvlab.store import ResultsStore, process_identity

    def short_protocol(store, progress):
        from mvlab.datasets.synthetic import make_multiview_classification
        from mvlab.experiments.families import run_experiment
        from mvlab.experiments.protocols import RepeatedHoldout

        ds = make_multiview_classification(n_samples=60, n_views=2, random_state=0)
        return run_experiment(ds, "dissimilarity", {"methods": ["average"], "n_estimators": 2}, RepeatedHoldout(2),
                              store=store, kind="benchmark:tls", progress=progress).run_id

    store = ResultsStore(sys.argv[1])
    engine = Engine(EngineConfig.from_env())
    engine.client.wait_for_workers(1, timeout=60)  # the worker process may still be starting
    status = engine.server_status()
    print("workers", len(status.workers), status.address)
    job = engine.submit(Request("benchmark", "tls", short_protocol, StoreRelay(store.location)), "teacher")
    assert engine.wait(job, timeout=120), "the run did not end"
    print("state", engine.status(job).state, engine.status(job).error)
    run = store.runs().set_index("run_id").loc[engine.outcome(job).result]
    print("stored", run["status"], len(store.results(run.name)), run["owner"] == process_identity())
    engine.close()
''')


def test_a_server_runs_a_benchmark_on_a_tls_scheduler_and_records_it_itself(tls_cluster, tmp_path):
    address, env, _, _ = tls_cluster
    script = tmp_path / "client.py"
    script.write_text(CLIENT)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "server.sqlite")], capture_output=True,
                          text=True, timeout=300, env={**env, "MVLAB_SCHEDULER": address})
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["workers"] == f"1 {address}"
    assert lines["state"] == "finished None"
    assert lines["stored"] == "finished 2 True"  # both splits, recorded by the asking process


PLAIN_PROBE = textwrap.dedent('''
    import json, sys
    from distributed import Client
    from mvlab.engine.cluster import EngineConfig, connect

    def with_dask(address):
        """Dask's own client in plain text, no certificates: the exception it meets, by type and words."""
        try:
            Client(address, timeout="3s", set_as_default=False).close()
        except Exception as exc:
            return [type(exc).__name__, str(exc)]
        return ["connected", ""]

    def with_mvlab(address):
        """mvlab's engine asked for the same: its words."""
        try:
            client, _ = connect(EngineConfig(scheduler=address))
        except ValueError as exc:
            return str(exc)
        client.close()
        return "connected"

    tls_port, idle_port = sys.argv[1:]
    print(json.dumps({
        "dask to the TLS port": with_dask(f"tcp://127.0.0.1:{tls_port}"),
        "dask where nothing listens": with_dask(f"tcp://127.0.0.1:{idle_port}"),
        "mvlab to this machine": with_mvlab(f"tcp://127.0.0.1:{tls_port}"),
        "mvlab to another machine": with_mvlab(f"tcp://192.0.2.1:{tls_port}"),
        "mvlab ws to another machine": with_mvlab(f"ws://192.0.2.1:{tls_port}"),
    }))
''')


def tls_probe(port: int, certs: Path | None, folder: Path):
    """A TLS 1.3 handshake with the scheduler, trusting the engine's authority, presenting ``certs``'s certificate
    (None: none), then one read: ``("answered", bytes, the scheduler's certificate)`` or ``("refused", reason)``."""
    context = ssl.create_default_context(cafile=str(folder / "ca.pem"))
    context.check_hostname = False  # Dask's certificates name no host; the authority's signature is the check
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    if certs is not None:
        context.load_cert_chain(str(certs / "cert.pem"), str(certs / "key.pem"))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        try:
            with context.wrap_socket(raw) as tls:
                peer = dict(field for part in tls.getpeercert()["subject"] for field in part)
                return "answered", tls.recv(16), peer["commonName"]
        except ssl.SSLError as exc:
            return "refused", exc.reason


def handshake_failures(log: Path, reason: str, at_least: int, timeout: float = 10.0) -> int:
    """How many times the scheduler's log says a TLS handshake failed for ``reason``, once there are ``at_least``
    (or ``timeout`` seconds have passed)."""
    deadline = time.monotonic() + timeout
    while True:
        count = sum(1 for line in log.read_text().splitlines()
                    if "TLS handshake failed" in line and reason in line)
        if count >= at_least or time.monotonic() > deadline:
            return count
        time.sleep(0.2)


def test_a_client_without_the_certificates_cannot_use_the_scheduler(tls_cluster, tmp_path):
    """Refused by TLS, not merely unanswered: the port listens (a port where nothing does refuses the connection
    itself); Dask's plain client meets a reset connection there (``CommClosedError``) where it meets a connect
    timeout on the idle port, and the scheduler logs a failed TLS handshake for it (``WRONG_VERSION_NUMBER``: plain
    bytes where a TLS record was due); a TLS client without a certificate is refused with TLS's own alert
    (``TLSV13_ALERT_CERTIFICATE_REQUIRED``) while the same client with the engine's certificate is answered; and
    mvlab's own guard refuses plain ``tcp://`` and ``ws://`` to another machine before connecting, and says in
    words that plain text to this TLS port does not reach the scheduler.

    Fails when the scheduler speaks plain text (tried: the guide's scheduler started with ``--protocol tcp`` and
    ``DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION=False``: Dask's plain client connected), when the probe asks the
    wrong port (tried: Dask's plain client sent to the idle port, which the old probe called refused too: it met
    a connect timeout, not a reset) and when mvlab's guard is gone (tried: ``connect`` without
    :func:`~mvlab.engine.cluster.checked_scheduler`: 192.0.2.1 was tried for 10 s and said unreachable)."""
    address, _, folder, log = tls_cluster
    port = int(address.rsplit(":", 1)[1])
    idle = free_port()
    socket.create_connection(("127.0.0.1", port), timeout=5).close()  # the TLS port listens
    with pytest.raises(ConnectionRefusedError):  # and this one does not
        socket.create_connection(("127.0.0.1", idle), timeout=5).close()

    plain_before = handshake_failures(log, "WRONG_VERSION_NUMBER", 0, timeout=0)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}  # no certificates, no TLS settings
    script = tmp_path / "plain_probe.py"
    script.write_text(PLAIN_PROBE)
    done = subprocess.run([sys.executable, str(script), str(port), str(idle)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    kind, words = seen["dask to the TLS port"]
    assert kind == "CommClosedError" and "Connection reset by peer" in words, seen
    kind, words = seen["dask where nothing listens"]
    assert kind == "OSError" and "Timed out trying to connect" in words, seen
    assert seen["mvlab to this machine"].startswith(f"Cannot reach the Dask scheduler at MVLAB_SCHEDULER=tcp://"
                                                    f"127.0.0.1:{port}"), seen
    assert "plain tcp:// to another machine (192.0.2.1)" in seen["mvlab to another machine"], seen
    assert "plain ws:// to another machine (192.0.2.1)" in seen["mvlab ws to another machine"], seen
    # both plain clients (Dask's and mvlab's) reached the port and were refused by its TLS, said by the scheduler
    assert handshake_failures(log, "WRONG_VERSION_NUMBER", plain_before + 2) >= plain_before + 2, log.read_text()

    certless_before = handshake_failures(log, "PEER_DID_NOT_RETURN_A_CERTIFICATE", 0, timeout=0)
    assert tls_probe(port, None, folder / "certs") == ("refused", "TLSV13_ALERT_CERTIFICATE_REQUIRED")
    assert handshake_failures(log, "PEER_DID_NOT_RETURN_A_CERTIFICATE", certless_before + 1) == certless_before + 1
    answered, first_bytes, name = tls_probe(port, folder / "certs", folder / "certs")
    assert (answered, name) == ("answered", "mvlab engine") and first_bytes  # the scheduler speaks, over TLS only


def test_tls_without_certificates_and_plain_tcp_to_another_machine_are_refused_in_words():
    import dask

    with dask.config.set({"distributed.comm.tls.ca-file": None, "distributed.comm.tls.client.cert": None}):
        with pytest.raises(ValueError, match="needs the engine's certificates.*TLS__CA_FILE"):
            scheduler_security("tls://10.0.0.5:8786")
    with pytest.raises(ValueError, match="plain tcp:// to another machine.*MVLAB_ALLOW_PLAIN_TCP"):
        scheduler_security("tcp://10.0.0.5:8786", {})
    with pytest.raises(ValueError, match="plain tcp://"):
        scheduler_security("10.0.0.5:8786", {})  # Dask's default scheme
    assert scheduler_security("tcp://127.0.0.1:8786", {}) is None
    assert scheduler_security("tcp://10.0.0.5:8786", {"MVLAB_ALLOW_PLAIN_TCP": "1"}) is None


class FakeClient:
    """A client whose workers answer with ``versions`` ({address: {package: version}})."""

    def __init__(self, versions, dask_ok=True):
        self.versions, self.dask_ok = versions, dask_ok

    def get_versions(self, check=False):
        if check and not self.dask_ok:
            raise ValueError("Mismatched versions found: msgpack")

    def run(self, fn, *args, on_error="raise"):
        name = args[0] if args else "python"
        return {a: v.get(name) or ModuleNotFoundError(name) for a, v in self.versions.items()}


def test_workers_whose_mvlab_or_libraries_differ_are_named_with_their_versions():
    from mvlab.store import package_versions

    here = package_versions()
    same = {"tls://10.0.0.5:1": dict(here)}
    check_versions(FakeClient(same))
    older = {**here, "mvlab": "0.1.0", "scikit-learn": "1.8.0"}
    without = {k: v for k, v in here.items() if k != "mvlab"}
    with pytest.raises(ValueError) as err:
        workers = {"tls://10.0.0.5:1": older, "tls://10.0.0.6:1": without, "tls://10.0.0.7:1": dict(here)}
        check_versions(FakeClient(workers))
    message = str(err.value)
    assert f"tls://10.0.0.5:1 has mvlab 0.1.0 (here {here['mvlab']})" in message
    assert f"scikit-learn 1.8.0 (here {here['scikit-learn']})" in message
    assert "tls://10.0.0.6:1 has mvlab not installed" in message and "requirements.lock" in message
    assert "10.0.0.7" not in message
    assert version_differences(here, same) == []
    with pytest.raises(ValueError, match="other versions of Dask's packages"):
        check_versions(FakeClient(same, dask_ok=False))


def test_certificates_are_never_overwritten(tmp_path):
    assert main(["certificates", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ca-key.pem", "ca.pem", "cert.pem", "engine-tls.env",
                                                         "key.pem"]
    assert oct((tmp_path / "key.pem").stat().st_mode & 0o777) == "0o600"
    assert main(["certificates", str(tmp_path)]) == 2  # "already holds": the machines using them keep talking


WSS_CLIENT = textwrap.dedent('''
    from mvlab.engine.cluster import EngineConfig, connect

    if __name__ == "__main__":
        client, _ = connect(EngineConfig.from_env())
        client.wait_for_workers(1, timeout=60)
        print(client.scheduler.address, client.submit(sum, [40, 2]).result())
        client.close()
''')


def test_wss_with_the_same_certificates_reaches_a_scheduler_as_tls_does(tls_cluster, tmp_path):
    """``wss://`` is the allow-list's other encrypted transport: a scheduler and a worker over it, with the
    certificates and settings file of ``mvlab certificates``, run what mvlab's engine sends. Fails when the
    allow-list drops ``wss://`` (tried: ``_ENCRYPTED = ("tls",)``: the client was refused in words). Dask's client
    takes its TLS settings from the settings file even when given no ``Security``, so this test cannot tell the
    security :func:`~mvlab.engine.cluster.checked_scheduler` returns from Dask's own (tried: none returned for
    ``wss://``: still connected)."""
    _, env, folder, _ = tls_cluster
    port = free_port()
    log = tmp_path / "wss-scheduler.log"
    with log.open("w") as out:
        scheduler = subprocess.Popen([DASK, "scheduler", "--protocol", "wss", "--host", "127.0.0.1", "--port",
                                      str(port), "--no-dashboard"], env=env, stdout=subprocess.DEVNULL, stderr=out)
    worker = subprocess.Popen([DASK, "worker", f"wss://127.0.0.1:{port}", "--nthreads", "1", "--memory-limit", "2GB",
                               "--no-dashboard"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, scheduler, log)
        script = tmp_path / "wss_client.py"
        script.write_text(WSS_CLIENT)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180,
                              env={**env, "MVLAB_SCHEDULER": f"wss://127.0.0.1:{port}"})
        assert done.returncode == 0, done.stderr[-3000:]
        assert done.stdout.split() == [f"wss://127.0.0.1:{port}", "42"]
    finally:
        stop_processes(worker, scheduler, wait=20)
