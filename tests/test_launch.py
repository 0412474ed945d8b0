"""``python -m mvlab.ui.launch run app.py`` (``make run``, ``mvlab serve``, ``mvlab dashboard``): the server makes
its job engine and its pages' modules ready as it starts, before any browser opens a page (#72; a real server started
so is ``tests/test_browser.py``'s, whose first test checks it): what it says when it cannot, and a Streamlit without
its command-line module."""

import time

import pytest

from mvlab.ui import launch


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


def test_a_streamlit_without_its_command_line_module_is_handed_over_to_python_m_streamlit(monkeypatch, caplog):
    """Where this Streamlit lacks ``streamlit.web.cli.main`` (feature ``launch``), the launcher replaces itself with
    ``python -m streamlit`` and the same arguments, said in the log."""
    import sys

    from mvlab.ui import streamlit_insides

    monkeypatch.setattr(streamlit_insides, "usable", lambda feature: feature != "launch")
    monkeypatch.setattr(streamlit_insides, "missing", lambda feature: ("streamlit.web.cli:main",))
    execs = []
    monkeypatch.setattr(streamlit_insides.os, "execv", lambda path, args: execs.append((path, args)))
    streamlit_insides.streamlit_command(["run", "app.py", "--server.port", "8600"])
    assert execs == [(sys.executable, [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", "8600"])]
    assert "lacks streamlit.web.cli:main" in caplog.text and "hands over to python -m streamlit" in caplog.text
