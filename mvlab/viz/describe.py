"""A figure's text alternative (WCAG 2.1, 1.1.1): a sentence that says what this figure shows for this run, computed
from the figure's own data, and the data as a table, for a reader who cannot see the figure.

:func:`describe` reads the traces of a plotly figure: bars (per trace, the highest and the lowest bar), points
(how many, in which groups), heatmaps (the matrix's size and range), box plots (each box's median and quartiles)
and lines. A figure function may say more than the traces can: a sentence in ``fig.layout.meta["summary"]`` comes
first (e.g. which subset DVS chose for what share of the test instances).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mvlab.i18n import N_, _, format_list, localised_number, ngettext

__all__ = ["Description", "describe", "plain", "DATA_SUMMARY", "COLUMNS", "data_disclosure"]

_TAG = re.compile(r"<[^>]+>")
_LINES = re.compile(r"\s*\n\s*")


def plain(text) -> str:
    """Plotly's text without its HTML (``<br>``, ``<sup>``, ``<b>``) and spaces run together."""
    return re.sub(r"\s+", " ", _TAG.sub(" ", str(text or ""))).strip()


@dataclass(frozen=True)
class Description:
    """What a figure shows, in words (``sentence``) and as rows (``table``: one row per mark, the trace's name in
    ``series`` where the figure has several)."""

    sentence: str
    table: pd.DataFrame


def _number(v) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    written = f"{f:.0f}" if f == int(f) and abs(f) < 1e6 else f"{f:.3g}"
    return localised_number(written)


def _values(trace, name):
    v = getattr(trace, name, None)
    return [] if v is None else np.asarray(v, dtype=object).ravel().tolist()


def _bars(n: int) -> str:
    return ngettext("{n} bar", "{n} bars", n).format(n=n)


def _bar(trace):
    horizontal = trace.orientation == "h"
    cats, vals = (_values(trace, "y"), _values(trace, "x")) if horizontal else (_values(trace, "x"),
                                                                                  _values(trace, "y"))
    rows = pd.DataFrame({"category": [plain(c) for c in cats], "value": vals})
    numeric = pd.to_numeric(rows["value"], errors="coerce")
    if numeric.notna().any():
        hi, lo = rows.loc[numeric.idxmax()], rows.loc[numeric.idxmin()]
        said = _bars(len(rows)) + _(", highest {category} ({value})").format(category=hi["category"],
                                                                          value=_number(hi["value"]))
        said += _(", lowest {category} ({value})").format(category=lo["category"], value=_number(lo["value"])) \
            if len(rows) > 1 else ""
    else:
        said = _bars(len(rows))
    return rows, said


def _points(trace):
    x, y = _values(trace, "x"), _values(trace, "y")
    rows = pd.DataFrame({"x": x, "y": y}) if len(x) == len(y) else pd.DataFrame({"value": x or y})
    line_only = "lines" in str(trace.mode or "") and "markers" not in str(trace.mode or "")
    n = len(rows)
    return rows, (ngettext("a line through {n} point", "a line through {n} points", n) if line_only else
                  ngettext("{n} point", "{n} points", n)).format(n=n)


def _heatmap(trace):
    z = np.asarray(trace.z, dtype=float) if trace.z is not None else np.zeros((0, 0))
    x = [plain(v) for v in _values(trace, "x")] or list(range(z.shape[1] if z.ndim == 2 else 0))
    y = [plain(v) for v in _values(trace, "y")] or list(range(z.shape[0] if z.ndim == 2 else 0))
    rows = pd.DataFrame(z, index=y[:z.shape[0]], columns=x[:z.shape[1]]) if z.ndim == 2 else pd.DataFrame()
    finite = z[np.isfinite(z)] if z.size else z
    rng = (_(", values from {low} to {high} (mean {mean})").format(
        low=_number(finite.min()), high=_number(finite.max()), mean=_number(finite.mean())) if finite.size else "")
    return rows.reset_index(names="row"), _("a {rows} × {columns} matrix").format(
        rows=z.shape[0], columns=z.shape[1] if z.ndim == 2 else 0) + rng


