"""The Home page's view (pages/home.py declares it): what mvlab is, what each page answers, and the dataset in use."""

from __future__ import annotations

import streamlit as st

from mvlab.ui.page import Shown
from mvlab.ui.prose import page_text

__all__ = ["view"]


def view(shown: Shown) -> None:
    """The introduction (mvlab/ui/text/home/introduction.md) and the sidebar's dataset in one line."""
    st.markdown(page_text("home", "introduction"))
    ds = shown.data
    st.info(f"Dataset in use: **{ds.name}** ({ds.n_samples} instances, {ds.n_views} views, {ds.n_classes} classes).")
