"""The page's own script: one hidden element in each run that tells the browser what Streamlit cannot.

- The language's attributes (``lang``, ``dir``) and Streamlit's skip link in the reader's language
  (:func:`mvlab.ui.language.script`).
- **The charts' code loaded ahead.** Streamlit's front end loads the code of a chart (plotly.js, 4.7 MB) and of a
  table the first time the tab draws one, and a training page draws its first figure once its run has ended: the
  browser then fetched, parsed and ran that code between the result's arrival and the figure (measured, #72: 0.6 s
  on a tab whose files were cached, 1.3 s on a new browser; the run itself was done). The script asks the browser,
  once it is idle, to import those modules (:data:`MODULES`, found in Streamlit's build by
  :func:`mvlab.ui.streamlit_insides.frontend_modules`): the same files and module instances Streamlit imports later
  (a module is loaded once per tab, by its address), so the figure is drawn at once. Nothing is loaded where this
  Streamlit's build has none of them. Once every import has settled the script sets ``window.mvlabLoadedAheadDone``
  (the bench's cold Train waits for it, as a reader of the page would: ``bench/bench_pages.py``).

The script is sent in every full run (a session's first run is often cut short by the next, and an element a run
does not send again is taken off the page before the browser runs it); the browser does the loading once per tab.
Its element is hidden, so that it takes no room between the page's elements.
"""

from __future__ import annotations

import json

import streamlit as st

from mvlab.ui import streamlit_insides as insides

__all__ = ["MODULES", "load_ahead", "send"]

MODULES = ("PlotlyChart", "DataFrame")
"""The front end's modules a result needs: the plotly chart and the table."""

_MARK = "mvlab-page-script"
_HIDDEN = "<style>[data-testid=stElementContainer]:has(.%s) {display: none;}</style>" % _MARK

_LOAD_AHEAD = """if (!window.mvlabLoadedAhead) {
  window.mvlabLoadedAhead = true;
  const main = [...document.querySelectorAll("script[type=module][src]")].map(s => s.src)
    .find(src => src.includes("/static/js/"));
  const folder = main ? main.slice(0, main.lastIndexOf("/") + 1) : null;
  const load = () => folder && Promise.allSettled(%s.map(file => import(folder + file)))
    .then(() => { window.mvlabLoadedAheadDone = true; });
  if (window.requestIdleCallback) { window.requestIdleCallback(load, {timeout: 3000}); } else { setTimeout(load, 500); }
}"""


def load_ahead() -> str:
    """The script that has the browser import the chart and table modules once it is idle, once per tab (the
    module's docstring); "" where this Streamlit's build has none of them."""
    files = insides.frontend_modules(MODULES)
    return _LOAD_AHEAD % json.dumps(list(files)) if files else ""


def send(*scripts: str) -> None:
    """One hidden element running ``scripts`` (JavaScript, each a statement or block; empty ones left out) in the
    page; nothing when all are empty."""
    body = "\n".join(script for script in scripts if script)
    if body:
        st.html(f'{_HIDDEN}<span class="{_MARK}"></span><script>{body}</script>', unsafe_allow_javascript=True,
                width=1)
