"""OFSP's Table 3 and 4 rows as a reading (:mod:`mvlab.reproduction.ofsp_paper`): the grids of cells shared by
every OFSP reading, the protocol's section of docs/reproduction.md, the numbers its prose quotes, and its
:class:`~mvlab.reproduction.reading.Reading` record.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from mvlab.reproduction.cells import DrawsFile
from mvlab.reproduction.coverage import says_means
from mvlab.reproduction.markdown import (
    CLASSIFIER_NAMES,
    cell_text,
    count_true,
    fmt,
    generated_head,
    verdict_counts,
    verdict_line,
)
from mvlab.reproduction.ofsp_paper import (
    CLASSIFIERS,
    DATASETS,
    FIGURE_METRICS,
    N_REPEATS,
    OFSP_DRAW_COLUMNS,
    OFSP_DRAW_KEY,
    PAPER,
    PAPER_ROW,
    PAPER_TABLES,
    SPLITS_KIND,
    figure_panels,
    ofsp_cells,
    ofsp_grid,
    run_ofsp_protocol,
)
from mvlab.reproduction.reading import OFSP_OPTIONS, Reading
from mvlab.reproduction.verdicts import gap_counts, group_text, group_word

__all__ = ["READING", "TABLE3_CAPTION", "TABLE4_CAPTION", "ofsp_draws_file", "ofsp_markdown", "ofsp_tables_markdown",
           "ofsp_verdicts", "ofsp_repetitions_line", "ofsp_grid_markdown", "classifier_reading_markdown",
           "repetitions_head", "ofsp_reading", "median_gains", "paper_range", "ofsp_facts", "beside_the_protocol",
           "READING_LABELS"]

TABLE3_CAPTION = "Accuracy at k views (Table 3):"
TABLE4_CAPTION = ("Disagreement among the k members (Table 4, DM_total; two members at least, so k >= 2; the "
                  "paper's rows hold nine values, read as k = 2..10; its SVM block is lost):")
_OFSP_TABLES = ((3, TABLE3_CAPTION, 3), (4, TABLE4_CAPTION, 4))  # table, caption, the paper's printed decimals


ONE_DRAW_NOTE = ("the paper says its Table 3 values are means over its 10 repetitions, so the interval of one "
                 "repetition is not counted there (rule 1)")


def one_draw_counts(table: int) -> bool:
    """Whether the prediction interval of one repetition is a yardstick for the paper's ``table`` (rule 1): only
    where its text does not say the values are means (:func:`mvlab.reproduction.coverage.says_means`)."""
    return not says_means("ofsp", f"Table {table}")


def ofsp_draws_file(folder, stem: str = "ofsp_paper") -> DrawsFile:
    """The draws file ``<stem>_draws.csv`` of an OFSP reading in ``folder``."""
    return DrawsFile(Path(folder) / f"{stem}_draws.csv", OFSP_DRAW_COLUMNS, OFSP_DRAW_KEY)


def paper_range(dataset: str, classifier: str, table: dict = PAPER) -> tuple[float, float]:
    """The smallest and largest of the paper's printed cells of a row (``table``: Table 3's by default)."""
    values = [v for (d, c, _), v in table.items() if d == dataset and c == classifier]
    return (min(values), max(values)) if values else (np.nan, np.nan)


def ofsp_tables_markdown(part: pd.DataFrame, model: str = "OFSP", pending: bool = False) -> str:
    """``model``'s cells of one dataset in each of the paper's tables that ``part`` holds, each grid
    (:func:`ofsp_grid_markdown`, with the paper's rows not computed yet when ``pending``) under its caption; a note
    where an interval has no width (every repetition gave the same value, so any other value lies outside it)."""
    blocks = []
    for table, caption, digits in _OFSP_TABLES:
        rows = part[part["table"] == table]
        if rows.empty:
            continue
        blocks += [caption, ofsp_grid_markdown(rows, model, paper_digits=digits, pending=pending,
                                               one_draw=one_draw_counts(table))]
        mine = rows[rows["model"] == model]
        if ((mine["ci_high"] - mine["ci_low"]) == 0).any():
            blocks.append("_± 0.000: every repetition gave the same value, an interval without width that any other "
                          "value lies outside; read the gap there._")
    return "\n\n".join(blocks)


def ofsp_verdicts(cells: pd.DataFrame, model: str = "OFSP") -> str:
    """:func:`mvlab.reproduction.markdown.verdict_line` of ``model``'s cells in each of the paper's tables that
    ``cells`` holds (:data:`mvlab.reproduction.ofsp_paper.PAPER_TABLES`: Table 3 the accuracy, Table 4 the
    disagreement)."""
    mine = cells[cells["model"] == model]
    return "; ".join(f"Table {t} ({column}): {verdict_line(mine[mine['table'] == t], one_draw_counts(t))}"
                     for t, (column, _) in PAPER_TABLES.items() if (mine["table"] == t).any())


def ofsp_repetitions_line(cells: pd.DataFrame) -> str:
    """How many repetitions of the 5-fold cross-validation the intervals of ``cells`` rest on: the protocol's
    10 (:data:`mvlab.reproduction.ofsp_paper.N_REPEATS`) or the most any cell has, naming each (dataset,
    classifier) column with fewer so far."""
    full = max(N_REPEATS, int(cells["draws"].max()))
    short = cells[cells["draws"] < full].groupby(["dataset", "classifier"], sort=False)["draws"].min()
    head = f"the interval over the {full} repetitions"
    if short.empty:
        return head
    fewer = "; ".join(f"{PAPER_ROW.get(d, d)}'s {CLASSIFIER_NAMES.get(c, c)} column: {n} so far"
                      for (d, c), n in short.items())
    return f"{head} ({fewer}, still computing)"


def ofsp_grid_markdown(part: pd.DataFrame, model: str = "OFSP", paper_digits: int = 3, pending: bool = False,
                       one_draw: bool = True) -> str:
    """``model``'s cells of one dataset and table: a row per classifier, a column per k, ``ours ± half-width (draws)
    / paper`` (the paper's value with ``paper_digits`` decimals). With ``pending``, a classifier whose printed row
    (:data:`mvlab.reproduction.ofsp_paper.PAPER_TABLES`) has no cell yet gets its row too, ``not yet / paper``."""
    ks = sorted(int(k) for k in part["k"].unique())
    dataset, table = part["dataset"].iloc[0], int(part["table"].iloc[0])
    printed = PAPER_TABLES[table][1] if table in PAPER_TABLES else {}
    have = set(part["classifier"])
    waiting = {c for c in CLASSIFIER_NAMES if pending and c not in have
               and any((dataset, c, k) in printed for k in ks)}
    lines = ["| classifier | " + " | ".join(f"k={k}" for k in ks) + " |", "|---|" + "---|" * len(ks)]
    for clf in [c for c in CLASSIFIER_NAMES if c in have or c in waiting]:
        if clf in waiting:
            texts = (f"not yet / {fmt(printed.get((dataset, clf, k)), paper_digits) or '—'}" for k in ks)
            lines.append(f"| {CLASSIFIER_NAMES[clf]} (not computed yet) | " + " | ".join(texts) + " |")
            continue
        row = part[(part["classifier"] == clf) & (part["model"] == model)].set_index("k")
        texts = (cell_text(row.loc[k], paper_digits, one_draw) if k in row.index else "not run" for k in ks)
        lines.append(f"| {CLASSIFIER_NAMES[clf]} | " + " | ".join(texts) + " |")
    return "\n".join(lines)


def _method_order(name: str) -> int:
    from mvlab.experiments.view_construction_sweep import METHODS

    return METHODS.index(name) if name in METHODS else len(METHODS)


def repetitions_head(reading: Reading, draws: pd.DataFrame, how_to_read: str) -> str:
    """The first line of an OFSP reading's section: :func:`mvlab.reproduction.markdown.generated_head` with the
    number of repetitions its draws file holds."""
    what = f"{reading.draws_text(draws)}; the protocol's own folds and seeds"
    return generated_head(reading, what, how_to_read)


def ofsp_markdown(cells: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The generated section on OFSP's Table 3 and 4 rows: OFSP's accuracy and disagreement at every k beside the
    paper's, and the six methods' median, min and max of the accuracy over k (the paper's box plots, Fig. 4)."""
    if cells.empty:
        return f"_No repetition has been computed yet: run `{READING.command}`._"
    how = ("A cell reads *ours ± half-width of the 95 % t interval over the repetitions (repetitions) / the paper's*, "
           "**bold** when outside our interval of the mean, **bold†** when also outside the prediction interval of one "
           f"repetition (Table 4 alone: {ONE_DRAW_NOTE}).")
    out = [repetitions_head(READING, draws, how), ""] if head else []
    out.append(f"**OFSP's cells**: {ofsp_verdicts(cells)}. Neither dataset is the paper's own (see each heading), so "
               "a gap here measures the data as much as the method.")
    for dataset in [d for d in DATASETS if d in set(cells["dataset"])]:
        every = cells[cells["dataset"] == dataset]
        part = every[every["table"] == 3]
        methods = sorted(part["model"].unique(), key=_method_order)
        out += ["", f"#### {DATASETS[dataset]}", "", "OFSP at k views:", "", ofsp_tables_markdown(every, pending=True)]
        out += ["", "The six methods over k = 1..10 (median [min, max] of the mean accuracy; the paper's Fig. 4 "
                "box plots):", "", "| classifier | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
        for clf in [c for c in CLASSIFIER_NAMES if c in set(part["classifier"])]:
            cols = []
            for method in methods:
                m = part[(part["classifier"] == clf) & (part["model"] == method)]["mean"]
                cols.append(f"{m.median():.3f} [{m.min():.3f}, {m.max():.3f}]" if len(m) else "")
            out.append(f"| {CLASSIFIER_NAMES[clf]} | " + " | ".join(cols) + " |")
        out += ["", _figures_markdown(draws, dataset)]
    return "\n".join(out)


def _figures_markdown(draws: pd.DataFrame, dataset: str) -> str:
    """The paper's Figs. 5-7 on one dataset as a table: each method's median over k of the mean disagreement,
    seconds per fold and percentage of features kept (:func:`mvlab.reproduction.ofsp_paper.figure_panels`)."""
    formats = {"disagreement": "{:.3f}", "seconds": "{:.2f}", "percent_features": "{:.1f}"}
    panels = figure_panels(draws, dataset, metrics=tuple(formats))
    methods = list(dict.fromkeys(m for frame in panels.values() for m in frame.columns))
    lines = ["The paper's Figs. 5-7 (median over k = 1..10 of the mean over repetitions; disagreement needs two "
             "views, so k >= 2; the seconds are those of building the views and fitting the ensemble, where the "
             "paper's Fig. 6 times \"MEL using\" each method in CPU time and its lost Table 5 timed the "
             "classifiers):", "",
             "| classifier | measure | " + " | ".join(methods) + " |", "|---|---|" + "---|" * len(methods)]
    for (metric, clf), frame in panels.items():
        title, form = FIGURE_METRICS[metric], formats[metric]
        lines.append(f"| {CLASSIFIER_NAMES[clf]} | {title} | " + " | ".join(
            form.format(frame[m].median()) if m in frame and frame[m].notna().any() else "" for m in methods) + " |")
    return "\n".join(lines)


def classifier_reading_markdown(reading: Reading, cells: pd.DataFrame, draws: pd.DataFrame, *, methods, variants,
                                classifier: str, head: bool = True) -> str:
    """The section of a classifier reading (:func:`mvlab.reproduction.ofsp_paper.run_classifier_variants`): per
    dataset and method of ``methods``, the accuracy over k = 1..10 with each classifier of ``variants``, the second
    minus the first, and the paper's OFSP row with ``classifier`` (``head``: after the line that names its command
    and files)."""
    out = [repetitions_head(reading, draws, "Median [min, max] over k = 1..10 of the mean accuracy over the "
                            "repetitions.") if head else ""]
    if cells.empty:
        return out[0] + "\n\nNo repetition yet."
    for dataset in [d for d in DATASETS if d in set(cells["dataset"])]:
        part = cells[(cells["dataset"] == dataset) & (cells["table"] == 3)]
        low, high = paper_range(dataset, classifier)
        out += ["", f"{DATASETS[dataset]} (the paper's OFSP with {CLASSIFIER_NAMES[classifier]}: "
                    f"{low:.3f}-{high:.3f}):", "",
                "| method | " + " | ".join(variants) + " | difference |", "|---|---|---|---|"]
        for method in methods:
            means = [part[part["model"] == f"{method}, {v}"].set_index("k")["mean"] for v in variants]
            cols = [f"{m.median():.3f} [{m.min():.3f}, {m.max():.3f}]" if len(m) else "not run" for m in means]
            gain = (means[1] - means[0]).dropna()
            out.append(f"| {method} | " + " | ".join(cols) + " | "
                       + (f"{gain.median():+.3f} (median over k)" if len(gain) else "") + " |")
    return "\n".join(out).strip()


def median_gains(cells, methods, variants) -> dict:
    """Per method, the median over k of the second variant's mean accuracy minus the first's (Table 3's cells)."""
    part = cells[cells["table"] == 3]
    gains = {}
    for method in methods:
        a, b = (part[part["model"] == f"{method}, {v}"].set_index("k")["mean"] for v in variants)
        gains[method] = float((b - a).dropna().median())
    return gains


def _row(cells: pd.DataFrame, dataset: str, classifier: str, model: str = "OFSP", table: int = 3) -> pd.DataFrame:
    return cells[(cells["dataset"] == dataset) & (cells["classifier"] == classifier) & (cells["model"] == model)
                 & (cells["table"] == table)]


def _rank_of_ofsp(cells: pd.DataFrame, dataset: str, classifier: str) -> int:
    """OFSP's place among the six methods by the median over k of the mean accuracy (1 = best; ties share)."""
    part = cells[(cells["dataset"] == dataset) & (cells["classifier"] == classifier) & (cells["table"] == 3)]
    medians = part.groupby("model")["mean"].median()
    return int((medians > medians["OFSP"] + 1e-12).sum()) + 1


def ofsp_facts(cells: pd.DataFrame, draws: pd.DataFrame, others=None) -> dict:
    """The numbers of the report's prose on OFSP's Table 3 and 4 rows, written from the cells and draws by the
    rules of :mod:`mvlab.reproduction.verdicts`: ``summary`` (its bullet of *In short*) and ``rows`` (one line per
    dataset and classifier: ours over k against the paper's, the gap's word, OFSP's place among the six methods
    and the features it keeps); the scope from :mod:`mvlab.reproduction.coverage`."""
    from mvlab.reproduction.coverage import coverage_facts

    mine = cells[(cells["model"] == "OFSP") & (cells["table"] == 3)]
    c = verdict_counts(mine)
    lines, places = [], []
    for dataset in [d for d in DATASETS if d in set(mine["dataset"])]:
        for clf in [k for k in CLASSIFIERS if k in set(mine[mine["dataset"] == dataset]["classifier"])]:
            row = _row(cells, dataset, clf)
            low, high = paper_range(dataset, clf)
            gap = row["mean"].to_numpy() - row["paper"].to_numpy()
            kept = draws[(draws["dataset"] == dataset) & (draws["classifier"] == clf) & (draws["method"] == "OFSP")]
            kept = kept.groupby("k")["percent_features"].mean().median()
            place = _rank_of_ofsp(cells, dataset, clf)
            places.append(place)
            one = (f", {count_true(row['inside_one_draw'])} inside that of one repetition" if one_draw_counts(3)
                   else "")
            lines.append(f"- {PAPER_ROW[dataset]}, {CLASSIFIER_NAMES[clf]}: ours {row['mean'].min():.3f}–"
                         f"{row['mean'].max():.3f} over k against the paper's {low:.3f}–{high:.3f}; "
                         f"{group_text(gap)}; ours minus the paper's: mean {np.mean(gap):+.3f}, from {gap.min():+.3f} "
                         f"to {gap.max():+.3f}; {count_true(row['inside'])} of {len(row)} cells inside our "
                         f"interval{one}; OFSP {_place(place)} of the six methods by its median over k, keeping "
                         f"{kept:.1f} % of the features (median over k).")
    have = mine[mine["paper"].notna() & mine["ci_low"].notna()]
    scope = coverage_facts(others)["ofsp_scope"] if others is not None else "of Table 3's accuracy cells"
    summary = (f"{scope}. Of the {c['cells']} accuracy cells run, {c['inside']} lie inside our intervals of the "
               f"mean; by rule 5 they are {group_text(have['mean'] - have['paper'])}; OFSP is first of the six "
               f"methods in {places.count(1)} of the {len(places)} rows")
    return {"summary": summary, "rows": "\n".join(lines), "disagreement": _disagreement_lines(cells, draws),
            "svm_time": _svm_time(draws), "allaml_others": _others_line(cells, "golub-3051"),
            "allaml_others_range": _others_line(cells, "golub-3051", ranges=True),
            "allaml_places": _places_line(cells, "golub-3051"), "madelon_rows": _madelon_rows(cells)}


def _places_line(cells: pd.DataFrame, dataset: str) -> str:
    """OFSP's place among the six methods by its median accuracy over k on ``dataset``, per classifier."""
    part = cells[(cells["dataset"] == dataset) & (cells["table"] == 3)]
    return ", ".join(f"{CLASSIFIER_NAMES[c]} {_place(_rank_of_ofsp(cells, dataset, c)).removeprefix('is ')}"
                     for c in CLASSIFIER_NAMES if c in set(part["classifier"]))


def _madelon_rows(cells: pd.DataFrame) -> str:
    """Madelon's linear-SVM and KNN rows of OFSP against the paper's, each by rule 5."""
    out = []
    for clf in ("svm", "knn"):
        row = _row(cells, "madelon-500", clf)
        row = row[row["paper"].notna()]
        if len(row):
            gap = row["mean"] - row["paper"]
            out.append(f"our {CLASSIFIER_NAMES[clf]} row is {group_word(gap_counts(gap))} the paper's "
                       f"({group_text(gap).split(': ', 1)[1]})")
    return ", ".join(out) or "not computed yet"


def _place(place: int) -> str:
    words = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}
    return f"is {words.get(place, place)}"


def _disagreement_lines(cells: pd.DataFrame, draws: pd.DataFrame) -> str:
    """Per dataset and classifier with printed Table 4 cells: the paper's disagreement (median, range) against
    OFSP's (median, range), the cells inside our intervals and the word of the mean gap; and, per dataset, the
    six methods' median disagreement over k."""
    lines = []
    for dataset in [d for d in DATASETS if d in set(cells["dataset"])]:
        for clf in CLASSIFIER_NAMES:
            row = _row(cells, dataset, clf, table=4)
            row = row[row["paper"].notna()]
            if row.empty:
                continue
            gap = row["mean"] - row["paper"]
            one = (f", {count_true(row['inside_one_draw'])} inside that of one repetition" if one_draw_counts(4)
                   else "")
            lines.append(f"- {PAPER_ROW[dataset]}, {CLASSIFIER_NAMES[clf]}: the paper's {row['paper'].median():.3f} "
                         f"(median over k; {row['paper'].min():.3f}–{row['paper'].max():.3f}), ours "
                         f"{row['mean'].median():.3f} ({row['mean'].min():.3f}–{row['mean'].max():.3f}); "
                         f"{group_text(gap)}; {count_true(row['inside'])} of {len(row)} cells inside our "
                         f"interval{one}.")
        panels = figure_panels(draws, dataset, metrics=("disagreement",))
        pooled = pd.concat(list(panels.values()), ignore_index=True)  # every (classifier, k) row, a column a method
        medians = {m: pooled[m].median() for m in pooled.columns}
        others = [v for m, v in medians.items() if m != "OFSP"]
        if "OFSP" in medians and others:
            place = int(sum(v > medians["OFSP"] + 1e-12 for v in others)) + 1
            place = "the most" if place == 1 else f"the {_place(place).removeprefix('is ')} most"
            lines.append(f"- {PAPER_ROW[dataset]}, the six methods (median over k and classifiers): OFSP "
                         f"{medians['OFSP']:.3f}, the other five {min(others):.3f}–{max(others):.3f}: OFSP's "
                         f"members disagree {place}.")
    return "\n".join(lines)


def _svm_time(draws: pd.DataFrame) -> str:
    """The time of one fold of Madelon's linear-SVM column for the five methods other than the GA (k = 1..10; the
    draws' ``seconds``, the mean wall-clock per fold of building the views and fitting the ensemble), median over its
    repetitions, and OFSP's part of it. The GA is left out: its one run per fold is counted in each of its ten k."""
    part = draws[(draws["dataset"] == "madelon-500") & (draws["classifier"] == "svm") & (draws["method"] != "VC-GA")]
    if part.empty:
        return "not computed yet"
    per = part.groupby("repetition")["seconds"].sum() / 60
    ofsp = part[part["method"] == "OFSP"].groupby("repetition")["seconds"].sum() / 60
    return (f"{per.median():.1f} minutes for the five methods other than the GA (median over its {len(per)} "
            f"repetitions; {per.min():.1f}–{per.max():.1f}), OFSP {ofsp.median():.1f} of them")


def _others_line(cells: pd.DataFrame, dataset: str, ranges: bool = False) -> str:
    """Each method's median over k of the mean accuracy on ``dataset``, per classifier (``ranges``: only the range of
    those medians over the methods other than OFSP)."""
    part = cells[(cells["dataset"] == dataset) & (cells["table"] == 3)]
    out = []
    for clf in [c for c in CLASSIFIER_NAMES if c in set(part["classifier"])]:
        medians = part[part["classifier"] == clf].groupby("model")["mean"].median()
        if ranges:
            others = medians.drop("OFSP", errors="ignore")
            out.append(f"{CLASSIFIER_NAMES[clf]} {others.min():.3f}–{others.max():.3f}")
            continue
        ordered = sorted(medians.items(), key=lambda kv: _method_order(kv[0]))
        out.append(f"{CLASSIFIER_NAMES[clf]}: " + ", ".join(f"{m} {v:.3f}" for m, v in ordered))
    return ("; " if not ranges else ", ").join(out)


def ofsp_reading(name: str, title: str, reason: str, *, draw, datasets, classifiers, markdown, facts=None,
                 dataset_choices=None, classifier_choices=None, repetitions: int = N_REPEATS,
                 paper_methods=(), cells_reading: str = "10 x 5-fold") -> Reading:
    """The record of an OFSP reading whose repetitions ``draw`` computes on the protocol's folds and seeds
    (:func:`mvlab.reproduction.ofsp_paper.run_ofsp_protocol`), its cells :func:`ofsp_cells` with the paper's values
    placed for ``paper_methods``."""
    stem, default_repeats = name.replace("-", "_"), repetitions

    def tasks(datasets=datasets, classifiers=classifiers, repetitions=None, **_):
        return ofsp_grid(datasets=datasets, classifiers=classifiers, repeats=repetitions or default_repeats)

    return Reading(
        name=name, paper="ofsp", title=title, reason=reason, datasets=tuple(datasets),
        dataset_choices=tuple(dataset_choices or datasets), classifiers=tuple(classifiers),
        classifier_choices=tuple(classifier_choices or classifiers), options=OFSP_OPTIONS,
        seconds_add_up=False,
        tasks=tasks, draws_file=lambda folder: ofsp_draws_file(folder, stem),
        run=lambda path, todo, **options: run_ofsp_protocol(path, todo, draw=draw, **options),
        cells=lambda draws, folder: ofsp_cells(draws, paper_methods=paper_methods, reading=cells_reading),
        markdown=markdown, facts=facts or (lambda cells, draws, others: {}))


READING_LABELS = {"protocol": "OFSP's accuracy by inner cross-validation (the protocol)",
                  "leak": "OFSP's accuracy on the test fold (a reading)"}
"""How the protocol and the test-fold reading (:mod:`mvlab.reproduction.ofsp_leak`) are named side by side."""


def beside_the_protocol(protocol_cells: pd.DataFrame | None, leak_cells: pd.DataFrame | None) -> pd.DataFrame:
    """OFSP's cells with a printed value from either reading, stacked in one table: the protocol's ``OFSP`` rows and
    the test-fold reading's rows (all OFSP), their ``reading`` column set to :data:`READING_LABELS` (the cells of
    ``ofsp_paper_cells.csv`` and ``ofsp_leak_cells.csv``; either may be None)."""
    parts = []
    if protocol_cells is not None:
        parts.append(protocol_cells[protocol_cells["model"] == "OFSP"].assign(reading=READING_LABELS["protocol"]))
    if leak_cells is not None:
        parts.append(leak_cells.assign(reading=READING_LABELS["leak"]))
    both = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return both[both["paper"].notna()] if len(both) else both


def _figure(others):
    from mvlab.viz.reproduction_figures import ofsp_paper_against_ours

    both = beside_the_protocol(others("ofsp-paper")[0], others("ofsp-leak")[0])
    if both is None or not len(both) or both["paper"].isna().all():
        return None
    return ofsp_paper_against_ours(both)


READING = replace(ofsp_reading(
    "ofsp-paper", "Table 3 and 4's All-AML leukemia and Madelon rows at the paper's protocol",
    "The paper's own protocol as mvlab reads it: 10 x 5-fold cross-validation, k = 1..10, KNN, naive Bayes and the "
    "linear SVM, all six view constructions, OFSP's accuracy measured by an inner cross-validation of the training "
    "rows; on Golub's 3,051 filtered genes and a Madelon made by Guyon's recipe (neither is the paper's own data).",
    draw=None, datasets=tuple(DATASETS), classifiers=CLASSIFIERS, markdown=ofsp_markdown, facts=ofsp_facts,
    paper_methods=("OFSP",)), figure=_figure, store_kind=SPLITS_KIND)
"""OFSP's Table 3 and 4 rows at the paper's protocol; each repetition keeps its finished folds in the results store
(``SPLITS_KIND``), which the command line gives it."""
