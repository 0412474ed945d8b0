"""Markdown pieces shared by the readings' sections of docs/reproduction.md and the Papers page.

Nothing here computes a model or reads a file: every function formats cells (rows of
:data:`mvlab.reproduction.cells.CELL_COLUMNS`) that a reading computed from its committed draws.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mvlab.reproduction.verdicts import gap_counts

__all__ = ["CLASSIFIER_NAMES", "fmt", "is_false", "count_true", "cell_text", "verdict_line", "verdict_counts",
           "cell_table", "replace_section", "generated_head"]

CLASSIFIER_NAMES = {"knn": "KNN", "nb": "naive Bayes", "svm": "linear SVM"}


def fmt(v, digits: int = 3) -> str:
    """``v`` with ``digits`` decimals, or an empty string for None and non-finite values."""
    return "" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{v:.{digits}f}"


def is_false(verdict) -> bool:
    """Whether a cell's verdict is False: a Python or NumPy bool (a cells file whose every cell has a verdict reads
    back as a bool column), not NaN (no verdict)."""
    return isinstance(verdict, (bool, np.bool_)) and not verdict


def count_true(verdicts: pd.Series) -> int:
    """How many verdicts are True (NaN, no verdict, is not)."""
    return int(verdicts.map(lambda v: v is True or v is np.True_).sum())


def cell_text(row, paper_digits: int = 3, one_draw: bool = True, mark: str = "") -> str:
    """``ours ± half-width (draws) / paper``, the paper's value (``paper_digits`` decimals) in bold when outside the
    interval of the mean, and marked † when also outside the prediction interval of one draw (only with
    ``one_draw``: where the paper does not say its values are means); ``mark`` after the paper's value."""
    if row is None:
        return "not run"
    half = (row["ci_high"] - row["ci_low"]) / 2 if np.isfinite(row["ci_high"]) else np.nan
    paper = fmt(row["paper"], paper_digits)
    if paper and is_false(row["inside"]):
        paper = f"**{paper}**" + ("†" if one_draw and is_false(row.get("inside_one_draw")) else "")
    spread = f" ± {half:.3f}" if np.isfinite(half) else ""
    return f"{row['mean']:.3f}{spread} ({int(row['draws'])}) / {paper or '—'}{mark}"


def verdict_counts(cells: pd.DataFrame) -> dict:
    """Over the cells with a paper value and an interval: ``cells``, ``inside`` (interval of the mean),
    ``inside_one_draw`` (prediction interval), ``near``, ``above``, ``below`` (rule 2,
    :func:`mvlab.reproduction.verdicts.gap_counts`), and the gap ours minus the paper's: ``mean``, ``mean_abs``,
    ``low``, ``high`` (NaN without cells)."""
    have = cells[cells["paper"].notna() & cells["ci_low"].notna()]
    gap = (have["mean"] - have["paper"]).to_numpy(dtype=float)
    one = have["inside_one_draw"] if "inside_one_draw" in have else pd.Series(dtype=object)
    words = gap_counts(gap)
    return {"cells": len(have), "inside": count_true(have["inside"]), "inside_one_draw": count_true(one),
            "near": words["near"], "above": words["above"], "below": words["below"],
            "mean": words["mean"], "mean_abs": words["mean_abs"],
            "low": float(gap.min()) if gap.size else np.nan, "high": float(gap.max()) if gap.size else np.nan}


def verdict_line(cells: pd.DataFrame, one_draw: bool = True, of: str = "of the paper's cells") -> str:
    """How many of the paper's cells lie inside our 95 % intervals of the mean (and, with ``one_draw``, inside the
    prediction interval of one draw: only where the paper does not say its values are means), how many are near,
    above and below ours, the mean ``|gap|`` and the mean and range of ours minus the paper's (``of``: what the
    count is of, where a printed cell may be compared more than once)."""
    c = verdict_counts(cells)
    if not c["cells"]:
        return "no cell with an interval yet"
    one = f", {c['inside_one_draw']} inside that of one draw" if one_draw else ""
    return (f"{c['inside']} of {c['cells']} {of} inside our 95 % interval{one}; {c['near']} near "
            f"ours, {c['above']} above, {c['below']} below (mean |gap| {c['mean_abs']:.3f}); ours minus the "
            f"paper's: mean {c['mean']:+.3f}, from {c['low']:+.3f} to {c['high']:+.3f}")


def cell_table(cells: pd.DataFrame, link, one_draw: bool = True) -> pd.DataFrame:
    """The cells of one table, one row each, for a reader: the setting (those of N, T, classifier and k that
    apply), ours (mean, 95 % intervals shown within [0, 1], draws), the paper's value, whether it lies inside each
    interval (the interval of one draw only with ``one_draw``: where the paper does not say its values are means),
    where the paper took it from (when it says), and ``link(row)``: where the setting can be trained."""
    setting = [c for c in ("N", "T", "classifier", "k")
               if c in cells and cells[c].notna().any() and (cells[c].astype(str) != "").any()]
    sources = "paper_source" in cells and bool(
        cells["paper_source"].astype(object).fillna("").astype(str).str.len().gt(0).any())
    rows = []
    for r in cells.to_dict("records"):
        rows.append({"dataset": r["dataset"], **{c: r[c] for c in setting}, "model": r["model"],
                     "mvlab": round(float(r["mean"]), 3), "95 % interval": _interval(r["ci_low"], r["ci_high"]),
                     "one draw": _interval(r.get("pi_low", np.nan), r.get("pi_high", np.nan)),
                     "draws": int(r["draws"]), "paper": r["paper"], "paper's value": _verdict(r, one_draw),
                     **({"paper took it from": r["paper_source"] or ""} if sources else {}), "open": link(r)})
    return pd.DataFrame(rows)


def _interval(low, high) -> str:
    # shown within [0, 1], the range of an accuracy (the t interval of few draws can reach past it)
    return f"[{max(low, 0.0):.3f}, {min(high, 1.0):.3f}]" if np.isfinite(low) else "one draw: none"


def _verdict(r, one_draw: bool = True) -> str:
    if not np.isfinite(r["paper"]):
        return "no paper value"
    inside = {True: "inside", False: "outside"}.get(r["inside"])
    if inside is None:
        return "one draw: not judged"
    if one_draw and inside == "outside" and r.get("inside_one_draw") is True:
        return "outside (inside one draw's)"
    return inside


def replace_section(text: str, name: str, body: str) -> str:
    """``text`` with the lines between ``<!-- BEGIN name -->`` and ``<!-- END name -->`` replaced by ``body``;
    the two markers are appended at the end when they are not there yet."""
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        return head + block + tail
    return text.rstrip() + "\n\n" + block + "\n"


def generated_head(reading, what: str, how_to_read: str) -> str:
    """The first line of a reading's generated section: the command that rewrites it, its draws file (``what``: how
    many draws it holds, in words), its cells file and ``how_to_read``."""
    return (f"Generated by `{reading.command} --report-only` from "
            f"[{reading.stem}_draws.csv](reproduction/{reading.stem}_draws.csv) ({what}); cells in "
            f"[{reading.stem}_cells.csv](reproduction/{reading.stem}_cells.csv). {how_to_read}")
