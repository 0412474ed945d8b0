"""A finished figure that many sessions draw: its wire form computed once, and what else is derived from it kept
with it in one explicit cache.

Streamlit's ``st.plotly_chart`` asks every session's figure for ``to_dict()``, and a ``go.Figure``
answers with a deep copy in which every array is encoded again (base64 typed arrays, plotly's
wire form): for the figures of one result, shared by a class (:func:`mvlab.ui.shared.figure`),
that was most of the server's work to send a result page, once per student. A :class:`FrozenFigure` answers
with the dict it computed once. What pages derive from a shared figure (its text alternative, its variant for
touch screens) is kept in the same figure's cache (:func:`derived`), not in attributes set on plotly objects.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import plotly.graph_objects as go

from mvlab.core.memo import Memo

__all__ = ["FrozenFigure", "freeze", "derived", "without_drag"]

T = TypeVar("T")


class FrozenFigure(go.Figure):
    """A copy of a figure (made by :func:`freeze` without validating it again) whose dict form, arrays already
    encoded, is computed once: :meth:`to_dict` returns that dict itself, not a copy; with a cache of the values
    derived from it (:func:`derived`). Never change a frozen figure or its dict: sessions share them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._wire: dict | None = None
        self._derived = Memo(None)  # what is derived from this figure lives as long as the figure

    def to_dict(self) -> dict:
        """The dict form computed by :func:`freeze`, itself and not a copy (never change it)."""
        return self._wire if self._wire is not None else super().to_dict()


def freeze(figure: go.Figure, **layout) -> FrozenFigure:
    """``figure`` frozen (itself when it is one already and ``layout`` is empty): a copy made without validating it
    again (its values were validated when it was built), ``layout`` changes applied to the copy, then its dict form
    computed once. ``figure`` itself is not changed; its JSON (``plotly.io.to_json``) is the copy's, less
    ``layout``."""
    if isinstance(figure, FrozenFigure) and not layout:
        return figure
    frozen = FrozenFigure(figure, _validate=False)
    if layout:
        frozen.update_layout(**layout)
    frozen._wire = go.Figure.to_dict(frozen)
    return frozen


def derived(figure: go.Figure, name: str, compute: Callable[[], T]) -> T:
    """``compute()`` for ``figure``, kept in a frozen figure's own memo under ``name`` (:class:`mvlab.core.memo.Memo`):
    computed once, the sessions that ask while it is computed wait for it and share it (a class woken to a revealed
    answer all ask at once: 17 of 150 students computed the same figure's text before, issue #53 item 10); for a
    figure that is not frozen (built for one session), computed each time."""
    if not isinstance(figure, FrozenFigure):
        return compute()
    return figure._derived.get(name, compute)


def without_drag(figure: go.Figure) -> FrozenFigure:
    """``figure`` with no drag mode (``layout.dragmode = False``: on a touch screen a finger dragging across
    it scrolls the page instead of zooming the figure; hover and taps still show values), frozen; built once
    per frozen figure and kept in its cache (:func:`derived`); ``figure`` itself is not changed."""
    return derived(figure, "without_drag", lambda: freeze(figure, dragmode=False))
