"""Synthetic data with a known structure: multi-view data whose ground truth says which views
carry each instance's class, and a Madelon-like high-dimensional set for view construction."""

from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np
from sklearn.datasets import make_classification
from sklearn.utils import check_random_state

from mvlab.datasets.container import MultiViewDataset
from mvlab.i18n import N_, Message

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
    relevance: str = "iid",
    region_sep: float = 3.0,
    random_state=None,
) -> MultiViewDataset:
    """Synthetic multi-view data whose ground truth says, per instance, which views carry its class.

    Generative model (all draws from ``np.random.default_rng(random_state)``):

    1. Labels: ``y_i`` uniform over the ``n_classes`` classes (balanced by construction: the
       labels are a shuffled ``0, 1, ..., C-1, 0, 1, ...`` sequence).
    2. Class prototypes: for every view ``q`` and class ``c``, ``mu[q, c]`` is a vector of
       ``n_features[q]`` independent N(0, 1) draws, rescaled to Euclidean length ``class_sep *
       sqrt(n_features[q])`` / 2, so prototypes are about ``class_sep`` standard deviations
       apart per feature on average.
    3. Informative views, ``informative[i, q]``, by ``relevance``:

       * ``"iid"``: a Bernoulli(``p_informative[q]``) draw for every instance and view; an
         instance with no informative view gets one view chosen uniformly at random.
       * ``"region"``: every instance lies in one of ``n_views`` latent regions (balanced,
         ``region_i``), and view ``q`` carries the class exactly in region ``q``:
         ``informative[i, q] = (region_i == q)``.  The region is visible in *every* view: each
         view adds a region centre ``nu[q, region_i]`` (drawn like the prototypes, with length
         ``region_sep * sqrt(n_features[q]) / 2``) to all its instances.  ``p_informative`` is
         not used.  This is the premise of dynamic selection: which view to trust depends on
         where an instance lies, and where it lies can be seen.
    4. Features: ``x_i^(q) = mu[q, y_i] + e`` when view ``q`` is informative for ``i``;
       otherwise ``x_i^(q) = mu[q, c'] + e`` with ``c'`` a class drawn uniformly at random
       independently of ``y_i`` (``noise="random-class"``: the view looks confidently like some
       class, which misleads a plain average), or ``x_i^(q) = e`` (``noise="gaussian"``: the
       view carries no class signal).  In both cases ``e ~ N(0, I)`` (plus the region centre in
       the ``"region"`` mode).

    What each mode can show.  With ``relevance="region"`` the informative views of an instance
    are a function of its (observable) region, so a rule that looks at an instance's
    neighbours can find them; the per-instance true views are an *oracle* whose accuracy is a
    reference for any choice of views (not a strict ceiling: where the true views' candidate
    errs, another subset can be right).  With ``relevance="iid"`` the informative views are drawn
    independently of everything else: under ``noise="random-class"`` a misleading view looks
    exactly like an informative one of another class, so no rule can tell them apart from
    ``x`` alone (the ground truth is then a reference for a *random* choice, not a target),
    and under ``noise="gaussian"`` an uninformative view is only noise, which a forest learns
    to ignore without choosing views at all.

    Returns
    -------
    MultiViewDataset with views ``"v1".."vQ"``, classes ``"c0".."c{C-1}"`` and ``informative``
    (n_samples, n_views) bool; in the ``"region"`` mode the description names the regions and
    ``informative`` has exactly one True per row.
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
    if class_sep < 0 or region_sep < 0:
        raise ValueError(f"class_sep and region_sep must be non-negative, got {class_sep} and {region_sep}.")
    if noise not in ("random-class", "gaussian"):
        raise ValueError(f"noise must be 'random-class' or 'gaussian', got {noise!r}.")
    if relevance not in ("iid", "region"):
        raise ValueError(f"relevance must be 'iid' or 'region', got {relevance!r}.")

    rng = np.random.default_rng(random_state)
    y = rng.permutation(np.arange(n_samples) % n_classes)
    if relevance == "iid":
        informative = rng.random((n_samples, n_views)) < p
        none = np.flatnonzero(~informative.any(axis=1))
        informative[none, rng.integers(0, n_views, size=none.size)] = True
        region = None
    else:
        region = rng.permutation(np.arange(n_samples) % n_views)
        informative = region[:, None] == np.arange(n_views)[None, :]

    def centres(k, m, length):
        c = rng.standard_normal((k, m))
        return c * ((length * np.sqrt(m) / 2) / np.linalg.norm(c, axis=1, keepdims=True))

    blocks, views, names, start = [], {}, [], 0
    for q, m in enumerate(sizes):
        mu = centres(n_classes, m, class_sep)
        shown = np.where(informative[:, q], y, rng.integers(0, n_classes, size=n_samples))
        centre = mu[shown] if noise == "random-class" else np.where(informative[:, [q]], mu[y], 0.0)
        block = centre + rng.standard_normal((n_samples, m))
        if region is not None:
            block += centres(n_views, m, region_sep)[region]
        blocks.append(block)
        views[f"v{q + 1}"] = np.arange(start, start + m)
        names += [f"v{q + 1}.f{j}" for j in range(m)]
        start += m
    class_names = [f"c{c}" for c in range(n_classes)]
    shows = Message(N_("a random class") if noise == "random-class" else N_("pure noise"))
    if relevance == "iid":
        description = Message(N_("Synthetic (independent relevance): {views} views, {classes} classes; each view "
                                 "carries an instance's class with probability {p}, otherwise it shows {shows}."),
                              views=n_views, classes=n_classes, p=[round(float(v), 2) for v in p], shows=shows)
    else:
        description = Message(N_("Synthetic (region-structured relevance): {views} views, {classes} classes; every "
                                 "instance lies in one of {views} latent regions, visible in every view; view q "
                                 "carries the class only in region q and shows {shows} elsewhere."),
                              views=n_views, classes=n_classes, shows=shows)
    return MultiViewDataset(
        np.hstack(blocks),
        np.asarray(class_names)[y],
        views,
        name="synthetic" if relevance == "iid" else "synthetic (regions)",
        feature_names=names,
        classes=class_names,
        informative=informative,
        description=description,
        origin="synthetic",
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
        origin="synthetic",
        description=Message(N_("make_classification: {features} features, {informative} informative, {redundant} "
                               "redundant, {clusters} clusters per class."), features=n_features,
                            informative=n_informative, redundant=n_redundant, clusters=n_clusters_per_class))
