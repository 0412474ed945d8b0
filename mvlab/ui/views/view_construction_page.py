"""The View construction page's controls and view: OFSP and five other ways of building k views, each feeding a
performance-weighted ensemble, for k = 1..K on the same folds (a
:class:`mvlab.experiments.view_construction_sweep.KSweepResult`)."""

from __future__ import annotations

import json

import numpy as np
import streamlit as st

from mvlab.experiments.view_construction_sweep import (
    CLASSIFIER_TITLES,
    METHOD_TITLES,
    METRIC_TITLES,
    METRICS,
    feature_groups,
    partition_crosstab,
    sweep_test,
)
from mvlab.ui import shared, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.page import Shown
from mvlab.ui.prose import page_text
from mvlab.ui.state import keep
from mvlab.ui.tables import readable
from mvlab.ui.widgets import Form
from mvlab.viz import view_construction_figures

__all__ = ["SOURCES", "SIZES", "controls", "waiting", "view", "sweep", "boxes_figure", "statistics", "partition",
           "downloads"]

SOURCES = {"sidebar": "the sidebar's dataset", "madelon": "Madelon-like synthetic (500 features)"}
"""The data the sweep can run on, as the Data radio says them."""
SIZES = (("max_views", "K (largest k)"), ("n_splits", "Folds"), ("n_repeats", "Repetitions"),
         ("inner_cv", "Inner folds"), ("ga_generations", "GA generations"))
"""The sizes drawn when the paper switch is off, before the instances and features used, with their labels."""
GRID_METRICS = ("accuracy", "disagreement", "seconds", "percent_features")
"""The metrics of the grid of all (one panel per metric and classifier)."""


def controls(form: Form):
    """The data (the sidebar's, or the Madelon-like set with its size), the methods (full width: every chip shows),
    the classifiers, and the paper switch or the sizes."""
    source = form.radio(st, "source", "Data", format_func=SOURCES.get, horizontal=True)
    madelon = {"madelon_n": int(form.number(st, "madelon_n", "Madelon-like instances", step=50))} \
        if source == "madelon" else {}
    methods = form.multiselect(st, "methods", "Methods", help="\n".join(f"- {t}" for t in METHOD_TITLES.values()))
    c = st.columns([3, 1])
    classifiers = form.multiselect(c[0], "classifiers", "Base classifiers", format_func=CLASSIFIER_TITLES.get,
                                   help=page_text("view_construction", "classifiers_help"))
    paper = form.toggle(c[1], "paper", "Paper settings", help=form.settings_cls.paper_note())
    if paper:
        st.warning(page_text("view_construction", "paper_settings"))
    return form.settings(source=source, methods=tuple(methods), classifiers=tuple(classifiers), paper=paper,
                         **madelon, **({} if paper else sizes(form, source)))


def sizes(form: Form, source: str) -> dict:
    """K, the folds, repetitions, inner folds and GA generations, the instances and features used (all 500 of the
    Madelon-like set by default), then what the defaults are against the paper's."""
    c = st.columns(7)
    chosen = {name: form.number(col, name, label) for col, (name, label) in zip(c, SIZES)}
    chosen["n_used"] = form.number(c[5], "n_used", "Instances used", step=10)
    chosen["d_used"] = form.number(c[6], "d_used", "Features used", step=10,
                                   default=500 if source == "madelon" else None)
    st.caption(form.settings_cls.defaults_note())
    return {name: int(value) for name, value in chosen.items()}


def waiting(shown: Shown) -> None:
    """How many view ensembles Train will build and score, and what to press."""
    eff = shown.settings.effective()
    cells = len(eff.methods) * len(eff.classifiers) * eff.max_views * eff.n_splits * eff.n_repeats
    st.info(f"Choose the settings and press **Train**: {cells} view ensembles to build and score "
            f"({len(eff.methods)} methods × {len(eff.classifiers)} classifiers × k = 1..{eff.max_views} × "
            f"{eff.n_repeats * eff.n_splits} folds).")


def view(result, shown: Shown) -> None:
    """One sweep: what was run, each method over k, the test of whether OFSP differs, one partition, downloads."""
    n_cells = len(result.methods) * len(result.classifiers) * len(result.ks) * len(result.test_folds)
    folds = f"{len(result.test_folds)} test fold{'' if len(result.test_folds) == 1 else 's'}"
    st.success(f"{shown.data.name}: {len(result.sample_index)} instances × {len(result.feature_index)} features, "
               f"{folds}, {n_cells} view ensembles in {result.seconds:.1f} s.")
    metric, clf = sweep(result, shown.key)
    statistics(result, shown.key, metric, clf)
    partition(result, shown)
    downloads(result, shown)