def _box(trace):
    vals = pd.to_numeric(pd.Series(_values(trace, "y") or _values(trace, "x")), errors="coerce").dropna()
    if vals.empty:
        return pd.DataFrame(), _("an empty box")
    q1, med, q3 = vals.quantile([0.25, 0.5, 0.75])
    rows = pd.DataFrame({"n": [len(vals)], "min": [vals.min()], "first quartile": [q1], "median": [med],
                         "third quartile": [q3], "max": [vals.max()]})
    return rows, ngettext("median {median} (quartiles {q1} to {q3}, {n} value)",
                          "median {median} (quartiles {q1} to {q3}, {n} values)", len(vals)).format(
        median=_number(med), q1=_number(q1), q3=_number(q3), n=len(vals))


_READERS = {"bar": _bar, "scatter": _points, "scattergl": _points, "heatmap": _heatmap, "box": _box}


DATA_SUMMARY = N_("The figure's data as a table")
"""The words of the disclosure that holds a figure's data (:func:`data_disclosure`)."""
COLUMNS = (N_("category"), N_("value"), N_("row"), N_("series"), N_("min"), N_("first quartile"), N_("median"),
           N_("third quartile"), N_("max"))
"""The column names of a figure's data table (the readers above), written in the reader's language by
:func:`data_disclosure` (a heatmap's columns are its own labels: a view's, a class's)."""


def data_disclosure(table: pd.DataFrame, *, rows: int | None = None, columns: int | None = None) -> str:
    """A figure's data (``table``, :attr:`Description.table`) as a closed HTML disclosure on one line:
    ``<details><summary>The figure's data as a table</summary><table>…</table></details>``, numbers to four
    significant digits, every cell and heading escaped (a figure's labels may come from a reader's file). At most
    ``rows`` × ``columns`` are written (None: all), with a sentence saying how many more are not. One line, with no
    blank line in it, so that Markdown takes it whole as HTML (nothing in it is read as Markdown); "" for an empty
    table."""
    if table.empty:
        return ""
    left = ((len(table) - (rows or len(table)), ngettext("{n} more row", "{n} more rows", len(table) - (
        rows or len(table)))), (table.shape[1] - (columns or table.shape[1]), ngettext(
            "{n} more column", "{n} more columns", table.shape[1] - (columns or table.shape[1]))))
    more = [words.format(n=n) for n, words in left if n > 0]
    shown = table.iloc[:rows, :columns]
    shown = shown.rename(columns={c: _(c) for c in shown.columns if c in COLUMNS})
    written = shown.to_html(index=False, na_rep="—", border=0, escape=True, float_format=lambda v: f"{v:.4g}")
    note = "<p>" + html.escape(_("{what} not written here.").format(what=format_list(more)), quote=False) + "</p>" \
        if more else ""
    summary = html.escape(_(DATA_SUMMARY), quote=False)
    return f"<details><summary>{summary}</summary>{_LINES.sub(' ', written)}{note}</details>"


def describe(fig) -> Description:
    """The text alternative of a plotly figure (see the module docstring): ``Description(sentence, table)``."""
    title = plain(getattr(getattr(fig.layout, "title", None), "text", ""))
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    parts, tables = [], []
    for i, trace in enumerate(fig.data):
        reader = _READERS.get(trace.type)
        if reader is None or getattr(trace, "visible", True) is False:
            continue
        rows, said = reader(trace)
        name = plain(trace.name) if trace.name else (_("series {n}").format(n=i + 1) if len(fig.data) > 1 else "")
        if trace.type in ("scatter", "scattergl") and getattr(trace, "hoverinfo", None) == "skip" and not name:
            continue  # a drawing aid (an edge, a guide line) with nothing to read
        parts.append(f"{name}: {said}" if name else said)
        if not rows.empty:
            tables.append(rows.assign(series=name) if name else rows)
    sentence = ". ".join(p for p in [meta.get("summary", ""), f"{title}" if title else "",
                                     "; ".join(parts[:8]) + ("; " + _("and {n} more").format(n=len(parts) - 8)
                                                             if len(parts) > 8 else "")]
                         if p)
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    if "series" in table:
        table = table[["series"] + [c for c in table.columns if c != "series"]]
    return Description(sentence.strip() + ("." if sentence and not sentence.endswith(".") else ""), table)
