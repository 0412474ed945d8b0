"""The Dissimilarity page's controls and view: one forest per view, their dissimilarity matrices and the four ways
to merge them (a :class:`mvlab.experiments.combinations.CombinationComparison`)."""

from __future__ import annotations

import json

import numpy as np
import streamlit as st

from mvlab.core.projection import mds_2d
from mvlab.forest.measures import MEASURES
from mvlab.i18n import _, format_number, said
from mvlab.ui import shared
from mvlab.ui.figure_text import show_figure
from mvlab.ui.page import Shown
from mvlab.ui.tables import translated
from mvlab.ui.widgets import Form
from mvlab.viz import dissimilarity_figures, shared_figures

__all__ = ["controls", "waiting", "view"]

MEASURE_NAMES = {name: m.title for name, m in MEASURES.items()}
"""The measures' titles in English (marked for the catalogues where defined): :func:`measure_name` says them."""


def measure_name(name: str) -> str:
    """The title of the measure ``name`` in the reader's language."""
    return _(MEASURE_NAMES[name])


def controls(form: Form):
    """The measure, the paper switch (or the trees), the test share and k; the measure's own parameter where it
    takes one."""
    c = st.columns(4)
    measure = form.select(c[0], "measure", _("Measure"), format_func=measure_name)
    paper = form.toggle(c[1], "paper", _("Paper settings"), help=form.settings_cls.paper_note())
    extra = {} if paper else {"n_estimators": int(form.number(c[1], "n_estimators", _("Trees per forest"), step=25))}
    test_size = form.slider(c[2], "test_size", _("Test share"), step=0.05)
    k = form.number(c[3], "k", _("k (SWknn)"))
    if measure == "path" and not paper:
        extra["w"] = form.slider(st, "w", _("w (path-length decay)"), step=0.05)
    if measure == "rfd" or paper:
        extra["kdn_k"] = form.number(st, "kdn_k", _("k of k-Disagreeing Neighbours"))
    return form.settings(measure=measure, paper=paper, test_size=float(test_size), k=int(k), **extra)


def waiting(shown: Shown) -> None:
    """The measure and trees the run will use, and what to press."""
    used = shown.settings.effective()
    st.info(_("Measure in use: **{measure}**, {trees} trees per forest. Choose the settings and press **{button}**.")
            .format(measure=used.measure_object().describe(), trees=used.n_estimators, button=_("Train")))


def view(result, shown: Shown) -> None:
    """One comparison: the split, the accuracies and weights, the matrices, the joint map and the downloads. A part
    (the methods scored so far, ``shown.part``) stops after the table: the matrices and the map, the same in the
    whole, are drawn once, with it. Drawn in the part too, they held the browser up to 0.7 s before its first
    figure, beside the run on the same cores (#72: first figure 1.4-2.9 s with them, 1.3-1.5 s without)."""
    used, data, key = shown.settings.effective(), shown.data, shown.key
    st.success(_("{data}: {train} training and {test} test instances, {forests} view forests of {trees} trees, "
                 "measure {measure} ({seconds} s).").format(
        data=data.name, train=len(result.train_index), test=len(result.test_index), forests=len(result.view_names),
        trees=used.n_estimators, measure=used.measure_object().describe(),
        seconds=format_number(result.seconds["view forests"], 1)))
    st.caption(said(result.prototype_note))
    left, right = st.columns(2)
    show_figure(left, shared.figure("dis_accuracy", key, lambda: shared_figures.method_accuracy(result.accuracy)),
                key="dis_accuracy")
    show_figure(right, shared.figure("dis_weights", key, lambda: dissimilarity_figures.view_weights(
        result.weights, result.view_names)), key="dis_weights")
    st.dataframe(translated(result.table().round(4)), hide_index=True, width="stretch")
    if shown.part:
        st.caption(_("The dissimilarity matrices and the map of the joint dissimilarity come with the whole result."))
        return
    st.subheader(_("Dissimilarity matrices (training instances × training instances)"))
    if result.sampled:
        st.caption(_("{data} is too large to keep every training × training matrix: the matrices and the map below "
                     "are those of {sample} (computed exactly for those rows).").format(
            data=data.name, sample=result.sample_note))
    heatmaps(result, key, measure_name(used.measure))
    joint_map(result, key)
    downloads(result, shown)


JOINT = "joint (average)"
"""The joint matrix among the views' (its tab, its heatmap): the average of the views' matrices."""


def matrix_name(name: str) -> str:
    """A matrix's name as its tab says it: a view's own name, or the joint one in the reader's language."""
    return _("joint (average)") if name == JOINT else name


def training_labels(result) -> np.ndarray:
    """The class names of the training rows the matrices keep."""
    return np.asarray(result.classes)[result.y_train[result.matrix_rows]]


def heatmap(result, name: str, measure_title: str):
    """The heatmap of one matrix: the joint one (average) or a view's."""
    D = result.joint_train("average") if name == JOINT else result.train_dissimilarities[result.view_names.index(name)]
    return dissimilarity_figures.dissimilarity_heatmap(D, training_labels(result),
                                                       title=f"{matrix_name(name)}: {measure_title}",
                                                       sample_note=result.sample_note)


@st.fragment
def heatmaps(result, key: str, measure_title: str) -> None:
    """One tab per matrix; only the open tab is drawn and sent (a click on another tab reruns this part alone):
    a class receiving a result gets one heatmap each, not all of them."""
    names = [JOINT] + result.view_names
    for tab, name in zip(st.tabs([matrix_name(n) for n in names], key="dis_matrix", on_change="rerun"), names):
        if not tab.open:
            continue
        with tab:
            show_figure(st, shared.figure("dis_heatmap", [key, name], lambda name=name: heatmap(
                result, name, measure_title)), key=f"dis_heat_{name}")
            if name != JOINT:
                q = result.view_names.index(name)
                st.caption(_("Out-of-bag accuracy of the {view} forest: {accuracy}").format(
                    view=name, accuracy=format_number(result.view_oob_accuracy[q], 3)))


def joint_map(result, key: str) -> None:
    """The training instances placed by their joint dissimilarity (classical MDS)."""
    st.subheader(_("Map of the joint dissimilarity (classical MDS)"))
    title = _("Training instances placed by their joint dissimilarity") + (
        f" ({result.sample_note})" if result.sampled else "")
    show_figure(st, shared.figure("dis_mds", key, lambda: shared_figures.view_projections(
        {matrix_name(JOINT): mds_2d(result.joint_train("average"))}, training_labels(result), result.classes,
        columns=1, title=title, axis_names=(_("axis 1"), _("axis 2")))), key="dis_mds")
    st.caption(_("Hover a point for its instance index (a row of the dataset) and class."))


def downloads(result, shown: Shown) -> None:
    """The matrices and results (.npz) and the results with their manifest (.csv, made on the click)."""
    data, settings = shown.data, shown.settings
    c1, c2 = st.columns(2)
    c1.download_button(_("Download matrices and results (.npz)"), result.to_npz,
                       file_name=f"{data.name}-dissimilarity.npz", mime="application/octet-stream", key="dis_dl_npz")
    c2.download_button(_("Download results (.csv)"), lambda: result.table().assign(
        dataset=data.name, seed=settings.seed, settings=json.dumps(settings.manifest(data))).to_csv(index=False),
        file_name=f"{data.name}-dissimilarity.csv", mime="text/csv", key="dis_dl_csv")
