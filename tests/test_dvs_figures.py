"""mvlab.viz.dvs_figures: the map of a subset's space and the zoom on one instance's region of competence."""

import numpy as np

from mvlab.viz import dvs_figures


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
    assert list(ring.marker.line.color) == ["#2ca02c", "#d62728", "#2ca02c", "#2ca02c", "#d62728"]
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
