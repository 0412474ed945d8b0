"""mvlab.viz.dissimilarity_figures: the class-grouped dissimilarity heatmap, drawn reduced (block means or a
class-stratified sample) above its size cap."""

import numpy as np
import pytest

from mvlab.core import sampling
from mvlab.viz import dissimilarity_figures


def test_block_average_is_the_mean_of_each_block():
    M = np.arange(35, dtype=float).reshape(5, 7)
    Z, b = dissimilarity_figures.block_average(M, 3)
    assert b == 3 and Z.shape == (2, 3) and Z.dtype == np.float32
    assert Z[0, 0] == M[:3, :3].mean() and Z[1, 2] == M[3:, 6:].mean()  # ragged corner
    Z, b = dissimilarity_figures.block_average(M, 10)
    assert b == 1 and np.array_equal(Z, M)


def test_dissimilarity_heatmap_groups_by_class_and_downsamples_large_matrices():
    rng = np.random.default_rng(1)
    labels = rng.choice(["a", "b", "c"], size=30)
    D = rng.random((30, 30))
    fig = dissimilarity_figures.dissimilarity_heatmap(D, labels)
    order = sampling.class_order(labels)
    np.testing.assert_allclose(np.asarray(fig.data[0].z), D[np.ix_(order, order)].astype(np.float32))
    assert not fig.layout.title.subtitle.text
    big = dissimilarity_figures.dissimilarity_heatmap(rng.random((1000, 1000)), rng.choice(["a", "b"], size=1000),
                                                      max_size=400)
    assert np.asarray(big.data[0].z).shape == (334, 334)
    assert big.layout.title.subtitle.text == ("drawn as 334 × 334 blocks of 3 × 3 of the 1,000 × 1,000 matrix "
                                              "(block means)")


def slow_block_means(M, b):
    """Reference: the mean of every b x b block, one block at a time (ragged edges hold fewer cells)."""
    rows, cols = -(-M.shape[0] // b), -(-M.shape[1] // b)
    return np.array([[M[i * b:(i + 1) * b, j * b:(j + 1) * b].mean() for j in range(cols)] for i in range(rows)])


def test_block_averaged_heatmap_equals_the_slow_reference_on_the_class_grouped_matrix():
    """The page's case: a 284 x 284 training matrix (breast-cancer, half of 569 rows) above the cap,
    and a rectangular test x training matrix."""
    rng = np.random.default_rng(4)
    labels = rng.choice(["malignant", "benign"], size=284, p=[0.37, 0.63])
    D = rng.random((284, 284))
    fig = dissimilarity_figures.dissimilarity_heatmap(D, labels, max_size=dissimilarity_figures.HEATMAP_MAX_SIZE)
    order = sampling.class_order(labels)
    reference = slow_block_means(D[np.ix_(order, order)], 2)
    np.testing.assert_allclose(np.asarray(fig.data[0].z), reference, rtol=1e-6)
    assert fig.layout.title.subtitle.text == "drawn as 142 × 142 blocks of 2 × 2 of the 284 × 284 matrix (block means)"
    test_labels = rng.choice(["malignant", "benign"], size=285)
    R = rng.random((285, 284))
    rect = dissimilarity_figures.dissimilarity_heatmap(R, test_labels, labels, max_size=100)
    t_order = sampling.class_order(test_labels)
    np.testing.assert_allclose(np.asarray(rect.data[0].z), slow_block_means(R[np.ix_(t_order, order)], 3), rtol=1e-6)


def test_stratified_rows_keep_each_class_share_in_class_order():
    rng = np.random.default_rng(2)
    labels = np.repeat(["a", "b", "c"], [6000, 3000, 1000])[rng.permutation(10_000)]
    rows = sampling.stratified_rows(labels, 1000, random_state=3)
    assert len(rows) == 1000 and len(set(rows.tolist())) == 1000
    drawn = labels[rows]
    assert [int((drawn == c).sum()) for c in "abc"] == [600, 300, 100]
    assert list(drawn) == sorted(drawn)  # grouped by class
    for c in "abc":  # each class's rows in their original order
        assert np.all(np.diff(rows[drawn == c]) > 0)
    np.testing.assert_array_equal(rows, sampling.stratified_rows(labels, 1000, random_state=3))
    assert not np.array_equal(rows, sampling.stratified_rows(labels, 1000, random_state=4))
    # a tiny class keeps a row; few rows are all kept, class-grouped
    tiny = np.array(["x"] * 99 + ["y"])
    assert "y" in tiny[sampling.stratified_rows(tiny, 10)]
    np.testing.assert_array_equal(sampling.stratified_rows(labels[:50], 100),
                                  sampling.class_order(labels[:50]))
    with pytest.raises(ValueError, match="max_rows"):
        sampling.stratified_rows(labels, 0)


def test_sampled_heatmap_draws_the_cells_of_the_sampled_rows_and_says_so():
    rng = np.random.default_rng(5)
    labels = rng.choice(["a", "b", "c"], size=3000)
    D = rng.random((3000, 3000))
    fig = dissimilarity_figures.dissimilarity_heatmap(D, labels, max_size=300, reduce="sample", random_state=1)
    rows = sampling.stratified_rows(labels, 300, random_state=1)
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), D[np.ix_(rows, rows)].astype(np.float32))
    assert fig.layout.title.subtitle.text == ("drawn from a class-stratified sample of 300 × 300 of the "
                                              "3,000 × 3,000 matrix")
    small = dissimilarity_figures.dissimilarity_heatmap(D[:50, :50], labels[:50], reduce="sample")
    assert not small.layout.title.subtitle.text
    with pytest.raises(ValueError, match="reduce"):
        dissimilarity_figures.dissimilarity_heatmap(D[:5, :5], labels[:5], reduce="thin")


