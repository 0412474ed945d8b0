"""Figures of the view-construction page: the k-sweep's box plots and lines (the paper's Figs. 4-7) and a
learned partition against the natural views."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from mvlab.i18n import _
from mvlab.viz.palette import BLUE, CATEGORY, EMPTY_CELL, GREEN, GREY, INK, ORANGE, PURPLE, RED, WHITE, nth_color

__all__ = ["VIEW_METHOD_COLORS", "partition_matrix", "partition_vs_natural", "k_sweep_boxes", "k_sweep_lines"]


VIEW_METHOD_COLORS = {"OFSP": RED, "RFSP": BLUE, "Bagging": GREY, "AB": GREEN, "VG-AC": PURPLE, "VC-GA": ORANGE}
"""Stable colours of the six view-construction methods (OFSP stands out in vermillion)."""


def _view_method_color(method: str, i: int) -> str:
    """A method's stable colour, or the ``i``-th of a 24-colour palette for a method without one."""
    return VIEW_METHOD_COLORS.get(method, nth_color(qualitative.Dark24, i))


def partition_matrix(
    membership: np.ndarray,
    groups: Sequence[str] | None = None,
    feature_names: Sequence[str] | None = None,
    *,
    title: str | None = None,
) -> go.Figure:
    """Learned views (rows ``view 1..k`` and ``discarded``) x features (columns) of one partition.

    ``membership`` is bool (k, d): feature j is in view i.  ``groups`` (d,) are the features'
    natural views: columns are sorted by natural view (boundaries drawn) and a cell is coloured
    by the natural view of its feature, so a learned view made of one natural view shows as one
    colour.  The ``discarded`` row marks the features in no view.  Hover names the feature. ``title``: "Which
    feature went to which view" (in the reader's language) unless given.
    """
    title = _("Which feature went to which view") if title is None else title
    M = np.asarray(membership, dtype=bool)
    k, d = M.shape
    # Translators: the one natural view of data whose features are not grouped in views
    groups = np.full(d, _("all"), dtype=object) if groups is None else np.asarray(groups).astype(str)
    if feature_names is None:
        names = np.array([_("feature {n}").format(n=j) for j in range(d)])
    else:
        names = np.asarray(feature_names).astype(str)
    group_names = list(dict.fromkeys(groups.tolist()))
    rank = {g: i for i, g in enumerate(group_names)}
    order = np.lexsort((np.arange(d), np.array([rank[g] for g in groups])))
    rows = np.vstack([M, ~M.any(axis=0)])[:, order]
    code = np.array([rank[g] + 1 for g in groups[order]])
    z = np.where(rows, code[None, :], 0)
    G = len(group_names)
    palette = [EMPTY_CELL] + [nth_color(CATEGORY, i) for i in range(G)]
    scale = []
    for i, c in enumerate(palette):
        scale += [[i / len(palette), c], [(i + 1) / len(palette), c]]
    row_names = [_("view {n}").format(n=i + 1) for i in range(k)]
    # Translators: a row of the matrix: the features that went to no view
    row_names.append(_("discarded"))
    natural = _("natural view: {view}")
    hover = np.array([[f"{names[j]}<br>" + natural.format(view=groups[j]) for j in order]] * (k + 1))
    fig = go.Figure(go.Heatmap(
        z=z, x=np.arange(d), y=row_names, zmin=-0.5, zmax=G + 0.5, colorscale=scale, showscale=False, ygap=2,
        # Translators: in a hover: the feature is in this view
        customdata=np.where(rows, _("member"), "—"), text=hover,
        hovertemplate="%{y}<br>%{text}<br>%{customdata}<extra></extra>",
    ))
    edges = np.flatnonzero(groups[order][1:] != groups[order][:-1]) + 0.5
    for e in edges:
        fig.add_vline(x=e, line_width=1, line_color=INK)
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
    fig.update_xaxes(title_text=(_("features ({used} of {total} kept, grouped by natural view)") if G > 1 else
                                 _("features ({used} of {total} kept)")).format(used=used, total=d))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(title=title, height=max(320, 60 + 26 * (k + 1)), legend_title_text=_("natural view"),
                      margin=dict(t=50, b=50, l=80, r=20), plot_bgcolor=WHITE)
    return fig


