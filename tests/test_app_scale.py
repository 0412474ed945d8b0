"""AppTest: the Dissimilarity and DVS pages above 10,000 training rows (issue #23) train on the real engine
through the large-data path: prototypes said on the page, heatmaps and maps from a stratified sample (said on
the figures), the DVS explorer answering from the kept maps.  20,200 synthetic rows, 2 views, 5 trees."""

import numpy as np
import pytest

N_ROWS = 20_200  # 10,100 training rows at the pages' 50 % test share


@pytest.fixture
def large(app):
    app.radio(key="dataset_source").set_value("Synthetic").run()
    app.number_input(key="syn_n").set_value(N_ROWS).run()
    app.number_input(key="syn_views").set_value(2).run()
    app.number_input(key="syn_features").set_value(3).run()
    assert not app.exception, app.exception
    return app


def _titles(app) -> list[str]:
    import json

    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in app.get("plotly_chart")]


def test_dissimilarity_page_trains_on_prototypes_and_draws_a_sample(large):
    app = large
    app.switch_page("pages/dissimilarity.py").run()
    app.number_input(key="dis_trees").set_value(5).run()
    assert not app.error, [e.value for e in app.error]
    assert any("Estimated peak memory" in c.value for c in app.caption)
    app.button(key="dis_train").click().run(timeout=240)
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    assert any("1000 of the 10100 training rows" in c.value and "prototypes='auto'" in c.value for c in app.caption)
    assert any("class-stratified sample of 1,000 of the 10,100 training rows" in c.value for c in app.caption)
    table = app.dataframe[0].value
    assert set(table["combination"]) >= {"average", "knn", "alignment", "oob"}
    assert table["test accuracy"].between(0.34, 1.0).all()  # 3 classes: better than chance
    import json

    heatmap = json.loads(next(c for c in app.get("plotly_chart") if c.key.startswith("dis_heat")).proto.spec)
    assert "sample of 1,000 of the 10,100 training rows" in heatmap["layout"]["title"]["subtitle"]["text"]
    assert heatmap["data"][0]["z"]["shape"].replace(" ", "") == "200,200"  # block means of the sample (binary)
    assert any("1,000 of the 10,100 training rows" in t for t in _titles(app))  # the map


def test_dvs_page_explains_instances_from_the_kept_maps(large):
    app = large
    app.switch_page("pages/dvs.py").run()
    app.radio(key="dvs_source").set_value("sidebar").run()
    app.number_input(key="dvs_trees").set_value(5).run()
    app.button(key="dvs_train").click().run(timeout=240)
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    assert any("1000 of the 10100 training rows" in c.value for c in app.caption)
    titles = _titles(app)
    assert any("1,000 of the 10,100 instances drawn" in t for t in titles)  # the selection matrix
    assert any("PCA of the dissimilarities to the 1000 prototypes" in t and "class-stratified samples drawn" in t
               for t in titles)  # the map of the chosen subset
    neighbours = next(d.value for d in app.dataframe if "dissimilarity" in d.value.columns)
    assert len(neighbours) == 7 and (np.diff(neighbours["dissimilarity"].to_numpy()) >= 0).all()
    app.number_input(key="dvs_instance").set_value(9876).run()
    assert not app.exception, app.exception
    assert any(m.value.startswith("Test instance **9876**") for m in app.markdown)
