"""docs/reproduction.md read as a reviewer would: every generated sentence's numbers and words recomputed from the
committed cells and draws files by a second, small implementation (plain pandas and the stated rules, none of
mvlab.reproduction's code), and any mismatch a failure.

Broken once on purpose (tried): with ``mvlab.reproduction.verdicts.group_word`` deciding by the mean of signed gaps
again (``return gap_word(counts["mean"])``) and the report rewritten, the SDF by-N line read "N = 1000: near"
again and ``test_the_sdf_by_n_lines_and_the_summary_recompute`` failed (7 near, 10 above, 11 below: mixed).
"""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
REPORT = (ROOT / "docs" / "reproduction.md").read_text(encoding="utf-8")
FOLDER = ROOT / "docs" / "reproduction"
MARGIN = 0.02  # rule 2, as the report states it
NUM = r"([+-]?\d+\.\d+)"


def _cells(stem):
    cells = pd.read_csv(FOLDER / f"{stem}_cells.csv")
    cells["paper_source"] = cells["paper_source"].astype(object).fillna("")
    return cells


def _judge(frame):
    """Over rows with a paper value and an interval: inside, inside for one draw, near/above/below, gaps."""
    have = frame[frame["paper"].notna() & frame["ci_low"].notna()]
    gap = have["mean"] - have["paper"]
    near = (gap.abs() <= MARGIN + 1e-12)
    return {"cells": len(have),
            "inside": int(((have["paper"] >= have["ci_low"]) & (have["paper"] <= have["ci_high"])).sum()),
            "one": int(((have["paper"] >= have["pi_low"]) & (have["paper"] <= have["pi_high"])).sum()),
            "near": int(near.sum()), "above": int((~near & (gap > 0)).sum()), "below": int((~near & (gap < 0)).sum()),
            "mean_abs": gap.abs().mean(), "mean": gap.mean(), "low": gap.min(), "high": gap.max()}


def _word(j):
    for w in ("near", "above", "below"):
        if 2 * j[w] > j["cells"]:
            return w
    return "mixed"


def _f(x):
    return f"{x:.3f}"


def _s(x):
    return f"{x:+.3f}"


def _group(j):
    return (f"{_word(j)}: {j['near']} near, {j['above']} above, {j['below']} below of {j['cells']} cells, mean |gap| "
            f"{_f(j['mean_abs'])}")


def _line(j, one, of="of the paper's cells"):
    ones = f", {j['one']} inside that of one draw" if one else ""
    return (f"{j['inside']} of {j['cells']} {of} inside our 95 % interval{ones}; {j['near']} near "
            f"ours, {j['above']} above, {j['below']} below (mean |gap| {_f(j['mean_abs'])}); ours minus the paper's: "
            f"mean {_s(j['mean'])}, from {_s(j['low'])} to {_s(j['high'])}")


def _repeats(cells, same_value=False):
    """Table 8 cells whose mean and sd equal a grid cell's at N = 2000, T = 700 in the same reading: the same draws
    (``same_value``: and the same printed value)."""
    grid = cells[(cells["table"] < 8) & (cells["N"] == 2000) & (cells["T"] == 700)]
    def key(frame):
        parts = [frame["dataset"], frame["model"], frame["reading"], frame["mean"].round(9), frame["std"].round(9)]
        return list(zip(*parts, frame["paper"])) if same_value else list(zip(*parts))
    keys = set(key(grid))
    return np.array([t == 8 and k in keys for t, k in zip(cells["table"], key(cells))])


def _once(cells):
    """Each draw once: the Table 8 cells that repeat a grid cell's draws left out."""
    return cells[~_repeats(cells)]


SDF = _cells("sdf_paper")
OFSP = _cells("ofsp_paper")
LEAK = _cells("ofsp_leak")


# ---------------------------------------------------------------------------------- the Siamese deep forest
def test_the_sdf_verdict_lines_recompute_cell_by_cell():
    once = _once(SDF)
    # Table 6 and Table 8's setting under `shared`: printed cells seen again
    shared = int(((once["reading"] == "shared") & once["paper"].notna()).sum())
    assert (f"**All comparisons with draws of their own**, each draw counted once, over both pair-sampling readings "
            f"(the same printed cells compared again under `shared`: {shared}); Table 8's printed values of their own "
            f"for a grid cell's draws are compared apart, in its captions: "
            f"{_line(_judge(once), False, 'comparisons with a printed cell')}.") in REPORT
    for reading in ("disjoint", "shared"):
        assert f"- reading `{reading}`: {_line(_judge(once[once['reading'] == reading]), False)}." in REPORT
    for table in (4, 5, 6, 7, 8):
        for reading in ("disjoint", "shared"):
            part = SDF[(SDF["table"] == table) & (SDF["reading"] == reading)]
            if len(part):
                assert f"Verdict: {_line(_judge(part), False)}" in REPORT, (table, reading)


def test_the_sdf_by_n_lines_and_the_summary_recompute():
    main = SDF[(SDF["reading"] == "disjoint") & (SDF["table"] < 8)]
    for n, group in main.groupby("N"):
        j = _judge(group)
        assert (f"  - N = {n}: {_group(j)}; {j['inside']} inside our interval; ours minus the paper's: mean "
                f"{_s(j['mean'])}, from {_s(j['low'])} to {_s(j['high'])}.") in REPORT, n
    once = _once(SDF[SDF["reading"] == "disjoint"])
    j = _judge(once)
    run = len(_once(SDF).drop_duplicates(["table", "dataset", "N", "T", "model"]))
    # the paper's Tables 4-8 hold 32 + 32 + 32 + 20 + 50 cells
    # 18 of Table 8's values are its cascades' best cells of Tables 3-7 (16 of them in Tables 4-7), counted there
    assert (f"of the paper's 166 cells of Tables 4–8, 148 print a value for the first time (Table 8's cascades, Lung "
            f"Cancer's aside, repeat values of Tables 3–7); {run} are run (counted once; ") in REPORT
    # Table 3 (Parkinsons, 4 N x 4 T x 2 models) is not run; Table 10 (3 N x 4 T x 2 models) is, 10 draws per reading
    mnist = pd.read_csv(FOLDER / "sdf_mnist_cells.csv")
    cells10 = mnist.drop_duplicates(["N", "T", "model"])
    short = mnist[mnist["draws"] < 10].drop_duplicates(["N", "T", "model"])
    also = f" ({len(short)} of them on fewer draws than the protocol's so far)" if len(short) else ""
    assert (f"; of Table 3's 32 cells, none is run; of Table 10's 24 cells, {len(cells10)} are run{also}. "
            "With test pairs") in REPORT
    assert (f"{j['inside']} of those {j['cells']} lie inside our 95 % interval; by rule 5 they are {_group(j)}. "
            "By N (Tables 4–7): ") in REPORT
    t8 = _judge(once[once["table"] == 8])
    disjoint = SDF[SDF["reading"] == "disjoint"]
    own_value = disjoint[_repeats(disjoint) & ~_repeats(disjoint, same_value=True)]
    assert (f"; Table 8's cells with draws of their own (Bagging, RF): {_group(t8)}; Table 8's printed values of "
            f"their own for a grid cell's draws (compared apart, those draws counted once above): "
            f"{_group(_judge(own_value))}.") in REPORT
    assert (len(own_value), t8["cells"]) == (5, 12)  # Ecoli's and Ionosphere's two, Yeast's gcForest; 6 x 2 models


def _near_counts(gaps):
    near = gaps.abs() <= MARGIN + 1e-12
    return {"cells": len(gaps), "near": int(near.sum()), "above": int((~near & (gaps > 0)).sum()),
            "below": int((~near & (gaps < 0)).sum()), "mean_abs": gaps.abs().mean()}


def test_the_sdf_gain_sentence_decides_on_the_cells_never_on_the_means():
    main = SDF[(SDF["reading"] == "disjoint") & (SDF["table"] < 8)]
    wide = main.pivot_table(index=["table", "dataset", "N", "T"], columns="model", values=["mean", "paper"])
    ours = wide[("mean", "SDF")] - wide[("mean", "gcForest")]
    paper = wide[("paper", "SDF")] - wide[("paper", "gcForest")]
    per_cell = (ours - paper).dropna()
    tables = "; ".join(f"Table {t}: {_group(_near_counts(g))}" for t, g in per_cell.groupby(level="table"))
    zero = _near_counts(-paper.dropna())["near"]
    sentence = (f"ours {_s(ours.mean())} against the paper's {_s(paper.mean())} (means over {len(per_cell)} cells); "
                f"cell by cell, ours minus the paper's gain: {_group(_near_counts(per_cell))} ({tables}); a gain of "
                f"zero in every cell would be near the paper's in {zero} of the {len(per_cell)}")
    assert REPORT.count(sentence) == 2, sentence  # In short, and the findings' gain line
    point = (f"mvlab's gain against the paper's, cell by cell (rule 5), is {_group(_near_counts(per_cell))}; a gain "
             f"of zero in every cell would be near in {zero} of them")
    assert point in " ".join(REPORT.split())
    assert "on average, near by rule 2" not in REPORT and "mean gain is near" not in REPORT


