"""Values built once per server and shared by every session: a result's figures (a class that opens the same
result builds them once, not once per student) and results read back from the results store (one copy in
memory, not one per student).

Shared values are never changed in place: every session holds the same object. Both are :class:`mvlab.core.memo.Memo`
(computed once per key, a failure not kept, the least recently used dropped past their size).
"""

from __future__ import annotations

import json
from typing import Callable, TypeVar

import plotly.graph_objects as go

from mvlab.core.memo import Memo
from mvlab.i18n import current_language, direction, plotly_separators
from mvlab.viz.frozen import FrozenFigure, freeze

__all__ = ["VALUES", "RESULTS", "value", "figure", "localised", "mirrored", "stored_result"]

T = TypeVar("T")


VALUES = Memo(256)
"""Figures and embeddings of results (small, many)."""
RESULTS = Memo(8)
"""Results read back from the results store (large: at 100,000 rows a comparison keeps its maps)."""


def _key(name: str, key) -> str:
    """A value's key in :data:`VALUES` or :data:`RESULTS`: ``name`` and ``key`` (anything JSON can write)."""
    return json.dumps([name, key], sort_keys=True, default=str)


def value(name: str, key, compute: Callable[[], T]) -> T:
    """``compute()`` once per server for this ``name`` and ``key`` (a figure or an embedding of a result,
    keyed by the result's :func:`mvlab.engine.requests.result_key` and what else it depends on)."""
    return VALUES.get(_key(name, key), compute)


def figure(name: str, key, build: Callable[[], go.Figure]) -> FrozenFigure:
    """The figure ``build()`` once per server for this ``name``, ``key`` and the reader's language (its words are
    built in it, and its numbers written with the language's marks: :func:`localised`), frozen
    (:class:`mvlab.viz.frozen.FrozenFigure`): the sessions that draw it share its wire form instead of
    encoding its arrays again, each one."""
    return VALUES.get(_key(name, [key, current_language()]), lambda: freeze(localised(build())))


def localised(fig: go.Figure) -> go.Figure:
    """``fig`` with its hover values and ticks written with the reader's decimal and grouping marks
    (``layout.separators``), unless it sets its own, and, for a reader of a right-to-left language, a chart of
    horizontal bars mirrored as such a reader's charts are (:func:`mirrored`); ``fig`` itself, changed."""
    if fig.layout.separators is None:
        fig.layout.separators = plotly_separators()
    if direction(current_language()) == "rtl":
        mirrored(fig)
    return fig


def mirrored(fig: go.Figure) -> go.Figure:
    """A chart of horizontal bars (every bar trace ``orientation="h"``) read from the right: its categories on the
    right, its bars growing leftwards (the value axis reversed, a fixed range too). Charts whose horizontal axis is a
    quantity read left to right in every language (a k sweep, a map, a heatmap) are left as they are: Arabic
    writes numbers and their axes left to right. ``fig`` itself, changed."""
    bars = [t for t in fig.data if t.type == "bar"]
    if not bars or len(bars) != len(fig.data) or any(t.orientation != "h" for t in bars):
        return fig
    for axis in fig.select_xaxes():
        if axis.range is not None:
            axis.range = list(axis.range)[::-1]
        else:
            axis.autorange = "reversed"
    fig.update_yaxes(side="right")
    return fig


def stored_result(store, kind: str, fingerprint: str, settings, result_type):
    """The newest finished result for these data and settings in ``store``
    (:meth:`mvlab.store.ResultsStore.finished_result`), read back once per server for that
    run: the sessions that open it share one object.  None when there is none."""
    run_id = store.find_finished(kind, fingerprint, settings)
    if run_id is None:
        return None
    return RESULTS.get(_key("result", [store.location, run_id, result_type.__name__]),
                       lambda: store.run_result(run_id, result_type))
