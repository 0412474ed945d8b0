"""axe-core in the browser tests: the npm package (installed by the tests' setup into .cache/axe, pinned below),
injected into a page through Playwright and run with the WCAG 2.0 and 2.1 A and AA rules. What only Streamlit itself
can fix is listed in tests/axe_exceptions.yaml, each entry with its upstream issue and why the app cannot fix it."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
AXE_VERSION = "4.14.1"
AXE_DIR = ROOT / ".cache" / "axe"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
EXCEPTIONS = Path(__file__).resolve().parent / "axe_exceptions.yaml"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_script() -> Path:
    """axe.min.js of axe-core :data:`AXE_VERSION`, installed with npm on first use (``RuntimeError`` in words when
    npm is missing or the install fails). The install holds a lock on the folder: the test workers of one run
    (``make test``: two) start their browser files at once, and two npm installs into one folder break each other."""
    installed = AXE_DIR / "node_modules" / "axe-core" / "package.json"
    AXE_DIR.mkdir(parents=True, exist_ok=True)
    with (AXE_DIR / ".install-lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if installed.exists() and json.loads(installed.read_text()).get("version") == AXE_VERSION:
            return AXE_JS
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("axe-core needs npm (apt-get install npm; .ci/run does it).")
        done = subprocess.run([npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(AXE_DIR),
                               f"axe-core@{AXE_VERSION}"], capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not AXE_JS.exists():
        raise RuntimeError(f"npm could not install axe-core {AXE_VERSION}: {done.stderr[-2000:]}")
    return AXE_JS


def exceptions() -> list[dict]:
    """The entries of tests/axe_exceptions.yaml: ``rule``, ``target`` (a substring of the element's CSS selector),
    ``upstream`` and ``why``."""
    entries = yaml.safe_load(EXCEPTIONS.read_text()) or []
    for entry in entries:
        missing = {"rule", "target", "upstream", "why"} - set(entry)
        if missing:
            raise ValueError(f"{EXCEPTIONS.name}: an entry lacks {sorted(missing)}: {entry}")
    return entries


def violations(page, where: str = "") -> list[str]:
    """axe-core's WCAG 2.0/2.1 A and AA violations on the page as it is, less the listed exceptions: one line per
    element, ``rule: selector: what is wrong``."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_script()))
    result = page.evaluate("(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: "
                           "['violations']})", TAGS)
    allowed = exceptions()
    out = []
    for violation in result["violations"]:
        for node in violation["nodes"]:
            target = " ".join(str(t) for t in node["target"])
            if any(e["rule"] == violation["id"] and e["target"] in target for e in allowed):
                continue
            summary = (node.get("failureSummary") or violation["help"]).replace("\n", " ")
            out.append(f"{where}{violation['id']}: {target}: {summary[:300]}")
    return out
