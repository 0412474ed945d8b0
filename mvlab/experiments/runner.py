"""One runner for every repeated protocol: the same splits for every method, every finished
split stored at once, a stored run resumed where it stopped.

A :class:`Family` is what a paper compares: its methods (by the names stored in results), the
baseline of the sign test and the control of the post-hoc, the parameters it accepts and a
function that evaluates *all* its methods on one split, so that methods that share work share
it exactly (the dissimilarity combinations share their view forests; gcForest and SDF their
seed).  The three families are defined next to their computations
(:mod:`mvlab.experiments.combinations`, :mod:`mvlab.experiments.view_construction_sweep`,
:mod:`mvlab.experiments.pair_methods`) and listed by name in :mod:`mvlab.experiments.families`,
which the CLI, the Benchmark page and the store use.

:func:`run_protocol` turns a protocol (:mod:`mvlab.experiments.protocols`) into splits, runs
the family on each (through joblib: any backend, see below), and returns a tidy table (dataset,
method, repetition, fold, metric, value, seconds, params).  With a
:class:`mvlab.store.ResultsStore` each finished split is committed in one
transaction, and ``resume=True`` continues the newest run of the same kind, data and settings:
the splits it already stored are read back, not recomputed (also from a run that differs only by fewer
repetitions, whose splits are the first ones of this protocol's).

Running on a cluster
--------------------
The splits go through :class:`joblib.Parallel`, so any joblib backend can take them.  With Dask
(``pip install distributed``)::

    from dask.distributed import Client
    import joblib
    client = Client("tls://scheduler:8786")        # or Client() for a local cluster (TLS: docs/guide/deploy.md)
    with joblib.parallel_config(backend="dask"):
        run_experiment(ds, "dissimilarity", {...}, RepeatedHoldout(10), n_jobs=-1)

With Ray, ``from ray.util.joblib import register_ray; register_ray()`` and
``backend="ray"``.  Each split then runs on a worker; the forests inside use one thread.
"""

from __future__ import annotations

import json
import time
from contextlib import closing
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping

import pandas as pd
from sklearn.utils.parallel import Parallel, delayed

from mvlab.core.progress import ProgressCallback, Stopped, report_partial, scaled
from mvlab.core.threads import call_on_threads
from mvlab.datasets.container import MultiViewDataset
from mvlab.experiments.protocols import Split
from mvlab.i18n import N_, Message

__all__ = ["Family", "Preset", "ExperimentResult", "run_protocol", "summarize", "TABLE_COLUMNS"]

TABLE_COLUMNS = ["dataset", "method", "repetition", "fold", "metric", "value", "seconds", "params"]
"""Columns of :attr:`ExperimentResult.table`; ``params`` is a dict per row (e.g. the classifier
and k of a view-construction cell), ``{}`` when a method needs none."""


@dataclass(frozen=True)
class Preset:
    """A family's parameters and protocol at one size (``"quick"``: minutes on 2 cores;
    ``"paper"``: the paper's sizes)."""

    params: dict
    protocol: Any


