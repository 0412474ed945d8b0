"""Certificates for the job engine across machines: Dask's TLS (``tls://``, and ``wss://`` with the same files), made
with ``openssl``.

``mvlab certificates DIR`` writes a certificate authority (``ca.pem``; its key ``ca-key.pem`` signs, and stays with
whoever sets up the machines), one certificate and key signed by it (``cert.pem``, ``key.pem``) that the scheduler,
the workers and the dashboard's servers present to each other, and ``engine-tls.env``: Dask's own settings that point
at them (``DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION`` and ``DASK_DISTRIBUTED__COMM__TLS__*``), as ``NAME=value``
lines for a shell (``set -a; . DIR/engine-tls.env; set +a``) or a systemd unit (``EnvironmentFile=``). Copy the
folder, without ``ca-key.pem``, to every machine of the engine. Only a holder of a certificate signed by this
authority can talk to the scheduler, and everything on the wire is encrypted; mvlab's engine speaks nothing else to
another machine (:func:`mvlab.engine.cluster.checked_scheduler`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["make_certificates", "ENV_FILE", "private_security"]

ENV_FILE = "engine-tls.env"
"""The settings file :func:`make_certificates` writes beside the certificates."""


def _openssl(*args: str) -> None:
    done = subprocess.run(["openssl", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise ValueError(f"openssl {args[0]} failed: {done.stderr.strip()}")


def make_certificates(folder, days: int = 825) -> Path:
    """Write the engine's certificate authority, certificate, key and settings file into ``folder`` (see the module
    docstring); returns the settings file's path. ``ValueError`` when ``openssl`` is missing or the folder already
    holds certificates (they are never overwritten: the machines that have them would stop talking)."""
    if shutil.which("openssl") is None:
        raise ValueError("mvlab certificates needs the openssl command (apt-get install openssl).")
    if int(days) < 1:
        raise ValueError(f"--days must be 1 or more, got {days}.")
    folder = Path(folder).expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True)
    names = ("ca.pem", "ca-key.pem", "cert.pem", "key.pem")
    present = [n for n in names if (folder / n).exists()]
    if present:
        raise ValueError(f"{folder} already holds {', '.join(present)}: choose an empty folder (certificates in use "
                         "are never overwritten).")
    ca, ca_key, cert, key = (folder / n for n in names)
    request = folder / "cert.csr"
    old_umask = os.umask(0o077)  # keys readable by their owner only
    try:
        _openssl("req", "-x509", "-newkey", "rsa:3072", "-nodes", "-days", str(days), "-subj", "/CN=mvlab engine CA",
                 "-keyout", str(ca_key), "-out", str(ca))
        _openssl("req", "-newkey", "rsa:3072", "-nodes", "-subj", "/CN=mvlab engine", "-keyout", str(key),
                 "-out", str(request))
        _openssl("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
                 "-days", str(days), "-out", str(cert))
    finally:
        os.umask(old_umask)
        request.unlink(missing_ok=True)
        (folder / "ca.srl").unlink(missing_ok=True)
    settings = {"DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True",
                "DASK_DISTRIBUTED__COMM__TLS__CA_FILE": ca}
    for role in ("SCHEDULER", "WORKER", "CLIENT"):
        settings[f"DASK_DISTRIBUTED__COMM__TLS__{role}__CERT"] = cert
        settings[f"DASK_DISTRIBUTED__COMM__TLS__{role}__KEY"] = key
    env = folder / ENV_FILE
    env.write_text("# Dask's TLS settings for mvlab's engine (mvlab certificates); load with: set -a; . "
                   f"{env}; set +a\n" + "".join(f"{k}={v}\n" for k, v in settings.items()))
    return env


def private_security(folder):
    """Dask's :class:`distributed.Security` for an engine that this server alone may reach: a certificate authority
    and one certificate made now for this run (elliptic-curve keys: milliseconds, not the seconds of RSA), written
    into ``folder`` (which the caller made readable by its owner only, and removes when the engine closes), every
    connection encrypted and both sides required to present a certificate the authority signed. Another process on
    the machine, under another account or not, can open the port but not the handshake. ``ValueError`` without
    ``openssl``."""
    from distributed import Security

    if shutil.which("openssl") is None:
        raise ValueError("the embedded engine needs the openssl command to make its certificates (apt-get install "
                         "openssl).")
    folder = Path(folder)
    ca, ca_key, cert, key, request = (folder / n for n in ("ca.pem", "ca-key.pem", "cert.pem", "key.pem", "cert.csr"))
    curve = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    old_umask = os.umask(0o077)
    try:
        _openssl("req", "-x509", *curve, "-days", "30", "-subj", "/CN=mvlab embedded engine CA", "-keyout",
                 str(ca_key), "-out", str(ca))
        _openssl("req", *curve, "-subj", "/CN=mvlab embedded engine", "-keyout", str(key), "-out", str(request))
        _openssl("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
                 "-days", "30", "-out", str(cert))
    finally:
        os.umask(old_umask)
        request.unlink(missing_ok=True)
        (folder / "ca.srl").unlink(missing_ok=True)
        ca_key.unlink(missing_ok=True)  # nothing more is signed
    return Security(tls_ca_file=str(ca), tls_scheduler_cert=str(cert), tls_scheduler_key=str(key),
                    tls_worker_cert=str(cert), tls_worker_key=str(key), tls_client_cert=str(cert),
                    tls_client_key=str(key), require_encryption=True)
