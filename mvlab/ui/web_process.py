"""The web server's process, settled once by the entry point (app.py) before the first page runs: its
own numerical work on one BLAS thread, and the pages' modules imported and frozen out of the garbage
collector.  Nothing happens under AppTest, whose runtime shares the test process."""

from __future__ import annotations

import copy
import gc
import threading

from mvlab.core.memo import Memo
from mvlab.ui import streamlit_insides as insides

_STARTED = Memo(None)  # what the server's start does once
_PAGES = Memo(None)  # the app's pages: a few, fixed
_LIMITED = threading.Event()
GC_THRESHOLDS = (20_000, 20, 10)
"""The collector's thresholds in a web server process (:func:`gc.set_threshold`; Python's are 700, 10, 10): a
collection of the youngest objects after 20,000 allocations instead of 700, the next older after 20 of those. A
woken class's reruns (150 a process at a reveal) made about 45 young collections, which moved what the runs in
flight still held into the older generations, and then a full collection (50 ms with the interpreter held, in one
student's rerun) about once per wake: 0.3 ms per woken student, a sixth of a rerun (a scratch probe timing each
collection with :data:`gc.callbacks`, issue #53 item 10). Now one or two young collections per wake and no full one
in the probe. Cycles are still collected; each young collection walks up to 20,000 objects (a few ms)."""

_SETTLED = threading.Lock()
_FROZEN = threading.Event()


def _a_real_server() -> bool:
    """A real server whose Streamlit has the parts this module relies on (``server_process``); not AppTest."""
    return insides.a_real_server() and insides.usable("server_process")


def _import_what_pages_import() -> None:
    """The modules every page's first run would import, imported now (before their objects are frozen);
    tests/test_ui.py checks that the pages import nothing of mvlab's that this leaves out."""
    import pyarrow  # noqa: F401

    insides.import_elements()

    import mvlab.experiments.combinations  # noqa: F401
    import mvlab.experiments.report  # noqa: F401
    import mvlab.experiments.settings  # noqa: F401
    import mvlab.experiments.siamese_comparison  # noqa: F401
    import mvlab.experiments.view_construction_sweep  # noqa: F401
    import mvlab.reproduction.coverage  # noqa: F401
    import mvlab.reproduction.markdown  # noqa: F401
    import mvlab.reproduction.ofsp_paper  # noqa: F401
    import mvlab.reproduction.ofsp_paper_report  # noqa: F401
    import mvlab.reproduction.registry  # noqa: F401
    import mvlab.reproduction.sdf_paper  # noqa: F401
    import mvlab.reproduction.sdf_paper_report  # noqa: F401
    import mvlab.reproduction.writer  # noqa: F401
    import mvlab.ui.lesson_step  # noqa: F401
    import mvlab.ui.links  # noqa: F401
    import mvlab.ui.page  # noqa: F401
    import mvlab.ui.prose  # noqa: F401
    import mvlab.ui.query  # noqa: F401
    import mvlab.ui.state  # noqa: F401
    import mvlab.ui.tables  # noqa: F401
    import mvlab.ui.views.dissimilarity_page  # noqa: F401
    import mvlab.ui.views.dvs_page  # noqa: F401
    import mvlab.ui.views.siamese_page  # noqa: F401
    import mvlab.ui.widgets  # noqa: F401
    import mvlab.viz.benchmark_figures  # noqa: F401
    import mvlab.viz.data_figures  # noqa: F401
    import mvlab.viz.dissimilarity_figures  # noqa: F401
    import mvlab.viz.dvs_figures  # noqa: F401
    import mvlab.viz.reproduction_figures  # noqa: F401
    import mvlab.viz.siamese_figures  # noqa: F401
    import mvlab.viz.view_construction_figures  # noqa: F401


def imports_out_of_gc() -> None:
    """Once per web server process (not under AppTest, which shares the test process): the pages'
    modules imported and their objects (over 200,000: plotly's validators, scikit-learn, Dask, pandas)
    frozen out of the garbage collector (:func:`gc.freeze`).  Python's full collections, which
    come by themselves as sessions allocate, walked all of them with the interpreter held: a
    scratch probe caught 0.17 s on a fresh server and 0.28 s after a few rounds of a class, in the
    middle of 30 identical requests, every student's page waiting; a collection now walks only
    what the sessions made (0.03 s and 0.11 s in the same probe).  The collector's thresholds are then
    :data:`GC_THRESHOLDS`."""
    if _FROZEN.is_set() or not _a_real_server():
        return
    with _SETTLED:
        if _FROZEN.is_set():
            return
        _import_what_pages_import()
        gc.collect()  # the imports' own garbage, once, so that none of it is frozen
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        _FROZEN.set()


def one_blas_thread() -> None:
    """Once per web server process (not under AppTest, which shares the test process): its own
    numerical work (a result's figures and maps) on one BLAS thread.  The engine's workers take
    the cores while a class computes, and two BLAS threads of the server spinning against them
    made the 284-row MDS map of a breast-cancer result take 28 ms of CPU instead of 3 ms."""
    if _LIMITED.is_set() or not _a_real_server():
        return
    import scipy.linalg  # noqa: F401 - loads scipy's own BLAS, so that it is limited too
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    _LIMITED.set()


def settle() -> None:
    """Once per web server process (each call after the first returns at once): Streamlit's insides checked, a line
    in the log for each feature that lost a part (:func:`mvlab.ui.streamlit_insides.check`), then
    :func:`one_blas_thread` and :func:`imports_out_of_gc`."""
    if insides.a_real_server():
        _STARTED.get("insides checked", insides.check)
    one_blas_thread()
    imports_out_of_gc()


def page(path: str, **kwargs):
    """``st.Page(path, **kwargs)``, made once per process and copied for each run. Making it resolves and
    checks its file (a few system calls, each letting the interpreter lock go): under a class's load, app.py's
    nine pages took a fifth of the server's busy time (bench/bench_class_round.py --profile). A copy per run,
    since ``st.navigation`` marks the page it runs on the object."""
    import streamlit as st

    key = (insides.main_script_parent(), path, tuple(sorted(kwargs.items())))
    return copy.copy(_PAGES.get(key, lambda: st.Page(path, **kwargs)))
