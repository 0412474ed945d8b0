"""Dissimilarity page: what does the forest think is similar?"""

import json

import numpy as np
import streamlit as st

from mvlab.experiments.combinations import CombinationComparison
from mvlab.experiments.settings import DissimilaritySettings
from mvlab.forest.measures import MEASURES
from mvlab.ui import links, runs
from mvlab.ui.state import current_seed, keep, set_kept, sidebar
from mvlab.viz import dissimilarity_figures, shared_figures
from mvlab.viz.projection import mds_2d

ds = sidebar()
seed = current_seed()
st.title("Dissimilarity")
st.caption("What does the forest think is similar? One random forest per view, one dissimilarity matrix per "
           "view, and four ways to merge them (Bernard et al. 2020).")
with st.expander("What am I looking at?"):
    st.markdown(
        """
A random forest is grown on each view. Two instances are **similar** for a forest when its trees put them
in the same leaves: the Breiman dissimilarity is the share of trees that separate them. Other measures
weigh this differently (path length between the leaves, the hardness of the reference instance (RFD),
only out-of-bag trees (OOB), RF-GAP). Each view gives an n × n matrix; a **combination** averages the
matrices with weights (all equal; from leave-one-out kNN accuracy; from kernel alignment with the labels;
from each forest's out-of-bag accuracy) and a final forest classifies the rows of the joint matrix. All
combinations share the same view forests and the same train/test split. In the heatmaps, instances are
grouped by class: dark blocks on the diagonal mean the view separates the classes.
"""
    )

MEASURE_NAMES = {name: m.title for name, m in MEASURES.items()}
WIDGETS = {"measure": "dis_measure", "paper": "dis_paper", "n_estimators": "dis_trees", "test_size": "dis_test",
           "k": "dis_k", "w": "dis_w", "kdn_k": "dis_kdn"}
links.apply_page(DissimilaritySettings, WIDGETS, set_kept, seed)
c = st.columns(4)
measure = c[0].selectbox("Measure", list(MEASURES), format_func=MEASURE_NAMES.get, **keep("dis_measure", "breiman"))
paper = c[1].toggle("Paper settings", **keep("dis_paper", False),
                    help="The chapter's settings: the RFD measure and 512 trees per forest.")
trees = 512 if paper else c[1].number_input("Trees per forest", 5, 1000, step=25, **keep("dis_trees", 100))
test_size = c[2].slider("Test share", 0.1, 0.9, step=0.05, **keep("dis_test", 0.5), help="Paper: 50/50 split.")
k = c[3].number_input("k (SWknn)", 1, 50, step=1, **keep("dis_k", 7), help="Neighbours of the leave-one-out kNN.")
extra = {}
if measure == "path" and not paper:
    extra["w"] = st.slider("w (path-length decay)", 0.05, 5.0, step=0.05, **keep("dis_w", 1.0))
if measure == "rfd" or paper:
    extra["kdn_k"] = st.number_input("k of k-Disagreeing Neighbours", 1, 50, step=1, **keep("dis_kdn", 7))

settings = DissimilaritySettings(seed=seed, measure=measure, paper=paper, n_estimators=int(trees),
                                 test_size=float(test_size), k=int(k), **extra)
used = settings.effective()
links.publish(settings)
runs.checks(settings, ds)
result = runs.lookup(settings, ds, CombinationComparison)
result = runs.train_button(settings, ds, "dis_train", label="Growing forests") or result
if result is None:
    st.info(f"Measure in use: **{used.measure_object().describe()}**, {used.n_estimators} trees per forest. "
            "Choose the settings and press **Train**.")
    st.stop()

n_train, n_test = len(result.train_index), len(result.test_index)
st.success(f"{ds.name}: {n_train} training and {n_test} test instances, {len(result.view_names)} view forests "
           f"of {used.n_estimators} trees, measure {used.measure_object().describe()} "
           f"({result.seconds['view forests']:.1f} s).")
left, right = st.columns(2)
left.plotly_chart(shared_figures.method_accuracy(result.accuracy), key="dis_accuracy")
right.plotly_chart(dissimilarity_figures.view_weights(result.weights, result.view_names), key="dis_weights")
st.dataframe(result.table().round(4), hide_index=True, width="stretch")

st.subheader("Dissimilarity matrices (training instances × training instances)")
names = ["joint (average)"] + result.view_names
tabs = st.tabs(names)
labels_train = np.asarray(result.classes)[result.y_train]
for tab, name in zip(tabs, names):
    with tab:
        D = result.joint_train("average") if name.startswith("joint") else \
            result.train_dissimilarities[result.view_names.index(name)]
        st.plotly_chart(dissimilarity_figures.dissimilarity_heatmap(D, labels_train, title=f"{name}: {MEASURE_NAMES[used.measure]}"),
                        key=f"dis_heat_{name}")
        if not name.startswith("joint"):
            q = result.view_names.index(name)
            st.caption(f"Out-of-bag accuracy of the {name} forest: {result.view_oob_accuracy[q]:.3f}")

st.subheader("Map of the joint dissimilarity (classical MDS)")
coords = runs.memo("dis_mds", runs.result_key(settings, ds),
                   lambda: mds_2d(result.joint_train("average")))
st.plotly_chart(shared_figures.view_projections({"joint (average)": coords}, labels_train, result.classes, columns=1,
                                       title="Training instances placed by their joint dissimilarity",
                                       axis_names=("axis 1", "axis 2")),
                key="dis_mds")
st.caption("Hover a point for its instance index (a row of the dataset) and class.")

c1, c2 = st.columns(2)
c1.download_button("Download matrices and results (.npz)", result.to_npz, file_name=f"{ds.name}-dissimilarity.npz",
                   mime="application/octet-stream", key="dis_dl_npz")
c2.download_button("Download results (.csv)", result.table().assign(
    dataset=ds.name, seed=seed, settings=json.dumps(settings.manifest(ds))).to_csv(index=False),
    file_name=f"{ds.name}-dissimilarity.csv", mime="text/csv", key="dis_dl_csv")