# the paper's Table 8 (gcForest, Bagging, RF, SNN, SDF), transcribed here for the rank tests of its §8
PAPER_TABLE8 = {
    "parkinsons": (.887, .587, .695, .572, .893), "ecoli": (.915, .877, .867, .710, .921),
    "yeast": (.735, .712, .702, .652, .739), "ionosphere": (.916, .886, .912, .690, .920),
    "mammographic": (.765, .508, .592, .619, .783), "haberman": (.555, .494, .488, .564, .594),
    "breast-tissue": (.875, .698, .769, .683, .885), "lung-cancer": (.642, .580, .583, .595, .686),
    "ilpd": (.572, .502, .510, .582, .575), "seeds": (.956, .944, .946, .789, .968),
}


def _sign_chi2_p(diff):
    """Friedman's test of two methods over the blocks, tie-corrected: chi2 = (W - L)^2 / (W + L), one degree of
    freedom (W, L: blocks where the first is higher, lower)."""
    from scipy.stats import chi2

    w, lo = int((diff > 0).sum()), int((diff < 0).sum())
    return chi2.sf((w - lo) ** 2 / (w + lo), 1) if w + lo else 1.0, w, lo


def _dunn_p(wide, other):
    """Bonferroni-Dunn with SDF as the control: average ranks (1 = best), z over sqrt(k (k + 1) / (6 n)), two-sided,
    times k - 1, at most 1."""
    from scipy.stats import norm

    n, k = wide.shape
    ranks = wide.rank(axis=1, ascending=False).mean()
    z = (ranks[other] - ranks["SDF"]) / np.sqrt(k * (k + 1) / (6 * n))
    return min(1.0, (k - 1) * 2 * norm.sf(abs(z)))


@pytest.mark.parametrize("reading", ["disjoint", "shared"])
def test_the_sdf_rank_test_rows_recompute_from_the_cells(reading):
    """Each row of the rank tests of §8: our Friedman and Bonferroni-Dunn p-values from Table 8's cells, the paper's
    from its own Table 8, and the verdict word, recomputed here. Broken once on purpose (tried): Friedman without
    the tie correction in mvlab.reproduction.sdf_paper changes no row here (no tie in the cells), so the tie case is
    in tests/test_sdf_paper.py; with Bonferroni-Dunn's p-values unadjusted, SDF - Bagging's row read 0.0073 against
    0.0219 here and this test failed."""
    t8 = SDF[(SDF["table"] == 8) & (SDF["reading"] == reading)]
    wide = t8.pivot_table(index="dataset", columns="model", values="mean")[["gcForest", "Bagging", "RF", "SDF"]]
    wide = wide.dropna()
    paper = pd.DataFrame(PAPER_TABLE8, index=["gcForest", "Bagging", "RF", "SNN", "SDF"]).T
    printed = {"gcForest": "0.0016", "Bagging": "0.0016", "RF": "0.0016", "SNN": "0.0114"}
    for other in ("gcForest", "Bagging", "RF"):
        p, w, lo = _sign_chi2_p(wide["SDF"] - wide[other])
        word = "not significant" if p >= 0.05 else ("significant, SDF higher" if w > lo else "significant, SDF lower")
        pp, _, _ = _sign_chi2_p(paper["SDF"] - paper[other])
        row = (f"| SDF - {other} | {len(wide)} | {w}, {lo} | {p:.4f} | {_dunn_p(wide, other):.4f} | {printed[other]} | "
               f"{pp:.4f}, {_dunn_p(paper, other):.4f} | {word} |")
        assert row in REPORT, row
        assert f"{pp:.4f}" == printed[other]  # the paper's own test recomputes to its printed value
    pp, _, _ = _sign_chi2_p(paper["SDF"] - paper["SNN"])
    assert f"| SDF - SNN | not run |  |  |  | 0.0114 | {pp:.4f}, {_dunn_p(paper, 'SNN'):.4f} |  |" in REPORT


def test_the_sdf_rank_tests_sentence_says_what_the_papers_table8_gives():
    paper = pd.DataFrame(PAPER_TABLE8, index=["gcForest", "Bagging", "RF", "SNN", "SDF"]).T
    dunn = {o: _dunn_p(paper, o) for o in ("gcForest", "Bagging", "RF", "SNN")}
    significant = [o for o, p in dunn.items() if p < 0.05]
    text = " ".join(REPORT.split())
    listed = ", ".join(f"SDF - {o} (p = {dunn[o]:.4f})" for o in significant)
    others = ", ".join(f"SDF - {o} (p = {dunn[o]:.4f})" for o in dunn if o not in significant)
    assert f"among its five models finds {listed} significant" + (f" and {others} not" if others else "") in text
    # the paper says only SDF - SNN is: the sentence must not claim the table recovers that unless it does
    recovers = significant == ["SNN"]
    assert ("which this reading recovers" in text) == recovers
    assert ("which this reading of the test does not recover from the table" in text) == (not recovers)


# ----------------------------------------------------------------------------------------------------- OFSP
ROWS = {"golub-3051": "All-AML leukemia", "madelon-500": "Madelon"}
CLASSIFIERS = {"knn": "KNN", "nb": "naive Bayes", "svm": "linear SVM"}


def test_the_ofsp_rows_recompute_cell_by_cell():
    mine = OFSP[OFSP["model"] == "OFSP"]
    for (dataset, clf), row in mine[mine["table"] == 3].groupby(["dataset", "classifier"]):
        j = _judge(row)
        head = (f"- {ROWS[dataset]}, {CLASSIFIERS[clf]}: ours {_f(row['mean'].min())}–{_f(row['mean'].max())} over k "
                f"against the paper's {_f(row['paper'].min())}–{_f(row['paper'].max())}; {_group(j)}; ours minus the "
                f"paper's: mean {_s(j['mean'])}, from {_s(j['low'])} to {_s(j['high'])}; {j['inside']} of "
                f"{j['cells']} cells inside our interval; OFSP is ")
        assert head in REPORT, head
    for (dataset, clf), row in mine[(mine["table"] == 4) & mine["paper"].notna()].groupby(["dataset", "classifier"]):
        j = _judge(row)
        line = (f"- {ROWS[dataset]}, {CLASSIFIERS[clf]}: the paper's {_f(row['paper'].median())} (median over k; "
                f"{_f(row['paper'].min())}–{_f(row['paper'].max())}), ours {_f(row['mean'].median())} "
                f"({_f(row['mean'].min())}–{_f(row['mean'].max())}); {_group(j)}; {j['inside']} of {j['cells']} cells "
                f"inside our interval, {j['one']} inside that of one repetition.")
        assert line in REPORT, line
    t3, t4 = (_judge(mine[mine["table"] == t]) for t in (3, 4))
    assert (f"**OFSP's cells**: Table 3 (accuracy): {_line(t3, False)}; Table 4 (disagreement): {_line(t4, True)}."
            in REPORT)
    # the scope: Table 3 prints 16 datasets x 3 classifiers x 10 k
    assert (f"of Table 3's 480 accuracy cells, {len(mine[mine['table'] == 3])} are run, on "
            f"{mine['dataset'].nunique()} of its 16 datasets") in REPORT
    assert f"Of the {t3['cells']} accuracy cells run, {t3['inside']} lie inside our intervals of the mean; by rule 5 " \
           f"they are {_group(t3)}" in REPORT


def test_the_six_methods_disagreement_line_pools_every_classifier_and_k():
    draws = pd.read_csv(FOLDER / "ofsp_paper_draws.csv")
    places = {1: "the most", 2: "the second most", 3: "the third most", 4: "the fourth most", 5: "the fifth most",
              6: "the sixth most"}
    checked = 0
    for dataset, part in draws[draws["disagreement"].notna()].groupby("dataset"):
        # a cell: one (classifier, k, method), its mean over the repetitions; a method's median over all its cells
        cells = part.groupby(["classifier", "k", "method"])["disagreement"].mean()
        median = cells.groupby(level="method").median()
        others = median.drop("OFSP")
        place = int((others > median["OFSP"] + 1e-12).sum()) + 1
        line = (f"- {ROWS[dataset]}, the six methods (median over k and classifiers): OFSP {_f(median['OFSP'])}, the "
                f"other five {_f(others.min())}–{_f(others.max())}: OFSP's members disagree {places[place]}.")
        assert line in REPORT, line
        checked += 1
    assert checked == 2


