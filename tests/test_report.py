"""mvlab.experiments.report and its figures: one sign-test rule in the table, the chart and the verdict;
critical differences and the groups of the critical-difference diagram."""

import json

import numpy as np
import pandas as pd
import pytest

from mvlab import stats as S
from mvlab.experiments.report import build_report, format_critical
from mvlab.viz import benchmark_figures


def _table(columns: dict) -> pd.DataFrame:
    """A tidy table (one repetition) from ``{method: [value per dataset]}``."""
    rows = [{"dataset": f"d{d:02d}", "method": m, "metric": "accuracy", "value": v, "repetition": 0}
            for m, values in columns.items() for d, v in enumerate(values)]
    return pd.DataFrame(rows)


def _fifteen_datasets():
    # "new" against "base": 10 wins, 3 ties, 2 losses; "other" loses on all 15
    base = np.linspace(0.70, 0.84, 15)
    new = base + np.r_[[0.05] * 10, [0.0] * 3, [-0.05] * 2]
    return _table({"base": base, "new": new, "other": base - 0.1})


def test_the_papers_sign_test_rule_with_the_exact_p_beside_it():
    report = build_report(_fifteen_datasets(), baseline="base", control="new")
    row = report.sign_tests.loc["new"]
    assert (row.wins, row.ties, row.losses) == (10, 3, 2)
    # Demšar: 10 + 3/2 = 11.5 >= 15/2 + 1.96 sqrt(15)/2 = 11.30 -> significant at 0.05
    assert row["wins + ties/2"] == 11.5
    assert row["critical (α = 0.05)"] == pytest.approx(11.2955, abs=1e-4)
    assert row["critical (α = 0.10)"] == pytest.approx(10.6852, abs=1e-4)
    assert report.sign_table().loc["new", ["critical (α = 0.05)", "critical (α = 0.10)"]].tolist() == ["11.30", "10.69"]
    assert row.verdict == "significantly better (α = 0.05)"
    # the exact binomial p is shown beside it: 11 of 14 (one tie dropped), 0.0574
    assert row["exact binomial p"] == pytest.approx(0.0574, abs=1e-4)
    assert report.sign_tests.loc["other", "verdict"] == "significantly worse (α = 0.05)"
    # the chart's lines are the table's critical numbers (one source)
    assert report.sign_critical == pytest.approx({"α = 0.05": 11.2955, "α = 0.10": 10.6852}, abs=1e-4)
    assert list(report.sign_critical.values()) == [row["critical (α = 0.05)"], row["critical (α = 0.10)"]]
    text = report.to_text()
    assert ("new: 10 wins / 3 ties / 2 losses, wins + ties/2 = 11.5: significantly better (α = 0.05) "
            "(exact binomial p = 0.057)") in text
    assert "11.30 at α = 0.05, 10.69 at α = 0.10" in text
    # the exact p does not confirm the 0.05 verdict: the report says so, naming the method
    assert "for new the exact binomial p" in report.sign_test_note()


def test_verdict_levels_and_the_small_sample_warning():
    # N = 4: 4 losses of 4 reach 2 + 1.96 = 3.96, yet the exact p is 0.125
    report = build_report(_table({"gcf": [0.8, 0.7, 0.9, 0.6], "bag": [0.7, 0.6, 0.8, 0.5]}), "gcf", "x")
    assert report.sign_tests.loc["bag", "verdict"] == "significantly worse (α = 0.05)"
    assert report.sign_tests.loc["bag", "exact binomial p"] == pytest.approx(0.125)
    assert "Note: Demšar's critical numbers are a normal approximation; for bag" in report.to_text()
    # 11 wins, 4 losses of 15: 11 >= 10.69 only at 0.10
    base = np.linspace(0.5, 0.9, 15)
    r = build_report(_table({"b": base, "a": base + np.r_[[0.01] * 11, [-0.01] * 4]}), "b", "a")
    assert r.sign_tests.loc["a", "verdict"] == "significantly better (α = 0.10)"
    assert r.sign_tests.loc["a", "exact binomial p"] == pytest.approx(0.1185, abs=1e-4)  # not below 0.10
    assert "for a the exact binomial p" in r.sign_test_note()
    # 13 wins, 2 losses: significant at 0.05 both ways (exact p = 0.0074): no note
    r = build_report(_table({"b": base, "a": base + np.r_[[0.01] * 13, [-0.01] * 2]}), "b", "a")
    assert r.sign_tests.loc["a", "verdict"] == "significantly better (α = 0.05)"
    assert r.sign_tests.loc["a", "exact binomial p"] == pytest.approx(0.0074, abs=1e-4)
    assert r.sign_test_note() is None and "Note:" not in r.to_text()


