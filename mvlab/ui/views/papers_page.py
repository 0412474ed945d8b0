"""The Papers page's view: does mvlab reproduce each paper? Every paper of the coverage tables gets a tab: what it
printed and what was run, its own protocol's cells beside the paper's values, cell by cell, then each further
reading of it. Everything comes from the reading registry (:mod:`mvlab.reproduction.registry`: which readings a
paper has, its protocol first, their commands, titles, reasons and figures) and the committed files under
docs/reproduction/; nothing is computed here. Colours come from :mod:`mvlab.viz.palette`."""

from __future__ import annotations

import streamlit as st
from plotly.colors import hex_to_rgb

from mvlab.experiments.settings import SiameseSettings, ViewConstructionSettings
from mvlab.i18n import N_, _
from mvlab.reproduction import ofsp_paper, sdf_paper
from mvlab.reproduction.coverage import (
    PAPER_NAMES,
    counted_once,
    coverage_markdown,
    repeats_a_grid_cell,
    repeats_its_printed_value,
)
from mvlab.reproduction.markdown import CLASSIFIER_NAMES, cell_table, verdict_line
from mvlab.reproduction.ofsp_paper_report import (
    ofsp_repetitions_line,
    ofsp_tables_markdown,
    ofsp_verdicts,
)
from mvlab.reproduction.ofsp_paper_report import one_draw_counts as ofsp_one_draw
from mvlab.reproduction.registry import readings_of
from mvlab.reproduction.sdf_paper_report import (
    TABLE_NAMES,
    gap_by_n,
    grid_markdown,
    means_note,
    one_draw_counts,
    progress_line,
    readings_line,
)
from mvlab.reproduction.verdicts import rules_markdown
from mvlab.reproduction.writer import CommittedFiles
from mvlab.ui import links
from mvlab.ui.figure_text import show_figure
from mvlab.ui.page import Shown
from mvlab.ui.prose import page_text
from mvlab.ui.tables import column_name, translated
from mvlab.viz.palette import GREEN, ORANGE, RED
from mvlab.viz.view_construction_figures import k_sweep_boxes

__all__ = ["VERDICT_COLOURS", "view", "paper_tab", "show_coverage", "show_reading", "report_text", "figure_of",
           "coloured", "sdf_protocol", "sdf_tables", "siamese_link", "ofsp_protocol", "ofsp_dataset",
           "view_construction_link", "dvs_paper"]

VERDICT_COLOURS = {N_("inside"): GREEN, N_("outside (inside one draw's)"): ORANGE, N_("outside"): RED}
"""The shade of a cell's verdict (the column *paper's value*): inside our interval in the palette's colour of what
went right, outside both intervals in that of what went wrong, outside ours but inside one draw's between them."""
SHADE = 0.25
"""How much of a verdict's colour a cell's background takes (the rest white: the text stays dark on light)."""


def view(shown: Shown) -> None:
    """How the verdicts are decided, then one tab per paper (:func:`paper_tab`)."""
    with st.expander(_("How the verdicts are decided")):
        report_text(rules_markdown(head=False), "rules")
    files = CommittedFiles()
    for tab, paper in zip(st.tabs([_(name) for name in PAPER_NAMES.values()]), PAPER_NAMES):
        with tab:
            paper_tab(paper, files)


def paper_tab(paper: str, files) -> None:
    """One paper: its coverage table, its own protocol's cells (its section of :data:`PROTOCOL_SECTIONS`, handed
    the paper's first reading), then each further reading (:func:`show_reading`)."""
    show_coverage(paper, files)
    readings = readings_of(paper)
    PROTOCOL_SECTIONS[paper](readings[0] if readings else None, files)
    for reading in readings[1:]:
        show_reading(reading, files)


def show_coverage(paper: str, files) -> None:
    """The paper's coverage table: every table, figure and test it printed and what mvlab ran of each."""
    st.markdown(_("**What the paper printed and what was run** (each cell counted once; from the committed files)"))
    report_text(coverage_markdown(paper, files), f"coverage-{paper}")


def show_reading(reading, files) -> None:
    """A further reading of a paper (after its own protocol): its title, why it is run, its command and draws, and
    its section of the report without the report's first line; nothing when none of its draws is committed."""
    cells, draws = files(reading.name)
    if draws is None or draws.empty or cells is None:
        return
    with st.container(key=f"report-title-{reading.name}"):
        st.subheader(reading.title)
    st.caption(page_text("papers", "further_reading", reason=reading.reason, command=reading.command,
                         draws=reading.draws_text(draws), stem=reading.stem))
    report_text(reading.markdown(cells, draws, head=False), f"reading-{reading.name}")


def report_text(markdown: str, name: str) -> None:
    """Markdown of the reproduction report itself (its rules, coverage tables, readings and grids: English, a
    scientific record, as the page's header says in the reader's language), in a container of its own whose class
    says so (``st-key-report-<name>``; the browser test of the translations leaves these out)."""
    with st.container(key=f"report-{name}"):
        st.markdown(markdown)


