"""AppTest: the Dynamic view selection page."""

import numpy as np


def open_page(app, dataset="breast-cancer"):
    app.switch_page("pages/dvs.py").run()
    app.selectbox(key="bundled_name").set_value(dataset).run()
    app.number_input(key="dvs_trees").set_value(10).run()
    return app


def instance_sentence(app):
    return next(m.value for m in app.markdown if m.value.startswith("Test instance **"))


def test_train_shows_accuracies_selections_and_a_region(app):
    open_page(app)
    app.button(key="dvs_train").click().run()
    assert not app.exception, app.exception
    table = app.dataframe[0].value
    assert table["combination"].tolist() == ["average", "knn", "alignment", "oob", "dvs"]
    # accuracy, selection matrix, subset frequencies, region map, candidate competence
    assert len(app.get("plotly_chart")) == 5
    neighbours = app.dataframe[1].value
    assert len(neighbours) == 7 and set(neighbours.columns) == {"dataset row", "class", "dissimilarity", "OOB correct"}
    assert (np.diff(neighbours["dissimilarity"].to_numpy()) >= 0).all()  # nearest first
    assert app.get("download_button")


def test_clicking_a_point_on_the_map_selects_that_instance(app):
    open_page(app)
    app.button(key="dvs_train").click().run()
    assert instance_sentence(app).startswith("Test instance **0**")
    app.session_state["dvs_map"] = {"selection": {"points": [{"customdata": [12]}], "point_indices": [0]}}
    app.run()
    assert not app.exception, app.exception
    assert instance_sentence(app).startswith("Test instance **12**")
    assert app.number_input(key="dvs_instance").value == 12
    # the number input still works after a click
    app.number_input(key="dvs_instance").set_value(3).run()
    assert instance_sentence(app).startswith("Test instance **3**")


def test_synthetic_data_reports_choices_against_the_ground_truth(app):
    app.switch_page("pages/dvs.py").run()
    app.radio(key="dataset_source").set_value("Synthetic").run()
    app.number_input(key="dvs_trees").set_value(10).run()
    app.button(key="dvs_train").click().run()
    assert not app.exception, app.exception
    labels = [m.label for m in app.metric]
    assert labels == ["chosen views that are informative", "informative views chosen",
                      "instances with ≥ 1 informative view chosen"]
    assert all(0 <= float(m.value) <= 1 for m in app.metric)


def test_twelve_views_are_refused_with_a_message(app):
    rng = np.random.default_rng(0)
    header = "label," + ",".join(f"v{q}.x" for q in range(12))
    rows = [f"{i % 2}," + ",".join(f"{v:.3f}" for v in rng.normal(size=12)) for i in range(20)]
    app.switch_page("pages/dvs.py").run()
    app.radio(key="dataset_source").set_value("Upload CSV").run()
    app.file_uploader[0].set_value(("twelve.csv", "\n".join([header] + rows).encode(), "text/csv")).run()
    assert not app.exception, app.exception
    assert len(app.error) == 1 and "4095 DVS candidate forests" in app.error[0].value
    assert not app.button  # nothing to train


def test_impossible_settings_give_a_message(app):
    open_page(app, "nutrimouse")
    app.number_input(key="dvs_k").set_value(50).run()  # k larger than the 20 training mice
    app.button(key="dvs_train").click().run()
    assert not app.exception, app.exception
    assert len(app.error) == 1 and "Training failed" in app.error[0].value
