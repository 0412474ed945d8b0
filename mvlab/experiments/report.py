"""Comparison reports from a tidy results table: what the CLI prints and the Benchmark page shows.

From rows (dataset, method, metric, value, repetition, ...) of one metric: mean ± std per
dataset and method, average ranks over datasets, sign tests of every method against a
baseline (wins / ties / losses over datasets, Demšar's critical numbers, exact binomial p), and
with three or more datasets Friedman's test with a Holm / Bonferroni-Dunn post-hoc against a
control (ALGORITHMS.md A.9, B.7; :mod:`mvlab.experiments.stats`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mvlab.experiments import stats
from mvlab.experiments.runner import summarize, with_param_columns

__all__ = ["ComparisonReport", "build_report", "family_reports", "markdown"]


def markdown(frame: pd.DataFrame, index: bool = True) -> str:
    """A pandas table as a GitHub-markdown table (no extra dependency)."""
    frame = frame.reset_index() if index else frame
    cells = [[str(c) for c in frame.columns]] + [[str(v) for v in row] for row in frame.itertuples(index=False)]
    return "\n".join(["| " + " | ".join(cells[0]) + " |", "|" + "---|" * len(cells[0])]
                     + ["| " + " | ".join(r) + " |" for r in cells[1:]])


@dataclass
class ComparisonReport:
    """Everything a comparison of methods over datasets shows.

    Attributes
    ----------
    metric : str
    summary : DataFrame (dataset, method, mean, std, n)
    means : DataFrame (datasets x methods) of mean values
    ranks : Series (methods,) average rank over datasets (1 = best), or None with one dataset
    sign_tests : DataFrame, one row per method against ``baseline``: wins, ties, losses,
        critical wins at alpha 0.05 and 0.10 (Demšar), exact binomial p, verdict
    friedman : stats.FriedmanResult or None (needs 3+ datasets)
    posthoc : DataFrame or None, the post-hoc against ``control``
    """

    metric: str
    baseline: str
    control: str
    summary: pd.DataFrame
    means: pd.DataFrame
    ranks: pd.Series | None
    sign_tests: pd.DataFrame | None
    friedman: object | None
    posthoc: pd.DataFrame | None

    def mean_std_table(self) -> pd.DataFrame:
        """datasets x methods of "mean ± std" strings."""
        cell = self.summary.assign(cell=[f"{m:.4f} ± {s:.4f}" if np.isfinite(s) else f"{m:.4f}"
                                         for m, s in zip(self.summary["mean"], self.summary["std"])])
        return cell.pivot(index="dataset", columns="method", values="cell")[list(self.means.columns)]

    def to_text(self) -> str:
        out = [f"Mean ± std of {self.metric} over repetitions:", markdown(self.mean_std_table())]
        if self.ranks is not None:
            out += ["", "Average rank over datasets (1 = best):",
                    markdown(pd.DataFrame({"average rank": self.ranks.round(2)}).T.rename_axis(""))]
        if self.sign_tests is not None:
            out += ["", f"Sign test against {self.baseline} over {len(self.means)} dataset(s), alpha = 0.05:"]
            for m, r in self.sign_tests.iterrows():
                out.append(f"  {m}: {r.wins} wins / {r.ties} ties / {r.losses} losses (Demšar's critical number: "
                           f"{r['critical wins (0.05)']}); exact binomial p = {r.p:.3f}: {r.verdict}")
        if self.friedman is not None:
            out += ["", f"Friedman over datasets: chi2 = {self.friedman.statistic:.3f}, p = {self.friedman.p_value:.4f}",
                    f"Post-hoc against {self.control} (Holm and Bonferroni-Dunn):", markdown(self.posthoc.round(4))]
        return "\n".join(out)


def build_report(table: pd.DataFrame, baseline: str, control: str, metric: str = "accuracy") -> ComparisonReport:
    """Build a :class:`ComparisonReport` from a tidy table (see module docstring)."""
    summary = summarize(table, metric)
    methods = list(dict.fromkeys(summary["method"]))
    means = summary.pivot(index="dataset", columns="method", values="mean")[methods]
    ranks = stats.average_ranks(means) if len(means) >= 2 and len(methods) >= 2 else None
    sign_tests = None
    if baseline in methods and len(methods) >= 2:
        rows = {}
        n = len(means)
        for m in methods:
            if m == baseline:
                continue
            res = stats.sign_test(means[m].to_numpy(), means[baseline].to_numpy(), alpha=0.05)
            # verdict from the exact binomial p: Demšar's critical number is a normal approximation
            # that is too lenient for a handful of datasets (N = 4 needs 4 of 4, yet p = 0.125)
            better = res.wins_effective > res.losses_effective
            verdict = ("not significant" if res.p_value >= 0.05 else
                       "significantly better" if better else "significantly worse")
            rows[m] = {"wins": res.wins, "ties": res.ties, "losses": res.losses,
                       "critical wins (0.05)": res.critical_wins,
                       "critical wins (0.10)": math.ceil(stats.sign_test_critical_value(n, 0.10)),
                       "p": res.p_value, "verdict": verdict}
        sign_tests = pd.DataFrame.from_dict(rows, orient="index")
        sign_tests.index.name = "method"
    friedman = posthoc = None
    if len(means) >= 3 and control in methods and len(methods) >= 3:
        friedman = stats.friedman_test(means)
        posthoc = stats.posthoc_vs_control(means, control).to_frame()
    return ComparisonReport(metric, baseline, control, summary, means, ranks, sign_tests, friedman, posthoc)


def family_reports(table: pd.DataFrame, family, metric: str = "accuracy") -> dict[str, ComparisonReport]:
    """One :class:`ComparisonReport` per comparable group of a family's results, with the family's
    baseline and control (:mod:`mvlab.experiments.families`).

    Families without ``group_by`` give one report, under the key ``""``; view construction gives
    one per base classifier (key ``"classifier = knn"``), each comparing the methods by their
    mean over k, repetitions and folds on every dataset.
    """
    if not family.group_by:
        return {"": build_report(table, family.baseline, family.control, metric)}
    wide = with_param_columns(table, family.group_by)
    reports = {}
    for key, part in wide.groupby(list(family.group_by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{name} = {value}" for name, value in zip(family.group_by, key))
        reports[label] = build_report(part.drop(columns=list(family.group_by)), family.baseline, family.control,
                                      metric)
    return reports
