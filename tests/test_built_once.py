"""Elements built once per process (mvlab.ui.built_once): a shared figure's chart and a Markdown text are sent as
``st.plotly_chart`` and ``st.markdown`` send them, field by field, wherever they are drawn; a chart is built once for
every session; where a private part of Streamlit is gone, or the figure is not frozen, Streamlit's own call draws it;
every private part used is listed and there in the installed Streamlit."""

import sys
import textwrap

import pytest
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest

from mvlab.core.memo import Memo
from mvlab.ui import built_once
from mvlab.ui import streamlit_insides as insides

SCRIPT = """
import streamlit as st

from mvlab.ui.built_once import shared_chart
from one_figure import FIGURE

draw = shared_chart if st.session_state.get("fast") else (lambda f, key, alt: st.plotly_chart(f, key=key, alt=alt))
where = st.session_state.get("where", "main")
with st.sidebar if where == "sidebar" else st.columns(2)[1] if where == "column" else st.container():
    draw(FIGURE, key="chart", alt=st.session_state.get("alt", "Two bars, b the higher (2)."))
"""


@pytest.fixture
def one_figure(tmp_path, monkeypatch):
    """Makes ``one_figure.FIGURE``, a frozen figure that every run and session of the test shares (as a server's
    sessions share a lesson's figures), from ``layout`` (a ``update_layout`` call's arguments)."""
    def make(layout: str = "") -> None:
        (tmp_path / "one_figure.py").write_text(textwrap.dedent(f"""
            import plotly.graph_objects as go
            from mvlab.viz.frozen import freeze

            FIGURE = freeze(go.Figure(go.Bar(x=["a", "b"], y=[1, 2])).update_layout({layout}))
        """))
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.delitem(sys.modules, "one_figure", raising=False)
    return make


class _Sent(list):
    kinds: set


@pytest.fixture
def sent(monkeypatch):
    """What every ``DeltaGenerator._enqueue`` of a chart sends (or of Markdown too, once ``kinds`` is given that):
    (element, layout, agent props), in order."""
    charts, kinds = _Sent(), {"plotly_chart"}
    enqueue = DeltaGenerator._enqueue

    def recording(self, delta_type, element_proto, layout_config=None, **kwargs):
        if delta_type in kinds:
            charts.append((element_proto.SerializeToString(deterministic=True), layout_config,
                           kwargs.get("agent_props")))
        return enqueue(self, delta_type, element_proto, layout_config=layout_config, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "_enqueue", recording)
    charts.kinds = kinds
    return charts


@pytest.mark.parametrize("layout", ["", "height=320, width=500"])
def test_the_element_sent_is_the_one_streamlit_sends_in_every_place(layout, one_figure, sent):
    """In the main area, the sidebar and a column, with another text, with the figure's own height or Streamlit's:
    the same element (its id, spec, text alternative, theme, form), width and height as ``st.plotly_chart``'s, the
    figure shared by every run. Fails when the element's theme is built otherwise (tried: ``theme=""``), when the
    sidebar gets the main area's element (tried: the cache's key without the root container), or when the height
    is not resolved from the figure (tried: ``height="content"``)."""
    one_figure(layout)
    places = [("main", "Two bars."), ("sidebar", "Two bars."), ("column", "Two bars."), ("main", "Other words.")]
    drawn = {}
    for fast in (False, True):
        for where, alt in places:
            app = AppTest.from_string(SCRIPT, default_timeout=30)
            app.session_state["fast"], app.session_state["where"], app.session_state["alt"] = fast, where, alt
            sent.clear()
            app.run()
            assert not app.exception and len(sent) == 1
            drawn[fast, where, alt] = sent[0]
    for where, alt in places:
        assert drawn[True, where, alt] == drawn[False, where, alt], (where, alt)
    assert len({drawn[False, where, alt][0] for where, alt in places}) == 3  # the column's is the main area's


