"""View construction page: how should features be grouped into views? (Kumar & Minz)"""

import json

import numpy as np
import streamlit as st

from mvlab.experiments.settings import ViewConstructionSettings
from mvlab.experiments.view_construction import (
    CLASSIFIER_TITLES,
    CLASSIFIERS,
    METHOD_TITLES,
    METHODS,
    METRIC_TITLES,
    METRICS,
    KSweepResult,
    feature_groups,
    partition_crosstab,
    sweep_test,
)
from mvlab.ui import links, runs
from mvlab.ui.state import current_seed, keep, set_kept, sidebar
from mvlab.ui.tables import readable
from mvlab.viz import view_construction_figures

ds = sidebar()
seed = current_seed()
st.title("View construction")
st.caption("How should the features of one high-dimensional set be grouped into views? OFSP and five other ways of "
           "building k views, each feeding a performance-weighted ensemble, for k = 1..K (Kumar & Minz 2015).")
with st.expander("What am I looking at?"):
    st.markdown(
        """
**Building views.** **OFSP** makes one greedy pass over the features: each feature joins the view whose inner
cross-validated accuracy it raises most, or is **discarded** when it raises none. The baselines: **RFSP** splits
shuffled features into k random blocks; **Bagging** keeps every feature and draws k bootstrap samples of the
rows; **AB** (attribute bagging) searches a subset size, then draws k random subsets of that size; **VG-AC**
clusters the feature columns with k-means; **VC-GA** evolves feature masks with a genetic algorithm and keeps the
k best. Inner accuracies only ever use the training folds.

**Ensembles.** One classifier (1-NN, Gaussian naive Bayes or linear SVM) per view, voting with weights
(1 − eᵢ)/Σ(1 − eⱼ) from each member's inner-CV error (Eqs. 9-10).

**Measures**, for every method, classifier, k and test fold (the same folds for every method): test accuracy,
**disagreement** DM_total (the mean share of test instances on which two members disagree; undefined with one
view, so missing at k = 1; lower is better, as the paper reads it: "consensus must be higher, or disagreement
must be lower"), the wall-clock and CPU **time** of building the views and fitting the ensemble, and the
**% of features kept** in at least one view.

**Box plots** summarise each method over k = 1..K (the mean over folds for each k): the box spans the quartiles,
whiskers reach the most extreme value within 1.5 IQR, crosses are outliers. The **Friedman aligned-ranks** test
asks whether the methods differ at all (blocks are the values of k); **Holm's** post-hoc compares each with
OFSP. The **partition view** shows, for the last test fold, which feature went to which view; on data with
natural views (mfeat's six feature sets, breast cancer's mean / se / worst, the Madelon-like set's informative,
redundant and noise features) you see whether a method rediscovers them.
"""
    )


def choice(where, label, options, key, default, **kwargs):
    """A kept selectbox whose kept value falls back to the first option when it is no longer offered."""
    kw = keep(key, default if default in options else options[0])
    if st.session_state[key] not in options:
        set_kept(key, options[0])
        st.session_state[key] = options[0]
    return where.selectbox(label, options, **kw, **kwargs)


pending_source = (st.session_state.get("_url_pending") or {}).get("source", st.session_state.get("vc_source", "sidebar"))
WIDGETS = {"source": "vc_source", "madelon_n": "vc_madelon_n", "methods": "vc_methods", "classifiers": "vc_classifiers",
           "paper": "vc_paper", "max_views": "vc_k", "n_splits": "vc_folds", "n_repeats": "vc_reps", "inner_cv": "vc_inner",
           "ga_generations": "vc_generations", "n_used": f"vc_n_{pending_source}", "d_used": f"vc_d_{pending_source}"}
links.apply_page(ViewConstructionSettings, WIDGETS, set_kept, seed)
SOURCES = {"sidebar": "the sidebar's dataset", "madelon": "Madelon-like synthetic (500 features)"}
source = st.radio("Data", list(SOURCES), format_func=SOURCES.get, horizontal=True, **keep("vc_source", "sidebar"))
n_mad = 200
if source == "madelon":
    n_mad = st.number_input("Madelon-like instances", 20, 5000, step=50, **keep("vc_madelon_n", 200),
                            help="make_classification: 2 classes, 5 informative, 15 redundant and 480 noise features; "
                                 "seeded by the sidebar's seed.")
