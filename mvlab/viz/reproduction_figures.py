"""Figures of the Papers page: every published cell against mvlab's reproduction of it.

Reads the cells tables of :mod:`mvlab.reproduction` (one row per table, dataset, setting and model, with columns
``mean``, ``ci_low``, ``ci_high``, ``paper``, ``inside``, ``draws``); a cell without a printed value is not drawn.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mvlab.i18n import _, decimal_symbol, format_number, ngettext
from mvlab.viz.palette import CATEGORY, GREY, REFERENCE_LINE, nth_color

__all__ = ["paper_against_ours", "sdf_paper_against_ours", "ofsp_paper_against_ours"]

_SYMBOLS = ("circle", "diamond", "square", "triangle-up", "cross", "x", "star", "hexagon")
_DESCRIBED = ("table", "dataset", "N", "T", "k", "classifier", "model", "reading")


def _g(value, digits: int = 6) -> str:
    """``value`` to ``digits`` significant digits (``:g``) with the reader's decimal mark."""
    return f"{float(value):.{digits}g}".replace(".", decimal_symbol())


def _describe(row) -> str:
    """One cell in words for its hover: its setting, mvlab's mean and interval with the draws, the paper's value."""
    setting = ", ".join(f"{c} = {_g(row[c])}" if c in ("N", "T", "k") else str(row[c])
                        for c in _DESCRIBED if c in row and pd.notna(row[c]) and row[c] != "")
    draws, mean = int(row["draws"]), format_number(row["mean"], 3)
    if pd.notna(row.get("ci_low")):
        # Translators: mvlab's mean, its 95 % interval [from, to] and the number of draws behind it
        measured = ngettext("mvlab {mean} [{low}, {high}], {n} draws", "mvlab {mean} [{low}, {high}], {n} draws",
                            draws).format(mean=mean, low=format_number(row["ci_low"], 3),
                                          high=format_number(row["ci_high"], 3), n=draws)
    else:
        measured = ngettext("mvlab {mean} (one draw: no interval), {n} draws",
                            "mvlab {mean} (one draw: no interval), {n} draws", draws).format(mean=mean, n=draws)
    # Translators: whether the paper's value lies inside mvlab's 95 % interval
    verdict = {True: _("inside"), False: _("outside")}.get(row.get("inside"), _("no verdict"))
    # Translators: the value the paper printed, and whether it lies inside mvlab's interval ("inside", "outside")
    return f"{setting}<br>{measured}<br>" + _("paper {value}: {verdict}").format(value=_g(row["paper"], 4),
                                                                                  verdict=verdict)


def _ordered(values) -> list:
    """The distinct values of a column (none missing: checked by the caller) in their natural order (numbers
    ascending, text as first seen)."""
    unique = pd.unique(pd.Series(values))
    return sorted(unique) if pd.api.types.is_numeric_dtype(pd.Series(unique)) else list(unique)


def paper_against_ours(cells: pd.DataFrame, *, colour: str, symbol: str, facet: str,
                       facet_titles: Mapping | None = None, colour_title: str | None = None,
                       title: str | None = None) -> go.Figure:
    """One marker per cell with a printed value: x the paper's value, y mvlab's mean, the vertical bar its 95 %
    t interval (from ``ci_low`` to ``ci_high``; none for a one-draw cell), the dashed diagonal y = x where the two
    agree. A bar that crosses the diagonal is a cell whose paper value lies inside our interval (a cell without a
    bar: only if its marker sits on the diagonal); a marker above the diagonal is a cell where mvlab measured more
    than the paper printed.

    ``cells``: a cells table (columns ``mean, ci_low, ci_high, paper, inside, draws`` and the setting's columns);
    rows without ``paper`` are left out. ``colour``, ``symbol`` and ``facet`` name its columns: the marker's colour
    (with ``colour_title`` before the value in the legend), its shape, and one panel per value of ``facet``
    (titled by ``facet_titles`` when given), each with its own axes and diagonal. ``title``: "The paper's cells
    against mvlab's" (in the reader's language) unless given.
    """
    title = _("The paper's cells against mvlab's") if title is None else title
    for column in (colour, symbol, facet, "mean", "ci_low", "ci_high", "paper", "draws"):
        if column not in cells.columns:
            raise ValueError(f"the cells table has no column {column!r}; it has {list(cells.columns)}.")
    have = cells[cells["paper"].notna() & cells["mean"].notna()]
    for column in (colour, symbol, facet):
        if have[column].isna().any():
            raise ValueError(f"{int(have[column].isna().sum())} cell(s) with a printed value have no {column!r}; "
                             "every drawn cell needs one (its colour, shape and panel).")
    panels = _ordered(have[facet])
    names = [str((facet_titles or {}).get(p, p)) for p in panels] or [""]
    fig = make_subplots(rows=1, cols=max(1, len(panels)), subplot_titles=names, horizontal_spacing=0.08)
    colours = {c: nth_color(CATEGORY, i) for i, c in enumerate(_ordered(have[colour]))}
    shapes = {s: _SYMBOLS[i % len(_SYMBOLS)] for i, s in enumerate(_ordered(have[symbol]))}
    label = (lambda c: f"{colour_title} = {c}") if colour_title else str
    for col, panel in enumerate(panels, start=1):
        part = have[have[facet] == panel]
        ends = part[["paper", "mean", "ci_low", "ci_high"]].to_numpy(dtype=float)
        low, high = np.nanmin(ends), np.nanmax(ends)
        pad = 0.02 * max(high - low, 1e-3)
        fig.add_trace(go.Scatter(x=[low - pad, high + pad], y=[low - pad, high + pad], mode="lines",
                                 line=dict(color=REFERENCE_LINE, dash="dash", width=1), hoverinfo="skip",
                                 name=_("mvlab = the paper"), showlegend=col == 1), row=1, col=col)
        for c, s in ((c, s) for c in colours for s in shapes):
            group = part[(part[colour] == c) & (part[symbol] == s)]
            if group.empty:
                continue
            fig.add_trace(go.Scatter(
                x=group["paper"].tolist(), y=group["mean"].tolist(), mode="markers", name=label(c),
                legendgroup=f"colour {c}", showlegend=False, marker=dict(color=colours[c], symbol=shapes[s], size=9,
                                              line=dict(color="white", width=0.5)),
                error_y=dict(type="data", symmetric=False, array=(group["ci_high"] - group["mean"]).tolist(),
                             arrayminus=(group["mean"] - group["ci_low"]).tolist(), color=colours[c], thickness=1,
                             width=0),
                hovertext=[_describe(row) for _i, row in group.iterrows()], hoverinfo="text"), row=1, col=col)
        fig.update_xaxes(title_text=_("the paper's value"), row=1, col=col)
    fig.update_yaxes(title_text=_("mvlab: mean, 95 % interval"), row=1, col=1)
    for c in colours:  # the legend: one entry per colour, then one per shape (in grey)
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=label(c), legendgroup=f"colour {c}",
                                 marker=dict(color=colours[c], symbol="circle", size=9)))
    for s in shapes:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=str(s),
                                 marker=dict(color=GREY, symbol=shapes[s], size=9)))
    fig.update_layout(title=title, height=430, legend=dict(groupclick="togglegroup"),
                      margin=dict(t=70, l=60, r=20, b=50))
    return fig


