"""The job engine across machines, safely (issue #46): a scheduler and a worker started as separate processes over
tls:// with the certificates of `mvlab certificates`, exactly as docs/guide/deploy.md starts them; plain tcp:// to
another machine refused; workers whose versions differ named plainly."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mvlab.cli import main
from mvlab.engine.cluster import check_versions, scheduler_security, version_differences
from mvlab.ui.serve import free_port

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


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    """`mvlab certificates`, then `dask scheduler` and `dask worker` as two processes over TLS: the deployment
    guide's own command lines (docs/guide/deploy.md)."""
    folder = tmp_path_factory.mktemp("engine-tls")
    assert main(["certificates", str(folder / "certs")]) == 0
    env = {**os.environ, **tls_settings(folder / "certs")}
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    scheduler = subprocess.Popen(guide_command("dask scheduler", port), env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
    worker = subprocess.Popen(guide_command("dask worker", port), env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        yield address, env, folder
    finally:
        for proc in (worker, scheduler):
            proc.terminate()
        for proc in (worker, scheduler):
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


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
    address, env, _ = tls_cluster
    script = tmp_path / "client.py"
    script.write_text(CLIENT)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "server.sqlite")], capture_output=True,
                          text=True, timeout=300, env={**env, "MVLAB_SCHEDULER": address})
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["workers"] == f"1 {address}"
    assert lines["state"] == "finished None"
    assert lines["stored"] == "finished 2 True"  # both splits, recorded by the asking process


def test_a_client_without_the_certificates_cannot_use_the_scheduler(tls_cluster):
    address, _, _ = tls_cluster
    plain = address.replace("tls://", "tcp://")
    probe = ("from distributed import Client\n"
             f"try:\n    Client({plain!r}, timeout='5s').close()\nexcept Exception as e:\n    print('refused')\n"
             "else:\n    print('connected')")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    started = time.time()
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env)
    assert done.stdout.strip() == "refused", (done.stdout, done.stderr[-2000:], time.time() - started)


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