def test_the_element_is_built_once_for_every_session_that_draws_the_figure(one_figure, monkeypatch, sent):
    """Two sessions drawing one frozen figure (a module's, as the lessons' figures are shared by a server) build its
    element once and send the same. Fails without the cache (tried: ``built_chart`` called directly)."""
    one_figure()
    built, build = [], insides.built_chart
    monkeypatch.setattr(insides, "built_chart", lambda *a: built.append(a[1]) or build(*a))
    script = ("from one_figure import FIGURE\nfrom mvlab.ui.built_once import shared_chart\n"
              "shared_chart(FIGURE, key='shared', alt='Three points.')\n")
    for _ in range(2):
        app = AppTest.from_string(script, default_timeout=30)
        app.run()
        assert not app.exception
    assert built == ["shared"] and len(sent) == 2 and sent[0] == sent[1]


def test_streamlit_draws_it_where_a_part_is_gone_or_the_figure_is_not_frozen(one_figure, monkeypatch, sent):
    """A figure built for one session, or a Streamlit without one of the parts: ``st.plotly_chart`` draws the chart,
    and nothing is built. Fails when the check is not made (tried: ``shared_chart`` without ``usable``)."""
    built = []
    monkeypatch.setattr(insides, "built_chart", lambda *a: built.append(1))
    script = ("import plotly.graph_objects as go\nfrom mvlab.ui.built_once import shared_chart\n"
              "shared_chart(go.Figure(go.Bar(y=[1])), key='mine', alt='One bar.')\n")
    app = AppTest.from_string(script, default_timeout=30)
    app.run()
    assert not app.exception and len(sent) == 1 and built == []

    one_figure()
    gone = "streamlit.delta_generator:DeltaGenerator._enqueue"  # as a Streamlit that renamed it
    monkeypatch.setattr(insides, "_CHECKED", Memo(None))
    monkeypatch.setattr(insides, "missing_parts",
                        lambda parts: (gone,) if parts == insides.FEATURES["built_once"].parts else ())
    app = AppTest.from_string(SCRIPT, default_timeout=30)
    app.session_state["fast"] = True
    app.run()
    assert not app.exception and len(sent) == 2 and built == []


MARKDOWN = """
import streamlit as st

from mvlab.ui.built_once import shared_markdown

draw = shared_markdown if st.session_state.get("fast") else st.markdown
draw("## A step\\n\\nIts text, with **bold** and a [link](https://example.org).")
draw("<progress value='2' max='6' aria-label='Step 2 of 6'></progress>\\n\\n## Step 2", unsafe_allow_html=True)
draw(\"\"\"
    An indented text: Streamlit dedents it.
        And keeps this line's extra indent.
    \"\"\")
with st.sidebar:
    draw("In the sidebar.")
with st.columns(2)[0]:
    draw("<b>In a column</b>", unsafe_allow_html=True)
"""


def test_markdown_sent_is_what_st_markdown_sends_and_built_once_per_text(monkeypatch, sent):
    """Texts with and without HTML, indented, in the sidebar and a column: the same element and layout as
    ``st.markdown``'s, each text cleaned once (a second session is sent the kept one). Fails when the text is not
    cleaned as Streamlit cleans it (tried: ``body=body``), when HTML is allowed for every text (tried:
    ``allow_html=True``), or when every session builds it again (tried: the keeping taken out)."""
    sent.kinds.add("markdown")
    built, build = [], insides.built_markdown
    monkeypatch.setattr(insides, "built_markdown", lambda *a: built.append(a[0]) or build(*a))
    monkeypatch.setattr(built_once, "MARKDOWN_KEPT", Memo(256))
    drawn = {}
    for fast in (False, True, True):
        app = AppTest.from_string(MARKDOWN, default_timeout=30)
        app.session_state["fast"] = fast
        sent.clear()
        app.run()
        assert not app.exception and len(sent) == 5
        drawn.setdefault(fast, []).append(list(sent))
    assert drawn[True][0] == drawn[False][0] == drawn[True][1]
    assert len(built) == 5  # five texts, built once for both sessions
