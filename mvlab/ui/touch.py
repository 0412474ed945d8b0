"""Phones and tablets: a figure must not take the page's scrolling there (a class round's students open the
link on their phones, and a finger that lands on a figure while scrolling would zoom it instead)."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from mvlab.viz.frozen import without_drag

__all__ = ["on_a_touch_screen", "for_this_screen"]


def on_a_touch_screen() -> bool:
    """Whether this session's browser says it is a phone or a tablet: "Mobi" (the usual test of a mobile
    browser's User-Agent) or "Android" in its User-Agent header."""
    try:
        agent = st.context.headers.get("User-Agent", "") or ""
    except (AttributeError, RuntimeError):  # no browser behind this run (AppTest, a script)
        return False
    return "Mobi" in agent or "Android" in agent


def for_this_screen(figure: go.Figure) -> go.Figure:
    """``figure`` as this session's screen takes it: on a touch screen without its drag mode
    (:func:`mvlab.viz.frozen.without_drag`), elsewhere unchanged."""
    return without_drag(figure) if on_a_touch_screen() else figure
