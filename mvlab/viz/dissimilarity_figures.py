"""Figures of the dissimilarity page: a class-grouped dissimilarity heatmap (at most
:data:`HEATMAP_MAX_SIZE` rows and columns drawn: block means or a class-stratified sample of a larger
matrix, said on the figure) and the view weights of each combination."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

from mvlab.core.sampling import class_order, stratified_rows
from mvlab.i18n import _, format_number
from mvlab.viz.palette import REFERENCE_LINE, WHITE, nth_color

__all__ = ["HEATMAP_MAX_SIZE", "block_average", "dissimilarity_heatmap", "view_weights"]

HEATMAP_MAX_SIZE = 200
"""Rows (and columns) a dissimilarity heatmap draws at most.  Its plot area is about 400 pixels
high, so more rows share pixels and show nothing more, while the figure's data, sent to every
browser that opens the page, grows with their square (a class of 30 opening a result of 284
training rows received 0.6 MB per heatmap; 0.15 MB at this cap)."""


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


def _reduced(D: np.ndarray, row_labels: np.ndarray, col_labels: np.ndarray, square: bool, max_size: int,
             reduce: str, random_state) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, str]:
    """The class-grouped matrix as drawn: (Z, labels of its rows, of its columns, block side b, note)."""
    if reduce == "sample":
        rows = stratified_rows(row_labels, max_size, random_state)
        cols = rows if square else stratified_rows(col_labels, max_size, random_state)
        note = "" if len(rows) == D.shape[0] and len(cols) == D.shape[1] else _(
            "drawn from a class-stratified sample of {rows} × {columns} of the {total_rows} × {total_columns} "
            "matrix").format(rows=format_number(len(rows)), columns=format_number(len(cols)),
                             total_rows=format_number(D.shape[0]), total_columns=format_number(D.shape[1]))
        return (np.asarray(D[np.ix_(rows, cols)], dtype=np.float32), row_labels[rows], col_labels[cols], 1, note)
    if reduce != "block":
        raise ValueError(f"reduce must be 'block' or 'sample', got {reduce!r}.")
    r_order, c_order = class_order(row_labels), class_order(col_labels)
    Z, b = block_average(D[np.ix_(r_order, c_order)], max_size)
    # Translators: a matrix drawn reduced: each of its rows × columns cells is the mean of a block of side × side
    # cells of the whole matrix (total_rows × total_columns)
    note = "" if b == 1 else _("drawn as {rows} × {columns} blocks of {side} × {side} of the {total_rows} × "
                               "{total_columns} matrix (block means)").format(
        rows=format_number(Z.shape[0]), columns=format_number(Z.shape[1]), side=format_number(b),
        total_rows=format_number(D.shape[0]), total_columns=format_number(D.shape[1]))
    return Z, row_labels[r_order], col_labels[c_order], b, note


def dissimilarity_heatmap(
    D: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str] | None = None,
    *,
    title: str | None = None,
    max_size: int = HEATMAP_MAX_SIZE,
    reduce: str = "block",
    random_state=0,
    zmax: float | None = 1.0,
    max_class_labels: int = 25,
    sample_note: str = "",
) -> go.Figure:
    """Heatmap of a dissimilarity matrix ``D`` (n, m) (rows: instances, columns: reference
    instances), rows and columns grouped by class, every class block named on both axes and outlined.

    A matrix larger than ``max_size`` on a side is drawn reduced, and the figure's subtitle says
    how: ``reduce="block"`` draws the means of b x b blocks of the class-grouped matrix (every cell
    counts; b the smallest that fits), ``reduce="sample"`` the cells of a class-stratified sample
    of ``max_size`` rows (:func:`stratified_rows`, ``random_state``; the same rows as columns when
    ``col_labels`` is None), for matrices too large to average.  The class boundaries are *one*
    line trace whatever the number of classes (a shape per boundary made 100 classes draw 20 times
    slower); with more than ``max_class_labels`` classes every few are named.  Hover gives the
    position of the row and column in the drawn order and the value.  Exact values belong in downloads.
    ``sample_note`` says, first in the subtitle, that ``D`` is itself a sample of larger data (e.g. "a
    class-stratified sample of 1,000 of the 100,000 training rows").  ``title``: None for "Dissimilarity".
    """
    title = _("Dissimilarity") if title is None else title
    D = np.asarray(D)
    row_labels = np.asarray(row_labels).astype(str)
    square = col_labels is None
    col_labels = row_labels if square else np.asarray(col_labels).astype(str)
    Z, r_labels, c_labels, b, note = _reduced(D, row_labels, col_labels, square, max_size, reduce, random_state)
    note = "; ".join(part for part in (sample_note, note) if part)
    n_rows, n_cols = Z.shape
    traces = [go.Heatmap(
        z=Z, x0=0, dx=1, y0=0, dy=1, colorscale="Viridis", zmin=0, zmax=zmax,
        colorbar=dict(title=dict(text=_("dissimilarity"), side="right")),
        # Translators: a cell of a dissimilarity heatmap: its row and column (%{y}, %{x}: their positions)
        hovertemplate=(_("row %{y} · column %{x}")
                       # Translators: a cell of the heatmap is the mean of a block of side × side cells
                       + (" " + _("(blocks of {side}×{side})").format(side=format_number(b)) if b > 1 else "")
                       + "<br>" + _("dissimilarity %{z:.3f}") + "<extra></extra>"),
    )]
    r_edges, r_mid, r_names = _class_blocks(r_labels, b)
    c_edges, c_mid, c_names = _class_blocks(c_labels, b)
    xs, ys = [], []
    for e in r_edges:
        xs += [-0.5, n_cols - 0.5, None]
        ys += [e, e, None]
    for e in c_edges:
        xs += [e, e, None]
        ys += [-0.5, n_rows - 0.5, None]
    if xs:
        traces.append(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=WHITE, width=1), hoverinfo="skip",
                                 showlegend=False))
    yt, yn = _thin(r_mid, r_names, max_class_labels)
    xt, xn = _thin(c_mid, c_names, max_class_labels)
    step = math.ceil(len(r_names) / max_class_labels)
    if len(r_names) <= max_class_labels:
        rows_title, columns_title = _("instances, by class"), _("training instances, by class")
    else:
        # Translators: an axis title; with many classes only every {k}th class is named on the axis
        rows_title = _("instances, by class, every {k}th named").format(k=format_number(step))
        # Translators: an axis title; with many classes only every {k}th class is named on the axis
        columns_title = _("training instances, by class, every {k}th named").format(k=format_number(step))
    axis = dict(showgrid=False, zeroline=False, automargin=True)
    # one layout, validated once (each update_* call parses and validates again: most of the build time)
    layout = dict(
        yaxis=dict(autorange="reversed", tickvals=yt, ticktext=yn, range=[n_rows - 0.5, -0.5],
                   title=dict(text=rows_title), **axis),
        xaxis=dict(tickvals=xt, ticktext=xn, range=[-0.5, n_cols - 0.5], tickangle=-45 if len(xn) > 8 else 0,
                   title=dict(text=columns_title), **axis),
        title=dict(text=title, subtitle=dict(text=note)), height=500,
        margin=dict(t=70 if note else 60, b=40, l=50, r=20))
    return go.Figure(data=traces, layout=layout)


def view_weights(weights: Mapping[str, Sequence[float]], view_names: Sequence[str],
                 title: str | None = None) -> go.Figure:
    """Grouped bars: for every combination (colour), the weight it gives each view (x).  A dashed
    line marks the uniform weight 1/Q of the average.  Built from one layout (each ``update_*`` or
    ``add_hline`` call parses and validates again: three times the build time, once per result).  ``title``: None
    for "View weights of each combination"."""
    title = _("View weights of each combination") if title is None else title
    uniform = 1 / max(1, len(view_names))
    traces = [go.Bar(x=list(view_names), y=list(np.asarray(w, dtype=float)), name=name,
                     marker_color=nth_color(qualitative.Set2, i),
                     hovertemplate=name + "<br>%{x}: %{y:.3f}<extra></extra>")
              for i, (name, w) in enumerate(weights.items())]
    layout = dict(
        title=dict(text=title), barmode="group", height=360, margin=dict(t=50, b=40, l=50, r=20),
        # Translators: an axis title: a view of multi-view data (one of its sets of features)
        xaxis=dict(title=dict(text=_("view")), type="category"),
        # Translators: an axis title: the weight a combination gives a view
        yaxis=dict(title=dict(text=_("weight"))),
        # Translators: a legend's title: a way of combining the views' dissimilarities (e.g. an average)
        legend=dict(title=dict(text=_("combination"))),
        shapes=[dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=uniform, y1=uniform,
                     line=dict(dash="dash", color=REFERENCE_LINE))],
        # Translators: the line of the uniform weight 1/Q (Q: the number of views)
        annotations=[dict(text=_("uniform 1/Q"), showarrow=False, xref="x domain", x=0, xanchor="left",
                          yref="y", y=uniform, yanchor="bottom")],
    )
    return go.Figure(data=traces, layout=layout)
