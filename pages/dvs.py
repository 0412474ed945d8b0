"""Dynamic view selection page: which views did each instance use, and why?"""

import dataclasses

import numpy as np
import streamlit as st

from mvlab.experiments.combinations import METHOD_TITLES, CombinationComparison
from mvlab.experiments.settings import DVSSettings
from mvlab.forest.measures import MEASURES
from mvlab.rfd.dvs_pool import n_candidates
from mvlab.ui import links, runs, shared, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.prose import page_text
from mvlab.ui.state import current_seed, keep, selected_point, set_kept, sidebar
from mvlab.ui.tables import readable
from mvlab.viz import dvs_figures, shared_figures

ds = sidebar()
seed = current_seed()
st.title("Dynamic view selection")
st.caption("Which views did each instance use, and why? For every test instance, DVS picks the subset of views "
           "whose forest was most competent on the instance's nearest training neighbours (Bernard et al. 2020).")
with st.expander("What am I looking at?"):
    st.markdown(page_text("dvs", "what_am_i_looking_at"))

WIDGETS = widgets.widget_keys(DVSSettings, "dvs", exclude=("w", "kdn_k"))  # the measure's parameters: not drawn here
links.apply_page(DVSSettings, WIDGETS, set_kept, seed)
S = DVSSettings
SOURCES = {"demo": "region-structured synthetic data (choices differ)", "sidebar": f"the sidebar's dataset ({ds.name})"}
source = widgets.radio(st, S, "source", "Data", WIDGETS["source"], format_func=SOURCES.get, horizontal=True)
c = st.columns(4)
measure = widgets.select(c[0], S, "measure", "Measure", WIDGETS["measure"], format_func=lambda m: MEASURES[m].title)
paper = widgets.toggle(c[1], S, "paper", "Paper settings", WIDGETS["paper"], help=S.paper_note())
trees = None if paper else widgets.number(c[1], S, "n_estimators", "Trees per forest", WIDGETS["n_estimators"],
                                          step=10)
k = widgets.number(c[2], S, "k", "Region size k", WIDGETS["k"])
test_size = widgets.slider(c[3], S, "test_size", "Test share", WIDGETS["test_size"], step=0.05)
settings = S(seed=seed, source=source, measure=measure, paper=paper, k=int(k), test_size=float(test_size),
             **({} if trees is None else {"n_estimators": int(trees)}))
used, data = settings.effective(), settings.data(ds)
runs.checks(settings, ds)


