"""A figure on a page with its text alternative (issue #47): the chart, then a sentence that says what it shows for
this run and, in an expander, its data as a table (:func:`mvlab.viz.describe.describe`), read by a screen reader
right after the chart. A figure shared by many sessions (:mod:`mvlab.viz.frozen`) keeps its text with it, made once."""

from __future__ import annotations

import streamlit as st

from mvlab.experiments.report import markdown
from mvlab.viz.describe import describe

__all__ = ["show_figure", "figure_text"]

ROWS_SHOWN, COLUMNS_SHOWN = 200, 12
"""The part of a figure's data table written on the page (a larger table says how much more there is)."""


def figure_text(figure) -> tuple[str, str]:
    """``(sentence, markdown table)`` of a figure, kept on the figure object (sessions that share a frozen figure
    share its text too)."""
    kept = getattr(figure, "_text_alternative", None)
    if kept is not None:
        return kept
    described = describe(figure)
    table = described.table
    more_rows, more_columns = len(table) - ROWS_SHOWN, table.shape[1] - COLUMNS_SHOWN
    shown = table.iloc[:ROWS_SHOWN, :COLUMNS_SHOWN]
    text = markdown(shown.round(4), index=False) if not table.empty else ""
    more = [f"{n} more {what}" for n, what in ((more_rows, "rows"), (more_columns, "columns")) if n > 0]
    if more:
        text += f"\n\n{' and '.join(more)} not written here."
    figure._text_alternative = kept = (f"Figure: {described.sentence}", text)
    return kept


def show_figure(where, figure, *, key: str | None = None, **chart_options):
    """Draw ``figure`` in ``where`` (``st``, a column, a container) followed by its sentence and its data; returns
    what ``plotly_chart`` returns (a selection, with ``on_select``)."""
    drawn = where.plotly_chart(figure, key=key, **chart_options)
    sentence, table = figure_text(figure)
    where.caption(sentence)
    if table:
        with where.expander("The figure's data as a table"):
            st.markdown(table)
    return drawn
