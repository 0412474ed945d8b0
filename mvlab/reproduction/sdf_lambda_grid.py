"""A reading of mvlab's own protocol for the Siamese deep forest: is the grid of λ too narrow?

mvlab's SDF chooses λ per fold-model from :data:`mvlab.reproduction.sdf_paper.LAM_GRID` (1, 100, 10,000) on the
training pairs.  In nearly half of the main protocol's draws the cascade's median λ is the grid's largest, where the
weights are nearly uniform and SDF is nearly gcForest: if the best λ lay past an edge of the grid, the edge would
hide a gain.  This reading refits SDF on Table 6's data (Ionosphere) with λ chosen the same way from
:data:`mvlab.reproduction.sdf_paper.WIDE_LAM_GRID`, ten values over nine decades (0.001 to 10**6), on the main
protocol's own pairs and seeds (``disjoint`` pools), at T = 100 and 400 trees (Table 6's two cheapest columns), the
main protocol's draws per N.
gcForest is refitted with it (the same seeds: the same accuracy as the main protocol's, a test checks it), and
:func:`lambda_grid_summary` sets SDF − gcForest with the wide grid beside SDF − gcForest with the main protocol's grid
(the committed ``sdf_paper_draws.csv``, draw for draw) and the paper's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mvlab.reproduction.markdown import generated_head
from mvlab.reproduction.sdf_paper import GRID_N, LAM_GRID, PAPER, WIDE_LAM_GRID, DrawTask, draws_for, model_name
from mvlab.reproduction.sdf_paper_report import sdf_draws_file, sdf_reading
from mvlab.reproduction.verdicts import ALPHA, count_words

__all__ = ["LAMBDA_GRID_DATASET", "LAMBDA_GRID_T", "LAMBDA_GRID_MODELS", "lambda_grid_tasks", "paired_draws",
           "lambda_grid_summary", "lambda_grid_markdown", "READING"]

LAMBDA_GRID_DATASET = "ionosphere"
LAMBDA_GRID_T = (100, 400)
LAMBDA_GRID_MODELS = ("gcforest", "sdf-wide")
WIDE = model_name("sdf-wide")


def lambda_grid_tasks(dataset: str = LAMBDA_GRID_DATASET, Ns=GRID_N, Ts=LAMBDA_GRID_T,
                      draws=draws_for) -> list[DrawTask]:
    """The draws of the wide-grid reading: every (N, T) of ``Ns`` x ``Ts`` on ``dataset``, disjoint pools (the
    main protocol's pairs), cheapest first within each round of draw numbers."""
    tasks = [DrawTask(dataset, n, t, "disjoint", d, LAMBDA_GRID_MODELS) for n in Ns for t in Ts
             for d in range(draws(n))]
    return sorted(tasks, key=lambda t: (t.draw, t.N * t.T))


def paired_draws(draws: pd.DataFrame, main_draws: pd.DataFrame) -> pd.DataFrame:
    """One row per draw in both files (the same dataset, N, T, reading and draw number): gcForest, SDF with the
    main protocol's grid (``SDF``) and with the wide grid (:data:`WIDE`), and each SDF's median λ over its
    fold-models (``λ main``, ``λ wide``).

    ``main_draws``: the main protocol's draws (``sdf_paper_draws.csv``); its gcForest must equal this file's on every
    shared draw (the same seeds), else ValueError: the two files were not computed by the same code."""
    key = ["dataset", "N", "T", "reading", "draw"]
    wide = draws.pivot_table(index=key, columns="model", values="accuracy")
    main = main_draws[main_draws["model"].isin(["gcForest", "SDF"])]
    narrow = main.pivot_table(index=key, columns="model", values="accuracy")
    both = wide.join(narrow, suffixes=("", " (main)"), how="inner").dropna(subset=["gcForest", WIDE, "SDF"])
    differ = (both["gcForest"] - both["gcForest (main)"]).abs() > 1e-12
    if differ.any():
        raise ValueError(f"gcForest differs from the main protocol's on {int(differ.sum())} draw(s) of the same "
                         f"seeds, first {both.index[differ][0]}: the two files were not computed by the same code.")
    lam = {m: d[d["model"] == m].set_index(key)["lam_median"] for m, d in (("SDF", main), (WIDE, draws))}
    return pd.DataFrame({"gcForest": both["gcForest"], "SDF": both["SDF"], WIDE: both[WIDE],
                         "λ main": lam["SDF"].reindex(both.index), "λ wide": lam[WIDE].reindex(both.index)})


def lambda_grid_summary(draws: pd.DataFrame, main_draws: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, N, T) of :func:`paired_draws`: draws, gcForest's mean accuracy, SDF − gcForest with
    each grid (mean over the draws) and how many draws the wide grid's SDF is above, level with and below
    gcForest, the share of draws whose median λ is at the main grid's largest value and at the wide grid's largest
    and smallest, and the paper's SDF − gcForest."""
    if draws.empty or main_draws.empty:
        return pd.DataFrame()
    paired = paired_draws(draws, main_draws)
    rows = []
    for (name, n, t), cell in paired.groupby(level=["dataset", "N", "T"]):
        gain_wide = cell[WIDE] - cell["gcForest"]
        counts = count_words(gain_wide)
        paper = PAPER.get((6, name, n, t, "SDF"), np.nan) - PAPER.get((6, name, n, t, "gcForest"), np.nan)
        rows.append({
            "dataset": name, "N": n, "T": t, "draws": len(cell), "gcForest": cell["gcForest"].mean(),
            "SDF − gcForest, main grid": (cell["SDF"] - cell["gcForest"]).mean(),
            "SDF − gcForest, wide grid": gain_wide.mean(), "wide above gcForest": counts["higher"],
            "wide level": counts["level"], "wide below gcForest": counts["lower"],
            "main grid: median λ at its largest": float((cell["λ main"] == max(LAM_GRID)).mean()),
            "wide grid: median λ at its largest": float((cell["λ wide"] == max(WIDE_LAM_GRID)).mean()),
            "wide grid: median λ at its smallest": float((cell["λ wide"] == min(WIDE_LAM_GRID)).mean()),
            "paper SDF − gcForest": paper,
        })
    return pd.DataFrame(rows)


def lambda_grid_markdown(summary: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The section on the wide grid of λ: per N, SDF − gcForest with each grid beside the paper's, how often the
    chosen λ sits at a grid's edge."""
    n_draws = len(draws[["N", "T", "draw"]].drop_duplicates()) if len(draws) else 0
    grid = ", ".join(f"{v:g}" for v in WIDE_LAM_GRID)
    trees = ", ".join(str(t) for t in sorted(draws["T"].unique())) if len(draws) else "none yet"
    out = [generated_head(READING, f"{n_draws} draws; Ionosphere, T = {trees}, the main "
                          "protocol's pairs and seeds", f"λ chosen on the training pairs from {{{grid}}} (the wide "
                          "grid) or from the main protocol's {" + ", ".join(f"{v:g}" for v in LAM_GRID) + "}; *edge*: "
                          "the share of draws whose median λ over the fold-models is the grid's largest (or "
                          "smallest) value.")] if head else []
    if summary.empty:
        return "\n\n".join(out + ["No draw yet."])
    lines = out + ["", "| N | T | draws | gcForest | SDF − gcF, main grid | SDF − gcF, wide grid | wide grid: SDF "
                   "higher / level / lower than gcF | main grid at its largest | wide grid at its largest / smallest | "
                   "paper SDF − gcF |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in summary.to_dict("records"):
        lines.append(f"| {r['N']} | {r['T']} | {r['draws']} | {r['gcForest']:.3f} | "
                     f"{r['SDF − gcForest, main grid']:+.3f} | {r['SDF − gcForest, wide grid']:+.3f} | "
                     f"{r['wide above gcForest']} / {r['wide level']} / {r['wide below gcForest']} | "
                     f"{r['main grid: median λ at its largest']:.0%} | {r['wide grid: median λ at its largest']:.0%} / "
                     f"{r['wide grid: median λ at its smallest']:.0%} | {r['paper SDF − gcForest']:+.3f} |")
    return "\n".join(lines).strip()


def lambda_grid_facts(summary: pd.DataFrame, draws: pd.DataFrame, others) -> dict:
    """The numbers of the report's prose on the wide grid: over every draw, the wide grid's SDF minus the main
    grid's (mean, 95 % t interval, paired t-test p), the verdict by rule 4 of :mod:`mvlab.reproduction.verdicts`
    (the edge *hides a gain* when that difference is significantly positive), and the shares of draws at each
    grid's largest value."""
    from mvlab.stats import paired_t_test

    main_draws = others("sdf-paper")[1]
    if summary.empty or main_draws is None:
        return {f: "not computed yet (no draw in both files)" for f in
                ("draws", "progress", "difference", "counts", "verdict", "main_at_edge", "wide_at_top",
                 "wide_at_bottom")}
    paired = paired_draws(draws, main_draws)
    test = paired_t_test(paired[WIDE].to_numpy(), paired["SDF"].to_numpy())
    hides = test.p_value < ALPHA and test.mean_difference > 0
    counts = count_words(paired[WIDE] - paired["SDF"])
    planned = {t.key for t in lambda_grid_tasks()}
    done = set(draws[["dataset", "N", "T", "reading", "draw"]].itertuples(index=False, name=None)) & planned
    progress = (f"All its {len(planned)} planned draws are computed." if len(done) == len(planned) else
                f"{len(done)} of its {len(planned)} planned draws are computed (a row's draws are in the table); the "
                "same command computes the rest.")
    return {"draws": str(len(paired)), "progress": progress,
            "difference": f"{test.mean_difference:+.4f} [{test.ci_low:+.4f}, {test.ci_high:+.4f}], p = "
                          f"{test.p_value:.3f}",
            "counts": f"higher in {counts['higher']}, level in {counts['level']}, lower in {counts['lower']}",
            "verdict": "hides a gain" if hides else "hides no gain that these draws detect",
            "main_at_edge": f"{float((paired['λ main'] == max(LAM_GRID)).mean()):.0%}",
            "wide_at_top": f"{float((paired['λ wide'] == max(WIDE_LAM_GRID)).mean()):.0%}",
            "wide_at_bottom": f"{float((paired['λ wide'] == min(WIDE_LAM_GRID)).mean()):.0%}"}


READING = sdf_reading(
    "sdf-lambda-grid", "Does the edge of the λ grid hide a gain?",
    "In nearly half of the main protocol's draws the cascade's median λ is the grid's largest (10,000, nearly "
    "uniform weights, SDF close to gcForest). SDF refitted on Table 6's data with λ chosen the same way from ten "
    "values over nine decades, 0.001 to 10^6, on the same pairs and seeds.",
    grid=lambda datasets, Ns, Ts, draws: lambda_grid_tasks(dataset=datasets[0], Ns=Ns, Ts=Ts, draws=draws),
    datasets=(LAMBDA_GRID_DATASET,), dataset_choices=("ecoli", "yeast", "ionosphere"),
    summary=lambda draws, folder: lambda_grid_summary(draws, sdf_draws_file(folder).read()),
    markdown=lambda_grid_markdown, facts=lambda_grid_facts, trees=LAMBDA_GRID_T)
"""SDF with λ from a wide grid (Ionosphere, Table 6, at T = 100 and 400)."""