def test_the_all_aml_disagreement_sentence_says_what_the_leak_cells_hold():
    t4 = LEAK[(LEAK["dataset"] == "golub-3051") & (LEAK["table"] == 4) & LEAK["paper"].notna()]
    nonzero = t4[t4["paper"] > 0]
    outside = int(((t4["paper"] < t4["pi_low"]) | (t4["paper"] > t4["pi_high"])).sum())
    draws = pd.read_csv(FOLDER / "ofsp_leak_draws.csv")
    ours = draws[(draws["dataset"] == "golub-3051")]["disagreement"].dropna()
    span = f"exactly {_f(ours.min())}" if _f(ours.min()) == _f(ours.max()) else f"{_f(ours.min())}–{_f(ours.max())}"
    sentence = (f"the paper's All-AML disagreement is non-zero in {len(nonzero)} of its {len(t4)} cells "
                f"({nonzero['paper'].min():.4f}–{nonzero['paper'].max():.4f}), while with the features chosen on the "
                f"test fold OFSP's members disagree by {span} over every repetition and k; "
                f"{outside} of the {len(t4)} cells lie outside even the interval of one repetition")
    assert sentence in REPORT
    assert (len(nonzero), len(t4), outside) == (14, 18, 14)  # what the audit found in the same file
    # each table by both yardsticks: inside our intervals (a majority) and near by the margin (rule 5)
    clauses = []
    for table, column in ((3, "accuracy"), (4, "disagreement")):
        cells = LEAK[(LEAK["dataset"] == "golub-3051") & (LEAK["table"] == table) & LEAK["paper"].notna()]
        j = _judge(cells)
        zero = ", which have zero width: every repetition scores the same" if (cells["std"] == 0).all() else ""
        facts = f"{j['inside']} of its {j['cells']} {column} cells inside our intervals{zero}; {_group(j)}"
        near = 2 * j["near"] > j["cells"]
        if near and 2 * j["inside"] > j["cells"]:
            clauses.append(f"gives the paper's All-AML {column} ({facts})")
        elif near:
            clauses.append(f"comes within rule 2's margin of its {column}, not inside our intervals ({facts})")
        else:
            clauses.append(f"does not give its {column} ({facts})")
    verdict = "choosing OFSP's features by accuracy on the test fold " + "; it ".join(clauses)
    assert verdict in REPORT, verdict
    assert REPORT.count(verdict) == 3  # In short, the section's bullet, and what the files show
    assert "gives the paper's All-AML accuracy" in verdict and "within rule 2's margin of its disagreement" in verdict
    for sentence in ("accuracy and disagreement\nalike", "so they never disagree", "points the same way as its"):
        assert sentence not in REPORT, sentence


# ---------------------------------------------------------------------------------------------- coverage
@pytest.mark.parametrize("table", [4, 5, 6, 7, 8])
def test_the_sdf_coverage_rows_count_what_the_cells_file_holds(table):
    once = _once(SDF)
    run = once[once["table"] == table].drop_duplicates(["dataset", "N", "T", "model"])
    repeats = len(SDF[SDF["table"] == table].drop_duplicates(["dataset", "N", "T", "model"])) - len(run)
    same = SDF[_repeats(SDF, same_value=True) & (SDF["table"] == table)].drop_duplicates(["dataset", "N", "T", "model"])
    printed = {4: 32, 5: 32, 6: 32, 7: 20, 8: 50}[table]
    extra = (f" (+{repeats} that repeat the draws of a cell of Tables 4–7, {len(same)} of them its printed value "
             "too) |") if repeats else " |"
    before = " (18 of them printed before in Tables 3–7, counted there)" if table == 8 else ""
    pattern = (rf"\| Table {table} \| [^|]+ \| {printed} cells{re.escape(before)} \| {printed} \| "
               rf"{len(run)}{re.escape(extra)}")
    assert re.search(pattern, REPORT), pattern


def test_the_sdf_datasets_sentence_names_what_the_cells_file_holds():
    """The sentence that opens section 3.1 counts and names the datasets the cells file holds, and names each of the
    paper's other datasets as not run, from the cells file alone (the paper's Table 2 names as the report writes
    them). Fails when the sentence counts the grid's definition instead of the files (tried: ``len(SDF_DATASETS)``
    with ILPD added to the grid before its draws were run: "6 of the paper's 10 datasets are run")."""
    names = {"ecoli": "Ecoli", "yeast": "Yeast", "ionosphere": "Ionosphere", "mammographic": "Mammographic masses",
             "haberman": "Haberman", "ilpd": "ILPD", "parkinsons": "Parkinsons", "breast-tissue": "Breast Tissue",
             "lung-cancer": "Lung Cancer", "seeds": "Seeds"}
    ran = [names[d] for d in names if d in set(SDF["dataset"])]
    sentence = re.search(r"(\d+) of the paper's 10 datasets are run \(([^)]*)\)", REPORT)
    assert sentence is not None
    assert int(sentence.group(1)) == len(ran) and sentence.group(2).split(", ") == ran
    rest = REPORT[sentence.end():REPORT.index("**Protocol**", sentence.end())]
    assert all(name in rest for d, name in names.items() if name not in ran)
    assert all(f"{name}:" not in rest and f"{name}," not in rest for name in ran)


def test_the_lambda_sentences_say_what_choosing_on_the_test_pairs_adds():
    """The λ sentences' gains and percentages recomputed from the draws themselves (issue #71 item 10: they were
    read from mvlab's own cells file): per draw, SDF with λ chosen on the training pairs (``SDF``) and the best of
    the fixed-λ SDFs on the test pairs, minus gcForest; per cell, the fixed λ whose mean over the draws is best.
    Fails when the cells file's columns are not what the draws give (tried: the per-cell choice taken per draw)."""
    draws = pd.read_csv(FOLDER / "sdf_lambda_draws.csv")
    cell = ["dataset", "N", "T"]
    acc = draws.pivot_table(index=cell + ["reading", "draw"], columns="model", values="accuracy")
    gc, fixed = acc["gcForest"], acc[[c for c in acc.columns if c.startswith("SDF λ=")]]
    assert fixed.shape[1] >= 3
    gains = pd.DataFrame({"training": (acc["SDF"] - gc).groupby(cell).mean(),
                          "per draw": (fixed.max(axis=1) - gc).groupby(cell).mean(),
                          "per cell": fixed.groupby(cell).mean().max(axis=1) - gc.groupby(cell).mean()})
    cells = pd.read_csv(FOLDER / "sdf_lambda_cells.csv").set_index(cell)
    gains["paper"] = cells["paper"]
    for mine, theirs in (("training", "SDF (λ on training pairs)"), ("per draw", "SDF (λ on test, per draw)"),
                         ("per cell", "SDF (λ on test, per cell)")):
        np.testing.assert_allclose(gains[mine], cells.loc[gains.index, theirs], atol=1e-6)
    training, per_draw, per_cell, paper = (gains[c].mean() for c in ("training", "per draw", "per cell", "paper"))
    pct = lambda x: f"{round(100 * x)}%"  # noqa: E731
    text = " ".join(REPORT.split())
    assert (f"λ chosen on the test draws instead of the training pairs adds {pct((per_draw - training) / paper)} of "
            f"the paper's mean gain over gcForest at T = 100 (SDF − gcForest from {_s(training)} to {_s(per_draw)}, "
            f"the paper's {_s(paper)};") in text
    assert (f"from {_s(training)} to {_s(per_draw)}, a gain of {pct(per_draw / paper)} of the paper's {_s(paper)} "
            f"on the same cells, of which the choice on the test pairs adds {pct((per_draw - training) / paper)}; λ "
            f"chosen per cell, to {_s(per_cell)} ({pct(per_cell / paper)}, of which the choice adds "
            f"{pct((per_cell - training) / paper)})") in text
    assert "recovers 53%" not in text


