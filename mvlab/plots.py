"""Plotly figure builders for the dashboard: pure functions, data in, ``go.Figure`` out.

Nothing here computes a model; callers pass numbers (counts, coordinates, matrices) and get a
figure that can be tested without a browser.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

__all__ = ["class_colors", "class_balance", "view_projections", "informative_matrix"]


def class_colors(classes: Sequence[str]) -> dict[str, str]:
    """A stable colour per class name (qualitative palette, 10 or 26 colours, cycled)."""
    palette = qualitative.Plotly if len(classes) <= 10 else qualitative.Alphabet
    return {c: palette[i % len(palette)] for i, c in enumerate(classes)}


def class_balance(counts: Mapping[str, int], title: str = "Instances per class") -> go.Figure:
    """Bar chart of instances per class; ``counts`` maps class name -> count (e.g. a Series)."""
    counts = dict(counts)
    names = [str(c) for c in counts]
    values = [int(v) for v in counts.values()]
    colors = class_colors(names)
    fig = go.Figure(
        go.Bar(
            x=names, y=values, marker_color=[colors[c] for c in names], text=values, textposition="outside",
            hovertemplate="class %{x}<br>%{y} instances<extra></extra>",
        )
    )
    fig.update_layout(title=title, xaxis_title="class", yaxis_title="instances", height=320,
                      margin=dict(t=50, b=40, l=50, r=20), xaxis_type="category")
    return fig


def view_projections(
    projections: Mapping[str, tuple[np.ndarray, np.ndarray]],
    labels: Sequence[str],
    classes: Sequence[str],
    *,
    columns: int = 3,
    title: str = "PCA of each view (standardised features), coloured by class",
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
        f"{v} (PC1 {100 * projections[v][1][0]:.0f}%, PC2 {100 * projections[v][1][1]:.0f}%)" for v in names
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
    fig.update_layout(title=title, height=300 * rows + 60, legend_title_text="class",
                      margin=dict(t=80, b=20, l=20, r=20))
    return fig


def informative_matrix(
    informative: np.ndarray,
    labels: Sequence[str],
    view_names: Sequence[str],
    title: str = "Ground truth: which views carry each instance's class",
) -> go.Figure:
    """Heatmap of the synthetic ground truth, instances (rows, grouped by class) x views.

    ``informative`` is the (n, Q) boolean matrix of :func:`mvlab.datasets.make_multiview_classification`.
    The hover shows the instance's row index in the dataset.
    """
    informative = np.asarray(informative, dtype=bool)
    labels = np.asarray(labels).astype(str)
    order = np.lexsort((np.arange(len(labels)), labels))
    z = informative[order].astype(int)
    rates = informative.mean(axis=0)
    x = [f"{v} ({100 * r:.0f}%)" for v, r in zip(view_names, rates)]
    fig = go.Figure(
        go.Heatmap(
            z=z, x=x, y=np.arange(len(order)), customdata=np.repeat(order[:, None], z.shape[1], axis=1),
            colorscale=[[0, "#e9ecef"], [1, "#1f77b4"]], zmin=0, zmax=1, showscale=False, xgap=2,
            text=np.repeat(labels[order][:, None], z.shape[1], axis=1),
            hovertemplate="instance %{customdata}<br>class %{text}<br>%{x}: %{z}<extra></extra>",
        )
    )
    boundaries = np.flatnonzero(labels[order][1:] != labels[order][:-1]) + 0.5
    for b in boundaries:
        fig.add_hline(y=b, line_width=1, line_color="#333")
    fig.update_yaxes(autorange="reversed", title_text="instances, grouped by class", showticklabels=False)
    fig.update_xaxes(title_text="view (share of instances for which it is informative)", side="top")
    fig.update_layout(title=title, height=420, margin=dict(t=90, b=20, l=60, r=20))
    return fig
