"""Writing the papers' cells files and the generated sections of docs/reproduction.md from the draws.

Nothing here computes a model: the cells come from the committed draws files
(:mod:`mvlab.reproduction.sdf_paper`), and the report's generated sections are rewritten between their
markers (``<!-- BEGIN name -->`` ... ``<!-- END name -->``), the rest of the report being left as written.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mvlab.core import resources
from mvlab.reproduction.cells import DrawsFile

__all__ = ["REPRODUCTION_DIR", "RESULTS_STEMS", "CLASSIFIER_NAMES", "read_draws", "replace_section", "sdf_markdown",
           "write_sdf_outputs", "verdict_line", "read_cells", "cell_table", "grid_markdown", "gap_by_n",
           "readings_line", "progress_line", "ofsp_markdown", "ofsp_grid_markdown", "write_ofsp_outputs",
           "lambda_markdown", "write_sdf_lambda_outputs", "readings_markdown", "write_sdf_readings_outputs",
           "ofsp_leak_markdown", "write_ofsp_leak_outputs", "ofsp_verdicts", "ofsp_repetitions_line",
           "ofsp_tables_markdown",
           "TABLE3_CAPTION", "TABLE4_CAPTION",
           "ofsp_knn_markdown", "write_ofsp_knn_outputs", "ofsp_svm_range_markdown", "write_ofsp_svm_range_outputs",
           "madelon_generator_markdown", "write_madelon_generator_outputs"]

REPRODUCTION_DIR = resources.path("docs", "reproduction")
"""The committed draws and cells files (``*_paper_draws.csv``, ``*_paper_cells.csv``)."""


RESULTS_STEMS = {"sdf": "sdf_paper", "ofsp": "ofsp_paper", "ofsp_leak": "ofsp_leak", "ofsp_knn": "ofsp_knn",
                 "ofsp_svm_range": "ofsp_svm_range", "madelon_generator": "madelon_generator"}
"""The committed results by name, as the stems of their ``<stem>_draws.csv`` and ``<stem>_cells.csv``: the two
papers' protocols and the OFSP readings (:mod:`mvlab.reproduction.ofsp_leak`, :mod:`mvlab.reproduction.ofsp_knn`,
:mod:`mvlab.reproduction.ofsp_svm_range`, :mod:`mvlab.reproduction.madelon_generator`)."""


def read_draws(paper: str, folder=None) -> pd.DataFrame | None:
    """The committed draws of ``paper`` (a key of :data:`RESULTS_STEMS`), or None when none were computed yet."""
    path = Path(folder or REPRODUCTION_DIR) / f"{RESULTS_STEMS[paper]}_draws.csv"
    return pd.read_csv(path) if path.exists() else None


def read_cells(paper: str, folder=None) -> pd.DataFrame | None:
    """The committed cells of ``paper`` (a key of :data:`RESULTS_STEMS`), or None when none were computed yet."""
    path = Path(folder or REPRODUCTION_DIR) / f"{RESULTS_STEMS[paper]}_cells.csv"
    if not path.exists():
        return None
    cells = pd.read_csv(path)
    cells["inside"] = cells["inside"].map({True: True, False: False, "True": True, "False": False})
    return cells


def cell_table(cells: pd.DataFrame, link) -> pd.DataFrame:
    """The cells of one table, one row each, for a reader: the setting (those of N, T, classifier and k that
    apply), ours (mean, 95 % interval shown within [0, 1], draws),
    the paper's value, whether it lies inside, and ``link(row)``: where the setting can be trained."""
    setting = [c for c in ("N", "T", "classifier", "k")
               if c in cells and cells[c].notna().any() and (cells[c].astype(str) != "").any()]
    rows = []
    for r in cells.to_dict("records"):
        # shown within [0, 1], the range of an accuracy (the t interval of few draws can reach past it)
        interval = (f"[{max(r['ci_low'], 0.0):.3f}, {min(r['ci_high'], 1.0):.3f}]" if np.isfinite(r["ci_low"])
                    else "one draw: none")
        verdict = {True: "inside", False: "outside"}.get(r["inside"]) or (
            "no paper value" if not np.isfinite(r["paper"]) else "one draw: not judged")
        rows.append({"dataset": r["dataset"], **{c: r[c] for c in setting}, "model": r["model"],
                     "mvlab": round(float(r["mean"]), 3), "95 % interval": interval, "draws": int(r["draws"]),
                     "paper": r["paper"], "paper's value": verdict, "open": link(r)})
    return pd.DataFrame(rows)


def replace_section(text: str, name: str, body: str) -> str:
    """``text`` with the lines between ``<!-- BEGIN name -->`` and ``<!-- END name -->`` replaced by ``body``;
    the two markers are appended at the end when they are not there yet."""
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        return head + block + tail
    return text.rstrip() + "\n\n" + block + "\n"


def verdict_line(cells: pd.DataFrame) -> str:
    """How many of the paper's cells lie inside our 95 % intervals, and the mean of ours minus the paper's."""
    have = cells[cells["paper"].notna() & cells["ci_low"].notna()]
    if have.empty:
        return "no cell with an interval yet"
    inside = int(have["inside"].astype(bool).sum())
    diff = (have["mean"] - have["paper"]).to_numpy(dtype=float)
    return (f"{inside} of {len(have)} of the paper's cells inside our 95 % interval; ours minus the paper's: "
            f"mean {diff.mean():+.3f}, from {diff.min():+.3f} to {diff.max():+.3f}")


