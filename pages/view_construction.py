"""View construction page: how should features be grouped into views? (Kumar & Minz)"""

import json

import numpy as np
import streamlit as st

from mvlab.experiments.settings import ViewConstructionSettings
from mvlab.experiments.view_construction import (
    CLASSIFIER_TITLES,
    METHOD_TITLES,
    METRIC_TITLES,
    METRICS,
    KSweepResult,
    feature_groups,
    partition_crosstab,
    sweep_test,
)
from mvlab.ui import links, runs, shared, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.prose import page_text
from mvlab.ui.state import current_seed, keep, kept, set_kept, sidebar
from mvlab.ui.tables import readable
from mvlab.viz import view_construction_figures

ds = sidebar()
seed = current_seed()
st.title("View construction")
st.caption("How should the features of one high-dimensional set be grouped into views? OFSP and five other ways of "
           "building k views, each feeding a performance-weighted ensemble, for k = 1..K (Kumar & Minz 2016).")
with st.expander("What am I looking at?"):
    st.markdown(page_text("view_construction", "what_am_i_looking_at"))


S = ViewConstructionSettings
pending_source = links.pending("source", kept("vc_source", widgets.field_default(S, "source")))
WIDGETS = widgets.widget_keys(S, "vc", exclude=("ga_runs",), names={  # ga_runs: not drawn (paper settings set it)
    "max_views": "k", "n_splits": "folds", "inner_cv": "inner", "ga_generations": "generations",
    "n_used": f"n_{pending_source}", "d_used": f"d_{pending_source}"})
links.apply_page(S, WIDGETS, set_kept, seed)
SOURCES = {"sidebar": "the sidebar's dataset", "madelon": "Madelon-like synthetic (500 features)"}
source = widgets.radio(st, S, "source", "Data", WIDGETS["source"], format_func=SOURCES.get, horizontal=True)
n_mad = widgets.field_default(S, "madelon_n")
if source == "madelon":
    n_mad = widgets.number(st, S, "madelon_n", "Madelon-like instances", WIDGETS["madelon_n"], step=50)
try:
    data = S(seed=seed, source=source, madelon_n=int(n_mad)).data(ds)
except ValueError as exc:
    st.error(f"Cannot generate the Madelon-like set: {exc}")
    st.stop()

methods = widgets.multiselect(st, S, "methods", "Methods", WIDGETS["methods"],  # full width: every chip shows
                              help="\n".join(f"- {t}" for t in METHOD_TITLES.values()))
c = st.columns([3, 1])
classifiers = widgets.multiselect(c[0], S, "classifiers", "Base classifiers", WIDGETS["classifiers"],
                                  format_func=CLASSIFIER_TITLES.get,
                                  help="The linear SVM is the slowest: OFSP solves one SVM for every feature, "
                                       "view and inner fold (seconds on small data, hours at paper settings on "
                                       "hundreds of rows).")
paper = widgets.toggle(c[1], S, "paper", "Paper settings", WIDGETS["paper"], help=S.paper_note())
sizes = {}
if paper:
    st.warning("Paper settings run 50 splits on every instance and feature: the work grows with features × views "
               "× folds (the SVM solves one SVM per candidate). The progress bar estimates the time left as it goes.")
else:
    c = st.columns(7)
    sized = [("max_views", "K (largest k)"), ("n_splits", "Folds"), ("n_repeats", "Repetitions"),
             ("inner_cv", "Inner folds"), ("ga_generations", "GA generations")]
    for col, (name, label) in zip(c, sized):
        sizes[name] = widgets.number(col, S, name, label, WIDGETS[name])
    sizes["n_used"] = widgets.number(c[5], S, "n_used", "Instances used", WIDGETS["n_used"], step=10)
    sizes["d_used"] = widgets.number(c[6], S, "d_used", "Features used", WIDGETS["d_used"], step=10,
                                     default=500 if source == "madelon" else None)
    st.caption(S.defaults_note())
settings = S(seed=seed, source=source, madelon_n=int(n_mad), methods=tuple(methods), classifiers=tuple(classifiers),
             paper=paper, **{name: int(value) for name, value in sizes.items()})
links.publish(settings)
runs.checks(settings, ds)


