"""The sidebar's view of the job engine: this session's run, wherever the user is, and a server
panel for the teacher (workers and their memory, runs running and queued, the engine's own
dashboard).  It names no data: a class sees only counts."""

from __future__ import annotations

import streamlit as st

from mvlab.ui.runs import engine, holder, status_text


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
