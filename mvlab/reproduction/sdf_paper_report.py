"""The Siamese deep forest paper's Tables 4-9 as a reading (:mod:`mvlab.reproduction.sdf_paper`): its section of
docs/reproduction.md, the numbers the report's prose quotes, and its :class:`~mvlab.reproduction.reading.Reading`
record.

Every sentence with a number is written here from the cells and the draws, its comparative words decided by
:mod:`mvlab.reproduction.verdicts`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mvlab.reproduction.cells import DrawsFile
from mvlab.reproduction.coverage import (
    counted_once,
    printed_values_apart,
    repeats_a_grid_cell,
    repeats_its_printed_value,
    says_means,
)
from mvlab.reproduction.markdown import cell_text, count_true, fmt, generated_head, verdict_counts, verdict_line
from mvlab.reproduction.reading import SDF_OPTIONS, Reading
from mvlab.reproduction.sdf_paper import (
    DRAW_COLUMNS,
    DRAW_KEY,
    GRID_N,
    LAM_GRID,
    PAPER,
    SDF_DATASETS,
    TABLE8,
    draws_for,
    paper_cells,
    paper_grid,
    rank_tests,
    run_paper_protocol,
    table8_best_cells,
    table9,
)
from mvlab.reproduction.verdicts import ALPHA, compare_word, count_words, gap_counts, group_text

__all__ = ["READING", "sdf_markdown", "grid_markdown", "progress_line", "gap_by_n", "readings_line", "gain_line",
           "sdf_facts", "sdf_draws_file", "sdf_reading"]

TABLE_NAMES = {4: "Ecoli", 5: "Yeast", 6: "Ionosphere", 7: "Mammographic masses, Haberman and ILPD"}
REPEAT_MARK = "‡"
"""After a Table 8 cell whose draws and printed value are those of a cell of Tables 4-7 (counted there)."""


def one_draw_counts() -> bool:
    """Whether the prediction interval of one draw is a yardstick for the paper's Tables 4-8 (rule 1): not where the
    paper says its values are means (:func:`mvlab.reproduction.coverage.says_means`)."""
    return not all(says_means("sdf", f"Table {t}") for t in range(4, 9))


def means_note() -> str:
    """What the paper says of its values and what follows for the one-draw yardstick."""
    from mvlab.reproduction.coverage import ITEMS

    if one_draw_counts():
        return "The prediction interval of one draw is counted (rule 1)."
    words = next(i.means for i in ITEMS if i.paper == "sdf" and i.name == "Table 4")
    return (f"The paper says its values are means ({words}), so the prediction interval of one draw is not "
            "counted for them (rule 1).")


def sdf_draws_file(folder, stem: str = "sdf_paper") -> DrawsFile:
    """The draws file ``<stem>_draws.csv`` of a Siamese-deep-forest reading in ``folder``."""
    return DrawsFile(Path(folder) / f"{stem}_draws.csv", DRAW_COLUMNS, DRAW_KEY)


def grid_markdown(cells: pd.DataFrame) -> str:
    """Rows N, columns T x {gcForest, SDF}: ``ours ± CI half-width (draws) / paper``."""
    Ts = sorted(cells["T"].unique())
    head = "| N | " + " | ".join(f"T={t} gcF | T={t} SDF" for t in Ts) + " |"
    lines = [head, "|---|" + "---|" * (2 * len(Ts))]
    for n in sorted(cells["N"].unique()):
        parts = []
        for t in Ts:
            for model in ("gcForest", "SDF"):
                hit = cells[(cells["N"] == n) & (cells["T"] == t) & (cells["model"] == model)]
                parts.append(cell_text(hit.iloc[0] if len(hit) else None, one_draw=one_draw_counts()))
        lines.append(f"| {n} | " + " | ".join(parts) + " |")
    return "\n".join(lines)


def progress_line(draws: pd.DataFrame, workers: int = 2) -> str:
    """How much of the protocol's grid (:func:`mvlab.reproduction.sdf_paper.paper_grid`) the draws cover, and
    what the rest should cost: each missing draw at the median time of the last five draws of its (N, T) (the
    most recent code), on ``workers`` engine workers; once every draw is there, that the grid is complete and
    what it cost."""
    per_draw = draws.groupby(DRAW_KEY, sort=False)["seconds"].sum().reset_index()
    drawn = list(per_draw[DRAW_KEY].itertuples(index=False, name=None))
    grid = paper_grid()
    done = set(drawn)
    todo = [t for t in grid if t.key not in done]
    if not todo:
        keys = {t.key for t in grid}
        in_grid = [key in keys for key in drawn]
        return (f"complete: all {len(grid)} draws of the grid computed, "
                f"{per_draw.loc[in_grid, 'seconds'].sum() / 3600:.1f} h of model fitting")
    recent = per_draw.groupby(["N", "T"])["seconds"].apply(lambda s: float(s.tail(5).median()))
    hours = sum(recent.get((t.N, t.T), recent.max() if len(recent) else 0.0) for t in todo) / 3600
    return (f"{len(grid) - len(todo)} of the grid's {len(grid)} draws computed; the {len(todo)} left are about "
            f"{hours:.1f} h of model fitting, {hours / workers:.1f} h of this machine on its {workers} engine workers "
            f"(each at the median time of the last five draws of its N and T)")


def gap_by_n(cells: pd.DataFrame) -> str:
    """Per number of training pairs N and reading (cells of Tables 4-7), the cells' verdict by rule 5 of
    :mod:`mvlab.reproduction.verdicts`: how many near, above and below the paper's, and the mean ``|gap|``."""
    have = cells[(cells["table"] < 8) & cells["paper"].notna()]
    parts = []
    for n, group in have.groupby("N"):
        by_reading = ", ".join(f"{r} {group_text(g['mean'] - g['paper'])}" for r, g in group.groupby("reading"))
        parts.append(f"N = {n}: {by_reading}")
    return "; ".join(parts) or "no cell yet"