@dataclass(frozen=True)
class Family:
    """A paper's comparison: what it compares, and how one split is evaluated.

    Attributes
    ----------
    name : str
        ``"dissimilarity"``, ``"view-construction"``, ``"pairs"``.
    title : str
    methods : tuple of str
        Every method, by the name stored in results and shown in reports.
    method_titles : dict
        Method name -> a name for people.
    baseline : str
        The method every other is compared with by the sign test (the paper's reference).
    control : str
        The control of the post-hoc tests (the paper's proposal).
    evaluate : callable ``(dataset, split, params, n_jobs, keep_details, progress) -> (rows, details)``
        Fits and scores every method of ``params`` on one :class:`Split`.  ``rows`` are dicts
        with ``method, metric, value, seconds`` and optionally ``params`` (a dict);
        ``details`` is anything the caller may want to keep from that split (None unless
        ``keep_details``).
    check_params : callable ``(params) -> dict``
        Validates the parameters (a ``ValueError`` names the bad one and the allowed values)
        and returns them with the defaults filled in; the runner stores what it returns.
    needs_pairs : bool
        The protocol must draw pairs (:class:`mvlab.experiments.protocols.RepeatedPairDraws`).
    group_by : tuple of str
        Keys of the rows' ``params`` that make separate comparisons (view construction compares
        methods per base classifier); reports are built per group.
    presets : dict
        ``"quick"`` and ``"paper"`` parameters (the paper's sizes), used by the CLI and the pages.
    check_data : callable (n_views, checked params) -> list of str, optional
        What makes the parameters unusable on data with that many views (see :meth:`problems`).
    """

    name: str
    title: str
    methods: tuple
    baseline: str
    control: str
    evaluate: Callable
    check_params: Callable
    method_titles: dict = field(default_factory=dict)
    needs_pairs: bool = False
    group_by: tuple = ()
    presets: dict = field(default_factory=dict)
    check_data: Callable | None = None

    def problems(self, n_views: int, params: Mapping) -> list[str]:
        """Why ``params`` cannot run on data with ``n_views`` views (empty if they can), in words;
        :func:`run_protocol` refuses such a run before training, the Benchmark page says it first."""
        return self.check_data(n_views, params) if self.check_data is not None else []

    def check_methods(self, methods) -> list[str]:
        """``methods`` as a list, or a ``ValueError`` naming the unknown ones and the known ones."""
        methods = list(methods)
        unknown = [m for m in methods if m not in self.methods]
        if unknown or not methods:
            raise ValueError(f"unknown method(s) {unknown} for the {self.name!r} family; choose from "
                             f"{list(self.methods)}." if unknown
                             else f"choose at least one method of {list(self.methods)}.")
        return methods


@dataclass
class ExperimentResult:
    """What :func:`run_protocol` returns.

    Attributes
    ----------
    table : DataFrame with :data:`TABLE_COLUMNS`, in split order
    run_id : str or None
        The run in the results store (None without a store).
    seconds : float
        Wall-clock seconds of this call (splits read back from the store cost nothing).
    family : str
    params : dict
        The checked parameters (defaults filled in), as stored.
    details : dict (repetition, fold) -> object
        What the family kept of a split (``details="last"``: the last split only).
    resumed_splits : int
        Splits read back from an earlier, interrupted run.
    compute_seconds : float
        Wall-clock seconds spent computing the run's splits, summed over every call that computed
        some (this one and, when resuming, the earlier ones; stored in the run's summary).
    """

    table: pd.DataFrame
    run_id: str | None
    seconds: float
    family: str = ""
    params: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    resumed_splits: int = 0
    compute_seconds: float = 0.0


def _computing_seconds(summary: Mapping) -> float:
    """The computing time a stored run's summary records (NaN when unknown): runs stored before
    ``compute_seconds`` existed have it only when their one call computed every split."""
    if "compute_seconds" in summary:
        return float(summary["compute_seconds"])
    if "seconds" in summary and summary.get("resumed_splits", 0) == 0:
        return float(summary["seconds"])
    return float("nan")  # e.g. a run whose process was killed before it could record anything


class _SplitProgress:
    """One split's progress (a :func:`mvlab.core.progress.scaled` callback), whose partial results are that split's
    rows so far, as a family's ``evaluate`` offers them, turned into the caller's partial result by ``convert(rows)``;
    without ``convert`` it takes none (a family's rows are never handed on as a result)."""

    def __init__(self, progress, convert: Callable[[list], object] | None):
        self.progress = progress
        take = getattr(progress, "partial", None)
        if convert is not None and take is not None:
            self.partial = lambda build, note: take(lambda: convert(build()), note)

    def __call__(self, fraction: float, message: str) -> None:
        self.progress(fraction, message)


def _tagged(rows: list, split: Split) -> list:
    """Copies of a split's ``rows`` with its repetition and fold (as :func:`_run_split` gives them)."""
    return [{**r, "params": dict(r.get("params", {})), "repetition": split.repetition, "fold": split.fold}
            for r in rows]


