"""mvlab.ui.views.dissimilarity_page: the Dissimilarity page's view draws one comparison (AppTest of the view alone,
on a result computed here, no page, no engine)."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from mvlab.datasets.bundled import load_dataset
from mvlab.engine.requests import result_key
from mvlab.experiments.settings import DissimilaritySettings


@pytest.fixture(scope="module")
def shown_result():
    from mvlab.ui.page import Shown

    data = load_dataset("nutrimouse")
    settings = DissimilaritySettings(n_estimators=5, seed=3)
    return settings.run(data), Shown(settings, data, result_key(settings, data))


def draw_view(result, shown):
    from mvlab.ui.views import dissimilarity_page

    dissimilarity_page.view(result, shown)


def test_the_view_draws_the_split_the_figures_with_their_text_and_the_downloads(shown_result):
    """Fails when the view leaves out a figure, the figures' text alternatives (show_figure) or the split it
    reports (tried: the joint map left out, and plotly_chart drawn without show_figure)."""
    result, shown = shown_result
    at = AppTest.from_function(draw_view, args=(result, shown), default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith(f"nutrimouse: {len(result.train_index)} training and "
                                          f"{len(result.test_index)} test instances, 2 view forests of 5 trees")
    charts = at.get("plotly_chart")
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"].split("<br>")[0] for c in charts]
    assert titles == ["Test accuracy on the same split", "View weights of each combination",
                      "joint (average): Breiman (shared leaves)", "Training instances placed by their joint "
                      "dissimilarity"]
    assert sum(c.value.startswith("<p>Figure: ") for c in at.caption) == len(charts)  # one text per figure
    assert at.dataframe[0].value["combination"].tolist()[0] == "average"
    assert [d.proto.label for d in at.get("download_button")] == ["Download matrices and results (.npz)",
                                                                  "Download results (.csv)"]
