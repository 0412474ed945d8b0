"""A finished figure that many sessions draw: its wire form computed once.

Streamlit's ``st.plotly_chart`` asks every session's figure for ``to_dict()``, and a ``go.Figure``
answers with a deep copy in which every array is encoded again (base64 typed arrays, plotly's
wire form): for the figures of one result, shared by a class (:func:`mvlab.ui.shared.figure`),
that was most of the server's work to send a result page, once per student.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["FrozenFigure", "freeze", "without_drag"]


class FrozenFigure(go.Figure):
    """A figure whose dict form (arrays already encoded) was computed once, by :func:`freeze`:
    :meth:`to_dict` returns that dict itself, not a copy.  Never change a frozen figure or its
    dict: sessions share them."""

    _frozen: dict

    def to_dict(self) -> dict:
        """The dict form computed by :func:`freeze`, itself and not a copy (never change it)."""
        return self._frozen


def freeze(figure: go.Figure) -> FrozenFigure:
    """``figure`` itself, frozen: its dict form computed now and kept (no copy of the figure,
    which would validate it all again); its JSON (``plotly.io.to_json``) is unchanged."""
    if not isinstance(figure, FrozenFigure):
        figure._frozen = figure.to_dict()
        figure.__class__ = FrozenFigure
    return figure


def without_drag(figure: go.Figure) -> FrozenFigure:
    """``figure`` with no drag mode (``layout.dragmode = False``: on a touch screen a finger dragging across
    it scrolls the page instead of zooming the figure; hover and taps still show values), frozen. Built once
    per frozen figure and kept with it (sessions share both); ``figure`` itself is not changed."""
    kept = getattr(figure, "_without_drag", None)
    if kept is not None:
        return kept
    variant = freeze(go.Figure(figure).update_layout(dragmode=False))
    if isinstance(figure, FrozenFigure):
        figure._without_drag = variant  # two sessions may both build it: either copy is right
    return variant
