"""Home: what mvlab is and what each page answers."""

import streamlit as st

from mvlab.ui import links
from mvlab.ui.prose import page_text
from mvlab.ui.state import sidebar

ds = sidebar()
links.publish()
st.title("mvlab: multi-view learning with random forests")
st.markdown(page_text("home", "introduction"))
st.info(f"Dataset in use: **{ds.name}** ({ds.n_samples} instances, {ds.n_views} views, {ds.n_classes} classes).")
