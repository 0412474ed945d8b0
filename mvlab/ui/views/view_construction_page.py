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
from mvlab.i18n import N_, _, format_number, ngettext
from mvlab.ui import shared, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.page import Shown
from mvlab.ui.prose import page_text
from mvlab.ui.state import keep
from mvlab.ui.tables import column_name, readable
from mvlab.ui.widgets import Form
from mvlab.viz import view_construction_figures

__all__ = ["SOURCES", "SIZES", "controls", "waiting", "view", "sweep", "boxes_figure", "statistics", "partition",
           "downloads"]

SOURCES = {"sidebar": N_("the sidebar's dataset"), "madelon": N_("Madelon-like synthetic (500 features)")}
"""The data the sweep can run on, as the Data radio says them."""
SIZES = (("max_views", N_("K (largest k)")), ("n_splits", N_("Folds")), ("n_repeats", N_("Repetitions")),
         ("inner_cv", N_("Inner folds")), ("ga_generations", N_("GA generations")))
"""The sizes drawn when the paper switch is off, before the instances and features used, with their labels."""
def classifier_title(name: str) -> str:
    """A base classifier's short name in the reader's language."""
    return _(CLASSIFIER_TITLES[name])


def metric_title(name: str) -> str:
    """A metric's title in the reader's language."""
    return _(METRIC_TITLES[name])


GRID_METRICS = ("accuracy", "disagreement", "seconds", "percent_features")
"""The metrics of the grid of all (one panel per metric and classifier)."""


def controls(form: Form):
    """The data (the sidebar's, or the Madelon-like set with its size), the methods (full width: every chip shows),
    the classifiers, and the paper switch or the sizes."""
    source = form.radio(st, "source", _("Data"), format_func=lambda s: _(SOURCES[s]), horizontal=True)
    madelon = {"madelon_n": int(form.number(st, "madelon_n", _("Madelon-like instances"), step=50))} \
        if source == "madelon" else {}
    methods = form.multiselect(st, "methods", _("Methods"), help="\n".join(f"- {_(t)}" for t in METHOD_TITLES.values()))
    c = st.columns([3, 1])
    classifiers = form.multiselect(c[0], "classifiers", _("Base classifiers"), format_func=classifier_title,
                                   help=page_text("view_construction", "classifiers_help"))
    paper = form.toggle(c[1], "paper", _("Paper settings"), help=form.settings_cls.paper_note())
    if paper:
        st.warning(page_text("view_construction", "paper_settings"))
    return form.settings(source=source, methods=tuple(methods), classifiers=tuple(classifiers), paper=paper,
                         **madelon, **({} if paper else sizes(form, source)))


def sizes(form: Form, source: str) -> dict:
    """K, the folds, repetitions, inner folds and GA generations, the instances and features used (all 500 of the
    Madelon-like set by default), then what the defaults are against the paper's."""
    c = st.columns(7)
    chosen = {name: form.number(col, name, _(label)) for col, (name, label) in zip(c, SIZES)}
    chosen["n_used"] = form.number(c[5], "n_used", _("Instances used"), step=10)
    chosen["d_used"] = form.number(c[6], "d_used", _("Features used"), step=10,
                                   default=500 if source == "madelon" else None)
    st.caption(form.settings_cls.defaults_note())
    return {name: int(value) for name, value in chosen.items()}


def waiting(shown: Shown) -> None:
    """How many view ensembles Train will build and score, and what to press."""
    eff = shown.settings.effective()
    cells = len(eff.methods) * len(eff.classifiers) * eff.max_views * eff.n_splits * eff.n_repeats
    st.info(_("Choose the settings and press **{button}**: {cells} view ensembles to build and score ({methods} "
              "methods × {classifiers} classifiers × k = 1..{views} × {folds} folds).").format(
        button=_("Train"), cells=cells, methods=len(eff.methods), classifiers=len(eff.classifiers),
        views=eff.max_views, folds=eff.n_repeats * eff.n_splits))


def view(result, shown: Shown) -> None:
    """One sweep: what was run, each method over k, the test of whether OFSP differs, one partition, downloads."""
    n_cells = result.n_cells
    folds = ngettext("{n} test fold", "{n} test folds", len(result.test_folds)).format(n=len(result.test_folds))
    st.success(_("{data}: {instances} instances × {features} features, {folds}, {cells} view ensembles in {seconds} "
                 "s.").format(data=shown.data.name, instances=len(result.sample_index),
                              features=len(result.feature_index), folds=folds, cells=n_cells,
                              seconds=format_number(result.seconds, 1)))
    metric, clf = sweep(result, shown.key)
    statistics(result, shown.key, metric, clf)
    partition(result, shown)
    downloads(result, shown)


def sweep(result, key: str) -> tuple[str, str]:
    """The metric and classifier chosen, one box per method over k (or the grid of all), and the metric for each
    k; returns ``(metric, classifier)``."""
    st.subheader(_("Across k = 1..{views}").format(views=len(result.ks)))
    c = st.columns([2, 2, 1])
    metric = widgets.choice(c[0], _("Metric"), list(METRICS), "vc_metric", "accuracy", format_func=metric_title)
    clf = widgets.choice(c[1], _("Classifier"), result.classifiers, "vc_clf", result.classifiers[0],
                         format_func=classifier_title)
    grid = c[2].toggle(_("Grid of all"), **keep("vc_grid", False),
                       help=_("Accuracy, disagreement, time and % features kept for every classifier."))
    show_figure(st, shared.figure("vc_boxes", [key, grid] + ([] if grid else [metric, clf]),
                                  lambda: boxes_figure(result, grid, metric, clf)), key="vc_boxes")
    show_figure(st, shared.figure("vc_lines", [key, metric, clf], lambda: view_construction_figures.k_sweep_lines(
        result.per_k(metric, clf), metric_title=metric_title(metric),
        title=_("{metric} for each k ({classifier}, mean over folds)").format(
            metric=metric_title(metric), classifier=classifier_title(clf)))), key="vc_lines")
    return metric, clf