def test_the_neighbour_count_sentences_say_ofsp_is_assumed_and_compare_with_the_papers_median():
    knn = pd.read_csv(FOLDER / "ofsp_knn_cells.csv")
    gain = {}
    for method in ("Bagging", "RFSP", "VG-AC"):
        one, loo = (knn[knn["model"] == f"{method}, {v}"].set_index("k")["mean"]
                    for v in ("1-NN", "k by leave-one-out"))
        gain[method] = (loo - one).median()
    lift = (gain["RFSP"] + gain["VG-AC"]) / 2
    row = OFSP[(OFSP["model"] == "OFSP") & (OFSP["table"] == 3) & (OFSP["classifier"] == "knn")
               & (OFSP["dataset"] == "madelon-500")]
    lifted, paper_median = row["mean"].median() + lift, row["paper"].median()
    gap = (row["paper"] - row["mean"]).mean()
    word = "near" if abs(lifted - paper_median) <= MARGIN + 1e-12 else ("above" if lifted > paper_median else "below")
    text = " ".join(REPORT.split())
    assert (f"if OFSP gained what RFSP and VG-AC gain with k chosen by leave-one-out (OFSP itself is not run so; in "
            f"median over k: RFSP {_s(gain['RFSP'])}, Bagging {_s(gain['Bagging'])}, VG-AC {_s(gain['VG-AC'])}), the "
            f"number of neighbours would explain about {round(100 * lift / gap)}% of the row's mean gap ({_s(lift)} of "
            f"{_f(gap)}), and the row would still be {word} the paper's median ({_s(lifted - paper_median)})") in text
    assert (f"against the paper's {_f(row['paper'].min())}–{_f(row['paper'].max())} (median {_f(paper_median)}): "
            f"{word} the paper's median by the rules above ({_s(lifted - paper_median)})") in text
    draws = pd.read_csv(FOLDER / "ofsp_knn_draws.csv")
    bag = {v: draws[draws["method"] == f"Bagging, {v}"].set_index(["repetition", "k"])["accuracy"].sort_index()
           for v in ("1-NN", "k by leave-one-out")}
    differ = int((bag["1-NN"] != bag["k by leave-one-out"]).sum())
    assert (f"the two classifiers' accuracies differ in {differ} of its {len(bag['1-NN'])} repetition × k cells"
            in text)
    assert "always picks k = 1" not in text


def test_the_readings_table_says_what_an_ofsp_draw_is():
    """An OFSP reading's draw is one repetition of one dataset and classifier: the table says how many of each (the
    madelon-generator's 93 are 31 draws of the generator, each scored by 3 classifiers)."""
    for stem in ("ofsp_paper", "ofsp_leak", "madelon_generator"):
        draws = pd.read_csv(FOLDER / f"{stem}_draws.csv")
        jobs = draws[["dataset", "classifier", "repetition"]].drop_duplicates()
        per_row = jobs.groupby(["dataset", "classifier"]).size()
        assert per_row.min() == per_row.max(), stem  # every row complete
        row = f"[{stem}_draws.csv](reproduction/{stem}_draws.csv) | {len(jobs)}: {per_row.iloc[0]} repetitions × " \
              f"{len(per_row)} rows of dataset and classifier |"
        assert row in REPORT, row


def _gain_line(cells):
    """SDF minus gcForest per (dataset, N, T), ours and the paper's, with how many cells SDF is higher, level, lower."""
    def counted(gains):
        return (f"higher in {int((gains > 0).sum())}, level in {int((gains == 0).sum())}, lower in "
                f"{int((gains < 0).sum())}")
    wide = {v: cells.pivot_table(index=["dataset", "N", "T"], columns="model", values=v) for v in ("mean", "paper")}
    ours, paper = ((w["SDF"] - w["gcForest"]).dropna() for w in (wide["mean"], wide["paper"]))
    return (f"SDF − gcForest: ours {_s(ours.mean())} on average over {len(ours)} cell{'s' if len(ours) != 1 else ''} "
            f"(SDF {counted(ours)}), the "
            f"paper's {_s(paper.mean())} (SDF {counted(paper)}).")


def test_every_tables_gain_line_recomputes():
    """The SDF − gcForest line under each of Tables 4–7 (both readings) and under each reading of Table 10."""
    checked = 0
    for table in (4, 5, 6, 7):
        for reading in ("disjoint", "shared"):
            part = SDF[(SDF["table"] == table) & (SDF["reading"] == reading)]
            if part["model"].nunique() > 1:
                assert _gain_line(part) in REPORT, (table, reading, _gain_line(part))
                checked += 1
    mnist = pd.read_csv(FOLDER / "sdf_mnist_cells.csv")
    for reading, part in mnist.groupby("reading"):
        assert _gain_line(part) in REPORT, (reading, _gain_line(part))
        checked += 1
    assert checked == 10


def test_table10s_verdict_lines_recompute_cell_by_cell():
    mnist = pd.read_csv(FOLDER / "sdf_mnist_cells.csv")
    for reading, part in mnist.groupby("reading"):
        assert f"Verdict: {_line(_judge(part), False)}." in REPORT, reading
        # the draws behind each row: the protocol plans 10 per (N, reading)
        for n, row in part.groupby("N"):
            assert row["draws"].nunique() == 1 and f"| {n} | " in REPORT


def test_the_wide_lambda_grid_sentence_recomputes_from_both_draws_files():
    """The wide grid's SDF against the main grid's on the same draws: paired t-test (scipy), its t interval, the sign
    counts, the shares at each grid's edge and the verdict (a gain hidden only when significantly positive)."""
    from scipy import stats

    key = ["dataset", "N", "T", "reading", "draw"]
    wide = pd.read_csv(FOLDER / "sdf_lambda_grid_draws.csv")
    wide = wide[wide["model"] == "SDF, wide λ grid"].set_index(key)
    main = pd.read_csv(FOLDER / "sdf_paper_draws.csv")
    main = main[main["model"] == "SDF"].set_index(key)
    both = wide[["accuracy", "lam_median"]].join(main[["accuracy", "lam_median"]], rsuffix=" main", how="inner")
    d = both["accuracy"] - both["accuracy main"]
    n = len(d)
    half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)
    p = stats.ttest_rel(both["accuracy"], both["accuracy main"]).pvalue
    verdict = "hides a gain" if p < 0.05 and d.mean() > 0 else "hides no gain that these draws detect"
    text = " ".join(REPORT.split())
    assert (f"Over the {n} draws, the wide grid's SDF minus the main grid's: {d.mean():+.4f} [{d.mean() - half:+.4f}, "
            f"{d.mean() + half:+.4f}], p = {p:.3f} (paired t-test over the draws; the wide grid's SDF higher in "
            f"{int((d > 0).sum())}, level in {int((d == 0).sum())}, lower in {int((d < 0).sum())}). The wide grid's "
            f"median λ sits at its largest value in {(both['lam_median'] == 1e6).mean():.0%} of the draws and at its "
            f"smallest in {(both['lam_median'] == 1e-3).mean():.0%}.") in text
    assert f"the edge of the main grid **{verdict}**" in text
    assert f"{verdict} (the wide grid's SDF minus the main grid's over {n} draws:" in text
    assert f"in {(both['lam_median main'] == 1e4).mean():.0%} of the draws below" in text


PLACES = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}


def _ofsp_places(dataset):
    """Per classifier: OFSP's place among the six methods by the median over k of the mean accuracy over the
    repetitions (from the draws, at full precision: the cells file rounds to six digits; ties share the better
    place), and every method's median."""
    draws = pd.read_csv(FOLDER / "ofsp_paper_draws.csv")
    means = draws[draws["dataset"] == dataset].groupby(["classifier", "method", "k"])["accuracy"].mean()
    out = {}
    for clf, rows in means.groupby(level="classifier"):
        median = rows.groupby(level="method").median()
        out[clf] = (int((median > median["OFSP"] + 1e-12).sum()) + 1, median)
    return out


def test_ofsps_place_and_the_features_it_keeps_recompute_row_by_row():
    draws = pd.read_csv(FOLDER / "ofsp_paper_draws.csv")
    firsts = rows = 0
    for dataset in ("golub-3051", "madelon-500"):
        for clf, (place, _) in _ofsp_places(dataset).items():
            mine = draws[(draws["dataset"] == dataset) & (draws["classifier"] == clf) & (draws["method"] == "OFSP")]
            kept = mine.groupby("k")["percent_features"].mean().median()
            ending = (f"cells inside our interval; OFSP is {PLACES[place]} of the six methods by its median over k, "
                      f"keeping {kept:.1f} % of the features (median over k).")
            line = next(x for x in REPORT.splitlines() if x.startswith(f"- {ROWS[dataset]}, {CLASSIFIERS[clf]}: ours "))
            assert line.endswith(ending), (line, ending)
            firsts, rows = firsts + (place == 1), rows + 1
    assert f"OFSP is first of the six methods in {firsts} of the {rows} rows" in REPORT
    places = _ofsp_places("golub-3051")
    listed = ", ".join(f"{CLASSIFIERS[c]} {PLACES[places[c][0]]}" for c in ("knn", "nb", "svm"))
    assert REPORT.count(listed) == 2  # the leak section's two sentences
    ranges = ", ".join(f"{CLASSIFIERS[c]} {_f(places[c][1].drop('OFSP').min())}–{_f(places[c][1].drop('OFSP').max())}"
                       for c in ("knn", "nb", "svm"))
    assert ranges in " ".join(REPORT.split())


