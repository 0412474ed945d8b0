"""The sidebar's view of the job engine: this session's run, wherever the user is, and a server
panel for the teacher (workers and their memory, runs running and queued, the engine's own
dashboard).  It names no data: a class sees only counts."""

from __future__ import annotations

import gc
import threading

import streamlit as st
from streamlit.runtime import Runtime

from mvlab.ui.runs import engine, holder, status_text

_LIMITED = threading.Event()
_SETTLED = threading.Lock()
_FROZEN = threading.Event()


def _a_real_server() -> bool:
    return Runtime.exists() and type(Runtime.instance()) is Runtime  # AppTest's is a mock


def _import_what_pages_import() -> None:
    """The modules every page's first run would import, imported now (before their objects are frozen);
    tests/test_ui.py checks that the pages import nothing of mvlab's that this leaves out."""
    import pyarrow  # noqa: F401
    import streamlit.elements.plotly_chart  # noqa: F401

    import mvlab.experiments.combinations  # noqa: F401
    import mvlab.experiments.report  # noqa: F401
    import mvlab.experiments.settings  # noqa: F401
    import mvlab.experiments.siamese  # noqa: F401
    import mvlab.experiments.view_construction  # noqa: F401
    import mvlab.ui.lessons  # noqa: F401
    import mvlab.ui.links  # noqa: F401
    import mvlab.ui.state  # noqa: F401
    import mvlab.ui.tables  # noqa: F401
    import mvlab.ui.widgets  # noqa: F401
    import mvlab.viz.benchmark_figures  # noqa: F401
    import mvlab.viz.data_figures  # noqa: F401
    import mvlab.viz.dissimilarity_figures  # noqa: F401
    import mvlab.viz.dvs_figures  # noqa: F401
    import mvlab.viz.siamese_figures  # noqa: F401
    import mvlab.viz.view_construction_figures  # noqa: F401


def imports_out_of_gc() -> None:
    """Once per web server process (not under AppTest, which shares the test process): the pages'
    modules imported and their objects (over 200,000: plotly's validators, scikit-learn, Dask, pandas)
    frozen out of the garbage collector (:func:`gc.freeze`).  Python's full collections, which
    come by themselves as sessions allocate, walked all of them with the interpreter held: a
    scratch probe caught 0.17 s on a fresh server and 0.28 s after a few rounds of a class, in the
    middle of 30 identical requests, every student's page waiting; a collection now walks only
    what the sessions made (0.03 s and 0.11 s in the same probe)."""
    if _FROZEN.is_set() or not _a_real_server():
        return
    with _SETTLED:
        if _FROZEN.is_set():
            return
        _import_what_pages_import()
        gc.collect()  # the imports' own garbage, once, so that none of it is frozen
        gc.freeze()
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


def your_run() -> None:
    """A line about this session's run while it waits or computes (it goes on when the user
    changes page; the page that started it shows it in full)."""
    eng = engine()
    job = eng.job_of(holder()) if eng.ready() else None
    status = eng.status(job) if job else None
    if status is not None and status.state in ("queued", "running"):
        line = status_text(status, "Your run").replace(" **Stop** works while it waits.", "")
        st.caption(f":material/pending: {line}")


def server_panel() -> None:
    """An expander with the engine's workers, their memory and the runs running and queued."""
    one_blas_thread()
    imports_out_of_gc()
    eng = engine()
    eng.start_in_background()
    with st.expander("Server", icon=":material/dns:"):
        if not eng.ready():
            if eng.start_error:
                st.error(f"The job engine could not start: {eng.start_error}")
            else:
                st.caption("The job engine is starting its workers…")
            return
        try:
            info = eng.server_status()
        except (OSError, ValueError) as exc:
            st.error(f"The job engine cannot be reached: {exc}")
            return
        where = (f"an embedded Dask cluster of {len(info.workers)} worker process(es)" if info.embedded
                 else f"the Dask cluster at {info.address}")
        st.caption(f"Runs go to {where}: {info.running} running, {info.queued} waiting "
                   f"(at most {info.max_queued} may wait).")
        if info.workers:  # a markdown table: a dataframe (pandas, then Arrow) cost 8 ms of every page run
            rows = [f"| {i + 1} | {w['memory'] / 1e9:.2f} | "
                    + (f"{w['memory_limit'] / 1e9:.1f} |" if w["memory_limit"] else "none |")
                    for i, w in enumerate(info.workers)]
            st.markdown("\n".join(["| worker | memory used (GB) | limit (GB) |", "|---|---|---|", *rows]))
        if info.dashboard:
            st.caption(f"The engine's own dashboard: {info.dashboard}")
        else:
            st.caption("The engine's own dashboard is off (set MVLAB_DASHBOARD and install bokeh).")