def boxes_figure(result, grid: bool, metric: str, clf: str):
    """One box per method over k = 1..K: for ``metric`` and ``clf``, or (``grid``) a panel for every metric of
    :data:`GRID_METRICS` and every classifier."""
    pairs = [(m, c) for m in GRID_METRICS for c in result.classifiers] if grid else [(metric, clf)]
    return view_construction_figures.k_sweep_boxes(
        {(m, c): result.per_k(m, c) for m, c in pairs}, metric_titles={m: metric_title(m) for m in METRIC_TITLES},
        classifier_titles={c: classifier_title(c) for c in CLASSIFIER_TITLES},
        title=_("One box per method over k = 1..{views} (each value: the mean over test folds)").format(
            views=len(result.ks)))


def statistics(result, key: str, metric: str, clf: str) -> None:
    """Friedman's aligned ranks over k and Holm's post-hoc against OFSP, for the chosen metric and classifier (in
    words when the choice cannot be tested)."""
    st.subheader(_("Does OFSP differ? Friedman aligned ranks, Holm post-hoc"))
    try:
        test = shared.value("vc_test", [key, clf, metric], lambda: sweep_test(result, clf, metric))
    except ValueError as exc:
        st.warning(_("No test for this choice: {reason}").format(reason=exc))
        return
    f = test.friedman
    better = _("higher is better") if test.higher_is_better else _("lower is better")
    st.caption(_("{metric}, {classifier}; blocks are k = {first}..{last}, {better}; rank 1 is best. Friedman aligned "
                 "ranks: T = {statistic} (df {df}), p = {p}. Holm at α = {alpha} against OFSP.").format(
        metric=metric_title(metric), classifier=classifier_title(clf), first=test.ks[0], last=test.ks[-1],
        better=better, statistic=format_number(f.statistic, 2), df=f.df, p=f"{f.p_value:.3g}",
        alpha=format_number(0.05, 2)))
    p_format = st.column_config.NumberColumn(format="%.2e")
    st.dataframe(readable(test.table().round({"average aligned rank": 2, "z": 3})), hide_index=True,
                 width="stretch", column_config={"p": p_format, column_name("p (Holm)"): p_format})


def partition(result, shown: Shown) -> None:
    """Which feature went to which view for one method, classifier and k (last test fold), and the learned views
    against the data's natural ones where the data have several."""
    st.subheader(_("Partition view (last test fold)"))
    if not result.memberships:  # a partial result (mvlab.ui.page.draw_part): the partitions come with the last fold
        st.caption(_("The partitions are those of the last test fold: they come with it."))
        return
    c = st.columns(3)
    method = widgets.choice(c[0], _("Method"), result.methods, "vc_p_method", "OFSP")
    clf = widgets.choice(c[1], _("Classifier"), result.classifiers, "vc_p_clf", result.classifiers[0],
                         format_func=classifier_title,
                         help=_("The wrapper methods (OFSP, AB, VC-GA) use it to build views."))
    k = widgets.choice(c[2], _("Views k"), result.ks, "vc_p_k", min(5, len(result.ks)))
    data, M, chosen = shown.data, result.membership(method, clf, k), [shown.key, method, clf, k]
    groups = feature_groups(data.views, result.feature_index)
    show_figure(st, shared.figure("vc_partition", chosen, lambda: view_construction_figures.partition_matrix(
        M, groups, np.asarray(data.feature_names)[result.feature_index],
        title=_("{method}, k = {k}: which feature went to which view").format(method=method, k=k))),
        key="vc_partition")
    if method == "Bagging":
        st.caption(_("Bagging partitions rows, not features: every member keeps every feature and trains on its own "
                     "bootstrap sample."))
    if data.n_views < 2:
        st.caption(_("{data} has a single natural view, so there is nothing to compare the learned views with.")
                   .format(data=data.name))
        return
    show_figure(st, shared.figure("vc_crosstab", chosen, lambda: view_construction_figures.partition_vs_natural(
        partition_crosstab(M, groups, list(data.views)),
        title=_("{method}, k = {k}: learned views against the natural views of {data}").format(
            method=method, k=k, data=data.name))), key="vc_crosstab")


def downloads(result, shown: Shown) -> None:
    """The results with their settings (.csv, made on the click) and the results with the partitions (.npz)."""
    data, settings = shown.data, shown.settings
    c1, c2 = st.columns(2)
    c1.download_button(_("Download results (.csv)"), lambda: result.table.assign(
        dataset=data.name, seed=settings.seed, settings=json.dumps(settings.manifest(data))).to_csv(index=False),
        file_name=f"{data.name}-view-construction.csv", mime="text/csv", key="vc_dl_csv")
    c2.download_button(_("Download results and partitions (.npz)"), result.to_npz,
                       file_name=f"{data.name}-view-construction.npz", mime="application/octet-stream",
                       key="vc_dl_npz")
