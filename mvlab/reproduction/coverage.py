"""What each paper printed and what mvlab ran of it, table by table: the report's coverage tables.

Every table, figure and statistical test of the three papers is one :class:`Item` of :data:`ITEMS`, declared here
once, as data: how many values it prints (its ``shape``: the factors counted from the paper's text, e.g. OFSP's
Table 3 is 16 datasets x 3 classifiers x 10 values of k), how many of those survive in the text mvlab works from,
on which data it is run, why not where it is not (for a dataset not run, whether it is bundled and not yet run or
where it was looked for: :mod:`mvlab.reproduction.data_search`), and whether the paper says its values are means.
How many were run is counted from the committed files (:func:`coverage_rows`), never written by hand, and a cell
of ours that repeats another's draws (Table 8 of the Siamese deep forest paper at N = 2000, T = 700, where Tables
4-7 ran the same dataset, model and reading) is marked and its draws counted once; it is one more comparison only
where the paper printed it a value of its own. Every total of
the report and every "of the paper's N cells" comes from here (:func:`scope`, :func:`coverage_facts`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from mvlab.i18n import N_
from mvlab.reproduction.data_search import SEARCHED_ON, searches_of, where_looked, why_not_run
from mvlab.reproduction.sdf_paper import MNIST_READING, TABLE8_SETTING, WINDOW_READINGS, mnist_grid

__all__ = ["Item", "ITEMS", "PAPER_NAMES", "OFSP_DATASETS", "DVS_DATASETS",
           "SDF_DATASETS_OF_THE_PAPER", "repeats_a_grid_cell", "repeats_its_printed_value", "printed_values_apart",
           "counted_once",
           "coverage_rows",
           "coverage_markdown", "scope", "says_means", "coverage_facts"]

PAPER_NAMES = {"sdf": N_("Siamese deep forest (Utkin & Ryabinin 2018)"), "ofsp": N_("OFSP (Kumar & Minz 2016)"),
               "dvs": N_("Dynamic view selection (Bernard et al. 2020)")}

SDF_DATASETS_OF_THE_PAPER = ("Parkinsons", "Ecoli", "Yeast", "Ionosphere", "Mammographic masses", "Haberman",
                             "Breast Tissue", "Lung Cancer", "ILPD", "Seeds")
"""The Siamese deep forest paper's ten datasets (its Table 2)."""
OFSP_DATASETS = ("All-AML Leukemia", "Arcene", "Breast cancer", "Central Nervous System", "Colon Cancer",
                 "Color Tumor", "DLBCL Tumor", "DLBCL-NIH", "DLBCL Stanford", "Leukemia", "Lung Cancer Harvard2",
                 "Lung Cancer Michigan", "Lung Cancer Ontario", "Madelon", "Prostate Tumor versus Normal", "SECOM")
"""OFSP's sixteen datasets (its Table 2)."""
DVS_DATASETS = ("AWA8", "AWA15", "BBC", "BBCSport", "Cal7", "Cal20", "IDHcodel", "LowGrade", "LSVT", "Metabolomic",
                "Mfeat", "NonIDH1", "NUS-WIDE2", "NUS-WIDE3", "Progression")
"""The dynamic-view-selection paper's fifteen datasets (its Table 1)."""

