"""mvlab.viz.projection and the figure builders of mvlab.viz.plots used by the Data page."""

import numpy as np
import pytest

from mvlab.datasets.bundled import load_dataset
from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.viz import plots
from mvlab.viz.projection import pca_2d


def test_pca_matches_a_plain_eigendecomposition():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 5)) * [1, 10, 100, 1, 0.1]
    coords, explained = pca_2d(X)
    Z = (X - X.mean(0)) / X.std(0)
    evals, evecs = np.linalg.eigh(np.cov(Z, rowvar=False, bias=True))
    order = evals.argsort()[::-1]
    np.testing.assert_allclose(explained, evals[order][:2] / evals.sum())
    for k in range(2):
        ref = Z @ evecs[:, order[k]]
        np.testing.assert_allclose(np.abs(coords[:, k]), np.abs(ref), atol=1e-9)
    np.testing.assert_allclose(pca_2d(X * 3 + 1)[0], coords, atol=1e-9)  # standardised: scale-free


def test_pca_edge_cases():
    coords, explained = pca_2d(np.array([[1.0], [2.0], [4.0]]))
    assert coords.shape == (3, 2) and np.all(coords[:, 1] == 0) and explained[0] == pytest.approx(1)
    coords, explained = pca_2d(np.ones((4, 3)))  # constant: nothing to explain
    assert np.all(coords == 0) and np.all(explained == 0)
    with pytest.raises(ValueError, match="at least 2 rows"):
        pca_2d(np.ones((1, 3)))


def test_figures_carry_the_data_they_are_given():
    ds = load_dataset("nutrimouse-diet")
    fig = plots.class_balance(ds.class_counts())
    assert list(fig.data[0].x) == list(ds.classes) and list(fig.data[0].y) == [8] * 5

    proj = {v: pca_2d(x) for v, x in zip(ds.view_names, ds.Xs)}
    fig = plots.view_projections(proj, ds.labels, ds.classes)
    assert len(fig.data) == 2 * 5  # one trace per view and class
    shown = np.concatenate([np.asarray(t.customdata) for t in fig.data[:5]])
    assert sorted(shown.tolist()) == list(range(ds.n_samples))  # every instance once per view
    first = fig.data[0]
    rows = np.asarray(first.customdata)
    np.testing.assert_allclose(np.asarray(first.x), proj["gene"][0][rows, 0])


def test_ground_truth_heatmap_groups_instances_by_class():
    ds = make_multiview_classification(60, 3, 4, 3, random_state=1)
    fig = plots.informative_matrix(ds.informative, ds.labels, ds.view_names)
    z = np.asarray(fig.data[0].z)
    rows = np.asarray(fig.data[0].customdata)[:, 0]
    np.testing.assert_array_equal(z, ds.informative[rows].astype(int))
    assert (np.diff(ds.y[rows]) >= 0).all()  # grouped by class
    assert fig.data[0].x[0].startswith("v1 (")


def test_classical_mds_recovers_euclidean_configurations():
    from mvlab.viz.projection import mds_2d

    rng = np.random.default_rng(0)
    P = rng.normal(size=(40, 2)) * [3, 1]
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    coords, explained = mds_2d(D)
    Dc = np.sqrt(((coords[:, None] - coords[None]) ** 2).sum(-1))
    np.testing.assert_allclose(Dc, D, atol=1e-9)
    assert explained.sum() == pytest.approx(1) and explained[0] > explained[1]
    # an asymmetric matrix is symmetrised first
    A = D + np.triu(rng.random((40, 40)) * 0.1, 1)
    np.testing.assert_allclose(mds_2d(A)[0], mds_2d((A + A.T) / 2)[0])
    with pytest.raises(ValueError, match="square"):
        mds_2d(np.ones((3, 4)))


def test_block_average_is_the_mean_of_each_block():
    M = np.arange(35, dtype=float).reshape(5, 7)
    Z, b = plots.block_average(M, 3)
    assert b == 3 and Z.shape == (2, 3) and Z.dtype == np.float32
    assert Z[0, 0] == M[:3, :3].mean() and Z[1, 2] == M[3:, 6:].mean()  # ragged corner
    Z, b = plots.block_average(M, 10)
    assert b == 1 and np.array_equal(Z, M)


