"""AppTest: the Siamese deep forest page trains, draws, explores pairs and reports bad settings."""


def open_page(app, dataset="breast-cancer", pairs=90, trees=8):
    app.switch_page("pages/siamese.py").run()
    app.selectbox(key="bundled_name").set_value(dataset).run()
    app.number_input(key="sdf_n").set_value(pairs).run()
    app.number_input(key="sdf_trees").set_value(trees).run()
    app.number_input(key="sdf_levels").set_value(2).run()
    return app


def metric(app, label):
    return next(m.value for m in app.metric if m.label == label)


def test_page_loads_and_asks_for_training(app):
    app.switch_page("pages/siamese.py").run()
    assert not app.exception, app.exception
    assert app.title[0].value == "Siamese deep forest"
    assert "press **Train**" in app.info[0].value
    assert not app.get("plotly_chart")


def test_train_draws_levels_weights_tau_and_pair(app):
    open_page(app)
    app.button(key="sdf_train").click().run()
    assert not app.exception, app.exception
    assert not app.error
    summary = app.dataframe[0].value
    assert summary["model"].tolist() == ["gcForest", "SDF"]
    assert summary["test accuracy"].between(0, 1).all()
    weights = app.dataframe[1].value
    assert set(weights["forest"]) == {"CRF 1", "CRF 2", "RF 1", "RF 2"}
    assert weights["effective trees (mean)"].between(1, 8).all()
    # level accuracy + weight boxes + tau curve + pair view
    assert len(app.get("plotly_chart")) == 4
    assert len(app.get("download_button")) == 2
    # 60 test pairs; tau = 0 decides every pair
    assert metric(app, "SDF: undetermined pairs") == "0 of 60"
    assert metric(app, "gcForest: undetermined pairs") == "0 of 60"
    # a positive tau leaves the pairs with 0 <= S0 - S1 < tau undetermined
    app.slider(key="sdf_tau").set_value(1.5).run()
    assert not app.exception, app.exception
    undetermined = int(metric(app, "SDF: undetermined pairs").split()[0])
    assert 0 < undetermined < 60
    # the pair explorer follows the selected pair
    app.selectbox(key="sdf_pair_60").set_value(7).run()
    assert not app.exception, app.exception
    assert metric(app, "True label") in ("similar", "dissimilar")
    s = float(metric(app, "SDF: S0 − S1"))
    assert -4 <= s <= 4


def test_image_data_with_scanning_shows_images(app):
    open_page(app, dataset="digits", pairs=60, trees=6)
    app.number_input(key="bundled_n_digits").set_value(300).run()
    assert app.toggle(key="sdf_scan").value is True
    app.multiselect(key="sdf_windows_8x8").set_value([4]).run()
    app.button(key="sdf_train").click().run()
    assert not app.exception, app.exception
    assert not app.error
    assert "scanning windows [4]" in app.success[0].value
    pair_fig = app.get("plotly_chart")[-1].proto.spec
    assert '"heatmap"' in pair_fig


def test_defaults_adapt_to_small_data_and_errors_name_the_page_controls(app):
    """Issue #15: the Siamese page failed with its defaults on nutrimouse ("cannot draw 150 distinct
    similar pairs ... balanced=False") and an info box stayed under the error."""
    from mvlab.datasets.bundled import load_dataset
    from mvlab.siamese.pairs import max_train_pairs

    app.switch_page("pages/siamese.py").run()
    app.selectbox(key="bundled_name").set_value("nutrimouse-diet").run()
    most = max_train_pairs(load_dataset("nutrimouse-diet").y)
    assert app.number_input(key="sdf_n").value <= most and app.number_input(key="sdf_n").max == most
    app.number_input(key="sdf_trees").set_value(5).run()
    app.button(key="sdf_train").click().run()
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    app.toggle(key="sdf_paper").set_value(True).run()  # 1000 pairs: more than 40 mice can give
    assert not app.exception, app.exception
    assert len(app.error) == 1 and "lower 'Training pairs N'" in app.error[0].value
    assert "balanced" not in app.error[0].value and not app.info  # no API argument, no stale info box
