"""AppTest: the Dissimilarity page trains, draws, keeps its result and reports bad settings."""

import numpy as np


def open_page(app, dataset="nutrimouse"):
    app.switch_page("pages/dissimilarity.py").run()
    app.selectbox(key="bundled_name").set_value(dataset).run()
    app.number_input(key="dis_trees").set_value(20).run()
    return app


def test_train_draws_accuracies_weights_heatmaps_and_map(app):
    open_page(app)
    assert "press **Train**" in app.info[0].value
    app.button(key="dis_train").click().run()
    assert not app.exception, app.exception
    assert not app.error
    table = app.dataframe[0].value
    assert table["combination"].tolist() == ["average", "knn", "alignment", "oob", "concat", "late-fusion", "stacking"]
    assert np.allclose(table[["w[gene]", "w[lipid]"]].sum(axis=1), 1)
    # the page shows what the library computes from the same settings
    from mvlab.datasets.bundled import load_dataset
    from mvlab.experiments.settings import DissimilaritySettings

    expected = DissimilaritySettings(n_estimators=20).run(load_dataset("nutrimouse"))
    assert table["test accuracy"].tolist() == [round(expected.accuracy[c], 4) for c in table["combination"]]
    # accuracy + weights + the open tab's heatmap (joint) + MDS map
    assert chart_titles(app) == ["Test accuracy on the same split", "View weights of each combination",
                                 "joint (average): Breiman (shared leaves)",
                                 "Training instances placed by their joint dissimilarity"]
    assert len(app.get("download_button")) == 2


def chart_titles(app) -> list[str]:
    import json

    return [json.loads(c.proto.spec)["layout"]["title"]["text"].split("<br>")[0] for c in app.get("plotly_chart")]


def test_only_the_open_matrix_tab_is_drawn_and_another_tab_draws_its_own(app):
    """A class receiving a result gets one heatmap each: the others are drawn when their tab is opened."""
    open_page(app)
    app.button(key="dis_train").click().run()
    assert [t.label for t in app.tabs] == ["joint (average)", "gene", "lipid"]
    assert sum("Breiman" in t for t in chart_titles(app)) == 1
    app.session_state["dis_matrix"] = "lipid"  # what a click on the tab sets (on_change="rerun")
    app.run()
    assert not app.exception, app.exception
    titles = chart_titles(app)
    assert any(t.startswith("lipid: Breiman") for t in titles)
    assert not any(t.startswith(("joint (average):", "gene:")) for t in titles)
    assert any("Out-of-bag accuracy of the lipid forest" in c.value for c in app.caption)


def test_result_survives_page_switches_and_a_new_session(app):
    open_page(app)
    app.button(key="dis_train").click().run()
    before = app.dataframe[0].value
    app.switch_page("pages/data.py").run()
    app.switch_page("pages/dissimilarity.py").run()
    assert len(app.get("plotly_chart")) == 4
    # a browser refresh is a new session: the result comes back from the results store
    from streamlit.testing.v1 import AppTest

    from conftest import APP

    fresh = AppTest.from_file(APP, default_timeout=60)
    fresh.run()
    open_page(fresh)
    assert not fresh.exception, fresh.exception
    assert fresh.dataframe[0].value["test accuracy"].tolist() == before["test accuracy"].tolist()


def test_settings_that_cannot_work_give_a_message(app):
    open_page(app)
    app.slider(key="dis_test").set_value(0.1).run()  # 4 test instances for 5 diets: cannot stratify
    app.selectbox(key="bundled_name").set_value("nutrimouse-diet").run()
    app.number_input(key="dis_trees").set_value(20).run()
    app.button(key="dis_train").click().run()
    assert not app.exception, app.exception
    assert len(app.error) == 1 and "Training failed" in app.error[0].value


def test_a_run_no_worker_can_hold_is_refused_before_train(app, monkeypatch):
    """Issue #23: the estimated memory is said before Train; above a worker's memory the page refuses in
    words with the largest sample that fits, and offers no Train button."""
    from mvlab.ui import runs

    open_page(app, "breast-cancer")
    assert any("Estimated peak memory of this run: about" in c.value for c in app.caption)
    assert not app.error and [b for b in app.button if b.key == "dis_train"]
    from mvlab.datasets.bundled import load_dataset
    from mvlab.experiments.settings import DissimilaritySettings

    half = DissimilaritySettings(n_estimators=20).cost(load_dataset("breast-cancer"), 285).peak_bytes
    monkeypatch.setattr(runs, "worker_memory", lambda: half)
    app.run()
    assert any(e.value.startswith("This run cannot start: these settings need about") and
               "Use a sample of at most" in e.value for e in app.error), [e.value for e in app.error]
    assert not [b for b in app.button if b.key == "dis_train"]