@pytest.mark.parametrize("n_classes", [3, 100])
def test_heatmap_names_its_class_blocks_and_draws_boundaries_as_one_trace(n_classes):
    """Issue #15: one shape per class boundary made a 100-class heatmap draw in 12 s; the blocks had
    no names.  The figure's size must not grow with the number of classes."""
    labels = np.repeat([f"class {c:03d}" for c in range(n_classes)], 300 // n_classes)
    D = np.random.default_rng(0).random((len(labels), len(labels)))
    fig = dissimilarity_figures.dissimilarity_heatmap(D, labels)
    assert len(fig.layout.shapes) == 0 and len(fig.data) == 2
    names = list(fig.layout.yaxis.ticktext)
    assert names[0] == "class 000" and 2 <= len(names) <= 25 and set(names) <= set(labels)
    assert fig.data[0].colorbar.title.text == "dissimilarity"
    lines = fig.data[1]
    assert sum(v is None for v in lines.x) == 2 * (n_classes - 1)  # every boundary, both axes


def test_view_weights_built_from_one_layout_draws_what_the_update_calls_drew():
    """The figure built from one layout (fast: validated once) against the same figure built step by step with
    plotly's update and add_hline calls (the slow, obvious construction)."""
    import plotly.graph_objects as go
    from plotly.colors import qualitative

    from mvlab.viz.palette import REFERENCE_LINE, nth_color

    weights = {"average": [1 / 3] * 3, "knn": [0.5, 0.3, 0.2], "oob": [0.2, 0.2, 0.6]}
    views = ["fac", "fou", "kar"]
    reference = go.Figure()
    for i, (name, w) in enumerate(weights.items()):
        reference.add_trace(go.Bar(x=views, y=list(np.asarray(w, dtype=float)), name=name,
                                   marker_color=nth_color(qualitative.Set2, i),
                                   hovertemplate=name + "<br>%{x}: %{y:.3f}<extra></extra>"))
    reference.add_hline(y=1 / 3, line_dash="dash", line_color=REFERENCE_LINE, annotation_text="uniform 1/Q",
                        annotation_position="top left")
    reference.update_layout(title="View weights of each combination", barmode="group", xaxis_title="view",
                            yaxis_title="weight", height=360, xaxis_type="category", legend_title_text="combination",
                            margin=dict(t=50, b=40, l=50, r=20))
    assert dissimilarity_figures.view_weights(weights, views).to_dict() == reference.to_dict()
