"""The Home page's view (pages/home.py declares it): what mvlab is, what each page answers, and the dataset in use."""

from __future__ import annotations

import streamlit as st

from mvlab.i18n import _
from mvlab.ui.page import Shown
from mvlab.ui.prose import page_text
from mvlab.ui.state import shape_in_words

__all__ = ["view"]


def view(shown: Shown) -> None:
    """The introduction (mvlab/ui/text/home/introduction.md) and the sidebar's dataset in one line."""
    st.markdown(page_text("home", "introduction"))
    ds = shown.data
    st.info(_("Dataset in use: **{name}** ({shape}).").format(
        name=ds.name, shape=shape_in_words(ds.n_samples, ds.n_features, ds.n_views, ds.n_classes)))