def sweep(result, key: str) -> tuple[str, str]:
    """The metric and classifier chosen, one box per method over k (or the grid of all), and the metric for each
    k; returns ``(metric, classifier)``."""
    st.subheader(f"Across k = 1..{len(result.ks)}")
    c = st.columns([2, 2, 1])
    metric = widgets.choice(c[0], "Metric", list(METRICS), "vc_metric", "accuracy", format_func=METRIC_TITLES.get)
    clf = widgets.choice(c[1], "Classifier", result.classifiers, "vc_clf", result.classifiers[0],
                         format_func=CLASSIFIER_TITLES.get)
    grid = c[2].toggle("Grid of all", **keep("vc_grid", False),
                       help="Accuracy, disagreement, time and % features kept for every classifier.")
    show_figure(st, shared.figure("vc_boxes", [key, grid] + ([] if grid else [metric, clf]),
                                  lambda: boxes_figure(result, grid, metric, clf)), key="vc_boxes")
    show_figure(st, shared.figure("vc_lines", [key, metric, clf], lambda: view_construction_figures.k_sweep_lines(
        result.per_k(metric, clf), metric_title=METRIC_TITLES[metric],
        title=f"{METRIC_TITLES[metric]} for each k ({CLASSIFIER_TITLES[clf]}, mean over folds)")), key="vc_lines")
    return metric, clf


def boxes_figure(result, grid: bool, metric: str, clf: str):
    """One box per method over k = 1..K: for ``metric`` and ``clf``, or (``grid``) a panel for every metric of
    :data:`GRID_METRICS` and every classifier."""
    pairs = [(m, c) for m in GRID_METRICS for c in result.classifiers] if grid else [(metric, clf)]
    return view_construction_figures.k_sweep_boxes(
        {(m, c): result.per_k(m, c) for m, c in pairs}, metric_titles=METRIC_TITLES,
        classifier_titles=CLASSIFIER_TITLES,
        title=f"One box per method over k = 1..{len(result.ks)} (each value: the mean over test folds)")


def statistics(result, key: str, metric: str, clf: str) -> None:
    """Friedman's aligned ranks over k and Holm's post-hoc against OFSP, for the chosen metric and classifier (in
    words when the choice cannot be tested)."""
    st.subheader("Does OFSP differ? Friedman aligned ranks, Holm post-hoc")
    try:
        test = shared.value("vc_test", [key, clf, metric], lambda: sweep_test(result, clf, metric))
    except ValueError as exc:
        st.warning(f"No test for this choice: {exc}")
        return
    f = test.friedman
    st.caption(f"{METRIC_TITLES[metric]}, {CLASSIFIER_TITLES[clf]}; blocks are k = {test.ks[0]}..{test.ks[-1]}, "
               f"{'higher' if test.higher_is_better else 'lower'} is better; rank 1 is best. Friedman aligned "
               f"ranks: T = {f.statistic:.2f} (df {f.df}), p = {f.p_value:.3g}. Holm at α = 0.05 against OFSP.")
    p_format = st.column_config.NumberColumn(format="%.2e")
    st.dataframe(readable(test.table().round({"average aligned rank": 2, "z": 3})), hide_index=True,
                 width="stretch", column_config={"p": p_format, "p (Holm)": p_format})


def partition(result, shown: Shown) -> None:
    """Which feature went to which view for one method, classifier and k (last test fold), and the learned views
    against the data's natural ones where the data have several."""
    st.subheader("Partition view (last test fold)")
    if not result.memberships:  # a partial result (mvlab.ui.page.draw_part): the partitions come with the last fold
        st.caption("The partitions are those of the last test fold: they come with it.")
        return
    c = st.columns(3)
    method = widgets.choice(c[0], "Method", result.methods, "vc_p_method", "OFSP")
    clf = widgets.choice(c[1], "Classifier", result.classifiers, "vc_p_clf", result.classifiers[0],
                         format_func=CLASSIFIER_TITLES.get, help="The wrapper methods (OFSP, AB, VC-GA) use it to "
                                                                 "build views.")
    k = widgets.choice(c[2], "Views k", result.ks, "vc_p_k", min(5, len(result.ks)))
    data, M, chosen = shown.data, result.membership(method, clf, k), [shown.key, method, clf, k]
    groups = feature_groups(data.views, result.feature_index)
    show_figure(st, shared.figure("vc_partition", chosen, lambda: view_construction_figures.partition_matrix(
        M, groups, np.asarray(data.feature_names)[result.feature_index],
        title=f"{method}, k = {k}: which feature went to which view")), key="vc_partition")
    if method == "Bagging":
        st.caption("Bagging partitions rows, not features: every member keeps every feature and trains on its own "
                   "bootstrap sample.")
    if data.n_views < 2:
        st.caption(f"{data.name} has a single natural view, so there is nothing to compare the learned views with.")
        return
    show_figure(st, shared.figure("vc_crosstab", chosen, lambda: view_construction_figures.partition_vs_natural(
        partition_crosstab(M, groups, list(data.views)),
        title=f"{method}, k = {k}: learned views against the natural views of {data.name}")), key="vc_crosstab")


def downloads(result, shown: Shown) -> None:
    """The results with their settings (.csv, made on the click) and the results with the partitions (.npz)."""
    data, settings = shown.data, shown.settings
    c1, c2 = st.columns(2)
    c1.download_button("Download results (.csv)", lambda: result.table.assign(
        dataset=data.name, seed=settings.seed, settings=json.dumps(settings.manifest(data))).to_csv(index=False),
        file_name=f"{data.name}-view-construction.csv", mime="text/csv", key="vc_dl_csv")
    c2.download_button("Download results and partitions (.npz)", result.to_npz,
                       file_name=f"{data.name}-view-construction.npz", mime="application/octet-stream",
                       key="vc_dl_npz")