def test_the_madelon_generator_sentences_recompute_from_its_draws():
    """How far the data's draw alone moves each classifier (the other draws, every feature), whether the paper's SVM
    row lies within the SVM's spread, how often 1-NN trails, and the paper's KNN leads (from the cells' paper
    values)."""
    draws = pd.read_csv(FOLDER / "madelon_generator_draws.csv")
    every = draws[draws["method"] == "all 500 features"]
    others = every[every["repetition"] > 0]
    spread = {c: others[others["classifier"] == c]["accuracy"] for c in ("knn", "nb", "svm")}
    moves = ", ".join(f"{CLASSIFIERS[c]} {_f(s.max() - s.min())}" for c, s in spread.items())
    paper = OFSP[(OFSP["dataset"] == "madelon-500") & (OFSP["table"] == 3) & (OFSP["model"] == "OFSP")]
    paper = {c: paper[paper["classifier"] == c].set_index("k")["paper"] for c in ("knn", "nb", "svm")}
    svm = spread["svm"]
    inside = "inside" if svm.min() <= paper["svm"].min() and paper["svm"].max() <= svm.max() else "outside"
    wide = every.pivot_table(index="repetition", columns="classifier", values="accuracy")
    lead_svm, lead_nb = paper["knn"] - paper["svm"], paper["knn"] - paper["nb"]
    text = " ".join(REPORT.split())
    assert f"The draw alone moves one classifier's accuracy on every feature by {moves} (from the lowest to" in text
    assert f"each classifier alone moves by {moves} over other draws of Madelon's generator alone" in text
    assert (f"The paper's OFSP row with the SVM lies {inside} what one SVM on every feature scores over the draws "
            f"({_f(svm.min())}–{_f(svm.max())})") in text
    assert (f"the paper's KNN beats its linear SVM at every k, by {_f(lead_svm.min())} to {_f(lead_svm.max())}, and "
            f"its naive Bayes by {_f(lead_nb.min())} to {_f(lead_nb.max())}; on the generator's draws 1-NN trails "
            f"the linear SVM on {int((wide['svm'] > wide['knn']).sum())} of {len(wide)} draws and naive Bayes on "
            f"{int((wide['nb'] > wide['knn']).sum())} of {len(wide)}") in text


def test_the_pair_sampling_line_the_half_widths_and_the_small_n_ranges_recompute():
    once = _once(SDF)
    have = once[once["paper"].notna() & once["ci_low"].notna()]
    key = ["table", "dataset", "N", "T", "model"]
    both = have[have["reading"] == "disjoint"].merge(have[have["reading"] == "shared"], on=key,
                                                     suffixes=("_d", "_s"))
    parts = []
    for n, g in both.groupby("N"):
        gap = {r: g[f"mean_{r[0]}"] - g["paper_d"] for r in ("disjoint", "shared")}
        inside = {r: int(g[f"inside_{r[0]}"].astype(str).eq("True").sum()) for r in gap}
        a = {r: gap[r].abs().mean() for r in gap}
        closer = "`disjoint`" if a["disjoint"] < a["shared"] else "`shared`" if a["shared"] < a["disjoint"] \
            else "neither (a tie)"
        parts.append(f"N = {n} ({len(g)} cells): " + ", ".join(
            f"`{r}` {_s(gap[r].mean())} (mean |gap| {_f(a[r])}, {inside[r]} inside)" for r in gap)
            + f", closer: {closer}, `shared` above `disjoint` in {int((g['mean_s'] > g['mean_d']).sum())} of {len(g)}")
    assert f"*Which pair sampling fits* (the cells run both ways): {'; '.join(parts)}." in REPORT
    main = SDF[(SDF["reading"] == "disjoint") & (SDF["table"] < 8)]
    half = ((main["ci_high"] - main["ci_low"]) / 2).groupby(main["N"])
    widths = "; ".join(f"N = {n}: {_f(h.min())}–{_f(h.max())}" for n, h in half)
    assert f"half-widths of the 95 % t intervals by N (Tables 4–7, `disjoint`: {widths})" in REPORT
    small = main[main["N"] == 100]["mean"]
    paper = SDF[(SDF["N"] == 100) & SDF["dataset"].isin(["yeast", "ionosphere"]) & (SDF["table"] < 8)]["paper"]
    text = " ".join(REPORT.split())
    assert (f"lie at {_f(paper.min())}–{_f(paper.max())} (" in text
            and f"N = 100 lie at {_f(small.min())}–{_f(small.max())}:" in text)


# the paper's Table 9 (SDF minus each model over its ten datasets): p, mean, 95 % CI
PAPER_TABLE9 = {"gcForest": (0.015, 0.015, 0.004, 0.025), "Bagging": (0.006, 0.118, 0.043, 0.192),
                "RF": (0.002, 0.090, 0.043, 0.137)}


def test_table9_rows_and_the_gain_tests_sentence_recompute_with_scipy():
    from scipy import stats

    models = ("gcForest", "Bagging", "RF", "SNN", "SDF")
    for reading in ("disjoint", "shared"):
        t8 = SDF[(SDF["table"] == 8) & (SDF["reading"] == reading)].pivot_table(index="dataset", columns="model",
                                                                               values="mean")
        for other, (pp, pm, plo, phi) in PAPER_TABLE9.items():
            both = t8[["SDF", other]].dropna()
            d = both["SDF"] - both[other]
            n = len(d)
            p = stats.ttest_rel(both["SDF"], both[other]).pvalue
            half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)
            theirs = [PAPER_TABLE8[name] for name in both.index]
            restricted = stats.ttest_rel([r[4] for r in theirs], [r[models.index(other)] for r in theirs])
            their_mean = np.mean([r[4] - r[models.index(other)] for r in theirs])
            significant = p < 0.05 and np.sign(d.mean()) == np.sign(pm)
            row = (f"| SDF - {other} | {n} | {p:.3f} | {d.mean():+.3f} | [{d.mean() - half:.3f}, "
                   f"{d.mean() + half:.3f}] | {pp:.3f} | {pm:+.3f} [{plo:.3f}, {phi:.3f}] | "
                   f"{restricted.pvalue:.3f}, {their_mean:+.3f} | "
                   f"{'significant' if significant else 'not significant'} as the paper tests it |")
            assert row in REPORT, (reading, row)
            if other == "gcForest" and reading == "disjoint":
                size = "reproduced" if d.mean() - half <= pm <= d.mean() + half else "not reproduced"
                verdict = (f"{'significant' if significant else 'not significant'} as the paper tests it (p = "
                           f"{p:.3f}), its size {size} (ours {d.mean():+.3f} [{d.mean() - half:.3f}, "
                           f"{d.mean() + half:.3f}], the paper's {pm:+.3f})")
                assert f"Table 9's test of SDF − gcForest: {verdict}" in REPORT  # In short
                assert f"Table 9's test (Table 8's setting, our {n} datasets): {verdict}" in REPORT  # the findings


def test_the_readings_tables_sdf_rows_count_draws_and_hours_from_their_files():
    """A Siamese deep forest draw is one (dataset, N, T, reading, draw); its hours are the draws' seconds summed."""
    for stem in ("sdf_paper", "sdf_lambda", "sdf_readings", "sdf_lambda_grid", "sdf_mnist"):
        draws = pd.read_csv(FOLDER / f"{stem}_draws.csv")
        n = len(draws[["dataset", "N", "T", "reading", "draw"]].drop_duplicates())
        row = f"[{stem}_draws.csv](reproduction/{stem}_draws.csv) | {n} | {draws['seconds'].sum() / 3600:.1f} |"
        assert row in REPORT, row
        if stem == "sdf_paper":  # the grid is complete: every planned draw is in the file
            assert f"all {n} draws of the grid computed, {draws['seconds'].sum() / 3600:.1f} h of model" in REPORT


def test_the_sdf_coverage_totals_count_each_draw_once_and_each_printed_value_once():
    """The "In all" line of the Siamese deep forest's coverage table. The paper prints 222 accuracy cells (Tables
    3-6: 4 N x 4 T x 2 models each; Table 7: 5 datasets x 2 N x 2 models; Table 8: 10 datasets x 5 models; Table
    10: 3 N x 4 T x 2 models), 12 tests (Table 9: 4; §8: Friedman and Bonferroni-Dunn on 4 differences) and 2 values
    of its own (CIFAR-10's; Lung Cancer's two are Table 8's); 18 of Table 8's cells print again values of Tables
    3-7, counted there."""
    key = ["table", "dataset", "N", "T", "model"]
    cells = SDF.drop_duplicates(key)
    repeats, same_value = _repeats(SDF), _repeats(SDF, same_value=True)
    run = len(SDF[~repeats].drop_duplicates(key))
    compared = len(SDF[SDF["paper"].notna() & ~same_value].drop_duplicates(key))
    mnist = pd.read_csv(FOLDER / "sdf_mnist_cells.csv").drop_duplicates(["N", "T", "model"])
    tests = 3 + 6  # Table 9 and the rank tests without the SNN (their rows are checked above)
    assert len(cells) - run == 12
    compared += int(mnist["paper"].notna().sum())
    assert (f"In all: {run + len(mnist)} of {222 - 18} cells run ({compared} compared with a printed value); "
            f"{tests} of 12 tests run ({tests} compared with a printed value); 0 of 2 values run (0 compared with a "
            "printed value).") in REPORT


