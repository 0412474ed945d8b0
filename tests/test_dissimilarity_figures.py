"""mvlab.viz.dissimilarity_figures: the class-grouped, block-averaged dissimilarity heatmap."""

import numpy as np
import pytest

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
    order = dissimilarity_figures.class_order(labels)
    np.testing.assert_allclose(np.asarray(fig.data[0].z), D[np.ix_(order, order)].astype(np.float32))
    assert "block-averaged" not in fig.layout.title.text
    big = dissimilarity_figures.dissimilarity_heatmap(rng.random((1000, 1000)), rng.choice(["a", "b"], size=1000),
                                                      max_size=400)
    assert np.asarray(big.data[0].z).shape == (334, 334)
    assert "block-averaged 3×3: 1000×1000 → 334×334" in big.layout.title.text


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