def _fmt(v, digits=3) -> str:
    return "" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{v:.{digits}f}"


def _is_false(verdict) -> bool:
    """Whether a cell's ``inside`` verdict is False: a Python or NumPy bool (a cells file whose every cell has a
    verdict reads back as a bool column), not NaN (no verdict)."""
    return isinstance(verdict, (bool, np.bool_)) and not verdict


def _cell_text(row, paper_digits: int = 3) -> str:
    """``ours ± half-width (draws) / paper``, the paper's value (``paper_digits`` decimals) in bold when outside the
    interval."""
    if row is None:
        return "not run"
    half = (row["ci_high"] - row["ci_low"]) / 2 if np.isfinite(row["ci_high"]) else np.nan
    paper = _fmt(row["paper"], paper_digits)
    if paper and _is_false(row["inside"]):
        paper = f"**{paper}**"
    spread = f" ± {half:.3f}" if np.isfinite(half) else ""
    return f"{row['mean']:.3f}{spread} ({int(row['draws'])}) / {paper or '—'}"


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
                parts.append(_cell_text(hit.iloc[0] if len(hit) else None))
        lines.append(f"| {n} | " + " | ".join(parts) + " |")
    return "\n".join(lines)


def sdf_markdown(cells: pd.DataFrame, draws: pd.DataFrame) -> str:
    """The generated section on the Siamese deep forest paper: per table and reading, the cells beside the
    paper's, the verdict, the SDF - gcForest gain, Table 8 (fixed setting and the paper's best-cell
    reading) and Table 9."""
    from mvlab.reproduction.sdf_paper import TABLE8, table8_best_cells, table9

    if cells.empty:
        return "_No draw has been computed yet: run `python -m mvlab reproduce sdf --paper`._"
    out = [f"Generated by `python -m mvlab reproduce sdf --paper --report-only` from "
           f"[sdf_paper_draws.csv](reproduction/sdf_paper_draws.csv) ({len(draws)} rows, "
           f"{draws[['dataset', 'N', 'T', 'reading', 'draw']].drop_duplicates().shape[0]} draws, "
           f"{draws['seconds'].sum() / 3600:.1f} h of model fitting); the cells are in "
           f"[sdf_paper_cells.csv](reproduction/sdf_paper_cells.csv). A cell reads *ours ± half-width of the "
           f"95 % t interval (draws) / the paper's*; the paper's value is **bold** when it lies outside our "
           f"interval.", ""]
    out.append(f"**Progress**: {progress_line(draws)}.")
    out.append(f"**All cells**: {verdict_line(cells)}.")
    for reading in sorted(cells["reading"].unique()):
        part = cells[cells["reading"] == reading]
        out.append(f"- reading `{reading}`: {verdict_line(part)}.")
    out.append(f"- ours minus the paper's by N (every cell with a paper value, one draw or more): {gap_by_n(cells)}.")
    out.append(f"- which pair sampling the paper's numbers fit: {readings_line(cells)}.")
    names = {4: "Ecoli", 5: "Yeast", 6: "Ionosphere", 7: "Mammographic masses and Haberman"}
    for table in (4, 5, 6, 7):
        for reading in sorted(cells["reading"].unique()):
            part = cells[(cells["table"] == table) & (cells["reading"] == reading)]
            if part.empty:
                continue
            out += ["", f"#### Table {table} ({names[table]}), reading `{reading}`", "",
                    f"Verdict: {verdict_line(part)}."]
            gain = _gain_line(part)
            if gain:
                out.append(gain)
            for name in sorted(part["dataset"].unique()):
                if table == 7:
                    out += ["", f"{name}:"]
                out += ["", grid_markdown(part[part["dataset"] == name])]
    for reading in sorted(cells["reading"].unique()):
        t8 = cells[(cells["table"] == 8) & (cells["reading"] == reading)]
        if t8.empty:
            continue
        out += ["", f"#### Table 8 (N = 2000, T = 700 for every model, fixed in advance), reading `{reading}`", "",
                f"Verdict: {verdict_line(t8)}. The paper's SNN (a Siamese neural network) is not run: mvlab "
                f"depends on no neural-network library.", "",
                "| dataset | gcForest | Bagging | RF | SDF |", "|---|---|---|---|---|"]
        for name in sorted(t8["dataset"].unique()):
            row = [name]
            for model in ("gcForest", "Bagging", "RF", "SDF"):
                hit = t8[(t8["dataset"] == name) & (t8["model"] == model)]
                row.append(_cell_text(hit.iloc[0] if len(hit) else None))
            out.append("| " + " | ".join(row) + " |")
        best = table8_best_cells(cells, reading)
        if not best.empty:
            out += ["", "The paper's own reading of Table 8 (\"we take the best results from Tables 3-7\"): the "
                    "best mean of each cascade over the dataset's grid, chosen on the test draws, so optimistic "
                    "by the selection:", "", "| dataset | model | best at (N, T) | ours | paper |",
                    "|---|---|---|---|---|"]
            for r in best.itertuples(index=False):
                out.append(f"| {r.dataset} | {r.model} | ({r.N}, {r.T}) | {r.mean:.3f} | {_fmt(r.paper)} |")
        t9 = table9(cells, reading)
        if not t9.empty:
            out += ["", f"Table 9, reading `{reading}`: paired t-tests over the datasets we have (SDF minus each "
                    f"model, Table 8's cells), beside the paper's over its 10 datasets ({len(TABLE8)}) and the "
                    f"paper's own rows restricted to ours:", "",
                    "| difference | datasets | p | mean | 95 % CI | paper p | paper mean [CI] | paper on our "
                    "datasets: p, mean |", "|---|---|---|---|---|---|---|---|"]
            for r in t9.to_dict("records"):
                out.append(f"| {r['difference']} | {r['datasets']} | {_fmt(r['p'])} | {r['mean']:+.3f} | "
                           f"[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}] | {r['paper p']} | "
                           f"{r['paper mean']:+.3f} {r['paper CI']} | {_fmt(r['paper, same datasets: p'])}, "
                           f"{r['paper, same datasets: mean']:+.3f} |")
    return "\n".join(out)