try:
    data = ViewConstructionSettings(seed=seed, source=source, madelon_n=int(n_mad)).data(ds)
except ValueError as exc:
    st.error(f"Cannot generate the Madelon-like set: {exc}")
    st.stop()

methods = st.multiselect("Methods", list(METHODS), **keep("vc_methods", list(METHODS)),  # full width: every chip shows
                         help="\n".join(f"- {t}" for t in METHOD_TITLES.values()))
c = st.columns([3, 1])
classifiers = c[0].multiselect("Base classifiers", list(CLASSIFIERS), **keep("vc_classifiers", ["knn", "nb"]),
                               format_func=CLASSIFIER_TITLES.get,
                               help="The linear SVM has no incremental evaluator: OFSP refits it for every feature "
                                    "and view (minutes even on small data).")
paper = c[1].toggle("Paper settings", **keep("vc_paper", False),
                    help="All instances and features, K = 10, 10 × 5-fold CV, 5 inner folds, GA 30 generations.")
if paper:
    d = ViewConstructionSettings()  # the paper's sizes replace these (ViewConstructionSettings.effective)
    max_views, n_splits, n_repeats, inner_cv, generations, n_used, d_used = (
        d.max_views, d.n_splits, d.n_repeats, d.inner_cv, d.ga_generations, d.n_used, d.d_used)
    st.warning("Paper settings run 50 splits on every instance and feature: the work grows with features × views "
               "× folds (the SVM has no fast evaluator). The progress bar estimates the time left as it goes.")
else:
    c = st.columns(7)
    max_views = c[0].number_input("K (largest k)", 1, 30, step=1, **keep("vc_k", 10))
    n_splits = c[1].number_input("Folds", 2, 10, step=1, **keep("vc_folds", 3))
    n_repeats = c[2].number_input("Repetitions", 1, 10, step=1, **keep("vc_reps", 1))
    inner_cv = c[3].number_input("Inner folds", 2, 10, step=1, **keep("vc_inner", 3),
                                 help="Inner cross-validation of OFSP, AB, VC-GA and the ensemble weights.")
    generations = c[4].number_input("GA generations", 0, 100, step=1, **keep("vc_generations", 3))
    n_used = c[5].number_input("Instances used", 4, 100000, step=10, **keep(f"vc_n_{source}", 150),
                               help="A stratified sample of the data (all if larger than the data).")
    d_used = c[6].number_input("Features used", 1, 100000, step=10,
                               **keep(f"vc_d_{source}", 500 if source == "madelon" else 100),
                               help="A random sample of the features (all if larger than the data).")
    st.caption("Defaults: a stratified sample of 150 instances, 100 random features (the Madelon-like set keeps all "
               "500), K = 10, 1 × 3-fold CV, 3 inner folds, 1-NN and naive Bayes, a GA of 3 generations (population "
               "50, 100 offspring). The **paper settings** switch restores 10 × 5-fold CV, 5 inner folds, 30 GA "
               "generations and all the data.")
settings = ViewConstructionSettings(
    seed=seed, source=source, madelon_n=int(n_mad), methods=tuple(methods), classifiers=tuple(classifiers), paper=paper,
    max_views=int(max_views), n_splits=int(n_splits), n_repeats=int(n_repeats), inner_cv=int(inner_cv),
    ga_generations=int(generations), n_used=int(n_used), d_used=int(d_used))
links.publish(settings)
runs.checks(settings, ds)
result = runs.lookup(settings, data, KSweepResult)
result = runs.train_button(settings, data, "vc_train", label="Building views") or result
if result is None:
    eff = settings.effective()
    cells = len(eff.methods) * len(eff.classifiers) * eff.max_views * eff.n_splits * eff.n_repeats
    st.info(f"Choose the settings and press **Train**: {cells} view ensembles to build and score "
            f"({len(eff.methods)} methods × {len(eff.classifiers)} classifiers × k = 1..{eff.max_views} × "
            f"{eff.n_repeats * eff.n_splits} folds).")
    st.stop()

n_cells = len(result.methods) * len(result.classifiers) * len(result.ks) * len(result.test_folds)
st.success(f"{data.name}: {len(result.sample_index)} instances × {len(result.feature_index)} features, "
           f"{len(result.test_folds)} test folds, {n_cells} view ensembles in {result.seconds:.1f} s.")