def _run_split(family: Family, ds: MultiViewDataset, split: Split, params: Mapping, n_jobs: int, keep: bool,
               progress: ProgressCallback = None):
    start = time.perf_counter()
    rows, details = family.evaluate(ds, split, params, n_jobs, keep, progress)
    for r in rows:
        r.setdefault("params", {})
        r.update(repetition=split.repetition, fold=split.fold)
    return split.repetition, split.fold, rows, details, time.perf_counter() - start


def _settings(family: Family, params: Mapping, protocol, random_state: int) -> dict:
    return {"family": family.name, "params": dict(params), "protocol": type(protocol).__name__,
            "protocol_params": asdict(protocol), "random_state": random_state}


def run_protocol(
    dataset: MultiViewDataset,
    family: Family,
    params: Mapping,
    protocol,
    *,
    random_state: int = 0,
    n_jobs: int = 1,
    inner_jobs: int | None = None,
    store=None,
    kind: str | None = None,
    resume: bool = False,
    details: str | None = None,
    progress: ProgressCallback = None,
    partial: Callable[[ExperimentResult], object] | None = None,
) -> ExperimentResult:
    """Evaluate a family's methods on every split of ``protocol``.

    Parameters
    ----------
    dataset : MultiViewDataset
    family : Family
    params : dict
        The family's parameters (see its ``check_params``; unknown keys are refused).
    protocol : RepeatedHoldout, RepeatedKFold or RepeatedPairDraws
    random_state : int
        Seeds the splits and every model (each split has its own derived seed).
    n_jobs : int
        Splits run in parallel through joblib (any joblib backend, see the module docstring);
        with ``n_jobs == 1`` splits run one after the other and report finer progress.
    inner_jobs : int, optional
        Workers for the work inside a split (default: 2 when splits run one after the other,
        else 1).
    store : mvlab.store.ResultsStore, optional
        Records the run (``kind``, default ``"experiment:<family>"``) and commits each split's
        rows as soon as the split finishes.
    resume : bool
        With a store: continue the newest run of the same kind, data fingerprint and settings
        (finished or not); its stored splits are read back, the others computed. When there is no such
        run, the new run starts from the splits of one that differs only by fewer repetitions (copied into it).
    details : {None, "last", "all"}
        Ask the family to keep what it computed on the last split, or on every split.
    progress : callable (fraction, message), optional
    partial : callable ExperimentResult -> object, optional
        After each split but the last, the splits done so far (an :class:`ExperimentResult` of their rows, ``run_id``
        None) are offered to ``progress`` as a partial result, turned into the caller's own result type by
        ``partial`` (:func:`mvlab.core.progress.report_partial`; built only when ``progress`` listens). Before any
        split is done, the first split's rows so far, where its family's ``evaluate`` offers them (the
        view-construction sweep after each k), are offered the same way (splits one after the other only).

    Returns
    -------
    ExperimentResult
    """
    params = _checked_params(dataset, family, params, protocol, details)
    splits = protocol.splits(dataset.y, random_state)
    settings = _settings(family, params, protocol, random_state)
    kind = kind or f"experiment:{family.name}"
    run_id, done_rows, earlier_seconds = _open_run(store, kind, dataset, settings, random_state, resume)
    done = {(r["repetition"], r["fold"]) for r in done_rows}
    todo = [s for s in splits if (s.repetition, s.fold) not in done]
    last = splits[-1] if splits else None
    keep = {(s.repetition, s.fold): details == "all" or (details == "last" and s is last) for s in todo}
    if inner_jobs is None:
        inner_jobs = 2 if n_jobs == 1 else 1
    rows, kept, start = list(done_rows), {}, time.perf_counter()
    n_total = len(splits)
    n_resumed = n_done = n_total - len(todo)
    if progress is not None and n_done:
        progress(n_done / n_total, Message(N_("{done}/{total} splits read back from the results store"),
                                           done=n_done, total=n_total))
    try:
        def first_rows(split: Split):
            """How the first split's rows so far become the caller's partial result (None for any other split)."""
            if partial is None or n_done > 0:
                return None
            return lambda split_rows: partial(ExperimentResult(
                _tidy_table(rows + _tagged(split_rows, split), splits, dataset.name), None,
                time.perf_counter() - start, family.name, params, {}, n_resumed))

        def split_progress(i: int, split: Split):
            sub = scaled(progress, (n_resumed + i) / n_total, 1 / n_total)
            return None if sub is None else _SplitProgress(sub, first_rows(split))

        if n_jobs == 1:  # in this process: finer progress from inside each split
            results = (_run_split(family, dataset, s, params, inner_jobs, keep[(s.repetition, s.fold)],
                                  split_progress(i, s))
                       for i, s in enumerate(todo))
        else:
            results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                delayed(call_on_threads)(_run_split, family, dataset, s, params, inner_jobs,
                                         keep[(s.repetition, s.fold)])
                for s in todo)
        with closing(results):  # a stopped run ends its workers now, not at garbage collection (see k-sweep)
            for rep, fold, split_rows, split_details, _ in results:
                if store is not None:
                    store.add_results(run_id, split_rows)
                rows += split_rows
                if split_details is not None:
                    kept[(rep, fold)] = split_details
                n_done += 1
                if partial is not None and n_done < n_total:
                    report_partial(progress, lambda rows=rows: partial(ExperimentResult(
                        _tidy_table(rows, splits, dataset.name), None, time.perf_counter() - start, family.name,
                        params, dict(kept), n_resumed)),
                        Message(N_("{done} of {total} splits"), done=n_done, total=n_total))
                if progress is not None:
                    progress(n_done / n_total, Message(N_("{done}/{total} splits done"), done=n_done, total=n_total))
    except BaseException as exc:
        if store is not None:  # a Stop (or Ctrl-C) is no failure: either way the splits done stay, for --resume
            stopped = isinstance(exc, (Stopped, KeyboardInterrupt))
            store.finish_run(run_id, {"splits_done": len({(r['repetition'], r['fold']) for r in rows}),
                                      "compute_seconds": earlier_seconds + time.perf_counter() - start},
                             status="stopped" if stopped else "failed")
        raise
    seconds = time.perf_counter() - start
    table = _tidy_table(rows, splits, dataset.name)
    compute_seconds = earlier_seconds + (seconds if todo else 0.0)
    if store is not None:
        store.finish_run(run_id, {"seconds": seconds, "compute_seconds": compute_seconds, "splits": n_total,
                                  "resumed_splits": n_resumed})
    return ExperimentResult(table, run_id, seconds, family.name, params, kept, n_resumed, compute_seconds)


