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
        f"{v} ({axis_names[0]} {100 * projections[v][1][0]:.0f}%, {axis_names[1]} {100 * projections[v][1][1]:.0f}%)"
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


def class_order(labels: Sequence[str]) -> np.ndarray:
    """Row order that groups instances by class name, keeping their original order within a class."""
    labels = np.asarray(labels).astype(str)
    return np.lexsort((np.arange(len(labels)), labels))


def block_average(M: np.ndarray, max_size: int) -> tuple[np.ndarray, int]:
    """Average ``M`` (n, m) over square blocks of ``b`` x ``b`` cells, with the smallest ``b`` that
    brings both sides to at most ``max_size``; ragged edge blocks average what they hold.

    Returns (averaged matrix (ceil(n/b), ceil(m/b)) as float32, b)."""
    M = np.asarray(M, dtype=np.float64)
    b = max(1, math.ceil(max(M.shape) / max_size))
    if b == 1:
        return M.astype(np.float32), 1
    n, m = M.shape
    rows, cols = math.ceil(n / b), math.ceil(m / b)
    padded = np.full((rows * b, cols * b), np.nan)
    padded[:n, :m] = M
    blocks = padded.reshape(rows, b, cols, b)
    return np.nanmean(blocks, axis=(1, 3)).astype(np.float32), b


def dissimilarity_heatmap(
    D: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str] | None = None,
    *,
    title: str = "Dissimilarity",
    max_size: int = 400,
    zmax: float | None = 1.0,
) -> go.Figure:
    """Heatmap of a dissimilarity matrix (rows: instances, columns: reference instances), rows and
    columns grouped by class so that class blocks show, with class boundaries drawn.

    Matrices larger than ``max_size`` on a side are block-averaged (float32) so a 2000 x 2000
    matrix draws in about a second; the title says so.  Hover shows the row/column instance
    indices (ranges when averaged) and the value.  Exact values belong in downloads.
    """
    D = np.asarray(D)
    row_labels = np.asarray(row_labels).astype(str)
    col_labels = row_labels if col_labels is None else np.asarray(col_labels).astype(str)
    r_order, c_order = class_order(row_labels), class_order(col_labels)
    Z, b = block_average(D[np.ix_(r_order, c_order)], max_size)

    def ticks(order, labels, size):
        first = np.arange(0, len(order), b)
        ranges = [f"{s}–{min(s + b, len(order)) - 1}" if b > 1 else str(order[s]) for s in first]
        return np.array(ranges[:size]), labels[order][first][:size]

    y_text, y_cls = ticks(r_order, row_labels, Z.shape[0])
    x_text, x_cls = ticks(c_order, col_labels, Z.shape[1])
    hover_rows = np.char.add(np.char.add(y_text, " · class "), y_cls)
    hover_cols = np.char.add(np.char.add(x_text, " · class "), x_cls)
    fig = go.Figure(
        go.Heatmap(
            z=Z, x=hover_cols, y=hover_rows, colorscale="Viridis", zmin=0, zmax=zmax, colorbar=dict(title="d"),
            hovertemplate="row %{y}<br>column %{x}<br>d = %{z:.3f}<extra></extra>",
        )
    )
    for labels, order, axis in ((row_labels, r_order, "y"), (col_labels, c_order, "x")):
        edges = (np.flatnonzero(labels[order][1:] != labels[order][:-1]) + 1) / b - 0.5
        for e in edges:
            (fig.add_hline if axis == "y" else fig.add_vline)(e, line_width=1, line_color="white")
    note = f" (block-averaged {b}×{b}: {D.shape[0]}×{D.shape[1]} → {Z.shape[0]}×{Z.shape[1]})" if b > 1 else ""
    fig.update_yaxes(autorange="reversed", showticklabels=False, type="category",
                     title_text="instances (grouped by class)")
    fig.update_xaxes(showticklabels=False, type="category", title_text="training instances (grouped by class)")
    fig.update_layout(title=title + note, height=460, margin=dict(t=60, b=40, l=50, r=20))
    return fig


def method_accuracy(accuracy: Mapping[str, float], title: str = "Test accuracy on the same split") -> go.Figure:
    """Bar chart of test accuracy per method (e.g. per view combination), best bar highlighted."""
    names = list(accuracy)
    values = [float(accuracy[m]) for m in names]
    best = max(values) if values else 0
    fig = go.Figure(
        go.Bar(
            x=names, y=values, text=[f"{v:.3f}" for v in values], textposition="outside",
            marker_color=["#2ca02c" if v == best else "#7f7f7f" for v in values],
            hovertemplate="%{x}<br>accuracy %{y:.4f}<extra></extra>",
        )
    )
    low = min(values) if values else 0
    fig.update_layout(title=title, yaxis_title="accuracy", xaxis_type="category", height=340,
                      yaxis_range=[max(0.0, low - 0.1), 1.02], margin=dict(t=50, b=40, l=50, r=20))
    return fig


def view_weights(weights: Mapping[str, Sequence[float]], view_names: Sequence[str],
                 title: str = "View weights of each combination") -> go.Figure:
    """Grouped bars: for every combination (colour), the weight it gives each view (x).  A dashed
    line marks the uniform weight 1/Q of the average."""
    fig = go.Figure()
    palette = qualitative.Set2
    for i, (name, w) in enumerate(weights.items()):
        fig.add_trace(go.Bar(x=list(view_names), y=list(np.asarray(w, dtype=float)), name=name,
                             marker_color=palette[i % len(palette)],
                             hovertemplate=name + "<br>%{x}: %{y:.3f}<extra></extra>"))
    fig.add_hline(y=1 / max(1, len(view_names)), line_dash="dash", line_color="#444",
                  annotation_text="uniform 1/Q", annotation_position="top left")
    fig.update_layout(title=title, barmode="group", xaxis_title="view", yaxis_title="weight", height=360,
                      xaxis_type="category", legend_title_text="combination", margin=dict(t=50, b=40, l=50, r=20))
    return fig