def test_report_carries_the_critical_differences_and_groups():
    report = build_report(_fifteen_datasets(), baseline="base", control="new")
    assert list(report.critical_differences) == ["nemenyi", "holm", "bonferroni-dunn"]
    nem = report.critical_differences["nemenyi"]
    assert nem.critical_difference == pytest.approx(S.nemenyi_critical_difference(3, 15))
    assert nem.methods == ("new", "base", "other") and nem.control is None
    assert report.critical_differences["holm"].control == "new"
    text = report.to_text()
    assert "Critical-difference diagram" in text and "Nemenyi, all pairs (α = 0.05): CD = " in text
    assert "Holm against new (α = 0.05)" in text and "3 methods over 15 datasets" in text
    # without the control among the methods only the all-pairs diagram is there
    assert list(build_report(_fifteen_datasets(), "base", "absent").critical_differences) == ["nemenyi"]


def _spec(fig):
    return json.loads(fig.to_json())


def test_critical_difference_diagram_draws_the_groups_it_is_given():
    from test_stats import TABLE8

    cd = S.critical_difference_groups(TABLE8)
    fig = _spec(benchmark_figures.critical_difference_diagram(cd))
    texts = [a["text"] for a in fig["layout"]["annotations"]]
    for m, r in zip(cd.methods, cd.average_ranks):
        assert f"{m} ({r:.2f})" in texts
    assert "CD = 1.93" in texts
    bars = [t for t in fig["data"] if t.get("name") == "not significantly different"]
    assert len(bars) == len(cd.groups) == 2
    ranks = dict(zip(cd.methods, cd.average_ranks))
    for bar, group in zip(bars, cd.groups):
        assert bar["x"] == pytest.approx([min(ranks[m] for m in group) - 0.04, max(ranks[m] for m in group) + 0.04])
        assert ", ".join(group) in bar["hovertemplate"]
    markers = [t for t in fig["data"] if t.get("mode") == "markers"][0]
    assert list(markers["text"]) == list(cd.methods)
    assert fig["layout"]["xaxis"]["tickvals"] == [1, 2, 3, 4, 5]
    # against a control with Holm: one bar, no CD, the control drawn in red
    holm = _spec(benchmark_figures.critical_difference_diagram(
        S.critical_difference_groups(TABLE8, test="holm", control="SDF")))
    assert not any(str(a["text"]).startswith("CD =") for a in holm["layout"]["annotations"])
    assert "<b>SDF</b> (1.10)" in [a["text"] for a in holm["layout"]["annotations"]]
    assert len([t for t in holm["data"] if t.get("name") == "not significantly different"]) == 1


def test_win_tie_loss_chart_draws_the_reports_rule():
    report = build_report(_fifteen_datasets(), baseline="base", control="new")
    fig = _spec(benchmark_figures.win_tie_loss(report.sign_tests, "base", report.sign_critical))
    lines = sorted(round(s["x0"], 4) for s in fig["layout"]["shapes"])
    crit = report.sign_critical.values()
    assert lines == sorted(round(v, 4) for c in crit for v in (c, 15 - c))
    diamonds = [t for t in fig["data"] if t.get("name") == "wins + ties/2"][0]
    assert list(diamonds["x"]) == list(report.sign_tests["wins + ties/2"])
    # three datasets: the 0.05 line (3.20) lies beyond N = 3 and must stay in view
    three = pd.DataFrame({"wins": [2], "ties": [1], "losses": [0]}, index=["a"])
    crit = {"α = 0.05": S.sign_test_critical_value(3, 0.05)}
    lo, hi = _spec(benchmark_figures.win_tie_loss(three, "b", crit))["layout"]["xaxis"]["range"]
    assert lo < 3 - crit["α = 0.05"] < 0 and 3 < crit["α = 0.05"] < hi


def test_critical_numbers_are_shown_so_that_the_comparison_stays_right():
    # wins + ties/2 is a multiple of 0.5: N = 44 needs 28.5005 at 0.05, so 28.5 is not enough, and
    # "28.50" would say otherwise; likewise N = 163 at 0.10 (92.00004)
    assert format_critical(S.sign_test_critical_value(44, 0.05)) == "28.5005"
    assert not S.sign_test(wins=28, ties=1, losses=15).a_significantly_better
    assert format_critical(S.sign_test_critical_value(163, 0.10)) == "92.00004"
    assert format_critical(S.sign_test_critical_value(15, 0.05)) == "11.30"
    assert format_critical(3.0) == "3.00"