def partition_vs_natural(crosstab, title: str | None = None) -> go.Figure:
    """Heatmap of feature counts, natural views (rows) x learned views and ``discarded`` (columns).

    ``crosstab`` is a DataFrame such as :func:`mvlab.experiments.view_construction_sweep.partition_crosstab`
    returns.  Colour is the share of the natural view's features that went to the column, text
    is the count: a learned view that rediscovers a natural view is one dark cell in its column. ``title``:
    "Learned views against the natural views" (in the reader's language) unless given.
    """
    title = _("Learned views against the natural views") if title is None else title
    counts = np.asarray(crosstab.to_numpy(), dtype=float)
    sizes = np.asarray([float(v) for v in crosstab.sum(axis=1)])
    share = counts / np.maximum(sizes[:, None], 1)
    rows = [str(r) for r in crosstab.index]
    cols = [str(c) for c in crosstab.columns]
    fig = go.Figure(go.Heatmap(
        z=share, x=cols, y=rows, colorscale="Blues", zmin=0, zmax=1, text=counts.astype(int),
        # Translators: a colour bar's title: <br> breaks the line (put it where the words break best)
        texttemplate="%{text}", colorbar=dict(title=_("share of<br>the row")), xgap=1, ygap=1,
        hovertemplate=(_("natural view %{y}") + "<br>" + _("%{x}: %{text} features (%{z:.0%} of the row)")
                       + "<extra></extra>"),
    ))
    fig.update_yaxes(autorange="reversed", type="category", title_text=_("natural view"))
    fig.update_xaxes(type="category", title_text=_("learned view"))
    fig.update_layout(title=title, height=max(240, 130 + 34 * len(rows)), margin=dict(t=50, b=50, l=100, r=20))
    return fig


def k_sweep_boxes(
    panels: Mapping[tuple[str, str], object],
    *,
    metric_titles: Mapping[str, str] | None = None,
    classifier_titles: Mapping[str, str] | None = None,
    title: str | None = None,
) -> go.Figure:
    """Box plots in a grid: one row per metric, one column per classifier (paper Figs. 4-7).

    ``panels`` maps (metric, classifier) to a DataFrame with one row per k and one column per
    method (e.g. :meth:`mvlab.experiments.view_construction_sweep.KSweepResult.per_k`); each box summarises a
    method's values over k.  The box spans Q1-Q3, whiskers reach the most extreme value within
    1.5 IQR, values beyond are drawn as crosses; hover a point for its k.  NaN values (e.g. the
    disagreement at k = 1) are left out. ``title``: "Across k = 1..K: one box per method" (in the reader's
    language) unless given.
    """
    title = _("Across k = 1..K: one box per method") if title is None else title
    metrics = list(dict.fromkeys(m for m, _clf in panels))
    classifiers = list(dict.fromkeys(c for _metric, c in panels))
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
    fig.update_layout(title=title, height=80 + 300 * len(metrics), legend_title_text=_("method"),
                      margin=dict(t=80, b=40, l=60, r=20))
    return fig


def k_sweep_lines(frame, *, metric_title: str | None = None, title: str | None = None) -> go.Figure:
    """One line per method (columns of ``frame``) across k (its index): the trend that a box plot
    summarises away. ``metric_title`` (the y axis): "value", ``title``: "Mean over folds for each k" (in the reader's
    language) unless given."""
    metric_title = _("value") if metric_title is None else metric_title
    title = _("Mean over folds for each k") if title is None else title
    fig = go.Figure()
    for i, method in enumerate(frame.columns):
        color = _view_method_color(str(method), i)
        fig.add_trace(go.Scatter(x=list(frame.index), y=np.asarray(frame[method], dtype=float), mode="lines+markers",
                                 name=str(method), line=dict(color=color, width=3 if method == "OFSP" else 1.5),
                                 hovertemplate=str(method) + "<br>k = %{x}: %{y:.4g}<extra></extra>"))
    fig.update_xaxes(title_text=_("number of views k"), dtick=1)
    fig.update_layout(title=title, yaxis_title=metric_title, height=340, legend_title_text=_("method"),
                      margin=dict(t=50, b=40, l=60, r=20))
    return fig
