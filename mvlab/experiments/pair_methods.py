"""Pair classifiers on the same draws of pairs (ALGORITHMS.md §C.8): a random forest and bagging
on concatenated pairs, gcForest and the Siamese deep forest; the ``"pairs"`` family."""

from __future__ import annotations

import time

import numpy as np
from sklearn.utils import check_random_state

from mvlab.siamese.forest import SiameseDeepForest
from mvlab.siamese.pairs import make_pair_split, pair_features

__all__ = ["PAIR_METHODS", "evaluate_pair_split", "compare_pair_methods"]


PAIR_METHODS = ("rf", "bagging", "gcforest", "sdf")


def _check_pair_methods(methods) -> None:
    unknown = set(methods) - set(PAIR_METHODS)
    if unknown or not methods:
        raise ValueError(f"methods must be a non-empty subset of {PAIR_METHODS}; got {methods!r}.")


def evaluate_pair_split(X, split, *, methods=PAIR_METHODS, n_estimators=100, lam=1.0, sdf_params=None,
                        random_state=None, n_jobs=None, progress=None) -> list:
    """Fit and score every pair method on one draw of pairs (a :class:`mvlab.siamese.pairs.PairSplit`).

    All methods use the seed ``random_state``, so gcForest and SDF grow the same first-level
    trees.  Returns one dict per method: ``method, accuracy, n_train_pairs, n_test_pairs,
    n_estimators, n_levels`` (cascades; NaN otherwise), ``fit_seconds``.
    """
    from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    _check_pair_methods(methods)
    X = np.asarray(X, dtype=np.float64)
    Ftr = pair_features(X, split.train_pairs)
    Fte = pair_features(X, split.test_pairs)
    extra = dict(sdf_params or {})
    rows = []
    for m, method in enumerate(methods):
        if progress is not None:
            progress(m / len(methods), method)
        t0 = time.perf_counter()
        n_levels = np.nan
        if method in ("gcforest", "sdf"):
            model = SiameseDeepForest(
                weighting="uniform" if method == "gcforest" else "qp", lam=lam, n_estimators=n_estimators,
                n_jobs=n_jobs, random_state=random_state, **extra,
            ).fit(Ftr, split.y_train)
            acc = model.score(Fte, split.y_test)
            n_levels = model.n_levels_
        else:
            if method == "rf":
                model = RandomForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)
            else:
                model = BaggingClassifier(DecisionTreeClassifier(), n_estimators=n_estimators, n_jobs=n_jobs,
                                          random_state=random_state)
            acc = float(model.fit(Ftr, split.y_train).score(Fte, split.y_test))
        rows.append(dict(method=method, accuracy=float(acc), n_train_pairs=len(split.y_train),
                         n_test_pairs=len(split.y_test), n_estimators=n_estimators, n_levels=n_levels,
                         fit_seconds=time.perf_counter() - t0))
    if progress is not None:
        progress(1.0, "done")
    return rows


def compare_pair_methods(
    X,
    y,
    n_train_pairs,
    *,
    n_test_pairs=None,
    methods=PAIR_METHODS,
    n_estimators=100,
    n_repeats=1,
    lam=1.0,
    sdf_params=None,
    balanced=True,
    random_state=None,
    n_jobs=None,
    progress=None,
):
    """The paper's protocol (§C.8) on one labelled dataset: accuracy of pair classifiers.

    Each repetition draws ``n_train_pairs`` training pairs and ``n_test_pairs`` (default
    ``2N/3``) test pairs from disjoint instance pools (:func:`mvlab.siamese.pairs.make_pair_split`), then
    fits, on the same pairs:

    - ``"rf"``: a random forest of ``n_estimators`` trees on the concatenated pairs;
    - ``"bagging"``: bagged decision trees (``n_estimators``) on the concatenated pairs;
    - ``"gcforest"``: :class:`SiameseDeepForest` with ``weighting="uniform"``;
    - ``"sdf"``: :class:`SiameseDeepForest` with ``weighting="qp"`` and ``lam``; it uses the
      same seed as ``"gcforest"``, so the first level's trees are identical (a paired
      comparison of the weighting alone).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_train_pairs : int
    n_test_pairs : int, optional
    methods : sequence of {"rf", "bagging", "gcforest", "sdf"}
    n_estimators : int, default=100
        Trees per forest (every forest of the cascades, and the baselines).
    n_repeats : int, default=1
        Random draws (the paper uses 100).
    lam : float, default=1.0
    sdf_params : dict, optional
        Extra :class:`SiameseDeepForest` parameters for both cascades (e.g. ``max_levels``).
    balanced : bool, default=True
    random_state : int, RandomState or None
    n_jobs : int, optional
    progress : callable ``(fraction, message) -> None``, optional

    Returns
    -------
    pandas.DataFrame
        One row per (repeat, method): ``repeat, method, accuracy, n_train_pairs, n_test_pairs,
        n_estimators, n_levels`` (cascades; NaN otherwise), ``fit_seconds``.
    """
    import pandas as pd

    _check_pair_methods(methods)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError("X must be (n_samples, n_features) and y (n_samples,).")
    rng = check_random_state(random_state)
    rows = []
    for r in range(n_repeats):
        split = make_pair_split(
            y, n_train_pairs, n_test_pairs, balanced=balanced, random_state=rng.randint(2**31 - 1)
        )
        seed = int(rng.randint(2**31 - 1))
        sub = None if progress is None else (
            lambda f, msg, r=r: progress((r + f) / n_repeats, f"repeat {r + 1}/{n_repeats}: {msg}"))
        for row in evaluate_pair_split(X, split, methods=methods, n_estimators=n_estimators, lam=lam,
                                       sdf_params=sdf_params, random_state=seed, n_jobs=n_jobs, progress=sub):
            rows.append(dict(repeat=r, **row))
    if progress is not None:
        progress(1.0, "done")
    return pd.DataFrame(rows)