def _both_readings(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells run in both pair-sampling readings (same table, dataset, N, T and model, with a paper value and an
    interval in both), one row each with the columns (measure, reading)."""
    have = cells[cells["paper"].notna() & cells["ci_low"].notna()]
    if have.empty or have["reading"].nunique() < 2:
        return pd.DataFrame()
    key = ["table", "dataset", "N", "T", "model"]
    wide = have.pivot_table(index=key, columns="reading", values=["mean", "paper", "inside"], aggfunc="first")
    return wide.dropna(subset=[("mean", "disjoint"), ("mean", "shared")])


def readings_line(cells: pd.DataFrame) -> str:
    """The two pair-sampling readings on the cells run both ways (each counted once), per N: how far each lands from
    the paper's cells on average and how many of those cells lie inside its intervals, and which reading lies closer
    (smaller mean absolute gap; equal gaps a tie), and in how many cells ``shared`` scores above ``disjoint``."""
    wide = _both_readings(counted_once(cells))
    if wide.empty:
        return "not yet measured (no cell with an interval in both readings)"
    parts = []
    for n, group in wide.groupby(level="N"):
        paper = group[("paper", "disjoint")]
        stats = {}
        for reading in ("disjoint", "shared"):
            gap = group[("mean", reading)] - paper
            stats[reading] = (gap.mean(), gap.abs().mean(), count_true(group[("inside", reading)]))
        word = compare_word(stats["shared"][1], stats["disjoint"][1])
        closer = {"higher": "`disjoint`", "lower": "`shared`", "level": "neither (a tie)"}[word]
        above = int((group[("mean", "shared")] > group[("mean", "disjoint")]).sum())
        parts.append(f"N = {n} ({len(group)} cells): " + ", ".join(
            f"`{r}` {m:+.3f} (mean |gap| {a:.3f}, {k} inside)" for r, (m, a, k) in stats.items())
            + f", closer: {closer}, `shared` above `disjoint` in {above} of {len(group)}")
    return "; ".join(parts)


def _gains(part: pd.DataFrame, values: str) -> pd.Series:
    """SDF minus gcForest per (dataset, N, T) of ``part``, from its column ``values`` (``mean`` or ``paper``)."""
    wide = part.pivot_table(index=["dataset", "N", "T"], columns="model", values=values, dropna=False)
    if "SDF" not in wide or "gcForest" not in wide:
        return pd.Series(dtype=float)
    return (wide["SDF"] - wide["gcForest"]).dropna()


def _counted(gains: pd.Series) -> str:
    c = count_words(gains)
    return f"higher in {c['higher']}, level in {c['level']}, lower in {c['lower']}"


def gain_line(part: pd.DataFrame) -> str:
    """SDF minus gcForest over the cells of a table, ours and the paper's, with how many cells SDF is higher, level
    (a tie: equal means) and lower (:func:`mvlab.reproduction.verdicts.compare_word`)."""
    ours, paper = _gains(part, "mean"), _gains(part, "paper")
    if ours.empty or paper.empty:
        return ""
    return (f"SDF − gcForest: ours {ours.mean():+.3f} on average over {len(ours)} cell{'s' if len(ours) != 1 else ''} "
            f"(SDF {_counted(ours)}), the "
            f"paper's {paper.mean():+.3f} (SDF {_counted(paper)}).")


def _table9_significance(row: dict) -> str:
    """Rule 4 of :mod:`mvlab.reproduction.verdicts`, its first half, on one row of
    :func:`mvlab.reproduction.sdf_paper.table9`: significant as the paper tests it, or not."""
    significant = row["p"] < ALPHA and np.sign(row["mean"]) == np.sign(row["paper mean"])
    return f"{'significant' if significant else 'not significant'} as the paper tests it"


def _table9_verdict(row: dict) -> str:
    """Rule 4 of :mod:`mvlab.reproduction.verdicts` on one row of :func:`mvlab.reproduction.sdf_paper.table9`, in
    words with the numbers it rests on."""
    size = row["ci_low"] <= row["paper mean"] <= row["ci_high"]
    return (f"{_table9_significance(row)} (p = {fmt(row['p'])}), its size {'reproduced' if size else 'not reproduced'} "
            f"(ours {row['mean']:+.3f} [{fmt(row['ci_low'])}, {fmt(row['ci_high'])}], the paper's "
            f"{row['paper mean']:+.3f})")


def sdf_markdown(cells: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The generated section on the Siamese deep forest paper: per table and reading, the cells beside the
    paper's, the verdict, the SDF - gcForest gain, Table 8 (fixed setting, the cell each printed value came from,
    and the paper's best-cell reading) and Table 9."""
    if cells.empty:
        return f"_No draw has been computed yet: run `{READING.command}`._"
    out = [generated_head(READING, f"{len(draws)} rows, {READING.count_draws(draws)} draws, "
                          f"{draws['seconds'].sum() / 3600:.1f} h of model fitting",
                          "A cell reads *ours ± half-width of the 95 % t interval (draws) / the paper's*; the "
                          "paper's value is **bold** when it lies outside our interval of the mean"
                          + (", **bold†** when also outside the prediction interval of one draw"
                             if one_draw_counts() else "") + f"; {REPEAT_MARK} marks a Table 8 cell whose draws are "
                          "a cell's of Tables 4–7 (N = 2000, T = 700), the draws counted there only."),
                          ""] if head else []
    one = one_draw_counts()
    once = counted_once(cells)
    out.append(f"**Progress**: {progress_line(draws)}.")
    out.append(means_note())
    by = once[once["paper"].notna()].groupby("reading").size().to_dict()
    again = " (the same printed cells compared again under " + ", ".join(
        f"`{r}`: {n}" for r, n in sorted(by.items()) if r != "disjoint") + ")" if len(by) > 1 else ""
    out.append(f"**All comparisons with draws of their own**, each draw counted once, over both pair-sampling "
               f"readings{again}; Table 8's printed values of their own for a grid cell's draws are compared apart, "
               f"in its captions: {verdict_line(once, one, of='comparisons with a printed cell')}.")
    for reading in sorted(cells["reading"].unique()):
        out.append(f"- reading `{reading}`: {verdict_line(once[once['reading'] == reading], one)}.")
    out.append(f"- ours against the paper's by N (Tables 4–7, every cell with a paper value, by rule 5): "
               f"{gap_by_n(cells)}.")
    out.append(f"- which pair sampling the paper's numbers fit: {readings_line(cells)}.")
    for table in (4, 5, 6, 7):
        for reading in sorted(cells["reading"].unique()):
            part = cells[(cells["table"] == table) & (cells["reading"] == reading)]
            if part.empty:
                continue
            out += ["", f"#### Table {table} ({TABLE_NAMES[table]}), reading `{reading}`", "",
                    f"Verdict: {verdict_line(part, one_draw_counts())}."]
            gain = gain_line(part)
            if gain:
                out.append(gain)
            for name in sorted(part["dataset"].unique()):
                if table == 7:
                    out += ["", f"{name}:"]
                out += ["", grid_markdown(part[part["dataset"] == name])]
    for reading in sorted(cells["reading"].unique()):
        out += _table8_markdown(cells, reading)
    return "\n".join(out)


def _table8_markdown(cells: pd.DataFrame, reading: str) -> list[str]:
    """Table 8 at the fixed setting with the cell each printed value came from, the paper's best-cell reading,
    and Table 9, for one pair-sampling reading."""
    t8 = cells[(cells["table"] == 8) & (cells["reading"] == reading)]
    if t8.empty:
        return []
    repeats = repeats_a_grid_cell(cells).loc[t8.index]
    same_value = int(repeats_its_printed_value(cells).loc[t8.index].sum())
    own = printed_values_apart(cells[cells["reading"] == reading])
    out = ["", f"#### Table 8 (N = 2000, T = 700 for every model, fixed in advance), reading `{reading}`", "",
           f"Verdict: {verdict_line(t8, one_draw_counts())}; {int(repeats.sum())} of these {len(t8)} cells "
           f"({REPEAT_MARK}) repeat the draws of a cell of Tables 4–7, {same_value} of them its printed value "
           "too: their draws are counted there in every total; the others' printed values, compared apart with those "
           f"draws: {group_text(own['mean'] - own['paper'])}. The paper's SNN (a Siamese neural network) is "
           "not run: mvlab depends on no neural-network library.", "", "| dataset | gcForest | Bagging | RF | SDF |",
           "|---|---|---|---|---|"]
    for name in sorted(t8["dataset"].unique()):
        row = [name]
        for model in ("gcForest", "Bagging", "RF", "SDF"):
            hit = t8[(t8["dataset"] == name) & (t8["model"] == model)]
            mark = REPEAT_MARK if len(hit) and repeats.loc[hit.index[0]] else ""
            row.append(cell_text(hit.iloc[0] if len(hit) else None, one_draw=one_draw_counts(), mark=mark))
        out.append("| " + " | ".join(row) + " |")
    sources = t8[t8["model"].isin(["gcForest", "SDF"])]
    out += ["", "Where the paper's Table 8 values were printed before (its cells of Tables 4–7 with the same value; "
            "the `paper_source` column of the cells file):", "", "| dataset | gcForest | SDF |", "|---|---|---|"]
    for name in sorted(sources["dataset"].unique()):
        mine = sources[sources["dataset"] == name].set_index("model")["paper_source"]
        out.append(f"| {name} | {mine.get('gcForest', '')} | {mine.get('SDF', '')} |")
    best = table8_best_cells(cells, reading)
    if not best.empty:
        out += ["", "The paper's own reading of Table 8 (\"we take the best results from Tables 3–7\"): the best "
                "mean of each cascade over the dataset's grid, chosen on the test draws, so optimistic by the "
                "selection:", "", "| dataset | model | best at (N, T) | ours | paper |", "|---|---|---|---|---|"]
        for r in best.itertuples(index=False):
            out.append(f"| {r.dataset} | {r.model} | ({r.N}, {r.T}) | {r.mean:.3f} | {fmt(r.paper)} |")
    t9 = table9(cells, reading)
    if not t9.empty:
        out += ["", f"Table 9, reading `{reading}`: paired t-tests over the datasets we have (SDF minus each model, "
                f"Table 8's cells), beside the paper's over its {len(TABLE8)} datasets and the paper's own rows "
                "restricted to ours; the verdict by the rules above:", "",
                "| difference | datasets | p | mean | 95 % CI | paper p | paper mean [CI] | paper on our "
                "datasets: p, mean | verdict |", "|---|---|---|---|---|---|---|---|---|"]
        for r in t9.to_dict("records"):
            out.append(f"| {r['difference']} | {r['datasets']} | {fmt(r['p'])} | {r['mean']:+.3f} | "
                       f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}] | {r['paper p']} | "
                       f"{r['paper mean']:+.3f} {r['paper CI']} | {fmt(r['paper, same datasets: p'])}, "
                       f"{r['paper, same datasets: mean']:+.3f} | {_table9_significance(r)} |")
    return out + _rank_tests_markdown(cells, reading)


