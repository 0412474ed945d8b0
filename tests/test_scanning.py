"""Multi-grained scanning (mvlab.siamese.scanning, docs/algorithms.md §C.2, §C.7)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.pipeline import make_pipeline

from mvlab.siamese.cascade import CascadeForest
from mvlab.siamese.scanning import MultiGrainedScanner, default_window_sizes


def test_scanner_lockstep_windows():
    H = W = 4
    a = np.arange(16.0)
    b = 100 + np.arange(16.0)
    sc = MultiGrainedScanner(image_shape=(H, W), pairs=True, window_sizes=[2])
    sc.shape_ = (H, W)
    win = sc._windows(np.concatenate([a, b])[None, :], 2)
    assert win.shape == (9, 8)  # 3x3 positions, two 2x2 windows side by side
    A, B = a.reshape(4, 4), b.reshape(4, 4)
    pos = 0
    for r in range(3):
        for c in range(3):
            np.testing.assert_array_equal(win[pos, :4], A[r : r + 2, c : c + 2].ravel())
            np.testing.assert_array_equal(win[pos, 4:], B[r : r + 2, c : c + 2].ravel())
            pos += 1
    sc1 = MultiGrainedScanner(image_shape=None, window_sizes=[3], stride=2)
    sc1.shape_ = (7,)
    np.testing.assert_array_equal(sc1._windows(np.arange(7.0)[None], 3), [[0, 1, 2], [2, 3, 4], [4, 5, 6]])


def test_scanner_fit_transform_and_pipeline():
    X, y = load_digits(return_X_y=True)
    Xtr, ytr, Xte, yte = X[:300], y[:300], X[300:450], y[300:450]
    sc = MultiGrainedScanner(image_shape=(8, 8), window_sizes=[4, 6], n_estimators=8, random_state=0)
    Z = sc.fit_transform(Xtr, ytr)
    assert sc.n_positions_ == [25, 9]
    assert Z.shape == (300, (25 + 9) * 2 * 10) == (300, sc.n_output_features_)
    Zt = sc.transform(Xte)
    assert Zt.shape == (150, sc.n_output_features_)
    np.testing.assert_array_equal(Zt, clone(sc).fit(Xtr, ytr).transform(Xte))
    pipe = make_pipeline(
        MultiGrainedScanner(image_shape=(8, 8), window_sizes=[4], n_estimators=8, random_state=0),
        CascadeForest(n_estimators=10, max_levels=2, random_state=0),
    ).fit(Xtr, ytr)
    assert pipe.score(Xte, yte) > 0.8


def test_scanner_default_windows_and_errors():
    assert default_window_sizes((28, 28)) == [1, 3, 7]
    assert default_window_sizes((64,)) == [4, 7, 16]
    X = np.random.default_rng(0).random((12, 16))
    y = np.arange(12) % 2
    with pytest.raises(ValueError, match="image_shape"):
        MultiGrainedScanner(image_shape=(3, 3)).fit(X, y)
    with pytest.raises(ValueError, match="window sizes"):
        MultiGrainedScanner(image_shape=(4, 4), window_sizes=[5]).fit(X, y)
    with pytest.raises(ValueError, match="even number"):
        MultiGrainedScanner(pairs=True).fit(X[:, :15], y)
