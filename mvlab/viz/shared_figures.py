"""Figures that several pages draw: 2-D projections coloured by class (Data, Dissimilarity) and test
accuracy per method (Dissimilarity, Dynamic view selection)."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mvlab.viz.palette import GREEN, GREY, class_colors

__all__ = ["view_projections", "method_accuracy"]


def view_projections(
    projections: Mapping[str, tuple[np.ndarray, np.ndarray]],
    labels: Sequence[str],
    classes: Sequence[str],
    *,
    columns: int = 3,
    title: str = "PCA of each view (standardised features), coloured by class",
    axis_names: tuple[str, str] = ("PC1", "PC2"),
) -> go.Figure:
    """One scatter per view of a 2-D projection, points coloured by class.

    Parameters
    ----------
    projections : mapping view name -> (coords (n, 2), explained (2,))
    labels : class name of each instance, length n
    classes : all class names (fixes colours and legend order)

    Hovering a point shows its row index in the dataset and its class; ``customdata`` holds the
    row index so that a selection event can be mapped back to the instance.
    """
    labels = np.asarray(labels).astype(str)
    names = list(projections)
    cols = max(1, min(columns, len(names)))
    rows = math.ceil(len(names) / cols)
    subtitles = [
        f"{v}: {axis_names[0]} and {axis_names[1]} keep {100 * projections[v][1][0]:.0f}% and "
        f"{100 * projections[v][1][1]:.0f}% of the variance"
        for v in names
    ]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=subtitles, horizontal_spacing=0.06, vertical_spacing=0.12)
    colors = class_colors(list(classes))
    index = np.arange(len(labels))
    for k, view in enumerate(names):
        coords = np.asarray(projections[view][0])
        r, c = divmod(k, cols)
        for cls in classes:
            mask = labels == str(cls)
            if not mask.any():
                continue
            fig.add_trace(
                go.Scattergl(
                    x=coords[mask, 0], y=coords[mask, 1], mode="markers", name=str(cls), legendgroup=str(cls),
                    showlegend=k == 0, marker=dict(color=colors[str(cls)], size=5, opacity=0.75),
                    customdata=index[mask],
                    hovertemplate="instance %{customdata}<br>class " + str(cls) + "<extra>" + view + "</extra>",
                ),
                row=r + 1, col=c + 1,
            )
    fig.update_xaxes(showticklabels=False, title_text="")
    fig.update_yaxes(showticklabels=False, title_text="")
    fig.update_layout(title=title, height=300 * rows + 110, legend_title_text="class",
                      legend=dict(orientation="h", yanchor="top", y=-0.02, xanchor="left", x=0),
                      margin=dict(t=80, b=60, l=20, r=20))
    fig.update_annotations(font_size=12)
    return fig


def method_accuracy(accuracy: Mapping[str, float], title: str = "Test accuracy on the same split") -> go.Figure:
    """Bar chart of test accuracy per method (e.g. per view combination), best bar highlighted."""
    names = list(accuracy)
    values = [float(accuracy[m]) for m in names]
    best = max(values) if values else 0
    fig = go.Figure(
        go.Bar(
            x=names, y=values, text=[f"{v:.3f}" for v in values], textposition="outside",
            marker_color=[GREEN if v == best else GREY for v in values],
            hovertemplate="%{x}<br>accuracy %{y:.4f}<extra></extra>",
        )
    )
    low = min(values) if values else 0
    fig.update_layout(title=title, yaxis_title="accuracy", xaxis_type="category", height=340,
                      yaxis_range=[max(0.0, low - 0.1), 1.02], margin=dict(t=50, b=40, l=50, r=20))
    return fig