def _significant(row: dict) -> str:
    """Our Friedman test of one row of :func:`mvlab.reproduction.sdf_paper.rank_tests` in words: significant (p below
    the paper's level, :data:`mvlab.reproduction.verdicts.ALPHA`) in SDF's favour or against it, or not; an empty
    string for a test not run."""
    if not np.isfinite(row["friedman p"]):
        return ""
    if row["friedman p"] >= ALPHA:
        return "not significant"
    return "significant, SDF higher" if row["higher"] > row["lower"] else "significant, SDF lower"


def _rank_tests_markdown(cells: pd.DataFrame, reading: str) -> list[str]:
    """The rank tests of the paper's §8 (:func:`mvlab.reproduction.sdf_paper.rank_tests`) for one reading: a table,
    and what the paper's own Table 8 gives under the same tests."""
    rt = rank_tests(cells, reading)
    if rt.empty:
        return []
    ours = rt[rt["datasets"] > 0]
    out = ["", f"The rank tests of §8, reading `{reading}`: the Friedman test of SDF against each model alone (two "
           f"methods ranked within each of our {int(ours['datasets'].max())} datasets) and Bonferroni–Dunn's test with "
           f"SDF as the control among the {len(ours) + 1} models we run (Table 8's cells), beside the paper's printed "
           f"p-values and both tests recomputed from the paper's Table 8 ({len(TABLE8)} datasets, "
           f"{len(rt) + 1} models):", "",
           "| difference | datasets | SDF higher, lower | Friedman p | Bonferroni–Dunn p | paper's Friedman p | "
           "paper's Table 8: Friedman p, Bonferroni–Dunn p | ours, Friedman |", "|---|---|---|---|---|---|---|---|"]
    for r in rt.to_dict("records"):
        counts = f"{r['higher']}, {r['lower']}" if r["datasets"] > 0 else ""
        out.append(f"| {r['difference']} | {r['datasets'] or 'not run'} | {counts} | {fmt(r['friedman p'], 4)} | "
                   f"{fmt(r['dunn p'], 4)} | {r['paper p']} | {fmt(r['paper recomputed: friedman p'], 4)}, "
                   f"{fmt(r['paper recomputed: dunn p'], 4)} | {_significant(r)} |")
    paper = (rank_tests_paper_sentence(rt) if reading == "disjoint" else
             "The paper's own Table 8 under these tests: as under reading `disjoint` above.")
    return out + ["", paper]