@runs.training_part
def train_and_show():
    st.caption(f"{data.name}: the pool has {n_candidates(data.n_views)} candidate forests of {used.n_estimators} "
               f"trees; measure {used.measure_object().describe()}.")
    result = runs.result_or_train(settings, data, CombinationComparison, "dvs_train",
                                  label="Training view forests, the DVS pool and the baselines")
    if result is None:
        links.publish(settings)
        st.info("Choose the settings and press **Train**.")
        return

    st.caption(result.prototype_note)
    key = runs.result_key(settings, data)  # figures of a result are built once per server, shared by every session
    labels_test = np.asarray(result.classes)[result.y_test]
    left, right = st.columns([2, 3])
    show_figure(left, shared.figure("dvs_accuracy", key, lambda: shared_figures.method_accuracy(result.accuracy)),
                      key="dvs_accuracy")
    with right:
        st.dataframe(result.table().round(4), hide_index=True, width="stretch")
        if result.oracle_accuracy is not None:
            st.caption(f"Oracle (each instance's true view): accuracy **{result.oracle_accuracy:.3f}**: what "
                       "a perfect choice of views gets.")

    st.subheader("Per-instance view selections")
    method = widgets.radio(st, DVSSettings, "show", "Explain the choices of", WIDGETS["show"],
                           format_func=METHOD_TITLES.get, horizontal=True)
    links.publish(dataclasses.replace(settings, show=method))
    e = result.explanations[method]
    correct = e.prediction == result.y_test
    if e.tie_rate > 0.5:
        st.warning(f"**{100 * e.tie_rate:.0f}% of these choices were made by the tie-break**, not by the competence: "
                   f"on average {np.mean(e.n_tied):.1f} of {len(e.candidate_names)} candidates share the highest "
                   "competence in a region. The per-instance choices below mostly show the tie-break order. Compare "
                   "with the soft competence.")
    else:
        st.caption(f"{100 * e.tie_rate:.0f}% of the choices were made by the tie-break; on average "
                   f"{np.mean(e.n_tied):.1f} of {len(e.candidate_names)} candidates share the highest competence.")
    sort = st.radio("Sort instances by", ["class", "subset", "correctness"], horizontal=True,
                    **keep("dvs_sort", "class"))
    keys = {"class": result.y_test, "subset": e.chosen, "correctness": correct.astype(int)}[sort]


    def selection_matrix():
        order = np.lexsort((np.arange(len(keys)), keys))
        row_text = [f"test {i} (row {r}) · class {lab} · {name} · {'correct' if ok else 'wrong'}"
                    for i, (r, lab, name, ok) in enumerate(zip(result.test_index, labels_test, e.chosen_names,
                                                               correct))]
        return dvs_figures.view_selection_matrix(e.chosen_views, e.view_names, order, row_text)


    a, b = st.columns(2)
    show_figure(a, shared.figure("dvs_matrix", [key, method, sort], selection_matrix), key="dvs_matrix")
    show_figure(b, shared.figure("dvs_subsets", [key, method], lambda: dvs_figures.subset_frequencies(
        e.candidate_names, e.selection_frequencies())), key="dvs_subsets")

    if result.informative_test is not None:
        st.markdown("**Against the ground truth**: did each DVS method use the views that carry each instance's class?")
        st.dataframe(shared.value("dvs_truth", key, lambda: readable(result.view_choice_table(), decimals=3)),
                     hide_index=True, width="stretch")

    def neighbourhood_figure(i: int):
        """The instance among its nearest training instances, near drawn near (exact space); on the large-data
        path (no (n_test, n_train) matrix kept) the zoom of the map, whose caption says it is a projection."""
        labels_train = np.asarray(result.classes)[result.y_train]
        space = ("<br><sup>in the all-views average, where this variant takes its one region</sup>"
                 if e.region_kind == "shared" else "")
        if result.sampled:
            train_xy, test_xy, _, _ = result.subset_map(e.region_space(i))
            return dvs_figures.region_of_competence_map(
                train_xy, test_xy, labels_train, labels_test, result.classes, selected=i, region=e.region[i],
                region_hit=e.region_oob_hit[i],
                title=f"Test instance {i} (star) and its {len(e.region[i])} neighbours<br><sup>a zoom of the "
                      "projection: distances on it are approximate</sup>" + space)
        near, coords, region = result.neighbourhood(e, i)
        return dvs_figures.neighbourhood_map(coords, labels_train[near], result.classes, region=region,
                                             region_hit=e.region_oob_hit[i],
                                             title=f"Test instance {i} (star) and its {len(near)} nearest{space}")

    @st.fragment
    def one_instance():
        """The instance explorer: changing the instance (or clicking the map) reruns only this part;
        the projection of each chosen subset's space is computed once per session."""
        st.subheader("Region of competence of one instance")
        clicked = selected_point("dvs_map")
        if clicked is not None and clicked != st.session_state.get("_dvs_last_click"):
            st.session_state["_dvs_last_click"] = clicked
            set_kept("dvs_instance", clicked)
        i = int(st.number_input("Test instance (or click one on the map)", 0, e.n_instances - 1, step=1,
                                **keep("dvs_instance", 0)))
        subset = e.subsets[e.chosen[i]]
        train_xy, test_xy, _, how = shared.value("dvs_pca", [key, subset.tolist()], lambda: result.subset_map(subset))
        labels_train = np.asarray(result.classes)[result.y_train]
        space = f"Space of the chosen subset “{e.chosen_names[i]}”<br><sup>{how}; click a test instance</sup>"
        overview, zoom = st.columns([3, 2])
        show_figure(overview, shared.figure("dvs_map", [key, subset.tolist(), e.chosen_names[i]], lambda: dvs_figures.
                                            dissimilarity_space_map(train_xy, test_xy, labels_train, labels_test,
                                                                    result.classes, title=space)),
                              key="dvs_map", on_select="rerun", selection_mode="points")
        show_figure(zoom, shared.figure("dvs_region", [key, method, i], lambda: neighbourhood_figure(i)),
                          key="dvs_region")
        verdict = "correct" if correct[i] else "wrong"
        truth = ""
        if result.informative_test is not None:
            truth = " Its true view(s): **" + " + ".join(np.asarray(e.view_names)[result.informative_test[i]]) + "**."
        st.markdown(f"Test instance **{i}** (dataset row {result.test_index[i]}), class **{labels_test[i]}**: "
                    f"{METHOD_TITLES[method]} chose **{e.chosen_names[i]}** (competence {e.chosen_competence[i]:.2f}, "
                    f"{e.n_tied[i]} candidates tied) and predicted **{result.classes[e.prediction[i]]}** "
                    f"({verdict}).{truth}")
        st.dataframe({"dataset row": result.train_index[e.region[i]],
                      "class": np.asarray(result.classes)[e.region_labels[i]],
                      "dissimilarity": np.round(e.region_dissimilarity[i], 4), "OOB correct": e.region_oob_hit[i]},
                     hide_index=True, width="stretch")
        paper_e, soft_e = result.explanations["dvs"], result.explanations["dvs-soft"]
        st.markdown("**The paper's competence and the soft one, for this instance, on the same forests**")
        p1, p2 = st.columns(2)
        show_figure(p1, shared.figure("dvs_competence_paper", [key, i], lambda: dvs_figures.candidate_competence(
            paper_e.candidate_names, paper_e.competence[i], paper_e.chosen[i],
            title="Paper: OOB accuracy on each candidate's own k nearest")),
            key="dvs_competence_paper")
        show_figure(p2, shared.figure("dvs_competence_soft", [key, i], lambda: dvs_figures.candidate_competence(
            soft_e.candidate_names, soft_e.competence[i], soft_e.chosen[i],
            title="Soft: OOB probability of the true class, same regions")), key="dvs_competence_soft")


    one_instance()

    st.download_button("Download per-instance explanations (.csv)",
                       lambda: e.to_frame(result.y_test).assign(  # made on the click
        dataset_row=result.test_index, seed=seed, dataset=data.name, method=method).to_csv(index=False),
                       file_name=f"{data.name}-dvs-explanations.csv", mime="text/csv", key="dvs_dl")


train_and_show()
