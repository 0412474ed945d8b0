"""Papers page: does mvlab reproduce each paper? Its tables as published beside mvlab's, cell by cell."""

import streamlit as st

from mvlab.experiments.settings import SiameseSettings, ViewConstructionSettings
from mvlab.reproduction import ofsp_paper, sdf_paper
from mvlab.reproduction.coverage import coverage_markdown
from mvlab.reproduction.markdown import CLASSIFIER_NAMES, cell_table, verdict_line
from mvlab.reproduction.ofsp_paper_report import (
    beside_the_protocol,
    ofsp_repetitions_line,
    ofsp_tables_markdown,
    ofsp_verdicts,
)
from mvlab.reproduction.ofsp_paper_report import (
    one_draw_counts as ofsp_one_draw,
)
from mvlab.reproduction.registry import READINGS, readings_of
from mvlab.reproduction.sdf_paper_report import (
    gap_by_n,
    grid_markdown,
    means_note,
    one_draw_counts,
    progress_line,
    readings_line,
)
from mvlab.reproduction.verdicts import rules_markdown
from mvlab.reproduction.writer import CommittedFiles, read_cells, read_draws
from mvlab.ui import links
from mvlab.ui.figure_text import show_figure
from mvlab.ui.state import sidebar
from mvlab.viz.reproduction_figures import ofsp_paper_against_ours, sdf_paper_against_ours
from mvlab.viz.view_construction_figures import k_sweep_boxes

sidebar()
st.title("Papers: published beside reproduced")
st.caption("Every number a paper printed next to mvlab's mean over independent draws of the paper's protocol, "
           "with its 95 % interval. The column *paper's value* says whether the paper's value lies inside our interval "
           "(shaded green), outside it but inside the 95 % prediction interval of one draw (yellow: it could be a "
           "single run of mvlab's protocol), or outside both (orange). Read from "
           "the results files committed under docs/reproduction/ (nothing is computed here).")

with st.expander("How the verdicts are decided"):
    st.markdown(rules_markdown(head=False))

READ_THE_SCATTER = ("Hover a marker for its cell. A bar that crosses the diagonal is a cell whose printed value lies "
                    "inside mvlab's 95 % interval (a cell without a bar: only if its marker sits on the diagonal); "
                    "above the diagonal, mvlab measured more than the paper printed.")
SDF_TABLES = {4: "Table 4: Ecoli", 5: "Table 5: Yeast", 6: "Table 6: Ionosphere",
              7: "Table 7: Mammographic masses, Haberman", 8: "Table 8: every model at N = 2000, T = 700"}


def siamese_link(row) -> str:
    """The Siamese page at this cell's dataset, N and T (its own pairs from the sidebar's seed, one λ)."""
    settings = SiameseSettings(n_pairs=int(row["N"]), n_estimators=int(row["T"]), max_levels=10)
    return links.settings_link("siamese", settings, {"dataset": row["dataset"]})


def view_construction_link(row) -> str:
    """The View construction page at this cell's classifier and the protocol's settings: 10 x 5-fold, every instance
    and feature, 5 inner folds, one GA of 30 generations per fold, shared by every k."""
    golub = row["dataset"] == "golub-3051"
    settings = ViewConstructionSettings(classifiers=(row["classifier"],), n_splits=5, n_repeats=10, n_used=100000,
                                        d_used=100000, inner_cv=5, ga_generations=30, ga_runs="shared",
                                        **({} if golub else {"source": "madelon", "madelon_n": 500}))
    return links.settings_link("view_construction", settings, {"dataset": "golub-3051"} if golub else None)


def show_reading(reading) -> None:
    """A further reading of a paper (after its own protocol): its title, why it is run, its command and draws, and
    its section of the report without the report's first line; nothing when none of its draws is committed."""
    cells, draws = read_cells(reading.name), read_draws(reading.name)
    if draws is None or draws.empty or cells is None:
        return
    st.subheader(reading.title)
    st.caption(f"{reading.reason} (`{reading.command}`, {reading.count_draws(draws)} draws in "
               f"{reading.stem}_draws.csv; *bold* paper values lie outside mvlab's interval, † also outside that of "
               "one draw.)")
    st.markdown(reading.markdown(cells, draws, head=False))


def show_coverage(paper: str) -> None:
    """The paper's coverage table: every table, figure and test it printed and what mvlab ran of each."""
    st.markdown("**What the paper printed and what was run** (each cell counted once; from the committed files)")
    st.markdown(coverage_markdown(paper, CommittedFiles()))


def coloured(frame):
    colour = {"inside": "background-color: #d7f0d0", "outside": "background-color: #fbe0c4",
              "outside (inside one draw's)": "background-color: #fdf3c8"}
    return frame.style.map(lambda v: colour.get(v, ""), subset=["paper's value"]).format(
        {"paper": "{:.3f}", "mvlab": "{:.3f}"}, na_rep="—")


sdf_tab, ofsp_tab, dvs_tab = st.tabs(["Siamese deep forest (Utkin & Ryabinin)", "OFSP (Kumar & Minz)",
                                      "Dynamic view selection (Bernard et al.)"])
