"""The Data page's view: what is in the sidebar's dataset (its sizes, views, classes, ground truth and each view in
two dimensions), drawn once per server for each dataset (:mod:`mvlab.ui.shared`, under its fingerprint)."""

from __future__ import annotations

import streamlit as st

from mvlab.core.projection import pca_2d
from mvlab.i18n import _, current_language, said
from mvlab.ui import shared
from mvlab.ui.figure_text import show_figure
from mvlab.ui.page import Shown
from mvlab.ui.tables import translated
from mvlab.viz import data_figures, shared_figures

__all__ = ["view", "sizes", "classes_and_truth", "projections"]


def view(shown: Shown) -> None:
    """The dataset's description, its sizes, its views' table, its classes and ground truth, each view in two
    dimensions, and the dataset to download."""
    ds = shown.data
    st.caption(said(ds.description) if ds.description else _("Uploaded dataset."))
    sizes(ds)
    st.subheader(_("Views"))
    st.dataframe(shared.value("data_summary", [shown.key, current_language()], lambda: translated(ds.summary())),
                 hide_index=True, width="stretch")
    classes_and_truth(ds, shown.key)
    projections(ds, shown.key)
    st.download_button(_("Download this dataset (CSV, view.feature columns)"), ds.to_csv, file_name=f"{ds.name}.csv",
                       mime="text/csv")


def sizes(ds) -> None:
    """Instances, features, views and classes, as four metrics."""
    c = st.columns(4)
    c[0].metric(_("Instances"), ds.n_samples)
    c[1].metric(_("Features"), ds.n_features)
    c[2].metric(_("Views"), ds.n_views)
    c[3].metric(_("Classes"), ds.n_classes)


def classes_and_truth(ds, key: str) -> None:
    """The class balance, and beside it the ground truth (which views carry each instance's class) where the data
    have one, else the class counts in words."""
    left, right = st.columns([1, 2])
    show_figure(left, shared.figure("data_balance", key, lambda: data_figures.class_balance(ds.class_counts())),
                key="class_balance")
    if ds.informative is not None:
        show_figure(right, shared.figure("data_truth", key, lambda: data_figures.informative_matrix(
            ds.informative, ds.labels, ds.view_names)), key="ground_truth")
    else:
        right.markdown("**" + _("Class balance.") + "** " + ", ".join(f"{c}: {n}"
                                                                      for c, n in ds.class_counts().items()))


def projections(ds, key: str) -> None:
    """Each view's instances on its first two principal components, coloured by class."""
    st.subheader(_("Each view in two dimensions"))
    show_figure(st, shared.figure("data_projections", key, lambda: shared_figures.view_projections(
        {name: pca_2d(block) for name, block in zip(ds.view_names, ds.Xs)}, ds.labels, ds.classes)),
        key="projections")