def progress_line(draws: pd.DataFrame, workers: int = 2) -> str:
    """How much of the protocol's grid (:func:`mvlab.reproduction.sdf_paper.paper_grid`) the draws cover, and
    what the rest should cost: each missing draw at the median time of the last five draws of its (N, T) (the
    most recent code), on ``workers`` engine workers; once every draw is there, that the grid is complete and
    what it cost."""
    from mvlab.reproduction.sdf_paper import DRAW_KEY, paper_grid

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
    """Mean of ours minus the paper's per number of training pairs N and reading (cells of Tables 4-7)."""
    have = cells[(cells["table"] < 8) & cells["paper"].notna()]
    parts = []
    for n, group in have.groupby("N"):
        by_reading = ", ".join(f"{r} {(g['mean'] - g['paper']).mean():+.3f} ({len(g)} cells)"
                               for r, g in group.groupby("reading"))
        parts.append(f"N = {n}: {by_reading}")
    return "; ".join(parts) or "no cell yet"


def readings_line(cells: pd.DataFrame) -> str:
    """The two pair-sampling readings on the cells run both ways (same table, dataset, N, T and model, with a
    paper value and an interval in both), per N: how far each lands from the paper's cells on average and how
    many of those cells lie inside its intervals, and which reading lies closer (smaller mean absolute gap)."""
    have = cells[cells["paper"].notna() & cells["ci_low"].notna()]
    if have.empty or have["reading"].nunique() < 2:
        return "not yet measured (no cell with an interval in both readings)"
    key = ["table", "dataset", "N", "T", "model"]
    wide = have.pivot_table(index=key, columns="reading", values=["mean", "paper", "inside"], aggfunc="first")
    wide = wide.dropna(subset=[("mean", "disjoint"), ("mean", "shared")])
    parts = []
    for n, group in wide.groupby(level="N"):
        paper = group[("paper", "disjoint")]
        stats = {}
        for reading in ("disjoint", "shared"):
            gap = group[("mean", reading)] - paper
            stats[reading] = (gap.mean(), gap.abs().mean(), int(group[("inside", reading)].astype(bool).sum()))
        closer = min(stats, key=lambda r: stats[r][1])
        parts.append(f"N = {n} ({len(group)} cells): " + ", ".join(
            f"`{r}` {m:+.3f} (mean |gap| {a:.3f}, {k} inside)" for r, (m, a, k) in stats.items())
            + f", closer: `{closer}`")
    return "; ".join(parts) if parts else "not yet measured (no cell with an interval in both readings)"


def _gain_line(part: pd.DataFrame) -> str:
    """SDF minus gcForest over the cells of a table, ours and the paper's."""
    def gain(values):
        wide = part.pivot_table(index=["dataset", "N", "T"], columns="model", values=values, dropna=False)
        if "SDF" not in wide or "gcForest" not in wide:
            return pd.Series(dtype=float)
        return (wide["SDF"] - wide["gcForest"]).dropna()

    ours, paper = gain("mean"), gain("paper")
    if ours.empty or paper.empty:
        return ""
    return (f"SDF − gcForest: ours {ours.mean():+.3f} on average over {len(ours)} cells (SDF higher in "
            f"{int((ours > 0).sum())}), the paper's {paper.mean():+.3f} (SDF higher in {int((paper > 0).sum())} "
            f"of {len(paper)}).")


def _write_outputs(folder, name: str, draws_file, cells_of, markdown_of, report) -> list[Path]:
    """``<name>_cells.csv`` in ``folder`` from the draws of ``draws_file`` (``cells_of(draws)``) and, when ``report``
    is a path, that report's section ``name`` (underscores as dashes: ``sdf-paper``) rewritten with
    ``markdown_of(cells, draws)``."""
    folder = Path(folder)
    draws = draws_file.read()
    cells = cells_of(draws)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}_cells.csv"
    cells.to_csv(path, index=False, float_format="%.6g")
    written = [path]
    if report:
        written.append(_rewrite_section(report, name.replace("_", "-"), markdown_of(cells, draws)))
    return written


