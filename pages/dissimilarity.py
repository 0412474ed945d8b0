"""Dissimilarity page: what does the forest think is similar?"""

import json

import numpy as np
import streamlit as st

from mvlab.core.projection import mds_2d
from mvlab.experiments.combinations import CombinationComparison
from mvlab.experiments.settings import DissimilaritySettings
from mvlab.forest.measures import MEASURES
from mvlab.ui import links, runs, shared, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.prose import page_text
from mvlab.ui.state import current_seed, set_kept, sidebar
from mvlab.viz import dissimilarity_figures, shared_figures

ds = sidebar()
seed = current_seed()
st.title("Dissimilarity")
st.caption("What does the forest think is similar? One random forest per view, one dissimilarity matrix per "
           "view, and four ways to merge them (Bernard et al. 2020).")
with st.expander("What am I looking at?"):
    st.markdown(page_text("dissimilarity", "what_am_i_looking_at"))

MEASURE_NAMES = {name: m.title for name, m in MEASURES.items()}
WIDGETS = widgets.widget_keys(DissimilaritySettings, "dis", names={"kdn_k": "kdn"})
links.apply_page(DissimilaritySettings, WIDGETS, set_kept, seed)
S = DissimilaritySettings
c = st.columns(4)
measure = widgets.select(c[0], S, "measure", "Measure", WIDGETS["measure"], format_func=MEASURE_NAMES.get)
paper = widgets.toggle(c[1], S, "paper", "Paper settings", WIDGETS["paper"], help=S.paper_note())
trees = None if paper else widgets.number(c[1], S, "n_estimators", "Trees per forest", WIDGETS["n_estimators"], step=25)
test_size = widgets.slider(c[2], S, "test_size", "Test share", WIDGETS["test_size"], step=0.05)
k = widgets.number(c[3], S, "k", "k (SWknn)", WIDGETS["k"])
extra = {} if trees is None else {"n_estimators": int(trees)}
if measure == "path" and not paper:
    extra["w"] = widgets.slider(st, S, "w", "w (path-length decay)", WIDGETS["w"], step=0.05)
if measure == "rfd" or paper:
    extra["kdn_k"] = widgets.number(st, S, "kdn_k", "k of k-Disagreeing Neighbours", WIDGETS["kdn_k"])

settings = S(seed=seed, measure=measure, paper=paper, test_size=float(test_size), k=int(k), **extra)
used = settings.effective()
links.publish(settings)
runs.checks(settings, ds)


@runs.training_part
def train_and_show():
    result = runs.result_or_train(settings, ds, CombinationComparison, "dis_train", label="Growing forests")
    if result is None:
        st.info(f"Measure in use: **{used.measure_object().describe()}**, {used.n_estimators} trees per forest. "
                "Choose the settings and press **Train**.")
        return

    n_train, n_test = len(result.train_index), len(result.test_index)
    st.success(f"{ds.name}: {n_train} training and {n_test} test instances, {len(result.view_names)} view forests "
               f"of {used.n_estimators} trees, measure {used.measure_object().describe()} "
               f"({result.seconds['view forests']:.1f} s).")
    st.caption(result.prototype_note)
    key = runs.result_key(settings, ds)  # figures of a result are built once per server, shared by every session
    left, right = st.columns(2)
    show_figure(left, shared.figure("dis_accuracy", key, lambda: shared_figures.method_accuracy(result.accuracy)),
                      key="dis_accuracy")
    show_figure(right, shared.figure("dis_weights", key,
                                   lambda: dissimilarity_figures.view_weights(result.weights, result.view_names)),
                       key="dis_weights")
    st.dataframe(result.table().round(4), hide_index=True, width="stretch")

    st.subheader("Dissimilarity matrices (training instances × training instances)")
    if result.sampled:
        st.caption(f"{ds.name} is too large to keep every training × training matrix: the matrices and the map below "
                   f"are those of {result.sample_note} (computed exactly for those rows).")
    names = ["joint (average)"] + result.view_names
    labels_train = np.asarray(result.classes)[result.y_train[result.matrix_rows]]


    def heatmap(name):
        D = result.joint_train("average") if name.startswith("joint") else \
            result.train_dissimilarities[result.view_names.index(name)]
        return dissimilarity_figures.dissimilarity_heatmap(
            D, labels_train, title=f"{name}: {MEASURE_NAMES[used.measure]}", sample_note=result.sample_note)


    @st.fragment
    def heatmaps():
        """One tab per matrix; only the open tab is drawn and sent (a click on another tab reruns this part alone):
        a class receiving a result gets one heatmap each, not all of them."""
        for tab, name in zip(st.tabs(names, key="dis_matrix", on_change="rerun"), names):
            if not tab.open:
                continue
            with tab:
                show_figure(st, shared.figure("dis_heatmap", [key, name], lambda name=name: heatmap(name)),
                                key=f"dis_heat_{name}")
                if not name.startswith("joint"):
                    q = result.view_names.index(name)
                    st.caption(f"Out-of-bag accuracy of the {name} forest: {result.view_oob_accuracy[q]:.3f}")


    heatmaps()

    st.subheader("Map of the joint dissimilarity (classical MDS)")
    show_figure(st, shared.figure("dis_mds", key, lambda: shared_figures.view_projections(
        {"joint (average)": mds_2d(result.joint_train("average"))}, labels_train, result.classes, columns=1,
        title="Training instances placed by their joint dissimilarity" + (f" ({result.sample_note})" if result.sampled
                                                                          else ""),
        axis_names=("axis 1", "axis 2"))), key="dis_mds")
    st.caption("Hover a point for its instance index (a row of the dataset) and class.")

    c1, c2 = st.columns(2)
    c1.download_button("Download matrices and results (.npz)", result.to_npz, file_name=f"{ds.name}-dissimilarity.npz",
                       mime="application/octet-stream", key="dis_dl_npz")
    c2.download_button("Download results (.csv)", lambda: result.table().assign(  # made on the click, not every run
        dataset=ds.name, seed=seed, settings=json.dumps(settings.manifest(ds))).to_csv(index=False),
        file_name=f"{ds.name}-dissimilarity.csv", mime="text/csv", key="dis_dl_csv")


train_and_show()
