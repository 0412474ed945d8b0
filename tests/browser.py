"""Helpers for the real-browser tests: start the dashboard, drive Debian's Chromium with Playwright."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def unavailable_reason() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not Path(CHROMIUM).exists():
        return "Chromium is not installed (apt-get install chromium; .ci/run does it)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return None


def browser_tests_mark():
    """The pytest mark of a browser-test module: skip with the reason when Chromium or playwright is
    missing, except in CI (``MVLAB_REQUIRE_BROWSER``), where that is an error."""
    import pytest

    reason = unavailable_reason()
    if reason is not None and os.environ.get("MVLAB_REQUIRE_BROWSER"):
        raise RuntimeError(f"MVLAB_REQUIRE_BROWSER is set but the browser tests cannot run: {reason}")
    return pytest.mark.skipif(reason is not None, reason=f"browser tests skipped: {reason}")


@contextmanager
def chromium():
    """Debian's Chromium, headless, driven by playwright (never a browser download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def open_page(browser, address: str, width: int = 1400, height: int = 2400):
    """A page in a fresh browser context (another person's browser: no shared state) at ``address``,
    once its script has run."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(address)
    page.wait_for_selector("h1", timeout=120_000)
    settle(page)
    return page


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_app(store: Path, **env_vars: str):
    """Start ``streamlit run app.py`` on a free loopback port (with these extra environment
    variables, e.g. ``MVLAB_WORKER_MEMORY``); yield its URL; stop it."""
    with running_streamlit(store, ("-m", "streamlit"), **env_vars) as (url, _log):
        yield url


@contextmanager
def running_streamlit(store: Path, launcher: tuple[str, ...], **env_vars: str):
    """:func:`running_app` started by ``python <launcher> run app.py ...`` (``("-m", "streamlit")``, or a ``-c``
    script that changes Streamlit before it starts); yields its URL and its log's path."""
    import tempfile

    from mvlab.deploy.serve import wait_healthy

    port = free_port()
    env = {**os.environ, "MVLAB_STORE": str(store), **env_vars}
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        with log.open("w") as out:
            proc = subprocess.Popen(
                [sys.executable, *launcher, "run", "app.py", "--server.headless", "true", "--server.port",
                 str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, proc, "streamlit", log, timeout=60)
            yield url, log
        finally:
            stop_processes(proc)


def stop_processes(*procs, wait: float = 10) -> None:
    """Terminate these processes, then kill those still running after ``wait`` seconds."""
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            proc.kill()


SETTLED_JS = """() => {
    const app = document.querySelector('[data-testid=stApp]');  // none on a page that is not Streamlit's
    return !(app && ['running', 'rerunRequested', 'stopRequested'].includes(app.dataset.testScriptState))
        && document.querySelector('[data-testid=stStatusWidget]') === null
        && document.querySelectorAll('[data-stale=true]').length === 0;
}"""
"""Streamlit has no run going or asked for (the app's own state, ``data-test-script-state``: its status widget shows a
run only after half a second of it), its status widget is gone, and no element is left stale from the run before (a
page that is not Streamlit's, such as a downloaded file, is settled at once)."""


def settle(page, timeout: float = 300_000) -> None:
    """Wait until Streamlit has run the script the last action asked for and drawn what it sent: 0.4 s for the
    action's rerun to reach the server, then :data:`SETTLED_JS`, then 0.4 s more. The last pause is not the front
    end's state to wait on: in a fresh browser context the first run ends before Streamlit's lazily loaded widgets
    are drawn, and a number box showed its default for up to 410 ms after the run's end (seen when a settle without
    it was tried, 4592e85)."""
    page.wait_for_timeout(400)
    page.wait_for_function(SETTLED_JS, timeout=timeout, polling=50)
    page.wait_for_timeout(400)


def exceptions(page) -> list[str]:
    return [e.inner_text() for e in page.query_selector_all("[data-testid=stException]")]


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


TRUNCATED_JS = """() => {
    // Text the page cuts off: an element that clips its own text (ellipsis or hidden overflow) while
    // its content is wider than its box. Plotly's SVG text is not covered (it does not clip).
    const out = [];
    for (const el of document.querySelectorAll('input[type=text]')) {  // a select box shows its value in one
        if (el.offsetParent && el.value && el.scrollWidth > el.clientWidth + 1) out.push(el.value.slice(0, 80));
    }
    for (const box of document.querySelectorAll('[data-testid=stMultiSelect]')) {  // chips past the box's edge
        const label = (box.querySelector('[data-testid=stWidgetLabel]') || box).innerText.trim();
        for (const el of box.querySelectorAll('*')) {
            if (el.offsetParent && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0
                && el.querySelector('[data-baseweb=tag], [role=button], span')) {
                out.push(`chips of "${label}" past the edge`); break;
            }
        }
    }
    for (const el of document.querySelectorAll('body *')) {
        if (!el.offsetParent || el.children.length > 0 && !el.innerText) continue;
        const text = (el.innerText || '').trim();
        if (!text || el.closest('svg') || el.getBoundingClientRect().width < 4) continue;  // skip-links are 1 px
        const style = getComputedStyle(el);
        const clips = style.textOverflow === 'ellipsis' || style.overflowX === 'hidden' || style.overflow === 'hidden';
        if (clips && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0
            && [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) {
            out.push(text.slice(0, 80));
        }
    }
    return out;
}"""


def truncated_labels(page) -> list[str]:
    """Labels and values the page shows cut off (its own text wider than its clipping box)."""
    return page.evaluate(TRUNCATED_JS)