def _rewrite_section(report, name: str, body: str) -> Path:
    """Rewrite the ``name`` section of the report file ``report`` (made if missing) with ``body``."""
    report = Path(report)
    text = report.read_text(encoding="utf-8") if report.exists() else "# Reproduction report\n"
    report.write_text(replace_section(text, name, body), encoding="utf-8")
    return report


def write_sdf_outputs(folder, report=None) -> list[Path]:
    """Write ``sdf_paper_cells.csv`` in ``folder`` from its ``sdf_paper_draws.csv`` and, when ``report`` is a
    path, rewrite that report's ``sdf-paper`` section; returns the paths written."""
    from mvlab.reproduction.sdf_paper import DRAW_COLUMNS, DRAW_KEY, paper_cells

    draws = DrawsFile(Path(folder) / "sdf_paper_draws.csv", DRAW_COLUMNS, DRAW_KEY)
    return _write_outputs(folder, "sdf_paper", draws, paper_cells, sdf_markdown, report)


def ofsp_markdown(cells: pd.DataFrame, draws: pd.DataFrame) -> str:
    """The generated section on OFSP's Table 3 and 4 rows: OFSP's accuracy and disagreement at every k beside the
    paper's, and the six methods' median, min and max of the accuracy over k (the paper's box plots, Fig. 4)."""
    from mvlab.reproduction.ofsp_paper import DATASETS

    if cells.empty:
        return "_No repetition has been computed yet: run `python -m mvlab reproduce ofsp --table3`._"
    out = [f"Generated by `python -m mvlab reproduce ofsp --table3 --report-only` from "
           f"[ofsp_paper_draws.csv](reproduction/ofsp_paper_draws.csv) "
           f"({draws[['dataset', 'classifier', 'repetition']].drop_duplicates().shape[0]} repetition(s) of 5-fold "
           f"cross-validation); cells in "
           f"[ofsp_paper_cells.csv](reproduction/ofsp_paper_cells.csv). A cell reads *ours ± half-width of the 95 % "
           f"t interval over the repetitions (repetitions) / the paper's*, **bold** when outside.", "",
           f"**OFSP's cells**: {ofsp_verdicts(cells)}. Neither dataset is the paper's own (see each heading), so "
           f"a gap here measures the data as much as the method."]
    for dataset in [d for d in DATASETS if d in set(cells["dataset"])]:
        every = cells[cells["dataset"] == dataset]
        part = every[every["table"] == 3]
        out += ["", f"#### {DATASETS[dataset]}", "", "OFSP at k views:", "", ofsp_tables_markdown(every, pending=True)]
        out += ["", "The six methods over k = 1..10 (median [min, max] of the mean accuracy; the paper's Fig. 4 "
                "box plots):", "", "| classifier | " + " | ".join(sorted(part["model"].unique(), key=_method_order))
                + " |", "|---|" + "---|" * part["model"].nunique()]
        for clf in [c for c in CLASSIFIER_NAMES if c in set(part["classifier"])]:
            cols = []
            for method in sorted(part["model"].unique(), key=_method_order):
                m = part[(part["classifier"] == clf) & (part["model"] == method)]["mean"]
                cols.append(f"{m.median():.3f} [{m.min():.3f}, {m.max():.3f}]" if len(m) else "")
            out.append(f"| {CLASSIFIER_NAMES[clf]} | " + " | ".join(cols) + " |")
        out += ["", _figures_markdown(draws, dataset)]
    return "\n".join(out)


def _figures_markdown(draws: pd.DataFrame, dataset: str) -> str:
    """The paper's Figs. 5-7 on one dataset as a table: each method's median over k of the mean disagreement,
    seconds per fold and percentage of features kept (:func:`mvlab.reproduction.ofsp_paper.figure_panels`)."""
    from mvlab.reproduction.ofsp_paper import FIGURE_METRICS, figure_panels

    formats = {"disagreement": "{:.3f}", "seconds": "{:.2f}", "percent_features": "{:.1f}"}
    panels = figure_panels(draws, dataset, metrics=tuple(formats))
    methods = list(dict.fromkeys(m for frame in panels.values() for m in frame.columns))
    lines = ["The paper's Figs. 5-7 (median over k = 1..10 of the mean over repetitions; disagreement needs two "
             "views, so k >= 2; the seconds are those of building the views and fitting the ensemble, where the "
             "paper's Fig. 6 times the classifiers alone):", "",
             "| classifier | measure | " + " | ".join(methods) + " |", "|---|---|" + "---|" * len(methods)]
    for (metric, clf), frame in panels.items():
        title, fmt = FIGURE_METRICS[metric], formats[metric]
        lines.append(f"| {CLASSIFIER_NAMES[clf]} | {title} | " + " | ".join(
            fmt.format(frame[m].median()) if m in frame and frame[m].notna().any() else "" for m in methods) + " |")
    return "\n".join(lines)


CLASSIFIER_NAMES = {"knn": "KNN", "nb": "naive Bayes", "svm": "linear SVM"}

TABLE3_CAPTION = "Accuracy at k views (Table 3):"
TABLE4_CAPTION = ("Disagreement among the k members (Table 4, DM_total; two members at least, so k >= 2; the "
                  "paper's rows hold nine values, read as k = 2..10; its SVM block is lost):")
