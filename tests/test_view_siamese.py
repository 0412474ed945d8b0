"""mvlab.ui.views.siamese_page: the Siamese deep forest page's view draws one experiment (AppTest of the view alone, on
a small result computed here, no page, no engine)."""

import pytest
from streamlit.testing.v1 import AppTest

from mvlab.datasets.bundled import load_dataset
from mvlab.engine.requests import result_key
from mvlab.experiments.settings import SiameseSettings


@pytest.fixture(scope="module")
def shown_result():
    from mvlab.ui.page import Shown

    data = load_dataset("breast-cancer")
    settings = SiameseSettings(n_pairs=60, n_estimators=5, max_levels=1, seed=2)
    return settings.run(data), Shown(settings, data, result_key(settings, data))


def draw_view(result, shown):
    from mvlab.ui.views import siamese_page

    siamese_page.view(result, shown)


def test_the_view_draws_the_cascade_the_weights_and_the_chosen_pair(shown_result):
    """Fails when a figure or its text alternative is left out, or the pair shown is not the one chosen (tried:
    the τ curve left out, and one_pair drawing pair 0 whatever the choice)."""
    result, shown = shown_result
    at = AppTest.from_function(draw_view, args=(result, shown), default_timeout=60).run()
    assert not at.exception, at.exception
    keys = ["sdf_levels_fig", "sdf_weights_fig", "sdf_tau_fig", "sdf_pair_fig"]
    assert [c.key for c in at.get("plotly_chart")] == keys
    assert sum(c.value.startswith("<p>Figure: ") for c in at.caption) == len(keys)
    assert at.success[0].value.startswith("breast-cancer: 60 training and 40 test pairs")
    at.selectbox[0].set_value(7).run()
    assert any("Test pair 7" in c.proto.spec for c in at.get("plotly_chart"))
    assert at.metric[-3].value == str(result.pair_table(0.0)["true label"][7])