def rank_tests_paper_sentence(rt: pd.DataFrame) -> str:
    """What the paper's own Table 8 gives under its §8 tests, against what it printed: whether every Friedman p-value
    recomputes to its printed rounding, and Bonferroni–Dunn's significant and non-significant differences against
    its sentence (only SDF - SNN significant, p = 0.028)."""
    from mvlab.reproduction.sdf_paper import RANK_TESTS_BONFERRONI_DUNN

    same = [round(r["paper recomputed: friedman p"], 4) == r["paper p"] for r in rt.to_dict("records")]
    friedman = ("recomputes to the printed p-value for every difference" if all(same) else
                f"recomputes to the printed p-value for {sum(same)} of {len(same)} differences")
    dunn = rt.set_index("difference")["paper recomputed: dunn p"]
    significant = [d for d, p in dunn.items() if p < ALPHA]
    other = [d for d, p in dunn.items() if p >= ALPHA]
    claimed, claimed_p = RANK_TESTS_BONFERRONI_DUNN
    agrees = significant == [f"SDF - {claimed}"]
    listed = {name: ", ".join(f"{d} (p = {fmt(dunn[d], 4)})" for d in group) for name, group in
              (("significant", significant), ("other", other))}
    return (f"On the paper's own Table 8, the Friedman test of each difference alone {friedman} (the p-values of "
            f"χ² with one degree of freedom). Bonferroni–Dunn's test with SDF as the control among its five models "
            f"finds {listed['significant'] or 'no difference'} significant and {listed['other'] or 'none'} not; the "
            f"paper says only "
            f"SDF - {claimed} is (p = {claimed_p}), which "
            f"{'this reading recovers' if agrees else 'this reading of the test does not recover from the table'}.")