def figure_of(reading, files):
    """``(figure, readings)``: the reading's figure of the printed cells against mvlab's (None when it has none or
    no cell has a printed value yet) and how many readings' committed cells it was drawn from."""
    drawn = []

    def read(name: str):
        cells, draws = files(name)
        if cells is not None and len(cells):
            drawn.append(name)
        return cells, draws

    figure = reading.figure(read) if reading.figure is not None else None
    return figure, len(drawn)


def coloured(frame):
    """``frame`` (a :func:`mvlab.reproduction.markdown.cell_table`) styled: each verdict shaded in its colour of
    :data:`VERDICT_COLOURS`, the paper's value and ours to three decimals."""
    shades = {_(verdict): "background-color: rgba({}, {}, {}, {})".format(*hex_to_rgb(colour), SHADE)
              for verdict, colour in VERDICT_COLOURS.items()}
    verdicts = column_name("paper's value")
    frame = translated(frame.assign(**{"paper's value": [_(v) if v in VERDICT_COLOURS else v
                                                         for v in frame["paper's value"]]}))
    return frame.style.map(lambda v: shades.get(v, ""), subset=[verdicts]).format(
        {column_name("paper"): "{:.3f}", "mvlab": "{:.3f}"}, na_rep="—")


def cells_frame(frame) -> None:
    """A table of cells (:func:`coloured`), its *open* column a link that trains the cell's setting."""
    st.dataframe(coloured(frame), hide_index=True, width="stretch",
                 column_config={column_name("open"): st.column_config.LinkColumn(column_name("open"),
                                                                                  display_text=_("train it"))})


# ------------------------------------------------------------------------------ the Siamese deep forest
def sdf_protocol(reading, files) -> None:
    """The paper's Tables 4-8 under the pair sampling chosen: the verdicts, the protocol's progress, the gap by N,
    which sampling the paper's numbers fit, every printed cell against ours, then one table at a time."""
    cells, draws = files(reading.name)
    if cells is None or cells.empty:
        st.info(_("No draw of the paper's protocol is committed yet: `{command}`.").format(command=reading.command))
        return
    sampling = st.radio(_("Pair sampling"), sorted(cells["reading"].unique()), horizontal=True, key="papers_reading",
                        format_func=_, help=page_text("papers", "pair_sampling"))
    part = cells[cells["reading"] == sampling]
    st.markdown(page_text("papers", "sdf_protocol", verdicts=verdict_line(counted_once(part), one_draw_counts()),
                          means=means_note(), grid=", ".join(f"{v:g}" for v in sdf_paper.LAM_GRID)))
    if draws is not None:
        st.caption(_("Progress of the protocol's grid: {progress}.").format(progress=progress_line(draws)))
    st.caption(_("mvlab minus the paper, by N and reading: {gaps}.").format(gaps=gap_by_n(cells)))
    st.caption(_("Which pair sampling the paper's numbers fit (cells run both ways): {fit}.").format(
        fit=readings_line(cells)))
    figure, _drawn = figure_of(reading, files)
    if figure is not None:
        show_figure(st, figure, key="papers_sdf_scatter")
        st.caption(page_text("papers", "read_the_scatter"))
    sdf_tables(part)
    st.caption(page_text("papers", "sdf_table9"))


def sdf_table_title(table: int) -> str:
    """The heading of one of the paper's Tables 4-8: its datasets, or Table 8's setting."""
    if table in TABLE_NAMES:
        return _("Table {table}: {datasets}").format(table=table, datasets=TABLE_NAMES[table])
    n, t = sdf_paper.TABLE8_SETTING
    return _("Table {table}: every model at N = {n}, T = {t}").format(table=table, n=n, t=t)


def sdf_tables(part) -> None:
    """Each table of the paper that has cells: its verdicts, its N x T grids (Tables 4-7, one per dataset) and its
    cells with their links to the Siamese deep forest page."""
    for table in sorted(part["table"].unique()):
        rows = part[part["table"] == table]
        st.subheader(sdf_table_title(int(table)))
        st.caption(verdict_line(rows, one_draw_counts()) + ". " + _(
            "A cell reads: mvlab ± half-width of its 95 % interval (draws) / the paper's value, **bold** when "
            "outside.") + _repeats_note(part, rows))
        datasets = sorted(rows["dataset"].unique()) if table in TABLE_NAMES else []
        for name in datasets:
            report_text((f"{name}\n\n" if len(datasets) > 1 else "") + grid_markdown(rows[rows["dataset"] == name]),
                        f"grid-{table}-{name}")
        cells_frame(cell_table(rows, siamese_link, one_draw_counts()))


