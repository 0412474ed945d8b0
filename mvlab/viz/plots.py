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
    xs = [v for bnd in boundaries for v in (-0.5, len(view_names) - 0.5, None)]
    ys = [v for bnd in boundaries for v in (bnd, bnd, None)]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="#333", width=1), hoverinfo="skip",
                             showlegend=False, xaxis="x2"))
    fig.update_layout(xaxis2=dict(overlaying="x", range=[-0.5, len(view_names) - 0.5], visible=False))
    fig.update_yaxes(autorange="reversed", title_text="instances, grouped by class", showticklabels=False)
    fig.update_xaxes(title_text="view (share of instances for which it is informative)")
    fig.update_layout(title=title, height=420, margin=dict(t=50, b=60, l=60, r=20))
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


def _class_blocks(labels_in_order: np.ndarray, b: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Boundaries between classes (in cell units of a block-averaged axis), and the centre and name
    of every class block."""
    change = np.flatnonzero(labels_in_order[1:] != labels_in_order[:-1]) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [len(labels_in_order)]])
    return change / b - 0.5, (starts + ends) / 2 / b - 0.5, [str(labels_in_order[s]) for s in starts]


def _thin(centres: np.ndarray, names: list[str], max_labels: int) -> tuple[list[float], list[str]]:
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
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="white", width=1), hoverinfo="skip",
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
    title: str = "Views each test instance used",
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
    fig.update_xaxes(title_text="view (share of instances using it)", automargin=True)
    fig.update_layout(title=title, height=460, margin=dict(t=50, b=60, l=60, r=20))
    return fig


def subset_frequencies(names: Sequence[str], frequencies: Sequence[float], top: int = 15,
                       title: str = "How often each view subset was chosen") -> go.Figure:
    """Horizontal bars of the share of instances choosing each subset (the ``top`` most frequent)."""
    freq = np.asarray(frequencies, dtype=float)
    order = np.argsort(-freq, kind="stable")[:top]
    order = order[freq[order] > 0]
    fig = go.Figure(go.Bar(
        x=freq[order], y=[names[i] for i in order], orientation="h", marker_color="#d62728",
        text=[f"{100 * f:.0f}%" for f in freq[order]], textposition="outside", cliponaxis=False,
        hovertemplate="%{y}<br>%{x:.1%} of test instances<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed", type="category", automargin=True)
    top = float(freq[order].max()) if len(order) else 1.0
    fig.update_layout(title=title, xaxis_title="share of test instances", xaxis_tickformat=".0%",
                      xaxis_range=[0, min(1.0, top) * 1.18], height=max(260, 40 + 26 * len(order)),
                      margin=dict(t=50, b=40, l=20, r=40))
    return fig


def _class_points(fig: go.Figure, coords: np.ndarray, labels: np.ndarray, classes: Sequence[str], *,
                  test: bool, rows: np.ndarray | None = None, faint: bool = False) -> None:
    """One SVG trace per class of training (small, faint) or test (larger, outlined, clickable:
    their test positions ``rows`` in ``customdata``) points."""
    colors = class_colors(list(classes))
    for cls in classes:
        m = np.flatnonzero(labels == str(cls))
        if not test:
            fig.add_trace(go.Scatter(
                x=coords[m, 0], y=coords[m, 1], mode="markers", name=f"train {cls}", legendgroup=str(cls),
                marker=dict(color=colors[str(cls)], size=5), opacity=0.3, showlegend=False,
                hovertemplate=f"training instance, class {cls}<extra></extra>"))
            continue
        ids = m if rows is None else rows[m]
        fig.add_trace(go.Scatter(
            x=coords[m, 0], y=coords[m, 1], mode="markers", name=str(cls), legendgroup=str(cls),
            marker=dict(color=colors[str(cls)], size=8, line=dict(width=0.5, color="#333")), customdata=ids,
            opacity=0.35 if faint else 1.0,
            hovertemplate="test instance %{customdata}<br>class " + str(cls) + "<extra></extra>"))


def dissimilarity_space_map(
    train_coords: np.ndarray,
    test_coords: np.ndarray,
    train_labels: Sequence[str],
    test_labels: Sequence[str],
    classes: Sequence[str],
    *,
    title: str = "Joint dissimilarity space (click a test instance)",
) -> go.Figure:
    """2-D map of training (small, faint) and test (larger, outlined) instances coloured by class.

    ``train_coords`` (n_train, 2), ``test_coords`` (n_test, 2).  Test points carry their test
    position in ``customdata`` (selection events return it).  The map marks no instance: it stays
    the same while the selected instance changes, so the browser keeps it instead of redrawing
    thousands of points (:func:`region_of_competence_map` shows the selected one).
    """
    fig = go.Figure()
    _class_points(fig, np.asarray(train_coords), np.asarray(train_labels).astype(str), classes, test=False)
    _class_points(fig, np.asarray(test_coords), np.asarray(test_labels).astype(str), classes, test=True)
    fig.update_layout(title=title, height=480, legend_title_text="class", clickmode="event+select",
                      margin=dict(t=50, b=30, l=30, r=20))
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False)
    return fig


def region_of_competence_map(
    train_coords: np.ndarray,
    test_coords: np.ndarray,
    train_labels: Sequence[str],
    test_labels: Sequence[str],
    classes: Sequence[str],
    *,
    selected: int,
    region: Sequence[int],
    region_hit: Sequence[bool],
    padding: float = 0.3,
    title: str = "The instance and its region of competence",
) -> go.Figure:
    """Zoom of the 2-D map on one test instance (position ``selected``; black star) and its
    region of competence (training positions ``region``, ringed green where the chosen
    candidate's OOB prediction was right, red where wrong).

    The window spans the instance and its region, widened by ``padding`` times its size on each
    side (at least 2 % of the whole map, so a tight region still shows its surroundings); the
    other points inside it are drawn faintly, test points still clickable.
    """
    train_coords, test_coords = np.asarray(train_coords), np.asarray(test_coords)
    region = np.asarray(region, dtype=int)
    focus = np.vstack([test_coords[[selected]], train_coords[region]])
    everything = np.vstack([train_coords, test_coords])
    span = np.maximum(focus.max(axis=0) - focus.min(axis=0),
                      0.02 * np.maximum(np.ptp(everything, axis=0), np.finfo(float).tiny))
    low, high = focus.min(axis=0) - padding * span, focus.max(axis=0) + padding * span

    def inside(c):
        return np.flatnonzero(((c >= low) & (c <= high)).all(axis=1))

    near_train, near_test = inside(train_coords), inside(test_coords)
    fig = go.Figure()
    _class_points(fig, train_coords[near_train], np.asarray(train_labels).astype(str)[near_train], classes, test=False)
    _class_points(fig, test_coords[near_test], np.asarray(test_labels).astype(str)[near_test], classes, test=True,
                  rows=near_test, faint=True)
    hit = np.asarray(region_hit, dtype=bool)
    fig.add_trace(go.Scatter(
        x=train_coords[region, 0], y=train_coords[region, 1], mode="markers", name="region of competence",
        marker=dict(size=14, color="rgba(0,0,0,0)", line=dict(width=2.5, color=np.where(hit, "#2ca02c", "#d62728"))),
        hovertemplate="neighbour (training)<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=[test_coords[selected, 0]], y=[test_coords[selected, 1]], mode="markers", name="selected",
        marker=dict(symbol="star", size=18, color="black"), hoverinfo="skip"))
    fig.update_layout(title=title, height=480, margin=dict(t=50, b=30, l=30, r=20),
                      legend=dict(orientation="h", yanchor="top", y=-0.02, xanchor="left", x=0))
    fig.update_xaxes(showticklabels=False, range=[low[0], high[0]])
    fig.update_yaxes(showticklabels=False, range=[low[1], high[1]])
    return fig


def candidate_competence(names: Sequence[str], competence: Sequence[float], chosen: int, *, top: int = 12,
                         title: str = "Competence of the candidates in this instance's region") -> go.Figure:
    """Horizontal bars of the ``top`` most competent candidates (of all 2^Q - 1), best on top, full
    names legible: the chosen one red, the others tied with it at the highest competence orange.

    The title says how many candidates share the highest competence and how many are not shown.
    """
    comp = np.asarray(competence, dtype=float)
    order = np.lexsort((np.arange(len(comp)), -comp))
    if chosen in order[top:]:
        order = np.concatenate([[chosen], order[order != chosen]])
    shown = order[:top]
    best = comp.max() if comp.size else 0.0
    n_tied = int(np.sum(comp == best))
    colour = ["#d62728" if i == chosen else "#ff9f1c" if comp[i] == best else "#9ecae1" for i in shown]
    fig = go.Figure(go.Bar(
        x=comp[shown], y=[names[i] for i in shown], orientation="h", marker_color=colour,
        text=[f"{comp[i]:.3f}" for i in shown], textposition="outside", cliponaxis=False,
        hovertemplate="%{y}<br>competence %{x:.3f}<extra></extra>",
    ))
    more = f"; {len(comp) - len(shown)} more not shown" if len(comp) > len(shown) else ""
    tied = f"{n_tied} candidate{'s' if n_tied > 1 else ''} tied at the highest competence{more}"
    fig.update_yaxes(autorange="reversed", type="category", automargin=True)
    fig.update_xaxes(range=[0, 1.12], title_text="competence")
    fig.update_layout(title=dict(text=f"{title}<br><sup>{tied} (red: chosen, orange: tied)</sup>"),
                      height=max(280, 90 + 26 * len(shown)), margin=dict(t=80, b=40, l=20, r=30), showlegend=False)
    return fig


def win_tie_loss(sign_tests, baseline: str, critical: Mapping[str, float],
                 title: str | None = None) -> go.Figure:
    """Stacked horizontal bars of wins / ties / losses of every method against ``baseline`` over
    datasets, like Fig. 3 of the dynamic view selection paper, drawn with the rule the report's
    verdict uses (docs/algorithms.md A.9, Demšar 2006): ties are split evenly, so the middle of the tie
    bar (a diamond marker) is ``wins + ties/2``; solid / dashed vertical lines at the critical
    numbers ``critical`` (e.g. ``{"α = 0.05": 11.3, "α = 0.10": 10.7}``, N/2 + z sqrt(N)/2 with
    N = all datasets) on the right, and at ``N - critical`` on the left: a diamond at or beyond a
    right line is significantly better at that level, at or beyond a left line significantly worse.

    ``sign_tests`` is the ``sign_tests`` table of :class:`mvlab.experiments.report.ComparisonReport`
    (columns ``wins``, ``ties``, ``losses``, optionally ``wins + ties/2``); ``critical`` its
    ``sign_critical``.
    """
    methods = list(sign_tests.index)
    fig = go.Figure()
    for label, values, color in (("wins", sign_tests["wins"], "#2ca02c"), ("ties", sign_tests["ties"], "#c7c7c7"),
                                 ("losses", sign_tests["losses"], "#d62728")):
        fig.add_trace(go.Bar(y=methods, x=list(values), name=label, orientation="h", marker_color=color,
                             hovertemplate="%{y}: %{x} " + label + "<extra></extra>"))
    split = (sign_tests["wins + ties/2"] if "wins + ties/2" in sign_tests
             else sign_tests["wins"] + sign_tests["ties"] / 2.0)
    fig.add_trace(go.Scatter(y=methods, x=[float(v) for v in split], mode="markers", name="wins + ties/2",
                             marker=dict(symbol="diamond", size=11, color="#111", line=dict(color="white", width=1)),
                             hovertemplate="%{y}: wins + ties/2 = %{x}<extra></extra>"))
    n = int((sign_tests[["wins", "ties", "losses"]].sum(axis=1)).max()) if len(sign_tests) else 0
    # lines beyond N (a level no count can reach with so few datasets) stay in view
    top, pad = max(critical.values(), default=float(n)), 0.02 * max(n, 1)
    # labels above the plot, one row per level, so close lines do not write over each other
    for i, ((name, value), dash) in enumerate(zip(critical.items(), ("solid", "dash", "dot"))):
        for x, text in ((value, f"better, {name}"), (n - value, f"worse, {name}")):
            fig.add_vline(x=x, line_dash=dash, line_color="#333")
            fig.add_annotation(x=x, y=1.0, xref="x", yref="paper", yanchor="bottom", text=text, showarrow=False,
                               font=dict(size=11), yshift=2 + 15 * (len(critical) - 1 - i))
    fig.update_layout(title=title or f"Wins / ties / losses against {baseline} over {n} dataset(s)", barmode="stack",
                      xaxis_title="datasets (ties split in half: the diamond is wins + ties/2)",
                      xaxis_range=[min(0.0, n - top) - pad, max(float(n), top) + pad], height=200 + 40 * len(methods),
                      yaxis_type="category",
                      margin=dict(t=95, b=95, l=120, r=50),
                      legend=dict(orientation="h", yref="container", y=0.0, yanchor="bottom"))
    return fig


def critical_difference_diagram(cd, title: str | None = None) -> go.Figure:
    """Critical-difference diagram (Demšar 2006, Figs. 1-2): methods on an average-rank axis
    (1 = best, on the left), labelled best half on the left and the rest on the right, with a thick
    bar joining every group of methods that are not significantly different.

    ``cd`` is a :class:`mvlab.experiments.stats.CriticalDifferenceResult` (fields ``methods``,
    ``average_ranks``, ``groups``, ``critical_difference``, ``control``, ``label``, ``alpha``); the
    groups are computed there, not here. With a Nemenyi or Bonferroni-Dunn CD a bracket of the CD's
    length is drawn under the labels; against a control the control is drawn in red and, for
    Bonferroni-Dunn, the band of ranks within one CD of it is shaded on the axis.
    """
    methods = list(cd.methods)
    ranks = [float(r) for r in cd.average_ranks]
    k = len(methods)
    value = float(cd.critical_difference)
    has_cd = math.isfinite(value)
    n_left = (k + 1) // 2
    groups = list(cd.groups)
    bar_y = [-0.25 - 0.22 * g for g in range(len(groups))]
    base = (bar_y[-1] if bar_y else -0.1) - 0.4
    row = 0.45
    lo, hi = 0.5, max(float(k), 1.0 + (value if has_cd else 0.0)) + 0.5
    fig = go.Figure()
    if has_cd and cd.control is not None:  # Bonferroni-Dunn: ranks within one CD of the control
        rc = ranks[methods.index(cd.control)]
        fig.add_shape(type="rect", x0=max(1.0, rc - value), x1=min(float(k), rc + value), y0=-0.12, y1=0,
                      fillcolor="rgba(214,39,40,0.18)", line_width=0, layer="below")
    for i, (m, r) in enumerate(zip(methods, ranks)):
        left = i < n_left
        y = base - row * (i if left else k - 1 - i)
        x_edge = lo if left else hi
        is_control = m == cd.control
        color = "#d62728" if is_control else "#333"
        fig.add_trace(go.Scatter(x=[r, r, x_edge], y=[0, y, y], mode="lines", line=dict(color=color, width=1),
                                 hoverinfo="skip", showlegend=False))
        fig.add_annotation(x=x_edge, y=y, text=f"<b>{m}</b> ({r:.2f})" if is_control else f"{m} ({r:.2f})",
                           xanchor="right" if left else "left", showarrow=False, font=dict(size=13, color=color),
                           xshift=-4 if left else 4)
    fig.add_trace(go.Scatter(x=ranks, y=[0] * k, mode="markers", showlegend=False, text=methods,
                             marker=dict(size=9, color=["#d62728" if m == cd.control else "#333" for m in methods]),
                             hovertemplate="%{text}: average rank %{x:.2f}<extra></extra>"))
    for g, y in zip(groups, bar_y):
        xs = [ranks[methods.index(m)] for m in g]
        fig.add_trace(go.Scatter(x=[min(xs) - 0.04, max(xs) + 0.04], y=[y, y], mode="lines", showlegend=False,
                                 line=dict(color="#111", width=6), name="not significantly different",
                                 hovertemplate="not significantly different: " + ", ".join(g) + "<extra></extra>"))
    fig.add_annotation(x=lo, y=0, text="average rank<br>(1 = best)", showarrow=False, xanchor="right", yanchor="bottom",
                       font=dict(size=11, color="#555"), xshift=-4)
    bottom = base - row * max(n_left, k - n_left)
    if has_cd:
        yb = bottom - 0.15
        fig.add_trace(go.Scatter(x=[1, 1, 1, 1 + value, 1 + value, 1 + value], y=[yb + 0.08, yb - 0.08, yb, yb,
                                 yb + 0.08, yb - 0.08], mode="lines", line=dict(color="#1f77b4", width=2),
                                 showlegend=False, hoverinfo="skip"))
        fig.add_annotation(x=1 + value / 2, y=yb, text=f"CD = {value:.2f}", showarrow=False, yshift=10,
                           font=dict(color="#1f77b4"))
        bottom = yb - 0.15
    label = max((len(m) + 7 for m in methods), default=8)
    if title is None:
        title = (f"{cd.label}, α = {cd.alpha:g}" + (f", CD = {value:.2f}" if has_cd else "")
                 + ": methods joined by a bar are not significantly different")
    fig.update_layout(
        title=dict(text=title, font=dict(size=14)), height=int(170 + 55 * (-bottom)), plot_bgcolor="white",
        xaxis=dict(range=[lo, hi], side="top", tickvals=list(range(1, k + 1)), showline=True, linecolor="#333",
                   ticks="outside", showgrid=False, zeroline=False),
        yaxis=dict(range=[bottom - 0.1, 0.02], visible=False),
        margin=dict(t=90, b=20, l=20 + 8 * label, r=20 + 8 * label),
    )
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


# ---------------------------------------------------------------- Siamese deep forest page
_SDF_COLORS = {"gcForest": "#7f7f7f", "SDF": "#d62728"}


def cascade_level_accuracy(levels, title: str = "Accuracy per cascade level") -> go.Figure:
    """Training (out-of-fold, dashed) and test (solid) accuracy per cascade level of each model.

    ``levels`` is a long table (e.g. ``SiameseExperiment.level_table()``) with columns ``model,
    level, training accuracy, test accuracy, kept``.  Levels built but discarded by the stopping
    rule are drawn with open markers (they have no test accuracy); a dotted vertical line marks
    the last level each model keeps.
    """
    import pandas as pd

    levels = pd.DataFrame(levels)
    fig = go.Figure()
    palette = qualitative.Plotly
    for i, (model, part) in enumerate(levels.groupby("model", sort=False)):
        color = _SDF_COLORS.get(str(model), palette[i % len(palette)])
        part = part.sort_values("level")
        kept = part["kept"].to_numpy(dtype=bool)
        fig.add_trace(go.Scatter(
            x=part["level"], y=part["training accuracy"], mode="lines+markers", name=f"{model}: training (out-of-fold)",
            line=dict(color=color, dash="dash"),
            marker=dict(color=color, size=9, symbol=np.where(kept, "circle", "circle-open").tolist()),
            hovertemplate=f"{model}<br>level %{{x}}<br>training accuracy %{{y:.4f}}<extra></extra>",
        ))
        test = part[kept]
        fig.add_trace(go.Scatter(
            x=test["level"], y=test["test accuracy"], mode="lines+markers", name=f"{model}: test",
            line=dict(color=color), marker=dict(color=color, size=9, symbol="diamond"),
            hovertemplate=f"{model}<br>level %{{x}}<br>test accuracy %{{y:.4f}}<extra></extra>",
        ))
        if kept.any():
            last = int(part["level"].to_numpy()[kept].max())
            fig.add_vline(x=last + (0.03 if i else -0.03), line_dash="dot", line_color=color,
                          annotation_text=f"{model} keeps {last}",
                          annotation_position="bottom right" if i else "top left")
    values = pd.concat([levels["training accuracy"], levels["test accuracy"]]).dropna()
    low = float(values.min()) if len(values) else 0.0
    fig.update_xaxes(title_text="cascade level (open markers: built, then discarded)", dtick=1)
    fig.update_layout(title=title, yaxis_title="accuracy", height=380, yaxis_range=[max(0.0, low - 0.05), 1.0],
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=50, b=40, l=50, r=20))
    return fig


def tree_weight_distributions(weights, forest_names: Sequence[str],
                              title: str = "Learned tree weights per level and forest") -> go.Figure:
    """Box plots of the tree weights of every (level, forest), against the uniform ``1/T`` line.

    ``weights[level][forest]`` is an array (n_models, T) whose rows lie on the simplex (one per
    fold-model, pooled in the box).  The x labels carry the effective number of trees
    ``1 / sum_t w_t^2`` (mean over the fold-models; T for uniform weights); boxes are coloured
    by level.  Individual weights are drawn when there are at most 1500 per box.
    """
    fig = go.Figure()
    palette = qualitative.Dark2
    T = None
    for q, level in enumerate(weights):
        color = palette[q % len(palette)]
        for k, W in enumerate(level):
            W = np.atleast_2d(np.asarray(W, dtype=np.float64))
            T = W.shape[1]
            eff = float(np.mean(1.0 / np.sum(W * W, axis=1)))
            label = f"L{q + 1} {forest_names[k]}<br>n_eff {eff:.1f}"
            fig.add_trace(go.Box(
                y=W.ravel(), x=[label] * W.size, name=f"level {q + 1}", legendgroup=f"level {q + 1}",
                showlegend=k == 0, marker_color=color, boxpoints="all" if W.size <= 1500 else "outliers",
                jitter=0.4, pointpos=0, marker=dict(size=3, opacity=0.5),
                hovertemplate=(f"level {q + 1}, {forest_names[k]}<br>weight %{{y:.4f}}"
                               f"<extra>n_eff {eff:.1f} of {T}</extra>"),
            ))
    if T:
        fig.add_hline(y=1.0 / T, line_dash="dash", line_color="#444", annotation_text=f"uniform 1/T = 1/{T}",
                      annotation_position="top left",  # on a white box: the boxes' points pass under it
                      annotation=dict(bgcolor="rgba(255,255,255,0.85)", font_size=12))
    fig.update_xaxes(type="category", title_text="level and forest (effective number of trees 1/Σw²)")
    fig.update_layout(title=title, yaxis_title="tree weight", height=420, legend_title_text="cascade level",
                      margin=dict(t=50, b=60, l=50, r=20))
    return fig


def tau_tradeoff_curve(curves, tau: float, title: str = "What the threshold τ does") -> go.Figure:
    """Accuracy on the determined pairs (top) and share of undetermined pairs (bottom) against
    ``tau``, one line per model; the current ``tau`` is a vertical line.

    ``curves`` maps a model name to a table with columns ``tau, undetermined, accuracy``
    (:func:`mvlab.experiments.siamese.tau_curve`).
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("accuracy on the determined pairs", "share of undetermined pairs"))
    palette = qualitative.Plotly
    for i, (model, curve) in enumerate(curves.items()):
        color = _SDF_COLORS.get(str(model), palette[i % len(palette)])
        fig.add_trace(go.Scatter(x=curve["tau"], y=curve["accuracy"], mode="lines", name=str(model),
                                 legendgroup=str(model), line=dict(color=color),
                                 hovertemplate=f"{model}<br>τ %{{x:.3f}}<br>accuracy %{{y:.4f}}<extra></extra>"),
                      row=1, col=1)
        fig.add_trace(go.Scatter(x=curve["tau"], y=curve["undetermined"], mode="lines", name=str(model),
                                 legendgroup=str(model), showlegend=False, line=dict(color=color),
                                 hovertemplate=f"{model}<br>τ %{{x:.3f}}<br>undetermined %{{y:.1%}}<extra></extra>"),
                      row=2, col=1)
    for row in (1, 2):
        fig.add_vline(x=float(tau), line_dash="dash", line_color="#444", row=row, col=1)
    fig.update_yaxes(tickformat=".0%", range=[0, 1], row=2, col=1)
    fig.update_xaxes(title_text="τ (threshold on S0 − S1)", row=2, col=1)
    fig.update_layout(title=f"{title} (current τ = {float(tau):.2f})", height=460, legend_title_text="model",
                      margin=dict(t=80, b=40, l=50, r=20))
    return fig


def pair_view(a, b, *, image_shape=None, feature_names: Sequence[str] | None = None,
              names: tuple[str, str] = ("instance a", "instance b"), title: str = "The pair") -> go.Figure:
    """The two instances of a pair: side-by-side grey-level images (``image_shape`` (H, W), same
    colour range, dark = high value) or, otherwise, the two feature vectors overlaid as lines
    (bars for at most 30 features)."""
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if image_shape is not None:
        h, w = (int(s) for s in image_shape)
        lo, hi = float(min(a.min(), b.min())), float(max(a.max(), b.max()))
        fig = make_subplots(rows=1, cols=2, subplot_titles=names, horizontal_spacing=0.06)
        for col, v in ((1, a), (2, b)):
            fig.add_trace(go.Heatmap(z=v.reshape(h, w), zmin=lo, zmax=hi, colorscale="Greys", showscale=col == 2,
                                     hovertemplate="row %{y}, column %{x}<br>value %{z:.2f}<extra></extra>"),
                          row=1, col=col)
        fig.update_yaxes(autorange="reversed", scaleanchor=None, showticklabels=False)
        fig.update_xaxes(showticklabels=False, constrain="domain")
        fig.update_layout(title=title, height=340, margin=dict(t=70, b=20, l=20, r=20))
        return fig
    x = list(feature_names) if feature_names is not None else list(range(a.size))
    fig = go.Figure()
    for v, name, color in ((a, names[0], "#1f77b4"), (b, names[1], "#ff7f0e")):
        if a.size <= 30:
            fig.add_trace(go.Bar(x=x, y=v, name=name, marker_color=color))
        else:
            fig.add_trace(go.Scatter(x=x, y=v, mode="lines", name=name, line=dict(color=color, width=1)))
    fig.update_xaxes(title_text="feature", type="category", showticklabels=a.size <= 60)
    fig.update_layout(title=title, yaxis_title="value", barmode="group", height=340,
                      margin=dict(t=50, b=40, l=50, r=20), hovermode="x unified")
    return fig


# ----------------------------------------------------------------------------- view construction

VIEW_METHOD_COLORS = {"OFSP": "#d62728", "RFSP": "#1f77b4", "Bagging": "#7f7f7f", "AB": "#2ca02c",
                      "VG-AC": "#9467bd", "VC-GA": "#ff7f0e"}
"""Stable colours of the six view-construction methods (OFSP stands out in red)."""


def _view_method_color(method: str, i: int) -> str:
    return VIEW_METHOD_COLORS.get(method, qualitative.Dark24[i % len(qualitative.Dark24)])


def partition_matrix(
    membership: np.ndarray,
    groups: Sequence[str] | None = None,
    feature_names: Sequence[str] | None = None,
    *,
    title: str = "Which feature went to which view",
) -> go.Figure:
    """Learned views (rows ``view 1..k`` and ``discarded``) x features (columns) of one partition.

    ``membership`` is bool (k, d): feature j is in view i.  ``groups`` (d,) are the features'
    natural views: columns are sorted by natural view (boundaries drawn) and a cell is coloured
    by the natural view of its feature, so a learned view made of one natural view shows as one
    colour.  The ``discarded`` row marks the features in no view.  Hover names the feature.
    """
    M = np.asarray(membership, dtype=bool)
    k, d = M.shape
    groups = np.full(d, "all", dtype=object) if groups is None else np.asarray(groups).astype(str)
    if feature_names is None:
        names = np.array([f"feature {j}" for j in range(d)])
    else:
        names = np.asarray(feature_names).astype(str)
    group_names = list(dict.fromkeys(groups.tolist()))
    rank = {g: i for i, g in enumerate(group_names)}
    order = np.lexsort((np.arange(d), np.array([rank[g] for g in groups])))
    rows = np.vstack([M, ~M.any(axis=0)])[:, order]
    code = np.array([rank[g] + 1 for g in groups[order]])
    z = np.where(rows, code[None, :], 0)
    G = len(group_names)
    palette = ["#e9ecef"] + [qualitative.Plotly[i % len(qualitative.Plotly)] for i in range(G)]
    scale = []
    for i, c in enumerate(palette):
        scale += [[i / len(palette), c], [(i + 1) / len(palette), c]]
    row_names = [f"view {i + 1}" for i in range(k)] + ["discarded"]
    hover = np.array([[f"{names[j]}<br>natural view: {groups[j]}" for j in order]] * (k + 1))
    fig = go.Figure(go.Heatmap(
        z=z, x=np.arange(d), y=row_names, zmin=-0.5, zmax=G + 0.5, colorscale=scale, showscale=False, ygap=2,
        customdata=np.where(rows, "member", "—"), text=hover,
        hovertemplate="%{y}<br>%{text}<br>%{customdata}<extra></extra>",
    ))
    edges = np.flatnonzero(groups[order][1:] != groups[order][:-1]) + 0.5
    for e in edges:
        fig.add_vline(x=e, line_width=1, line_color="#333")
    if G > 1:
        starts = np.concatenate([[0], np.ceil(edges).astype(int)])
        ends = np.concatenate([np.ceil(edges).astype(int), [d]])
        fig.update_xaxes(tickmode="array", tickvals=(starts + ends - 1) / 2, ticktext=group_names)
        for i, g in enumerate(group_names):  # legend entries for the colours
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=g,
                                     marker=dict(size=10, symbol="square", color=palette[i + 1])))
    else:
        fig.update_xaxes(showticklabels=False)
    used = int(M.any(axis=0).sum())
    fig.update_xaxes(title_text=f"features ({used} of {d} kept" + (", grouped by natural view)" if G > 1 else ")"))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(title=title, height=max(320, 60 + 26 * (k + 1)), legend_title_text="natural view",
                      margin=dict(t=50, b=50, l=80, r=20), plot_bgcolor="white")
    return fig


