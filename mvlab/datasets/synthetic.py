"""Synthetic data with a known structure: multi-view data whose ground truth says which views
carry each instance's class, and a Madelon-like high-dimensional set for view construction."""

from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np
from sklearn.datasets import make_classification
from sklearn.utils import check_random_state

from mvlab.datasets.container import MultiViewDataset

__all__ = ["make_multiview_classification", "make_madelon"]


def make_multiview_classification(
    n_samples: int = 300,
    n_views: int = 3,
    n_features: int | Sequence[int] = 10,
    n_classes: int = 3,
    *,
    p_informative: float | Sequence[float] = 0.5,
    class_sep: float = 2.0,
    noise: str = "random-class",
    random_state=None,
) -> MultiViewDataset:
    """Synthetic multi-view data whose ground truth says, per instance, which views are informative.

    Generative model (all draws from ``np.random.default_rng(random_state)``):

    1. Labels: ``y_i`` uniform over the ``n_classes`` classes (balanced by construction: the
       labels are a shuffled ``0, 1, ..., C-1, 0, 1, ...`` sequence).
    2. Class prototypes: for every view ``q`` and class ``c``, ``mu[q, c]`` is a vector of
       ``n_features[q]`` independent N(0, 1) draws, rescaled to Euclidean length ``class_sep *
       sqrt(n_features[q])`` / 2, so prototypes are about ``class_sep`` standard deviations
       apart per feature on average.
    3. Informative views: for every instance ``i`` and view ``q``, ``informative[i, q]`` is a
       Bernoulli(``p_informative[q]``) draw; an instance with no informative view gets one view
       chosen uniformly at random, so every instance can be classified from some view.
    4. Features: ``x_i^(q) = mu[q, y_i] + e`` when view ``q`` is informative for ``i``;
       otherwise ``x_i^(q) = mu[q, c'] + e`` with ``c'`` a class drawn uniformly at random
       independently of ``y_i`` (``noise="random-class"``: the view looks confidently like some
       class, which misleads a plain average), or ``x_i^(q) = e`` (``noise="gaussian"``: the
       view carries no class signal).  In both cases ``e ~ N(0, I)``.

    The Bayes-optimal rule uses only each instance's informative views, which is what dynamic
    view selection tries to find; ``dataset.informative`` (n_samples, n_views) is that ground truth.

    Returns
    -------
    MultiViewDataset with views ``"v1".."vQ"``, classes ``"c0".."c{C-1}"`` and ``informative``.
    """
    if n_samples < 2 * n_classes:
        raise ValueError(f"n_samples ({n_samples}) must be at least twice n_classes ({n_classes}).")
    if n_classes < 2:
        raise ValueError(f"n_classes must be at least 2, got {n_classes}.")
    if n_views < 1:
        raise ValueError(f"n_views must be at least 1, got {n_views}.")
    sizes = [int(n_features)] * n_views if np.isscalar(n_features) else [int(s) for s in n_features]
    if len(sizes) != n_views:
        raise ValueError(f"n_features lists {len(sizes)} sizes for {n_views} views.")
    if min(sizes) < 1:
        raise ValueError("every view needs at least one feature.")
    p = np.broadcast_to(np.asarray(p_informative, dtype=float), (n_views,))
    if ((p < 0) | (p > 1)).any():
        raise ValueError(f"p_informative must lie in [0, 1], got {p_informative}.")
    if class_sep < 0:
        raise ValueError(f"class_sep must be non-negative, got {class_sep}.")
    if noise not in ("random-class", "gaussian"):
        raise ValueError(f"noise must be 'random-class' or 'gaussian', got {noise!r}.")

    rng = np.random.default_rng(random_state)
    y = rng.permutation(np.arange(n_samples) % n_classes)
    informative = rng.random((n_samples, n_views)) < p
    none = np.flatnonzero(~informative.any(axis=1))
    informative[none, rng.integers(0, n_views, size=none.size)] = True

    blocks, views, names, start = [], {}, [], 0
    for q, m in enumerate(sizes):
        mu = rng.standard_normal((n_classes, m))
        mu *= (class_sep * np.sqrt(m) / 2) / np.linalg.norm(mu, axis=1, keepdims=True)
        shown = np.where(informative[:, q], y, rng.integers(0, n_classes, size=n_samples))
        centre = mu[shown] if noise == "random-class" else np.where(informative[:, [q]], mu[y], 0.0)
        blocks.append(centre + rng.standard_normal((n_samples, m)))
        views[f"v{q + 1}"] = np.arange(start, start + m)
        names += [f"v{q + 1}.f{j}" for j in range(m)]
        start += m
    class_names = [f"c{c}" for c in range(n_classes)]
    return MultiViewDataset(
        np.hstack(blocks),
        np.asarray(class_names)[y],
        views,
        name="synthetic",
        feature_names=names,
        classes=class_names,
        informative=informative,
        description=(
            f"Synthetic: {n_views} views, {n_classes} classes; each view is informative for an instance with "
            f"probability {list(np.round(p, 2))}, otherwise it shows {'a random class' if noise == 'random-class' else 'pure noise'}."
        ),
    )