def _checked_params(dataset: MultiViewDataset, family: Family, params: Mapping, protocol, details) -> dict:
    """The family's checked parameters (defaults filled in), or a ``ValueError`` in words for a request
    that cannot run: not a Family, an unknown ``details``, a protocol of the wrong kind, parameters the
    family refuses or that do not fit the data's views."""
    if not isinstance(family, Family):
        raise ValueError(f"family must be a Family, got {type(family).__name__}; "
                         "mvlab.experiments.families.run_experiment takes a family by name.")
    if details not in (None, "last", "all"):
        raise ValueError(f"details must be None, 'last' or 'all', got {details!r}.")
    if family.needs_pairs != hasattr(protocol, "n_train_pairs"):
        raise ValueError(f"the {family.name!r} family needs "
                         + ("a pair protocol (RepeatedPairDraws)." if family.needs_pairs else
                            "a protocol of rows (RepeatedHoldout or RepeatedKFold), not pair draws."))
    params = family.check_params(dict(params))
    problems = family.problems(dataset.n_views, params)
    if problems:
        raise ValueError(f"{dataset.name}: " + " ".join(problems))
    return params


def _open_run(store, kind: str, dataset: MultiViewDataset, settings: dict, random_state: int, resume: bool):
    """The run in ``store`` this call records into: ``(run_id, rows of the splits already stored, computing
    seconds already spent)``. With ``resume`` the newest run of the same kind, data and settings is reopened;
    else a new run is started, which with ``resume`` takes the splits of a run that differs only by fewer
    repetitions (:func:`_run_with_fewer_repetitions`); without a store ``(None, [], 0.0)``."""
    if store is None:
        return None, [], 0.0
    run_id = store.find_run(kind, dataset.fingerprint(), settings) if resume else None
    if run_id is not None:
        done_rows = store.split_rows(run_id)
        earlier_seconds = _computing_seconds(store.run_summary(run_id))
        store.reopen_run(run_id)
        return run_id, done_rows, earlier_seconds
    run_id = store.start_run(kind, dataset.name, dataset.fingerprint(), random_state, settings)
    shorter = _run_with_fewer_repetitions(store, kind, dataset, settings) if resume else None
    if shorter is None:
        return run_id, [], 0.0
    done_rows = store.split_rows(shorter)
    store.add_results(run_id, done_rows)  # the new run holds every split it has, so it resumes by itself
    return run_id, done_rows, _computing_seconds(store.run_summary(shorter))