def partition_vs_natural(crosstab, title: str = "Learned views against the natural views") -> go.Figure:
    """Heatmap of feature counts, natural views (rows) x learned views and ``discarded`` (columns).

    ``crosstab`` is a DataFrame such as :func:`mvlab.experiments.view_construction.partition_crosstab`
    returns.  Colour is the share of the natural view's features that went to the column, text
    is the count: a learned view that rediscovers a natural view is one dark cell in its column.
    """
    counts = np.asarray(crosstab.to_numpy(), dtype=float)
    sizes = np.asarray([float(v) for v in crosstab.sum(axis=1)])
    share = counts / np.maximum(sizes[:, None], 1)
    rows = [str(r) for r in crosstab.index]
    cols = [str(c) for c in crosstab.columns]
    fig = go.Figure(go.Heatmap(
        z=share, x=cols, y=rows, colorscale="Blues", zmin=0, zmax=1, text=counts.astype(int),
        texttemplate="%{text}", colorbar=dict(title="share of<br>the row"), xgap=1, ygap=1,
        hovertemplate="natural view %{y}<br>%{x}: %{text} features (%{z:.0%} of the row)<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed", type="category", title_text="natural view")
    fig.update_xaxes(type="category", title_text="learned view")
    fig.update_layout(title=title, height=max(240, 130 + 34 * len(rows)), margin=dict(t=50, b=50, l=100, r=20))
    return fig


def k_sweep_boxes(
    panels: Mapping[tuple[str, str], object],
    *,
    metric_titles: Mapping[str, str] | None = None,
    classifier_titles: Mapping[str, str] | None = None,
    title: str = "Across k = 1..K: one box per method",
) -> go.Figure:
    """Box plots in a grid: one row per metric, one column per classifier (paper Figs. 4-7).

    ``panels`` maps (metric, classifier) to a DataFrame with one row per k and one column per
    method (e.g. :meth:`mvlab.experiments.view_construction.KSweepResult.per_k`); each box summarises a
    method's values over k.  The box spans Q1-Q3, whiskers reach the most extreme value within
    1.5 IQR, values beyond are drawn as crosses; hover a point for its k.  NaN values (e.g. the
    disagreement at k = 1) are left out.
    """
    metrics = list(dict.fromkeys(m for m, _ in panels))
    classifiers = list(dict.fromkeys(c for _, c in panels))
    metric_titles = dict(metric_titles or {})
    classifier_titles = dict(classifier_titles or {})
    fig = make_subplots(rows=len(metrics), cols=len(classifiers), shared_xaxes=True, vertical_spacing=0.08,
                        horizontal_spacing=0.06, column_titles=[classifier_titles.get(c, c) for c in classifiers])
    shown = set()
    for (metric, clf), frame in panels.items():
        r, c = metrics.index(metric) + 1, classifiers.index(clf) + 1
        for i, method in enumerate(frame.columns):
            values = np.asarray(frame[method], dtype=float)
            ks = np.asarray(frame.index)
            keep = ~np.isnan(values)
            color = _view_method_color(str(method), i)
            fig.add_trace(go.Box(
                y=values[keep], name=str(method), legendgroup=str(method), showlegend=method not in shown,
                marker=dict(color=color, symbol="cross-thin-open", size=8, line=dict(width=1.5, color=color)),
                line=dict(color=color), boxpoints="outliers", text=[f"k = {k}" for k in ks[keep]],
                hovertemplate="%{x}<br>%{text}: %{y:.4g}<extra></extra>",
            ), row=r, col=c)
            shown.add(method)
        fig.update_yaxes(title_text=metric_titles.get(metric, metric) if c == 1 else None, row=r, col=c)
    fig.update_xaxes(type="category")
    fig.update_layout(title=title, height=80 + 300 * len(metrics), legend_title_text="method",
                      margin=dict(t=80, b=40, l=60, r=20))
    return fig


def k_sweep_lines(frame, *, metric_title: str = "value", title: str = "Mean over folds for each k") -> go.Figure:
    """One line per method (columns of ``frame``) across k (its index): the trend that a box plot
    summarises away."""
    fig = go.Figure()
    for i, method in enumerate(frame.columns):
        color = _view_method_color(str(method), i)
        fig.add_trace(go.Scatter(x=list(frame.index), y=np.asarray(frame[method], dtype=float), mode="lines+markers",
                                 name=str(method), line=dict(color=color, width=3 if method == "OFSP" else 1.5),
                                 hovertemplate=str(method) + "<br>k = %{x}: %{y:.4g}<extra></extra>"))
    fig.update_xaxes(title_text="number of views k", dtick=1)
    fig.update_layout(title=title, yaxis_title=metric_title, height=340, legend_title_text="method",
                      margin=dict(t=50, b=40, l=60, r=20))
    return fig
