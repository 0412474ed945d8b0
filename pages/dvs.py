"""Dynamic view selection page: which views did each instance use, and why?"""

import numpy as np
import streamlit as st

from mvlab.experiments.dissimilarity import CombinationComparison
from mvlab.experiments.settings import DVSSettings
from mvlab.forest.measures import MEASURES
from mvlab.rfd.dvs import n_candidates
from mvlab.rfd.explanation import view_choice_scores
from mvlab.ui import runs
from mvlab.ui.state import current_seed, keep, selected_point, set_kept, sidebar
from mvlab.viz import plots
from mvlab.viz.projection import pca_project

ds = sidebar()
seed = current_seed()
st.title("Dynamic view selection")
st.caption("Which views did each instance use, and why? For every test instance, DVS picks the subset of views "
           "whose forest was most accurate on the instance's nearest training neighbours (Bernard et al. 2020).")
with st.expander("What am I looking at?"):
    st.markdown(
        """
One forest per view gives one dissimilarity matrix per view. DVS trains a **pool** of forests, one per
non-empty subset of views (2^Q − 1 of them), each on the average of its views' matrices. To classify a test
instance it looks at its **region of competence**: its k nearest training instances in each candidate's space.
A candidate's **competence** is its out-of-bag accuracy on that region (no validation set needed); the most
competent candidate predicts. Ties are broken by the candidate's overall out-of-bag accuracy, then by the
number of views, then by order. Below: accuracy next to the static combinations (same view forests, same
split), which views every test instance used, and, for one instance, its neighbours and the competence of
every candidate. When most candidates are perfect on every region (easy data), the tie-break decides alone
and every instance gets the same subset: the page says so.
"""
    )
c = st.columns(5)
measure = c[0].selectbox("Measure", list(MEASURES), format_func=lambda m: MEASURES[m].title,
                         **keep("dvs_measure", "breiman"))
paper = c[1].toggle("Paper settings (RFD, 512 trees)", **keep("dvs_paper", False),
                    help="The chapter's settings: the RFD measure and 512 trees per forest.")
trees = 512 if paper else c[1].number_input("Trees per forest", 5, 1000, step=10, **keep("dvs_trees", 30))
k = c[2].number_input("Region size k", 1, 50, step=1, **keep("dvs_k", 7), help="Neighbours in the region of competence.")
competence = c[3].selectbox("Competence", ["ola", "lca"], **keep("dvs_competence", "ola"),
                            format_func={"ola": "OLA (paper)", "lca": "LCA (Woods et al.)"}.get)
selection = c[4].selectbox("Selection", ["best", "knora"], **keep("dvs_selection", "best"),
                           format_func={"best": "most competent (paper)", "knora": "all tied vote (KNORA)"}.get)
test_size = st.slider("Test share", 0.1, 0.9, step=0.05, **keep("dvs_test", 0.5), help="Paper: 50/50 split.")
settings = DVSSettings(seed=seed, measure=measure, paper=paper, n_estimators=int(trees), k=int(k),
                       competence=competence, selection=selection, test_size=float(test_size))
used = settings.effective()
for problem in settings.problems(ds):
    st.error(problem)
    st.stop()
result = runs.lookup(settings, ds, CombinationComparison)
st.caption(f"The pool has {n_candidates(ds.n_views)} candidate forests of {used.n_estimators} trees; "
           f"measure {used.measure_object().describe()}.")
if st.button("Train", type="primary", key="dvs_train"):
    result = runs.train(settings, ds, label="Training view forests and the DVS pool")
if result is None:
    st.info("Choose the settings and press **Train**.")
    st.stop()

e = result.explanation
labels_test = np.asarray(result.classes)[result.y_test]
correct = e.prediction == result.y_test
left, right = st.columns([2, 3])
left.plotly_chart(plots.method_accuracy(result.accuracy), key="dvs_accuracy")
with right:
    st.dataframe(result.table().round(4), hide_index=True, width="stretch")
    tied = float(np.mean(e.n_tied))
    st.caption(f"On average **{tied:.1f} of {len(e.candidate_names)}** candidates share the highest competence in a "
               f"region; {100 * np.mean(e.n_tied > 1):.0f}% of the instances were decided by the tie-break.")