@runs.training_part
def train_and_show():
    result = runs.result_or_train(settings, data, KSweepResult, "vc_train", label="Building views")
    if result is None:
        eff = settings.effective()
        cells = len(eff.methods) * len(eff.classifiers) * eff.max_views * eff.n_splits * eff.n_repeats
        st.info(f"Choose the settings and press **Train**: {cells} view ensembles to build and score "
                f"({len(eff.methods)} methods × {len(eff.classifiers)} classifiers × k = 1..{eff.max_views} × "
                f"{eff.n_repeats * eff.n_splits} folds).")
        return

    n_cells = len(result.methods) * len(result.classifiers) * len(result.ks) * len(result.test_folds)
    st.success(f"{data.name}: {len(result.sample_index)} instances × {len(result.feature_index)} features, "
               f"{len(result.test_folds)} test folds, {n_cells} view ensembles in {result.seconds:.1f} s.")

    key = runs.result_key(settings, data)  # figures of a result are built once per server, shared by every session
    st.subheader(f"Across k = 1..{len(result.ks)}")
    c = st.columns([2, 2, 1])
    metric = widgets.choice(c[0], "Metric", list(METRICS), "vc_metric", "accuracy", format_func=METRIC_TITLES.get)
    clf = widgets.choice(c[1], "Classifier", result.classifiers, "vc_clf", result.classifiers[0],
                         format_func=CLASSIFIER_TITLES.get)
    grid = c[2].toggle("Grid of all", **keep("vc_grid", False),
                       help="Accuracy, disagreement, time and % features kept for every classifier.")


    def boxes():
        if grid:
            panels = {(m, cl): result.per_k(m, cl) for m in ("accuracy", "disagreement", "seconds", "percent_features")
                      for cl in result.classifiers}
        else:
            panels = {(metric, clf): result.per_k(metric, clf)}
        return view_construction_figures.k_sweep_boxes(
            panels, metric_titles=METRIC_TITLES, classifier_titles=CLASSIFIER_TITLES,
            title=f"One box per method over k = 1..{len(result.ks)} (each value: the mean over test folds)")


    show_figure(st, shared.figure("vc_boxes", [key, grid] + ([] if grid else [metric, clf]), boxes), key="vc_boxes")
    show_figure(st, shared.figure("vc_lines", [key, metric, clf], lambda: view_construction_figures.k_sweep_lines(
        result.per_k(metric, clf), metric_title=METRIC_TITLES[metric],
        title=f"{METRIC_TITLES[metric]} for each k ({CLASSIFIER_TITLES[clf]}, mean over folds)")), key="vc_lines")

    st.subheader("Does OFSP differ? Friedman aligned ranks, Holm post-hoc")
    try:
        test = shared.value("vc_test", [key, clf, metric], lambda: sweep_test(result, clf, metric))
    except ValueError as exc:
        st.warning(f"No test for this choice: {exc}")
    else:
        f = test.friedman
        st.caption(f"{METRIC_TITLES[metric]}, {CLASSIFIER_TITLES[clf]}; blocks are k = {test.ks[0]}..{test.ks[-1]}, "
                   f"{'higher' if test.higher_is_better else 'lower'} is better; rank 1 is best. Friedman aligned "
                   f"ranks: T = {f.statistic:.2f} (df {f.df}), p = {f.p_value:.3g}. Holm at α = 0.05 against OFSP.")
        p_format = st.column_config.NumberColumn(format="%.2e")
        st.dataframe(readable(test.table().round({"average aligned rank": 2, "z": 3})), hide_index=True,
                     width="stretch", column_config={"p": p_format, "p (Holm)": p_format})

    st.subheader("Partition view (last test fold)")
    c = st.columns(3)
    p_method = widgets.choice(c[0], "Method", result.methods, "vc_p_method", "OFSP")
    p_clf = widgets.choice(c[1], "Classifier", result.classifiers, "vc_p_clf", result.classifiers[0],
                           format_func=CLASSIFIER_TITLES.get,
                           help="The wrapper methods (OFSP, AB, VC-GA) use it to build views.")
    p_k = widgets.choice(c[2], "Views k", result.ks, "vc_p_k", min(5, len(result.ks)))
    M = result.membership(p_method, p_clf, p_k)
    groups = feature_groups(data.views, result.feature_index)
    partition = [key, p_method, p_clf, p_k]
    show_figure(st, shared.figure("vc_partition", partition, lambda: view_construction_figures.partition_matrix(
        M, groups, np.asarray(data.feature_names)[result.feature_index],
        title=f"{p_method}, k = {p_k}: which feature went to which view")), key="vc_partition")
    if p_method == "Bagging":
        st.caption("Bagging partitions rows, not features: every member keeps every feature and trains on its own "
                   "bootstrap sample.")
    if data.n_views > 1:
        show_figure(st, shared.figure("vc_crosstab", partition, lambda: view_construction_figures.partition_vs_natural(
            partition_crosstab(M, groups, list(data.views)),
            title=f"{p_method}, k = {p_k}: learned views against the natural views of {data.name}")), key="vc_crosstab")
    else:
        st.caption(f"{data.name} has a single natural view, so there is nothing to compare the learned views with.")

    c1, c2 = st.columns(2)
    c1.download_button("Download results (.csv)", lambda: result.table.assign(  # made on the click
        dataset=data.name, seed=seed, settings=json.dumps(settings.manifest(data))).to_csv(index=False),
                       file_name=f"{data.name}-view-construction.csv", mime="text/csv", key="vc_dl_csv")
    c2.download_button("Download results and partitions (.npz)", result.to_npz,
                       file_name=f"{data.name}-view-construction.npz", mime="application/octet-stream", key="vc_dl_npz")


train_and_show()
