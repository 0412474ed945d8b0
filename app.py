"""mvlab dashboard entry point: the page list.  Every page draws the shared sidebar itself
(``mvlab.ui.state.sidebar``), so the dataset and seed follow the user from page to page."""

# Streamlit runs this script as the module __main__; the job engine's worker processes (multiprocessing's spawn)
# re-import the main module as __mp_main__ when they start: there is nothing for them to draw.
if __name__ != "__mp_main__":
    import streamlit as st

    from mvlab.i18n import _
    from mvlab.ui import language, page_script, web_process

    st.set_page_config(page_title="mvlab", page_icon="🌲", layout="wide")
    web_process.settle()
    st.session_state["_entered_via_app"] = True  # see mvlab.ui.state.sidebar
    language.choose()  # the navigation speaks the person's language too
    # lang and dir, and the charts' code loaded while the page is read rather than after Train
    page_script.send(language.script(), page_script.load_ahead())

    pages = [
        web_process.page("pages/home.py", title=_("Home"), icon=":material/home:", default=True),
        web_process.page("pages/lessons.py", title=_("Lessons"), icon=":material/school:"),
        web_process.page("pages/data.py", title=_("Data"), icon=":material/table_chart:"),
        web_process.page("pages/dissimilarity.py", title=_("Dissimilarity"), icon=":material/forest:"),
        web_process.page("pages/view_construction.py", title=_("View construction"), icon=":material/call_split:"),
        web_process.page("pages/dvs.py", title=_("Dynamic view selection"), icon=":material/alt_route:"),
        web_process.page("pages/benchmark.py", title=_("Benchmark"), icon=":material/leaderboard:"),
        web_process.page("pages/papers.py", title=_("Papers"), icon=":material/menu_book:"),
        web_process.page("pages/siamese.py", title=_("Siamese deep forest"), icon=":material/join_inner:"),
    ]
    page = st.navigation(pages)
    wanted = st.query_params.get("page")  # a deep link rerouted by mvlab.ui.state.sidebar
    if wanted is not None:
        rest = {k: st.query_params.get_all(k) for k in st.query_params.keys() if k != "page"}
        target = next((p for p in pages if p.url_path == wanted), None)
        if target is not None and target.url_path != page.url_path:
            st.switch_page(target, query_params=rest)
        st.query_params.pop("page")
    page.run()
