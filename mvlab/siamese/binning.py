"""Binning features into at most 255 ordered bins, one byte a value (docs/algorithms.md §C.2, the DF21 setting).

A tree grown on bin codes can only split between bins, so it needs the bins' order, not the values: a
feature with at most ``n_bins`` distinct training values keeps them all (each its own bin, edges halfway
between neighbours); one with more is cut at the midpoints of ``n_bins`` equal-frequency quantiles. This is
what gradient-boosting libraries and DF21 do before growing trees; the codes take one byte a value
instead of eight, and splits are searched among at most 255 thresholds.

:class:`QuantileBinner` is fitted on training rows only; new rows are coded with the training edges
(a value beyond the training range goes to the first or last bin).

Ties. When one value fills several quantiles (an out-of-bag class vector's 0 or 1), several midpoint
percentiles are equal. By default the repeated edges are merged, so codes are consecutive. DF21 keeps them
(``keep_duplicates=True``): a value's code still counts the edges below it, repeated ones included, so the
codes after a heavy tie skip the numbers the tie spans. A tree's best split sees the same partitions either
way; an extremely randomised tree, drawing its threshold uniformly between a node's smallest and largest
code, then cuts in proportion to the rows' ranks rather than to the distinct values.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_BINS", "QuantileBinner", "bin_edges"]

MAX_BINS = 255
"""Most bins a feature can have: codes are ``uint8``."""


def bin_edges(values, n_bins, keep_duplicates=False):
    """Increasing edges of the bins of one feature, shape (at most n_bins - 1,), float64.

    ``values`` (n,) are the training values. With at most ``n_bins`` distinct values the edges lie halfway
    between consecutive ones (every value keeps its own bin); otherwise they are the midpoint quantiles
    at ``100 k / n_bins`` percent, ``k = 1 .. n_bins - 1``, duplicates removed (kept, in order, with
    ``keep_duplicates``: always ``n_bins - 1`` edges, DF21's binner). A value ``x`` goes to bin
    ``#{edges < x}``, so ``x <= edge`` lies left of that edge, as a tree's ``x <= threshold`` does.
    """
    values = np.asarray(values, dtype=np.float64)
    distinct = np.unique(values)
    if distinct.size <= n_bins:
        return (distinct[:-1] + distinct[1:]) / 2.0
    percents = np.linspace(0.0, 100.0, n_bins + 1)[1:-1]
    edges = np.percentile(values, percents, method="midpoint")
    return edges if keep_duplicates else np.unique(edges)


class QuantileBinner:
    """Per-feature bins of at most ``n_bins`` (2-255) from training rows; codes are ``uint8``.

    Parameters
    ----------
    n_bins : int, default=255
    keep_duplicates : bool, default=False
        Keep repeated percentile edges (DF21), so codes after a heavy tie skip numbers (:func:`bin_edges`).

    Attributes
    ----------
    edges_ : list of ndarray
        The edges of every feature (:func:`bin_edges`).
    n_features_in_ : int
    """

    def __init__(self, n_bins=MAX_BINS, keep_duplicates=False):
        self.n_bins = n_bins
        self.keep_duplicates = keep_duplicates

    def fit(self, X):
        """Find every feature's edges on the training rows ``X`` (n_samples, n_features), finite values."""
        if not (isinstance(self.n_bins, (int, np.integer)) and 2 <= self.n_bins <= MAX_BINS):
            raise ValueError(f"n_bins must be an integer from 2 to {MAX_BINS} (codes are one byte); "
                             f"got {self.n_bins!r}.")
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {X.shape}.")
        self.edges_ = [bin_edges(X[:, j], self.n_bins, self.keep_duplicates) for j in range(X.shape[1])]
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        """Bin codes of ``X`` (n_samples, n_features), ``uint8``: feature j of a row is ``#{edges_[j] < x}``."""
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has shape {X.shape}; the binner was fitted on {self.n_features_in_} features.")
        codes = np.empty(X.shape, dtype=np.uint8)
        for j, edges in enumerate(self.edges_):
            codes[:, j] = np.searchsorted(edges, X[:, j], side="left")
        return codes

    def fit_transform(self, X):
        """:meth:`fit` then :meth:`transform` of the same rows."""
        return self.fit(X).transform(X)
