"""Data page: what is in my data?"""

import streamlit as st

from mvlab.core.projection import pca_2d
from mvlab.ui import links, shared
from mvlab.ui.figure_text import show_figure
from mvlab.ui.prose import page_text
from mvlab.ui.state import sidebar
from mvlab.viz import data_figures, shared_figures

ds = sidebar()
links.publish()
st.title("Data")
st.caption(ds.description or "Uploaded dataset.")
with st.expander("What am I looking at?"):
    st.markdown(page_text("data", "what_am_i_looking_at"))

c = st.columns(4)
c[0].metric("Instances", ds.n_samples)
c[1].metric("Features", ds.n_features)
c[2].metric("Views", ds.n_views)
c[3].metric("Classes", ds.n_classes)

fp = ds.fingerprint()  # the figures of a dataset are built once per server, shared by every session
st.subheader("Views")
st.dataframe(shared.value("data_summary", fp, ds.summary), hide_index=True, width="stretch")

left, right = st.columns([1, 2])
with left:
    show_figure(st, shared.figure("data_balance", fp, lambda: data_figures.class_balance(ds.class_counts())),
                    key="class_balance")
with right:
    if ds.informative is not None:
        show_figure(st, shared.figure("data_truth", fp, lambda: data_figures.informative_matrix(
            ds.informative, ds.labels, ds.view_names)), key="ground_truth")
    else:
        st.markdown("**Class balance.** " + ", ".join(f"{c}: {n}" for c, n in ds.class_counts().items()))

st.subheader("Each view in two dimensions")
show_figure(st, shared.figure("data_projections", fp, lambda: shared_figures.view_projections(
    {name: pca_2d(block) for name, block in zip(ds.view_names, ds.Xs)}, ds.labels, ds.classes)), key="projections")

st.download_button(
    "Download this dataset (CSV, view.feature columns)", ds.to_csv, file_name=f"{ds.name}.csv", mime="text/csv",
)
