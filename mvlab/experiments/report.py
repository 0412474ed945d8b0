"""Comparison reports from a tidy results table: what the CLI prints and the Benchmark page shows.

From rows (dataset, method, metric, value, repetition, ...) of one metric: mean ± std per
dataset and method, average ranks over datasets, sign tests of every method against a
baseline, critical differences of the average ranks with the groups of a critical-difference
diagram, and with three or more datasets Friedman's test with a Holm / Bonferroni-Dunn post-hoc
against a control (docs/algorithms.md A.9, B.7; :mod:`mvlab.stats`).

One sign-test rule everywhere (table, chart, verdict, text): the paper's (docs/algorithms.md A.9,
Demšar 2006 Sec. 3.1.3), ties split evenly, N = all datasets, a method is significantly better
than the baseline when ``wins + ties/2 >= N/2 + z sqrt(N)/2`` (z = 1.96 at α = 0.05, 1.645 at
α = 0.10) and significantly worse when ``losses + ties/2`` reaches it. The exact two-sided binomial
p-value (:func:`mvlab.stats.sign_test`) is shown beside the verdict, labelled as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

import mvlab.stats as stats
from mvlab.experiments.runner import summarize, with_param_columns
from mvlab.i18n import DEFAULT, N_, current_language, format_list, format_number, gettext, ngettext
from mvlab.rfd.baselines import BASELINE_TITLES, BASELINES

__all__ = ["ComparisonReport", "build_report", "family_reports", "markdown", "format_critical",
           "SIGN_TEST_ALPHAS", "PLAIN_BASELINES", "BASELINE_RULE", "BaselineCheck", "baseline_check"]

SIGN_TEST_ALPHAS = (0.05, 0.10)
"""Levels of the sign test's critical numbers: the two lines of the paper's Fig. 3 (docs/algorithms.md A.9)."""


def _level(alpha: float) -> str:
    return f"α = {alpha:.2f}"


def _shown_level(alpha: float) -> str:
    """:func:`_level` as the reader writes numbers (α = 0,05 in German)."""
    return f"α = {format_number(alpha, 2)}"


NOT_SIGNIFICANT = N_("not significant")
SIGNIFICANTLY = {"better": N_("significantly better ({level})"), "worse": N_("significantly worse ({level})")}
"""The sign test's verdicts (:func:`_sign_row`), in English in the tables and the text; the Benchmark page shows them
in the reader's language (:meth:`ComparisonReport.sign_table`)."""
CRITICAL = N_("critical ({level})")
"""The name of a column of critical numbers of the sign test."""


