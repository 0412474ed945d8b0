"""mvlab.ui.views.view_construction_page: the View construction page's view draws one k sweep (AppTest of the view
alone, on a sweep computed here, no page, no engine)."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from mvlab.datasets.bundled import load_dataset
from mvlab.engine.requests import result_key
from mvlab.experiments.settings import ViewConstructionSettings

SMALL = dict(n_used=60, d_used=30, max_views=3, n_splits=2, inner_cv=2, ga_generations=1, seed=0)


@pytest.fixture(scope="module")
def shown_result():
    from mvlab.ui.page import Shown

    data = load_dataset("breast-cancer")
    settings = ViewConstructionSettings(**SMALL)
    return settings.run(data), Shown(settings, data, result_key(settings, data))


def draw_view(result, shown):
    from mvlab.ui.views import view_construction_page

    view_construction_page.view(result, shown)


def titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def test_the_view_draws_the_sweep_the_test_the_partition_and_the_downloads(shown_result):
    """Fails when the view leaves out a figure or its text alternative, or draws the partition of another method or
    k than the one chosen (tried: the crosstab left out, and partition() drawing result.methods[0])."""
    result, shown = shown_result
    at = AppTest.from_function(draw_view, args=(result, shown), default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("breast-cancer: 60 instances × 30 features, 2 test folds, 72 view ensembles")
    assert [c.key for c in at.get("plotly_chart")] == ["vc_boxes", "vc_lines", "vc_partition", "vc_crosstab"]
    assert sum(c.value.startswith("<p>Figure: ") for c in at.caption) == 4
    assert at.dataframe[0].value["method"].tolist()[0] == "OFSP"  # Holm against OFSP
    assert [d.proto.label for d in at.get("download_button")] == ["Download results (.csv)",
                                                                  "Download results and partitions (.npz)"]
    at.selectbox(key="vc_p_method").set_value("RFSP").run()
    at.selectbox(key="vc_p_k").set_value(2).run()
    assert titles(at)[2].startswith("RFSP, k = 2: which feature went to which view")
    assert json.loads(at.get("plotly_chart")[2].proto.spec)["data"][0]["y"] == ["view 1", "view 2", "discarded"]


def test_the_grid_of_all_draws_a_panel_per_metric_and_classifier(shown_result):
    """Fails when the grid leaves out a metric or a classifier (tried: boxes_figure's grid over the chosen
    classifier alone)."""
    from mvlab.ui.views.view_construction_page import GRID_METRICS, boxes_figure

    result, _ = shown_result
    one = boxes_figure(result, False, "accuracy", "knn")
    grid = boxes_figure(result, True, "accuracy", "knn")
    assert len(one.data) == len(result.methods)
    assert len(grid.data) == len(result.methods) * len(GRID_METRICS) * len(result.classifiers) == 48


def test_before_a_result_the_page_says_how_many_ensembles_train_builds(shown_result):
    """Fails when the count leaves out a factor (tried: the repetitions left out of waiting())."""
    from mvlab.ui.page import Shown

    def draw(shown):
        from mvlab.ui.views import view_construction_page

        view_construction_page.waiting(shown)

    settings = ViewConstructionSettings(**{**SMALL, "n_repeats": 2})
    at = AppTest.from_function(draw, args=(Shown(settings, shown_result[1].data, "k"),)).run()
    assert "144 view ensembles to build and score (6 methods × 2 classifiers × k = 1..3 × 4 folds)" in at.info[0].value
