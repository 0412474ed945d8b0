"""gcForest's multi-grained scanning (docs/algorithms.md §C.2, §C.7).

:class:`MultiGrainedScanner` turns images (or 1-D sequences) into class-vector features with
sliding windows; with ``pairs=True`` two identical windows scan the two halves of a
concatenated pair in lock-step (§C.7). Its output feeds a cascade
(:class:`mvlab.siamese.cascade.CascadeForest`).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.core.forest_fit import fit_forest
from mvlab.core.params import (
    FOLDS,
    MIN_SAMPLES_LEAF,
    MIN_SAMPLES_SPLIT,
    N_JOBS,
    OPTIONAL_POSITIVE_INT,
    POSITIVE_INT,
    RANDOM_STATE,
)
from mvlab.siamese.class_vectors import ForestUnit, forest_proba

__all__ = ["MultiGrainedScanner", "default_window_sizes"]

_MAX_SEED = np.iinfo(np.int32).max


def default_window_sizes(shape) -> list[int]:
    """Window sides the scanner uses when ``window_sizes`` is None, increasing, duplicates dropped.

    ``shape`` is an image's (H, W): ``max(1, floor(min(H, W) * r))`` for ``r`` in (1/4, 1/9, 1/16)
    (C-leo's rule, §C.2; 1, 3, 7 for 28x28); or a sequence's (d,): ``max(1, floor(d * r))`` for ``r`` in
    (1/16, 1/9, 1/4) (the SDF paper).
    """
    shape = tuple(int(s) for s in shape)
    if len(shape) == 2:
        side = min(shape)
        sizes = [max(1, int(side * r)) for r in (1 / 4, 1 / 9, 1 / 16)]
    else:
        sizes = [max(1, int(shape[0] * r)) for r in (1 / 16, 1 / 9, 1 / 4)]
    return sorted(set(sizes))


class MultiGrainedScanner(TransformerMixin, BaseEstimator):
    """Multi-grained scanning of gcForest (§C.2), with lock-step pair scanning (§C.7).

    Every window position of every sample becomes one instance carrying the sample's label;
    per window size one completely-random forest (ExtraTrees, ``max_features=1``) and one random
    forest are trained on all windows together (shared across positions, as gcForest). A
    sample's new representation is the concatenation, over window sizes, forests and positions,
    of the windows' class vectors. Training representations are out-of-fold (the k folds split
    *samples*, so no window of a held-out sample is seen); new samples average the fold-models.

    With ``pairs=True`` each row is a concatenated pair ``(x_i, x_j)``; two identical windows
    scan the two images at the same position and their contents are concatenated into one
    instance labelled ``y_ij`` (Fig. 4 of the SDF paper). No tree weighting is applied here
    ("this part of the deep forest is the same in the SDF").

    Parameters
    ----------
    image_shape : tuple (H, W) or None
        Shape of one image; ``None`` scans 1-D sequences.
    window_sizes : list of int or None
        Square window sides (images) or window lengths (sequences). Default: images
        ``max(1, floor(side * r))`` for ``r`` in (1/4, 1/9, 1/16) with ``side = min(H, W)``
        (C-leo; 7, 3, 1 for 28x28); sequences ``max(1, floor(d * r))`` for ``r`` in
        (1/16, 1/9, 1/4) (the SDF paper). Duplicates are dropped.
    stride : int, default=1
    pairs : bool, default=False
    n_estimators : int, default=30
        Trees per scanning forest (C-leo's example uses 30).
    n_folds : int, default=3
    max_depth, min_samples_split : forest parameters.
    min_samples_leaf : int, default=10
        As the official gcForest MNIST scanning configuration.
    n_jobs, random_state : as usual.

    Attributes
    ----------
    window_sizes_ : list of int
    n_positions_ : list of int
        Window positions per window size.
    units_ : list of list of ForestUnit
        Per window size, the completely-random and the random forest.
    classes_ : ndarray
    n_output_features_ : int
    """

    _parameter_constraints: dict = {
        "image_shape": ["array-like", None],  # against the data, in fit
        "window_sizes": ["array-like", None],  # against the image shape, in fit
        "stride": POSITIVE_INT,
        "pairs": ["boolean"],
        "n_estimators": POSITIVE_INT,
        "n_folds": FOLDS,
        "max_depth": OPTIONAL_POSITIVE_INT,
        "min_samples_split": MIN_SAMPLES_SPLIT,
        "min_samples_leaf": MIN_SAMPLES_LEAF,
        "n_jobs": N_JOBS,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        image_shape=None,
        window_sizes=None,
        stride=1,
        pairs=False,
        n_estimators=30,
        n_folds=3,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=10,
        n_jobs=None,
        random_state=None,
    ):
        self.image_shape = image_shape
        self.window_sizes = window_sizes
        self.stride = stride
        self.pairs = pairs
        self.n_estimators = n_estimators
        self.n_folds = n_folds
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _geometry(self, n_features):
        halves = 2 if self.pairs else 1
        if n_features % halves:
            raise ValueError(
                "pairs=True needs an even number of features (two concatenated instances); "
                f"got {n_features}."
            )
        d = n_features // halves
        if self.image_shape is not None:
            shape = tuple(int(s) for s in self.image_shape)
            if len(shape) != 2 or shape[0] * shape[1] != d:
                raise ValueError(
                    f"image_shape {self.image_shape} does not match {d} features per instance "
                    f"(H * W must equal {d})."
                )
        else:
            shape = (d,)
        return shape

    def _windows(self, X, size):
        """All windows of all rows, shape (n * n_positions, window features)."""
        shape = self.shape_
        halves = 2 if self.pairs else 1
        d = int(np.prod(shape))
        parts = []
        for h in range(halves):
            block = X[:, h * d : (h + 1) * d].reshape((X.shape[0],) + shape)
            if len(shape) == 2:
                win = sliding_window_view(block, (size, size), axis=(1, 2))
                win = win[:, :: self.stride, :: self.stride]
                parts.append(win.reshape(X.shape[0] * win.shape[1] * win.shape[2], size * size))
            else:
                win = sliding_window_view(block, size, axis=1)[:, :: self.stride]
                parts.append(win.reshape(X.shape[0] * win.shape[1], size))
        # lock-step: the same position of both halves side by side
        return np.ascontiguousarray(np.hstack(parts) if halves == 2 else parts[0])

    def _n_positions(self, size):
        shape = self.shape_
        if len(shape) == 2:
            return len(range(0, shape[0] - size + 1, self.stride)) * len(
                range(0, shape[1] - size + 1, self.stride)
            )
        return len(range(0, shape[0] - size + 1, self.stride))

    def fit(self, X, y):
        """Fit the scanning forests; see :meth:`fit_transform`."""
        self.fit_transform(X, y)
        return self

    def fit_transform(self, X, y):
        """Fit and return the out-of-fold representation of the training rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, H*W) or (n_samples, 2*H*W) with ``pairs=True``
        y : array-like of shape (n_samples,)

        Returns
        -------
        ndarray of shape ``(n_samples, n_output_features_)``
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        C = self.classes_.size
        if C < 2:
            raise ValueError("y has a single class; scanning forests need at least two.")
        if np.bincount(y_enc).min() < self.n_folds:
            raise ValueError(
                f"every class needs at least n_folds={self.n_folds} samples for the k-fold."
            )
        self.shape_ = self._geometry(X.shape[1])
        sizes = self.window_sizes
        if sizes is None:
            sizes = default_window_sizes(self.shape_)
        sizes = [int(s) for s in sizes]
        if not sizes or min(sizes) < 1 or max(sizes) > min(self.shape_):
            raise ValueError(
                f"window sizes must lie in [1, {min(self.shape_)}] for inputs of shape "
                f"{self.shape_}; got {sizes}."
            )
        self.window_sizes_ = sizes
        self.n_positions_ = [self._n_positions(s) for s in sizes]
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        outputs, self.units_ = [], []
        for size, n_pos in zip(sizes, self.n_positions_):
            W = self._windows(X, size)
            yw = np.repeat(y_enc, n_pos)
            units = []
            for kind in ("completely_random", "random"):
                rs = np.random.RandomState(rng.randint(_MAX_SEED))
                skf = StratifiedKFold(
                    self.n_folds, shuffle=True, random_state=rs.randint(_MAX_SEED)
                )
                oof = np.zeros((n, n_pos, C))
                ests = []
                for tr, te in skf.split(np.zeros(n), y_enc):
                    rows_tr = (tr[:, None] * n_pos + np.arange(n_pos)).ravel()
                    rows_te = (te[:, None] * n_pos + np.arange(n_pos)).ravel()
                    est = self._make_forest(kind, rs.randint(_MAX_SEED))
                    fit_forest(est, W[rows_tr], yw[rows_tr])
                    oof[te] = forest_proba(est, W[rows_te], C, None, self.n_jobs).reshape(
                        te.size, n_pos, C
                    )
                    ests.append(est)
                units.append(ForestUnit(kind, ests, [None] * len(ests)))
                outputs.append(oof.reshape(n, n_pos * C))
            self.units_.append(units)
        out = np.hstack(outputs)
        self.n_output_features_ = out.shape[1]
        return out

    def _make_forest(self, kind, seed):
        common = dict(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            n_jobs=self.n_jobs,
            random_state=seed,
        )
        if kind == "completely_random":
            return ExtraTreesClassifier(max_features=1, **common)
        return RandomForestClassifier(max_features="sqrt", **common)

    def transform(self, X):
        """Scanned representation of new rows (fold-model averages), ``(n, n_output_features_)``."""
        check_is_fitted(self, "units_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        C = self.classes_.size
        n = X.shape[0]
        outputs = []
        for size, n_pos, units in zip(self.window_sizes_, self.n_positions_, self.units_):
            W = self._windows(X, size)
            for unit in units:
                outputs.append(unit.predict_proba(W, C, self.n_jobs).reshape(n, n_pos * C))
        return np.hstack(outputs)