def test_the_single_run_grain_line_recomputes_by_rounding_every_fraction():
    """A printed value is a single run's when some j / m rounds to it at three decimals (m test pairs)."""
    part = SDF[(SDF["table"] < 8) & (SDF["N"] == 100) & (SDF["reading"] == "disjoint") & SDF["paper"].notna()]
    whole = {m: sum(any(round(j / m, 3) == round(v, 3) for j in range(m + 1)) for v in part["paper"])
             for m in (66, 67)}
    assert (f"{whole[66]} of the paper's {len(part)} cells at N = 100 are a whole number of right pairs out of 66 "
            f"test pairs (2N/3 rounded down) to the printed three decimals, {whole[67]} out of 67 (rounded up, as "
            f"mvlab draws them); values drawn at random would give about {len(part) * 0.001 * 66:.1f} and "
            f"{len(part) * 0.001 * 67:.1f}") in REPORT


def test_the_pairs_as_they_come_line_and_the_in_sample_qp_recompute_from_the_draws():
    draws = pd.read_csv(FOLDER / "sdf_readings_draws.csv")
    natural = draws[draws["reading"] == "natural"]
    sdf = natural[natural["model"] == "SDF"].groupby("N")["accuracy"].mean()
    paper = SDF[(SDF["dataset"] == "ionosphere") & (SDF["T"] == 100) & (SDF["model"] == "SDF")
                & (SDF["table"] == 6)].drop_duplicates("N").set_index("N")["paper"]
    text = " ".join(REPORT.split())
    for n, ours in sdf.items():
        gap = ours - paper[n]
        word = "near" if abs(gap) <= MARGIN + 1e-12 else ("above" if gap > 0 else "below")
        assert f"N = {n}: SDF {_f(ours)} against the paper's {_f(paper[n])}, {word} (chance " in text, n
    inside = draws[draws["reading"] == "insample"].pivot_table(index=["N", "draw"], columns="model",
                                                               values="accuracy")
    largest = max(abs((inside[c] - inside["gcForest"]).groupby(level="N").mean()).max()
                  for c in inside.columns if c.startswith("SDF in-sample"))
    assert f"(the largest difference over every N and λ: {largest:.4f})" in text


def test_the_test_fold_readings_rows_recompute_against_the_protocols():
    """Each row of the test-fold reading beside the protocol: the paper's cells inside each reading's intervals,
    each's mean |gap|, our range, and which lands closer (the smaller mean |gap|)."""
    def inside(frame):
        return int(((frame["paper"] >= frame["ci_low"]) & (frame["paper"] <= frame["ci_high"])).sum())

    checked = 0
    for (dataset, table, clf), leak in LEAK[LEAK["paper"].notna()].groupby(["dataset", "table", "classifier"]):
        mine = OFSP[(OFSP["dataset"] == dataset) & (OFSP["table"] == table) & (OFSP["classifier"] == clf)
                    & (OFSP["model"] == "OFSP")]
        a, b = ((f["mean"] - f["paper"]).abs().mean() for f in (leak, mine))
        closer = "this reading" if a < b else "the protocol" if b < a else "neither (a tie)"
        low, high = _f(leak["mean"].min()), _f(leak["mean"].max())
        span = f"exactly {low}" if low == high else f"{low}–{high}"
        column = {3: "accuracy", 4: "disagreement"}[table]
        line = (f"- {ROWS[dataset]}, {CLASSIFIERS[clf]}, Table {table} ({column}): {inside(leak)} of {len(leak)} of "
                f"the paper's cells inside our intervals with the accuracy on the test fold (mean |gap| {_f(a)}, ours "
                f"{span}), {inside(mine)} with the protocol's inner cross-validation (mean |gap| {_f(b)}); closer: "
                f"{closer}.")
        assert line in REPORT, line
        checked += 1
    assert checked == 9


def test_the_svm_fold_time_the_features_kept_and_the_lambda_means_recompute():
    ofsp = pd.read_csv(FOLDER / "ofsp_paper_draws.csv")
    svm = ofsp[(ofsp["dataset"] == "madelon-500") & (ofsp["classifier"] == "svm")]
    minutes = {m: g.groupby("repetition")["seconds"].sum() / 60 for m, g in
               (("five", svm[svm["method"] != "VC-GA"]), ("OFSP", svm[svm["method"] == "OFSP"]))}
    five = minutes["five"]
    text = " ".join(REPORT.split())
    assert (f"took {five.median():.1f} minutes for the five methods other than the GA (median over its {len(five)} "
            f"repetitions; {five.min():.1f}–{five.max():.1f}), OFSP {minutes['OFSP'].median():.1f} of them") in text
    leak = pd.read_csv(FOLDER / "ofsp_leak_draws.csv")
    golub = leak[(leak["dataset"] == "golub-3051")]
    kept = golub.groupby(["classifier", "k"])["percent_features"].mean().groupby(level="classifier").median()
    assert f"Under this reading OFSP keeps {kept.min():.1f}–{kept.max():.1f} % of the 3,051 genes" in text
    lam = pd.read_csv(FOLDER / "sdf_lambda_cells.csv")
    assert (f"Mean over the cells: λ on training {_s(lam['SDF (λ on training pairs)'].mean())}, λ on test per draw "
            f"{_s(lam['SDF (λ on test, per draw)'].mean())}, per cell {_s(lam['SDF (λ on test, per cell)'].mean())}; "
            f"the paper {_s(lam['paper'].mean())}.") in text


def test_the_svm_range_line_and_madelons_rows_recompute():
    cells = pd.read_csv(FOLDER / "ofsp_svm_range_cells.csv")
    cells = cells[cells["table"] == 3]  # accuracy (Table 4's disagreement rows share the k)
    largest, medians = 0.0, []
    for method in ("RFSP", "Bagging", "VG-AC"):
        a, b = (cells[cells["model"] == f"{method}, {v}"].set_index("k")["mean"]
                for v in ("as generated", "0-999 range"))
        largest = max(largest, (b - a).abs().max())
        medians.append(abs((b - a).median()))
    text = " ".join(REPORT.split())
    assert (f"Over k the two scales differ by at most {_f(largest)} for any method, and by {_f(max(medians))} or "
            f"less in median ({int(cells['draws'].min())} repetitions;") in text
    rows = []
    for clf in ("svm", "knn"):
        row = OFSP[(OFSP["dataset"] == "madelon-500") & (OFSP["table"] == 3) & (OFSP["classifier"] == clf)
                   & (OFSP["model"] == "OFSP")]
        j = _judge(row)
        rows.append(f"our {CLASSIFIERS[clf]} row is {_word(j)} the paper's ({_group(j).split(': ', 1)[1]})")
    assert f"of both gaps: {', '.join(rows)};" in text


def test_the_by_n_line_over_both_readings_and_table8s_repeats_recompute():
    have = SDF[(SDF["table"] < 8) & SDF["paper"].notna()]
    parts = []
    for n in sorted(have["N"].unique()):
        parts.append(f"N = {n}: " + ", ".join(
            f"{r} {_group(_near_counts(g['mean'] - g['paper']))}"
            for r, g in have[have["N"] == n].groupby("reading")))
    assert f"by rule 5): {'; '.join(parts)}." in REPORT
    for reading in ("disjoint", "shared"):
        part = SDF[SDF["reading"] == reading]
        t8 = part[part["table"] == 8]
        repeats = int(_repeats(part)[(part["table"] == 8).to_numpy()].sum())
        same = int(_repeats(part, same_value=True)[(part["table"] == 8).to_numpy()].sum())
        assert (f"{repeats} of these {len(t8)} cells (‡) repeat the draws of a cell of Tables 4–7, {same} of them its "
                "printed value too") in REPORT, reading
        own = part[_repeats(part) & ~_repeats(part, same_value=True)]
        assert (f"the others' printed values, compared apart with those draws: "
                f"{_group(_judge(own))}.") in " ".join(REPORT.split()), reading


def test_the_papers_table9_test_recomputes_from_its_table8_with_scipy():
    from scipy import stats

    sdf = np.array([v[4] for v in PAPER_TABLE8.values()])
    gc = np.array([v[0] for v in PAPER_TABLE8.values()])
    d = sdf - gc
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    p = stats.ttest_rel(sdf, gc).pvalue
    assert (f"recomputed from its Table 8 by `mvlab.stats`: p = {p:.4f}, mean {d.mean():.4f}, 95 % CI "
            f"[{d.mean() - half:.4f}, {d.mean() + half:.4f}])") in " ".join(REPORT.split())


