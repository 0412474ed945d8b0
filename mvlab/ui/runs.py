"""Training from a page, on the server's job engine: a queue position while it waits, progress
while it runs, Stop for this session only, results kept across pages, refreshes and restarts.

A finished result is looked up, in order, in this session's cache, then in the results
store (:mod:`mvlab.store`, an SQLite file that survives restarts), keyed by the page's kind,
the data fingerprint and the exact settings.  :func:`train_button` submits the computation to
the engine (:mod:`mvlab.engine`: a Dask worker process, shared with every session that asks for
the same result), follows it and caches its result; the engine records it in the store.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any, Callable, TypeVar

import streamlit as st
from streamlit.errors import StreamlitAPIException

from mvlab.datasets.container import MultiViewDataset
from mvlab.engine import Engine, JobStatus, Request, shared_engine
from mvlab.engine.relay import StoreRelay
from mvlab.engine.requests import result_key, settings_request
from mvlab.i18n import N_, _, format_number, ngettext, said
from mvlab.store import ResultsStore, StoreUnavailable
from mvlab.ui import shared
from mvlab.ui import streamlit_insides as insides

T = TypeVar("T")
_CACHE = "_results"
_PARTIAL = "_partials"
"""Session state: for each Train button's key, the partial result this session saw last, as
``(request key, number, note, result)`` (:func:`follow`): kept after a Stop, dropped at the next Train."""

DrawPartial = Callable[[Any, str, int], None]
"""A page's way of drawing a partial result: ``draw(result, note, number)``, ``note`` saying in words how far it is
(:func:`mvlab.core.progress.report_partial`), ``number`` its number within the run (its figures' key)."""


@st.cache_resource(show_spinner=False)
def _opened_store() -> ResultsStore:
    store = ResultsStore()
    store.sweep_orphans()
    return store


def results_store() -> ResultsStore:
    """The results store at its default location (``$MVLAB_STORE`` or ``~/.mvlab/results.sqlite``),
    opened once per server: runs that an earlier server left queued or running are marked
    ``interrupted`` (:meth:`ResultsStore.sweep_orphans`). Its connections are the process's one pool on the location,
    shared with the engine's records and the class rounds (:mod:`mvlab.store.connections`). A store that cannot be
    opened now (a PostgreSQL server down at the first look, a folder not writable) is :class:`StoreUnavailable`,
    opened again at the next call."""
    try:
        return _opened_store()
    except StoreUnavailable:
        raise
    except ValueError as exc:
        raise StoreUnavailable(str(exc)) from exc


def lookup(settings, ds: MultiViewDataset, result_type: type[T]) -> T | None:
    """A finished result for these data and settings, from this session or the store; else None.

    ``result_type`` has ``from_npz(bytes)`` (the artifact stored by :func:`train`).  A store that cannot answer now
    is said on the page (``st.warning``) and asked again at the next rerun."""
    cache = st.session_state.setdefault(_CACHE, {})
    key = result_key(settings, ds)
    if key not in cache:
        try:  # read back once per server: the sessions that open a stored result share it
            result = shared.stored_result(results_store(), settings.kind, ds.fingerprint(), settings.key(), result_type)
        except ValueError:
            result = None  # an unusable store only costs the cache
        except StoreUnavailable as exc:  # looked up again at the next rerun, once the store is back
            st.warning(f"{exc} " + _("A result stored earlier cannot be shown until it is back."))
            result = None
        if result is None:
            return None
        cache[key] = result
    return cache[key]


def show_warnings(counted: dict[str, int]) -> None:
    """The warnings a run raised (scikit-learn repeats one per fit), each distinct message once,
    in an expander instead of the server's log."""
    if counted:
        total = sum(counted.values())
        with st.expander(ngettext("{n} warning during training", "{n} warnings during training", total).format(
                n=total) + " (" + ngettext("{n} distinct", "{n} distinct", len(counted)).format(n=len(counted)) + ")"):
            for message, count in counted.items():
                st.caption(f"{message}" + (f" (×{count})" if count > 1 else ""))


def forget_cached(ds: MultiViewDataset) -> None:
    """Drop this session's cached results on these data."""
    cache = st.session_state.setdefault(_CACHE, {})
    fp = ds.fingerprint()
    for key in [k for k in cache if json.loads(k)[1] == fp]:
        del cache[key]


def worker_memory() -> float:
    """The memory one run may use: the smallest worker's limit when the engine is up, else the
    configured limit of the embedded workers."""
    eng = engine()
    if eng.ready():
        try:
            limits = [w["memory_limit"] for w in eng.server_status().workers if w["memory_limit"]]
            if limits:
                return float(min(limits))
        except Exception:  # noqa: BLE001 - a scheduler lost between two calls: the configured limit
            pass
    return float(eng.config.memory_per_worker())


def engine() -> Engine:
    """The server's job engine (one per process, shared by every session: :mod:`mvlab.engine`)."""
    return shared_engine()


def holder() -> str:
    """This browser session's identity for the engine (Streamlit's own session id is the same
    for every AppTest, so mvlab keeps its own)."""
    return st.session_state.setdefault("_holder", uuid.uuid4().hex)


def session_alive_probe() -> Callable[[], bool] | None:
    """``alive()`` for this session: False once its tab has been closed for longer than
    Streamlit's ``server.disconnectedSessionTTL`` (the engine then releases its run); None when
    there is no server to ask (AppTest) or this Streamlit cannot say (:mod:`mvlab.ui.streamlit_insides`:
    ``session_alive``)."""
    is_active = insides.session_alive()
    if is_active is None:
        return None
    ttl = float(st.get_option("server.disconnectedSessionTTL"))
    gone_since: list[float] = []

    def alive() -> bool:
        if is_active():
            gone_since.clear()
            return True
        if not gone_since:
            gone_since.append(time.monotonic())
        return time.monotonic() - gone_since[0] < ttl

    return alive


def request_for(settings, ds: MultiViewDataset, label: str = "") -> Request:
    """The engine request of a page's settings on ``ds``: ``settings.run(ds, progress)`` in a
    worker, identified by :func:`result_key`, recorded in the results store (privately for an
    upload)."""
    return settings_request(settings, ds, results_store().location, label)


def _say_wait(seconds: float | None) -> str:
    """An estimate in words, as coarse as it is: seconds under a minute (5 s steps past 20 s), then minutes."""
    if seconds is None:
        return ""
    if seconds < 20:
        return _("about {seconds} s").format(seconds=f"{max(seconds, 1):.0f}")
    if seconds < 60:
        return _("about {seconds} s").format(seconds=f"{5 * round(seconds / 5):.0f}")
    return _("about {minutes} min").format(minutes=f"{seconds / 60:.0f}")


def status_text(status: JobStatus, label: str) -> str:
    """One line for a run: its queue position and estimated wait, or its progress."""
    others = status.shared - 1
    shared = " " + ngettext("Shared with {n} other session that asked for the same run.",
                            "Shared with {n} other sessions that asked for the same run.", others).format(n=others) \
        if others > 0 else ""
    label = _(label)
    if status.state == "queued":
        when = _("next to start") if status.position == 1 else _("position {n} in the queue").format(
            n=status.position)
        return _("{label}: waiting for a free worker ({when}; {wait} before it starts).").format(
            label=label, when=when, wait=_say_wait(status.wait)) + shared + " " + _("**Stop** works while it waits.")
    elapsed = f"{status.elapsed:.0f} s"
    if status.wait and 0.05 < status.fraction < 1:
        elapsed = _("{elapsed}, {wait} left").format(elapsed=elapsed, wait=_say_wait(status.wait))
    message = said(status.message) if status.message else _("starting…")
    return _("{label}: {message} ({elapsed}).").format(label=label, message=message,
                                                       elapsed=elapsed) + shared


QUEUED_POLL = 1.0
"""Seconds between two looks at a queued run (0.4 s while it runs, for its progress): a class's queued
runs each cost the server a status and a page update per look, and their position changes rarely."""
CLICK_POLL = 0.1
"""Seconds between two checks for a click that waits on the page's run (:func:`end_for_a_waiting_click`) and for a
change of its state (:func:`_wait`)."""


def end_for_a_waiting_click() -> None:
    """End this script run now if a click of this session waits for it to end.

    The pages draw Train, Stop and the result inside a fragment (a click reruns that part alone), and
    Streamlit lets a click on a widget inside a fragment wait until the run in progress ends, where a
    click elsewhere interrupts it: a Stop pressed while a run is followed would wait for the whole run.
    So while a page waits on its run it looks, and ends its run with a rerun that Streamlit merges with
    the waiting click (of this fragment during a fragment run; of the page during a full run, where a
    fragment-scoped rerun is not allowed).  Streamlit says whether a rerun waits only in a private field
    (``ScriptRequests._state``, behind :mod:`mvlab.ui.streamlit_insides`: ``waiting_click``); without it Stop
    takes effect when the run ends."""
    scope = insides.a_click_waits()
    if scope is not None:
        st.rerun(scope=scope)


def training_part(draw: Callable[[], None]) -> Callable[[], None]:
    """``draw``, a page's part from its look-up and Train button to its result, as a fragment of the page
    (``st.fragment``): a click on Train, on Stop or on a widget of the result reruns this part alone, not the
    whole page.  When a class pressed Train at once, thirty whole pages drawn again (sidebar, settings,
    help) took the web server's interpreter while the run started and while it computed; a Stop inside it
    still ends the wait at once (:func:`end_for_a_waiting_click`)."""
    return st.fragment(draw)


def _wait(eng: Engine, job_id: str, seconds: float, seen: JobStatus | None = None) -> None:
    """Wait up to ``seconds`` for the run to end, ending this script run for a click that waits on it; with ``seen``
    (the status last shown), also until the run starts running or sends a partial result: a queued run's page shows
    its progress bar as soon as its worker starts, not at its next look (#72: the first look of a run that started
    at once came a second after Train)."""
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0 and not eng.wait(job_id, timeout=min(left, CLICK_POLL)):
        end_for_a_waiting_click()
        if seen is not None and eng.stage(job_id) not in (None, (seen.state, seen.partial)):
            return


def rerun_here() -> None:
    """Rerun the part of the page that runs now: its fragment during a fragment run, else the whole page (Streamlit
    refuses a fragment-scoped rerun during a full run)."""
    try:
        st.rerun(scope="fragment")
    except StreamlitAPIException:
        st.rerun()


def partial_result(job_id: str, decode: Callable[[Any], T]) -> tuple[int, str, T] | None:
    """The run's newest partial result, ``(number, note, result)`` (:meth:`mvlab.engine.Engine.partial`), decoded
    once per server for every session that follows the run (:data:`mvlab.ui.shared.RESULTS`); None before the first
    one and when it cannot be read."""
    got = engine().partial(job_id)
    if got is None:
        return None
    number, note, payload = got
    try:
        result = shared.RESULTS.get(json.dumps(["partial", job_id, number]), lambda: decode(payload))
    except Exception:  # noqa: BLE001 - a partial that cannot be read costs the courtesy, never the run
        return None
    return number, note, result


def kept_partial(key: str, request_key: str) -> tuple[int, str, Any] | None:
    """The partial result this session saw last for the Train button ``key`` with the request ``request_key``
    (``(number, note, result)``), kept after a Stop; None when there is none (:data:`_PARTIAL`)."""
    kept = st.session_state.get(_PARTIAL, {}).get(key)
    return kept[1:] if kept is not None and kept[0] == request_key else None


def _show_status(box, status: JobStatus, label: str) -> None:
    """The run's line in ``box``: its place in the queue, or its progress bar (:func:`status_text`)."""
    if status.state == "queued":
        box.info(status_text(status, label), icon=":material/hourglass_top:")
    else:
        box.progress(min(max(status.fraction, 0.0), 1.0), text=status_text(status, label))


def follow(job_id: str, label: str, stop_key: str, partial: tuple[str, str, Callable, DrawPartial] | None = None):
    """Show the run until it ends (queue position, then progress), with a Stop button; returns
    the finished run's outcome, or None (stopped, failed: said on the page).

    ``partial = (key, request key, decode, draw)``: the run's newest partial result (:func:`partial_result`) is drawn
    under the progress bar (``draw(result, note, number)``) and kept for the session under the button's ``key``
    (:func:`kept_partial`: a Stop keeps it on the page); a newer one reruns this part of the page
    (:func:`rerun_here`), so the figures fill in as the run computes, and when the whole result comes after a part
    was drawn the part reruns once more to draw the whole alone."""
    eng, me = engine(), holder()
    stop = st.empty()
    stop.button(_("Stop"), key=stop_key, help=_("Stop waiting for this run; it ends unless another session waits on "
                                                  "it."))
    box = st.empty()
    part_box = st.empty()  # the part drawn, taken off again if the run fails or is stopped
    shown = 0
    status = eng.status(job_id)
    if status is not None and status.state in ("queued", "running"):  # said before a part is drawn under it
        _show_status(box, status, label)
    if partial is not None:
        key, request_key, decode, draw = partial
        got = partial_result(job_id, decode)
        if got is not None:
            shown = got[0]
            st.session_state.setdefault(_PARTIAL, {})[key] = (request_key, *got)
            with part_box.container():
                draw(got[2], got[1], got[0])
    while True:
        status = eng.status(job_id)
        if status is None or status.state not in ("queued", "running"):
            break
        if partial is not None and status.partial > shown:
            rerun_here()
        # a Streamlit call each turn, even when nothing changed: a Stop (or any click) interrupts the wait there
        _show_status(box, status, label)
        _wait(eng, job_id, 0.4 if status.state == "running" else QUEUED_POLL, status)
    stop.empty()
    box.empty()
    if status is None:
        return None
    outcome = eng.outcome(job_id)
    eng.release(me)
    if shown and (status.state in ("failed", "stopped") or outcome is None):  # no part of a run that did not finish
        part_box.empty()  # is kept: it would be shown as stopped by this session (and drawn twice in this run)
        st.session_state[_PARTIAL].pop(partial[0], None)
    if status.state == "failed":
        st.error(_("Training failed: {error}").format(error=status.error))
        return None
    if status.state == "stopped" or outcome is None:
        st.warning(_("Training was stopped; nothing was stored. Change the settings or press **{button}** again.")
                   .format(button=_("Train")))
        return None
    if status.error:  # finished, but the store refused it
        st.warning(status.error)
    show_warnings(outcome.warnings)
    if shown:  # the whole result is drawn alone at the rerun its caller asks for (redraw_whole: the widgets' keys
        st.session_state[_PARTIAL].pop(partial[0], None)  # are the part's)
        st.session_state[f"{partial[0]}_drew_part"] = True
    return outcome


def redraw_whole(key: str) -> None:
    """After the whole result of the Train button ``key`` has been kept: rerun this part of the page if a partial
    result was drawn in this run (:func:`follow`), so that the whole one is drawn alone (the part's widgets have the
    same keys)."""
    if st.session_state.pop(f"{key}_drew_part", False):
        rerun_here()


def benchmark_request(settings) -> Request:
    """The Benchmark page's request: every dataset's runs, recorded in this server's results store through the
    engine as the worker computes them (:mod:`mvlab.engine.relay`; one batch of runs; an identical request
    attaches to it)."""
    location = results_store().location
    return Request("benchmark", json.dumps(["benchmark", settings.key(), location], sort_keys=True, default=str),
                   settings.run, StoreRelay(location), label=N_("Benchmark"))


def engine_button(request: Request, key: str, label: str, button: str = N_("Train"), auto: bool = False,
                  partial: tuple[Callable, DrawPartial] | None = None):
    """A button that runs ``request`` on the engine for this session and follows it: returns the
    finished outcome, or None.  A session holds one run: pressing it again with other settings
    replaces the run it holds; a run this session holds for the same request is followed again
    after any rerun (a widget changed, the page left and came back).

    ``auto=True`` (a lesson step) submits without a click, unless this session pressed Stop on
    this very request: then the button (labelled ``button``) starts it again.  ``partial = (decode, draw)``: the
    run's partial results drawn as they come (:func:`follow`); when the whole one comes after a part was drawn,
    it is cached for the session and this part of the page reruns to draw it alone."""
    eng, me = engine(), holder()
    stop_key, stopped_key = f"{key}_stop", f"{key}_stopped"
    if st.session_state.get(stop_key):
        what, others = eng.detach(me)
        st.session_state[stopped_key] = request.key
        if what == "goes on":
            st.info(ngettext("You stopped waiting; {n} other session still waits on the same run, so it goes on for "
                             "it (its result will be in the results store).",
                             "You stopped waiting; {n} other sessions still wait on the same run, so it goes on for "
                             "them (its result will be in the results store).", others).format(n=others))
        elif what == "stopped":
            st.warning(_("Training was stopped; nothing was stored. Change the settings or press **{button}** again.")
                       .format(button=_(button)))
        elif what == "ended":
            st.caption(_("The run had already ended when Stop was pressed."))
    stopped_here = st.session_state.get(stopped_key) == request.key
    pressed = st.button(_(button), type="primary", key=key) if not auto or stopped_here else False
    job = eng.job_of(me)
    holds_it = job is not None and eng.key_of(job) == request.key
    if pressed or (auto and not stopped_here and not holds_it):
        st.session_state.pop(stopped_key, None)
        st.session_state.get(_PARTIAL, {}).pop(key, None)
        try:
            eng.submit(request, me, session_alive_probe())
        except ValueError as exc:  # the server is busy, the results store or the engine cannot be reached (the
            st.error(str(exc))  # run was not started and nothing of it is left waiting: Train again starts it)
            return None
    job = eng.job_of(me)
    if job is None:
        return None
    if eng.key_of(job) == request.key:
        return follow(job, label, stop_key, None if partial is None else (key, request.key, *partial))
    status = eng.status(job)
    if status is not None and status.state in ("queued", "running"):
        st.caption(_("Your run with other settings is still going ({status}). Pressing **{button}** replaces it.")
                   .format(status=status_text(status, _("it")).split(": ", 1)[1].rstrip("."), button=_(button)))
    return None


def train_button(settings, ds: MultiViewDataset, key: str, label: str = N_("Training"), auto: bool = False,
                 button: str = N_("Train"), partial: tuple[Callable, DrawPartial] | None = None):
    """The page's Train button (:func:`engine_button` for the page's settings on ``ds``; ``auto``:
    computed without a click; ``partial``: ``(decode, draw)`` of its partial results); a finished result is cached
    for the session.  Returns the new result or None."""
    try:
        request = request_for(settings, ds, label)
    except (ValueError, StoreUnavailable) as exc:  # the results store cannot be opened now: tried again next rerun
        st.error(f"{exc} " + _("Your run was not started: try again in a moment."))
        return None
    outcome = engine_button(request, key, label, button=button, auto=auto, partial=partial)
    if outcome is None:
        return None
    st.session_state.setdefault(_CACHE, {})[request.key] = outcome.result
    redraw_whole(key)
    return outcome.result


def result_or_train(settings, ds: MultiViewDataset, result_type: type[T], key: str,
                    label: str = N_("Training"), draw_partial: DrawPartial | None = None) -> T | None:
    """The page's result for these settings on ``ds``: the one looked up (:func:`lookup`), or the one its
    Train button (:func:`train_button`) has just computed; None until there is one.  ``draw_partial``: how the page
    draws the run's partial results as they come (``result_type.from_npz`` reads them)."""
    found = lookup(settings, ds, result_type)
    partial = None if draw_partial is None else (result_type.from_npz, draw_partial)
    return train_button(settings, ds, key, label=label, partial=partial) or found


def checks(settings, ds: MultiViewDataset) -> None:
    """Before training, in words: what stops these settings on these data (``st.error``, and the
    page stops) and what will make the results weak (``st.warning``)."""
    problems = settings.problems(ds)
    if hasattr(settings, "cost"):  # what the run will take, said before Train; refused when no worker can hold it
        limit, threads = worker_memory(), engine().config.idle_threads()  # the most a run may get
        problems += settings.cost_problems(ds, limit, threads)
        peak = settings.cost(ds, n_jobs=threads).peak_bytes
        st.caption(_("Estimated peak memory of this run: about {peak} GB (a worker of this server has {limit} GB).")
                   .format(peak=format_number(peak / 1e9, 1), limit=format_number(limit / 1e9, 1)))
    for note in settings.notes(ds):
        st.warning(note)
    if problems:
        for problem in problems:
            st.error(problem)
        st.stop()