st.subheader(f"Across k = 1..{len(result.ks)}")
c = st.columns([2, 2, 1])
metric = choice(c[0], "Metric", list(METRICS), "vc_metric", "accuracy", format_func=METRIC_TITLES.get)
clf = choice(c[1], "Classifier", result.classifiers, "vc_clf", result.classifiers[0], format_func=CLASSIFIER_TITLES.get)
grid = c[2].toggle("Grid of all", **keep("vc_grid", False),
                   help="Accuracy, disagreement, time and % features kept for every classifier.")
if grid:
    panels = {(m, cl): result.per_k(m, cl) for m in ("accuracy", "disagreement", "seconds", "percent_features")
              for cl in result.classifiers}
else:
    panels = {(metric, clf): result.per_k(metric, clf)}
st.plotly_chart(view_construction_figures.k_sweep_boxes(panels, metric_titles=METRIC_TITLES, classifier_titles=CLASSIFIER_TITLES,
                                    title=f"One box per method over k = 1..{len(result.ks)} (each value: the mean "
                                          "over test folds)"), key="vc_boxes")
st.plotly_chart(view_construction_figures.k_sweep_lines(result.per_k(metric, clf), metric_title=METRIC_TITLES[metric],
                                    title=f"{METRIC_TITLES[metric]} for each k ({CLASSIFIER_TITLES[clf]}, mean over "
                                          "folds)"), key="vc_lines")

st.subheader("Does OFSP differ? Friedman aligned ranks, Holm post-hoc")
try:
    test = sweep_test(result, clf, metric)
except ValueError as exc:
    st.warning(f"No test for this choice: {exc}")
else:
    f = test.friedman
    st.caption(f"{METRIC_TITLES[metric]}, {CLASSIFIER_TITLES[clf]}; blocks are k = {test.ks[0]}..{test.ks[-1]}, "
               f"{'higher' if test.higher_is_better else 'lower'} is better; rank 1 is best. Friedman aligned ranks: "
               f"T = {f.statistic:.2f} (df {f.df}), p = {f.p_value:.3g}. Holm at α = 0.05 against OFSP.")
    p_format = st.column_config.NumberColumn(format="%.2e")
    st.dataframe(readable(test.table().round({"average aligned rank": 2, "z": 3})), hide_index=True, width="stretch",
                 column_config={"p": p_format, "p (Holm)": p_format})

st.subheader("Partition view (last test fold)")
c = st.columns(3)
p_method = choice(c[0], "Method", result.methods, "vc_p_method", "OFSP")
p_clf = choice(c[1], "Classifier", result.classifiers, "vc_p_clf", result.classifiers[0],
               format_func=CLASSIFIER_TITLES.get, help="The wrapper methods (OFSP, AB, VC-GA) use it to build views.")
p_k = choice(c[2], "Views k", result.ks, "vc_p_k", min(5, len(result.ks)))
M = result.membership(p_method, p_clf, p_k)
groups = feature_groups(data.views, result.feature_index)
names = np.asarray(data.feature_names)[result.feature_index]
st.plotly_chart(view_construction_figures.partition_matrix(M, groups, names, title=f"{p_method}, k = {p_k}: which feature went to which "
                                                                "view"), key="vc_partition")
if p_method == "Bagging":
    st.caption("Bagging partitions rows, not features: every member keeps every feature and trains on its own "
               "bootstrap sample.")
if data.n_views > 1:
    st.plotly_chart(view_construction_figures.partition_vs_natural(partition_crosstab(M, groups, list(data.views)),
                                               title=f"{p_method}, k = {p_k}: learned views against the natural "
                                                     f"views of {data.name}"), key="vc_crosstab")
else:
    st.caption(f"{data.name} has a single natural view, so there is nothing to compare the learned views with.")

frame = result.table.assign(dataset=data.name, seed=seed, settings=json.dumps(settings.manifest(data)))
c1, c2 = st.columns(2)
c1.download_button("Download results (.csv)", frame.to_csv(index=False), file_name=f"{data.name}-view-construction.csv",
                   mime="text/csv", key="vc_dl_csv")
c2.download_button("Download results and partitions (.npz)", result.to_npz,
                   file_name=f"{data.name}-view-construction.npz", mime="application/octet-stream", key="vc_dl_npz")