def test_the_coverage_rows_of_table10_and_of_ofsps_tables_count_what_the_files_hold():
    """Table 10: 3 N x 4 T x 2 models, 10 draws per (N, T, reading), two readings of the windows; what is left is
    counted from the draws file. OFSP's Table 3 and 4 and Figs. 4-7 rows from its cells and draws files."""
    draws = pd.read_csv(FOLDER / "sdf_mnist_draws.csv")
    done = draws[["N", "T", "reading", "draw"]].drop_duplicates()
    per = done.groupby(["reading", "N"])["draw"].nunique()
    short = [f"`{r}` N = {n} ({k} of 10 draws so far)" for (r, n), k in per.items() if k < 10]
    order = {"scan-sides": 0, "scan-areas": 1}
    short.sort(key=lambda s: order[s.split("`")[1]])
    reason = (f" | {240 - len(done)} of its 240 draws (both readings of the windows) still to compute with `python -m "
              f"mvlab reproduce sdf-mnist` ({'; '.join(short)}) |") if short else " |  |"
    assert f"| 24 cells | 24 | 24 | 24 | the paper's own MNIST, 5,000 of its 70,000 images (`mnist-5000`){reason}" in \
        REPORT
    mine = OFSP[OFSP["model"] == "OFSP"]
    t3, t4 = mine[mine["table"] == 3], mine[mine["table"] == 4]
    assert f"| Table 3 | OFSP's accuracy at k = 1..10 views | 480 cells | 480 | {len(t3)} | " \
           f"{int(t3['paper'].notna().sum())} |" in REPORT
    assert f"| 432 cells | 288 | {len(t4)} | {int(t4['paper'].notna().sum())} |" in REPORT
    assert (f"of Table 4's 432 disagreement cells (288 in the text we have), {int(t4['paper'].notna().sum())} are "
            "compared") in REPORT
    boxes = OFSP.drop_duplicates(["dataset", "classifier", "model"])
    assert f"| 288 boxes | 0 | {len(boxes)} | 0 |" in REPORT
    assert f"| 480 points | 0 | {len(t3)} | 0 |" in REPORT


def test_ofsps_coverage_totals_add_up_from_the_files():
    """OFSP prints 1,344 cells (Tables 3-5: 480, 432, 432), 144 tests (Tables 6-8: 48 each), 864 boxes (Figs. 4-6:
    288 each: 16 datasets x 3 classifiers x 6 methods) and 480 points (Fig. 7)."""
    mine = OFSP[OFSP["model"] == "OFSP"]
    t3, t4 = mine[mine["table"] == 3], mine[mine["table"] == 4]
    boxes = len(OFSP.drop_duplicates(["dataset", "classifier", "model"]))
    compared = int(t3["paper"].notna().sum() + t4["paper"].notna().sum())
    assert (f"In all: {len(t3) + len(t4)} of 1344 cells run ({compared} compared with a printed value); 0 of 144 "
            f"tests run (0 compared with a printed value); {3 * boxes} of 864 boxes run (0 compared with a printed "
            f"value); {len(t3)} of 480 points run (0 compared with a printed value).") in REPORT


def _printed_means(name):
    """The "Mean ± std of accuracy" table of a printed output, read with a parser of its own: datasets x methods."""
    text = (FOLDER / name).read_text(encoding="utf-8")
    block = text.split("Mean ± std of accuracy", 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("|").split("|") for line in block.splitlines() if line.startswith("|")]
    head, body = [c.strip() for c in rows[0]], [r for r in rows[2:]]
    return pd.DataFrame({head[j]: [float(r[j].split("±")[0]) for r in body] for j in range(1, len(head))},
                        index=[r[0].strip() for r in body])


def test_section1s_dvs_facts_recompute_from_the_printed_tables():
    from scipy.stats import rankdata

    five = ["average", "knn", "alignment", "oob", "dvs"]
    quick, paper = _printed_means("dvs_10splits_100trees.txt"), _printed_means("dvs_paper.txt")
    real = quick.drop(index=["synthetic", "synthetic (regions)"])

    def ranks(table):
        r = np.mean([rankdata(-row) for row in table[five].to_numpy()], axis=0)
        return " | ".join(f"{v:.2f}" for v in r)

    assert f"| mvlab (10 datasets) | {ranks(quick)} |" in REPORT
    assert f"| mvlab (the 8 real datasets) | {ranks(real)} |" in REPORT
    assert f"| mvlab at the paper's sizes (512 trees, RFD; 10 datasets) | {ranks(paper)} |" in REPORT
    gap = quick["dvs"] - quick["average"]
    text = " ".join(REPORT.split())
    assert f"ranges over {gap.min():+.4f} to {gap.max():+.4f};" in text
    best = real[["average", "knn", "alignment", "oob", "dvs", "dvs-soft", "dvs-soft-shared"]].max(axis=1)
    concat = (real["concat"] - best).sort_values(ascending=False)
    margins = ", ".join(f"{d.split(' (')[0]} {100 * v:+.1f}" for d, v in concat.items())
    assert (f"combination on {int((concat > 0).sum())} of {len(concat)} real datasets (in points of accuracy over the "
            f"best of them: {margins};") in text
    assert f"stacking beats them on {int((real['stacking'] > best).sum())} of {len(real)}." in text


def test_the_lambda_choices_are_judged_cell_by_cell():
    cells = pd.read_csv(FOLDER / "sdf_lambda_cells.csv")
    parts = "; ".join(f"λ {name}: {_group(_near_counts(cells[column] - cells['paper']))}" for name, column in (
        ("on training pairs", "SDF (λ on training pairs)"), ("on test per draw", "SDF (λ on test, per draw)"),
        ("on test per cell", "SDF (λ on test, per cell)")))
    assert f"Cell by cell, each choice's gain against the paper's (rule 5): {parts}." in " ".join(REPORT.split())


# ------------------------------------------------------------------------------------ the generated tables' cells
CELL = re.compile(r"^(\d\.\d{3}) ± (\d\.\d{3}) \((\d+)\) / (\*\*)?(\d\.\d{3}|—)(\*\*)?(‡)?$")
SINGLE_DATASET = {4: "ecoli", 5: "yeast", 6: "ionosphere", 10: "mnist-5000"}  # the paper's Tables 4-6 and 10


def _sections(heading):
    """(heading line, body) of every ``#### `` section whose heading matches ``heading``."""
    parts = re.split(r"^(#### .*)$", REPORT, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2) if re.match(heading, parts[i])]


def _table_cells(table, body):
    """Every cell of the form ``mean ± half (draws) / paper`` in a section, keyed by (dataset, N, T, model): grid
    tables (a row per N, a column per T and cascade; a ``name:`` line before each dataset of Table 7) and Table 8
    (a row per dataset, a column per model, N = 2000 and T = 700)."""
    dataset, header, found = SINGLE_DATASET.get(table), None, {}
    for line in body.splitlines():
        if re.fullmatch(r"[a-z0-9-]+:", line):
            dataset = line[:-1]
        elif line.startswith("| N |") or line.startswith("| dataset |"):
            header = [c.strip() for c in line.strip("|").split("|")]
        elif line.startswith("| ") and not line.startswith("|---") and header:
            row = [c.strip() for c in line.strip("|").split("|")]
            for name, text in zip(header[1:], row[1:]):
                match = CELL.match(text)
                if not match:
                    continue
                if header[0] == "N":
                    t, model = name.split()
                    key = (dataset, int(row[0]), int(t[2:]), {"gcF": "gcForest"}.get(model, model))
                else:
                    key = (row[0], 2000, 700, name)
                assert key not in found, (table, key)
                found[key] = match.groups()
    return found


def _from_draws(draws):
    """(mean, half-width of the 95 % t interval, draws) per (dataset, N, T, reading, model), at full precision."""
    from scipy import stats

    out = {}
    for key, acc in draws.groupby(["dataset", "N", "T", "reading", "model"])["accuracy"]:
        n = len(acc)
        out[key] = (acc.mean(), stats.t.ppf(0.975, n - 1) * acc.std(ddof=1) / np.sqrt(n), n)
    return out


