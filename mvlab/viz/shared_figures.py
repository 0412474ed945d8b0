"""Figures that several pages draw: 2-D projections coloured by class (Data, Dissimilarity) and test
accuracy per method (Dissimilarity, Dynamic view selection)."""

from __future__ import annotations

import copy
import functools
import math
from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mvlab.i18n import _, format_number, format_percent
from mvlab.viz.palette import GREEN, GREY, class_colors, class_symbols

__all__ = ["view_projections", "method_accuracy"]


def view_projections(
    projections: Mapping[str, tuple[np.ndarray, np.ndarray]],
    labels: Sequence[str],
    classes: Sequence[str],
    *,
    columns: int = 3,
    title: str | None = None,
    axis_names: tuple[str, str] = ("PC1", "PC2"),
) -> go.Figure:
    """One scatter per view of a 2-D projection, points coloured by class.

    Parameters
    ----------
    projections : mapping view name -> (coords (n, 2), explained (2,))
    labels : class name of each instance, length n
    classes : all class names (fixes colours and legend order)
    title : the figure's title (None: "PCA of each view (standardised features), coloured by class")

    Hovering a point shows its row index in the dataset and its class; ``customdata`` holds the
    row index so that a selection event can be mapped back to the instance.
    """
    title = _("PCA of each view (standardised features), coloured by class") if title is None else title
    labels = np.asarray(labels).astype(str)
    names = list(projections)
    cols = max(1, min(columns, len(names)))
    rows = math.ceil(len(names) / cols)
    # Translators: {view}: a view's name; {first} and {second}: the projection's two axes (e.g. PC1 and PC2);
    # {first_share} and {second_share}: the percentages of the view's variance they keep
    keep = _("{view}: {first} and {second} keep {first_share} and {second_share} of the variance")
    subtitles = [keep.format(view=v, first=axis_names[0], second=axis_names[1],
                             first_share=format_percent(projections[v][1][0], 0),
                             second_share=format_percent(projections[v][1][1], 0))
                 for v in names]
    # Translators: %{customdata}: the instance's row number in the dataset
    instance = _("instance %{customdata}") + "<br>"
    # Translators: {cls} is the name of an instance's class (its label), e.g. "class setosa"
    class_of = _("class {cls}")
    colors, symbols = class_colors(list(classes)), class_symbols(list(classes))
    index = np.arange(len(labels))
    traces = []
    for k, view in enumerate(names):
        coords = np.asarray(projections[view][0])
        axes = dict(xaxis=f"x{k + 1}" if k else "x", yaxis=f"y{k + 1}" if k else "y")  # subplot k, row-major
        for cls in classes:
            mask = labels == str(cls)
            if not mask.any():
                continue
            traces.append(go.Scattergl(
                x=coords[mask, 0], y=coords[mask, 1], mode="markers", name=str(cls), legendgroup=str(cls),
                showlegend=k == 0, marker=dict(color=colors[str(cls)], symbol=symbols[str(cls)], size=5, opacity=0.75),
                customdata=index[mask],
                hovertemplate=instance + class_of.format(cls=cls) + "<extra>" + view + "</extra>", **axes))
    # one layout, validated once: the subplot grid (axis domains, title positions) of make_subplots, computed once
    # per shape, then every axis, title and legend setting in it (each update_* call parses and validates again)
    layout = copy.deepcopy(_subplot_grid(rows, cols, len(names)))
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")):
            axis.update(showticklabels=False, title=dict(text=""))
    for annotation, text in zip(layout["annotations"], subtitles):
        annotation.update(text=text, font=dict(size=12))
    layout.update(title=dict(text=title), height=300 * rows + 110, margin=dict(t=80, b=60, l=20, r=20),
                  legend=dict(title=dict(text=_("class")), orientation="h", yanchor="top", y=-0.02, xanchor="left",
                              x=0))
    return go.Figure(data=traces, layout=layout)


@functools.lru_cache(maxsize=32)  # not a Memo: a pure function of three small ints, a plain lru_cache
def _subplot_grid(rows: int, cols: int, n_titles: int) -> dict:
    """The layout of :func:`make_subplots` for this grid with ``n_titles`` subplot titles (placeholders), the
    default template left out (a figure applies it itself).  Never change it: callers copy it."""
    grid = make_subplots(rows=rows, cols=cols, subplot_titles=[f"_{i}" for i in range(n_titles)],
                         horizontal_spacing=0.06, vertical_spacing=0.12).layout.to_plotly_json()
    grid.pop("template", None)
    return grid


def method_accuracy(accuracy: Mapping[str, float], title: str | None = None, *,
                    highlight: str | None = "best", floor: float | None = None) -> go.Figure:
    """Bar chart of test accuracy per method (e.g. per view combination).

    ``highlight``: ``"best"`` colours the highest bar (and says "best" on it), a method's name colours that bar (a
    reference, said on it), None
    colours none (when the highest bar is not the one to trust).  ``floor``: the y axis starts there (default:
    0.1 below the lowest bar, which magnifies small gaps).  ``title``: None for "Test accuracy on the same split".
    """
    title = _("Test accuracy on the same split") if title is None else title
    names = list(accuracy)
    values = [float(accuracy[m]) for m in names]
    best = max(values) if values else 0
    low = min(values) if values else 0
    marked = [(highlight == "best" and v == best) or m == highlight for m, v in zip(names, values)]
    # the bar's colour is never said by colour alone
    # Translators: a bar's label: the method with the highest accuracy
    best_word = _("best")
    # Translators: a bar's label: the method the others are compared with
    word = best_word if highlight == "best" else _("reference")
    bars = go.Bar(x=names, y=values, text=[format_number(v, 3) + "<br>" + word if on else format_number(v, 3)
                                           for v, on in zip(values, marked)],
                  textposition="outside", marker_color=[GREEN if on else GREY for on in marked],
                  hovertemplate="%{x}<br>" + _("accuracy %{y:.4f}") + "<extra></extra>")
    # one layout, validated once (an update_layout call parses and validates again)
    return go.Figure(data=[bars], layout=dict(
        title=dict(text=title), height=340, margin=dict(t=50, b=40, l=50, r=20), xaxis=dict(type="category"),
        yaxis=dict(title=dict(text=_("accuracy")), range=[max(0.0, low - 0.1) if floor is None else floor, 1.02])))