def test_dissimilarity_heatmap_groups_by_class_and_downsamples_large_matrices():
    rng = np.random.default_rng(1)
    labels = rng.choice(["a", "b", "c"], size=30)
    D = rng.random((30, 30))
    fig = plots.dissimilarity_heatmap(D, labels)
    order = plots.class_order(labels)
    np.testing.assert_allclose(np.asarray(fig.data[0].z), D[np.ix_(order, order)].astype(np.float32))
    assert "block-averaged" not in fig.layout.title.text
    big = plots.dissimilarity_heatmap(rng.random((1000, 1000)), rng.choice(["a", "b"], size=1000), max_size=400)
    assert np.asarray(big.data[0].z).shape == (334, 334)
    assert "block-averaged 3×3: 1000×1000 → 334×334" in big.layout.title.text


def test_pca_project_places_new_rows_with_the_fitted_axes():
    from mvlab.viz.projection import pca_project

    rng = np.random.default_rng(2)
    A, B = rng.normal(size=(30, 4)) * [5, 2, 1, 0.1], rng.normal(size=(7, 4))
    ca, cb, explained = pca_project(A, B)
    ref, ref_explained = pca_2d(A, standardize=False)
    np.testing.assert_allclose(ca, ref, atol=1e-9)
    np.testing.assert_allclose(explained, ref_explained)
    # a row of A given again as B lands on the same spot
    np.testing.assert_allclose(pca_project(A, A[3:4])[1], ca[3:4], atol=1e-9)
    with pytest.raises(ValueError, match="same columns"):
        pca_project(A, B[:, :3])


@pytest.mark.parametrize("n_classes", [3, 100])
def test_heatmap_names_its_class_blocks_and_draws_boundaries_as_one_trace(n_classes):
    """Issue #15: one shape per class boundary made a 100-class heatmap draw in 12 s; the blocks had
    no names.  The figure's size must not grow with the number of classes."""
    labels = np.repeat([f"class {c:03d}" for c in range(n_classes)], 300 // n_classes)
    D = np.random.default_rng(0).random((len(labels), len(labels)))
    fig = plots.dissimilarity_heatmap(D, labels)
    assert len(fig.layout.shapes) == 0 and len(fig.data) == 2
    names = list(fig.layout.yaxis.ticktext)
    assert names[0] == "class 000" and 2 <= len(names) <= 25 and set(names) <= set(labels)
    assert fig.data[0].colorbar.title.text == "dissimilarity"
    lines = fig.data[1]
    assert sum(v is None for v in lines.x) == 2 * (n_classes - 1)  # every boundary, both axes


def test_iterative_projections_equal_the_dense_ones(monkeypatch):
    """The fast paths of pca_project and mds_2d (iterative solvers above DENSE_LIMIT) against the
    dense solvers on the same matrices."""
    import mvlab.viz.projection as proj

    rng = np.random.default_rng(3)
    D = rng.random((450, 450)) + np.repeat(np.arange(3), 150)[:, None] * 0.3
    T = rng.random((50, 450))
    fast = proj.pca_project(D, T), proj.mds_2d(D)
    monkeypatch.setattr(proj, "DENSE_LIMIT", 10_000)
    dense = proj.pca_project(D, T), proj.mds_2d(D)
    for a, b in zip(fast[0], dense[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    for a, b in zip(fast[1], dense[1]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_the_space_map_marks_no_instance_and_the_zoom_shows_the_region_and_its_surroundings():
    rng = np.random.default_rng(3)
    train, test = rng.standard_normal((200, 2)), rng.standard_normal((150, 2))
    train_labels, test_labels = rng.choice(["a", "b"], 200), rng.choice(["a", "b"], 150)
    overview = plots.dissimilarity_space_map(train, test, train_labels, test_labels, ["a", "b"])
    test_traces = [t for t in overview.data if t.customdata is not None]
    assert sorted(np.concatenate([t.customdata for t in test_traces]).tolist()) == list(range(150))
    for t in test_traces:  # customdata is the test position of each drawn point
        np.testing.assert_array_equal(np.asarray(t.x), test[np.asarray(t.customdata), 0])
    # the same map whichever instance is selected: the browser keeps it instead of redrawing it
    assert overview.to_json() == plots.dissimilarity_space_map(train, test, train_labels, test_labels,
                                                               ["a", "b"]).to_json()

    selected, region = 7, np.argsort(((train - test[7]) ** 2).sum(axis=1))[:5]
    hit = np.array([True, False, True, True, False])
    zoom = plots.region_of_competence_map(train, test, train_labels, test_labels, ["a", "b"], selected=selected,
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