st.subheader("Per-instance view selections")
sort = st.radio("Sort instances by", ["class", "subset", "correctness"], horizontal=True, **keep("dvs_sort", "class"))
keys = {"class": result.y_test, "subset": e.chosen, "correctness": correct.astype(int)}[sort]
order = np.lexsort((np.arange(len(keys)), keys))
row_text = [f"test {i} (row {r}) · class {lab} · {name} · {'correct' if ok else 'wrong'}"
            for i, (r, lab, name, ok) in enumerate(zip(result.test_index, labels_test, e.chosen_names, correct))]
a, b = st.columns(2)
a.plotly_chart(plots.view_selection_matrix(e.chosen_views, e.view_names, order, row_text), key="dvs_matrix")
b.plotly_chart(plots.subset_frequencies(e.candidate_names, e.selection_frequencies()), key="dvs_subsets")

if ds.informative is not None:
    scores = view_choice_scores(e.chosen_views, ds.informative[result.test_index])
    st.markdown("**Against the ground truth** (synthetic data): did DVS use the views that carry each instance's class? "
                "Deltas compare with choosing a subset of the same size at random.")
    m = st.columns(3)
    for col, key, label in zip(m, ["precision", "recall", "hit"],
                               ["chosen views that are informative", "informative views chosen",
                                "instances with ≥ 1 informative view chosen"]):
        col.metric(label, f"{scores[key]:.2f}", f"{scores[key] - scores['baseline ' + key]:+.2f} vs random")

st.subheader("Region of competence of one instance")
clicked = selected_point("dvs_map")
if clicked is not None and clicked != st.session_state.get("_dvs_last_click"):
    st.session_state["_dvs_last_click"] = clicked
    set_kept("dvs_instance", clicked)
i = int(st.number_input("Test instance (or click one on the map)", 0, e.n_instances - 1, step=1,
                        **keep("dvs_instance", 0)))
train_rows, test_rows = result.subset_rows(e.subsets[e.chosen[i]])
train_xy, test_xy, _ = pca_project(train_rows, test_rows)
labels_train = np.asarray(result.classes)[result.y_train]
st.plotly_chart(
    plots.region_of_competence_map(
        train_xy, test_xy, labels_train, labels_test, result.classes, selected=i, region=e.region[i],
        region_hit=e.region_oob_hit[i], title=f"Space of the chosen subset “{e.chosen_names[i]}” (PCA of dissimilarity rows)"),
    key="dvs_map", on_select="rerun", selection_mode="points")
verdict = "correct" if correct[i] else "wrong"
st.markdown(f"Test instance **{i}** (dataset row {result.test_index[i]}), class **{labels_test[i]}**: DVS chose "
            f"**{e.chosen_names[i]}** (competence {e.chosen_competence[i]:.2f}, {e.n_tied[i]} candidates tied) and "
            f"predicted **{result.classes[e.prediction[i]]}** ({verdict}).")
n1, n2 = st.columns([2, 3])
n1.dataframe({"dataset row": result.train_index[e.region[i]], "class": np.asarray(result.classes)[e.region_labels[i]],
              "dissimilarity": np.round(e.region_dissimilarity[i], 4), "OOB correct": e.region_oob_hit[i]},
             hide_index=True, width="stretch")
n2.plotly_chart(plots.candidate_competence(e.candidate_names, e.competence[i], e.chosen[i]), key="dvs_competence_chart")

frame = e.to_frame(result.y_test).assign(dataset_row=result.test_index, seed=seed, dataset=ds.name)
st.download_button("Download per-instance explanations (.csv)", frame.to_csv(index=False),
                   file_name=f"{ds.name}-dvs-explanations.csv", mime="text/csv", key="dvs_dl")
