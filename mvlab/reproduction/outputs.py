"""Numbers the report derives from the printed outputs of the protocols on the bundled data
(``docs/reproduction/*.txt``, what ``python -m mvlab reproduce dvs`` printed), so that the report's prose quotes a
computation on those files rather than a number written by hand.

The outputs hold the mean ± std accuracy table per dataset and method; :func:`accuracy_table` reads it back, and
the facts below compute from it what the paper compares: the average ranks among the paper's five methods (its
Table 3), DVS minus Avg, and the forest on the concatenated views against every dissimilarity combination.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from mvlab.stats.ranks import average_ranks

__all__ = ["accuracy_table", "PAPER_METHODS", "SYNTHETIC", "dvs_facts", "OUTPUT_FACTS"]

PAPER_METHODS = {"average": "Avg", "knn": "SWknn", "alignment": "SWka", "oob": "SWoob", "dvs": "DVS"}
"""The paper's five combinations, by the outputs' method names."""
DISSIMILARITY = ("average", "knn", "alignment", "oob", "dvs", "dvs-soft", "dvs-soft-shared")
"""The combinations of the view forests' dissimilarities (the paper's five and mvlab's two DVS variants)."""
SYNTHETIC = ("synthetic", "synthetic (regions)")


def accuracy_table(path) -> pd.DataFrame:
    """The means of the "Mean ± std of accuracy" table of a printed output: datasets x methods."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Mean ± std of accuracy"))
    head = [c.strip() for c in lines[start + 1].strip("|").split("|")]
    rows = {}
    for line in lines[start + 3:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = [float(re.match(r"[\d.]+", c).group()) for c in cells[1:]]
    return pd.DataFrame.from_dict(rows, orient="index", columns=head[1:])


def _rank_row(table: pd.DataFrame) -> str:
    ranks = average_ranks(table[list(PAPER_METHODS)])
    return " | ".join(f"{ranks[m]:.2f}" for m in PAPER_METHODS)


def dvs_facts(folder) -> dict:
    """From ``dvs_10splits_100trees.txt`` (100 trees) and ``dvs_paper.txt`` (the paper's sizes): the average ranks
    among the paper's five methods (on the ten datasets, on the eight real ones, at the paper's sizes), DVS minus
    Avg (smallest and largest), and the forest on the concatenated views minus the best dissimilarity combination
    on each real dataset, largest first."""
    folder = Path(folder)
    quick, paper = (accuracy_table(folder / f) for f in ("dvs_10splits_100trees.txt", "dvs_paper.txt"))
    real = quick.drop(index=[d for d in SYNTHETIC if d in quick.index])
    gap = quick["dvs"] - quick["average"]
    concat = (real["concat"] - real[list(DISSIMILARITY)].max(axis=1)).sort_values(ascending=False)
    stacking = int((real["stacking"] > real[list(DISSIMILARITY)].max(axis=1)).sum())
    return {"ranks_quick": _rank_row(quick), "ranks_real": _rank_row(real), "ranks_paper": _rank_row(paper),
            "dvs_minus_avg": f"{gap.min():+.4f} to {gap.max():+.4f}",
            "concat_margins": ", ".join(f"{d.split(' (')[0]} {100 * v:+.1f}" for d, v in concat.items()),
            "concat_wins": f"{int((concat > 0).sum())} of {len(concat)}",
            "stacking_wins": f"{stacking} of {len(real)}"}


OUTPUT_FACTS = {"dvs-outputs": dvs_facts}
"""Facts computed from the printed outputs, by the name the report's template gives them (``{{dvs-outputs.x}}``)."""
