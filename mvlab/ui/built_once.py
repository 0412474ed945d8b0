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

Streamlit has no public way to send a built element. Every part used is listed in :data:`PRIVATE_PARTS` and checked
once per process (:func:`mvlab.ui.wake.missing_parts`); where one is gone (and for a figure that is not frozen, built
for one session), Streamlit's own call draws it. ``tests/test_built_once.py`` compares what the two send, field by
field.
"""

from __future__ import annotations

import functools

import plotly.graph_objects as go
import streamlit as st

from mvlab.core.memo import Memo
from mvlab.ui import wake
from mvlab.viz.frozen import FrozenFigure, derived

__all__ = ["shared_chart", "shared_markdown", "PRIVATE_PARTS"]

PRIVATE_PARTS: tuple[tuple[str, str], ...] = (
    ("streamlit", "_main"),
    ("streamlit.delta_generator", "DeltaGenerator._enqueue"),
    ("streamlit.delta_generator", "DeltaGenerator._active_dg"),
    ("streamlit.delta_generator", "DeltaGenerator._root_container"),
    ("streamlit.elements.lib.agent_spec", "element"),
    ("streamlit.elements.lib.form_utils", "current_form_id"),
    ("streamlit.elements.lib.layout_utils", "LayoutConfig"),
    ("streamlit.elements.lib.layout_utils", "create_layout_config"),
    ("streamlit.elements.markdown", "MarkdownProto.Type.NATIVE"),
    ("streamlit.elements.lib.utils", "compute_and_register_element_id"),
    ("streamlit.elements.lib.utils", "normalize_alt"),
    ("streamlit.elements.plotly_chart", "_plotly_data"),
    ("streamlit.elements.plotly_chart", "_resolve_content_height"),
    ("streamlit.elements.plotly_chart", "_resolve_content_width"),
    ("streamlit.proto.PlotlyChart_pb2", "PlotlyChart"),
    ("streamlit.string_util", "clean_text"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "ThreadState.get"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "FragmentThreadState.active_script_hash"),
)
"""Every part of Streamlit this module uses that is not its public API, as (module, dotted path in it), checked as
the wake's are (:func:`mvlab.ui.wake.missing_parts`)."""


@functools.cache  # not a Memo: one fact of this process (its Streamlit), no key, nothing to drop
def _usable() -> bool:
    """Whether this process's Streamlit has every part of :data:`PRIVATE_PARTS` (looked at once per process)."""
    return not wake.missing_parts(PRIVATE_PARTS)


def shared_chart(figure: go.Figure, key: str, alt: str) -> None:
    """``st.plotly_chart(figure, key=key, alt=alt)`` with its defaults (the width of the container, the figure's
    height, Streamlit's theme, no selection), where ``figure`` is frozen: its element built once per process for
    this key, text and place, and sent as built (Streamlit's own call where a part is gone, or for a figure built
    for one session)."""
    if not isinstance(figure, FrozenFigure) or not _usable():
        st.plotly_chart(figure, key=key, alt=alt)
        return
    from streamlit.elements.lib import agent_spec
    from streamlit.elements.lib.form_utils import current_form_id
    from streamlit.elements.plotly_chart import _plotly_data
    from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

    main = st._main
    dg = main._active_dg
    place = (ThreadState.get().active_script_hash, current_form_id(dg), dg._root_container)
    element, layout = derived(figure, f"chart element {key!r} {alt!r} {place!r}", lambda: _built(figure, key, alt))
    agent_props = agent_spec.element("plotly_chart", key=key, data_builder=lambda: _plotly_data(element.spec),
                                     alt=element.alt or None)
    main._enqueue("plotly_chart", element, layout_config=layout, agent_props=agent_props)


def _built(figure: FrozenFigure, key: str, alt: str):
    """The chart's element and layout as ``st.plotly_chart`` builds them for this call here (its id registered
    in this run as Streamlit's own call registers it)."""
    import json

    import plotly.io
    from streamlit.elements.lib.form_utils import current_form_id
    from streamlit.elements.lib.layout_utils import LayoutConfig
    from streamlit.elements.lib.utils import compute_and_register_element_id, normalize_alt
    from streamlit.elements.plotly_chart import _resolve_content_height, _resolve_content_width
    from streamlit.proto.PlotlyChart_pb2 import PlotlyChart

    main = st._main
    element = PlotlyChart(theme="streamlit", form_id=current_form_id(main),
                          spec=plotly.io.to_json(figure.to_dict(), validate=False), config=json.dumps({}))
    said = normalize_alt(alt)
    if said is not None:
        element.alt = said
    element.id = compute_and_register_element_id(
        "plotly_chart", user_key=key, key_as_main_identity=False, dg=main, plotly_spec=element.spec,
        plotly_config=element.config, selection_mode=("points", "box", "lasso"), is_selection_activated=False,
        theme="streamlit", width="stretch", height="content", alt=said)
    shape = figure.to_dict()
    return element, LayoutConfig(width=_resolve_content_width("stretch", shape),
                                 height=_resolve_content_height("content", shape))


MARKDOWN_KEPT = Memo(256)
"""The Markdown elements a process keeps (:func:`shared_markdown`), the 256 most recently sent."""


def shared_markdown(body: str, unsafe_allow_html: bool = False) -> None:
    """``st.markdown(body, unsafe_allow_html)`` with its defaults, its element built once per process for this text
    (kept for the next session that is sent the same: :data:`MARKDOWN_KEPT`); Streamlit's own call
    where a part is gone."""
    if not _usable():
        st.markdown(body, unsafe_allow_html=unsafe_allow_html)
        return
    from streamlit.elements.lib import agent_spec

    element, layout = MARKDOWN_KEPT.get((body, bool(unsafe_allow_html)),
                                        lambda: _built_markdown(body, bool(unsafe_allow_html)))
    agent_props = agent_spec.element("markdown", body=element.body, help=None,
                                     unsafe_allow_html=element.allow_html or None)
    st._main._enqueue("markdown", element, layout_config=layout, agent_props=agent_props)


def _built_markdown(body: str, unsafe_allow_html: bool):
    """The Markdown element and layout as ``st.markdown`` builds them for ``body``."""
    from streamlit.elements.lib.layout_utils import create_layout_config
    from streamlit.elements.markdown import MarkdownProto
    from streamlit.string_util import clean_text

    element = MarkdownProto(body=clean_text(body), allow_html=unsafe_allow_html,
                            element_type=MarkdownProto.Type.NATIVE, unterminated_parsing=False,
                            hide_anchors=False, wrap=True)
    return element, create_layout_config(text_alignment="left")
