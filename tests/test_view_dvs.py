"""mvlab.ui.views.dvs_page: the Dynamic view selection page's view draws one comparison (AppTest of the view alone, on a
result computed here on the region demo, no page, no engine)."""

import pytest
from streamlit.testing.v1 import AppTest

from mvlab.engine.requests import result_key
from mvlab.experiments.settings import DVSSettings
from mvlab.ui.widgets import widget_keys


@pytest.fixture(scope="module")
def shown_result():
    from mvlab.ui.page import Shown

    settings = DVSSettings(n_estimators=5, seed=1)
    data = settings.data(None)
    return settings.run(data), Shown(settings, data, result_key(settings, data), widget_keys(DVSSettings, "dvs"))


def draw_view(result, shown):
    from mvlab.ui.views import dvs_page

    dvs_page.view(result, shown)


def test_the_view_explains_the_choices_of_one_method_and_one_instance(shown_result):
    """Fails when the view leaves out a figure or its text alternative, or explains another instance than the one
    chosen (tried: the competence charts left out, and chosen_instance ignoring the number box)."""
    result, shown = shown_result
    at = AppTest.from_function(draw_view, args=(result, shown), default_timeout=60).run()
    assert not at.exception, at.exception
    keys = ["dvs_accuracy", "dvs_matrix", "dvs_subsets", "dvs_map", "dvs_region", "dvs_competence_paper",
            "dvs_competence_soft"]
    assert [c.key for c in at.get("plotly_chart")] == keys
    assert sum(c.value.startswith("<p>Figure: ") for c in at.caption) == len(keys)
    assert at.radio(key="dvs_show").value == "dvs"
    at.number_input(key="dvs_instance").set_value(5).run()
    sentence = next(m.value for m in at.markdown if m.value.startswith("Test instance **"))
    assert sentence.startswith("Test instance **5** (dataset row ") and "Its true view(s)" in sentence
    at.radio(key="dvs_show").set_value("dvs-soft").run()
    assert not at.exception, at.exception
    assert "DVS, soft competence chose" in next(m.value for m in at.markdown if m.value.startswith("Test instance"))
    assert at.get("download_button")
