"""AppTest: the View construction page trains a small k-sweep, draws it, tests it and reports bad settings."""

import base64
import json

import numpy as np

SMALL = {"vc_n_sidebar": 60, "vc_d_sidebar": 30, "vc_k": 3, "vc_folds": 2, "vc_inner": 2, "vc_generations": 1}


def open_page(app, dataset="breast-cancer", **settings):
    app.switch_page("pages/view_construction.py").run()
    app.selectbox(key="bundled_name").set_value(dataset).run()
    for key, value in {**SMALL, **settings}.items():
        app.number_input(key=key).set_value(value).run()
    return app


def charts(app):
    return [json.loads(c.proto.spec) for c in app.get("plotly_chart")]


def array(value):
    """A plotly 7 array from a chart spec (typed arrays are sent base64-encoded)."""
    if isinstance(value, dict) and "bdata" in value:
        a = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        return a.reshape([int(s) for s in value["shape"].split(",")]) if "shape" in value else a
    return np.asarray(value)


def test_page_loads_with_an_explanation_and_documented_defaults(app):
    app.switch_page("pages/view_construction.py").run()
    assert not app.exception, app.exception
    assert "press **Train**" in app.info[0].value
    assert any("Defaults" in c.value for c in app.caption)
    assert app.expander and app.number_input(key="vc_k").value == 10
    assert app.multiselect(key="vc_methods").value == ["OFSP", "RFSP", "Bagging", "AB", "VG-AC", "VC-GA"]


def test_train_draws_boxes_partition_and_statistics(app):
    open_page(app)
    app.button(key="vc_train").click().run()
    assert not app.exception, app.exception
    assert not app.error
    assert "60 instances × 30 features" in app.success[0].value
    figs = charts(app)
    assert len(figs) == 4  # boxes, lines, partition matrix, learned vs natural views
    assert len(figs[0]["data"]) == 6 and all(t["type"] == "box" for t in figs[0]["data"])
    assert figs[3]["data"][0]["y"] == ["mean", "se", "worst"]
    table = app.dataframe[0].value
    assert table["method"].tolist()[0] == "OFSP" and len(table) == 6
    assert len(app.get("download_button")) == 2

    app.toggle(key="vc_grid").set_value(True).run()  # 4 metrics x 2 classifiers x 6 methods
    assert len(charts(app)[0]["data"]) == 48
    app.selectbox(key="vc_p_method").set_value("RFSP").run()
    app.selectbox(key="vc_p_k").set_value(3).run()
    part = charts(app)[2]["data"][0]
    assert part["y"] == ["view 1", "view 2", "view 3", "discarded"]
    app.selectbox(key="vc_metric").set_value("disagreement").run()
    assert not app.exception, app.exception
    assert "k = 2..3" in " ".join(c.value for c in app.caption)
    assert "lower is better; rank 1 is best" in " ".join(c.value for c in app.caption)

    # the result is kept: back from another page it is drawn without training again
    app.switch_page("pages/data.py").run()
    app.switch_page("pages/view_construction.py").run()
    assert len(charts(app)) == 4 and not app.info


def test_madelon_like_data_shows_informative_redundant_noise(app):
    app.switch_page("pages/view_construction.py").run()
    app.radio(key="vc_source").set_value("madelon").run()
    app.number_input(key="vc_madelon_n").set_value(40).run()
    app.number_input(key="vc_d_madelon").set_value(60).run()
    app.number_input(key="vc_k").set_value(2).run()
    app.number_input(key="vc_folds").set_value(2).run()
    app.number_input(key="vc_inner").set_value(2).run()
    app.multiselect(key="vc_methods").set_value(["OFSP", "RFSP"]).run()
    app.multiselect(key="vc_classifiers").set_value(["nb"]).run()
    app.button(key="vc_train").click().run()
    assert not app.exception, app.exception
    assert "madelon-like (40" in app.success[0].value
    cross = charts(app)[3]["data"][0]
    assert cross["y"] == ["informative", "redundant", "noise"]
    counts = array(cross["text"])
    assert counts.shape == (3, 3)  # view 1, view 2, discarded
    assert counts.sum() == 60  # OFSP is disjoint: each of the 60 sampled features once


def test_settings_that_cannot_work_give_a_message(app):
    open_page(app, vc_d_sidebar=2)  # K = 3 views from 2 features: said before training, naming the controls
    assert not app.exception, app.exception
    assert len(app.error) == 1 and "lower 'K (largest k)' or raise 'Features used'" in app.error[0].value
    assert not [b for b in app.button if b.key == "vc_train"]
    app.number_input(key="vc_d_sidebar").set_value(20).run()
    app.multiselect(key="vc_classifiers").set_value([]).run()
    assert not app.exception, app.exception
    assert "at least one method and one base classifier" in app.error[0].value
