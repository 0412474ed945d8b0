"""Two more readings of the Siamese deep forest paper that could move its numbers, measured on Table 6's data.

- ``natural``: test (and training) pairs drawn as they come, not half similar and half dissimilar. The paper says
  only that it "randomly select[s] N training data and N_test = 2N/3 test data"; unbalanced pairs change what chance is,
  which matters where its N = 100 cells sit near one half.
- ``insample``: the QP of Eqs. 27-28 fed the tree probabilities of the pairs the trees were grown on, as the paper's
  Algorithm 1 reads literally (mvlab's SDF feeds it each fold-model's held-out pairs). In-sample probabilities are
  nearly one-hot, so no λ can be validated on them: every λ of :data:`mvlab.reproduction.sdf_paper.LAM_GRID` is
  fitted, on the ``disjoint`` reading's own pairs, beside gcForest and mvlab's SDF.

The grid is Table 6 (Ionosphere) at T = 100, every N, the main protocol's draws per N; draws go to their own file
(``sdf_readings_draws.csv``), and :func:`readings_summary` compares them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mvlab.reproduction.markdown import fmt, generated_head
from mvlab.reproduction.sdf_paper import (
    GRID_N,
    INSAMPLE_LAM,
    LAM_GRID,
    PAIR_READINGS,
    PAPER,
    SEED_READING,
    TABLE_OF,
    DrawTask,
    draw_seed,
    draws_for,
    model_name,
)
from mvlab.reproduction.sdf_paper_report import sdf_reading
from mvlab.reproduction.verdicts import gap_word

__all__ = ["READINGS_DATASET", "READINGS_T", "READING_MODELS", "readings_grid", "readings_summary", "READING",
           "readings_markdown"]

READINGS_DATASET = "ionosphere"
READINGS_T = 100
READING_MODELS = {
    "natural": ("gcforest", "sdf"),
    "insample": ("gcforest", "sdf") + tuple(f"{INSAMPLE_LAM}{lam:g}" for lam in LAM_GRID),
}


def readings_grid(dataset: str = READINGS_DATASET, Ns=GRID_N, T: int = READINGS_T, draws=draws_for) -> list[DrawTask]:
    """The draws of the two readings: every N at ``T`` trees, cheapest first within each round of draw numbers."""
    tasks = [DrawTask(dataset, n, T, reading, d, models) for reading, models in READING_MODELS.items()
             for n in Ns for d in range(draws(n))]
    return sorted(tasks, key=lambda t: (t.draw, t.N, t.reading))


def _majority_share(dataset: str, N: int, reading: str, draw: int) -> float:
    """The share of the larger label among a draw's test pairs: the accuracy of always guessing it."""
    from mvlab.datasets import load_dataset
    from mvlab.siamese.pairs import make_pair_split

    seed = draw_seed(dataset, N, SEED_READING.get(reading, reading), draw)
    y = make_pair_split(load_dataset(dataset).y, N, random_state=seed, **PAIR_READINGS[reading]).y_test
    return float(max(np.mean(y), 1.0 - np.mean(y)))


