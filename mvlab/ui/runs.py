"""Training from a page: progress with a time estimate, results kept across pages, refreshes
and restarts.

A finished result is looked up, in order, in this session's cache, then in the results
store (:mod:`mvlab.experiments.store`, an SQLite file that survives restarts), keyed by the page's kind,
the data fingerprint and the exact settings.  :func:`train` runs the computation with an
``st.progress`` bar, records the run and its tidy results in the store and caches it.
"""

from __future__ import annotations

import json
import time
from typing import Callable, Iterable, Mapping, TypeVar

import streamlit as st

from mvlab.datasets.container import MultiViewDataset
from mvlab.experiments.store import ResultsStore

T = TypeVar("T")
_CACHE = "_results"


@st.cache_resource(show_spinner=False)
def results_store() -> ResultsStore:
    """The results store at its default location (``$MVLAB_STORE`` or ``~/.mvlab/results.sqlite``)."""
    return ResultsStore()


def result_key(kind: str, ds: MultiViewDataset, settings: Mapping) -> str:
    """The identity of a result: its kind, the data fingerprint and the exact settings."""
    return json.dumps([kind, ds.fingerprint(), settings], sort_keys=True, default=str)


def lookup(kind: str, ds: MultiViewDataset, settings: Mapping, from_bytes: Callable[[bytes], T]) -> T | None:
    """A finished result for these data and settings, from this session or the store; else None."""
    cache = st.session_state.setdefault(_CACHE, {})
    key = result_key(kind, ds, settings)
    if key not in cache:
        try:
            store = results_store()
            run_id = store.find_finished(kind, ds.fingerprint(), settings)
            blob = store.artifact(run_id, "result") if run_id else None
        except ValueError:
            blob = None  # an unusable store only costs the cache
        if blob is None:
            return None
        cache[key] = from_bytes(blob)
    return cache[key]


def memo(name: str, key, compute: Callable[[], T]) -> T:
    """``compute()`` once per session for this ``name`` and ``key`` (e.g. an embedding of a stored
    result, which every rerun of the page would otherwise recompute); keeps the latest key only."""
    slot = st.session_state.setdefault("_memo", {})
    if name not in slot or slot[name][0] != key:
        slot[name] = (key, compute())
    return slot[name][1]


def progress_bar(label: str) -> Callable[[float, str], None]:
    """An ``st.progress`` callback ``(fraction, message)`` showing elapsed time and an estimate."""
    bar = st.progress(0.0, text=f"{label}: starting…")
    start = time.perf_counter()

    def update(fraction: float, message: str) -> None:
        fraction = min(max(float(fraction), 0.0), 1.0)
        elapsed = time.perf_counter() - start
        eta = f", about {elapsed * (1 - fraction) / fraction:.0f} s left" if 0.05 < fraction < 1 else ""
        bar.progress(fraction, text=f"{label}: {message} ({elapsed:.0f} s{eta})")

    return update


def train(
    kind: str,
    ds: MultiViewDataset,
    seed: int,
    settings: Mapping,
    compute: Callable[[Callable[[float, str], None]], T],
    to_bytes: Callable[[T], bytes],
    result_rows: Callable[[T], Iterable[Mapping]],
    label: str = "Training",
) -> T | None:
    """Run ``compute(progress)``; store and cache its result.  A ``ValueError`` (bad settings for
    these data) is shown with ``st.error`` and returns None."""
    progress = progress_bar(label)
    try:
        result = compute(progress)
    except ValueError as exc:
        st.error(f"Training failed: {exc}")
        return None
    st.session_state.setdefault(_CACHE, {})[result_key(kind, ds, settings)] = result
    try:
        store = results_store()
        run_id = store.start_run(kind, ds.name, ds.fingerprint(), seed, settings)
        store.add_results(run_id, result_rows(result))
        store.put_artifact(run_id, "result", to_bytes(result))
        store.finish_run(run_id)
    except ValueError as exc:
        st.warning(f"The result is shown but could not be saved in the results store: {exc}")
    return result
