"""How the job engine reaches its scheduler and what its worker processes are given (issue #53, items 6 and 8):
plain text only to this machine, decided on the resolved address by an allow-list; on/off switches parsed strictly;
the results store's address and password never in the environment of the embedded workers or multiprocessing's
helpers. The TLS scheduler itself, started as the deployment guide starts it: tests/test_engine_tls.py."""

import json
import os
import socket
import subprocess
import sys
import textwrap

import dask
import pytest

from mvlab.engine import cluster as engine_cluster
from mvlab.engine.cluster import EngineConfig, checked_scheduler, connect, env_switch, store_variables

ATTACKER = "203.0.113.7"  # TEST-NET-3 (RFC 5737): another machine, never this one
FAKE_NAMES = {  # what a hostile or careless DNS answers for names that only look like this machine
    "127.0.0.1.evil.example": [ATTACKER],
    "localhost.attacker.net": ["203.0.113.8"],
    "mixed.example": ["127.0.0.1", "203.0.113.9"],  # one loopback answer among others
    "intranet.example": ["127.0.0.1"],  # a name of this machine, resolved
    "scheduler.example": [ATTACKER],
}


@pytest.fixture
def resolver(monkeypatch):
    """``socket.getaddrinfo`` answering FAKE_NAMES, and the system's for numeric addresses and ``localhost`` (no
    other name goes to a real DNS)."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in FAKE_NAMES:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in FAKE_NAMES[host]]
        flags = 0 if host == "localhost" else socket.AI_NUMERICHOST
        try:
            return real(host, port, type=socket.SOCK_STREAM, flags=flags)
        except socket.gaierror:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


# ----------------------------------------------------------------------------------------------- on/off switches
@pytest.mark.parametrize("value, on", [
    (None, False), ("", False), ("  ", False), ("0", False), ("false", False), ("False", False), ("no", False),
    ("OFF", False), ("1", True), ("true", True), ("TRUE", True), ("yes", True), (" on ", True)])
def test_on_off_switches_are_parsed_strictly(value, on):
    """Fails when ``0``, ``false`` or ``no`` count as on (tried: the old ``bool(env.get(...))`` said ``false`` and
    ``0`` were on) or when an on-word is missed."""
    env = {} if value is None else {"MVLAB_ALLOW_PLAIN_TCP": value}
    assert env_switch("MVLAB_ALLOW_PLAIN_TCP", env) is on


@pytest.mark.parametrize("value", ["2", "maybe", "ture", "y", "enable", "1 # yes"])
def test_a_switch_that_is_neither_on_nor_off_is_an_error_naming_it(value):
    """Fails when an unknown value silently means on or off (tried: returning False for anything unknown)."""
    with pytest.raises(ValueError, match=r"MVLAB_ALLOW_PLAIN_TCP=.* is neither on nor off: write 1, true"):
        env_switch("MVLAB_ALLOW_PLAIN_TCP", {"MVLAB_ALLOW_PLAIN_TCP": value})
    with pytest.raises(ValueError, match="MVLAB_ALLOW_PLAIN_TCP"):  # said when the server reads its settings
        EngineConfig.from_env({"MVLAB_ALLOW_PLAIN_TCP": value})


def test_the_dashboard_setting_takes_off_and_on_words_and_refuses_what_is_not_an_address():
    """Fails when ``false`` or ``0`` is taken as an address to serve on (tried: the old parse kept ``false``)."""
    for off in ("", "off", "0", "false", "no", "None"):
        assert EngineConfig.from_env({"MVLAB_DASHBOARD": off}).dashboard is None
    for on in ("on", "1", "true", "yes"):
        assert EngineConfig.from_env({"MVLAB_DASHBOARD": on}).dashboard == "127.0.0.1:8787"
    assert EngineConfig.from_env({"MVLAB_DASHBOARD": ":8790"}).dashboard == ":8790"
    assert EngineConfig.from_env({"MVLAB_DASHBOARD": "0.0.0.0:8787"}).dashboard == "0.0.0.0:8787"
    for bad in ("maybe", "127.0.0.1", "127.0.0.1:port", "host:99999", "a b:1"):
        with pytest.raises(ValueError, match="MVLAB_DASHBOARD=.* is not valid: give host:port"):
            EngineConfig.from_env({"MVLAB_DASHBOARD": bad})


# ------------------------------------------------------------------------------------------- the allow-list
@pytest.mark.parametrize("address, connects_to", [
    ("tcp://127.0.0.1:8786", "tcp://127.0.0.1:8786"), ("tcp://127.0.0.2:8786", "tcp://127.0.0.2:8786"),
    ("127.0.0.1:8786", "tcp://127.0.0.1:8786"), ("tcp://localhost:8786", "tcp://127.0.0.1:8786"),
    ("tcp://[::1]:8786", "tcp://[::1]:8786"), ("ws://127.0.0.1:8786", "ws://127.0.0.1:8786"),
    ("tcp://[::ffff:127.0.0.1]:8786", "tcp://[::ffff:127.0.0.1]:8786"),
    ("tcp://intranet.example:8786", "tcp://127.0.0.1:8786")])
def test_plain_text_to_this_machine_connects_to_the_loopback_address_it_checked(resolver, address, connects_to):
    """Fails when a loopback address is refused, or when the name rather than the checked address is connected to
    (tried: returning ``address`` unchanged; a name could then resolve elsewhere between check and connection)."""
    assert checked_scheduler(address, {}) == (connects_to, None)


@pytest.mark.parametrize("address, words", [
    (f"ws://{ATTACKER}:8786", "plain ws:// to another machine"),  # the tester's case: ws:// ran code
    (f"tcp://{ATTACKER}:8786", "plain tcp:// to another machine .*MVLAB_ALLOW_PLAIN_TCP"),
    (f"{ATTACKER}:8786", "plain tcp:// to another machine"),  # Dask's default scheme
    ("tcp://127.0.0.1.evil.example:8786", f"127.0.0.1.evil.example resolves to {ATTACKER}"),
    ("tcp://localhost.attacker.net:8786", "localhost.attacker.net resolves to 203.0.113.8"),
    ("ws://localhost.attacker.net:8786", "plain ws:// to another machine"),
    ("tcp://mixed.example:8786", "mixed.example resolves to 203.0.113.9"),  # every address must be loopback
    (f"tcp://[::ffff:{ATTACKER}]:8786", "plain tcp:// to another machine"),
    ("tcp://10.0.0.5:8786", "anyone who reaches that port runs code on the workers. Use tls:// .or wss://."),
])
def test_plain_text_to_another_machine_is_refused_whatever_the_name_or_transport(resolver, address, words):
    """Fails when the decision is made on the text of the address (tried: the old ``startswith(("127.",
    "localhost"))`` guard let 127.0.0.1.evil.example and localhost.attacker.net through, and ws:// past it
    altogether), or on any resolved address rather than every one (tried: ``any``, mixed.example got through)."""
    with pytest.raises(ValueError, match=f"MVLAB_SCHEDULER=.*{words}"):
        checked_scheduler(address, {})


def test_the_switch_allows_plain_tcp_to_another_machine_but_never_plain_ws(resolver):
    """Fails when the switch is read loosely (tried: ``"0"`` and ``"false"`` allowed plain tcp://) or opens ws://
    (tried: testing ``scheme in ("tcp", "ws")``)."""
    address = f"tcp://{ATTACKER}:8786"
    for on in ("1", "true", "yes", "on"):
        assert checked_scheduler(address, {"MVLAB_ALLOW_PLAIN_TCP": on}) == (address, None)
    for off in ("0", "false", "no", "off", ""):
        with pytest.raises(ValueError, match="plain tcp://"):
            checked_scheduler(address, {"MVLAB_ALLOW_PLAIN_TCP": off})
    with pytest.raises(ValueError, match="MVLAB_ALLOW_PLAIN_TCP='maybe' is neither on nor off"):
        checked_scheduler(address, {"MVLAB_ALLOW_PLAIN_TCP": "maybe"})
    with pytest.raises(ValueError, match="plain ws:// to another machine"):
        checked_scheduler(f"ws://{ATTACKER}:8786", {"MVLAB_ALLOW_PLAIN_TCP": "1"})


@pytest.mark.parametrize("address", ["tcp://127.0.0.1.evil.example:8786", "tls://nothing.invalid:8786",
                                     "tcp://nothing.invalid:8786"])
def test_a_name_that_resolves_to_nothing_is_refused_in_words(address, monkeypatch):
    """Fails when an unresolvable name is let through to Dask's ten-second timeout or judged by its text (tried:
    accepting a name that starts with ``127.``). ``.invalid`` never resolves (RFC 6761); the first name is made to
    resolve to nothing as an attacker's DNS may."""
    real = socket.getaddrinfo

    def nothing_for_evil(host, *args, **kwargs):
        if host.endswith(".evil.example"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", nothing_for_evil)
    with pytest.raises(ValueError, match="names the host .* which does not resolve to any address.*check the name"):
        checked_scheduler(address, {"MVLAB_ALLOW_PLAIN_TCP": "1"})


@pytest.mark.parametrize("address, words", [
    ("udp://127.0.0.1:8786", "the transport 'udp://', which mvlab's engine does not speak"),
    ("inproc://127.0.0.1/1/1", "the transport 'inproc://'"),
    ("ucx://127.0.0.1:8786", "the transport 'ucx://'"),
    ("http://127.0.0.1:8786", "the transport 'http://'"),
    ("tcp://127.0.0.1", "is not a scheduler's address .missing port"),
    ("tcp://user:pw@127.0.0.1:8786", "is not a scheduler's address"),
    ("tcp://127.0.0.1:8786/path", "is not a scheduler's address"),
    ("tcp://:8786", "it needs a host and a port"),
    ("tcp://127.0.0.1:0", "it needs a host and a port"),
])
def test_unknown_transports_and_malformed_addresses_are_refused_in_words(address, words):
    """Fails when a scheme outside the allow-list passes (tried: checking only for ``tcp``, as the old guard did:
    every scheme here but the malformed tcp:// ones got through)."""
    with pytest.raises(ValueError, match=f"MVLAB_SCHEDULER=.*{words}"):
        checked_scheduler(address, {})


def test_tls_and_wss_need_the_engine_certificates_and_keep_their_address(resolver, tmp_path):
    """Fails when wss:// is let through without certificates (tried: only ``tls`` checked for them) or when an
    encrypted address is rewritten."""
    from mvlab.engine.certificates import make_certificates

    with dask.config.set({"distributed.comm.tls.ca-file": None, "distributed.comm.tls.client.cert": None,
                          "distributed.comm.tls.client.key": None}):
        for scheme in ("tls", "wss"):
            with pytest.raises(ValueError, match="needs the engine's certificates.*TLS__CA_FILE"):
                checked_scheduler(f"{scheme}://scheduler.example:8786", {})
    make_certificates(tmp_path)
    with dask.config.set({"distributed.comm.tls.ca-file": str(tmp_path / "ca.pem"),
                          "distributed.comm.tls.client.cert": str(tmp_path / "cert.pem"),
                          "distributed.comm.tls.client.key": str(tmp_path / "key.pem")}):
        for scheme in ("tls", "wss"):
            address, security = checked_scheduler(f"{scheme}://scheduler.example:8786", {})
            assert address == f"{scheme}://scheduler.example:8786"
            assert security.tls_ca_file == str(tmp_path / "ca.pem")


def test_connect_refuses_before_the_client_sends_a_byte(resolver, monkeypatch):
    """Fails when :func:`connect` opens a client before the allow-list (tried: calling
    ``EngineClient(config.scheduler)`` without :func:`checked_scheduler`: the stand-in client below was reached)."""

    def no_client(*args, **kwargs):
        raise AssertionError(f"a client was opened for {args}")

    monkeypatch.setattr(engine_cluster, "EngineClient", no_client)
    for address in (f"ws://{ATTACKER}:8786", "tcp://localhost.attacker.net:8786", "wss+x://127.0.0.1:1"):
        with pytest.raises(ValueError, match="MVLAB_SCHEDULER="):
            connect(EngineConfig(scheduler=address))


# ---------------------------------------------------------------------------- the store's address stays home
def test_the_store_variables_are_the_store_location_and_database_urls_only():
    """Fails when a variable holding the store's URL is missed (tried: ``MVLAB_STORE`` alone missed
    ``DATABASE_URL``) or an unrelated one is withheld (an ``HTTP_PROXY`` with a password, libpq's ``PGPASSWORD``,
    which the server's own libpq reads from the environment its children inherit)."""
    url = "postgresql://mvlab:secret@db.example:5432/mvlab"
    env = {"MVLAB_STORE": url, "STORE_COPY": url, "DATABASE_URL": "postgres://app:pw@db/x",
           "OTHER_DB": "postgresql+psycopg://db/y", "PGPASSWORD": "secret", "PATH": "/usr/bin",
           "HTTP_PROXY": "http://me:pw@proxy:3128", "MVLAB_WORKERS": "2"}
    assert store_variables(env) == ["MVLAB_STORE", "STORE_COPY", "DATABASE_URL", "OTHER_DB"]
    sqlite = {"MVLAB_STORE": "/srv/mvlab/results.sqlite", "HOME": "/srv/mvlab"}
    assert store_variables(sqlite) == ["MVLAB_STORE"]


WORKER_ENVIRONMENT = textwrap.dedent('''
    import json, os, subprocess, psutil
    from multiprocessing import resource_tracker
    from mvlab.engine.cluster import EngineConfig, connect

    def environment():
        import os
        with open("/proc/self/environ", "rb") as f:  # what the process was started with, not only os.environ now
            started = f.read().decode(errors="replace")
        return {"os.environ": json.dumps(dict(os.environ)), "started with": started}

    def descendants():
        """Every process this one started (the workers, multiprocessing's resource tracker, ...) and its
        environment as the system holds it."""
        return {f"{p.pid} {' '.join(p.cmdline())[:120]}": json.dumps(p.environ())
                for p in psutil.Process().children(recursive=True)}

    def child_sees_store():
        return subprocess.run(["sh", "-c", "echo \\"$MVLAB_STORE\\""], capture_output=True, text=True).stdout.strip()

    if __name__ == "__main__":  # a restarted worker's spawn runs this file again, as __mp_main__
        client, cluster = connect(EngineConfig(n_workers=1, dashboard=None))
        client.wait_for_workers(1, timeout=60)
        out = {"worker": client.run(environment), "processes": descendants(),
               "tracker": resource_tracker._resource_tracker._pid, "server's own": os.environ.get("MVLAB_STORE"),
               "child during": child_sees_store()}
        client.restart()  # a nanny starts its worker again, as after a memory kill
        client.wait_for_workers(1, timeout=60)
        out["restarted worker"] = client.run(environment)
        out["processes after restart"] = descendants()
        client.close()
        cluster.close()
        out["child after close"] = child_sees_store()
        print(json.dumps(out))
''')


@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="reads /proc (Linux)")
def test_the_embedded_workers_and_helpers_never_get_the_store_address_but_the_server_keeps_it(tmp_path):
    """Fails when the embedded cluster's processes inherit the store's variables (tried: without
    ``_withhold_store_from_children``: the worker, the restarted worker and multiprocessing's resource tracker all
    held ``secret``), when the server loses them itself, or when they stay withheld after the cluster closes
    (tried: without ``_give_store_back_to_children``)."""
    url = "postgresql://user:secret@127.0.0.1:1/x"
    env = {**os.environ, "MVLAB_STORE": url, "DATABASE_URL": "postgresql://app:secret@db.example/app"}
    script = tmp_path / "workers.py"
    script.write_text(WORKER_ENVIRONMENT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    for what in ("worker", "restarted worker"):
        (seen,) = out[what].values()
        assert "MVLAB_STORE" not in seen["os.environ"] and "secret" not in seen["os.environ"], what
        assert "secret" not in seen["started with"], what
        assert "PATH=" in seen["started with"]  # the probe reads a real environment
    for what in ("processes", "processes after restart"):
        assert len(out[what]) >= 2, out[what]  # a worker and multiprocessing's resource tracker at least
        assert any(key.startswith(f"{out['tracker']} ") for key in out[what]), (out["tracker"], list(out[what]))
        leaking = [key for key, environ in out[what].items() if "secret" in environ]
        assert leaking == [], f"{what}: {leaking} hold the store's password"
    assert out["server's own"] == url  # the process that writes the store still reads it
    assert out["child during"] == ""
    assert out["child after close"] == url
