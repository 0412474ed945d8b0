"""``python -m mvlab.ui.launch run app.py`` (``make run``, ``mvlab serve``, ``mvlab dashboard``): the server makes
its job engine and its pages' modules ready as it starts, before any browser opens a page (#72)."""

import time

import psutil
import pytest

from browser import running_streamlit
from mvlab.ui import launch


def _workers_of(pid: int) -> list[psutil.Process]:
    """The engine's worker processes started by the server ``pid`` (multiprocessing's spawn, under its nannies)."""
    return [p for p in psutil.Process(pid).children(recursive=True)
            if "spawn_main" in " ".join(p.cmdline())]


def test_the_server_starts_its_engines_workers_before_any_page_is_opened(tmp_path):
    """Nothing but Streamlit's health check reaches the server, and its log says it is ready with the engine's worker
    running. Broken once: without ``engine.start_in_background()`` in ``get_ready`` the line never came (a page's
    first run started the engine, as under a plain ``streamlit run``)."""
    with running_streamlit(tmp_path / "store.sqlite", ("-m", "mvlab.ui.launch"), MVLAB_WORKERS="1") as (url, log):
        until = time.monotonic() + 120
        while launch.READY not in log.read_text() and time.monotonic() < until:
            time.sleep(0.2)
        text = log.read_text()
        assert launch.READY in text, text[-3000:]
        assert "Traceback" not in text, text[-3000:]
        server = next(p for p in psutil.Process().children() if "mvlab.ui.launch" in " ".join(p.cmdline()))
        assert len(_workers_of(server.pid)) == 1


class _Engine:
    def __init__(self, error):
        self.start_error, self.started = error, False

    def start_in_background(self):
        self.started = True

    def ready(self):
        return False


@pytest.mark.parametrize("error", ["Cannot reach the Dask scheduler at MVLAB_SCHEDULER=tls://10.0.0.9:8786"])
def test_an_engine_that_cannot_start_is_said_in_the_log_and_nothing_waits_for_it(monkeypatch, error):
    """The engine's start failed: the log says why and that the pages try again; ``get_ready`` returns."""
    import mvlab.engine
    from mvlab.ui import streamlit_insides, web_process

    engine = _Engine(error)
    monkeypatch.setattr(streamlit_insides, "a_real_server", lambda: True)
    monkeypatch.setattr(mvlab.engine, "shared_engine", lambda: engine)
    monkeypatch.setattr(web_process, "settle", lambda: None)
    said = []
    assert launch.get_ready(time.monotonic(), said.append) is False
    assert engine.started and said == [f"mvlab: the job engine could not start ({error}); the pages will try again"]


def test_no_server_no_waiting_forever(monkeypatch):
    """A process that never becomes a Streamlit server: ``get_ready`` gives up after its wait, saying so."""
    from mvlab.ui import streamlit_insides

    monkeypatch.setattr(streamlit_insides, "a_real_server", lambda: False)
    said = []
    assert launch.get_ready(time.monotonic(), said.append, wait_for_server=0.2) is False
    assert said == ["mvlab: Streamlit's server did not start: nothing was made ready ahead"]
