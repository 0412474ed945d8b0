"""Elements that many sessions draw alike, built once per server process and sent as built by every session.

``st.plotly_chart`` does the same work, in every session's run, on a figure a class shares: it encodes the figure to
JSON, hashes that JSON with the call's other arguments into the element's id, and works out the chart's size. A class
woken to a revealed answer draws one frozen figure (:mod:`mvlab.viz.frozen`) 150 times a process at once; timed in the
web process, that was 0.30–0.43 ms of a woken student's 1.75 ms of script (issue #53 item 10). :func:`shared_chart`
builds the element once per figure, key, text alternative and place (page, form, root container), with Streamlit's own
functions (the id by ``compute_and_register_element_id``, the size by ``plotly_chart``'s own resolution), and sends
that element in the later runs: 0.08–0.09 ms in the same probe. :func:`shared_markdown` does the same for a Markdown
text that a class is sent alike (a step's top with its answer: a few texts, one per choice, for 150 students):
Streamlit cleans and wraps the text once per text, not once per student.

Streamlit has no public way to send a built element: the parts used are Streamlit's insides, behind
:mod:`mvlab.ui.streamlit_insides` (feature ``built_once``, checked once per process); where one is gone (and for a
figure that is not frozen, built for one session), Streamlit's own call draws it. ``tests/test_built_once.py``
compares what the two send, field by field.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from mvlab.core.memo import Memo
from mvlab.ui import streamlit_insides as insides
from mvlab.viz.frozen import FrozenFigure, derived

__all__ = ["shared_chart", "shared_markdown", "MARKDOWN_KEPT"]


def shared_chart(figure: go.Figure, key: str, alt: str) -> None:
    """``st.plotly_chart(figure, key=key, alt=alt)`` with its defaults (the width of the container, the figure's
    height, Streamlit's theme, no selection), where ``figure`` is frozen: its element built once per process for
    this key, text and place, and sent as built (Streamlit's own call where a part is gone, or for a figure built
    for one session)."""
    if not isinstance(figure, FrozenFigure) or not insides.usable("built_once"):
        st.plotly_chart(figure, key=key, alt=alt)
        return
    place = insides.place()
    built = derived(figure, f"chart element {key!r} {alt!r} {place!r}",
                    lambda: insides.built_chart(figure, key, alt))
    insides.send("plotly_chart", built, key=key)


MARKDOWN_KEPT = Memo(256)
"""The Markdown elements a process keeps (:func:`shared_markdown`), the 256 most recently sent."""


def shared_markdown(body: str, unsafe_allow_html: bool = False) -> None:
    """``st.markdown(body, unsafe_allow_html)`` with its defaults, its element built once per process for this text
    (kept for the next session that is sent the same: :data:`MARKDOWN_KEPT`); Streamlit's own call
    where a part is gone."""
    if not insides.usable("built_once"):
        st.markdown(body, unsafe_allow_html=unsafe_allow_html)
        return
    allow = bool(unsafe_allow_html)
    insides.send("markdown", MARKDOWN_KEPT.get((body, allow), lambda: insides.built_markdown(body, allow)))