_OFSP_TABLES = ((3, TABLE3_CAPTION, 3), (4, TABLE4_CAPTION, 4))  # table, caption, the paper's printed decimals


def ofsp_tables_markdown(part: pd.DataFrame, model: str = "OFSP", pending: bool = False) -> str:
    """``model``'s cells of one dataset in each of the paper's tables that ``part`` holds, each grid
    (:func:`ofsp_grid_markdown`, with the paper's rows not computed yet when ``pending``) under its caption; a note
    where an interval has no width (every repetition gave the same value, so any other value lies outside it)."""
    blocks = []
    for table, caption, digits in _OFSP_TABLES:
        rows = part[part["table"] == table]
        if rows.empty:
            continue
        blocks += [caption, ofsp_grid_markdown(rows, model, paper_digits=digits, pending=pending)]
        mine = rows[rows["model"] == model]
        if ((mine["ci_high"] - mine["ci_low"]) == 0).any():
            blocks.append("_± 0.000: every repetition gave the same value, an interval without width that any other "
                          "value lies outside; read the gap there._")
    return "\n\n".join(blocks)


def ofsp_verdicts(cells: pd.DataFrame, model: str = "OFSP") -> str:
    """:func:`verdict_line` of ``model``'s cells in each of the paper's tables that ``cells`` holds
    (:data:`mvlab.reproduction.ofsp_paper.PAPER_TABLES`: Table 3 the accuracy, Table 4 the disagreement)."""
    from mvlab.reproduction.ofsp_paper import PAPER_TABLES

    mine = cells[cells["model"] == model]
    return "; ".join(f"Table {t} ({column}): {verdict_line(mine[mine['table'] == t])}"
                     for t, (column, _) in PAPER_TABLES.items() if (mine["table"] == t).any())


def ofsp_repetitions_line(cells: pd.DataFrame) -> str:
    """How many repetitions of the 5-fold cross-validation the intervals of ``cells`` rest on: the protocol's
    10 (:data:`mvlab.reproduction.ofsp_paper.N_REPEATS`) or the most any cell has, naming each (dataset,
    classifier) column with fewer so far."""
    from mvlab.reproduction.ofsp_paper import N_REPEATS, PAPER_ROW

    full = max(N_REPEATS, int(cells["draws"].max()))
    short = cells[cells["draws"] < full].groupby(["dataset", "classifier"], sort=False)["draws"].min()
    head = f"the interval over the {full} repetitions"
    if short.empty:
        return head
    fewer = "; ".join(f"{PAPER_ROW.get(d, d)}'s {CLASSIFIER_NAMES.get(c, c)} column: {n} so far"
                      for (d, c), n in short.items())
    return f"{head} ({fewer}, still computing)"


def ofsp_grid_markdown(part: pd.DataFrame, model: str = "OFSP", paper_digits: int = 3, pending: bool = False) -> str:
    """``model``'s cells of one dataset and table: a row per classifier, a column per k, ``ours ± half-width (draws)
    / paper`` (the paper's value with ``paper_digits`` decimals). With ``pending``, a classifier whose printed row
    (:data:`mvlab.reproduction.ofsp_paper.PAPER_TABLES`) has no cell yet gets its row too, ``not yet / paper``."""
    from mvlab.reproduction.ofsp_paper import PAPER_TABLES

    ks = sorted(int(k) for k in part["k"].unique())
    dataset, table = part["dataset"].iloc[0], int(part["table"].iloc[0])
    printed = PAPER_TABLES[table][1] if table in PAPER_TABLES else {}
    have = set(part["classifier"])
    waiting = {c for c in CLASSIFIER_NAMES if pending and c not in have
               and any((dataset, c, k) in printed for k in ks)}
    lines = ["| classifier | " + " | ".join(f"k={k}" for k in ks) + " |", "|---|" + "---|" * len(ks)]
    for clf in [c for c in CLASSIFIER_NAMES if c in have or c in waiting]:
        if clf in waiting:
            texts = (f"not yet / {_fmt(printed.get((dataset, clf, k)), paper_digits) or '—'}" for k in ks)
            lines.append(f"| {CLASSIFIER_NAMES[clf]} (not computed yet) | " + " | ".join(texts) + " |")
            continue
        row = part[(part["classifier"] == clf) & (part["model"] == model)].set_index("k")
        lines.append(f"| {CLASSIFIER_NAMES[clf]} | " + " | ".join(_cell_text(row.loc[k], paper_digits) if k in row.index
                                                                   else "not run" for k in ks) + " |")
    return "\n".join(lines)


def _method_order(name: str) -> int:
    from mvlab.experiments.view_construction import METHODS

    return METHODS.index(name) if name in METHODS else len(METHODS)


def write_ofsp_outputs(folder, report=None) -> list[Path]:
    """Write ``ofsp_paper_cells.csv`` from ``ofsp_paper_draws.csv`` in ``folder`` and, when ``report`` is a path,
    rewrite its ``ofsp-paper`` section; returns the paths written."""
    from mvlab.reproduction.ofsp_paper import OFSP_DRAW_COLUMNS, OFSP_DRAW_KEY, ofsp_cells

    draws = DrawsFile(Path(folder) / "ofsp_paper_draws.csv", OFSP_DRAW_COLUMNS, OFSP_DRAW_KEY)
    return _write_outputs(folder, "ofsp_paper", draws, ofsp_cells, ofsp_markdown, report)