def make_madelon(n_samples: int = 200, *, n_features: int = 500, n_informative: int = 5, n_redundant: int = 15,
                 n_clusters_per_class: int = 2, random_state: int = 0) -> MultiViewDataset:
    """A Madelon-like two-class set from scikit-learn's ``make_classification`` (Guyon's generator).

    ``n_informative`` features carry the classes (Gaussian clusters on the vertices of a
    hypercube), ``n_redundant`` are random linear combinations of them, the rest is noise.
    Columns and rows are shuffled with ``random_state``; the natural views of the result are the
    three feature kinds ``"informative"``, ``"redundant"`` and ``"noise"``, so the partition view
    shows which kinds a method keeps.  (The original Madelon has 16 clusters per class; 2, the
    scikit-learn default, keeps the task learnable from a few hundred instances.)

    Returns a :class:`mvlab.datasets.MultiViewDataset` (``X`` (n_samples, n_features), ``y``,
    ``feature_names`` such as ``"informative 3"``).
    """
    for name, value, low in (("n_samples", n_samples, 10), ("n_features", n_features, 3),
                             ("n_informative", n_informative, 1), ("n_redundant", n_redundant, 0),
                             ("n_clusters_per_class", n_clusters_per_class, 1)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    if n_informative + n_redundant >= n_features:
        raise ValueError(f"n_informative + n_redundant ({n_informative + n_redundant}) must be below "
                         f"n_features ({n_features}) so that some features are noise.")
    if 2 * n_clusters_per_class > 2 ** n_informative:
        raise ValueError(f"2 classes x {n_clusters_per_class} clusters need at most 2**n_informative = "
                         f"{2 ** n_informative} hypercube vertices; use more informative features.")
    X, y = make_classification(n_samples=n_samples, n_features=n_features, n_informative=n_informative,
                               n_redundant=n_redundant, n_repeated=0, n_classes=2,
                               n_clusters_per_class=n_clusters_per_class, shuffle=False,
                               random_state=random_state)
    kinds = np.array(["informative"] * n_informative + ["redundant"] * n_redundant
                     + ["noise"] * (n_features - n_informative - n_redundant))
    names = np.array([f"{kind} {i}" for kind in ("informative", "redundant", "noise")
                      for i in range(int((kinds == kind).sum()))])
    rng = check_random_state(random_state)
    cols, rows = rng.permutation(n_features), rng.permutation(n_samples)
    X, y, kinds, names = X[np.ix_(rows, cols)], y[rows], kinds[cols], names[cols]
    views = {kind: np.flatnonzero(kinds == kind) for kind in ("informative", "redundant", "noise")}
    views = {k: v for k, v in views.items() if v.size}
    return MultiViewDataset(
        X, y, views, name=f"madelon-like ({n_samples}, seed {random_state})", feature_names=list(names),
        description=f"make_classification: {n_features} features, {n_informative} informative, "
                    f"{n_redundant} redundant, {n_clusters_per_class} clusters per class.")
