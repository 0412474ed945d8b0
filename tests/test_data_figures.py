"""The Data page's figures (mvlab.viz.data_figures) and its PCA pictures (mvlab.viz.shared_figures)."""

import numpy as np
import pytest

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


def test_method_accuracy_built_from_one_layout_draws_what_the_update_call_drew():
    """Against the same bars with an update_layout call (the slow, obvious construction)."""
    import plotly.graph_objects as go

    from mvlab.viz.palette import GREEN, GREY

    accuracy = {"average": 0.91, "knn": 0.93, "dvs": 0.95, "dvs-soft": 0.95}
    values = list(accuracy.values())
    reference = go.Figure(go.Bar(x=list(accuracy), y=values,
                                 text=[f"{v:.3f}<br>best" if v == 0.95 else f"{v:.3f}" for v in values],
                                 textposition="outside", marker_color=[GREEN if v == 0.95 else GREY for v in values],
                                 hovertemplate="%{x}<br>accuracy %{y:.4f}<extra></extra>"))
    reference.update_layout(title="Test accuracy on the same split", yaxis_title="accuracy", xaxis_type="category",
                            height=340, yaxis_range=[0.81, 1.02], margin=dict(t=50, b=40, l=50, r=20))
    assert shared_figures.method_accuracy(accuracy).to_dict() == reference.to_dict()


@pytest.mark.parametrize("n_views, columns", [(1, 1), (3, 3), (5, 3), (2, 1)])
def test_view_projections_built_from_one_layout_draws_what_make_subplots_and_updates_drew(n_views, columns):
    """Against the same figure built with make_subplots, one add_trace per class and view, and plotly's update
    calls (the slow, obvious construction)."""
    import math

    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from mvlab.viz.palette import class_colors, class_symbols

    rng = np.random.default_rng(n_views)
    classes = ["a", "b", "c"]
    labels = rng.choice(["a", "b"], size=40)  # class c absent: no trace for it
    projections = {f"v{i}": (rng.normal(size=(40, 2)), np.array([0.5, 0.2])) for i in range(n_views)}
    cols = min(columns, n_views)
    rows = math.ceil(n_views / cols)
    subtitles = [f"{v}: PC1 and PC2 keep 50% and 20% of the variance" for v in projections]
    reference = make_subplots(rows=rows, cols=cols, subplot_titles=subtitles, horizontal_spacing=0.06,
                              vertical_spacing=0.12)
    colors, symbols = class_colors(classes), class_symbols(classes)
    for k, (view, (coords, _)) in enumerate(projections.items()):
        for cls in classes:
            mask = labels == cls
            if mask.any():
                reference.add_trace(go.Scattergl(
                    x=coords[mask, 0], y=coords[mask, 1], mode="markers", name=cls, legendgroup=cls,
                    showlegend=k == 0, marker=dict(color=colors[cls], symbol=symbols[cls], size=5, opacity=0.75),
                    customdata=np.arange(40)[mask],
                    hovertemplate="instance %{customdata}<br>class " + cls + "<extra>" + view + "</extra>"),
                    row=k // cols + 1, col=k % cols + 1)
    reference.update_xaxes(showticklabels=False, title_text="")
    reference.update_yaxes(showticklabels=False, title_text="")
    reference.update_layout(title="T", height=300 * rows + 110, legend_title_text="class",
                            legend=dict(orientation="h", yanchor="top", y=-0.02, xanchor="left", x=0),
                            margin=dict(t=80, b=60, l=20, r=20))
    reference.update_annotations(font_size=12)
    fig = shared_figures.view_projections(projections, labels, classes, columns=columns, title="T")
    assert fig.to_dict() == reference.to_dict()
