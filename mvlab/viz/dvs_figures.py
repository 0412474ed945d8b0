"""Figures of the dynamic view selection page: the views each test instance used, how often each subset was
chosen, the map of the chosen subset's space with a zoom on one instance's region of competence, and the
competence of every candidate."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from mvlab.core.sampling import stratified_rows
from mvlab.i18n import _, format_number, format_percent, ngettext
from mvlab.viz.palette import (
    GREEN,
    INK,
    ORANGE,
    RED,
    RIGHT_SYMBOL,
    SKY,
    WRONG_SYMBOL,
    class_colors,
    class_symbols,
    presence_scale,
)

__all__ = ["view_selection_matrix", "subset_frequencies", "dissimilarity_space_map", "region_of_competence_map",
           "neighbourhood_map", "candidate_competence", "MAX_ROWS_DRAWN", "MAX_TRAIN_POINTS", "MAX_TEST_POINTS",
           "ZOOM_TRAIN_POINTS", "ZOOM_TEST_POINTS"]

MAX_ROWS_DRAWN = 1000
"""Test instances the view-selection matrix draws at most (evenly spaced in the chosen order above it)."""
MAX_TRAIN_POINTS = 600
MAX_TEST_POINTS = 400
"""Training and test points the map of a subset's space draws at most (class-stratified samples above them,
said on the map).  The instance explorer redraws its maps whenever the instance changes, and the browser's time
grows with the points: with 3,000 SVG points the explorer took 0.85-1.1 s in Chromium, with 1,600 0.65-0.9 s at
10,100 training rows and up to 1.3 s at 100,000, with 600 0.4-0.6 s (bench/bench_pages_scale.py)."""
ZOOM_TRAIN_POINTS = 300
ZOOM_TEST_POINTS = 200
"""The same for the zoom on one instance's region (its window's surroundings; the region is always drawn)."""


def _drawn(labels: np.ndarray, max_points: int) -> np.ndarray:
    """Positions of the points a map draws: all, or a class-stratified sample (ascending)."""
    return np.arange(len(labels)) if len(labels) <= max_points else np.sort(stratified_rows(labels, max_points))


def view_selection_matrix(
    chosen_views: np.ndarray,
    view_names: Sequence[str],
    order: np.ndarray,
    row_text: Sequence[str],
    title: str | None = None,
    max_rows: int = MAX_ROWS_DRAWN,
) -> go.Figure:
    """Instances (rows, in ``order``) x views heatmap: 1 where the instance's chosen subset uses the view.

    ``row_text`` (n,) is shown on hover for every row (instance index, class, subset, correct).  ``title``
    (None: "Views each test instance used").  Above
    ``max_rows`` instances, ``max_rows`` of them evenly spaced in ``order`` are drawn (the subtitle says
    so); the share of instances using each view counts them all.
    """
    title = _("Views each test instance used") if title is None else title
    chosen_views = np.asarray(chosen_views, dtype=bool)
    order = np.asarray(order)
    if len(order) > max_rows:
        title += "<br><sup>" + ngettext(
            "{n} of the {total} instance drawn, evenly spaced in this order",
            "{n} of the {total} instances drawn, evenly spaced in this order", len(order)).format(
            n=format_number(max_rows), total=format_number(len(order))) + "</sup>"
        order = order[np.unique(np.linspace(0, len(order) - 1, max_rows).round().astype(np.int64))]
    z = chosen_views[order].astype(int)
    text = np.repeat(np.asarray(row_text, dtype=object)[order][:, None], z.shape[1], axis=1)
    usage = chosen_views.mean(axis=0) if len(chosen_views) else np.zeros(len(view_names))
    fig = go.Figure(go.Heatmap(
        z=z, x=[f"{v} ({format_percent(u, 0)})" for v, u in zip(view_names, usage)], y=np.arange(len(order)), text=text,
        colorscale=presence_scale(RED), zmin=0, zmax=1, showscale=False, xgap=2,
        hovertemplate="%{text}<br>%{x}: %{z}<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed", showticklabels=False, title_text=_("test instances"))
    fig.update_xaxes(title_text=_("view (share of instances using it)"), automargin=True)
    fig.update_layout(title=title, height=460, margin=dict(t=50, b=60, l=60, r=20))
    return fig


def subset_frequencies(names: Sequence[str], frequencies: Sequence[float], top: int = 15,
                       title: str | None = None) -> go.Figure:
    """Horizontal bars of the share of instances choosing each subset (the ``top`` most frequent); its text
    alternative (``layout.meta["summary"]``, :mod:`mvlab.viz.describe`) names the three most chosen and their shares.
    ``title`` (None: "How often each view subset was chosen")."""
    title = _("How often each view subset was chosen") if title is None else title
    freq = np.asarray(frequencies, dtype=float)
    order = np.argsort(-freq, kind="stable")[:top]
    order = order[freq[order] > 0]
    fig = go.Figure(go.Bar(
        x=freq[order], y=[names[i] for i in order], orientation="h", marker_color=RED,
        text=[format_percent(f, 0) for f in freq[order]], textposition="outside", cliponaxis=False,
        hovertemplate="%{y}<br>" + _("%{x:.1%} of test instances") + "<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed", type="category", automargin=True)
    top = float(freq[order].max()) if len(order) else 1.0
    # Translators: one item of the list {shares} of "DVS chose {n} different view subsets: {shares} of the test
    # instances": a view subset (e.g. "{1, 3}") and the percentage of the test instances it was chosen for
    chosen = ", ".join(_("{subset} for {percent} %").format(subset=names[i], percent=format_number(100 * freq[i], 0))
                       for i in order[:3])
    if not len(order):
        summary = _("DVS chose no subset")
    elif len(order) > 3:
        summary = ngettext("DVS chose {n} different view subset: {shares} of the test instances, and others for the "
                           "rest",
                           "DVS chose {n} different view subsets: {shares} of the test instances, and others for the "
                           "rest", len(order)).format(n=format_number(len(order)), shares=chosen)
    else:
        summary = ngettext("DVS chose {n} different view subsets: {shares} of the test instances",
                           "DVS chose {n} different view subsets: {shares} of the test instances",
                           len(order)).format(n=format_number(len(order)), shares=chosen)
    fig.update_layout(title=title, xaxis_title=_("share of test instances"), xaxis_tickformat=".0%",
                      xaxis_range=[0, min(1.0, top) * 1.18], height=max(260, 40 + 26 * len(order)),
                      margin=dict(t=50, b=40, l=20, r=40), meta={"summary": summary})
    return fig


def _class_points(fig: go.Figure, coords: np.ndarray, labels: np.ndarray, classes: Sequence[str], *,
                  test: bool, rows: np.ndarray | None = None, faint: bool = False) -> None:
    """One SVG trace per class of training (small, faint) or test (larger, outlined, clickable:
    their test positions ``rows`` in ``customdata``) points."""
    colors, symbols = class_colors(list(classes)), class_symbols(list(classes))
    # Translators: the name of a class's training points on a map; {cls} is the class's name
    train_name = _("train {cls}")
    train_hover, test_instance = _("training instance, class {cls}"), _("test instance %{customdata}")
    # Translators: {cls} is the name of an instance's class (its label), e.g. "class setosa"
    class_of = _("class {cls}")
    for cls in classes:
        m = np.flatnonzero(labels == str(cls))
        if not test:
            fig.add_trace(go.Scatter(
                x=coords[m, 0], y=coords[m, 1], mode="markers", name=train_name.format(cls=cls), legendgroup=str(cls),
                marker=dict(color=colors[str(cls)], size=5), opacity=0.3, showlegend=False,
                hovertemplate=train_hover.format(cls=cls) + "<extra></extra>"))
            continue
        ids = m if rows is None else rows[m]
        fig.add_trace(go.Scatter(
            x=coords[m, 0], y=coords[m, 1], mode="markers", name=str(cls), legendgroup=str(cls),
            marker=dict(color=colors[str(cls)], symbol=symbols[str(cls)], size=8, line=dict(width=0.5, color=INK)),
            customdata=ids,
            opacity=0.35 if faint else 1.0,
            hovertemplate=test_instance + "<br>" + class_of.format(cls=cls) + "<extra></extra>"))


def dissimilarity_space_map(
    train_coords: np.ndarray,
    test_coords: np.ndarray,
    train_labels: Sequence[str],
    test_labels: Sequence[str],
    classes: Sequence[str],
    *,
    title: str | None = None,
    max_train: int = MAX_TRAIN_POINTS,
    max_test: int = MAX_TEST_POINTS,
) -> go.Figure:
    """2-D map of training (small, faint) and test (larger, outlined) instances coloured by class.

    ``train_coords`` (n_train, 2), ``test_coords`` (n_test, 2).  Test points carry their test
    position in ``customdata`` (selection events return it).  The map marks no instance: it stays
    the same while the selected instance changes, so the browser keeps it instead of redrawing
    thousands of points (:func:`region_of_competence_map` shows the selected one).  Above
    ``max_train`` / ``max_test`` points a class-stratified sample is drawn, said under the title.  ``title``
    (None: "Joint dissimilarity space (click a test instance)").
    """
    title = _("Joint dissimilarity space (click a test instance)") if title is None else title
    train_labels, test_labels = np.asarray(train_labels).astype(str), np.asarray(test_labels).astype(str)
    train, test = _drawn(train_labels, max_train), _drawn(test_labels, max_test)
    if len(train) < len(train_labels) or len(test) < len(test_labels):
        title += "<br><sup>" + ngettext(
            "class-stratified samples drawn: {train} of {train_total} training and {test} of {test_total} test "
            "instance",
            "class-stratified samples drawn: {train} of {train_total} training and {test} of {test_total} test "
            "instances", len(test_labels)).format(
            train=format_number(len(train)), train_total=format_number(len(train_labels)),
            test=format_number(len(test)), test_total=format_number(len(test_labels))) + "</sup>"
    fig = go.Figure()
    _class_points(fig, np.asarray(train_coords)[train], train_labels[train], classes, test=False)
    _class_points(fig, np.asarray(test_coords)[test], test_labels[test], classes, test=True, rows=test)
    # Translators: a legend's or an axis's title: the class (label) of the instances, not a school class
    fig.update_layout(title=title, height=480, legend_title_text=_("class"), clickmode="event+select",
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
    title: str | None = None,
    max_train: int = ZOOM_TRAIN_POINTS,
    max_test: int = ZOOM_TEST_POINTS,
) -> go.Figure:
    """Zoom of the 2-D map on one test instance (position ``selected``; black star) and its
    region of competence (training positions ``region``, ringed in green where the chosen
    candidate's OOB prediction was right, crossed in vermillion where wrong).

    The window spans the instance and its region, widened by ``padding`` times its size on each
    side (at least 2 % of the whole map, so a tight region still shows its surroundings); the
    other points inside it are drawn faintly, test points still clickable (a class-stratified sample
    of them above ``max_train`` / ``max_test``; the instance and its region are always drawn).  ``title`` (None:
    "The instance and its region of competence").
    """
    title = _("The instance and its region of competence") if title is None else title
    train_coords, test_coords = np.asarray(train_coords), np.asarray(test_coords)
    region = np.asarray(region, dtype=int)
    focus = np.vstack([test_coords[[selected]], train_coords[region]])
    everything = np.vstack([train_coords, test_coords])
    span = np.maximum(focus.max(axis=0) - focus.min(axis=0),
                      0.02 * np.maximum(np.ptp(everything, axis=0), np.finfo(float).tiny))
    low, high = focus.min(axis=0) - padding * span, focus.max(axis=0) + padding * span

    def inside(c):
        return np.flatnonzero(((c >= low) & (c <= high)).all(axis=1))

    train_labels, test_labels = np.asarray(train_labels).astype(str), np.asarray(test_labels).astype(str)
    near_train, near_test = inside(train_coords), inside(test_coords)
    near_train = near_train[_drawn(train_labels[near_train], max_train)]
    near_test = near_test[_drawn(test_labels[near_test], max_test)]
    fig = go.Figure()
    _class_points(fig, train_coords[near_train], train_labels[near_train], classes, test=False)
    _class_points(fig, test_coords[near_test], test_labels[near_test], classes, test=True, rows=near_test, faint=True)
    hit = np.asarray(region_hit, dtype=bool)
    fig.add_trace(go.Scatter(
        x=train_coords[region, 0], y=train_coords[region, 1], mode="markers", name=_("region of competence"),
        marker=dict(size=14, color="rgba(0,0,0,0)", symbol=np.where(hit, RIGHT_SYMBOL, WRONG_SYMBOL),
                    line=dict(width=2.5, color=np.where(hit, GREEN, RED))),
        # Translators: "right" and "wrong": whether the chosen candidate's out-of-bag prediction of this
        # neighbour was right; shown as "neighbour (training), right"
        text=np.where(hit, _("right"), _("wrong")),
        # Translators: %{text} is "right" or "wrong" (the chosen candidate's prediction of this neighbour)
        hovertemplate=_("neighbour (training), %{text}") + "<extra></extra>"))
    fig.add_trace(go.Scatter(
        # Translators: the legend's name of the selected test instance (a star on the map)
        x=[test_coords[selected, 0]], y=[test_coords[selected, 1]], mode="markers", name=_("selected"),
        marker=dict(symbol="star", size=18, color="black"), hoverinfo="skip"))
    fig.update_layout(title=title, height=480, margin=dict(t=50, b=30, l=30, r=20),
                      legend=dict(orientation="h", yanchor="top", y=-0.02, xanchor="left", x=0))
    fig.update_xaxes(showticklabels=False, range=[low[0], high[0]])
    fig.update_yaxes(showticklabels=False, range=[low[1], high[1]])
    return fig


def neighbourhood_map(
    coords: np.ndarray,
    labels: Sequence[str],
    classes: Sequence[str],
    *,
    region: Sequence[int],
    region_hit: Sequence[bool],
    title: str | None = None,
) -> go.Figure:
    """The star (a test instance, at the origin) among its nearest training instances placed by
    :func:`mvlab.core.projection.radial_layout`: each at its exact dissimilarity from the star, so the
    region of competence (positions ``region`` of ``coords``, ringed in green where the chosen candidate's
    out-of-bag prediction was right, crossed in vermillion where wrong) is exactly the points inside the dashed circle.

    ``coords`` (m, 2) and ``labels`` (m,) are the m nearest training instances, nearest first.  ``title`` (None:
    "The instance and its nearest training instances").
    """
    title = _("The instance and its nearest training instances") if title is None else title
    coords = np.asarray(coords, dtype=float)
    labels = np.asarray(labels).astype(str)
    region = np.asarray(region, dtype=int)
    radius = np.hypot(coords[:, 0], coords[:, 1])
    # the edge halfway between the region's farthest member and the nearest point outside it, so that a point
    # just outside is not drawn on the line
    inside = float(radius[region].max()) if region.size else 0.0
    outside = radius[np.setdiff1d(np.arange(radius.size), region)]
    beyond = outside[outside >= inside]
    edge = (inside + float(beyond.min())) / 2 if beyond.size else inside
    fig = go.Figure()
    theta = np.linspace(0, 2 * np.pi, 120)
    fig.add_trace(go.Scatter(x=edge * np.cos(theta), y=edge * np.sin(theta), mode="lines", name=_("region's edge"),
                             line=dict(color=INK, dash="dash", width=1), hoverinfo="skip"))
    colors, symbols = class_colors(list(classes)), class_symbols(list(classes))
    class_of, training = _("class {cls}"), _("training instance, class {cls}")
    dissimilarity = "<br>" + _("dissimilarity %{customdata:.3f}") + "<extra></extra>"
    for cls in classes:
        m = np.flatnonzero(labels == str(cls))
        fig.add_trace(go.Scatter(
            x=coords[m, 0], y=coords[m, 1], mode="markers", name=class_of.format(cls=cls),
            marker=dict(color=colors[str(cls)], symbol=symbols[str(cls)], size=9, line=dict(width=0.5, color=INK)),
            customdata=radius[m],
            hovertemplate=training.format(cls=cls) + dissimilarity))
    hit = np.asarray(region_hit, dtype=bool)
    fig.add_trace(go.Scatter(
        x=coords[region, 0], y=coords[region, 1], mode="markers", name=_("region of competence"),
        marker=dict(size=17, color="rgba(0,0,0,0)", symbol=np.where(hit, RIGHT_SYMBOL, WRONG_SYMBOL),
                    line=dict(width=2.5, color=np.where(hit, GREEN, RED))),
        hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[0], y=[0], mode="markers", name=_("the instance"),
                             marker=dict(symbol="star", size=18, color="black"), hoverinfo="skip"))
    reach = float(radius.max()) * 1.08 if radius.size else 1.0
    fig.update_layout(
        title=dict(text=title + "<br><sup>" + _("distance from the star = the exact dissimilarity; the direction is "
                                                  "only a hint (classical MDS)") + "</sup>"),
        height=480, margin=dict(t=70, b=30, l=30, r=20),
        legend=dict(orientation="h", yanchor="top", y=-0.02, xanchor="left", x=0))
    fig.update_xaxes(showticklabels=False, range=[-reach, reach], zeroline=False, showgrid=False)
    fig.update_yaxes(showticklabels=False, range=[-reach, reach], zeroline=False, showgrid=False, scaleanchor="x",
                     scaleratio=1)
    return fig


def candidate_competence(names: Sequence[str], competence: Sequence[float], chosen: int, *, top: int = 12,
                         title: str | None = None) -> go.Figure:
    """Horizontal bars of the ``top`` most competent candidates (of all 2^Q - 1), best on top, full
    names legible: the chosen one vermillion and labelled "chosen", the others tied with it at the highest competence
    orange and labelled "tied", all outlined.

    The title (``title``, None: "Competence of the candidates in this instance's region") says how many candidates
    share the highest competence and how many are not shown.
    """
    title = _("Competence of the candidates in this instance's region") if title is None else title
    comp = np.asarray(competence, dtype=float)
    order = np.lexsort((np.arange(len(comp)), -comp))
    if chosen in order[top:]:
        order = np.concatenate([[chosen], order[order != chosen]])
    shown = order[:top]
    best = comp.max() if comp.size else 0.0
    n_tied = int(np.sum(comp == best))
    colour = [RED if i == chosen else ORANGE if comp[i] == best else SKY for i in shown]
    # Translators: a bar's label: the candidate (view subset) that was chosen
    said_chosen = "  " + _("chosen")
    # Translators: a bar's label: this candidate is tied with the chosen one at the highest competence
    said_tied = "  " + _("tied")
    word = [said_chosen if i == chosen else said_tied if comp[i] == best else "" for i in shown]
    fig = go.Figure(go.Bar(
        x=comp[shown], y=[names[i] for i in shown], orientation="h", marker_color=colour,
        marker_line=dict(color=INK, width=1),
        text=[format_number(comp[i], 3) + w for i, w in zip(shown, word)], textposition="outside",
        cliponaxis=False, hovertemplate="%{y}<br>" + _("competence %{x:.3f}") + "<extra></extra>",
    ))
    left = len(comp) - len(shown)
    # Translators: {n} more candidates (view subsets) are not shown
    more = "<br>" + ngettext("{n} more not shown", "{n} more not shown", left).format(n=format_number(left)) \
        if left > 0 else ""
    # Translators: {n} candidates share the highest competence; vermillion and orange are the colours of their bars
    tied = ngettext("{n} tied at the top (vermillion: chosen, orange: tied)",
                    "{n} tied at the top (vermillion: chosen, orange: tied)", n_tied).format(
        n=format_number(n_tied)) + more
    fig.update_yaxes(autorange="reversed", type="category", automargin=True)
    fig.update_xaxes(range=[0, 1.3], title_text=_("competence"))
    fig.update_layout(title=dict(text=title + "<br><sup>" + tied + "</sup>"),
                      height=max(280, 90 + 26 * len(shown)), margin=dict(t=80, b=40, l=20, r=30), showlegend=False)
    return fig