def lambda_markdown(summary: pd.DataFrame, draws: pd.DataFrame) -> str:
    """The generated section on the λ reading (:mod:`mvlab.reproduction.sdf_lambda`): SDF − gcForest three ways
    per (dataset, N), beside the paper's."""
    n_draws = len(draws[["dataset", "N", "T", "draw"]].drop_duplicates()) if len(draws) else 0
    head = ("Generated by `python -m mvlab reproduce sdf --paper --lambda-on-test --report-only` from "
            f"[sdf_lambda_draws.csv](reproduction/sdf_lambda_draws.csv) ({n_draws} draws; T = 100, disjoint pools, "
            "the main protocol's pairs and seeds). "
            "SDF − gcForest, mean over the draws, with λ chosen on the training pairs (mvlab), on the test pairs "
            "per draw (the best of λ ∈ {1, 100, 10000}), and per cell (the one λ with the best mean test accuracy "
            "over the cell's draws), beside the paper's SDF − gcForest.")
    if summary.empty:
        return head + "\n\nNo draw yet."
    lines = [head, "", "| dataset | N | draws | gcForest | SDF−gcF, λ on training | SDF−gcF, λ on test per draw "
             "| SDF−gcF, λ on test per cell (λ) | the paper's SDF−gcF |", "|---|---|---|---|---|---|---|---|"]
    for r in summary.itertuples(index=False):
        paper = "" if np.isnan(r.paper) else f"{r.paper:+.3f}"
        lines.append(f"| {r.dataset} | {r.N} | {r.draws} | {r.gcForest:.3f} | {r[5]:+.3f} | {r[6]:+.3f} | "
                     f"{r[7]:+.3f} ({r[8]}) | {paper} |")
    mean = summary[["SDF (λ on training pairs)", "SDF (λ on test, per draw)", "SDF (λ on test, per cell)",
                    "paper"]].mean()
    lines += ["", f"Mean over the cells: λ on training {mean.iloc[0]:+.3f}, λ on test per draw {mean.iloc[1]:+.3f}, "
                  f"per cell {mean.iloc[2]:+.3f}; the paper {mean.iloc[3]:+.3f}."]
    return "\n".join(lines)


def _write_summary_outputs(folder, name: str, summarise, markdown_of, report) -> list[Path]:
    """``<name>_cells.csv`` in ``folder`` (``summarise(draws)``) from its ``<name>_draws.csv`` and, when ``report``
    is a path, that report's ``<name>`` section (``markdown_of(summary, draws)``, the underscore a dash)."""
    from mvlab.reproduction.sdf_paper import DRAW_COLUMNS, DRAW_KEY

    folder = Path(folder)
    draws = DrawsFile(folder / f"{name}_draws.csv", DRAW_COLUMNS, DRAW_KEY).read()
    summary = summarise(draws) if len(draws) else pd.DataFrame()
    path = folder / f"{name}_cells.csv"
    summary.to_csv(path, index=False, float_format="%.6g")
    written = [path]
    if report:
        written.append(_rewrite_section(report, name.replace("_", "-"), markdown_of(summary, draws)))
    return written


def write_sdf_lambda_outputs(folder, report=None) -> list[Path]:
    """Write ``sdf_lambda_cells.csv`` (:func:`mvlab.reproduction.sdf_lambda.lambda_summary`) from
    ``sdf_lambda_draws.csv`` in ``folder`` and, when ``report`` is a path, its ``sdf-lambda`` section."""
    from mvlab.reproduction.sdf_lambda import lambda_summary

    return _write_summary_outputs(folder, "sdf_lambda", lambda_summary, lambda_markdown, report)


def readings_markdown(summary: pd.DataFrame, draws: pd.DataFrame) -> str:
    """The generated section on the two further readings (:mod:`mvlab.reproduction.sdf_readings`)."""
    from mvlab.reproduction.sdf_paper import LAM_GRID

    n_draws = len(draws[["reading", "N", "T", "draw"]].drop_duplicates()) if len(draws) else 0
    head = ("Generated by `python -m mvlab reproduce sdf --paper --other-readings --report-only` from "
            f"[sdf_readings_draws.csv](reproduction/sdf_readings_draws.csv) ({n_draws} draws; Ionosphere, T = 100). "
            "*majority*: the accuracy of always guessing the larger label of the test pairs (chance).")
    if summary.empty:
        return head + "\n\nNo draw yet."
    natural = summary[summary["reading"] == "natural"]
    lines = [head, "", "Pairs drawn as they come (`natural`), beside the paper's Table 6 at T = 100:", "",
             "| N | draws | majority | gcForest | SDF | paper gcForest | paper SDF |", "|---|---|---|---|---|---|---|"]
    for r in natural.to_dict("records"):
        lines.append(f"| {r['N']} | {r['draws']} | {r['majority']:.3f} | {r['gcForest']:.3f} | {r['SDF']:.3f} | "
                     f"{_fmt(r['paper gcForest'])} | {_fmt(r['paper SDF'])} |")
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
    return "\n".join(lines)


