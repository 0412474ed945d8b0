"""Figures of the Benchmark page (and of ``python -m mvlab reproduce --figures``): average ranks, the sign
test's wins / ties / losses with Demšar's critical lines, and the critical-difference diagram."""

from __future__ import annotations

import math
from typing import Mapping

import plotly.graph_objects as go

from mvlab.i18n import _, decimal_symbol, format_number, ngettext
from mvlab.viz.palette import BLUE, GREEN, INK, LIGHT_GREY, RED, STRONG_INK, WHITE

__all__ = ["win_tie_loss", "critical_difference_diagram", "average_rank_bars"]


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
    for label, hover, values, color, pattern in (
            (_("wins"), _("%{y}: %{x} wins"), sign_tests["wins"], GREEN, ""),
            (_("ties"), _("%{y}: %{x} ties"), sign_tests["ties"], LIGHT_GREY, "."),
            (_("losses"), _("%{y}: %{x} losses"), sign_tests["losses"], RED, "x")):
        fig.add_trace(go.Bar(y=methods, x=list(values), name=label, orientation="h", marker_color=color,
                             marker_pattern=dict(shape=pattern, fgcolor=INK, solidity=0.25),
                             marker_line=dict(color=INK, width=1),
                             hovertemplate=hover + "<extra></extra>"))
    split = (sign_tests["wins + ties/2"] if "wins + ties/2" in sign_tests
             else sign_tests["wins"] + sign_tests["ties"] / 2.0)
    fig.add_trace(go.Scatter(y=methods, x=[float(v) for v in split], mode="markers", name=_("wins + ties/2"),
                             marker=dict(symbol="diamond", size=11, color=STRONG_INK, line=dict(color=WHITE, width=1)),
                             hovertemplate=_("%{y}: wins + ties/2 = %{x}") + "<extra></extra>"))
    n = int((sign_tests[["wins", "ties", "losses"]].sum(axis=1)).max()) if len(sign_tests) else 0
    # lines beyond N (a level no count can reach with so few datasets) stay in view
    top, pad = max(critical.values(), default=float(n)), 0.02 * max(n, 1)
    # labels above the plot, one row per level, so close lines do not write over each other
    for i, ((name, value), dash) in enumerate(zip(critical.items(), ("solid", "dash", "dot"))):
        # Translators: a line's label: a method whose diamond lies beyond the line is significantly better (worse)
        # at the level {level}, e.g. "α = 0.05"
        better, worse = _("better, {level}").format(level=name), _("worse, {level}").format(level=name)
        for x, text in ((value, better), (n - value, worse)):
            fig.add_vline(x=x, line_dash=dash, line_color=INK)
            fig.add_annotation(x=x, y=1.0, xref="x", yref="paper", yanchor="bottom", text=text, showarrow=False,
                               font=dict(size=11), yshift=2 + 15 * (len(critical) - 1 - i))
    fig.update_layout(title=title or ngettext("Wins / ties / losses against {baseline} over {n} dataset(s)",
                                              "Wins / ties / losses against {baseline} over {n} dataset(s)",
                                              n).format(baseline=baseline, n=n), barmode="stack",
                      xaxis_title=_("datasets (ties split in half: the diamond is wins + ties/2)"),
                      xaxis_range=[min(0.0, n - top) - pad, max(float(n), top) + pad], height=200 + 40 * len(methods),
                      yaxis_type="category",
                      margin=dict(t=95, b=95, l=120, r=50),
                      legend=dict(orientation="h", yref="container", y=0.0, yanchor="bottom"))
    return fig


