"""A finished figure that many sessions draw: its wire form computed once.

Streamlit's ``st.plotly_chart`` asks every session's figure for ``to_dict()``, and a ``go.Figure``
answers with a deep copy in which every array is encoded again (base64 typed arrays, plotly's
wire form): for the figures of one result, shared by a class (:func:`mvlab.ui.runs.shared_figure`),
that was most of the server's work to send a result page, once per student.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["FrozenFigure"]


class FrozenFigure(go.Figure):
    """``figure`` whose dict form (``figure.to_dict()``: arrays already encoded) is computed once;
    :meth:`to_dict` returns that dict itself, not a copy.  Its JSON (``plotly.io.to_json``) is
    the figure's own.  Never change a frozen figure or its dict: sessions share them."""

    def __init__(self, figure: go.Figure):
        super().__init__(figure)
        self._frozen = figure.to_dict()

    def to_dict(self) -> dict:
        return self._frozen