@pytest.mark.parametrize("stem", ["sdf_paper", "sdf_mnist"])
def test_every_cell_of_the_sdf_tables_recomputes_from_the_draws(stem):
    """Each cell's mean, half-width and number of draws from the draws file (scipy's t), its paper value as the cells
    file transcribes it, bold exactly when that value lies outside our interval, and ‡ exactly on Table 8's cascades
    (whose draws are the grid's at N = 2000, T = 700); every cell of the cells file shown once. Broken once: with
    ``cell_text`` bolding by the interval of one draw, Table 4's N = 100 cells failed."""
    ours = _from_draws(pd.read_csv(FOLDER / f"{stem}_draws.csv"))
    cells = _cells(stem)
    paper = {(r.table, r.dataset, r.N, r.T, r.reading, r.model): r.paper for r in cells.itertuples()}
    shown = 0
    for heading, body in _sections(r"#### Table (\d+)\b.*reading `"):
        table = int(re.match(r"#### Table (\d+)", heading).group(1))
        if (table == 10) != (stem == "sdf_mnist"):
            continue
        reading = re.search(r"reading `([^`]+)`", heading).group(1)
        for (dataset, n, t, model), (mean, half, draws, b1, value, b2, mark) in _table_cells(table, body).items():
            m, h, k = ours[(dataset, n, t, reading, model)]
            assert (mean, half, draws) == (f"{m:.3f}", f"{h:.3f}", str(k)), (heading, dataset, n, t, model)
            printed = paper[(table, dataset, n, t, reading, model)]
            assert value == f"{printed:.3f}", (heading, dataset, n, t, model)
            outside = not (m - h <= printed <= m + h)
            assert (b1, b2) == (("**", "**") if outside else (None, None)), (heading, dataset, n, t, model)
            assert bool(mark) == (table == 8 and model in ("gcForest", "SDF")), (heading, dataset, model)
            shown += 1
    assert shown == len(cells) > 0


OFSP_CELL = re.compile(r"^(\d\.\d{3}) ± (\d\.\d{3}) \((\d+)\) / (\*\*)?(\d\.\d{3,4}|—)(\*\*)?(†)?$")
LABELS = {label: clf for clf, label in CLASSIFIERS.items()}


def _block(name):
    return REPORT.split(f"<!-- BEGIN {name} -->")[1].split(f"<!-- END {name} -->")[0]


@pytest.mark.parametrize("stem, method", [("ofsp_paper", "OFSP"), ("ofsp_leak", "OFSP, accuracy on the test fold")])
def test_every_cell_of_the_ofsp_tables_recomputes_from_the_draws(stem, method):
    """Tables 3 (accuracy) and 4 (disagreement, k >= 2) of each dataset: mean, half-width and repetitions from the
    draws file (scipy's t), the paper's value as the cells file transcribes it (3 and 4 decimals), bold exactly when
    it lies outside our interval, † exactly on Table 4's cells outside the interval of one repetition (Table 3's
    values are means by the paper's text: no †); every OFSP cell of the cells file shown once. Broken once: with the
    OFSP tables given † on Table 3 too, All-AML's k = 1 cells failed."""
    from scipy import stats

    draws = pd.read_csv(FOLDER / f"{stem}_draws.csv")
    draws = draws[draws["method"] == method]
    cells = _cells(stem)
    cells = cells[cells["model"] == method]
    paper = {(r.table, r.dataset, r.classifier, r.k): r.paper for r in cells.itertuples()}
    dataset = table = header = None
    shown = 0
    for line in _block(stem.replace("_", "-")).splitlines():
        if "(golub-3051" in line:
            dataset = "golub-3051"
        elif line.startswith("Madelon") or line.startswith("#### Madelon"):
            dataset = "madelon-500"
        table = 3 if line.startswith("Accuracy at k views") else 4 if line.startswith("Disagreement among") else table
        if line.startswith("| classifier |"):
            header = [c.strip() for c in line.strip("|").split("|")]
        elif line.startswith("| ") and header and header[1].startswith("k="):
            row = [c.strip() for c in line.strip("|").split("|")]
            for name, text in zip(header[1:], row[1:]):
                match = OFSP_CELL.match(text)
                assert match, (dataset, table, row[0], name, text)
                mean, half, reps, b1, value, b2, dagger = match.groups()
                k, clf = int(name[2:]), LABELS[row[0]]
                x = draws[(draws["dataset"] == dataset) & (draws["classifier"] == clf) & (draws["k"] == k)]
                x = x["accuracy" if table == 3 else "disagreement"]
                n, m, sd = len(x), x.mean(), x.std(ddof=1)
                h, hp = (stats.t.ppf(0.975, n - 1) * sd * np.sqrt(f) for f in (1 / n, 1 + 1 / n))
                assert (mean, half, reps) == (f"{m:.3f}", f"{h:.3f}", str(n)), (dataset, table, clf, k)
                printed = paper[(table, dataset, clf, k)]
                if np.isnan(printed):
                    assert (value, b1, dagger) == ("—", None, None), (dataset, table, clf, k)
                else:
                    assert value == f"{printed:.{3 if table == 3 else 4}f}", (dataset, table, clf, k)
                    outside = not (m - h - 1e-12 <= printed <= m + h + 1e-12)
                    assert (b1, b2) == (("**", "**") if outside else (None, None)), (dataset, table, clf, k)
                    far = table == 4 and not (m - hp - 1e-12 <= printed <= m + hp + 1e-12)
                    assert bool(dagger) == far, (dataset, table, clf, k)
                shown += 1
        elif not line.startswith("|"):
            header = None
    assert shown == len(cells) > 0


def test_the_papers_own_reading_of_table8_picks_each_cascades_best_grid_cell_from_the_draws():
    """"We take the best results from Tables 3–7": per reading, each cascade's best mean over its dataset's grid
    cells, from the draws at full precision (any of tied best settings), beside the paper's Table 8 value. Broken
    once: with ``table8_best_cells`` taking the worst cell, Ecoli's SDF failed."""
    draws = pd.read_csv(FOLDER / "sdf_paper_draws.csv")
    means = draws[draws["model"].isin(["gcForest", "SDF"])].groupby(
        ["reading", "dataset", "model", "N", "T"])["accuracy"].mean()
    shown = 0
    for heading, body in _sections(r"#### Table 8 .*reading `"):
        reading = re.search(r"reading `([^`]+)`", heading).group(1)
        part = body.split("The paper's own reading of Table 8")[1].split("\n\n", 2)[1]
        for line in part.splitlines()[2:]:
            name, model, at, ours, paper = (c.strip() for c in line.strip("|").split("|"))
            grid = means.loc[(reading, name, model)]
            best = grid.max()
            n, t = (int(v) for v in at.strip("()").split(","))
            assert abs(grid.loc[(n, t)] - best) < 1e-12, (reading, name, model)
            assert ours == f"{best:.3f}", (reading, name, model)
            assert paper == f"{PAPER_TABLE8[name][('gcForest', 'Bagging', 'RF', 'SNN', 'SDF').index(model)]:.3f}"
            shown += 1
        assert shown and shown % 12 == 0, reading  # 6 datasets x 2 cascades


def test_the_small_n_sentence_recomputes_from_the_draws_and_the_papers_tables():
    """Issue #71 item 10: the report said "Small N does not reproduce, in either reading" and "around one half" where
    17 of the 24 cells at N = 100 lay inside one draw's interval and Ionosphere's all lay above one half. Its
    sentence now says what the files show, recomputed here from the draws (Student's t intervals of the mean and of
    one more draw) and the paper's printed values. Fails when the sentence is written from anything else (tried: the
    old sentence put back)."""
    from scipy import stats

    from mvlab.reproduction.sdf_paper import PAPER

    draws = pd.read_csv(FOLDER / "sdf_paper_draws.csv")
    at = draws[(draws["reading"] == "disjoint") & (draws["N"] == 100)]
    inside = one_draw = total = 0
    per: dict[str, list[int]] = {}
    for (name, n, t, model), g in at.groupby(["dataset", "N", "T", "model"]):
        paper = PAPER.get((next(k[0] for k in PAPER if k[1] == name), name, n, t, model))
        if paper is None or len(g) < 2:
            continue
        x = g["accuracy"].to_numpy()
        q = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1)
        total += 1
        inside += abs(paper - x.mean()) <= q / np.sqrt(len(x))
        hit = abs(paper - x.mean()) <= q * np.sqrt(1 + 1 / len(x))
        one_draw += hit
        per.setdefault(name, []).append(int(hit))
    text = " ".join(REPORT.split())
    per_text = ", ".join(f"{name.capitalize()} {sum(v)} of {len(v)}" for name, v in sorted(per.items()))
    assert (f"{inside} of the paper's {total} cells {'lies' if inside == 1 else 'lie'} inside the 95 % interval of our "
            f"mean, {one_draw} inside the prediction interval of one draw ({per_text})") in text
    assert "Small N does not reproduce" not in text and "around one half" not in text
    paper = {name: [v for (tb, nm, n, _, _), v in PAPER.items() if tb < 8 and nm == name and n == 100]
             for name in ("yeast", "ionosphere")}
    near = sum(abs(v - 0.5) <= 0.02 for vs in paper.values() for v in vs)
    above = ", ".join(f"{name.capitalize()}'s {sum(v > 0.5 for v in vs)} of {len(vs)}" for name, vs in paper.items())
    assert f"{near} of the 16 within 0.02 of one half; above one half: {above}" in text
