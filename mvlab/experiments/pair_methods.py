"""Pair classifiers on the same draws of pairs (docs/algorithms.md §C.8): a random forest and bagging
on concatenated pairs, gcForest and the Siamese deep forest; the ``"pairs"`` family."""

from __future__ import annotations

import time

import numpy as np

from mvlab.core.forest_fit import fit_forest
from mvlab.experiments.protocols import RepeatedPairDraws
from mvlab.experiments.runner import Family, Preset, run_protocol
from mvlab.i18n import N_, Message
from mvlab.siamese.forest import SiameseDeepForest
from mvlab.siamese.pairs import pair_features

__all__ = ["PAIR_METHODS", "PAIRS", "evaluate_pair_split", "compare_pair_methods"]


PAIR_METHODS = ("rf", "bagging", "gcforest", "sdf")
PAIR_METHOD_TITLES = {"rf": N_("random forest on concatenated pairs"),
                      "bagging": N_("bagged trees on concatenated pairs"),
                      "gcforest": N_("gcForest (uniform tree weights)"),
                      "sdf": N_("Siamese deep forest (QP tree weights)")}


def _check_pair_methods(methods) -> None:
    PAIRS.check_methods(methods)


def evaluate_pair_split(X, split, *, methods=PAIR_METHODS, n_estimators=100, lam=1.0, sdf_params=None,
                        random_state=None, n_jobs=None, progress=None, vectors=None) -> list:
    """Fit and score every pair method on one draw of pairs (a :class:`mvlab.siamese.pairs.PairSplit`).

    All methods use the seed ``random_state``, so gcForest and SDF grow the same first-level
    trees, fitted once for both (``model_cache`` of :meth:`SiameseDeepForest.fit_from_vectors`).  Returns one
    dict per method: ``method, accuracy, n_train_pairs, n_test_pairs, n_estimators, n_levels`` (cascades;
    NaN otherwise), ``lam_median`` (SDF: the median lambda of its fold-models; NaN otherwise),
    ``fit_seconds`` (a cascade that found its first level fitted counts only the rest).

    ``vectors``, optional: the training and test pairs' vectors ``(F_train (N, m), F_test (M, m))`` to fit and
    score on instead of the concatenated pairs of ``X`` (e.g. multi-grained scanning's output; ``X`` is then unused).
    """
    from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    _check_pair_methods(methods)
    if vectors is None:
        X = np.asarray(X, dtype=np.float64)
        Ftr, Fte = pair_features(X, split.train_pairs), pair_features(X, split.test_pairs)
    else:
        Ftr, Fte = vectors
    extra = dict(sdf_params or {})
    shared_forests: dict = {}  # gcForest and SDF share their seed, hence their first level: fitted once
    rows = []
    for m, method in enumerate(methods):
        if progress is not None:
            progress(m / len(methods), method)
        t0 = time.perf_counter()
        n_levels = lam_median = np.nan
        model = None  # never two models alive at once
        if method in ("gcforest", "sdf"):
            # the test pairs are scored level by level during the fit, and each level's forests let go
            # once scored: one level's trees in memory at a time (a level at T = 1000 is about 2 GB)
            model = SiameseDeepForest(
                weighting="uniform" if method == "gcforest" else "qp", lam=lam, n_estimators=n_estimators,
                n_jobs=n_jobs, random_state=random_state, **extra,
            ).fit_from_vectors(Ftr, split.y_train, model_cache=shared_forests, V_eval=Fte, keep_forests=False)
            acc = float(np.mean(model.eval_predictions_ == split.y_test))
            n_levels = model.n_levels_
            chosen = np.concatenate([a for level in model.lam_ for a in level] + [np.empty(0)])
            lam_median = float(np.median(chosen)) if chosen.size else np.nan
            if not {"gcforest", "sdf"} & set(methods[m + 1:]):
                shared_forests.clear()  # the shared first level has served both cascades
        else:
            if method == "rf":
                model = fit_forest(RandomForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs,
                                                          random_state=random_state), Ftr, split.y_train)
            else:
                model = BaggingClassifier(DecisionTreeClassifier(), n_estimators=n_estimators, n_jobs=n_jobs,
                                          random_state=random_state).fit(Ftr, split.y_train)
            acc = float(model.score(Fte, split.y_test))
        rows.append(dict(method=method, accuracy=float(acc), n_train_pairs=len(split.y_train),
                         n_test_pairs=len(split.y_test), n_estimators=n_estimators, n_levels=n_levels,
                         lam_median=lam_median, fit_seconds=time.perf_counter() - t0))
    if progress is not None:
        progress(1.0, Message(N_("done")))
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

    Runs the ``"pairs"`` family through :func:`mvlab.experiments.runner.run_protocol` with
    :class:`RepeatedPairDraws` (``n_repeats`` draws of ``n_train_pairs`` training pairs and
    ``n_test_pairs``, default ``2N/3``, test pairs from disjoint instance pools), fitting on the
    same pairs:

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
    random_state : int or None
        Seeds the draws and the models (None: 0).
    n_jobs : int, optional
        Draws in parallel (joblib); 1 or None: one after the other, 2 threads inside.
    progress : callable ``(fraction, message) -> None``, optional

    Returns
    -------
    pandas.DataFrame
        One row per (repeat, method): ``repeat, method, accuracy, n_train_pairs, n_test_pairs,
        n_estimators, n_levels`` (cascades; NaN otherwise), ``fit_seconds``.
    """
    import pandas as pd

    from mvlab.datasets.container import MultiViewDataset

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError("X must be (n_samples, n_features) and y (n_samples,).")
    seed = 0 if random_state is None else int(random_state)
    result = run_protocol(MultiViewDataset(X, y, name="pairs"), PAIRS,
                          {"methods": list(methods), "n_estimators": n_estimators, "lam": lam,
                           "sdf_params": dict(sdf_params or {})},
                          RepeatedPairDraws(int(n_repeats), int(n_train_pairs), n_test_pairs, balanced=balanced),
                          random_state=seed, n_jobs=1 if n_jobs is None else n_jobs, progress=progress)
    rows = [{"repeat": r.repetition, "method": r.method, "accuracy": r.value, **r.params, "fit_seconds": r.seconds}
            for r in result.table.itertuples()]
    return pd.DataFrame(rows, columns=["repeat", "method", "accuracy", "n_train_pairs", "n_test_pairs",
                                       "n_estimators", "n_levels", "fit_seconds"])


# ----------------------------------------------------------------------------- the family
_DEFAULTS = {"methods": list(PAIR_METHODS), "n_estimators": 100, "lam": 1.0, "sdf_params": {}}


def check_params(params: dict) -> dict:
    """The pairs family's parameters with defaults filled in."""
    unknown = set(params) - set(_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} of the pairs family; known: {sorted(_DEFAULTS)}.")
    out = {**_DEFAULTS, **params}
    out["methods"] = PAIRS.check_methods(out["methods"])
    out["sdf_params"] = dict(out["sdf_params"] or {})
    return out