def _halfwidths(part: pd.DataFrame) -> str:
    """The range of the 95 % intervals' half-widths per N (cells with an interval)."""
    half = (part["ci_high"] - part["ci_low"]) / 2
    by_n = half.groupby(part["N"]).agg(["min", "max"]).dropna()
    return "; ".join(f"N = {n}: {r['min']:.3f}–{r['max']:.3f}" for n, r in by_n.iterrows())


def _by_n_lines(part: pd.DataFrame) -> list[str]:
    """Per N, the verdict of ``part``'s cells by rule 5 (:func:`mvlab.reproduction.verdicts.group_text`: how many
    near, above, below, the mean ``|gap|``), how many lie inside our interval, and the signed mean and range beside."""
    lines = []
    for n, group in part.groupby("N"):
        c = verdict_counts(group)
        if c["cells"]:
            have = group[group["paper"].notna() & group["ci_low"].notna()]
            lines.append(f"  - N = {n}: {group_text(have['mean'] - have['paper'])}; {c['inside']} inside our "
                         f"interval; ours minus the paper's: mean {c['mean']:+.3f}, from {c['low']:+.3f} to "
                         f"{c['high']:+.3f}.")
    return lines


def _single_run_grain(cells: pd.DataFrame) -> str:
    """How many of the paper's cells at N = 100 are a whole number of right test pairs out of 66 (2N/3 rounded
    down) and out of 67 (rounded up, as mvlab draws them), to the printed three decimals, the mark of a single run
    rather than a mean of many; and how many a value drawn at random would give (the printed rounding's window,
    0.001, over the spacing 1/m)."""
    part = cells[(cells["table"] < 8) & (cells["N"] == 100) & (cells["reading"] == "disjoint") & cells["paper"].notna()]
    if part.empty:
        return "no paper cell at N = 100 computed yet"
    counts = {}
    for m in (66, 67):
        right = part["paper"].to_numpy() * m
        counts[m] = int((np.abs(right - np.round(right)) / m <= 0.0005 + 1e-9).sum())
    return (f"{counts[66]} of the paper's {len(part)} cells at N = 100 are a whole number of right pairs out of 66 "
            f"test pairs (2N/3 rounded down) to the printed three decimals, {counts[67]} out of 67 (rounded up, as "
            f"mvlab draws them); values drawn at random would give about {len(part) * 0.066:.1f} and "
            f"{len(part) * 0.067:.1f}")