# ----------------------------------------------------------------------------- the papers against plain baselines
def _splits(columns: dict) -> pd.DataFrame:
    """A tidy table from ``{(dataset, method): [value per split]}``."""
    return pd.DataFrame([{"dataset": d, "method": m, "metric": "accuracy", "value": v, "repetition": r}
                         for (d, m), values in columns.items() for r, v in enumerate(values)])


def _by_hand(values: dict, dataset: str):
    """The verdict on ``dataset`` computed again, plainly: the best mean on each side, the gap and the pooled std
    from the split values themselves (statistics.stdev), in points."""
    import statistics

    from mvlab.rfd.baselines import BASELINES

    mine = {m: v for (d, m), v in values.items() if d == dataset}
    best = {side: max((m for m in mine if (m in BASELINES) == side), key=lambda m: statistics.fmean(mine[m]))
            for side in (False, True)}
    papers, base = mine[best[False]], mine[best[True]]
    gap = 100 * (statistics.fmean(base) - statistics.fmean(papers))
    pooled = 100 * ((statistics.stdev(papers) ** 2 + statistics.stdev(base) ** 2) / 2) ** 0.5
    return best[False], best[True], gap, pooled, "loses" if gap > pooled else "wins" if -gap > pooled else "level"


BASELINE_SPLITS = {
    # seg: concat 3 points above DVS, spread about 1 point: the papers' methods lose
    ("seg", "average"): [0.94, 0.95, 0.96], ("seg", "dvs"): [0.95, 0.96, 0.97], ("seg", "concat"): [0.98, 0.99, 0.99],
    ("seg", "late-fusion"): [0.93, 0.94, 0.95],
    # dig: late fusion 0.5 points above average, within one pooled std (1 point): level
    ("dig", "average"): [0.90, 0.91, 0.92], ("dig", "dvs"): [0.89, 0.90, 0.91], ("dig", "concat"): [0.88, 0.89, 0.90],
    ("dig", "late-fusion"): [0.905, 0.915, 0.925],
    # mf: the papers' dvs 4 points above the best baseline: they win
    ("mf", "average"): [0.95, 0.96, 0.97], ("mf", "dvs"): [0.97, 0.98, 0.99], ("mf", "concat"): [0.93, 0.94, 0.95],
    ("mf", "late-fusion"): [0.92, 0.93, 0.94],
}


def _check(table):
    from mvlab.experiments.families import FAMILIES
    from mvlab.experiments.report import baseline_check
    from mvlab.experiments.runner import summarize

    return baseline_check(summarize(table), FAMILIES["dissimilarity"])


def test_the_papers_methods_against_the_best_plain_baseline_per_dataset():
    """Per dataset the best of the papers' methods against the best plain baseline, the gap in points and the
    verdict by the stated rule, each checked against a second computation from the split values. Fails when the
    best is taken over both sides or the margin is not the pooled std (tried: the papers' side as every method of the
    family, which set concat against itself on seg; the margin as the baseline's std alone)."""
    check = _check(_splits(BASELINE_SPLITS))
    rows = check.rows
    assert list(rows.index) == ["seg", "dig", "mf"]
    for dataset in rows.index:
        papers, base, gap, pooled, verdict = _by_hand(BASELINE_SPLITS, dataset)
        row = rows.loc[dataset]
        assert (row.papers_method, row.baseline_method, row.verdict) == (papers, base, verdict), dataset
        assert row.gap == pytest.approx(gap) and row.margin == pytest.approx(pooled)
    assert rows["verdict"].tolist() == ["loses", "level", "wins"]
    assert rows.loc["seg", ["papers_method", "baseline_method"]].tolist() == ["dvs", "concat"]
    assert rows.loc["seg", "gap"] == pytest.approx(2.6667, abs=1e-4) and rows.loc["mf", "gap"] == pytest.approx(-4.0)
    assert check.missing is None
    assert check.sentence.startswith(
        "The papers' methods lose to a plain baseline on 1 of 3 datasets: seg (their best, dvs, 96.00 % against "
        "concat's 98.67 %: 2.67 points behind). They are level with it on 1: dig (their best, average, 91.00 % "
        "against late-fusion's 91.50 %). They win on 1: mf (their best, dvs, 98.00 % against concat's 94.00 %: "
        "4.00 points ahead).")
    assert "concat, one random forest on all features; late-fusion, soft vote of the view forests" in check.sentence
    shown = check.display_table()
    assert shown.loc["seg"].tolist() == ["dvs", "96.00 ± 1.00", "concat", "98.67 ± 0.58", "+2.67", "0.82", "loses"]


