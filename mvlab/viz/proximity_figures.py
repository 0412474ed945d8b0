"""Figures of the proximity lesson: one instance's leaf-mates on a map, and its proximity row as trees
are added (:class:`mvlab.experiments.proximity_walk.ProximityWalk`)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mvlab.i18n import _, format_number, ngettext
from mvlab.viz.palette import INK, STRONG_INK, class_colors

__all__ = ["leaf_mates_map", "proximity_rows"]


def leaf_mates_map(coords: np.ndarray, labels: Sequence[str], classes: Sequence[str], focus: int,
                   mates: Mapping[str, np.ndarray], *, title: str | None = None) -> go.Figure:
    """Small multiples of one 2-D map (coords (n, 2)), one panel per entry of ``mates`` (a title ->
    bool (n,) mask of the instances sharing ``focus``'s leaf): leaf-mates drawn large and coloured by
    class, the others faint, ``focus`` as a black star.  ``title``: None for "Leaf-mates"."""
    # Translators: the instances that share a leaf of a decision tree with an instance
    title = _("Leaf-mates") if title is None else title
    labels = np.asarray(labels).astype(str)
    colors = class_colors([str(c) for c in classes])
    names = list(mates)
    counts = [int(mates[name].sum()) - 1 for name in names]
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=[
        # Translators: {name}: a panel's name (e.g. "tree 1"); {n}: the instances sharing a leaf with ours there
        # (the English "(s)" serves both forms; write each form of your language)
        ngettext("{name}: {n} leaf-mate(s)", "{name}: {n} leaf-mate(s)", n).format(name=name, n=format_number(n))
        for name, n in zip(names, counts)], horizontal_spacing=0.04)
    # Translators: %{customdata}: the instance's row number in the dataset
    instance = _("instance %{customdata}") + "<br>"
    # Translators: {cls} is the name of an instance's class (its label), e.g. "class setosa"
    class_of = _("class {cls}")
    # Translators: {cls}: the instance's class; a leaf-mate shares a leaf of this tree with our instance
    class_of_mate = _("class {cls} (leaf-mate)")
    # Translators: {instance}: the followed instance's row number in the dataset; {cls}: its class's name
    ours = _("our instance ({instance}), class {cls}").format(instance=focus, cls=labels[focus])
    index = np.arange(len(labels))
    in_legend: set[str] = set()  # every class once in the legend, leaf-mates or not
    for k, name in enumerate(names):
        mask = np.asarray(mates[name], dtype=bool).copy()
        mask[focus] = False
        for cls in classes:
            cls = str(cls)
            for inside in (False, True):
                sel = (labels == cls) & (mask == inside)
                if not sel.any():
                    continue
                fig.add_trace(go.Scattergl(
                    x=coords[sel, 0], y=coords[sel, 1], mode="markers", name=cls, legendgroup=cls,
                    showlegend=cls not in in_legend, customdata=index[sel],
                    marker=dict(color=colors[cls], size=10 if inside else 5, opacity=0.95 if inside else 0.18,
                                line=dict(color=INK, width=1 if inside else 0)),
                    hovertemplate=instance + (class_of_mate if inside else class_of).format(cls=cls)
                    + "<extra></extra>"), row=1, col=k + 1)
                in_legend.add(cls)
        fig.add_trace(go.Scatter(x=[coords[focus, 0]], y=[coords[focus, 1]], mode="markers", name=_("our instance"),
                                 showlegend=k == 0, legendgroup="focus",
                                 marker=dict(symbol="star", size=18, color=STRONG_INK),
                                 hovertemplate=ours + "<extra></extra>"),
                      row=1, col=k + 1)
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False)
    fig.update_layout(title=title, height=380, legend_title_text=_("class"),
                      legend=dict(orientation="h", yanchor="top", y=-0.02, xanchor="left", x=0),
                      margin=dict(t=80, b=50, l=20, r=20))
    return fig


def proximity_rows(rows: Mapping[str, np.ndarray], labels: Sequence[str], classes: Sequence[str], focus: int, *,
                   title: str | None = None) -> go.Figure:
    """One panel per entry of ``rows`` (a title -> proximity (n,) of every instance to ``focus``), the
    instances (``focus`` left out) sorted by class and, within a class, by their proximity in the *last*
    panel, so that the panels show the same instances in the same places as the row grows.  ``title``: None for
    "Proximity to our instance"."""
    title = _("Proximity to our instance") if title is None else title
    # Translators: %{customdata}: the instance's row number in the dataset; %{y:.2f}: its proximity
    hover = _("instance %{customdata}") + "<br>" + _("proximity %{y:.2f}")
    labels = np.asarray(labels).astype(str)
    colors = class_colors([str(c) for c in classes])
    names = list(rows)
    others = np.flatnonzero(np.arange(len(labels)) != focus)
    final = np.asarray(rows[names[-1]])[others]
    class_rank = {str(c): i for i, c in enumerate(classes)}
    order = others[np.lexsort((-final, [class_rank[lab] for lab in labels[others]]))]
    fig = make_subplots(rows=len(names), cols=1, shared_xaxes=True, subplot_titles=names, vertical_spacing=0.08)
    x = np.arange(len(order))
    for k, name in enumerate(names):
        values = np.asarray(rows[name])[order]
        for cls in classes:
            cls = str(cls)
            sel = labels[order] == cls
            if not sel.any():
                continue
            fig.add_trace(go.Bar(x=x[sel], y=values[sel], name=cls, legendgroup=cls, showlegend=k == 0,
                                 marker=dict(color=colors[cls], line=dict(width=0)), customdata=order[sel],
                                 hovertemplate=hover + "<extra>" + cls + "</extra>"), row=k + 1, col=1)
        fig.update_yaxes(range=[0, 1.05], title_text=_("proximity"), row=k + 1, col=1)
    fig.update_xaxes(title_text=_("other instances, by class, then by final proximity"), row=len(names), col=1)
    fig.update_layout(title=title, height=170 * len(names) + 130, bargap=0, legend_title_text=_("class"),
                      legend=dict(orientation="h", yanchor="top", y=-0.08, xanchor="left", x=0),
                      margin=dict(t=80, b=60, l=60, r=20))
    return fig
