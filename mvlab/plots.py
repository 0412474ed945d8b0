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


def view_selection_matrix(
    chosen_views: np.ndarray,
    view_names: Sequence[str],
    order: np.ndarray,
    row_text: Sequence[str],
    title: str = "Views used by each test instance",
) -> go.Figure:
    """Instances (rows, in ``order``) x views heatmap: 1 where the instance's chosen subset uses the view.

    ``row_text`` (n,) is shown on hover for every row (instance index, class, subset, correct).
    """
    chosen_views = np.asarray(chosen_views, dtype=bool)
    order = np.asarray(order)
    z = chosen_views[order].astype(int)
    text = np.repeat(np.asarray(row_text, dtype=object)[order][:, None], z.shape[1], axis=1)
    usage = chosen_views.mean(axis=0) if len(chosen_views) else np.zeros(len(view_names))
    fig = go.Figure(go.Heatmap(
        z=z, x=[f"{v} ({100 * u:.0f}%)" for v, u in zip(view_names, usage)], y=np.arange(len(order)), text=text,
        colorscale=[[0, "#e9ecef"], [1, "#d62728"]], zmin=0, zmax=1, showscale=False, xgap=2,
        hovertemplate="%{text}<br>%{x}: %{z}<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed", showticklabels=False, title_text="test instances")
    fig.update_xaxes(side="top")
    fig.update_layout(title=title + " (share of instances using each view)", height=460,
                      margin=dict(t=90, b=20, l=60, r=20))
    return fig


def subset_frequencies(names: Sequence[str], frequencies: Sequence[float], top: int = 15,
                       title: str = "How often each view subset was chosen") -> go.Figure:
    """Horizontal bars of the share of instances choosing each subset (the ``top`` most frequent)."""
    freq = np.asarray(frequencies, dtype=float)
    order = np.argsort(-freq, kind="stable")[:top]
    order = order[freq[order] > 0]
    fig = go.Figure(go.Bar(
        x=freq[order], y=[names[i] for i in order], orientation="h", marker_color="#d62728",
        text=[f"{100 * f:.0f}%" for f in freq[order]], textposition="outside",
        hovertemplate="%{y}<br>%{x:.1%} of test instances<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(title=title, xaxis_title="share of test instances", xaxis_tickformat=".0%",
                      height=max(260, 40 + 26 * len(order)), margin=dict(t=50, b=40, l=200, r=40))
    return fig


def region_of_competence_map(
    train_coords: np.ndarray,
    test_coords: np.ndarray,
    train_labels: Sequence[str],
    test_labels: Sequence[str],
    classes: Sequence[str],
    *,
    selected: int | None = None,
    region: Sequence[int] = (),
    region_hit: Sequence[bool] = (),
    title: str = "Joint dissimilarity space (click a test instance)",
) -> go.Figure:
    """2-D map of training (small, faint) and test (larger) instances coloured by class; the
    selected test instance is a black star and its region of competence (training positions
    ``region``) is ringed green where the chosen candidate's OOB prediction was right, red where wrong.

    Test points carry their test position in ``customdata`` (selection events return it).
    """
    colors = class_colors(list(classes))
    train_labels = np.asarray(train_labels).astype(str)
    test_labels = np.asarray(test_labels).astype(str)
    fig = go.Figure()
    for cls in classes:
        m = train_labels == str(cls)
        fig.add_trace(go.Scattergl(
            x=train_coords[m, 0], y=train_coords[m, 1], mode="markers", name=f"train {cls}", legendgroup=str(cls),
            marker=dict(color=colors[str(cls)], size=5, opacity=0.3), showlegend=False,
            hovertemplate=f"training instance, class {cls}<extra></extra>"))
    for cls in classes:
        m = np.flatnonzero(test_labels == str(cls))
        fig.add_trace(go.Scatter(
            x=test_coords[m, 0], y=test_coords[m, 1], mode="markers", name=str(cls), legendgroup=str(cls),
            marker=dict(color=colors[str(cls)], size=8, line=dict(width=0.5, color="#333")), customdata=m,
            hovertemplate="test instance %{customdata}<br>class " + str(cls) + "<extra></extra>"))
    region = np.asarray(region, dtype=int)
    if region.size:
        hit = np.asarray(region_hit, dtype=bool)
        fig.add_trace(go.Scatter(
            x=train_coords[region, 0], y=train_coords[region, 1], mode="markers", name="region of competence",
            marker=dict(size=14, color="rgba(0,0,0,0)", line=dict(width=2.5, color=np.where(hit, "#2ca02c", "#d62728"))),
            hovertemplate="neighbour (training)<extra></extra>"))
    if selected is not None:
        fig.add_trace(go.Scatter(
            x=[test_coords[selected, 0]], y=[test_coords[selected, 1]], mode="markers", name="selected",
            marker=dict(symbol="star", size=18, color="black"), hoverinfo="skip"))
    fig.update_layout(title=title, height=480, legend_title_text="class", clickmode="event+select",
                      margin=dict(t=50, b=30, l=30, r=20))
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False)
    return fig


def candidate_competence(names: Sequence[str], competence: Sequence[float], chosen: int,
                         title: str = "Competence of every candidate in this instance's region") -> go.Figure:
    """Bars of the competence of all 2^Q - 1 candidates (sorted, best first); the chosen one in red."""
    comp = np.asarray(competence, dtype=float)
    order = np.lexsort((np.arange(len(comp)), -comp))
    fig = go.Figure(go.Bar(
        x=[names[i] for i in order], y=comp[order],
        marker_color=["#d62728" if i == chosen else "#9ecae1" for i in order],
        hovertemplate="%{x}<br>competence %{y:.3f}<extra></extra>",
    ))
    fig.update_layout(title=title, yaxis_title="competence", yaxis_range=[0, 1.05], xaxis_type="category",
                      xaxis_tickangle=-45, height=380, margin=dict(t=50, b=140, l=50, r=20))
    return fig


def win_tie_loss(sign_tests, baseline: str, critical: Mapping[str, float],
                 title: str | None = None) -> go.Figure:
    """Stacked horizontal bars of wins / ties / losses of every method against ``baseline`` over
    datasets (ties split in half on each side, as the sign test counts them), with vertical
    lines at the critical numbers of wins (e.g. ``{"α = 0.05": 11.3, "α = 0.10": 10.7}``), like
    Fig. 3 of the dynamic view selection paper.

    ``sign_tests`` is the ``sign_tests`` table of :class:`mvlab.report.ComparisonReport`.
    """
    methods = list(sign_tests.index)
    fig = go.Figure()
    for label, values, color in (("wins", sign_tests["wins"], "#2ca02c"), ("ties", sign_tests["ties"], "#c7c7c7"),
                                 ("losses", sign_tests["losses"], "#d62728")):
        fig.add_trace(go.Bar(y=methods, x=list(values), name=label, orientation="h", marker_color=color,
                             hovertemplate="%{y}: %{x} " + label + "<extra></extra>"))
    for (name, value), dash in zip(critical.items(), ("solid", "dash", "dot")):
        fig.add_vline(x=value, line_dash=dash, line_color="#333",
                      annotation_text=name, annotation_position="top")
    n = int((sign_tests[["wins", "ties", "losses"]].sum(axis=1)).max()) if len(sign_tests) else 0
    fig.update_layout(title=title or f"Wins / ties / losses against {baseline} over {n} dataset(s)", barmode="stack",
                      xaxis_title="datasets", xaxis_range=[0, max(n, 1)], height=120 + 40 * len(methods),
                      yaxis_type="category", margin=dict(t=70, b=40, l=120, r=20))
    return fig


def average_rank_bars(ranks, title: str = "Average rank over datasets (1 = best)") -> go.Figure:
    """Bars of average ranks (a pandas Series, method -> rank), best first."""
    ranks = ranks.sort_values(kind="stable")
    fig = go.Figure(go.Bar(x=list(ranks.index), y=list(ranks.values), text=[f"{r:.2f}" for r in ranks.values],
                           textposition="outside", marker_color="#1f77b4",
                           hovertemplate="%{x}: rank %{y:.2f}<extra></extra>"))
    fig.update_layout(title=title, yaxis_title="average rank", xaxis_type="category", height=320,
                      margin=dict(t=50, b=40, l=50, r=20))
    return fig
