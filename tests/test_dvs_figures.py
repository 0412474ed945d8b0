"""mvlab.viz.dvs_figures: the map of a subset's space and the zoom on one instance's region of competence."""

import numpy as np

from mvlab.viz import dvs_figures
from mvlab.viz.palette import GREEN, RED, RIGHT_SYMBOL, WRONG_SYMBOL


def test_the_space_map_marks_no_instance_and_the_zoom_shows_the_region_and_its_surroundings():
    rng = np.random.default_rng(3)
    train, test = rng.standard_normal((200, 2)), rng.standard_normal((150, 2))
    train_labels, test_labels = rng.choice(["a", "b"], 200), rng.choice(["a", "b"], 150)
    overview = dvs_figures.dissimilarity_space_map(train, test, train_labels, test_labels, ["a", "b"])
    test_traces = [t for t in overview.data if t.customdata is not None]
    assert sorted(np.concatenate([t.customdata for t in test_traces]).tolist()) == list(range(150))
    for t in test_traces:  # customdata is the test position of each drawn point
        np.testing.assert_array_equal(np.asarray(t.x), test[np.asarray(t.customdata), 0])
    # the same map whichever instance is selected: the browser keeps it instead of redrawing it
    assert overview.to_json() == dvs_figures.dissimilarity_space_map(train, test, train_labels, test_labels,
                                                               ["a", "b"]).to_json()

    selected, region = 7, np.argsort(((train - test[7]) ** 2).sum(axis=1))[:5]
    hit = np.array([True, False, True, True, False])
    zoom = dvs_figures.region_of_competence_map(train, test, train_labels, test_labels, ["a", "b"], selected=selected,
                                          region=region, region_hit=hit, padding=0.3)
    ring = next(t for t in zoom.data if t.name == "region of competence")
    np.testing.assert_array_equal(np.asarray(ring.x), train[region, 0])
    assert list(ring.marker.line.color) == [GREEN, RED, GREEN, GREEN, RED]
    assert list(ring.marker.symbol) == [RIGHT_SYMBOL, WRONG_SYMBOL, RIGHT_SYMBOL, RIGHT_SYMBOL, WRONG_SYMBOL]  # not
    # colour alone: a wrong neighbour is a cross, a right one a ring
    star = next(t for t in zoom.data if t.name == "selected")
    assert (star.x[0], star.y[0]) == (test[7, 0], test[7, 1])
    (x0, x1), (y0, y1) = zoom.layout.xaxis.range, zoom.layout.yaxis.range
    focus = np.vstack([test[[7]], train[region]])
    span = focus.max(axis=0) - focus.min(axis=0)
    np.testing.assert_allclose([x0, y0], focus.min(axis=0) - 0.3 * span)
    np.testing.assert_allclose([x1, y1], focus.max(axis=0) + 0.3 * span)
    drawn_test = np.concatenate([t.customdata for t in zoom.data if t.customdata is not None])
    inside = ((test >= [x0, y0]) & (test <= [x1, y1])).all(axis=1)
    assert sorted(drawn_test.tolist()) == np.flatnonzero(inside).tolist()  # every test point in the window, no other
    assert 7 in drawn_test


def test_large_maps_and_matrices_draw_class_stratified_samples_and_say_so():
    rng = np.random.default_rng(4)
    n_train, n_test = 20000, 5000
    train, test = rng.standard_normal((n_train, 2)), rng.standard_normal((n_test, 2))
    train_labels = np.where(rng.random(n_train) < 0.2, "a", "b")
    test_labels = np.where(rng.random(n_test) < 0.2, "a", "b")
    overview = dvs_figures.dissimilarity_space_map(train, test, train_labels, test_labels, ["a", "b"],
                                                   max_train=500, max_test=300)
    drawn_test = np.concatenate([t.customdata for t in overview.data if t.customdata is not None])
    drawn_train = sum(len(t.x) for t in overview.data if t.customdata is None)
    assert len(drawn_test) == 300 and drawn_train == 500
    for t in overview.data:  # a clicked point still names its test position
        if t.customdata is not None:
            np.testing.assert_array_equal(np.asarray(t.x), test[np.asarray(t.customdata), 0])
    assert np.mean(test_labels[drawn_test] == "a") == np.round(np.mean(test_labels == "a") * 300) / 300
    assert "500 of 20,000 training and 300 of 5,000 test instances" in overview.layout.title.text

    region = np.argsort(((train - test[11]) ** 2).sum(axis=1))[:7]
    zoom = dvs_figures.region_of_competence_map(train, test, train_labels, test_labels, ["a", "b"], selected=11,
                                                region=region, region_hit=np.ones(7, bool), padding=50.0,
                                                max_train=400, max_test=200)
    assert sum(len(t.x) for t in zoom.data if t.customdata is None and t.name.startswith("train")) <= 400
    assert sum(len(t.customdata) for t in zoom.data if t.customdata is not None) <= 200
    ring = next(t for t in zoom.data if t.name == "region of competence")
    np.testing.assert_array_equal(np.asarray(ring.x), train[region, 0])  # the region is always drawn

    chosen = rng.random((n_test, 3)) < 0.5
    order = np.argsort(test_labels, kind="stable")
    matrix = dvs_figures.view_selection_matrix(chosen, ["v1", "v2", "v3"], order, [f"t{i}" for i in range(n_test)],
                                               max_rows=250)
    assert matrix.data[0].z.shape == (250, 3)
    assert "250 of the 5,000 instances drawn" in matrix.layout.title.text
    assert matrix.data[0].x[0] == f"v1 ({100 * chosen[:, 0].mean():.0f}%)"  # shares count every instance
