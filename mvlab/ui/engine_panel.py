"""The sidebar's view of the job engine: this session's run, wherever the user is, and a server
panel for the teacher (workers and their memory, runs running and queued, the engine's own
dashboard).  It names no data: a class sees only counts."""

from __future__ import annotations

import streamlit as st

from mvlab.i18n import N_, _, format_number, ngettext
from mvlab.ui.runs import engine, holder, status_text


def your_run() -> None:
    """A line about this session's run while it waits or computes (it goes on when the user
    changes page; the page that started it shows it in full)."""
    eng = engine()
    job = eng.job_of(holder()) if eng.ready() else None
    status = eng.status(job) if job else None
    if status is not None and status.state in ("queued", "running"):
        line = status_text(status, N_("Your run")).replace(" " + _("**Stop** works while it waits."), "")
        st.caption(f":material/pending: {line}")


def server_panel() -> None:
    """An expander with the engine's workers, their memory and the runs running and queued."""
    eng = engine()
    eng.start_in_background()
    with st.expander(_("Server"), icon=":material/dns:"):
        if not eng.ready():
            if eng.start_error:
                st.error(_("The job engine could not start: {error}").format(error=eng.start_error))
            else:
                st.caption(_("The job engine is starting its workers…"))
            return
        try:
            info = eng.server_status()
        except Exception as exc:  # noqa: BLE001 - a scheduler lost between two calls: said, never a traceback
            st.error(_("The job engine cannot be reached: {error}").format(error=exc))
            return
        where = (ngettext("an embedded Dask cluster of {n} worker process",
                          "an embedded Dask cluster of {n} worker processes", len(info.workers)).format(
            n=len(info.workers)) if info.embedded else _("the Dask cluster at {address}").format(address=info.address))
        st.caption(_("Runs go to {where}: {running} running, {queued} waiting (at most {limit} may wait).").format(
            where=where, running=info.running, queued=info.queued, limit=info.max_queued))
        if info.workers:  # a markdown table: a dataframe (pandas, then Arrow) cost 8 ms of every page run
            rows = [f"| {i + 1} | {format_number(w['memory'] / 1e9, 2)} | "
                    + (f"{format_number(w['memory_limit'] / 1e9, 1)} |" if w["memory_limit"] else _("none") + " |")
                    for i, w in enumerate(info.workers)]
            st.markdown("\n".join(["| " + " | ".join((_("worker"), _("memory used (GB)"), _("limit (GB)"))) + " |",
                                   "|---|---|---|", *rows]))
        if info.dashboard:
            st.caption(_("The engine's own dashboard: {address}").format(address=info.dashboard))
        else:
            st.caption(_("The engine's own dashboard is off (set MVLAB_DASHBOARD and install bokeh)."))