def write_sdf_readings_outputs(folder, report=None) -> list[Path]:
    """Write ``sdf_readings_cells.csv`` (:func:`mvlab.reproduction.sdf_readings.readings_summary`) from
    ``sdf_readings_draws.csv`` in ``folder`` and, when ``report`` is a path, its ``sdf-readings`` section."""
    from mvlab.reproduction.sdf_readings import readings_summary

    return _write_summary_outputs(folder, "sdf_readings", readings_summary, readings_markdown, report)


def _reading_head(draws: pd.DataFrame, flag: str, stem: str, how_to_read: str) -> str:
    """The first line of an OFSP reading's generated section: the command, its draws file, how many
    repetitions, and ``how_to_read``."""
    n = draws[["dataset", "classifier", "repetition"]].drop_duplicates().shape[0] if len(draws) else 0
    return (f"Generated by `python -m mvlab reproduce ofsp --table3 {flag} --report-only` from "
            f"[{stem}_draws.csv](reproduction/{stem}_draws.csv) ({n} repetition(s), the protocol's own folds and "
            f"seeds). {how_to_read}")


def ofsp_leak_markdown(cells: pd.DataFrame, draws: pd.DataFrame) -> str:
    """The generated section on OFSP with its accuracy measured on the test fold
    (:mod:`mvlab.reproduction.ofsp_leak`): its cells beside the paper's and the verdict."""
    from mvlab.reproduction.ofsp_leak import LEAK_METHOD
    from mvlab.reproduction.ofsp_paper import DATASETS

    head = _reading_head(draws, "--ofsp-on-test", "ofsp_leak", "A cell reads *ours ± half-width (repetitions) / "
                         "the paper's*, **bold** when outside.")
    if cells.empty:
        return head + "\n\nNo repetition yet."
    out = [head]
    for dataset in [d for d in DATASETS if d in set(cells["dataset"])]:
        part = cells[cells["dataset"] == dataset]
        out += ["", f"{DATASETS[dataset]}: {ofsp_verdicts(part, LEAK_METHOD)}.", "",
                ofsp_tables_markdown(part, LEAK_METHOD)]
    return "\n".join(out)


def _write_ofsp_reading(folder, stem: str, markdown_of, paper_methods, report,
                        reading: str = "10 x 5-fold") -> list[Path]:
    """``<stem>_cells.csv`` from ``<stem>_draws.csv`` (rows of the OFSP protocol's draws) in ``folder``, the paper's
    values placed for ``paper_methods`` and ``reading`` naming what the draws are, and, when ``report`` is a path,
    its section (``markdown_of``)."""
    from mvlab.reproduction.ofsp_paper import OFSP_DRAW_COLUMNS, OFSP_DRAW_KEY, ofsp_cells

    draws = DrawsFile(Path(folder) / f"{stem}_draws.csv", OFSP_DRAW_COLUMNS, OFSP_DRAW_KEY)
    return _write_outputs(folder, stem, draws, lambda d: ofsp_cells(d, paper_methods=paper_methods, reading=reading),
                          markdown_of, report)


def write_ofsp_leak_outputs(folder, report=None) -> list[Path]:
    """Write ``ofsp_leak_cells.csv`` from ``ofsp_leak_draws.csv`` in ``folder`` and, when ``report`` is a path, its
    ``ofsp-leak`` section."""
    from mvlab.reproduction.ofsp_leak import LEAK_METHOD

    return _write_ofsp_reading(folder, "ofsp_leak", ofsp_leak_markdown, (LEAK_METHOD,), report)


def _classifier_reading_markdown(cells: pd.DataFrame, draws: pd.DataFrame, *, flag: str, stem: str, methods,
                                 variants, classifier: str, head: bool) -> str:
    """The generated section of a classifier reading (:func:`mvlab.reproduction.ofsp_paper.run_classifier_variants`):
    per dataset and method of ``methods``, the accuracy over k = 1..10 with each classifier of ``variants``, the
    second minus the first, and the paper's OFSP row with ``classifier`` (``head``: after the line that names the
    command ``flag`` and its draws file ``<stem>_draws.csv``)."""
    from mvlab.reproduction.ofsp_paper import DATASETS, PAPER

    out = [_reading_head(draws, flag, stem, "Median [min, max] over k = 1..10 of the mean accuracy over the "
                         "repetitions.") if head else ""]
    if cells.empty:
        return out[0] + "\n\nNo repetition yet."
    for dataset in [d for d in DATASETS if d in set(cells["dataset"])]:
        part = cells[(cells["dataset"] == dataset) & (cells["table"] == 3)]
        paper = [PAPER[(dataset, classifier, k)] for k in range(1, 11) if (dataset, classifier, k) in PAPER]
        out += ["", f"{DATASETS[dataset]} (the paper's OFSP with {CLASSIFIER_NAMES[classifier]}: "
                    f"{min(paper):.3f}-{max(paper):.3f}):", "",
                "| method | " + " | ".join(variants) + " | difference |", "|---|---|---|---|"]
        for method in methods:
            means = [part[part["model"] == f"{method}, {v}"].set_index("k")["mean"] for v in variants]
            cols = [f"{m.median():.3f} [{m.min():.3f}, {m.max():.3f}]" if len(m) else "not run" for m in means]
            gain = (means[1] - means[0]).dropna()
            out.append(f"| {method} | " + " | ".join(cols) + " | "
                       + (f"{gain.median():+.3f} (median over k)" if len(gain) else "") + " |")
    return "\n".join(out).strip()


