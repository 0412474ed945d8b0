"""mvlab.ui.page: a page is a declaration. The runner draws the header from the page's text files, the widgets
from the settings' fields, builds the data a run needs once and hands that one object to the checks, the run and
the view."""

import pickle

import pytest
from streamlit.testing.v1 import AppTest

from mvlab.datasets.bundled import load_dataset
from mvlab.experiments import settings as page_settings
from mvlab.experiments.settings import DVSSettings, ViewConstructionSettings, make_region_demo, region_demo_name


@pytest.fixture
def builds(monkeypatch):
    """How many times the region demo and the Madelon-like set are generated."""
    counted = {"demo": 0, "madelon": 0}
    demo, madelon = page_settings.make_region_demo, page_settings.make_madelon

    def counting_demo(seed=0):
        counted["demo"] += 1
        return demo(seed)

    def counting_madelon(*args, **kwargs):
        counted["madelon"] += 1
        return madelon(*args, **kwargs)

    monkeypatch.setattr(page_settings, "make_region_demo", counting_demo)
    monkeypatch.setattr(page_settings, "make_madelon", counting_madelon)
    return counted


def test_the_data_a_page_generates_is_built_once_and_handed_on(builds):
    """The region demo built by the page is taken as it is by the checks, the cost estimate and the worker's run
    (after pickling, as the engine sends it). Fails when ``data()`` builds the demo again for the demo itself
    (tried: page_data returning build() always: 100+ builds in cost_problems alone)."""
    settings = DVSSettings(source="demo", n_estimators=3, seed=4)
    data = settings.data(load_dataset("nutrimouse"))
    assert builds["demo"] == 1 and data.name == region_demo_name(4)
    assert settings.data(data) is data
    settings.problems(data), settings.notes(data), settings.cost(data), settings.cost_problems(data, 1.0)
    assert settings.data(pickle.loads(pickle.dumps(data))).fingerprint() == data.fingerprint()
    assert builds["demo"] == 1
    vc = ViewConstructionSettings(source="madelon", madelon_n=60, seed=2)
    madelon = vc.data(None)
    assert vc.data(madelon) is madelon and vc.problems(madelon) == [] and builds["madelon"] == 1


def test_only_the_page_s_own_data_is_taken_for_it(builds):
    """An upload named like the demo, the demo of another seed, or the sidebar's synthetic data are not the page's
    data: the demo is built for them. Fails when the name alone is trusted (tried: the origin check left out)."""
    settings = DVSSettings(source="demo", seed=4)
    own = make_region_demo(4)
    forged = own.subset(range(own.n_samples))
    forged = type(own)(forged.X, forged.labels, dict(forged.views), name=region_demo_name(4), origin="upload")
    for other in (forged, make_region_demo(5)):
        assert settings.data(other).fingerprint() == own.fingerprint()
    assert builds["demo"] == 2  # one for each of the two others
    assert make_region_demo(0).fingerprint() == page_settings.make_multiview_classification(
        600, n_views=4, n_features=10, n_classes=3, relevance="region", random_state=0).fingerprint()  # stored runs


def runner_script():
    """A page declared with the runner, its checks, run and view recorded instead of done."""
    import streamlit as st

    from mvlab.experiments.combinations import CombinationComparison
    from mvlab.experiments.settings import DVSSettings
    from mvlab.ui import runs
    from mvlab.ui.page import TrainingPage, run_page
    from mvlab.ui.widgets import widget_keys

    seen = st.session_state.setdefault("seen", {})
    st.session_state["_entered_via_app"] = True
    runs.checks = lambda settings, data: seen.setdefault("checks", []).append(data)
    runs.result_or_train = lambda settings, data, *a, **k: seen.setdefault("run", []).append(data) or "a result"

    def controls(form):
        return form.settings(source=form.radio(st, "source", "Data"), n_estimators=int(
            form.number(st, "n_estimators", "Trees per forest")))

    run_page(TrainingPage("dvs", DVSSettings, CombinationComparison, widget_keys(DVSSettings, "dvs"), controls,
                          view=lambda result, shown: seen.setdefault("view", []).append((result, shown)),
                          waiting=lambda shown: None, train_key="dvs_train"))