def gain_comparison(main: pd.DataFrame) -> str:
    """SDF minus gcForest over ``main``'s cells, ours against the paper's: the two means, then the verdict of rule 5
    cell by cell (ours minus the paper's gain) over all the cells and per table, never a word on the means alone;
    and how many cells a gain of zero would make near the paper's (when the paper's gains are as small as the
    margin, *near* cannot tell them from none)."""
    both = _gain_pairs(main)
    if both.empty:
        return "not comparable yet"
    per_table = "; ".join(f"Table {t}: {group_text(g['ours'] - g['paper'])}" for t, g in both.groupby("table"))
    zero_near = gap_counts(-both["paper"])["near"]
    cells = group_text(both["ours"] - both["paper"])
    return (f"ours {both['ours'].mean():+.3f} against the paper's {both['paper'].mean():+.3f} (means over "
            f"{len(both)} cells); cell by cell, ours minus the paper's gain: {cells} ({per_table}); a gain of zero in "
            f"every cell would be near the paper's in {zero_near} of the {len(both)}")


def _gain_pairs(main: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, N, T) of ``main``: ``table``, SDF minus gcForest in ours (``ours``) and in the paper
    (``paper``), the cells with both."""
    tables = main.drop_duplicates(["dataset", "N", "T"]).set_index(["dataset", "N", "T"])["table"]
    return pd.concat([_gains(main, "mean").rename("ours"), _gains(main, "paper").rename("paper"), tables],
                     axis=1, join="inner").dropna()


def sdf_facts(cells: pd.DataFrame, draws: pd.DataFrame, others=None) -> dict:
    """The numbers of the report's prose on the Siamese deep forest paper: ``summary`` (its bullet of *In short*)
    and ``findings`` (what the draws say), written from the cells and draws by the rules of
    :mod:`mvlab.reproduction.verdicts`; the scope (how many of the paper's cells) from
    :mod:`mvlab.reproduction.coverage`, each cell counted once."""
    from mvlab.reproduction.coverage import coverage_facts

    main = cells[(cells["reading"] == "disjoint") & (cells["table"] < 8)]
    once = counted_once(cells[cells["reading"] == "disjoint"])
    have = once[once["paper"].notna() & once["ci_low"].notna()]
    t8 = have[have["table"] == 8]
    disjoint = cells[cells["reading"] == "disjoint"]
    own_value = printed_values_apart(disjoint)
    c = verdict_counts(once)
    t9 = table9(cells, "disjoint")
    gc = t9[t9["difference"] == "SDF - gcForest"].to_dict("records") if len(t9) else []
    gain_test = _table9_verdict(gc[0]) if gc else "not computed (no Table 8 cell in two datasets yet)"
    ours, paper = _gains(main, "mean"), _gains(main, "paper")
    by_n = "; ".join(f"N = {n}: {group_text(g['mean'] - g['paper'])}"
                     for n, g in main[main["paper"].notna()].groupby("N"))
    scope = coverage_facts(others)["sdf_scope"] if others is not None else "of the paper's cells of Tables 4–8"
    summary = (f"{scope}. With test pairs from instances unseen in training (`disjoint`), {c['inside']} of those "
               f"{c['cells']} lie inside our 95 % interval; by rule 5 they are "
               f"{group_text(have['mean'] - have['paper'])}. By N (Tables 4–7): {by_n}; Table 8's cells with draws "
               f"of their own ({', '.join(sorted(t8['model'].unique()))}): "
               f"{group_text(t8['mean'] - t8['paper'])}; "
               f"Table 8's printed values of their own for a grid cell's draws (compared apart, those draws counted "
               f"once above): {group_text(own_value['mean'] - own_value['paper'])}. SDF − gcForest over Tables 4–7: "
               f"{gain_comparison(main)}; "
               f"Table 9's test of SDF − gcForest: {gain_test}. Progress of the grid: {progress_line(draws)}")
    findings = [f"- *The intervals*: half-widths of the 95 % t intervals by N (Tables 4–7, `disjoint`: "
                f"{_halfwidths(main)}); with 5 draws "
                "at N = 2000, the t quantile widens them.",
                "- *By N* (Tables 4–7, `disjoint`; rule 5):", *_by_n_lines(main),
                f"- *Which pair sampling fits* (the cells run both ways): {readings_line(cells)}.",
                f"- *The SDF gain over gcForest* (Tables 4–7, `disjoint`): SDF {_counted(ours)} of {len(ours)} cells "
                f"in ours, {_counted(paper)} in the paper's; {gain_comparison(main)}. Table 9's test (Table 8's "
                f"setting, our {main['dataset'].nunique()} datasets): {gain_test}.",
                f"- *Single runs?* {_single_run_grain(cells)}. {means_note()}"]
    small = main[main["N"] == 100]["mean"]
    both = _gain_pairs(main)
    gain_word = (f"{group_text(both['ours'] - both['paper'])}; a gain of zero in every cell would be near in "
                 f"{gap_counts(-both['paper'])['near']} of them" if len(both) else "not comparable yet")
    return {"summary": summary, "findings": "\n".join(findings), "halfwidths": _halfwidths(main),
            "n100_range": f"{small.min():.3f}–{small.max():.3f}" if len(small) else "no cell yet",
            "n100_paper_range": _paper_range_at_100(("yeast", "ionosphere")),
            "n100_inside": _inside_at_100(main), "n100_half": _near_half_at_100(("yeast", "ionosphere")),
            "gain_word": gain_word,
            "lam_grid": ", ".join(f"{v:g}" for v in LAM_GRID), "paper_table9": _paper_table9()}


def _inside_at_100(main: pd.DataFrame) -> str:
    """How many of the paper's cells at N = 100 (Tables 4-7, ``main``) lie inside our interval of the mean and inside
    the prediction interval of one draw, the latter per dataset, in words."""
    at = main[(main["N"] == 100) & main["paper"].notna() & main["pi_low"].notna()]
    if not len(at):
        return "no cell at N = 100 has its draws yet"
    per = ", ".join(f"{name.capitalize()} {int(g['inside_one_draw'].sum())} of {len(g)}"
                    for name, g in at.groupby("dataset"))
    inside = int(at["inside"].sum())
    return (f"{inside} of the paper's {len(at)} cells {'lies' if inside == 1 else 'lie'} inside the 95 % interval of "
            f"our mean, "
            f"{int(at['inside_one_draw'].sum())} inside the prediction interval of one draw ({per})")


def _near_half_at_100(datasets, margin: float = 0.02) -> str:
    """How close the paper's cells at N = 100 on ``datasets`` are to one half, in words: how many lie within
    ``margin`` of it, and how many of each dataset's lie above it."""
    values = {name: [v for (t, n_, n, _, _), v in PAPER.items() if t < 8 and n_ == name and n == 100]
              for name in datasets}
    every = [v for vs in values.values() for v in vs]
    near = sum(abs(v - 0.5) <= margin for v in every)
    above = ", ".join(f"{name.capitalize()}'s {sum(v > 0.5 for v in vs)} of {len(vs)}" for name, vs in values.items())
    return f"{near} of the {len(every)} within {margin:g} of one half; above one half: {above}"


def _paper_range_at_100(datasets) -> str:
    """The smallest and largest of the paper's cells at N = 100 on ``datasets`` (Tables 4-6)."""
    values = [v for (t, name, n, _, _), v in PAPER.items() if t < 8 and name in datasets and n == 100]
    return f"{min(values):.3f}–{max(values):.3f}"


def _paper_table9() -> str:
    """The paper's SDF − gcForest test recomputed from its Table 8 (all ten datasets) by :mod:`mvlab.stats`."""
    from mvlab.stats import paired_t_test

    sdf, gc = zip(*((v[4], v[0]) for v in TABLE8.values()))
    r = paired_t_test(np.array(sdf), np.array(gc))
    return (f"p = {r.p_value:.4f}, mean {r.mean_difference:.4f}, 95 % CI [{r.ci_low:.4f}, {r.ci_high:.4f}]")


def _tasks(datasets=SDF_DATASETS, readings=("disjoint", "shared"), repetitions=None, pairs_grid=None,
           trees_grid=None, draws_scale: float = 1.0, **_):
    draws = (lambda n: repetitions) if repetitions else (lambda n: draws_for(n, draws_scale))
    return paper_grid(datasets=datasets, readings=readings, draws=draws, Ns=pairs_grid, Ts=trees_grid)


def _figure(others):
    from mvlab.viz.reproduction_figures import sdf_paper_against_ours

    cells = others("sdf-paper")[0]
    if cells is None or not len(cells) or cells["paper"].isna().all():
        return None
    return sdf_paper_against_ours(counted_once(cells))


READING = Reading(
    name="sdf-paper", paper="sdf", title="Tables 4–9 on the paper's own datasets, cell by cell",
    reason="The paper's protocol as mvlab reads it: N training and 2N/3 test pairs, gcForest and SDF on the same "
           "pairs and first-level trees, λ chosen on the training pairs only; test pairs from unseen instances "
           "(`disjoint`) or from one shared pool (`shared`), which the paper does not say.",
    datasets=SDF_DATASETS, dataset_choices=SDF_DATASETS, options=SDF_OPTIONS,
    extra_options={"--readings": {"nargs": "+", "default": ["disjoint", "shared"], "choices": ["disjoint", "shared"],
                                  "help": "pair-sampling readings to run (default both)"},
                   "--draws-scale": {"type": float, "default": 1.0,
                                     "help": "draws per cell times this (1: 10 for N <= 1000, 5 for N = 2000)"}},
    tasks=_tasks, draws_file=sdf_draws_file, run=run_paper_protocol,
    cells=lambda draws, folder: paper_cells(draws), markdown=sdf_markdown, facts=sdf_facts, figure=_figure)
"""The main protocol of the Siamese deep forest paper (Tables 4-9)."""



def sdf_reading(name: str, title: str, reason: str, *, grid, datasets, dataset_choices=None, summary, markdown,
                facts=None, trees: tuple = (100,)) -> Reading:
    """The record of a Siamese-deep-forest reading whose draws ``grid(datasets=..., Ns=..., Ts=..., draws=...)``
    lists (the main protocol's pairs and seeds, at the numbers of trees ``trees`` by default) and whose cells are
    ``summary(draws, folder)``."""
    stem = name.replace("-", "_")

    def tasks(datasets=datasets, repetitions=None, pairs_grid=None, trees_grid=None, **_):
        draws = (lambda n: repetitions) if repetitions else draws_for
        return grid(datasets=datasets, Ns=pairs_grid or GRID_N, Ts=tuple(trees_grid or trees), draws=draws)

    return Reading(name=name, paper="sdf", title=title, reason=reason, datasets=tuple(datasets),
                   dataset_choices=tuple(dataset_choices or datasets), options=SDF_OPTIONS,
                   tasks=tasks, draws_file=lambda folder: sdf_draws_file(folder, stem), run=run_paper_protocol,
                   cells=summary, markdown=markdown, facts=facts or (lambda cells, draws, others: {}))
