"""A figure on a page with its text alternative (issue #47): the chart, then one element under it that says what it
shows for this run in a sentence and holds its data as a table in a closed disclosure
(:func:`mvlab.viz.describe.describe`, :func:`mvlab.viz.describe.data_disclosure`), read by a screen reader right after
the chart. One element, not three (a caption, an expander and its table): a class woken to a revealed answer is sent
each figure's text once per student (issue #53, item 10). A figure shared by many sessions (:mod:`mvlab.viz.frozen`)
keeps its text in its cache, made once."""

from __future__ import annotations

import html

from mvlab.i18n import _, current_language
from mvlab.ui.shared import localised
from mvlab.viz.describe import data_disclosure, describe
from mvlab.viz.frozen import FrozenFigure, derived

__all__ = ["show_figure", "figure_text", "text_alternative"]

ROWS_SHOWN, COLUMNS_SHOWN = 200, 12
"""The part of a figure's data table written on the page (a larger table says how much more there is)."""


def figure_text(figure) -> tuple[str, str]:
    """``(sentence, data)`` of a figure: its sentence ("Figure: …", plain text) and its data as an HTML disclosure
    (:func:`mvlab.viz.describe.data_disclosure`, at most ``ROWS_SHOWN`` × ``COLUMNS_SHOWN``; "" for a figure with no
    data). Kept in a frozen figure's cache (:func:`mvlab.viz.frozen.derived`): the sessions that share the figure
    share its text too."""

    def text() -> tuple[str, str]:
        described = describe(figure)
        return (_("Figure:") + f" {described.sentence}",
                data_disclosure(described.table, rows=ROWS_SHOWN, columns=COLUMNS_SHOWN))

    return derived(figure, f"text_alternative:{current_language()}", text)  # each reader's language its own


def text_alternative(figure, caption: str = "") -> str:
    """The body of the one element under ``figure``: ``caption`` (Markdown written by mvlab, e.g. a lesson step's
    caption) first when given, then the sentence, escaped, and the data disclosure, as one HTML block (nothing from
    the figure's data is read as Markdown or HTML)."""
    sentence, data = figure_text(figure)
    block = f"<p>{html.escape(' '.join(sentence.split()), quote=False)}</p>{data}"
    return f"{caption}\n\n{block}" if caption else block


def show_figure(where, figure, *, key: str | None = None, caption: str = "", **chart_options):
    """Draw ``figure`` in ``where`` (``st``, a column, a container) followed by its text alternative
    (:func:`text_alternative`, with ``caption`` first) as one caption element; returns what ``plotly_chart`` returns
    (a selection, with ``on_select``)."""
    if not isinstance(figure, FrozenFigure):  # built for this reader (a shared one is localised when built)
        localised(figure)
    drawn = where.plotly_chart(figure, key=key, **chart_options)
    where.caption(text_alternative(figure, caption), unsafe_allow_html=True)
    return drawn