def format_critical(value: float) -> str:
    """A critical number of wins with as few decimals (2 or more) as keep its comparison with every
    possible ``wins + ties/2`` (a multiple of 0.5) right: 28.5005 (N = 44) is not shown as 28.50."""
    half = math.floor(2.0 * value) / 2.0  # the largest count <= value
    for decimals in range(2, 16):
        if half == value or round(value, decimals) > half:
            return f"{value:.{decimals}f}"
    return repr(value)


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
    means : DataFrame (datasets x methods) of mean values, on the datasets where every method has a result (the
        ranks and tests are computed on these)
    ranks : Series (methods,) average rank over datasets (1 = best), or None with one dataset
    sign_tests : DataFrame, one row per method against ``baseline``: ``wins``, ``ties``,
        ``losses``, ``wins + ties/2``, the critical numbers ``critical (α = 0.05)`` and
        ``critical (α = 0.10)`` (the same for every row: N/2 + z sqrt(N)/2, N = all datasets),
        ``verdict`` (Demšar's rule, see the module docstring) and ``exact binomial p``
    sign_critical : dict, label -> critical number, e.g. ``{"α = 0.05": 11.30, "α = 0.10": 10.69}``:
        the lines of the win / tie / loss chart, the same numbers as the table's columns
    friedman : stats.FriedmanResult or None (needs 3+ datasets)
    posthoc : DataFrame or None, the post-hoc against ``control``
    critical_differences : dict, ``"nemenyi"`` (all pairs) and, when the control is among the
        methods, ``"holm"`` and ``"bonferroni-dunn"`` (against it) ->
        :class:`mvlab.stats.CriticalDifferenceResult` (needs 2+ datasets): the CD,
        average ranks and the groups a critical-difference diagram joins
    left_out : dict, dataset -> methods with no result there (an interrupted run): the datasets that ``means``, the
        ranks and the tests leave out (:meth:`left_out_note`); their means are in ``summary``
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
    sign_critical: dict = field(default_factory=dict)
    critical_differences: dict = field(default_factory=dict)
    left_out: dict = field(default_factory=dict)

    def left_out_note(self) -> str | None:
        """The datasets that the ranks and tests leave out because a method has no result there (an interrupted
        run), in words, or None when none is."""
        if not self.left_out:
            return None
        each = gettext("{dataset} (no result for {methods})")
        named = "; ".join(each.format(dataset=d, methods=", ".join(map(str, m))) for d, m in self.left_out.items())
        kept = len(self.means)
        return ngettext("The ranks and tests compare the methods on the datasets where every one of them has a result: "
                        "{kept} dataset. Left out: {named}. Their means are in the table; run the missing methods on "
                        "them to include them.",
                        "The ranks and tests compare the methods on the datasets where every one of them has a result: "
                        "{kept} datasets. Left out: {named}. Their means are in the table; run the missing methods on "
                        "them to include them.", kept).format(kept=kept, named=named)

    def mean_std_table(self) -> pd.DataFrame:
        """datasets x methods of "mean ± std" strings."""
        cell = self.summary.assign(cell=[f"{m:.4f} ± {s:.4f}" if np.isfinite(s) else f"{m:.4f}"
                                         for m, s in zip(self.summary["mean"], self.summary["std"])])
        return cell.pivot(index="dataset", columns="method", values="cell")[list(self.means.columns)].fillna("–")

    def sign_test_note(self) -> str | None:
        """A warning naming the methods whose Demšar verdict the exact binomial p does not share."""
        if self.sign_tests is None:
            return None
        odd = []
        for m, r in self.sign_tests.iterrows():
            for alpha in SIGN_TEST_ALPHAS:  # significant at alpha: the verdict's level is alpha or stricter
                demsar = any(_level(a) in r["verdict"] for a in SIGN_TEST_ALPHAS if a <= alpha)
                if demsar != (r["exact binomial p"] <= alpha):
                    odd.append(str(m))
                    break
        if not odd:
            return None
        return gettext("Demšar's critical numbers are a normal approximation; for {methods} the exact binomial p does "
                       "not agree with the verdict at every level. With few datasets the exact p is the safer guide."
                       ).format(methods=", ".join(odd))

    def sign_table(self) -> pd.DataFrame:
        """``sign_tests`` for display: the critical numbers as text (:func:`format_critical`), the verdicts and the
        critical numbers' column names in the reader's language (the other columns are named in English, as the
        library writes them: :func:`mvlab.ui.tables.translated` says them)."""
        shown = self.sign_tests.copy()
        words = {NOT_SIGNIFICANT: gettext(NOT_SIGNIFICANT)}
        names = {}
        for alpha in SIGN_TEST_ALPHAS:
            col = CRITICAL.format(level=_level(alpha))
            shown[col] = [format_critical(v) for v in shown[col]]
            names[col] = gettext(CRITICAL).format(level=_shown_level(alpha))
            for message in SIGNIFICANTLY.values():
                words[message.format(level=_level(alpha))] = gettext(message).format(level=_shown_level(alpha))
        shown["verdict"] = [words.get(v, v) for v in shown["verdict"]]
        return shown.rename(columns=names)

    def to_text(self) -> str:
        """The report as plain text: the mean ± std table, then, when computed, the average ranks, the sign
        tests, Friedman's test with its post-hoc and the critical-difference groups."""
        out = [f"Mean ± std of {self.metric} over repetitions:", markdown(self.mean_std_table())]
        if self.left_out:
            out += ["", self.left_out_note()]
        if self.ranks is not None:
            out += ["", "Average rank over datasets (1 = best):",
                    markdown(pd.DataFrame({"average rank": self.ranks.round(2)}).T.rename_axis(""))]
        if self.sign_tests is not None:
            crit = ", ".join(f"{format_critical(v)} at {k}" for k, v in self.sign_critical.items())
            out += ["", f"Sign test against {self.baseline} over {len(self.means)} dataset(s) (Demšar: ties split; "
                        f"significant when wins + ties/2, or losses + ties/2, reach N/2 + z sqrt(N)/2 = {crit}):"]
            for m, r in self.sign_tests.iterrows():
                out.append(f"  {m}: {r.wins} wins / {r.ties} ties / {r.losses} losses, wins + ties/2 = "
                           f"{r['wins + ties/2']:g}: {r.verdict} (exact binomial p = {r['exact binomial p']:.3f})")
            note = self.sign_test_note()
            if note:
                out.append(f"  Note: {note}")
        if self.friedman is not None:
            out += ["", f"Friedman over datasets: chi2 = {self.friedman.statistic:.3f}, p = "
                        f"{self.friedman.p_value:.4f}",
                    f"Post-hoc against {self.control} (Holm and Bonferroni-Dunn):",
                    markdown(self.posthoc.round(4).rename(columns=lambda c: c.replace("_", " ")))]
        if self.critical_differences:
            out += ["", "Critical-difference diagram (Demšar 2006; methods listed together are not significantly "
                        "different; the post-hoc is meant for when Friedman's test rejects):"]
            out += [cd.to_text("datasets") for key, cd in self.critical_differences.items() if key != "bonferroni-dunn"]
        return "\n".join(out)


def _sign_row(a: np.ndarray, b: np.ndarray) -> dict:
    """One method against the baseline: counts, the rule's numbers, the verdict and the exact p."""
    res = {alpha: stats.sign_test(a, b, alpha=alpha) for alpha in SIGN_TEST_ALPHAS}
    verdict = NOT_SIGNIFICANT
    for alpha in SIGN_TEST_ALPHAS:  # the strictest level reached
        if res[alpha].a_significantly_better or res[alpha].b_significantly_better:
            side = "better" if res[alpha].a_significantly_better else "worse"
            verdict = SIGNIFICANTLY[side].format(level=_level(alpha))
            break
    r = res[SIGN_TEST_ALPHAS[0]]
    row = {"wins": r.wins, "ties": r.ties, "losses": r.losses, N_("wins + ties/2"): r.wins_split}
    row.update({CRITICAL.format(level=_level(alpha)): res[alpha].critical_value for alpha in SIGN_TEST_ALPHAS})
    row.update({"verdict": verdict, "exact binomial p": r.p_value})
    return row


def build_report(table: pd.DataFrame, baseline: str, control: str, metric: str = "accuracy") -> ComparisonReport:
    """Build a :class:`ComparisonReport` from a tidy table (see module docstring)."""
    summary = summarize(table, metric)
    methods = list(dict.fromkeys(summary["method"]))
    every = summary.pivot(index="dataset", columns="method", values="mean")[methods]
    means = every.dropna()  # ranks and tests need every method on a dataset: the others are named, not guessed
    left_out = {d: [m for m in methods if pd.isna(every.at[d, m])] for d in every.index if d not in means.index}
    ranks = stats.average_ranks(means) if len(means) >= 2 and len(methods) >= 2 else None
    sign_tests, sign_critical = None, {}
    if baseline in methods and len(methods) >= 2 and len(means):
        n = len(means)
        sign_critical = {_level(a): stats.sign_test_critical_value(n, a) for a in SIGN_TEST_ALPHAS}
        rows = {m: _sign_row(means[m].to_numpy(), means[baseline].to_numpy()) for m in methods if m != baseline}
        sign_tests = pd.DataFrame.from_dict(rows, orient="index")
        sign_tests.index.name = "method"
    friedman = posthoc = None
    if len(means) >= 3 and control in methods and len(methods) >= 3:
        friedman = stats.friedman_test(means)
        posthoc = stats.posthoc_vs_control(means, control).to_frame()
    cds = {}
    if ranks is not None:
        cds["nemenyi"] = stats.critical_difference_groups(means)
        if control in methods:
            for test in ("holm", "bonferroni-dunn"):
                cds[test] = stats.critical_difference_groups(means, test=test, control=control)
    return ComparisonReport(metric, baseline, control, summary, means, ranks, sign_tests, friedman, posthoc,
                            sign_critical, cds, left_out)


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


# ----------------------------------------------------------------------------- the papers against plain baselines
PLAIN_BASELINES = {"dissimilarity": BASELINES}
"""Family name -> the plain methods a user would try instead of the papers' (:mod:`mvlab.rfd.baselines`: one random
forest on all features, a soft vote of the view forests, stacking); the family's other methods are "the papers'"
(for the dissimilarity family Bernard et al.'s five combinations and mvlab's two DVS variants of the same pool)."""

BASELINE_RULE = N_("On each dataset the best of the papers' methods (highest mean over the splits) is set against the "
                 "best plain baseline in the batch. The papers' methods **lose** there when the baseline's mean is "
                 "higher by more than one pooled standard deviation, √((s₁² + s₂²)/2) of the two methods' accuracies "
                 "over the splits; they **win** when it is lower by more than that; they are **level** otherwise, "
                 "equal means included. Without a spread (one split) any difference counts.")
"""The rule behind the words *loses*, *level* and *wins* of :func:`baseline_check`, shown beside them (in English:
``gettext(BASELINE_RULE)`` says it in the reader's language)."""

BASELINE_VERDICTS = {
    # Translators: a cell of the column "the papers' methods": they lose to the best plain baseline on a dataset.
    # Write only the verdict, without "verdict:".
    "loses": N_("verdict: loses"),
    # Translators: a cell of the column "the papers' methods": they are level with the best plain baseline (neither
    # ahead nor behind) on a dataset. Write only the verdict, without "verdict:".
    "level": N_("verdict: level"),
    # Translators: a cell of the column "the papers' methods": they win against the best plain baseline on a
    # dataset. Write only the verdict, without "verdict:".
    "wins": N_("verdict: wins"),
}
"""The verdicts of :func:`baseline_check` as the Benchmark page shows them (:meth:`BaselineCheck.display_table`): a
message of its own for each (``wins`` and ``level`` are also column names, with other translations), itself in
English (``"loses"``) where the catalogue has no translation."""


def _verdict_word(verdict: str) -> str:
    """A verdict of :func:`baseline_check` in the reader's language (:data:`BASELINE_VERDICTS`)."""
    message = BASELINE_VERDICTS.get(verdict)
    if message is None:
        return verdict
    said = gettext(message)
    return verdict if said == message else said


@dataclass
class BaselineCheck:
    """Where the papers' methods lose to a plain baseline (:func:`baseline_check`).

    Attributes
    ----------
    rows : DataFrame, one row per dataset that has both sides, index ``dataset``: ``papers_method``, ``papers_mean``,
        ``papers_std``, ``baseline_method``, ``baseline_mean``, ``baseline_std`` (the metric, 0-1), ``gap`` (baseline
        minus papers', in points: 100 x the difference), ``margin`` (the pooled std in points, 0 with one split) and
        ``verdict`` (``"loses"``, ``"level"`` or ``"wins"``, said of the papers' methods; :data:`BASELINE_RULE`)
    sentence : str, the plain summary ("The papers' methods lose to a plain baseline on 2 of 3 datasets: ...")
    missing : str or None, in words, what the batch lacks (no plain baseline, none of the papers' methods, or
        datasets with one side only) and how to add it; None when nothing is missing
    baselines : tuple of str, the plain baselines the batch has (empty: it has none, ``missing`` says what to add)
    """

    rows: pd.DataFrame
    sentence: str
    missing: str | None
    baselines: tuple = ()

    def display_table(self) -> pd.DataFrame:
        """``rows`` for people: accuracies as "97.33 ± 0.23" (percent), the gap signed ("+1.80"), the verdict."""
        r = self.rows

        def cell(mean, std):
            return [f"{100 * m:.2f} ± {100 * s:.2f}" if np.isfinite(s) else f"{100 * m:.2f}" for m, s in zip(mean, std)]

        # the columns' names in English, as the library writes them (mvlab.ui.tables.translated says them); the
        # verdicts in the reader's language
        return pd.DataFrame({N_("best of the papers' methods"): r["papers_method"],
                             N_("its accuracy (%)"): cell(r["papers_mean"], r["papers_std"]),
                             N_("best plain baseline"): r["baseline_method"],
                             N_("baseline's accuracy (%)"): cell(r["baseline_mean"], r["baseline_std"]),
                             N_("baseline ahead by (points)"): [f"{g:+.2f}" for g in r["gap"]],
                             N_("one pooled std (points)"): [f"{m:.2f}" for m in r["margin"]],
                             N_("the papers' methods"): [_verdict_word(v) for v in r["verdict"]]}, index=r.index)


def _best(summary: pd.DataFrame, methods) -> pd.DataFrame:
    """Per dataset, the row of the highest mean among ``methods`` (the first in the table's order on equal means)."""
    part = summary[summary["method"].isin(list(methods))]
    return part.loc[part.groupby("dataset", sort=False)["mean"].idxmax()].set_index("dataset")


def _verdict(gap: float, margin: float) -> str:
    """The papers' methods ``"loses"`` when the baseline is ahead by more than ``margin``, ``"wins"`` when behind by
    more, else ``"level"`` (both in points)."""
    if gap > margin + 1e-9:
        return "loses"
    if -gap > margin + 1e-9:
        return "wins"
    return "level"


def _pooled_points(s1: float, s2: float) -> float:
    """√((s₁² + s₂²)/2) in points; 0 when a std is not known (one split)."""
    pooled = math.sqrt((s1 * s1 + s2 * s2) / 2.0)
    return 100.0 * pooled if np.isfinite(pooled) else 0.0


def _and(parts: list[str]) -> str:
    """"a", "a and b", "a, b and c"; in another language as it joins a list (:func:`mvlab.i18n.format_list`)."""
    if current_language() != DEFAULT:
        return format_list(parts)
    return " and ".join([", ".join(parts[:-1]), parts[-1]]) if len(parts) > 1 else "".join(parts)


def _sentence(rows: pd.DataFrame) -> str:
    """The plain summary of ``rows`` (:class:`BaselineCheck`), then what the baselines named in it are."""
    n = len(rows)

    def where(r, apart=True):
        values = {"dataset": r.Index, "method": r.papers_method, "ours": format_number(100 * r.papers_mean, 2),
                  "baseline": r.baseline_method, "theirs": format_number(100 * r.baseline_mean, 2),
                  "points": format_number(abs(r.gap), 2)}
        if apart and r.gap > 0:
            message = gettext("{dataset} (their best, {method}, {ours} % against {baseline}'s {theirs} %: {points} "
                              "points behind)")
        elif apart and r.gap:
            message = gettext("{dataset} (their best, {method}, {ours} % against {baseline}'s {theirs} %: {points} "
                              "points ahead)")
        else:
            message = gettext("{dataset} (their best, {method}, {ours} % against {baseline}'s {theirs} %)")
        return message.format(**values)

    said = {v: [where(r, v != "level") for r in rows.itertuples() if r.verdict == v]
            for v in ("loses", "level", "wins")}
    if said["loses"]:
        first = ngettext("The papers' methods lose to a plain baseline on {lost} of {n} dataset: {where}.",
                         "The papers' methods lose to a plain baseline on {lost} of {n} datasets: {where}.", n)
    else:
        first = ngettext("The papers' methods lose to a plain baseline on none of the {n} dataset.",
                         "The papers' methods lose to a plain baseline on none of the {n} datasets.", n)
    out = [first.format(lost=len(said["loses"]), n=n, where=_and(said["loses"]))]
    out.append(gettext("They are level with it on {level}: {where}.").format(level=len(said["level"]),
                                                                             where=_and(said["level"]))
               if said["level"] else gettext("They are level with it on none."))
    out.append(gettext("They win on {won}: {where}.").format(won=len(said["wins"]), where=_and(said["wins"]))
               if said["wins"] else gettext("They win on none."))
    used = dict.fromkeys(rows["baseline_method"])
    named = "; ".join(f"{b}, {gettext(BASELINE_TITLES[b]) if b in BASELINE_TITLES else b}" for b in used)
    out.append(ngettext("The plain baseline: {baselines}.", "The plain baselines: {baselines}.", len(used))
               .format(baselines=named))
    return " ".join(out)


def _missing_words(family_name: str, baselines, papers_present, baselines_present, one_sided) -> str | None:
    """What the batch lacks for the comparison, in words with what to tick; None when nothing."""
    if not baselines_present:
        return gettext("This batch has no plain baseline, so it cannot show where the papers' methods lose. Add "
                       "{methods} or {last} ({concat} is one random forest on all features) to the {family} methods "
                       "compared and run the benchmark again.").format(
            methods=", ".join(baselines[:-1]), last=baselines[-1], concat="concat", family=family_name)
    if not papers_present:
        return gettext("This batch has none of the papers' methods, only plain baselines: there is nothing to set "
                       "against them.")
    if one_sided:
        return gettext("Left out: {datasets} (the batch has the papers' methods or a plain baseline there, not "
                       "both).").format(datasets=", ".join(one_sided))
    return None


def baseline_check(summary: pd.DataFrame, family) -> BaselineCheck | None:
    """The papers' methods against the plain baselines of a batch, per dataset (:data:`BASELINE_RULE`).

    Parameters
    ----------
    summary : DataFrame (dataset, method, mean, std, n), one row per dataset and method: a report's ``summary``
        (:func:`build_report`, :func:`mvlab.experiments.runner.summarize`)
    family : :class:`mvlab.experiments.runner.Family`; its methods outside :data:`PLAIN_BASELINES` are the papers'

    Returns
    -------
    BaselineCheck, or None for a family without plain baselines. Datasets with only one side are left out (and
    named in ``missing``); a batch with no baseline gives no rows, the sentence empty and ``missing`` saying what to
    tick.
    """
    baselines = PLAIN_BASELINES.get(family.name)
    if baselines is None:
        return None
    papers = [m for m in family.methods if m not in baselines]
    papers_best, base_best = _best(summary, papers), _best(summary, baselines)
    both = [d for d in dict.fromkeys(summary["dataset"]) if d in papers_best.index and d in base_best.index]
    one_sided = [str(d) for d in dict.fromkeys(summary["dataset"]) if d not in both]
    rows = pd.DataFrame({
        "papers_method": papers_best.loc[both, "method"], "papers_mean": papers_best.loc[both, "mean"],
        "papers_std": papers_best.loc[both, "std"], "baseline_method": base_best.loc[both, "method"],
        "baseline_mean": base_best.loc[both, "mean"], "baseline_std": base_best.loc[both, "std"]},
        index=pd.Index(both, name="dataset"))
    rows["gap"] = 100.0 * (rows["baseline_mean"] - rows["papers_mean"])
    rows["margin"] = [_pooled_points(a, b) for a, b in zip(rows["papers_std"], rows["baseline_std"])]
    rows["verdict"] = [_verdict(g, m) for g, m in zip(rows["gap"], rows["margin"])]
    missing = _missing_words(family.name, baselines, len(papers_best), len(base_best), one_sided)
    sentence = _sentence(rows) if len(rows) else ""
    flat = [str(d) for d in rows.index[rows["margin"] == 0]]
    if flat:
        sentence += " " + gettext("On {datasets} there is no spread over the splits (one split, or the same accuracy "
                                  "on each): any difference counts.").format(datasets=_and(flat))
    return BaselineCheck(rows, sentence, missing, tuple(b for b in baselines if b in set(summary["method"])))