def test_the_runner_draws_the_header_and_widgets_and_hands_one_data_object_on(monkeypatch, builds):
    """Fails when the runner hands the run another data object than the checks' (tried: result_or_train given
    settings.data() of a subset), or draws the header or the widgets from anywhere but the text files and the
    settings' fields."""
    from mvlab.ui import runs

    monkeypatch.setattr(runs, "checks", runs.checks)  # the script replaces them: restored after the test
    monkeypatch.setattr(runs, "result_or_train", runs.result_or_train)
    at = AppTest.from_function(runner_script, default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Dynamic view selection" and at.caption[0].value.startswith("Which views did each")
    assert "What am I looking at?" in [e.label for e in at.expander]
    assert at.radio(key="dvs_source").value == "demo" and at.number_input(key="dvs_trees").value == 60
    seen = at.session_state["seen"]
    (checked,), (ran,), ((result, shown),) = seen["checks"], seen["run"], seen["view"]
    assert checked is ran is shown.data and builds["demo"] == 1 and result == "a result"
    assert shown.settings == DVSSettings(n_estimators=60) and shown.widgets["n_estimators"] == "dvs_trees"
    assert at.query_params.get("n_estimators") is None  # the default is not written into the link
    at.number_input(key="dvs_trees").set_value(20).run()
    assert at.session_state["seen"]["view"][-1][1].settings.n_estimators == 20
    assert at.query_params["n_estimators"] in ("20", ["20"])  # the link follows the widgets


def plain_page_script():
    """A page that trains nothing (the Data page's declaration), its view recorded instead of drawn."""
    import streamlit as st

    from mvlab.ui.page import Page, run_page

    st.session_state["_entered_via_app"] = True
    run_page(Page("data", lambda shown: st.session_state.setdefault("seen", []).append(shown)))


def test_a_page_that_trains_nothing_gets_the_sidebar_the_header_the_link_and_the_sidebar_s_dataset():
    """Fails when such a page is drawn without its header, writes no link, or hands its view anything but the
    sidebar's dataset and its fingerprint (tried: show_page without page_header, and without links.publish)."""
    at = AppTest.from_function(plain_page_script, default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Data" and at.caption[0].value.startswith("What is in my data?")
    assert at.selectbox(key="bundled_name").value == "mfeat"  # the sidebar was drawn
    (shown,) = at.session_state["seen"]
    assert shown.settings is None and shown.widgets == {} and shown.data.name.startswith("mfeat")
    assert shown.key == shown.data.fingerprint()
    assert at.query_params["dataset"] in ("mfeat", ["mfeat"])  # the link carries the sidebar's data
    at.selectbox(key="bundled_name").set_value("nutrimouse").run()
    assert at.session_state["seen"][-1].data.name == "nutrimouse"
    assert at.query_params["dataset"] in ("nutrimouse", ["nutrimouse"])


def settings_page_script():
    """A page with settings that trains nothing itself (the Benchmark page's declaration), its view a fragment."""
    import streamlit as st

    from mvlab.experiments.settings import BenchmarkSettings
    from mvlab.ui.page import Page, run_page
    from mvlab.ui.widgets import widget_keys

    st.session_state["_entered_via_app"] = True

    def controls(form):
        return form.settings(family=form.radio(st, "family", "Methods"), datasets=tuple(form.multiselect(
            st, "datasets", "Datasets")), methods=tuple(form.multiselect(st, "methods", "Compare", options=["a", "b"])))

    def view(shown):
        st.session_state.setdefault("seen", []).append(shown)

    keys = widget_keys(BenchmarkSettings, "bm", names={"methods": "methods_{pending_family}"})
    run_page(Page("benchmark", view, BenchmarkSettings, keys, controls, fragment=True))


def test_a_page_with_settings_hands_its_view_the_settings_and_the_keys_of_this_run_as_a_fragment(monkeypatch):
    """The Benchmark page's declaration: the widgets of its fields under the keys of this run (the methods' key
    filled by the family chosen), the settings in the link, and its view drawn as a fragment (shown_part: its own
    button reruns it alone; AppTest reruns whole scripts, so the test sees which part drew it). Fails when the view
    is not drawn as a fragment or its keys are left unfilled (tried: fragment ignored by show_page, and open_page's
    resolve_keys left out)."""
    from mvlab.ui import page

    fragments = []
    part = page.shown_part
    monkeypatch.setattr(page, "shown_part", lambda p, shown: fragments.append(p.name) or part(p, shown))
    at = AppTest.from_function(settings_page_script, default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Benchmark" and fragments == ["benchmark"]
    (shown,) = at.session_state["seen"]
    assert shown.settings.family == "dissimilarity" and shown.widgets["methods"] == "bm_methods_dissimilarity"
    at.radio(key="bm_family").set_value("pairs").run()
    assert at.session_state["seen"][-1].widgets["methods"] == "bm_methods_pairs"
    assert at.session_state["seen"][-1].settings.family == "pairs"
    assert at.query_params["family"] in ("pairs", ["pairs"])
    assert page.Page("data", print).fragment is False  # a page's view is drawn in place unless it asks