def _draws_note(cells: pd.DataFrame) -> str:
    """How many draws stand behind the drawn cells, for a title (a figure written to a file says what it shows)."""
    draws = cells.loc[cells["paper"].notna(), "draws"]
    if draws.empty:
        return _("no cell yet")
    low, high = int(draws.min()), int(draws.max())
    if low == high:
        return ngettext("{n} draws per cell", "{n} draws per cell", low).format(n=low)
    return ngettext("{low}-{n} draws per cell", "{low}-{n} draws per cell", high).format(low=low, n=high)


def sdf_paper_against_ours(cells: pd.DataFrame) -> go.Figure:
    """:func:`paper_against_ours` for the Siamese deep forest's Tables 4-8 (``sdf_paper_cells.csv``, each draw once:
    :func:`mvlab.reproduction.coverage.counted_once`): colour by the number of training pairs N, shape by model, one
    panel per pair-sampling reading, its title saying how many printed cells it holds."""
    per_reading = cells[cells["paper"].notna()].groupby("reading").size()
    names = {"disjoint": _("disjoint instance pools"), "shared": _("one pool shared by training and test")}
    # Translators: a panel's title: the way the pairs were sampled, and how many printed cells the panel holds
    holding = {r: ngettext("{reading} ({n} cells)", "{reading} ({n} cells)", int(per_reading.get(r, 0)))
               for r in names}
    return paper_against_ours(
        cells, colour="N", symbol="model", facet="reading", colour_title="N",
        facet_titles={r: holding[r].format(reading=name, n=per_reading.get(r, 0)) for r, name in names.items()},
        # Translators: {draws} says how many draws stand behind each cell, e.g. "10 draws per cell"
        title=_("Tables 4-8: the printed cells mvlab ran, each draw once, against mvlab's ({draws})").format(
            draws=_draws_note(cells)))


def ofsp_paper_against_ours(cells: pd.DataFrame) -> go.Figure:
    """:func:`paper_against_ours` for OFSP's Tables 3 (accuracy) and 4 (disagreement), one panel each: colour by
    the reading in the ``reading`` column (e.g. :func:`mvlab.reproduction.ofsp_paper_report.beside_the_protocol`'s
    table), shape by dataset."""
    return paper_against_ours(
        cells, colour="reading", symbol="dataset", facet="table",
        facet_titles={3: _("Table 3: accuracy"), 4: _("Table 4: disagreement")},
        # Translators: {cells} says how many printed cells, e.g. "12 printed OFSP cells mvlab ran (3 datasets)";
        # {draws} how many draws stand behind each, e.g. "10 draws per cell"
        title=_("Tables 3 and 4: the {cells}, against mvlab's ({draws})").format(cells=_ofsp_count(cells),
                                                                                 draws=_draws_note(cells)))


def _ofsp_count(cells: pd.DataFrame) -> str:
    """How many distinct printed cells (table, dataset, classifier, k) the OFSP figure holds, on how many datasets."""
    printed = cells[cells["paper"].notna()].drop_duplicates(["table", "dataset", "classifier", "k"])
    return ngettext("{n} printed OFSP cells mvlab ran ({datasets} datasets)",
                    "{n} printed OFSP cells mvlab ran ({datasets} datasets)", len(printed)).format(
        n=len(printed), datasets=printed["dataset"].nunique())
