"""Papers page: does mvlab reproduce each paper? Its tables as published beside mvlab's, cell by cell."""

import streamlit as st

from mvlab.experiments.settings import SiameseSettings, ViewConstructionSettings
from mvlab.reproduction import ofsp_leak, ofsp_paper, sdf_paper
from mvlab.reproduction.writer import (
    CLASSIFIER_NAMES,
    cell_table,
    gap_by_n,
    grid_markdown,
    madelon_generator_markdown,
    ofsp_knn_markdown,
    ofsp_repetitions_line,
    ofsp_svm_range_markdown,
    ofsp_tables_markdown,
    ofsp_verdicts,
    progress_line,
    read_cells,
    read_draws,
    readings_line,
    verdict_line,
)
from mvlab.ui import links
from mvlab.ui.figure_text import show_figure
from mvlab.ui.state import sidebar
from mvlab.viz.reproduction_figures import ofsp_paper_against_ours, sdf_paper_against_ours
from mvlab.viz.view_construction_figures import k_sweep_boxes

CLASSIFIER_READINGS = {
    "ofsp_knn": ("A reading that explains most of Madelon's KNN gap: the number of neighbours",
                 "mvlab's KNN is 1-NN; PRTools' knnc, the paper's, chooses k by leave-one-out.", "--knn-neighbours",
                 ofsp_knn_markdown),
    "ofsp_svm_range": ("A reading of Madelon's linear-SVM gap: the features' numeric range",
                       "The paper's SVM (PRTools' svc, C = 1) ran on NIPS 2003's Madelon, whose features lie in "
                       "0-999; mvlab's synthetic Madelon keeps its generator's scale, where that C = 1 is a C of "
                       "about 2,200.", "--svm-range", ofsp_svm_range_markdown),
}
"""The OFSP readings that change the classifier alone: title, why, flag of ``reproduce ofsp --table3``, writer."""

sidebar()
st.title("Papers: published beside reproduced")
st.caption("Every number a paper printed next to mvlab's mean over independent draws of the paper's protocol, "
           "with its 95 % interval. The column *paper's value* says whether the paper's value lies inside our interval "
           "(shaded green) or outside (orange). Read from "
           "the results files committed under docs/reproduction/ (nothing is computed here).")

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


def coloured(frame):
    colour = {"inside": "background-color: #d7f0d0", "outside": "background-color: #fbe0c4"}
    return frame.style.map(lambda v: colour.get(v, ""), subset=["paper's value"]).format(
        {"paper": "{:.3f}", "mvlab": "{:.3f}"}, na_rep="—")


sdf_tab, ofsp_tab, dvs_tab = st.tabs(["Siamese deep forest (Utkin & Ryabinin)", "OFSP (Kumar & Minz)",
                                      "Dynamic view selection (Bernard et al.)"])
with sdf_tab:
    cells = read_cells("sdf")
    if cells is None or cells.empty:
        st.info("No draw of the paper's protocol is committed yet: `python -m mvlab reproduce sdf --paper`.")
    else:
        readings = sorted(cells["reading"].unique())
        reading = st.radio("Pair sampling", readings, horizontal=True, key="papers_reading",
                           format_func={"disjoint": "disjoint instance pools (mvlab's default)",
                                        "shared": "one pool shared by training and test pairs"}.get,
                           help="The paper says only that N training and 2N/3 test pairs were drawn at random; "
                                "both readings are run.")
        part = cells[cells["reading"] == reading]
        st.markdown(f"**{verdict_line(part)}.** λ is chosen on training pairs only from "
                    f"{', '.join(f'{v:g}' for v in sdf_paper.LAM_GRID)}; a cell's *open* link trains that "
                    "dataset, N and T on the Siamese deep forest page (with the sidebar's seed and one λ).")
        sdf_draws = read_draws("sdf")
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
            st.caption(verdict_line(rows) + ". A cell reads: mvlab ± half-width of its 95 % interval (draws) / the "
                       "paper's value, **bold** when outside.")
            if table < 8:
                for name in sorted(rows["dataset"].unique()):
                    st.markdown((f"{name}\n\n" if table == 7 else "") + grid_markdown(rows[rows["dataset"] == name]))
            st.dataframe(coloured(cell_table(rows, siamese_link)), hide_index=True, width="stretch",
                         column_config={"open": st.column_config.LinkColumn("open", display_text="train it")})
        st.caption("Table 9 (paired t-tests over the datasets), the paper's best-cell reading of Table 8 and three "
                   "more readings of the paper (λ chosen on the test draws, pairs drawn as they come, the QP fed "
                   "in-sample probabilities) are in docs/reproduction.md, generated from the committed files.")
