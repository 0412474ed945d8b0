"""The Data page's figures (mvlab.viz.data_figures) and its PCA pictures (mvlab.viz.shared_figures)."""

import numpy as np

from mvlab.core.projection import pca_2d
from mvlab.datasets.bundled import load_dataset
from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.viz import data_figures, shared_figures


def test_figures_carry_the_data_they_are_given():
    ds = load_dataset("nutrimouse-diet")
    fig = data_figures.class_balance(ds.class_counts())
    assert list(fig.data[0].x) == list(ds.classes) and list(fig.data[0].y) == [8] * 5

    proj = {v: pca_2d(x) for v, x in zip(ds.view_names, ds.Xs)}
    fig = shared_figures.view_projections(proj, ds.labels, ds.classes)
    assert len(fig.data) == 2 * 5  # one trace per view and class
    shown = np.concatenate([np.asarray(t.customdata) for t in fig.data[:5]])
    assert sorted(shown.tolist()) == list(range(ds.n_samples))  # every instance once per view
    first = fig.data[0]
    rows = np.asarray(first.customdata)
    np.testing.assert_allclose(np.asarray(first.x), proj["gene"][0][rows, 0])


def test_ground_truth_heatmap_groups_instances_by_class():
    ds = make_multiview_classification(60, 3, 4, 3, random_state=1)
    fig = data_figures.informative_matrix(ds.informative, ds.labels, ds.view_names)
    z = np.asarray(fig.data[0].z)
    rows = np.asarray(fig.data[0].customdata)[:, 0]
    np.testing.assert_array_equal(z, ds.informative[rows].astype(int))
    assert (np.diff(ds.y[rows]) >= 0).all()  # grouped by class
    assert fig.data[0].x[0].startswith("v1 (")