REPETITION_FIELDS = ("n_repetitions", "n_repeats")
"""The protocols' fields that count repetitions (:mod:`mvlab.experiments.protocols`)."""


def _run_with_fewer_repetitions(store, kind: str, dataset: MultiViewDataset, settings: dict) -> str | None:
    """The newest run of ``kind`` on the same data whose settings are ``settings`` but with fewer repetitions (the
    most there are), or None. Every protocol draws its repetitions one after the other from the same seed, so a
    shorter run's splits are the first ones of a longer run's (a test checks it for each protocol): asking for
    more repetitions continues a run instead of starting over."""
    protocol_params = settings["protocol_params"]
    field = next((f for f in REPETITION_FIELDS if f in protocol_params), None)
    if field is None:
        return None
    for fewer in range(int(protocol_params[field]) - 1, 0, -1):
        run_id = store.find_run(kind, dataset.fingerprint(),
                                {**settings, "protocol_params": {**protocol_params, field: fewer}})
        if run_id is not None:
            return run_id
    return None


def _tidy_table(rows: list, splits: list, dataset_name: str) -> pd.DataFrame:
    """The rows of every split as a table with :data:`TABLE_COLUMNS`, in split order (rows read back from
    the store and rows computed, in whatever order they finished), ``params`` a dict in every row."""
    order = {(s.repetition, s.fold): i for i, s in enumerate(splits)}
    table = pd.DataFrame(rows, columns=[c for c in TABLE_COLUMNS if c != "dataset"])
    table["params"] = [p if isinstance(p, dict) else {} for p in table["params"]]
    table = table.iloc[sorted(range(len(table)),
                              key=lambda i: order[(table["repetition"].iat[i], table["fold"].iat[i])])]
    table.insert(0, "dataset", dataset_name)
    return table.reset_index(drop=True)


def summarize(table: pd.DataFrame, metric: str = "accuracy", by: tuple = ()) -> pd.DataFrame:
    """Mean ± std (over repetitions and folds, and any other row parameters) per dataset and
    method of one metric: columns dataset, [by...], method, mean, std, n.

    ``by`` names keys of the rows' ``params`` (or columns) that stay separate (e.g.
    ``("classifier",)`` for view construction)."""
    part = table[table["metric"] == metric]
    if part.empty:
        raise ValueError(f"no rows with metric {metric!r}; the table has {sorted(table['metric'].unique())}.")
    part = with_param_columns(part, by)
    keys = ["dataset", *by, "method"]
    out = part.groupby(keys, sort=False)["value"].agg(["mean", "std", "count"]).reset_index()
    return out.rename(columns={"count": "n"})


def with_param_columns(table: pd.DataFrame, keys) -> pd.DataFrame:
    """The table with one column per key of the rows' ``params`` dicts (already-present columns stay)."""
    table = table.copy()
    for key in keys:
        if key not in table.columns:
            table[key] = [(p or {}).get(key) if isinstance(p, dict) else None
                          for p in table.get("params", [{}] * len(table))]
    return table


def decode_params(value: Any) -> dict:
    """A row's params as a dict, whether stored as a dict or as JSON text."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value:
        return json.loads(value)
    return {}