def _repeats_note(part, rows) -> str:
    """For Table 8: how many of its cells repeat the draws of a cell of Tables 4-7, and how many its printed value
    too (counted there in the verdict above the tables); empty for the other tables."""
    repeats = repeats_a_grid_cell(part).loc[rows.index]
    if not repeats.any():
        return ""
    same = int(repeats_its_printed_value(part).loc[rows.index].sum())
    return " " + _("{repeats} of these {cells} cells repeat the draws of a cell of Tables 4–7 (N = 2000, T = 700), "
                   "{same} of them its printed value too: the verdict above the tables counts those draws "
                   "once.").format(
        repeats=int(repeats.sum()), cells=len(rows), same=same)


def siamese_link(row) -> str:
    """The Siamese page at this cell's dataset, N and T (its own pairs from the sidebar's seed, one λ)."""
    settings = SiameseSettings(n_pairs=int(row["N"]), n_estimators=int(row["T"]), max_levels=10)
    return links.settings_link("siamese", settings, {"dataset": row["dataset"]})


# ---------------------------------------------------------------------------------------------- OFSP
def ofsp_protocol(reading, files) -> None:
    """OFSP's Table 3 and 4 rows at the paper's protocol, one dataset at a time, then every printed OFSP cell
    against mvlab's under each reading the protocol's figure draws."""
    cells, draws = files(reading.name)
    if cells is None or cells.empty:
        st.info(_("OFSP's Table 3 and 4 rows ({rows}) are not committed yet: `{command}`.").format(
            rows=", ".join(ofsp_paper.PAPER_ROW.values()), command=reading.command))
    else:
        st.markdown(page_text("papers", "ofsp_protocol", verdicts=ofsp_verdicts(cells),
                              repetitions=ofsp_repetitions_line(cells)))
        for dataset, title in ofsp_paper.DATASETS.items():
            ofsp_dataset(cells[cells["dataset"] == dataset], draws, dataset, title)
    figure, drawn = figure_of(reading, files)
    if figure is not None:
        st.subheader(_("Tables 3 and 4: the printed OFSP cells mvlab ran, against mvlab's") if drawn < 2 else
                     _("Tables 3 and 4: the printed OFSP cells mvlab ran, against mvlab's, under both readings")
                     if drawn == 2 else
                     _("Tables 3 and 4: the printed OFSP cells mvlab ran, against mvlab's, under {n} readings").format(
                         n=drawn))
        show_figure(st, figure, key="papers_ofsp_scatter")
        st.caption(page_text("papers", "read_the_scatter"))


def ofsp_dataset(every, draws, dataset: str, title: str) -> None:
    """One dataset's rows: Tables 3 and 4 as grids, Table 3's cells (the paper's first) with their links to the
    View construction page, and the paper's Figs. 4-7 from the draws."""
    if every.empty:
        return
    st.subheader(title)
    report_text(ofsp_tables_markdown(every, pending=True), f"ofsp-{dataset}")
    part = every[every["table"] == 3].sort_values("model", key=lambda m: m != "OFSP", kind="stable")
    cells_frame(cell_table(part, view_construction_link, ofsp_one_draw(3)))
    if draws is None:
        return
    show_figure(st, k_sweep_boxes(
        ofsp_paper.figure_panels(draws, dataset), metric_titles=ofsp_paper.FIGURE_METRICS,
        classifier_titles=CLASSIFIER_NAMES, title=_("The paper's Figs. 4-7: each method over k = 1..10 (the mean "
                                                    "over repetitions at each k)")), key=f"papers_ofsp_boxes_{dataset}")
    st.caption(_("Seconds: building the views and fitting the ensemble on a fold's training rows, wall-clock; the "
                 "paper's Fig. 6 times \"MEL using\" each method in CPU time (its lost Table 5 timed the "
                 "classifiers)."))


def view_construction_link(row) -> str:
    """The View construction page at this cell's classifier and the protocol's settings: 10 x 5-fold, every instance
    and feature, 5 inner folds, one GA of 30 generations per fold, shared by every k."""
    golub = row["dataset"] == "golub-3051"
    settings = ViewConstructionSettings(classifiers=(row["classifier"],), n_splits=5, n_repeats=10, n_used=100000,
                                        d_used=100000, inner_cv=5, ga_generations=30, ga_runs="shared",
                                        **({} if golub else {"source": "madelon", "madelon_n": 500}))
    return links.settings_link("view_construction", settings, {"dataset": "golub-3051"} if golub else None)


# ----------------------------------------------------------------------------------------------- DVS
def dvs_paper(reading, files) -> None:
    """What can be compared of the dynamic-view-selection paper (it has no reading: its per-dataset table is lost
    from the text mvlab works from)."""
    st.markdown(page_text("papers", "dvs_paper"))


PROTOCOL_SECTIONS = {"sdf": sdf_protocol, "ofsp": ofsp_protocol, "dvs": dvs_paper}
"""Each paper's section after its coverage table, by the paper's name in the registry and the coverage tables;
called with the paper's first reading (its own protocol; None for a paper without readings) and the files."""