def critical_difference_diagram(cd, title: str | None = None) -> go.Figure:
    """Critical-difference diagram (Demšar 2006, Figs. 1-2): methods on an average-rank axis
    (1 = best, on the left), labelled best half on the left and the rest on the right, with a thick
    bar joining every group of methods that are not significantly different.

    ``cd`` is a :class:`mvlab.stats.CriticalDifferenceResult` (fields ``methods``,
    ``average_ranks``, ``groups``, ``critical_difference``, ``control``, ``label``, ``alpha``); the
    groups are computed there, not here. With a Nemenyi or Bonferroni-Dunn CD a bracket of the CD's
    length is drawn under the labels; against a control the control is drawn in vermillion and bold and, for
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
                      fillcolor="rgba(213,94,0,0.18)", line_width=0, layer="below")
    for i, (m, r) in enumerate(zip(methods, ranks)):
        left = i < n_left
        y = base - row * (i if left else k - 1 - i)
        x_edge = lo if left else hi
        is_control = m == cd.control
        color = RED if is_control else INK
        fig.add_trace(go.Scatter(x=[r, r, x_edge], y=[0, y, y], mode="lines", line=dict(color=color, width=1),
                                 hoverinfo="skip", showlegend=False))
        fig.add_annotation(x=x_edge, y=y, text=f"<b>{m}</b> ({format_number(r, 2)})" if is_control
                           else f"{m} ({format_number(r, 2)})",
                           xanchor="right" if left else "left", showarrow=False, font=dict(size=13, color=color),
                           xshift=-4 if left else 4)
    fig.add_trace(go.Scatter(x=ranks, y=[0] * k, mode="markers", showlegend=False, text=methods,
                             marker=dict(size=9, color=[RED if m == cd.control else INK for m in methods]),
                             hovertemplate=_("%{text}: average rank %{x:.2f}") + "<extra></extra>"))
    for g, y in zip(groups, bar_y):
        xs = [ranks[methods.index(m)] for m in g]
        fig.add_trace(go.Scatter(x=[min(xs) - 0.04, max(xs) + 0.04], y=[y, y], mode="lines", showlegend=False,
                                 line=dict(color=STRONG_INK, width=6), name=_("not significantly different"),
                                 hovertemplate=_("not significantly different: {methods}").format(methods=", ".join(g))
                                 + "<extra></extra>"))
    fig.add_annotation(x=lo, y=0, text=_("average rank") + "<br>" + _("(1 = best)"), showarrow=False, xanchor="right",
                       yanchor="bottom", font=dict(size=11, color="#555"), xshift=-4)
    bottom = base - row * max(n_left, k - n_left)
    if has_cd:
        yb = bottom - 0.15
        fig.add_trace(go.Scatter(x=[1, 1, 1, 1 + value, 1 + value, 1 + value], y=[yb + 0.08, yb - 0.08, yb, yb,
                                 yb + 0.08, yb - 0.08], mode="lines", line=dict(color=BLUE, width=2),
                                 showlegend=False, hoverinfo="skip"))
        # Translators: CD is the critical difference (Demšar 2006) of average ranks
        fig.add_annotation(x=1 + value / 2, y=yb, text=_("CD = {value}").format(value=format_number(value, 2)),
                           showarrow=False, yshift=10, font=dict(color=BLUE))
        bottom = yb - 0.15
    label = max((len(m) + 7 for m in methods), default=8)
    if title is None:
        alpha = f"{cd.alpha:g}".replace(".", decimal_symbol())
        if has_cd:
            # Translators: {test} names the test (e.g. "Nemenyi, all pairs"), CD is the critical difference
            title = _("{test}, α = {alpha}, CD = {cd}: methods joined by a bar are not significantly different").format(
                test=cd.label, alpha=alpha, cd=format_number(value, 2))
        else:
            # Translators: {test} names the test (e.g. "Holm against SDF")
            title = _("{test}, α = {alpha}: methods joined by a bar are not significantly different").format(
                test=cd.label, alpha=alpha)
    fig.update_layout(
        title=dict(text=title, font=dict(size=14)), height=int(170 + 55 * (-bottom)), plot_bgcolor=WHITE,
        xaxis=dict(range=[lo, hi], side="top", tickvals=list(range(1, k + 1)), showline=True, linecolor=INK,
                   ticks="outside", showgrid=False, zeroline=False),
        yaxis=dict(range=[bottom - 0.1, 0.02], visible=False),
        margin=dict(t=90, b=20, l=20 + 8 * label, r=20 + 8 * label),
    )
    return fig


def average_rank_bars(ranks, title: str | None = None) -> go.Figure:
    """Bars of average ranks (a pandas Series, method -> rank), best first; ``title``: "Average rank over datasets
    (1 = best)" (in the reader's language) unless given."""
    title = _("Average rank over datasets (1 = best)") if title is None else title
    ranks = ranks.sort_values(kind="stable")
    fig = go.Figure(go.Bar(x=list(ranks.index), y=list(ranks.values),
                           text=[format_number(r, 2) for r in ranks.values], textposition="outside", marker_color=BLUE,
                           hovertemplate=_("%{x}: rank %{y:.2f}") + "<extra></extra>"))
    fig.update_layout(title=title, yaxis_title=_("average rank"), xaxis_type="category", height=320,
                      margin=dict(t=50, b=40, l=50, r=20))
    return fig
