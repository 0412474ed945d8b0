"""Shared pytest fixtures."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


@pytest.fixture(autouse=True, scope="session")
def _private_results_store(tmp_path_factory):
    """Tests write their runs to a throw-away results store, never to ~/.mvlab."""
    mp = pytest.MonkeyPatch()
    mp.setenv("MVLAB_STORE", str(tmp_path_factory.mktemp("store") / "results.sqlite"))
    mp.setenv("MVLAB_DASHBOARD", "off")  # test servers' engines serve no dashboard (nor fight over its port)
    # a round hides its lesson's unrevealed answers from every other page for 4 hours (issue #71 item 3); tests share
    # one store per process, and one that started a round would hide the answers another reads alone: the tests of
    # that hiding set it back (tests/test_app_rounds.py)
    mp.setenv("MVLAB_ROUND_OPEN_HOURS", "0")
    yield
    mp.undo()


@pytest.fixture(scope="session")
def postgres_url():
    """The URL of a PostgreSQL server started for this test session (tests/postgres_server.py); the tests that
    need one are skipped where PostgreSQL is not installed, except in CI (MVLAB_REQUIRE_POSTGRES=1, .ci/run)."""
    from postgres_server import binaries, postgres_server

    if binaries() is None and not os.environ.get("MVLAB_REQUIRE_POSTGRES"):
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql; .ci/run does it)")
    with postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request, tmp_path):
    """Where a store test keeps its store, once per backend: a new SQLite file, and a new database on the
    session's PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite")
    from postgres_server import new_database

    return new_database(request.getfixturevalue("postgres_url"))


@pytest.fixture
def app():
    """A fresh AppTest of the dashboard with Streamlit's caches cleared (they are process-wide)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.fixture(autouse=True)
def _global_rng_from_a_known_state():
    """Every test starts from the same state of numpy's global RNG, which an unseeded (``random_state=None``)
    estimator draws from: its outcome no longer depends on which tests ran before it in the process (a test
    added earlier in the order once moved another's inner folds onto a tie)."""
    import numpy as np

    np.random.seed(20261126)
    yield


_MAIN = sys.modules["__main__"]


@pytest.fixture(autouse=True)
def _real_main_module():
    """Streamlit's script runner (AppTest too) installs the script it runs as ``__main__`` and leaves it
    there; worker processes the job engine starts later (multiprocessing's spawn) would re-run that
    script. Every test ends with pytest's own ``__main__`` back in place."""
    yield
    sys.modules["__main__"] = _MAIN


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", help="also run the tests marked slow (minutes of CPU)")


LONGEST_FIRST = [
    "test_browser_lessons.py", "test_browser.py", "test_browser_rounds.py", "test_browser_classroom.py",
    "test_serve.py", "test_sdf_paper.py", "test_engine.py", "test_app_data.py", "test_cli.py", "test_app_scale.py",
    "test_app_rounds.py", "test_app_benchmark.py", "test_wheel.py", "test_common.py", "test_engine_tls.py",
]
"""The test files that took longest (2026-11-29, one process on this 2-core machine kind: the four browser files
about half of the whole run), run first. ``make test`` hands whole files to two workers (pytest-xdist, ``--dist
loadfile``) in this order, so the long ones start at once and the short ones fill in beside them, instead of one
long file running alone at the end. A file missing from the list only runs later; the order changes no result."""


def pytest_collection_modifyitems(config, items):
    """The longest files first (:data:`LONGEST_FIRST`; every file's own tests keep their order). Tests marked
    ``slow`` run with ``--runslow`` or ``MVLAB_SLOW=1``; otherwise they are skipped, saying how."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # a stable sort
    if config.getoption("--runslow") or os.environ.get("MVLAB_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow (minutes of CPU): run with --runslow or MVLAB_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium for the browser tests of one module (tests/browser.py)."""
    from browser import chromium

    with chromium() as b:
        yield b


def lessons_session(**query):
    """A new AppTest session (a browser of its own) opened on the Lessons page with ``query`` in its address."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    for k, v in query.items():
        at.query_params[k] = str(v)
    at.switch_page("pages/lessons.py").run()
    assert not at.exception, at.exception
    return at


def step_titles(at) -> list[str]:
    """The lesson step titles an AppTest page draws: the level-2 headings of its Markdown elements
    (:func:`mvlab.ui.lesson_step.step_top` writes the progress, the title and the text as one element)."""
    return [line[3:] for m in at.markdown for line in m.value.splitlines() if line.startswith("## ")]


@pytest.fixture
def started_clusters(monkeypatch):
    """The embedded clusters :func:`mvlab.engine.cluster.connect` starts during the test, each with the process ids
    of its workers once they run: ``[(cluster, [pid, ...]), ...]``."""
    import mvlab.engine.cluster as engine_cluster

    started = []

    class Recorded(engine_cluster._EmbeddedCluster):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append((self, [nanny.pid for nanny in self.workers.values()]))

    monkeypatch.setattr(engine_cluster, "_EmbeddedCluster", Recorded)
    return started