with sdf_tab:
    show_coverage("sdf")
    cells = read_cells("sdf-paper")
    if cells is None or cells.empty:
        st.info(f"No draw of the paper's protocol is committed yet: `{READINGS['sdf-paper'].command}`.")
    else:
        readings = sorted(cells["reading"].unique())
        reading = st.radio("Pair sampling", readings, horizontal=True, key="papers_reading",
                           format_func={"disjoint": "disjoint instance pools (mvlab's default)",
                                        "shared": "one pool shared by training and test pairs"}.get,
                           help="The paper says only that N training and 2N/3 test pairs were drawn at random; "
                                "both readings are run.")
        part = cells[cells["reading"] == reading]
        st.markdown(f"**{verdict_line(part, one_draw_counts())}.** {means_note()} λ is chosen on training pairs "
                    f"only from {', '.join(f'{v:g}' for v in sdf_paper.LAM_GRID)}; a cell's *open* link trains that "
                    "dataset, N and T on the Siamese deep forest page (with the sidebar's seed and one λ).")
        sdf_draws = read_draws("sdf-paper")
        if sdf_draws is not None:
            st.caption(f"Progress of the protocol's grid: {progress_line(sdf_draws)}.")
        st.caption(f"mvlab minus the paper, by N and reading: {gap_by_n(cells)}.")
        st.caption(f"Which pair sampling the paper's numbers fit (cells run both ways): {readings_line(cells)}.")
        show_figure(st, sdf_paper_against_ours(cells), key="papers_sdf_scatter")
        st.caption(READ_THE_SCATTER)
        for table, title in SDF_TABLES.items():
            rows = part[part["table"] == table]
            if rows.empty:
                continue
            st.subheader(title)
            st.caption(verdict_line(rows, one_draw_counts()) + ". A cell reads: mvlab ± half-width of its 95 % "
                       "interval (draws) / the paper's value, **bold** when outside.")
            if table < 8:
                for name in sorted(rows["dataset"].unique()):
                    st.markdown((f"{name}\n\n" if table == 7 else "") + grid_markdown(rows[rows["dataset"] == name]))
            st.dataframe(coloured(cell_table(rows, siamese_link, one_draw_counts())), hide_index=True,
                         width="stretch",
                         column_config={"open": st.column_config.LinkColumn("open", display_text="train it")})
        st.caption("Table 9 (paired t-tests over the datasets) and the paper's best-cell reading of Table 8 are in "
                   "docs/reproduction.md, generated from the committed files.")
    for reading in readings_of("sdf")[1:]:
        show_reading(reading)
with ofsp_tab:
    show_coverage("ofsp")
    cells, draws = read_cells("ofsp-paper"), read_draws("ofsp-paper")
    if cells is None or cells.empty:
        st.info("OFSP's Table 3 and 4 rows (All-AML leukemia on the 3,051-gene Golub copy, a Madelon-like set) are not "
                f"committed yet: `{READINGS['ofsp-paper'].command}`.")
    else:
        st.markdown(f"**OFSP's cells: {ofsp_verdicts(cells)}.** Neither dataset is the "
                    f"paper's own (see each heading); 10 x 5-fold cross-validation, {ofsp_repetitions_line(cells)}. "
                    "The other five methods have no printed cell (the paper draws them as box plots).")
        for dataset, title in ofsp_paper.DATASETS.items():
            every = cells[cells["dataset"] == dataset]
            if every.empty:
                continue
            st.subheader(title)
            st.markdown(ofsp_tables_markdown(every, pending=True))
            part = every[every["table"] == 3]
            part = part.sort_values("model", key=lambda m: m != "OFSP", kind="stable")  # the paper's cells first
            st.dataframe(coloured(cell_table(part, view_construction_link, ofsp_one_draw(3))), hide_index=True,
                         width="stretch",
                         column_config={"open": st.column_config.LinkColumn("open", display_text="train it")})
            if draws is not None:
                show_figure(st, k_sweep_boxes(
                    ofsp_paper.figure_panels(draws, dataset), metric_titles=ofsp_paper.FIGURE_METRICS,
                    classifier_titles=CLASSIFIER_NAMES, title="The paper's Figs. 4-7: each method over k = 1..10 "
                    "(the mean over repetitions at each k)"), key=f"papers_ofsp_boxes_{dataset}")
                st.caption("Seconds: building the views and fitting the ensemble on a fold's training rows, "
                           "wall-clock; the paper's Fig. 6 times the classifiers alone (CPU).")
    both = beside_the_protocol(cells, read_cells("ofsp-leak"))
    if len(both):
        st.subheader("Tables 3 and 4: every printed OFSP cell against mvlab's"
                     + (", under both readings" if both["reading"].nunique() == 2 else ""))
        show_figure(st, ofsp_paper_against_ours(both), key="papers_ofsp_scatter")
        st.caption(READ_THE_SCATTER)
    for reading in readings_of("ofsp")[1:]:
        show_reading(reading)
with dvs_tab:
    show_coverage("dvs")
    st.markdown("The paper's per-dataset accuracies (its Table 2) were lost from the text mvlab works from, so only "
                "its average ranks and its sign test can be compared: see docs/reproduction.md §1 (at the paper's "
                "sizes, DVS is not the best method on mvlab's ten datasets).")