def readings_summary(draws: pd.DataFrame) -> pd.DataFrame:
    """Per (reading, dataset, N, T): draws, the majority share of the test pairs, gcForest's and SDF's mean accuracy
    beside the paper's cells, SDF − gcForest, and for ``insample`` the in-sample SDF − gcForest at each λ."""
    if draws.empty:
        return pd.DataFrame()
    wide = draws.pivot_table(index=["reading", "dataset", "N", "T", "draw"], columns="model", values="accuracy")
    insample = [model_name(f"{INSAMPLE_LAM}{lam:g}") for lam in LAM_GRID]
    rows = []
    for (reading, name, n, t), cell in wide.groupby(level=["reading", "dataset", "N", "T"]):
        cell = cell.dropna(axis=1, how="all").dropna()
        if cell.empty:
            continue
        draws_of = cell.index.get_level_values("draw")
        table = TABLE_OF[name]
        row = {"reading": reading, "dataset": name, "N": n, "T": t, "draws": len(cell),
               "majority": float(np.mean([_majority_share(name, n, reading, d) for d in draws_of])),
               "gcForest": cell["gcForest"].mean(), "SDF": cell["SDF"].mean(),
               "paper gcForest": PAPER.get((table, name, n, t, "gcForest"), np.nan),
               "paper SDF": PAPER.get((table, name, n, t, "SDF"), np.nan),
               "SDF − gcForest": (cell["SDF"] - cell["gcForest"]).mean()}
        for model in insample:
            row[f"{model} − gcForest"] = (cell[model] - cell["gcForest"]).mean() if model in cell else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def readings_markdown(summary: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The section on the two further readings: pairs as they come beside the paper's Table 6 at T = 100, and the
    in-sample QP's SDF − gcForest at each λ."""
    n_draws = len(draws[["reading", "N", "T", "draw"]].drop_duplicates()) if len(draws) else 0
    out = [generated_head(READING, f"{n_draws} draws; Ionosphere, T = {READINGS_T}", "*majority*: the accuracy of "
                          "always guessing the larger label of the test pairs (chance).")] if head else []
    if summary.empty:
        return "\n\n".join(out + ["No draw yet."])
    natural = summary[summary["reading"] == "natural"]
    lines = out + ["", "Pairs drawn as they come (`natural`), beside the paper's Table 6 at T = 100:", "",
                   "| N | draws | majority | gcForest | SDF | paper gcForest | paper SDF |",
                   "|---|---|---|---|---|---|---|"]
    for r in natural.to_dict("records"):
        lines.append(f"| {r['N']} | {r['draws']} | {r['majority']:.3f} | {r['gcForest']:.3f} | {r['SDF']:.3f} | "
                     f"{fmt(r['paper gcForest'])} | {fmt(r['paper SDF'])} |")
    inside = summary[summary["reading"] == "insample"]
    cols = [c for c in inside.columns if c.startswith("SDF in-sample")]
    lines += ["", "The QP fed in-sample tree probabilities (`insample`, the `disjoint` reading's pairs), "
              f"SDF − gcForest with each λ of {{{', '.join(f'{v:g}' for v in LAM_GRID)}}} beside mvlab's SDF "
              "(out-of-fold, λ on training pairs) and the paper's:", "",
              "| N | draws | gcForest | SDF − gcF (mvlab) | " + " | ".join(c.replace("SDF in-sample ", "in-sample ")
                                                                     .replace(" − gcForest", " − gcF") for c in cols)
              + " | paper SDF − gcF |", "|---|---|---|---|" + "---|" * len(cols) + "---|"]
    for r in inside.to_dict("records"):
        paper = r["paper SDF"] - r["paper gcForest"]
        lines.append(f"| {r['N']} | {r['draws']} | {r['gcForest']:.3f} | {r['SDF − gcForest']:+.3f} | "
                     + " | ".join(f"{r[c]:+.3f}" for c in cols) + f" | {'' if np.isnan(paper) else f'{paper:+.3f}'} |")
    return "\n".join(lines).strip()


def readings_facts(summary: pd.DataFrame, draws: pd.DataFrame, others) -> dict:
    """The numbers of the report's prose on these readings: per N, `natural`'s accuracy against the paper's and the
    word of the gap (:func:`mvlab.reproduction.verdicts.gap_word`), its chance level, and the largest distance of
    the in-sample SDF from gcForest over every N and λ."""
    natural = summary[summary["reading"] == "natural"]
    inside = summary[summary["reading"] == "insample"]
    cols = [c for c in inside.columns if c.startswith("SDF in-sample")]
    by_n = "; ".join(f"N = {r['N']}: SDF {r['SDF']:.3f} against the paper's {fmt(r['paper SDF'])}, "
                     f"{gap_word(r['SDF'] - r['paper SDF'])} (chance {r['majority']:.3f})"
                     for r in natural.to_dict("records"))
    return {"natural": by_n, "insample_largest": f"{float(inside[cols].abs().max().max()):.4f}"}


READING = sdf_reading(
    "sdf-readings", "Pairs as they come, and the QP fed in-sample probabilities",
    "Two more readings the paper's text allows, on Table 6's data: pairs drawn as they come instead of half similar "
    "(the paper does not say it balanced them), and the tree-weight QP fed the probabilities of the pairs each tree "
    "was grown on, as its Algorithm 1 reads literally.",
    grid=lambda datasets, Ns, Ts, draws: [t for T in Ts for t in readings_grid(dataset=datasets[0], Ns=Ns, T=T,
                                                                               draws=draws)],
    datasets=(READINGS_DATASET,), dataset_choices=tuple(TABLE_OF),
    summary=lambda draws, folder: readings_summary(draws), markdown=readings_markdown, facts=readings_facts,
    trees=(READINGS_T,))
"""Pairs as they come, and the in-sample QP (Ionosphere at T = 100)."""
