"""Figures of the Data page: instances per class and the synthetic ground truth (its PCA pictures are
:func:`mvlab.viz.shared_figures.view_projections`)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from mvlab.i18n import _, format_percent
from mvlab.viz.palette import BLUE, INK, class_colors, presence_scale

__all__ = ["class_balance", "informative_matrix"]


def class_balance(counts: Mapping[str, int], title: str | None = None) -> go.Figure:
    """Bar chart of instances per class; ``counts`` maps class name -> count (e.g. a Series); ``title``: None for
    "Instances per class"."""
    title = _("Instances per class") if title is None else title
    counts = dict(counts)
    names = [str(c) for c in counts]
    values = [int(v) for v in counts.values()]
    colors = class_colors(names)
    fig = go.Figure(
        go.Bar(
            x=names, y=values, marker_color=[colors[c] for c in names], text=values, textposition="outside",
            # Translators: {cls} is the name of an instance's class (its label), e.g. "class setosa"
            hovertemplate=_("class {cls}").format(cls="%{x}") + "<br>"
            # Translators: %{y}: a number of instances (the hover cannot choose a plural form)
            + _("%{y} instances") + "<extra></extra>",
        )
    )
    fig.update_layout(title=title, xaxis_title=_("class"), yaxis_title=_("instances"), height=320,
                      margin=dict(t=50, b=40, l=50, r=20), xaxis_type="category")
    return fig


def informative_matrix(
    informative: np.ndarray,
    labels: Sequence[str],
    view_names: Sequence[str],
    title: str | None = None,
) -> go.Figure:
    """Heatmap of the synthetic ground truth, instances (rows, grouped by class) x views.

    ``informative`` is the (n, Q) boolean matrix of :func:`mvlab.datasets.make_multiview_classification`.
    The hover shows the instance's row index in the dataset.  ``title``: None for "Ground truth: which views carry
    each instance's class".
    """
    title = _("Ground truth: which views carry each instance's class") if title is None else title
    informative = np.asarray(informative, dtype=bool)
    labels = np.asarray(labels).astype(str)
    order = np.lexsort((np.arange(len(labels)), labels))
    z = informative[order].astype(int)
    rates = informative.mean(axis=0)
    x = [f"{v} ({format_percent(r, 0)})" for v, r in zip(view_names, rates)]
    fig = go.Figure(
        go.Heatmap(
            z=z, x=x, y=np.arange(len(order)), customdata=np.repeat(order[:, None], z.shape[1], axis=1),
            colorscale=presence_scale(BLUE), zmin=0, zmax=1, showscale=False, xgap=2,
            text=np.repeat(labels[order][:, None], z.shape[1], axis=1),
            # Translators: %{customdata}: the instance's row number in the dataset
            hovertemplate=_("instance %{customdata}") + "<br>" + _("class {cls}").format(cls="%{text}")
            + "<br>%{x}: %{z}<extra></extra>",
        )
    )
    boundaries = np.flatnonzero(labels[order][1:] != labels[order][:-1]) + 0.5
    xs = [v for bnd in boundaries for v in (-0.5, len(view_names) - 0.5, None)]
    ys = [v for bnd in boundaries for v in (bnd, bnd, None)]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=INK, width=1), hoverinfo="skip",
                             showlegend=False, xaxis="x2"))
    fig.update_layout(xaxis2=dict(overlaying="x", range=[-0.5, len(view_names) - 0.5], visible=False))
    fig.update_yaxes(autorange="reversed", title_text=_("instances, grouped by class"), showticklabels=False)
    fig.update_xaxes(title_text=_("view (share of instances for which it is informative)"))
    fig.update_layout(title=title, height=420, margin=dict(t=50, b=60, l=60, r=20))
    return fig