def _evaluate(ds, split, params, n_jobs, keep, progress=None):
    if split.pairs is None:
        raise ValueError("the 'pairs' family needs a pair protocol (RepeatedPairDraws).")
    rows = []
    for r in evaluate_pair_split(ds.X, split.pairs, random_state=split.seed, n_jobs=n_jobs, progress=progress,
                                 **params):
        extra = {k: r[k] for k in ("n_train_pairs", "n_test_pairs", "n_estimators", "n_levels")}
        rows.append({"method": r["method"], "metric": "accuracy", "value": r["accuracy"],
                     "seconds": r["fit_seconds"], "params": extra})
    return rows, None


PAIRS = Family(
    name="pairs",
    title=N_("Pairs: RF, bagging, gcForest, SDF (Utkin & Ryabinin 2018)"),
    methods=PAIR_METHODS,
    method_titles=PAIR_METHOD_TITLES,
    baseline="gcforest",
    control="sdf",
    evaluate=_evaluate,
    check_params=check_params,
    needs_pairs=True,
    presets={
        "quick": Preset({"n_estimators": 20, "sdf_params": {"max_levels": 3}}, RepeatedPairDraws(5, 100)),
        "paper": Preset({"n_estimators": 700, "sdf_params": {"max_levels": 10}}, RepeatedPairDraws(100, 1000)),
    },
)
"""RF, bagging, gcForest and SDF on the same pairs of every draw (§C.8): the sign test compares with
gcForest, the post-hoc with SDF, the paper's proposal."""
