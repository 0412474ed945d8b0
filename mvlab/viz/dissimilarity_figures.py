"""Figures of the dissimilarity page: a class-grouped dissimilarity heatmap (block-averaged when large) and
the view weights of each combination."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

from mvlab.viz.palette import REFERENCE_LINE, WHITE, nth_color

__all__ = ["class_order", "block_average", "dissimilarity_heatmap", "view_weights"]


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


def _class_blocks(labels_in_order: np.ndarray, b: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Boundaries between classes (in cell units of a block-averaged axis), and the centre and name
    of every class block."""
    change = np.flatnonzero(labels_in_order[1:] != labels_in_order[:-1]) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [len(labels_in_order)]])
    return change / b - 0.5, (starts + ends) / 2 / b - 0.5, [str(labels_in_order[s]) for s in starts]


def _thin(centres: np.ndarray, names: list[str], max_labels: int) -> tuple[list[float], list[str]]:
    """Every few class centres and names, so that at most ``max_labels`` are named on an axis."""
    step = max(1, math.ceil(len(names) / max_labels))
    return [float(c) for c in centres[::step]], names[::step]


def dissimilarity_heatmap(
    D: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str] | None = None,
    *,
    title: str = "Dissimilarity",
    max_size: int = 400,
    zmax: float | None = 1.0,
    max_class_labels: int = 25,
) -> go.Figure:
    """Heatmap of a dissimilarity matrix (rows: instances, columns: reference instances), rows and
    columns grouped by class, every class block named on both axes and outlined.

    Matrices larger than ``max_size`` on a side are block-averaged (float32) so a 2000 x 2000
    matrix draws in about a second; the title says so.  The class boundaries are *one* line trace
    whatever the number of classes (a shape per boundary made 100 classes draw 20 times slower);
    with more than ``max_class_labels`` classes every few are named.  Hover gives the position of
    the row and column in the class-grouped order and the value.  Exact values belong in downloads.
    """
    D = np.asarray(D)
    row_labels = np.asarray(row_labels).astype(str)
    col_labels = row_labels if col_labels is None else np.asarray(col_labels).astype(str)
    r_order, c_order = class_order(row_labels), class_order(col_labels)
    Z, b = block_average(D[np.ix_(r_order, c_order)], max_size)
    n_rows, n_cols = Z.shape
    fig = go.Figure(go.Heatmap(
        z=Z, x0=0, dx=1, y0=0, dy=1, colorscale="Viridis", zmin=0, zmax=zmax,
        colorbar=dict(title=dict(text="dissimilarity", side="right")),
        hovertemplate=("row %{y} · column %{x}" + (f" (blocks of {b}×{b})" if b > 1 else "")
                       + "<br>dissimilarity %{z:.3f}<extra></extra>"),
    ))
    r_edges, r_mid, r_names = _class_blocks(row_labels[r_order], b)
    c_edges, c_mid, c_names = _class_blocks(col_labels[c_order], b)
    xs, ys = [], []
    for e in r_edges:
        xs += [-0.5, n_cols - 0.5, None]
        ys += [e, e, None]
    for e in c_edges:
        xs += [e, e, None]
        ys += [-0.5, n_rows - 0.5, None]
    if xs:
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=WHITE, width=1), hoverinfo="skip",
                                 showlegend=False))
    yt, yn = _thin(r_mid, r_names, max_class_labels)
    xt, xn = _thin(c_mid, c_names, max_class_labels)
    every = "" if len(r_names) <= max_class_labels else f", every {math.ceil(len(r_names) / max_class_labels)}th named"
    note = f" (block-averaged {b}×{b}: {D.shape[0]}×{D.shape[1]} → {n_rows}×{n_cols})" if b > 1 else ""
    fig.update_yaxes(autorange="reversed", tickvals=yt, ticktext=yn, range=[n_rows - 0.5, -0.5],
                     title_text=f"instances, by class{every}", showgrid=False, zeroline=False, automargin=True)
    fig.update_xaxes(tickvals=xt, ticktext=xn, range=[-0.5, n_cols - 0.5], tickangle=-45 if len(xn) > 8 else 0,
                     title_text=f"training instances, by class{every}", showgrid=False, zeroline=False,
                     automargin=True)
    fig.update_layout(title=title + note, height=500, margin=dict(t=60, b=40, l=50, r=20))
    return fig


def view_weights(weights: Mapping[str, Sequence[float]], view_names: Sequence[str],
                 title: str = "View weights of each combination") -> go.Figure:
    """Grouped bars: for every combination (colour), the weight it gives each view (x).  A dashed
    line marks the uniform weight 1/Q of the average."""
    fig = go.Figure()
    for i, (name, w) in enumerate(weights.items()):
        fig.add_trace(go.Bar(x=list(view_names), y=list(np.asarray(w, dtype=float)), name=name,
                             marker_color=nth_color(qualitative.Set2, i),
                             hovertemplate=name + "<br>%{x}: %{y:.3f}<extra></extra>"))
    fig.add_hline(y=1 / max(1, len(view_names)), line_dash="dash", line_color=REFERENCE_LINE,
                  annotation_text="uniform 1/Q", annotation_position="top left")
    fig.update_layout(title=title, barmode="group", xaxis_title="view", yaxis_title="weight", height=360,
                      xaxis_type="category", legend_title_text="combination", margin=dict(t=50, b=40, l=50, r=20))
    return fig