def _grid_at_table8_setting(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells of Tables 4-7 at Table 8's own setting (N = 2000, T = 700): those a Table 8 cell may repeat."""
    return cells[(cells["table"] < 8) & (cells["N"] == TABLE8_SETTING[0]) & (cells["T"] == TABLE8_SETTING[1])]


def repeats_a_grid_cell(cells: pd.DataFrame) -> pd.Series:
    """Whether each cell of the Siamese deep forest's cells file repeats the draws of a cell of Tables 4-7: a Table 8
    cell (all at Table 8's setting, N = 2000, T = 700) whose dataset, model and reading the grid ran at that N and T,
    so that its draws are that grid cell's. Its printed value may be the grid cell's too
    (:func:`repeats_its_printed_value`) or a value of its own."""
    grid = _grid_at_table8_setting(cells)
    ran = set(zip(grid["dataset"], grid["model"], grid["reading"]))
    in_grid = [(d, m, r) in ran for d, m, r in zip(cells["dataset"], cells["model"], cells["reading"])]
    return (cells["table"] == 8) & pd.Series(in_grid, index=cells.index)


def repeats_its_printed_value(cells: pd.DataFrame) -> pd.Series:
    """Whether each cell repeats a grid cell's draws (:func:`repeats_a_grid_cell`) and also its printed value: the
    paper printed that Table 8 value at Table 8's own setting (its ``paper_source``)."""
    setting = f"N={TABLE8_SETTING[0]}, T={TABLE8_SETTING[1]}"
    sources = cells["paper_source"].astype(object).fillna("").astype(str)
    return repeats_a_grid_cell(cells) & sources.str.contains(setting, regex=False)


def printed_values_apart(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells that repeat a grid cell's draws with a printed value of their own (compared apart from the
    totals), those with a paper value and an interval."""
    apart = cells[repeats_a_grid_cell(cells) & ~repeats_its_printed_value(cells)]
    return apart[apart["paper"].notna() & apart["ci_low"].notna()]


def counted_once(cells: pd.DataFrame) -> pd.DataFrame:
    """``cells`` without the cells that repeat another's draws (:func:`repeats_a_grid_cell`): each draw once."""
    if "paper_source" not in cells or "N" not in cells:
        return cells
    return cells[~repeats_a_grid_cell(cells)]


# ------------------------------------------------------------------------------------- counting what was run
def _sdf_table(table: int) -> Callable:
    def count(files) -> dict:
        cells = files("sdf-paper")[0]
        if cells is None:
            return {"run": 0, "repeats": 0, "compared": 0}
        part = cells[cells["table"] == table]
        key = ["dataset", "N", "T", "model"]
        run = part.drop_duplicates(key)
        repeats = part[repeats_a_grid_cell(cells).loc[part.index]].drop_duplicates(key)
        same_value = part[repeats_its_printed_value(cells).loc[part.index]].drop_duplicates(key)
        compared = run[run["paper"].notna()]
        return {"run": len(run), "repeats": len(repeats), "repeats_value": len(same_value),
                "compared": len(compared) - len(same_value[same_value["paper"].notna()])}
    return count


def _sdf_table9(files) -> dict:
    from mvlab.reproduction.sdf_paper import table9

    cells = files("sdf-paper")[0]
    run = len(table9(cells, "disjoint")) if cells is not None else 0
    return {"run": run, "repeats": 0, "compared": run}


def _sdf_rank_tests(files) -> dict:
    from mvlab.reproduction.sdf_paper import rank_tests

    cells = files("sdf-paper")[0]
    tests = rank_tests(cells, "disjoint") if cells is not None else None
    run = 0 if tests is None or tests.empty else int(tests[["friedman p", "dunn p"]].notna().to_numpy().sum())
    return {"run": run, "repeats": 0, "compared": run}


def _mnist_planned(grid) -> dict:
    """The protocol's number of draws per (N, window reading) of Table 10's ``grid`` (the same for every T)."""
    draws: dict = {}
    for t in grid:
        draws.setdefault((t.N, t.reading), set()).add(t.draw)
    return {key: len(d) for key, d in draws.items()}


def _sdf_mnist(files) -> dict:
    """Table 10's cells run (reading ``sdf-mnist``), each (N, T, model) once whichever window readings ran it;
    ``short``: how many of them have fewer draws, in some reading, than the protocol's (:func:`mnist_grid`)."""
    cells = files("sdf-mnist")[0]
    if cells is None:
        return {"run": 0, "repeats": 0, "compared": 0, "short": 0}
    planned = _mnist_planned(mnist_grid())
    short = {(r.N, r.T, r.model) for r in cells.itertuples(index=False)
             if r.draws < planned.get((r.N, r.reading), 0)}
    run = cells.drop_duplicates(["N", "T", "model"])
    return {"run": len(run), "repeats": 0, "compared": int(run["paper"].notna().sum()), "short": len(short)}


def _sdf_mnist_left(files) -> str:
    """Why Table 10's other cells are not run: the values of N whose draws are not all computed yet, per window
    reading (from the draws file), with how many of their draws are, or that none is."""
    draws = files("sdf-mnist")[1]
    done = set() if draws is None else set(map(tuple, draws[["dataset", "N", "T", "reading", "draw"]].to_numpy()))
    grid = mnist_grid()
    left = [t for t in grid if t.key not in done]
    if not left:
        return ""
    planned = _mnist_planned(grid)
    finished = _mnist_planned([t for t in grid if t.key in done])
    by = {r: sorted({t.N for t in left if t.reading == r}) for r in WINDOW_READINGS}
    parts = [f"`{r}` N = " + ", ".join(f"{n} ({finished.get((n, r), 0)} of {planned[(n, r)]} draws so far)"
                                       for n in ns) for r, ns in by.items() if ns]
    return (f"{len(left)} of its {len(grid)} draws (both readings of the windows) still to compute with "
            f"`python -m mvlab reproduce {MNIST_READING}` ({'; '.join(parts)})")


def _ofsp_table(table: int) -> Callable:
    def count(files) -> dict:
        cells = files("ofsp-paper")[0]
        if cells is None:
            return {"run": 0, "repeats": 0, "compared": 0}
        part = cells[(cells["table"] == table) & (cells["model"] == "OFSP")].drop_duplicates(
            ["dataset", "classifier", "k"])
        return {"run": len(part), "repeats": 0, "compared": int(part["paper"].notna().sum())}
    return count


def _ofsp_figure(metric: str, methods: bool = True) -> Callable:
    def count(files) -> dict:
        draws = files("ofsp-paper")[1]
        if draws is None:
            return {"run": 0, "repeats": 0, "compared": 0}
        have = draws[draws[metric].notna()] if methods else draws[draws[metric].notna() & (draws["method"] == "OFSP")]
        key = ["dataset", "classifier", "method"] if methods else ["dataset", "classifier", "k"]
        return {"run": len(have.drop_duplicates(key)), "repeats": 0, "compared": 0}
    return count


def _dvs_table(folder: Path) -> pd.DataFrame | None:
    from mvlab.reproduction.outputs import accuracy_table

    path = Path(folder) / "dvs_paper.txt"
    return accuracy_table(path) if path.exists() else None


def _dvs_accuracies(files) -> dict:
    from mvlab.reproduction.outputs import PAPER_METHODS

    table = _dvs_table(files.folder)
    if table is None:
        return {"run": 0, "repeats": 0, "compared": 0}
    ours = {name.lower() for name in DVS_DATASETS} & {name.split(" (")[0].lower() for name in table.index}
    return {"run": len(ours) * len(PAPER_METHODS), "repeats": 0, "compared": 0}


def _dvs_ranks(files) -> dict:
    from mvlab.reproduction.outputs import PAPER_METHODS

    table = _dvs_table(files.folder)
    run = len(PAPER_METHODS) if table is not None else 0
    return {"run": run, "repeats": 0, "compared": run}


def _dvs_sign_tests(files) -> dict:
    from mvlab.reproduction.outputs import PAPER_METHODS

    table = _dvs_table(files.folder)
    run = len(PAPER_METHODS) - 1 if table is not None else 0  # each method against Avg
    return {"run": run, "repeats": 0, "compared": run}


# ------------------------------------------------------------------------------------------- the items
@dataclass(frozen=True)
class Item:
    """One table, figure or statistical test of a paper.

    Parameters
    ----------
    paper : ``"sdf"``, ``"ofsp"`` or ``"dvs"``.
    name : as the paper names it (``"Table 3"``, ``"Fig. 4"``, ``"Friedman and Bonferroni–Dunn tests (§8)"``).
    holds : what it prints, in words.
    unit : what its values are (``"cells"``, ``"tests"``, ``"boxes"``, ``"points"``, ``"values"``), empty for an
        item without results (a diagram, a list of datasets).
    shape : the factors of its count, counted from the paper's text, e.g.
        ``(("datasets", 16), ("classifiers", 3), ("k", 10))``; the item prints their product.
    in_text : how many of its values survive in the text mvlab works from (None: all).
    ran : ``ran(files)`` -> ``{"run", "repeats", "compared"}`` counted from the committed files (None: nothing run),
        and ``"short"``: how many of the run cells have fewer draws than the protocol's so far (then ``why_not``
        is shown even when every cell is run).
    data : on which data it is run: ``"the paper's own"``, ``"a substitute"`` (with what) or ``"none"``.
    why_not : why the rest is not run (the datasets not found, the model not implemented, the values lost): a
        text, or ``why_not(files)`` -> text where it depends on which datasets the files hold (:func:`_missing`).
    means : the paper's words saying that its values are means over repetitions, where it says so; then the
        prediction interval of one draw is not a yardstick for its cells.
    same_as : the item whose values these are, printed again (e.g. a table's row quoted in the text): shown,
        and left out of the totals, which count each printed value once.
    printed_before : ``(n, where)``: ``n`` of its values print again values of the items ``where`` (Table 8's
        cascades, "the best results from Tables 3–7"), counted there; the totals count its other values.
    """

    paper: str
    name: str
    holds: str
    unit: str = ""
    shape: tuple = ()
    in_text: int | None = None
    ran: Callable | None = None
    data: str = "none"
    why_not: str | Callable = ""
    means: str = ""
    same_as: str = ""
    printed_before: tuple = ()

    @property
    def printed(self) -> int:
        """How many values it prints: the product of its ``shape`` (0 without results)."""
        return math.prod(n for _, n in self.shape) if self.shape else 0

    @property
    def printed_first(self) -> int:
        """How many of its values it prints first: :attr:`printed` less those printed before (0 for an item that
        is ``same_as`` another)."""
        if self.same_as:
            return 0
        return self.printed - (self.printed_before[0] if self.printed_before else 0)

    @property
    def surviving(self) -> int:
        """How many of them survive in the text mvlab works from."""
        return self.printed if self.in_text is None else self.in_text


def _ran_datasets(paper: str, files) -> set[str]:
    """The :func:`mvlab.datasets.load_dataset` names of the datasets ``paper``'s own protocol ran, from its files
    (the DVS paper: the datasets of ``dvs_paper.txt``'s table)."""
    if paper == "dvs":
        table = _dvs_table(files.folder)
        return set() if table is None else {name.split(" (")[0].lower() for name in table.index}
    names = ["sdf-paper", "sdf-mnist"] if paper == "sdf" else ["ofsp-paper"]
    return {d for name in names if (cells := files(name)[0]) is not None for d in cells["dataset"]}


def _missing(paper: str, datasets, reason: str = "", first: bool = False) -> Callable:
    """``why_not(files)`` of an item: why ``datasets`` of ``paper`` are not run, counted from the files
    (:func:`mvlab.reproduction.data_search.why_not_run`: bundled and not run yet, or where each was looked for),
    with ``reason`` after it (before it when ``first``)."""
    def why(files) -> str:
        ran = _ran_datasets(paper, files)
        missing = why_not_run(paper, datasets, ran=lambda name: name in ran)
        parts = [reason, missing] if first else [missing, reason]
        return "; ".join(p for p in parts if p)
    return why


_SDF_MEANS = ("\"To evaluate the average accuracy, we perform a cross-validation with 100 repetitions\" "
              "(§8)")
_OFSP_MEANS = ("\"To obtain the generalized accuracy, 5-fold cross-validation is performed 10 times … Average "
               "classification accuracies are noted\" (§4.2; the elided sentences divide the training data into ten "
               "subsets, each the test set once, so the text contradicts itself on the folds: mvlab runs 10 × 5-fold)")
_DVS_MEANS = "\"The mean accuracy, with standard deviations, are computed over the 10 runs\" (§5.1)"
_SDF_OWN = ("the paper's own (Ecoli, Yeast, Ionosphere, Mammographic masses without its 131 incomplete masses, "
            "Haberman, ILPD without its 4 incomplete patients)")
_FIGURE = "a figure: its values are not in the text"
_MNIST_DATA = "the paper's own MNIST, 5,000 of its 70,000 images (`mnist-5000`)"
_OFSP_MISSING = _missing("ofsp", OFSP_DATASETS)
_OFSP_SUBSTITUTE = ("a substitute: All-AML on Bioconductor's filtered 3,051-gene copy of its 38 samples (the paper's "
                    "Table 2: 7,130 attributes, read as Golub's 7,129 genes and the class), Madelon made by Guyon's "
                    "recipe (not NIPS 2003's draw)")

ITEMS: tuple[Item, ...] = (
    # ---------------------------------------------------------------------------------- Siamese deep forest
    Item("sdf", "Table 1", "notation for indices (no results)"),
    Item("sdf", "Table 2", "the ten datasets (no results)"),
    Item("sdf", "Table 3", "Parkinsons: gcForest and SDF accuracy over N x T", "cells",
         (("N", 4), ("T", 4), ("models", 2)), why_not=_missing("sdf", ["Parkinsons"]), means=_SDF_MEANS),
    Item("sdf", "Table 4", "Ecoli: gcForest and SDF accuracy over N x T", "cells",
         (("N", 4), ("T", 4), ("models", 2)), ran=_sdf_table(4), data="the paper's own", means=_SDF_MEANS),
    Item("sdf", "Table 5", "Yeast: gcForest and SDF accuracy over N x T", "cells",
         (("N", 4), ("T", 4), ("models", 2)), ran=_sdf_table(5), data="the paper's own", means=_SDF_MEANS),
    Item("sdf", "Table 6", "Ionosphere: gcForest and SDF accuracy over N x T", "cells",
         (("N", 4), ("T", 4), ("models", 2)), ran=_sdf_table(6), data="the paper's own", means=_SDF_MEANS),
    Item("sdf", "Table 7", "five datasets at N = 1000 and 2000, T = 700: gcForest and SDF", "cells",
         (("datasets", 5), ("N", 2), ("models", 2)), ran=_sdf_table(7),
         data="the paper's own for Mammographic masses (830 of its 961 masses, the incomplete ones left out), "
              "Haberman and ILPD (579 of its 583 patients, the 4 without an albumin/globulin ratio left out)",
         why_not=_missing("sdf", ["Breast Tissue", "ILPD", "Seeds"]),
         means=_SDF_MEANS),
    Item("sdf", "Table 8", "ten datasets x gcForest, Bagging, RF, SNN, SDF", "cells",
         (("datasets", 10), ("models", 5)), ran=_sdf_table(8), data=_SDF_OWN,
         why_not=_missing("sdf", SDF_DATASETS_OF_THE_PAPER,
                          "the SNN (a Siamese neural network): mvlab depends on no neural-network library"),
         means=_SDF_MEANS, printed_before=(18, "Tables 3–7")),  # gcF and SDF of every dataset but Lung Cancer
    Item("sdf", "Text of §8: Lung Cancer", "gcForest and SDF on Lung Cancer (the values of Table 8's row)", "values",
         (("models", 2),), why_not=_missing("sdf", ["Lung Cancer"]), same_as="Table 8"),
    Item("sdf", "Table 9", "paired t-tests of SDF minus gcForest, Bagging, RF, SNN over the ten datasets", "tests",
         (("differences", 4),), ran=_sdf_table9, data="the paper's own, 6 of its 10 datasets",
         why_not="SDF minus the SNN: the SNN is not run"),
    Item("sdf", "Friedman and Bonferroni–Dunn tests (§8)",
         "the two tests on the four differences: Friedman's four p-values, Bonferroni–Dunn's four verdicts (one with "
         "its p-value)",
         "tests", (("tests", 2), ("differences", 4)), ran=_sdf_rank_tests, data="the paper's own, 6 of its 10 datasets",
         why_not="SDF minus the SNN: the SNN is not run (so Bonferroni–Dunn ranks four models, not five)"),
    Item("sdf", "Table 10", "MNIST with multi-grained scanning: gcForest and SDF over N x T", "cells",
         (("N", 3), ("T", 4), ("models", 2)), ran=_sdf_mnist, data=_MNIST_DATA, why_not=_sdf_mnist_left,
         means=_SDF_MEANS),
    Item("sdf", "Text of §8: CIFAR-10", "gcForest and SDF on 1,000 CIFAR-10 pairs, 1,500 trees", "values",
         (("models", 2),), why_not=_missing("sdf", ["CIFAR-10"])),
    Item("sdf", "Figs. 1–4", "diagrams of the SNN, the cascade, the class vectors and the scanning (no results)"),
    # ----------------------------------------------------------------------------------------------- OFSP
    Item("ofsp", "Table 1", "the OFSP algorithm (no results)"),
    Item("ofsp", "Table 2", "the sixteen datasets (no results)"),
    Item("ofsp", "Table 3", "OFSP's accuracy at k = 1..10 views", "cells",
         (("datasets", len(OFSP_DATASETS)), ("classifiers", 3), ("k", 10)), ran=_ofsp_table(3),
         data=_OFSP_SUBSTITUTE, why_not=_OFSP_MISSING, means=_OFSP_MEANS),
    Item("ofsp", "Table 4", "OFSP's disagreement among its k members, k = 2..10", "cells",
         (("datasets", len(OFSP_DATASETS)), ("classifiers", 3), ("k", 9)),
         in_text=len(OFSP_DATASETS) * 2 * 9, ran=_ofsp_table(4), data=_OFSP_SUBSTITUTE,
         why_not=_missing("ofsp", OFSP_DATASETS, "its SVM block is lost from the text", first=True)),
    Item("ofsp", "Table 5", "the classifiers' execution times for two to ten views", "cells",
         (("datasets", len(OFSP_DATASETS)), ("classifiers", 3), ("k", 9)), in_text=0,
         why_not="lost from the text mvlab works from; mvlab's seconds (Fig. 6's row) time building the views and "
                 "fitting the ensemble, not the classifiers"),
    *(Item("ofsp", f"Table {t}", f"Friedman aligned ranks and Holm's test of the six methods on {what}, per dataset "
           "and classifier", "tests", (("datasets", len(OFSP_DATASETS)), ("classifiers", 3)), in_text=0,
           why_not="lost from the text mvlab works from (section 2 runs Holm's test against OFSP on mvlab's bundled "
                   "sets, not on these)")
      for t, what in ((6, "accuracy"), (7, "disagreement"), (8, "execution time"))),
    Item("ofsp", "Figs. 1–3", "diagrams of a partition, the framework and a box plot (no results)"),
    Item("ofsp", "Fig. 4", "box plots of the six methods' accuracy over k", "boxes",
         (("datasets", len(OFSP_DATASETS)), ("classifiers", 3), ("methods", 6)), in_text=0,
         ran=_ofsp_figure("accuracy"), data=_OFSP_SUBSTITUTE,
         why_not=_missing("ofsp", OFSP_DATASETS, _FIGURE, first=True)),
    Item("ofsp", "Fig. 5", "box plots of the six methods' disagreement over k", "boxes",
         (("datasets", len(OFSP_DATASETS)), ("classifiers", 3), ("methods", 6)), in_text=0,
         ran=_ofsp_figure("disagreement"), data=_OFSP_SUBSTITUTE,
         why_not=_missing("ofsp", OFSP_DATASETS, _FIGURE, first=True)),
    Item("ofsp", "Fig. 6", "box plots of the six methods' execution time over k", "boxes",
         (("datasets", len(OFSP_DATASETS)), ("classifiers", 3), ("methods", 6)), in_text=0,
         ran=_ofsp_figure("seconds"), data=_OFSP_SUBSTITUTE + "; another clock (wall-clock of building the views "
                                                              "and the ensemble, not MEL's CPU time)",
         why_not=_missing("ofsp", OFSP_DATASETS, _FIGURE, first=True)),
    Item("ofsp", "Fig. 7", "the percentage of features OFSP keeps at k = 1..10", "points",
         (("datasets", len(OFSP_DATASETS)), ("classifiers", 3), ("k", 10)), in_text=0,
         ran=_ofsp_figure("percent_features", methods=False), data=_OFSP_SUBSTITUTE,
         why_not=_missing("ofsp", OFSP_DATASETS, _FIGURE, first=True)),
    # ------------------------------------------------------------------------------------------------ DVS
    Item("dvs", "Table 1", "the fifteen multi-view datasets (no results)"),
    Item("dvs", "Table 2, accuracies", "mean ± sd accuracy of the five methods per dataset", "cells",
         (("datasets", len(DVS_DATASETS)), ("methods", 5)), in_text=0, ran=_dvs_accuracies,
         data="the paper's own for Mfeat (a stratified sample of 600 of mvlab's 2,000 mfeat instances)",
         why_not=_missing("dvs", DVS_DATASETS, "lost from the text mvlab works from, so nothing can be compared "
                                               "cell by cell", first=True), means=_DVS_MEANS),
    Item("dvs", "Table 2, average ranks", "the five methods' average ranks over the fifteen datasets", "values",
         (("methods", 5),), ran=_dvs_ranks,
         data="a substitute: mvlab's ten bundled datasets (Mfeat the only one of the paper's)"),
    Item("dvs", "Fig. 3", "sign tests of each method against Avg (wins, ties, losses; the text we have keeps only "
         "their verdicts)", "tests", (("methods", 4),),
         ran=_dvs_sign_tests, data="a substitute: mvlab's ten bundled datasets (Mfeat the only one of the paper's)",
         why_not="a figure: its counts are not in the text, only its verdicts (DVS alone significant)"),
    Item("dvs", "Figs. 1–2", "diagrams of the framework and the procedure (no results)"),
)
"""Every table, figure and statistical test of the three papers, in the papers' order."""


def says_means(paper: str, name: str) -> bool:
    """Whether the paper's text says the values of its item ``name`` (``"Table 4"``) are means over repetitions
    (then the prediction interval of one draw is not counted for its cells)."""
    return any(i.paper == paper and i.name == name and i.means for i in ITEMS)


def coverage_rows(paper: str, files) -> pd.DataFrame:
    """One row per item of ``paper``: what it holds, its unit, how many it prints, how many survive in the text, how
    many we ran (counted once), how many of ours repeat another cell's draws (marked, not counted), how many of ours
    are compared with a surviving printed value, on which data, and why not (``files``:
    :class:`mvlab.reproduction.writer.Files`)."""
    rows = []
    for item in (i for i in ITEMS if i.paper == paper):
        counts = item.ran(files) if item.ran else {"run": 0, "repeats": 0, "compared": 0}
        run = counts["run"] - counts["repeats"]
        rows.append({"item": item.name, "holds": item.holds, "unit": item.unit, "printed": item.printed,
                     "printed first": item.printed_first,
                     "printed before": (f"{item.printed_before[0]} of them printed before in "
                                        f"{item.printed_before[1]}, counted there") if item.printed_before else "",
                     "in the text": item.surviving, "run": run, "repeats": counts["repeats"],
                     "repeats_value": counts.get("repeats_value", 0),
                     "compared": counts["compared"], "short": counts.get("short", 0),
                     "data": item.data if run else "none",
                     "not run, and why": _why_not(item, files) if run < item.printed or counts.get("short")
                     else "",
                     "means": item.means, "same_as": item.same_as})
    return pd.DataFrame(rows)


def _why_not(item: Item, files) -> str:
    """``item``'s reason for what is not run, computed from ``files`` where it depends on them."""
    return item.why_not(files) if callable(item.why_not) else item.why_not


def _count(row) -> str:
    if not row["unit"]:
        return "—"
    again = (f" (those of {row['same_as']}, counted there)" if row["same_as"] else
             f" ({row['printed before']})" if row["printed before"] else "")
    return f"{row['printed']} {row['unit']}{again}"


def coverage_markdown(paper: str, files) -> str:
    """``paper``'s coverage table (:func:`coverage_rows`) in Markdown, with a line of totals per unit."""
    frame = coverage_rows(paper, files)
    lines = ["| item | what it prints | printed | in the text we have | run (counted once) | compared with a "
             "printed value | data | not run, and why |", "|---|---|---|---|---|---|---|---|"]
    for r in frame.to_dict("records"):
        if not r["unit"]:
            lines.append(f"| {r['item']} | {r['holds']} | — | — | — | — | — | |")
            continue
        repeats = (f" (+{r['repeats']} that repeat the draws of a cell of Tables 4–7, {r['repeats_value']} of them "
                   "its printed value too)") if r["repeats"] else ""
        lines.append(f"| {r['item']} | {r['holds']} | {_count(r)} | {r['in the text']} | {r['run']}{repeats} | "
                     f"{r['compared']} | {r['data']} | {r['not run, and why']} |")
    totals = []
    for unit, group in frame[(frame["unit"] != "") & (frame["same_as"] == "")].groupby("unit", sort=False):
        totals.append(f"{int(group['run'].sum())} of {int(group['printed first'].sum())} {unit} run "
                      f"({int(group['compared'].sum())} compared with a printed value)")
    said = frame[frame["means"] != ""]
    means = "".join(f" Where the paper says its values are means ({', '.join(group['item'])}: {quote}), the "
                    "prediction interval of one draw is not counted (rule 1)."
                    for quote, group in said.groupby("means", sort=False))
    return "\n".join(lines) + "\n\nIn all: " + "; ".join(totals) + "." + means + _looked_for(paper)


def _looked_for(paper: str) -> str:
    """The paragraph under ``paper``'s coverage table: where its datasets not found were looked for
    (:func:`mvlab.reproduction.data_search.where_looked`), empty when every one was found."""
    lines = where_looked(paper)
    if not lines:
        return ""
    return (f"\n\nThe datasets not found were looked for ({SEARCHED_ON}) inside these registry packages (what "
            "each holds: `mvlab.reproduction.data_search`):\n\n" + "\n".join(f"- {line}" for line in lines))


def scope(paper: str, names, files) -> dict:
    """Totals over the items ``names`` of ``paper``: ``printed``, ``printed_first`` (less the values printed
    before in other items), ``in_text``, ``run`` (counted once), ``repeats``, ``compared``, ``short`` (run on fewer
    draws than the protocol's so far)."""
    frame = coverage_rows(paper, files)
    part = frame[frame["item"].isin(list(names))]
    if len(part) != len(set(names)):
        raise ValueError(f"{paper} has no item among {sorted(set(names) - set(part['item']))}; its items are "
                         f"{', '.join(frame['item'])}.")
    return {"printed": int(part["printed"].sum()), "printed_first": int(part["printed first"].sum()),
            "in_text": int(part["in the text"].sum()),
            "run": int(part["run"].sum()), "repeats": int(part["repeats"].sum()),
            "compared": int(part["compared"].sum()), "short": int(part["short"].sum()),
            "repeats_value": int(part["repeats_value"].sum())}


def _sdf_datasets_facts(files) -> dict:
    """``sdf_datasets``: how many of the paper's datasets the cells files hold, and which (its Table 2's names);
    ``sdf_not_run``: why each of the others is not run (bundled and not run yet, or where it was looked for)."""
    ran = _ran_datasets("sdf", files)
    names = [s.dataset for s in searches_of("sdf") if s.bundled_as in ran and s.dataset in SDF_DATASETS_OF_THE_PAPER]
    return {"sdf_datasets": (f"{len(names)} of the paper's {len(SDF_DATASETS_OF_THE_PAPER)} datasets are run "
                             f"({', '.join(names)})"),
            "sdf_not_run": why_not_run("sdf", SDF_DATASETS_OF_THE_PAPER, ran=lambda name: name in ran)}


def _grid_tables_repeated(cells: pd.DataFrame) -> list:
    """The tables of the grid cells whose draws a Table 8 cell repeats (:func:`repeats_a_grid_cell`)."""
    t8 = cells[repeats_a_grid_cell(cells)]
    grid = _grid_at_table8_setting(cells)
    return sorted(set(grid.merge(t8[["dataset", "model", "reading"]])["table"]))


def _scope_of(totals: dict, name: str) -> str:
    """``"of Table 10's 24 cells, 24 are run (8 of them on fewer draws than the protocol's so far)"``."""
    short = f" ({totals['short']} of them on fewer draws than the protocol's so far)" if totals["short"] else ""
    run = {0: "none is", 1: "1 is"}.get(totals["run"], f"{totals['run']} are")
    return f"of {name}'s {totals['printed']} cells, {run} run{short}"


def coverage_facts(files) -> dict:
    """The coverage tables and the scope numbers the report's prose quotes (``{{coverage.<fact>}}``)."""
    sdf = scope("sdf", [f"Table {t}" for t in range(4, 9)], files)
    t3 = scope("ofsp", ["Table 3"], files)
    t4 = scope("ofsp", ["Table 4"], files)
    dvs = scope("dvs", ["Table 2, accuracies"], files)
    sdf_cells = files("sdf-paper")[0]
    repeated = [str(t) for t in _grid_tables_repeated(sdf_cells)] if sdf_cells is not None else []
    repeated = (f"Table {repeated[0]}" if len(repeated) == 1 else
                f"Tables {', '.join(repeated[:-1])} and {repeated[-1]}" if repeated else "Tables 4–7")
    ofsp_cells = files("ofsp-paper")[0]
    ofsp_datasets = ofsp_cells["dataset"].nunique() if ofsp_cells is not None else 0
    return {"sdf": coverage_markdown("sdf", files), "ofsp": coverage_markdown("ofsp", files),
            "dvs": coverage_markdown("dvs", files),
            "sdf_scope": (f"of the paper's {sdf['printed']} cells of Tables 4–8, {sdf['printed_first']} print a value "
                          f"for the first time (Table 8's cascades, Lung Cancer's aside, repeat values of Tables 3–7); "
                          f"{sdf['run']} are run (counted once; "
                          f"{sdf['repeats']} more of Table 8 repeat the draws of a cell of "
                          f"{repeated} at N = {TABLE8_SETTING[0]}, T = {TABLE8_SETTING[1]}, "
                          f"{sdf['repeats_value']} of them its printed value too); "
                          + "; ".join(_scope_of(scope("sdf", [name], files), name)
                                      for name in ("Table 3", "Table 10"))),
            "ofsp_scope": (f"of Table 3's {t3['printed']} accuracy cells, {t3['run']} are run, on {ofsp_datasets} "
                           "of its "
                           f"{len(OFSP_DATASETS)} datasets and neither the paper's own data; of Table 4's "
                           f"{t4['printed']} disagreement cells ({t4['in_text']} in the text we have), "
                           f"{t4['compared']} are compared"),
            **_sdf_datasets_facts(files),
            "dvs_scope": (f"{dvs['run']} of Table 2's {dvs['printed']} accuracy cells are run (Mfeat, "
                          f"{dvs['run'] // 5} of its "
                          f"{len(DVS_DATASETS)} datasets), none compared: the table is lost from the text")}
