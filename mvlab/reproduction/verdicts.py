"""The rules behind every comparative word of the reproduction report, stated once.

The report's prose and tables say *inside*, *near*, *above*, *higher*, *level*, *reproduced* only as these
functions decide, and the report states the rules (:func:`rules_markdown`) with the constants below, so a reader
can check any sentence against the files.

1. A paper's cell is **inside** when its printed value lies in the 95 % Student-t interval of our mean over the
   draws (:func:`mvlab.reproduction.cells.mean_interval`), and **inside for one draw** when it lies in the 95 %
   prediction interval of one draw (:func:`mvlab.reproduction.cells.prediction_interval`): the yardstick for a
   printed cell that may be one run rather than a mean, counted only for a table whose paper does not say its
   values are means (:data:`mvlab.reproduction.coverage.ITEMS` says which do).
2. Ours is **near** the paper's when ``|ours - paper| <= NEAR`` (an equivalence margin of two points of accuracy),
   **above** or **below** it otherwise; the same margin for a gain (SDF minus gcForest, ours against the
   paper's).
3. One of our models is **higher** or **lower** than another when its mean is strictly so; equal means (the same
   number of test pairs right in every draw) are a tie, written **level** and counted as such.
4. A paper's gain is **significant** as the paper tests it (a paired t-test over datasets, p < ``ALPHA``, the gain's
   sign the paper's), and its **size is reproduced** when the paper's mean gain lies in our 95 % interval of it.
5. A group of cells (a row, a table, a value of N) is **above**, **below** or **near** the paper's when more than
   half of its cells are, by rule 2, and **mixed** otherwise (:func:`group_word`); the counts and the mean ``|gap|`` are
   always given beside the word, never a mean of signed gaps alone, which can cancel.

The margin was set in this report's second pass, after the first pass's numbers had been seen: it is a convention
for reading, not a pre-registered test; the cells files give every value, so any other margin can be applied.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NEAR", "ALPHA", "gap_word", "compare_word", "rules_markdown", "count_words", "gap_counts", "group_word",
           "group_text"]

NEAR = 0.02
"""The equivalence margin: ours within this of the paper's value (accuracy or disagreement) is *near* it."""
ALPHA = 0.05
"""The significance level of the paper's own tests (its Table 9)."""


def gap_word(gap: float, margin: float = NEAR) -> str:
    """``"near"`` when ``|gap| <= margin``, else ``"above"`` (gap > 0, ours higher) or ``"below"``."""
    if abs(gap) <= margin + 1e-12:
        return "near"
    return "above" if gap > 0 else "below"


def compare_word(a: float, b: float) -> str:
    """``"higher"``, ``"lower"`` or ``"level"`` (equal to 1e-12: the same count of right answers)."""
    if abs(a - b) <= 1e-12:
        return "level"
    return "higher" if a > b else "lower"


def count_words(differences) -> dict:
    """How many of ``differences`` (ours minus another) are higher, level and lower by :func:`compare_word`."""
    words = [compare_word(float(d), 0.0) for d in np.asarray(differences, dtype=float)]
    return {w: words.count(w) for w in ("higher", "level", "lower")}


def gap_counts(gaps) -> dict:
    """Over ``gaps`` (ours minus the paper's, one per cell): how many are ``near``, ``above`` and ``below`` by
    :func:`gap_word`, how many ``cells``, the ``mean_abs`` ``|gap|`` and the signed ``mean`` (NaN without cells)."""
    gaps = np.asarray(gaps, dtype=float)
    words = [gap_word(float(g)) for g in gaps]
    return {"cells": len(words), **{w: words.count(w) for w in ("near", "above", "below")},
            "mean_abs": float(np.abs(gaps).mean()) if gaps.size else np.nan,
            "mean": float(gaps.mean()) if gaps.size else np.nan}


def group_word(counts: dict) -> str:
    """Rule 5: ``"above"``, ``"below"`` or ``"near"`` when more than half of the group's cells are so
    (:func:`gap_counts`), else ``"mixed"``."""
    for word in ("near", "above", "below"):
        if counts[word] * 2 > counts["cells"]:
            return word
    return "mixed"


def group_text(gaps) -> str:
    """A group's verdict by rule 5 with what it rests on, e.g.
    ``"mixed: 7 near, 10 above, 11 below of 28 cells, mean |gap| 0.028"``."""
    c = gap_counts(gaps)
    if not c["cells"]:
        return "no cell"
    return (f"{group_word(c)}: {c['near']} near, {c['above']} above, {c['below']} below of {c['cells']} cells, mean "
            f"|gap| {c['mean_abs']:.3f}")


def rules_markdown(head: bool = True) -> str:
    """The rules as the report states them, with the constants of this module (``head``: under the report's line
    that names them; without it, as the Papers page shows them)."""
    return "\n".join(([
        "**How the verdicts are decided** (`mvlab.reproduction.verdicts`, applied to the committed cells by the "
        "code that writes the generated parts of this page):"] if head else []) + [
        "- a paper's cell is *inside* when its value lies in the 95 % t interval of our mean over the draws, and "
        "*inside for one draw* when it lies in the 95 % prediction interval of a single draw (mean ± t · sd · "
        "√(1 + 1/n)), the yardstick for a printed cell that may be one run rather than a mean: counted only for a "
        "table whose paper does not say its values are means (the coverage tables quote where it does);",
        f"- ours is *near* the paper's when the two differ by at most {NEAR:.2f} (an equivalence margin), *above* or "
        "*below* it otherwise; a gain (SDF minus gcForest) is compared with the paper's gain by the same margin;",
        "- one of our models is *higher* or *lower* than another when its mean is strictly so; equal means are a "
        "tie, written *level* and counted as such;",
        f"- a paper's gain is *significant* as the paper tests it when its paired t-test over datasets gives "
        f"p < {ALPHA:g} with the paper's sign, and its *size is reproduced* when the paper's mean gain lies in our "
        "95 % interval of it;",
        "- a group of cells (a row, a table, a value of N) is *above*, *below* or *near* when more than half of its "
        "cells are, and *mixed* otherwise; the counts and the mean |gap| stand beside the word, never a mean of "
        "signed gaps alone;",
        "- a gain, gap or difference (and its interval's bounds) keeps its sign when printed: *-0.000* is below "
        "zero by less than 0.0005, *+0.000* is zero or above it by less than 0.0005 (an interval's bounds print "
        "without '+', so its *0.000* is zero or above); a value exactly half-way "
        "between two printed ones (a mean of 0.9225 over draws) prints either way, as its floating-point form "
        "falls, so such a last digit is uncertain by one.",
        "",
        f"The margin {NEAR:.2f} was set in the report's second pass, after the first pass's numbers had been seen: "
        "a convention for reading, not a pre-registered test; the cells files hold every value for any other.",
    ])