def ofsp_knn_markdown(cells: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The generated section on the number of neighbours (:mod:`mvlab.reproduction.ofsp_knn`): per dataset and
    method, the accuracy over k = 1..10 with 1-NN and with k chosen by leave-one-out, and the paper's OFSP row
    (``head``: after the line that names the command and its draws file)."""
    from mvlab.reproduction.ofsp_knn import KNN_METHODS, KNN_VARIANTS

    return _classifier_reading_markdown(cells, draws, flag="--knn-neighbours", stem="ofsp_knn", methods=KNN_METHODS,
                                        variants=KNN_VARIANTS, classifier="knn", head=head)


def ofsp_svm_range_markdown(cells: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The generated section on the features' numeric range (:mod:`mvlab.reproduction.ofsp_svm_range`): per
    dataset and method, the linear SVM's accuracy over k = 1..10 on the features as generated and mapped to 0-999,
    and the paper's OFSP row (``head``: after the line that names the command and its draws file)."""
    from mvlab.reproduction.ofsp_svm_range import RANGE_METHODS, RANGE_VARIANTS

    return _classifier_reading_markdown(cells, draws, flag="--svm-range", stem="ofsp_svm_range",
                                        methods=RANGE_METHODS, variants=RANGE_VARIANTS, classifier="svm", head=head)


def madelon_generator_markdown(cells: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The generated section on the generator's draws (:mod:`mvlab.reproduction.madelon_generator`): per classifier
    and view, the accuracy on mvlab's Madelon (draw 0) beside the median [min, max] over the other draws and how
    many of them score below it, with the paper's OFSP row on NIPS's draw (``head``: after the line that names the
    command and its draws file)."""
    from mvlab.reproduction.madelon_generator import FEATURE_SETS
    from mvlab.reproduction.ofsp_paper import PAPER

    n = draws["repetition"].nunique() if len(draws) else 0
    out = [("Generated by `python -m mvlab reproduce ofsp --table3 --generator-draws --report-only` from "
            "[madelon_generator_draws.csv](reproduction/madelon_generator_draws.csv) "
            f"({n} draw(s) of the generator, mvlab's Madelon the first). Each classifier alone, the mean accuracy "
            "over the protocol's first five folds.") if head else ""]
    if draws.empty:
        return out[0] + "\n\nNo draw yet."
    out += ["", "| classifier | view | mvlab's Madelon | other draws: median [min, max] | other draws below mvlab's "
            "| the paper's OFSP (NIPS's draw, k = 1..10) |", "|---|---|---|---|---|---|"]
    for classifier in [c for c in CLASSIFIER_NAMES if c in set(draws["classifier"])]:
        paper = [PAPER[("madelon-500", classifier, k)] for k in range(1, 11) if ("madelon-500", classifier, k) in PAPER]
        for method in FEATURE_SETS:
            part = draws[(draws["classifier"] == classifier) & (draws["method"] == method)]
            ours, others = part.loc[part["repetition"] == 0, "accuracy"], part.loc[part["repetition"] > 0, "accuracy"]
            spread = (f"{others.median():.3f} [{others.min():.3f}, {others.max():.3f}]" if len(others) else "none yet")
            below = f"{int((others < ours.iloc[0]).sum())} of {len(others)}" if len(ours) and len(others) else ""
            out.append(f"| {CLASSIFIER_NAMES[classifier]} | {method} | "
                       + (f"{ours.iloc[0]:.3f}" if len(ours) else "not run") + f" | {spread} | {below} | "
                       + (f"{min(paper):.3f}-{max(paper):.3f}" if paper else "") + " |")
    return "\n".join(out).strip()


def write_madelon_generator_outputs(folder, report=None) -> list[Path]:
    """Write ``madelon_generator_cells.csv`` from ``madelon_generator_draws.csv`` in ``folder`` (each classifier
    and view over the draws) and, when ``report`` is a path, its ``madelon-generator`` section."""
    return _write_ofsp_reading(folder, "madelon_generator", madelon_generator_markdown, (), report,
                               reading="draws of the generator, one 5-fold each")


def write_ofsp_svm_range_outputs(folder, report=None) -> list[Path]:
    """Write ``ofsp_svm_range_cells.csv`` from ``ofsp_svm_range_draws.csv`` in ``folder`` and, when ``report`` is a
    path, its ``ofsp-svm-range`` section."""
    return _write_ofsp_reading(folder, "ofsp_svm_range", ofsp_svm_range_markdown, (), report)


def write_ofsp_knn_outputs(folder, report=None) -> list[Path]:
    """Write ``ofsp_knn_cells.csv`` from ``ofsp_knn_draws.csv`` in ``folder`` and, when ``report`` is a path, its
    ``ofsp-knn`` section."""
    return _write_ofsp_reading(folder, "ofsp_knn", ofsp_knn_markdown, (), report)
