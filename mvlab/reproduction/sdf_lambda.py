"""A reading of the Siamese deep forest paper that may explain its SDF gain: lambda chosen on the test draws.

The paper "tested different values of λ, choosing those leading to the best results": if the best results were
the test accuracies, SDF got the best of several noisy outcomes per cell, an advantage gcForest (no λ) does not
get.  mvlab chooses λ on the training pairs only (:mod:`mvlab.reproduction.sdf_paper`).  To measure what the
other reading is worth, every draw here fits, on the same pairs and with the same seeds as the main protocol:
gcForest, SDF with λ chosen on the training pairs, and SDF with each λ of :data:`LAM_GRID` fixed
(``"sdf@<λ>"`` models, :func:`mvlab.reproduction.sdf_paper.run_draw`).  :func:`lambda_summary` then compares
SDF − gcForest three ways: λ chosen on training pairs (mvlab), λ chosen on the test pairs per draw (the most
favourable reading: the best of the three), and one λ per cell, the one with the best mean test accuracy over
the cell's draws (the reading closest to "the best results" of a table).

The grid is Tables 4-6 at T = 100 (the cheapest column; the paper's gain is there too), disjoint pools, the
main protocol's draws per N; its draws go to their own file (``sdf_lambda_draws.csv``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mvlab.reproduction.markdown import generated_head
from mvlab.reproduction.sdf_paper import (
    FIXED_LAM,
    GRID_N,
    LAM_GRID,
    PAPER,
    TABLE_OF,
    DrawTask,
    draws_for,
    model_name,
)
from mvlab.reproduction.sdf_paper_report import sdf_reading
from mvlab.reproduction.verdicts import group_text

__all__ = ["LAMBDA_DATASETS", "LAMBDA_T", "LAMBDA_MODELS", "lambda_grid", "lambda_summary", "READING",
           "lambda_markdown"]

LAMBDA_DATASETS = ("ecoli", "yeast", "ionosphere")
LAMBDA_T = 100
LAMBDA_MODELS = ("gcforest", "sdf") + tuple(f"{FIXED_LAM}{lam:g}" for lam in LAM_GRID)


def lambda_grid(datasets=LAMBDA_DATASETS, Ns=GRID_N, T: int = LAMBDA_T, draws=draws_for) -> list[DrawTask]:
    """The draws of the λ reading: every (dataset, N) at ``T`` trees, disjoint pools, cheapest first within
    each round of draw numbers (as :func:`mvlab.reproduction.sdf_paper.paper_grid`)."""
    tasks = [DrawTask(name, n, T, "disjoint", d, LAMBDA_MODELS) for name in datasets for n in Ns
             for d in range(draws(n))]
    return sorted(tasks, key=lambda t: (t.draw, t.N * t.T, t.dataset))


def lambda_summary(draws: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, N, T): draws, gcForest's mean accuracy, and SDF − gcForest with λ chosen on training
    pairs, on the test pairs per draw, and per cell (the λ of best mean test accuracy), with the paper's
    SDF − gcForest at that cell (NaN where it gives none)."""
    fixed = [model_name(f"{FIXED_LAM}{lam:g}") for lam in LAM_GRID]
    wide = draws.pivot_table(index=["dataset", "N", "T", "draw"], columns="model", values="accuracy")
    wide = wide.dropna(subset=["gcForest", "SDF", *fixed])
    rows = []
    for (name, n, t), cell in wide.groupby(level=["dataset", "N", "T"]):
        best_cell = max(fixed, key=lambda m: cell[m].mean())
        table = TABLE_OF[name]
        paper = PAPER.get((table, name, n, t, "SDF"), np.nan) - PAPER.get((table, name, n, t, "gcForest"), np.nan)
        rows.append({
            "dataset": name, "N": n, "T": t, "draws": len(cell), "gcForest": cell["gcForest"].mean(),
            "SDF (λ on training pairs)": (cell["SDF"] - cell["gcForest"]).mean(),
            "SDF (λ on test, per draw)": (cell[fixed].max(axis=1) - cell["gcForest"]).mean(),
            "SDF (λ on test, per cell)": (cell[best_cell] - cell["gcForest"]).mean(),
            "λ per cell": best_cell.split("=")[1],
            "paper": paper,
        })
    return pd.DataFrame(rows)


