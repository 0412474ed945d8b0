"""The rules behind every comparative word of the reproduction report, stated once.

The report's prose and tables say *inside*, *near*, *above*, *higher*, *level*, *reproduced* only as these
functions decide, and the report states the rules (:func:`rules_markdown`) with the constants below, so a reader
can check any sentence against the files.

1. A paper's cell is **inside** when its printed value lies in the 95 % Student-t interval of our mean over the
   draws (:func:`mvlab.reproduction.cells.mean_interval`), and **inside for one draw** when it lies in the 95 %
   prediction interval of one draw (:func:`mvlab.reproduction.cells.prediction_interval`): the yardstick for a
   printed cell that looks like one run rather than a mean.
2. Ours is **near** the paper's when ``|ours - paper| <= NEAR`` (an equivalence margin of two points of accuracy),
   **above** or **below** it otherwise.
3. One of our models is **higher** or **lower** than another when its mean is strictly so; equal means (the same
   number of test pairs right in every draw) are a **tie**, reported as such.
4. A paper's gain is **significant** as the paper tests it (a paired t-test over datasets, p < ``ALPHA``, the gain's
   sign the paper's), and its **size is reproduced** when the paper's mean gain lies in our 95 % interval of it.

The margin was set in this report's second pass, after the first pass's numbers had been seen: it is a convention
for reading, not a pre-registered test; the cells files give every value, so any other margin can be applied.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NEAR", "ALPHA", "gap_word", "compare_word", "rules_markdown", "count_words"]

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


def rules_markdown(head: bool = True) -> str:
    """The rules as the report states them, with the constants of this module (``head``: under the report's line
    that names them; without it, as the Papers page shows them)."""
    return "\n".join(([
        "**How the verdicts are decided** (`mvlab.reproduction.verdicts`; every number of this report's prose is "
        "filled in from the committed files by the same code that writes the tables):"] if head else []) + [
        "- a paper's cell is *inside* when its value lies in the 95 % t interval of our mean over the draws, and "
        "*inside for one draw* when it lies in the 95 % prediction interval of a single draw (mean ± t · sd · "
        "√(1 + 1/n)), the yardstick for a printed cell that looks like one run rather than a mean;",
        f"- ours is *near* the paper's when the two differ by at most {NEAR:.2f} (an equivalence margin), *above* or "
        "*below* it otherwise;",
        "- one of our models is *higher* or *lower* than another when its mean is strictly so; equal means are a "
        "*tie*, and counted as ties;",
        f"- a paper's gain is *significant* as the paper tests it when its paired t-test over datasets gives "
        f"p < {ALPHA:g} with the paper's sign, and its *size is reproduced* when the paper's mean gain lies in our "
        "95 % interval of it.",
        "",
        f"The margin {NEAR:.2f} was set in the report's second pass, after the first pass's numbers had been seen: "
        "a convention for reading, not a pre-registered test; the cells files hold every value for any other.",
    ])