with ofsp_tab:
    cells, draws = read_cells("ofsp"), read_draws("ofsp")
    if cells is None or cells.empty:
        st.info("OFSP's Table 3 and 4 rows (All-AML leukemia on the 3,051-gene Golub copy, a Madelon-like set) are not "
                "committed yet: `python -m mvlab reproduce ofsp --table3`.")
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
            st.dataframe(coloured(cell_table(part, view_construction_link)), hide_index=True, width="stretch",
                         column_config={"open": st.column_config.LinkColumn("open", display_text="train it")})
            if draws is not None:
                show_figure(st, k_sweep_boxes(
                    ofsp_paper.figure_panels(draws, dataset), metric_titles=ofsp_paper.FIGURE_METRICS,
                    classifier_titles=CLASSIFIER_NAMES, title="The paper's Figs. 4-7: each method over k = 1..10 "
                    "(the mean over repetitions at each k)"), key=f"papers_ofsp_boxes_{dataset}")
                st.caption("Seconds: building the views and fitting the ensemble on a fold's training rows, "
                           "wall-clock; the paper's Fig. 6 times the classifiers alone (CPU).")
    leak = read_cells("ofsp_leak")
    if leak is not None and not leak.empty:
        st.subheader("A reading that explains All-AML's 100 % accuracy and near-zero disagreement: OFSP's accuracy "
                     "measured on the test fold")
        st.caption("The paper does not say on which rows OFSP measures the accuracy its greedy search maximises; "
                   "mvlab's cells above use an inner cross-validation of the training rows. Here the same folds "
                   "and seeds with that accuracy measured on the outer test fold, the rows then scored: it chooses "
                   "on test data, a diagnosis, not a protocol (`reproduce ofsp --table3 --ofsp-on-test`).")
        for dataset, title in ofsp_paper.DATASETS.items():
            part = leak[leak["dataset"] == dataset]
            if not part.empty:
                model = part["model"].iloc[0]
                st.markdown(f"**{title}**: {ofsp_verdicts(part, model)}.\n\n" + ofsp_tables_markdown(part, model))
    both = ofsp_leak.beside_the_protocol(cells, leak)
    if len(both):
        st.subheader("Tables 3 and 4: every printed OFSP cell against mvlab's"
                     + (", under both readings" if both["reading"].nunique() == 2 else ""))
        show_figure(st, ofsp_paper_against_ours(both), key="papers_ofsp_scatter")
        st.caption(READ_THE_SCATTER)
    for stem, (title, why, flag, markdown_of) in CLASSIFIER_READINGS.items():
        reading_cells, reading_draws = read_cells(stem), read_draws(stem)
        if reading_cells is not None and not reading_cells.empty:
            st.subheader(title)
            st.caption(f"{why} The same folds and seeds with both, for the three methods whose views do not depend "
                       f"on the classifier (`reproduce ofsp --table3 {flag}`, {int(reading_cells['draws'].max())} "
                       "repetitions); median [min, max] over k = 1..10 of the mean accuracy over the repetitions.")
            st.markdown(markdown_of(reading_cells, reading_draws, head=False))
    generator = read_draws("madelon_generator")
    if generator is not None and not generator.empty:
        st.subheader("How far the data's draw alone moves a Madelon cell")
        st.caption("mvlab's Madelon is one draw of Guyon's generator with NIPS 2003's settings, the paper's NIPS's "
                   "own draw. Each classifier alone on other draws of the same generator, every feature or the 20 "
                   "useful ones (`reproduce ofsp --table3 --generator-draws`): a gap to the paper smaller than "
                   "this spread cannot tell the method's fidelity from the data's draw.")
        st.markdown(madelon_generator_markdown(read_cells("madelon_generator"), generator, head=False))
with dvs_tab:
    st.markdown("The paper's per-dataset accuracies (its Table 2) were lost from the text mvlab works from, so only "
                "its average ranks and its sign test can be compared: see docs/reproduction.md §1 (at the paper's "
                "sizes, DVS is not the best method on mvlab's ten datasets).")
