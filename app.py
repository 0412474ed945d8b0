"""mvlab dashboard entry point: the page list.  Every page draws the shared sidebar itself
(``mvlab.ui.state.sidebar``), so the dataset and seed follow the user from page to page."""

import streamlit as st

st.set_page_config(page_title="mvlab", page_icon="🌲", layout="wide")
st.session_state["_entered_via_app"] = True  # see mvlab.ui.state.sidebar

page = st.navigation(
    [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/data.py", title="Data", icon=":material/table_chart:"),
        st.Page("pages/dissimilarity.py", title="Dissimilarity", icon=":material/forest:"),
        st.Page("pages/view_construction.py", title="View construction", icon=":material/call_split:"),
        st.Page("pages/dvs.py", title="Dynamic view selection", icon=":material/alt_route:"),
        st.Page("pages/benchmark.py", title="Benchmark", icon=":material/leaderboard:"),
        st.Page("pages/siamese.py", title="Siamese deep forest", icon=":material/join_inner:"),
    ]
)
page.run()
