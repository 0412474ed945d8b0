"""Reproducible experiments: the three papers' protocols and a runner that gives every method
the same splits.

Protocols (:class:`RepeatedHoldout`, :class:`RepeatedKFold`, :class:`RepeatedPairDraws`) turn
labels and a seed into a list of :class:`Split` objects.  A *family* evaluates all of its
methods on one split at once, so that methods that share work share it exactly (the
dissimilarity combinations share the same view forests; gcForest and SDF share their seed):

- ``"dissimilarity"``: Avg, SWknn, SWka, SWoob and DVS (Bernard et al.), on the split's rows;
- ``"pairs"``: RF, bagging, gcForest and SDF on the split's pairs (Utkin & Ryabinin);
- ``"view-construction"``: OFSP and the five baselines, per classifier and number of views
  (Kumar & Minz), when :mod:`mvlab.experiments.view_construction` is available.

:func:`run_experiment` runs the splits through joblib (``n_jobs`` uses the cores) and returns a
tidy table (dataset, method, parameters, repetition, fold, metric, value, seconds); with a
:class:`mvlab.experiments.store.ResultsStore` every finished split is committed at once, so an
interrupted run keeps what finished.

Running on a cluster
--------------------
The splits go through :class:`joblib.Parallel`, so any joblib backend can take them.  With Dask
(``pip install distributed``)::

    from dask.distributed import Client
    import joblib
    client = Client("tcp://scheduler:8786")        # or Client() for a local cluster
    with joblib.parallel_config(backend="dask"):
        run_experiment(ds, "dissimilarity", {...}, RepeatedHoldout(10), n_jobs=-1)

With Ray, ``from ray.util.joblib import register_ray; register_ray()`` and
``backend="ray"``.  Each split then runs on a worker; the forests inside use one thread.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Callable, Mapping

import pandas as pd
from joblib import Parallel, delayed

from mvlab.datasets.container import MultiViewDataset
from mvlab.core.progress import ProgressCallback
from mvlab.experiments.protocols import Split

__all__ = [
    "FAMILIES", "ExperimentResult",
    "run_experiment", "summarize",
]


# ---------------------------------------------------------------------------- families
def _evaluate_dissimilarity(ds: MultiViewDataset, split: Split, params: Mapping, n_jobs: int) -> list[dict]:
    from mvlab.experiments.dissimilarity import compare_combinations

    result = compare_combinations(ds.X, ds.y, ds.view_indices, view_names=ds.view_names, classes=ds.classes,
                                  split=(split.train, split.test), random_state=split.seed, n_jobs=n_jobs, **params)
    return [{"method": c, "metric": "accuracy", "value": a, "seconds": result.seconds[c]}
            for c, a in result.accuracy.items()]


def _evaluate_pairs(ds: MultiViewDataset, split: Split, params: Mapping, n_jobs: int) -> list[dict]:
    from mvlab.experiments.pair_methods import evaluate_pair_split

    if split.pairs is None:
        raise ValueError("the 'pairs' family needs a pair protocol (RepeatedPairDraws).")
    rows = evaluate_pair_split(ds.X, split.pairs, random_state=split.seed, n_jobs=n_jobs, **params)
    return [{"method": r["method"], "metric": "accuracy", "value": r["accuracy"], "seconds": r["fit_seconds"]}
            for r in rows]


def _evaluate_view_construction(ds: MultiViewDataset, split: Split, params: Mapping, n_jobs: int) -> list[dict]:
    from mvlab.experiments.view_construction import evaluate_split

    return evaluate_split(ds.X, ds.y, split.train, split.test, random_state=split.seed, n_jobs=n_jobs, **params)


FAMILIES: dict[str, Callable] = {
    "dissimilarity": _evaluate_dissimilarity,
    "pairs": _evaluate_pairs,
    "view-construction": _evaluate_view_construction,
}


def _run_split(family: str, ds: MultiViewDataset, split: Split, params: Mapping, n_jobs: int):
    start = time.perf_counter()
    rows = FAMILIES[family](ds, split, params, n_jobs)
    for r in rows:
        r.setdefault("params", {})
    return split.repetition, split.fold, rows, time.perf_counter() - start


@dataclass
class ExperimentResult:
    """What :func:`run_experiment` returns: the tidy table and, if stored, the run id."""

    table: pd.DataFrame
    run_id: str | None
    seconds: float


def run_experiment(
    dataset: MultiViewDataset,
    family: str,
    params: Mapping,
    protocol,
    *,
    random_state: int = 0,
    n_jobs: int = 1,
    store=None,
    kind: str | None = None,
    progress: ProgressCallback = None,
) -> ExperimentResult:
    """Evaluate a family of methods on every split of ``protocol``.

    Parameters
    ----------
    dataset : MultiViewDataset
    family : one of :data:`FAMILIES`
    params : dict
        Parameters of the family (e.g. ``{"combinations": [...], "n_estimators": 100}``).
    protocol : RepeatedHoldout, RepeatedKFold or RepeatedPairDraws
    random_state : int
        Seeds the splits and every model (each split has its own derived seed).
    n_jobs : int
        Splits run in parallel through joblib (any joblib backend, see the module docstring);
        with ``n_jobs == 1`` the forests inside use 2 threads instead.
    store : mvlab.experiments.store.ResultsStore, optional
        Records the run (``kind``, default ``"experiment:<family>"``) and commits each split's
        rows as soon as the split finishes.

    Returns
    -------
    ExperimentResult with ``table`` columns dataset, method, parameters, repetition, fold,
    metric, value, seconds.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; choose one of {list(FAMILIES)}.")
    splits = protocol.splits(dataset.y, random_state)
    settings = {"family": family, "params": dict(params), "protocol": type(protocol).__name__,
                "protocol_params": asdict(protocol), "random_state": random_state}
    run_id = None
    if store is not None:
        run_id = store.start_run(kind or f"experiment:{family}", dataset.name, dataset.fingerprint(), random_state,
                                 settings)
    inner_jobs = 2 if n_jobs == 1 else 1
    parameters = json.dumps(dict(params), sort_keys=True, default=str)
    rows, start = [], time.perf_counter()
    try:
        jobs = (delayed(_run_split)(family, dataset, s, params, inner_jobs) for s in splits)
        for done, (rep, fold, split_rows, _) in enumerate(
                Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs), start=1):
            for r in split_rows:
                r.update(repetition=rep, fold=fold)
            if store is not None:
                store.add_results(run_id, split_rows)
            rows += split_rows
            if progress is not None:
                progress(done / len(splits), f"{done}/{len(splits)} splits done")
    except BaseException:
        if store is not None:
            store.finish_run(run_id, {"splits_done": len({(r['repetition'], r['fold']) for r in rows})}, failed=True)
        raise
    seconds = time.perf_counter() - start
    table = pd.DataFrame(rows, columns=["method", "metric", "value", "seconds", "repetition", "fold", "params"])
    table = table.drop(columns="params").sort_values(["repetition", "fold"], kind="stable")  # methods in run order
    table.insert(0, "dataset", dataset.name)
    table.insert(2, "parameters", parameters)
    table = table[["dataset", "method", "parameters", "repetition", "fold", "metric", "value", "seconds"]]
    if store is not None:
        store.finish_run(run_id, {"seconds": seconds, "splits": len(splits)})
    return ExperimentResult(table.reset_index(drop=True), run_id, seconds)


def summarize(table: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """Mean ± std (over repetitions and folds) per dataset and method of one metric: columns
    dataset, method, mean, std, n."""
    part = table[table["metric"] == metric]
    if part.empty:
        raise ValueError(f"no rows with metric {metric!r}; the table has {sorted(table['metric'].unique())}.")
    out = part.groupby(["dataset", "method"], sort=False)["value"].agg(["mean", "std", "count"]).reset_index()
    return out.rename(columns={"count": "n"})
