"""A figure on a page with its text alternative (issue #47): the chart, then a sentence that says what it shows for
this run and, in an expander, its data as a table (:func:`mvlab.viz.describe.describe`), read by a screen reader
right after the chart. A figure shared by many sessions (:mod:`mvlab.viz.frozen`) keeps its text with it, made once."""

from __future__ import annotations

import streamlit as st

from mvlab.experiments.report import markdown
from mvlab.viz.describe import describe

__all__ = ["show_figure", "figure_text"]

ROWS_SHOWN = 200
"""Rows of a figure's data table written on the page (a larger table says how many more there are)."""


def figure_text(figure) -> tuple[str, str]:
    """``(sentence, markdown table)`` of a figure, kept on the figure object (sessions that share a frozen figure
    share its text too)."""
    kept = getattr(figure, "_text_alternative", None)
    if kept is not None:
        return kept
    described = describe(figure)
    table = described.table
    more = len(table) - ROWS_SHOWN
    text = markdown(table.head(ROWS_SHOWN).round(4), index=False) if not table.empty else ""
    if more > 0:
        text += f"\n\n{more} more rows (the page's download has them all)."
    kept = (f"Figure: {described.sentence}", text)
    try:
        figure._text_alternative = kept
    except AttributeError:
        pass
    return kept


def show_figure(figure, *, key: str | None = None, container=None, **chart_options) -> None:
    """Draw ``figure`` in ``container`` (default: where the page is) followed by its sentence and its data."""
    where = st if container is None else container
    where.plotly_chart(figure, key=key, **chart_options)
    sentence, table = figure_text(figure)
    where.caption(sentence)
    if table:
        with where.expander("The figure's data as a table"):
            st.markdown(table)