def test_ties_and_the_edge_of_the_rule_are_level():
    """Equal means are level, and a gap of exactly one pooled std is level too ("more than"); one split gives no
    spread, so any difference decides, and the sentence says so. Fails when the comparison is ``>=`` (tried:
    ``gap >= margin``: the gap of exactly one pooled std on b became "loses")."""
    values = {("a", "average"): [0.90, 0.92], ("a", "concat"): [0.92, 0.90],  # the same mean: a tie
              ("b", "average"): [0.90, 0.91, 0.92], ("b", "stacking"): [0.91, 0.92, 0.93],  # 1 point = pooled std
              ("c", "average"): [0.90], ("c", "concat"): [0.905]}  # one split: 0.5 points decide
    rows = _check(_splits(values)).rows
    assert rows.loc["a", "gap"] == pytest.approx(0.0, abs=1e-9) and rows.loc["a", "verdict"] == "level"
    assert rows.loc["b", "gap"] == pytest.approx(1.0) and rows.loc["b", "margin"] == pytest.approx(1.0)
    assert _by_hand(values, "b")[4] == rows.loc["b", "verdict"] == "level"
    assert rows.loc["c", "margin"] == 0 and rows.loc["c", "verdict"] == "loses"
    sentence = _check(_splits(values)).sentence
    assert "lose to a plain baseline on 1 of 3 datasets: c " in sentence
    assert sentence.endswith("On c there is no spread over the splits (one split, or the same accuracy on each): "
                             "any difference counts.")


def test_a_batch_without_a_baseline_says_what_to_tick_and_others_are_not_checked():
    """No baseline in the batch: no rows, and the words name the methods to add; only baselines: said too; a dataset
    with one side only is left out by name; a family without plain baselines gets no check. Fails when the missing
    side is not caught (tried: ``missing`` always None: the no-baseline batch said nothing)."""
    from mvlab.experiments.families import FAMILIES
    from mvlab.experiments.report import baseline_check

    no_baseline = _check(_table({"average": [0.9, 0.8], "dvs": [0.91, 0.79]}))
    assert no_baseline.rows.empty and no_baseline.sentence == "" and no_baseline.baselines == ()
    assert no_baseline.missing.startswith("This batch has no plain baseline") and \
        "Add concat, late-fusion or stacking" in no_baseline.missing
    only = _check(_table({"concat": [0.9, 0.8], "stacking": [0.91, 0.79]}))
    assert only.rows.empty and "none of the papers' methods" in only.missing
    assert only.baselines == ("concat", "stacking")
    values = dict(BASELINE_SPLITS)
    values[("extra", "average")] = [0.8, 0.81]
    partial = _check(_splits(values))
    assert list(partial.rows.index) == ["seg", "dig", "mf"] and partial.missing.startswith("Left out: extra")
    summary = build_report(_table({"rf": [0.9, 0.8], "sdf": [0.91, 0.79]}), "rf", "sdf").summary
    assert baseline_check(summary, FAMILIES["pairs"]) is None


def test_a_dataset_without_every_method_is_named_and_left_out_of_the_tests():
    """An interrupted run leaves a dataset without some method's result: the report ranks and tests the methods on
    the datasets where every one has a result, names the others with what they lack, and still shows their means.
    Fails when the incomplete dataset reaches the ranks (tried: ``every`` used for ``means``: average_ranks raised
    on the NaN, and the Benchmark page drew a traceback) or is dropped without a word (tried: ``left_out`` empty)."""
    table = _fifteen_datasets()
    table = table[~((table["dataset"] == "d03") & (table["method"] == "other"))]  # "other" never ran on d03
    report = build_report(table, "base", "new")
    assert "d03" not in report.means.index and len(report.means) == 14
    assert report.left_out == {"d03": ["other"]}
    assert report.sign_critical["α = 0.05"] == pytest.approx(S.sign_test_critical_value(14, 0.05))
    assert report.sign_tests.loc["new", "wins"] + report.sign_tests.loc["new", "ties"] + \
        report.sign_tests.loc["new", "losses"] == 14
    note = report.left_out_note()
    assert "d03 (no result for other)" in note and "14 datasets" in note
    shown = report.mean_std_table()
    assert shown.loc["d03", "other"] == "–" and shown.loc["d03", "base"].startswith("0.7")
    assert "d03 (no result for other)" in report.to_text()
    assert build_report(_fifteen_datasets(), "base", "new").left_out_note() is None
