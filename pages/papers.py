"""Papers page: does mvlab reproduce each paper? Its tables as published beside mvlab's, cell by cell."""

import streamlit as st

from mvlab.experiments import sdf_paper
from mvlab.experiments.reproduction_report import cell_table, grid_markdown, read_cells, verdict_line
from mvlab.experiments.settings import SiameseSettings
from mvlab.ui.state import sidebar

sidebar()
st.title("Papers: published beside reproduced")
st.caption("Every number a paper printed next to mvlab's mean over independent draws of the paper's protocol, "
           "with its 95 % interval. Green: the paper's value lies inside our interval; orange: outside. Read from "
           "the results files committed under docs/reproduction/ (nothing is computed here).")

SDF_TABLES = {4: "Table 4: Ecoli", 5: "Table 5: Yeast", 6: "Table 6: Ionosphere",
              7: "Table 7: Mammographic masses, Haberman", 8: "Table 8: every model at N = 2000, T = 700"}


def siamese_link(row) -> str:
    """The Siamese page at this cell's dataset, N and T (its own pairs from the sidebar's seed, one λ)."""
    query = SiameseSettings(n_pairs=int(row["N"]), n_estimators=int(row["T"]), max_levels=10).to_query()
    return "siamese?" + "&".join([f"dataset={row['dataset']}"] + [f"{k}={v}" for k, v in query.items()])


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
        st.caption("Table 9 (paired t-tests over the datasets) and the paper's best-cell reading of Table 8 are in "
                   "docs/reproduction.md, generated from the same files.")
with ofsp_tab:
    cells = read_cells("ofsp")
    if cells is None or cells.empty:
        st.info("OFSP's Table 3 rows (All-AML leukemia on the 3,051-gene Golub copy, a Madelon-like set) are not "
                "committed yet; docs/reproduction.md §2 has the quick protocol on the bundled data.")
    else:
        st.markdown(f"**{verdict_line(cells)}.**")
        st.dataframe(cells, hide_index=True, width="stretch")
with dvs_tab:
    st.markdown("The paper's per-dataset accuracies (its Table 2) were lost from the text mvlab works from, so only "
                "its average ranks and its sign test can be compared: see docs/reproduction.md §1 (at the paper's "
                "sizes, DVS is not the best method on mvlab's ten datasets).")
