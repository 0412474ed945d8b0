"""Training from a page: progress with a time estimate, results kept across pages, refreshes
and restarts.

A finished result is looked up, in order, in this session's cache, then in the results
store (:mod:`mvlab.experiments.store`, an SQLite file that survives restarts), keyed by the page's kind,
the data fingerprint and the exact settings.  :func:`train` runs the computation with an
``st.progress`` bar, records the run and its tidy results in the store and caches it.
"""

from __future__ import annotations

import json
import threading
import time
import warnings
from contextlib import contextmanager
from typing import Callable, TypeVar

import streamlit as st

from mvlab.datasets.container import MultiViewDataset
from mvlab.experiments.store import ResultsStore

T = TypeVar("T")
_CACHE = "_results"


@st.cache_resource(show_spinner=False)
def results_store() -> ResultsStore:
    """The results store at its default location (``$MVLAB_STORE`` or ``~/.mvlab/results.sqlite``)."""
    return ResultsStore()


def result_key(settings, ds: MultiViewDataset) -> str:
    """The identity of a result: its kind, the data fingerprint and the settings actually used."""
    return json.dumps([settings.kind, ds.fingerprint(), settings.key()], sort_keys=True, default=str)


def lookup(settings, ds: MultiViewDataset, result_type: type[T]) -> T | None:
    """A finished result for these data and settings, from this session or the store; else None.

    ``result_type`` has ``from_npz(bytes)`` (the artifact stored by :func:`train`)."""
    cache = st.session_state.setdefault(_CACHE, {})
    key = result_key(settings, ds)
    if key not in cache:
        try:
            store = results_store()
            run_id = store.find_finished(settings.kind, ds.fingerprint(), settings.key())
            blob = store.artifact(run_id, "result") if run_id else None
        except ValueError:
            blob = None  # an unusable store only costs the cache
        if blob is None:
            return None
        cache[key] = result_type.from_npz(blob)
    return cache[key]


@contextmanager
def warnings_shown_once():
    """Collect the warnings a computation raises (scikit-learn's repeat one per fit) and show each
    distinct message once in the page, instead of flooding the server's log."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    seen = {}
    for w in caught:
        seen.setdefault(f"{w.category.__name__}: {w.message}", 0)
        seen[f"{w.category.__name__}: {w.message}"] += 1
    if seen:
        with st.expander(f"{sum(seen.values())} warning(s) during training ({len(seen)} distinct)"):
            for message, count in seen.items():
                st.caption(f"{message}" + (f" (×{count})" if count > 1 else ""))


def forget_cached(ds: MultiViewDataset) -> None:
    """Drop this session's cached results on these data."""
    cache = st.session_state.setdefault(_CACHE, {})
    fp = ds.fingerprint()
    for key in [k for k in cache if json.loads(k)[1] == fp]:
        del cache[key]


def memo(name: str, key, compute: Callable[[], T], size: int = 1) -> T:
    """``compute()`` once per session for this ``name`` and ``key`` (e.g. an embedding of a stored
    result, which every rerun of the page would otherwise recompute); keeps the ``size`` most
    recent keys of that name."""
    slot = st.session_state.setdefault("_memo", {}).setdefault(name, {})
    key = json.dumps(key, sort_keys=True, default=str)
    if key in slot:
        slot[key] = slot.pop(key)  # most recent last
    else:
        slot[key] = compute()
        while len(slot) > size:
            del slot[next(iter(slot))]
    return slot[key]


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


def checks(settings, ds: MultiViewDataset) -> None:
    """Before training, in words: what stops these settings on these data (``st.error``, and the
    page stops) and what will make the results weak (``st.warning``)."""
    problems = settings.problems(ds)
    for note in settings.notes(ds):
        st.warning(note)
    if problems:
        for problem in problems:
            st.error(problem)
        st.stop()


def train_button(settings, ds: MultiViewDataset, key: str, label: str = "Training"):
    """The page's Train button: on a click, :func:`train` (with a Stop button while it runs);
    after a Stop, a note that nothing was stored.  Returns the new result or None."""
    if st.session_state.get(f"{key}_stop"):
        st.warning("Training was stopped; nothing was stored. Change the settings or press **Train** again.")
    if st.button("Train", type="primary", key=key):
        return train(settings, ds, label=label, stop_key=f"{key}_stop")
    return None


@contextmanager
def one_run_at_a_time():
    """Hold this session's training lock; wait (stoppable) while an earlier run still holds it.

    Stop starts a new run of the page at once, but the stopped run only ends at its next progress
    report, which on paper settings can be a long step away. Until then it still uses joblib's
    shared worker pool, and ending it kills that pool's workers: a second run started meanwhile
    would lose its jobs ("The executor underlying Parallel has been shutdown")."""
    lock = st.session_state.setdefault("_training_lock", threading.Lock())
    if not lock.acquire(blocking=False):
        note = st.empty()
        started = time.perf_counter()
        while not lock.acquire(timeout=0.5):  # a Streamlit call each turn: this wait can be stopped too
            note.info(f"The stopped run is finishing its current step before this one starts "
                      f"({time.perf_counter() - started:.0f} s)…")
        note.empty()
    try:
        yield
    finally:
        lock.release()


def train(settings, ds: MultiViewDataset, label: str = "Training", stop_key: str | None = None):
    """Run ``settings.run(ds, progress)`` with a progress bar (and a Stop button); store and cache
    its result.

    The result must have ``to_npz()`` and ``result_rows()``; it is stored only once complete.
    A ``ValueError`` (settings that do not suit these data) is shown with ``st.error`` and
    returns None.  Stop starts a new run of the page, which interrupts this one at its next
    progress report: nothing is stored and the page is usable at once."""
    stop = st.empty()
    if stop_key is not None:
        stop.button("Stop", key=stop_key, help="End this training now; nothing is stored.")
    progress = progress_bar(label)
    try:
        with one_run_at_a_time(), warnings_shown_once():
            result = settings.run(ds, progress)
    except ValueError as exc:
        st.error(f"Training failed: {exc}")
        return None
    finally:
        stop.empty()
    st.session_state.setdefault(_CACHE, {})[result_key(settings, ds)] = result
    try:
        store = results_store()
        run_id = store.start_run(settings.kind, ds.name, ds.fingerprint(), settings.seed, settings.key(),
                                 private=ds.origin == "upload")
        store.add_results(run_id, result.result_rows())
        store.put_artifact(run_id, "result", result.to_npz())
        store.finish_run(run_id)
    except ValueError as exc:
        st.warning(f"The result is shown but could not be saved in the results store: {exc}")
    return result