def lambda_markdown(summary: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The section on the λ reading: SDF − gcForest three ways per (dataset, N), beside the paper's."""
    n_draws = len(draws[["dataset", "N", "T", "draw"]].drop_duplicates()) if len(draws) else 0
    out = [generated_head(READING, f"{n_draws} draws; T = {LAMBDA_T}, disjoint pools, the main protocol's pairs "
                          "and seeds", "SDF − gcForest, mean over the draws, with λ chosen on the training pairs "
                          "(mvlab), on the test pairs per draw (the best of λ ∈ {"
                          + ", ".join(f"{v:g}" for v in LAM_GRID) + "}), and per cell (the one λ with the best mean "
                          "test accuracy over the cell's draws), beside the paper's SDF − gcForest.")] if head else []
    if summary.empty:
        return "\n\n".join(out + ["No draw yet."])
    lines = out + ["", "| dataset | N | draws | gcForest | SDF−gcF, λ on training | SDF−gcF, λ on test per draw "
                   "| SDF−gcF, λ on test per cell (λ) | the paper's SDF−gcF |", "|---|---|---|---|---|---|---|---|"]
    for r in summary.itertuples(index=False):
        paper = "" if np.isnan(r.paper) else f"{r.paper:+.3f}"
        lines.append(f"| {r.dataset} | {r.N} | {r.draws} | {r.gcForest:.3f} | {r[5]:+.3f} | {r[6]:+.3f} | "
                     f"{r[7]:+.3f} ({r[8]}) | {paper} |")
    mean = _means(summary)
    lines += ["", f"Mean over the cells: λ on training {mean.iloc[0]:+.3f}, λ on test per draw {mean.iloc[1]:+.3f}, "
                  f"per cell {mean.iloc[2]:+.3f}; the paper {mean.iloc[3]:+.3f}."]
    return "\n".join(lines).strip()


def _means(summary: pd.DataFrame) -> pd.Series:
    return summary[["SDF (λ on training pairs)", "SDF (λ on test, per draw)", "SDF (λ on test, per cell)",
                    "paper"]].mean()


def lambda_facts(summary: pd.DataFrame, draws: pd.DataFrame, others) -> dict:
    """The numbers of the report's prose on this reading: the mean SDF − gcForest over the cells with each choice of
    λ; the gain λ on the test pairs (per draw, per cell) reaches as a share of the paper's mean gain
    (``per_draw_share``, ``per_cell_share``), and the part of it that choosing on the test pairs adds to λ chosen on
    the training pairs (``per_draw_added``, ``per_cell_added``: (test − training) / the paper's); and, cell by cell,
    each choice's gain against the paper's by rule 5 (``cells``: the means alone decide nothing)."""
    mean = _means(summary)
    training, per_draw, per_cell, paper = (float(v) for v in mean.iloc[:4])
    return {"training": f"{training:+.3f}", "per_draw": f"{per_draw:+.3f}", "per_cell": f"{per_cell:+.3f}",
            "paper": f"{paper:+.3f}", "per_draw_share": f"{per_draw / paper:.0%}",
            "per_cell_share": f"{per_cell / paper:.0%}", "per_draw_added": f"{(per_draw - training) / paper:.0%}",
            "per_cell_added": f"{(per_cell - training) / paper:.0%}",
            "cells": "; ".join(f"λ {name}: {group_text(summary[column] - summary['paper'])}" for name, column in (
                ("on training pairs", "SDF (λ on training pairs)"), ("on test per draw", "SDF (λ on test, per draw)"),
                ("on test per cell", "SDF (λ on test, per cell)")))}


READING = sdf_reading(
    "sdf-lambda", "λ chosen on the training pairs, or on the test draws?",
    "The paper \"tested different values of λ, choosing those leading to the best results\": if the results were its "
    "test accuracies, SDF got the best of several noisy outcomes per cell, which gcForest (no λ) does not get. Every "
    "draw also fits SDF with each λ fixed, so the best λ on test can be taken afterwards, per draw or per cell.",
    grid=lambda datasets, Ns, Ts, draws: [t for T in Ts for t in lambda_grid(datasets=datasets, Ns=Ns, T=T,
                                                                             draws=draws)],
    datasets=LAMBDA_DATASETS, summary=lambda draws, folder: lambda_summary(draws) if len(draws) else pd.DataFrame(),
    markdown=lambda_markdown, facts=lambda_facts, trees=(LAMBDA_T,))
"""λ chosen on the test draws (Tables 4-6 at T = 100)."""
