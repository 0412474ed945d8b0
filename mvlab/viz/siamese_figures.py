"""Figures of the Siamese deep forest page: accuracy per cascade level, tree-weight distributions,
the τ trade-off and the two instances of a pair."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from mvlab.i18n import _, format_number
from mvlab.viz.palette import BLUE, CATEGORY, GREY, ORANGE, RED, REFERENCE_LINE, nth_color

__all__ = ["cascade_level_accuracy", "tree_weight_distributions", "tau_tradeoff_curve", "pair_view"]


_SDF_COLORS = {"gcForest": GREY, "SDF": RED}
"""The two models of the page: the proposed SDF in vermillion, its gcForest baseline in grey."""


def _model_color(model, i: int) -> str:
    """SDF vermillion, gcForest grey, any other model the ``i``-th categorical colour."""
    return _SDF_COLORS.get(str(model), nth_color(CATEGORY, i))


def cascade_level_accuracy(levels, title: str | None = None) -> go.Figure:
    """Training (out-of-fold, dashed) and test (solid) accuracy per cascade level of each model.

    ``levels`` is a long table (e.g. ``SiameseExperiment.level_table()``) with columns ``model,
    level, training accuracy, test accuracy, kept``.  Levels built but discarded by the stopping
    rule are drawn with open markers (they have no test accuracy); a dotted vertical line marks
    the last level each model keeps. ``title``: "Accuracy per cascade level" (in the reader's language) unless
    given.
    """
    import pandas as pd

    title = _("Accuracy per cascade level") if title is None else title
    levels = pd.DataFrame(levels)
    fig = go.Figure()
    for i, (model, part) in enumerate(levels.groupby("model", sort=False)):
        color = _model_color(model, i)
        part = part.sort_values("level")
        kept = part["kept"].to_numpy(dtype=bool)
        fig.add_trace(go.Scatter(
            x=part["level"], y=part["training accuracy"], mode="lines+markers",
            name=_("{model}: training (out-of-fold)").format(model=model),
            line=dict(color=color, dash="dash"),
            marker=dict(color=color, size=9, symbol=np.where(kept, "circle", "circle-open").tolist()),
            hovertemplate=(f"{model}<br>" + _("level %{x}") + "<br>" + _("training accuracy %{y:.4f}")
                           + "<extra></extra>"),
        ))
        test = part[kept]
        fig.add_trace(go.Scatter(
            x=test["level"], y=test["test accuracy"], mode="lines+markers", name=_("{model}: test").format(model=model),
            line=dict(color=color), marker=dict(color=color, size=9, symbol="diamond"),
            hovertemplate=(f"{model}<br>" + _("level %{x}") + "<br>" + _("test accuracy %{y:.4f}")
                           + "<extra></extra>"),
        ))
        if kept.any():
            last = int(part["level"].to_numpy()[kept].max())
            fig.add_vline(x=last + (0.03 if i else -0.03), line_dash="dot", line_color=color,
                          # Translators: {level} is the number of the last cascade level the model keeps
                          annotation_text=_("{model} keeps {level}").format(model=model, level=last),
                          annotation_position="bottom right" if i else "top left")
    values = pd.concat([levels["training accuracy"], levels["test accuracy"]]).dropna()
    low = float(values.min()) if len(values) else 0.0
    fig.update_xaxes(title_text=_("cascade level (open markers: built, then discarded)"), dtick=1)
    fig.update_layout(title=title, yaxis_title=_("accuracy"), height=380, yaxis_range=[max(0.0, low - 0.05), 1.0],
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=50, b=40, l=50, r=20))
    return fig


def tree_weight_distributions(weights, forest_names: Sequence[str],
                              title: str | None = None,
                              y_range: tuple[float, float] | None = None) -> go.Figure:
    """Box plots of the tree weights of every (level, forest), against the uniform ``1/T`` line.

    ``weights[level][forest]`` is an array (n_models, T) whose rows lie on the simplex (one per
    fold-model, pooled in the box).  The x labels carry the effective number of trees
    ``1 / sum_t w_t^2`` (mean over the fold-models; T for uniform weights); boxes are coloured
    by level.  Individual weights are drawn when there are at most 1500 per box. ``title``: "Learned tree
    weights per level and forest" (in the reader's language) unless given.
    """
    title = _("Learned tree weights per level and forest") if title is None else title
    fig = go.Figure()
    T = None
    for q, level in enumerate(weights):
        color = nth_color(qualitative.Dark2, q)
        for k, W in enumerate(level):
            W = np.atleast_2d(np.asarray(W, dtype=np.float64))
            T = W.shape[1]
            eff = float(np.mean(1.0 / np.sum(W * W, axis=1)))
            # Translators: an axis label: L is short for cascade level ("L2 forest 1": level 2's forest 1)
            label = _("L{level} {forest}").format(level=q + 1, forest=forest_names[k]) + "<br>n_eff " + \
                format_number(eff, 1)
            fig.add_trace(go.Box(
                y=W.ravel(), x=[label] * W.size, name=_("level {n}").format(n=q + 1), legendgroup=f"level {q + 1}",
                showlegend=k == 0, marker_color=color, boxpoints="all" if W.size <= 1500 else "outliers",
                jitter=0.4, pointpos=0, marker=dict(size=3, opacity=0.5),
                hovertemplate=(_("level {n}, {forest}").format(n=q + 1, forest=forest_names[k]) + "<br>"
                               + _("weight %{y:.4f}") + "<extra>"
                               # Translators: n_eff is the effective number of trees, {trees} the number of trees
                               + _("n_eff {value} of {trees}").format(value=format_number(eff, 1), trees=T)
                               + "</extra>"),
            ))
    if T:
        fig.add_hline(y=1.0 / T, line_dash="dash", line_color=REFERENCE_LINE,
                      annotation_text=_("uniform 1/T = 1/{trees}").format(trees=T),
                      annotation_position="top left",  # on a white box: the boxes' points pass under it
                      annotation=dict(bgcolor="rgba(255,255,255,0.85)", font_size=12))
    fig.update_xaxes(type="category", title_text=_("level and forest (effective number of trees 1/Σw²)"))
    fig.update_layout(title=title, yaxis_title=_("tree weight"), height=420, legend_title_text=_("cascade level"),
                      margin=dict(t=50, b=60, l=50, r=20))
    if y_range is not None:  # several figures compared on one scale
        fig.update_yaxes(range=list(y_range))
    return fig


def tau_tradeoff_curve(curves, tau: float, title: str | None = None) -> go.Figure:
    """Accuracy on the determined pairs (top) and share of undetermined pairs (bottom) against
    ``tau``, one line per model; the current ``tau`` is a vertical line.

    ``curves`` maps a model name to a table with columns ``tau, undetermined, accuracy``
    (:func:`mvlab.experiments.siamese_comparison.tau_curve`). ``title``: "What the threshold τ does" (in the
    reader's language) unless given.
    """
    title = _("What the threshold τ does") if title is None else title
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=(_("accuracy on the determined pairs"), _("share of undetermined pairs")))
    for i, (model, curve) in enumerate(curves.items()):
        color = _model_color(model, i)
        fig.add_trace(go.Scatter(x=curve["tau"], y=curve["accuracy"], mode="lines", name=str(model),
                                 legendgroup=str(model), line=dict(color=color),
                                 hovertemplate=f"{model}<br>τ %{{x:.3f}}<br>" + _("accuracy %{y:.4f}")
                                 + "<extra></extra>"),
                      row=1, col=1)
        fig.add_trace(go.Scatter(x=curve["tau"], y=curve["undetermined"], mode="lines", name=str(model),
                                 legendgroup=str(model), showlegend=False, line=dict(color=color),
                                 hovertemplate=f"{model}<br>τ %{{x:.3f}}<br>" + _("undetermined %{y:.1%}")
                                 + "<extra></extra>"),
                      row=2, col=1)
    for row in (1, 2):
        fig.add_vline(x=float(tau), line_dash="dash", line_color=REFERENCE_LINE, row=row, col=1)
    fig.update_yaxes(tickformat=".0%", range=[0, 1], row=2, col=1)
    fig.update_xaxes(title_text=_("τ (threshold on S0 − S1)"), row=2, col=1)
    fig.update_layout(title=_("{title} (current τ = {tau})").format(title=title, tau=format_number(float(tau), 2)),
                      height=460, legend_title_text=_("model"),
                      margin=dict(t=80, b=40, l=50, r=20))
    return fig


def pair_view(a, b, *, image_shape=None, feature_names: Sequence[str] | None = None,
              names: tuple[str, str] | None = None, title: str | None = None,
              y_range: tuple[float, float] | None = None) -> go.Figure:
    """The two instances of a pair: side-by-side grey-level images (``image_shape`` (H, W), same
    colour range, dark = high value) or, otherwise, the two feature vectors overlaid as lines
    (bars for at most 30 features), on the value axis ``y_range`` when given (pairs drawn side by side
    on one scale). ``names``: "instance a" and "instance b", ``title``: "The pair" (in the reader's language)
    unless given."""
    names = (_("instance a"), _("instance b")) if names is None else names
    title = _("The pair") if title is None else title
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if image_shape is not None:
        h, w = (int(s) for s in image_shape)
        lo, hi = float(min(a.min(), b.min())), float(max(a.max(), b.max()))
        fig = make_subplots(rows=1, cols=2, subplot_titles=names, horizontal_spacing=0.06)
        for col, v in ((1, a), (2, b)):
            fig.add_trace(go.Heatmap(z=v.reshape(h, w), zmin=lo, zmax=hi, colorscale="Greys", showscale=col == 2,
                                     hovertemplate=_("row %{y}, column %{x}") + "<br>" + _("value %{z:.2f}")
                                     + "<extra></extra>"),
                          row=1, col=col)
        fig.update_yaxes(autorange="reversed", scaleanchor=None, showticklabels=False)
        fig.update_xaxes(showticklabels=False, constrain="domain")
        fig.update_layout(title=title, height=340, margin=dict(t=70, b=20, l=20, r=20))
        return fig
    x = list(feature_names) if feature_names is not None else list(range(a.size))
    fig = go.Figure()
    for v, name, color in ((a, names[0], BLUE), (b, names[1], ORANGE)):
        if a.size <= 30:
            fig.add_trace(go.Bar(x=x, y=v, name=name, marker_color=color))
        else:
            fig.add_trace(go.Scatter(x=x, y=v, mode="lines", name=name, line=dict(color=color, width=1)))
    fig.update_xaxes(title_text=_("feature"), type="category", showticklabels=a.size <= 60)
    fig.update_layout(title=title, yaxis_title=_("value"), barmode="group", height=340,
                      margin=dict(t=50, b=40, l=50, r=20), hovermode="x unified")
    if y_range is not None:
        fig.update_yaxes(range=list(y_range))
    return fig
