"""Sessions woken by the server when what they show changes, instead of every browser asking on a timer.

A class round's student page must change when the teacher reveals the answer or moves everyone on. Streamlit's
public way for a page to change by itself is a fragment with ``run_every``: a timer in each browser, each tick a
rerun on the server (about 8 ms of its CPU, however little the fragment does). 300 students looking twice a
second are 600 reruns a second, more than two cores can run; looking less often makes the class wait longer.
Here instead one thread per server process (:class:`Watch`) reads what its sessions follow, once per interval,
for all of them together, and reruns only the sessions whose view of it changed: a waiting student costs
the server nothing.

Streamlit has no public API to rerun a session from the server. :func:`rerun_sessions` uses the parts its own
*run on save* uses (a source file changed: every session reruns with its saved address and page):
``Runtime.get_app_session`` (documented thread-safe), ``AppSession._scriptrunner`` (None when no run is in
progress; private), ``AppSession._client_state`` (the address and page of the session's last run; private) and
``AppSession.request_rerun`` (on the server's event loop, ``Runtime._get_async_objs().eventloop``; private);
a waiting part drawn as a fragment is rerun alone, found by :func:`current_fragment` (private too; without it
the whole page reruns).
Every one of these parts (each attribute a wake touches, and each import it makes from Streamlit's runtime) is
listed once, in :data:`PRIVATE_PARTS`; :func:`available` checks them all (once per process) and says no when one is
gone (a Streamlit that renamed it) or when the runtime is not a server's (AppTest's mock): the callers then fall
back to a fragment's timer.
A part that fails anyway while the server runs turns the wake off for the rest of the process (said once in the
log), never a traceback. ``tests/test_wake.py`` fails on the installed Streamlit if one of them is gone, and
fails if this module uses a part it does not list, so that an upgrade cannot turn the push off unnoticed.

A busy session (a run in progress, e.g. the student's own click) is not interrupted: it is looked at again at
the next interval, so a click is never lost to a wake.
"""

from __future__ import annotations

import dis
import functools
import importlib
import inspect
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable

__all__ = ["available", "missing_parts", "PRIVATE_PARTS", "current_session", "current_fragment", "rerun_sessions",
           "Watch", "Subscription"]

PRIVATE_PARTS: tuple[tuple[str, str], ...] = (
    ("streamlit.runtime", "Runtime.exists"),
    ("streamlit.runtime", "Runtime.instance"),
    ("streamlit.runtime", "Runtime.get_app_session"),
    ("streamlit.runtime", "Runtime._get_async_objs"),
    ("streamlit.runtime.runtime", "AsyncObjects.eventloop"),
    ("streamlit.runtime.app_session", "AppSession.request_rerun"),
    ("streamlit.runtime.app_session", "AppSession.has_fragment"),
    ("streamlit.runtime.app_session", "AppSession._scriptrunner"),
    ("streamlit.runtime.app_session", "AppSession._client_state"),
    ("streamlit.runtime.scriptrunner", "get_script_run_ctx"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "ScriptRunContext.session_id"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "ThreadState.get"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "FragmentThreadState.fragment_id"),
    ("streamlit.proto.ClientState_pb2", "ClientState.fragment_id"),
    ("streamlit.proto.ClientState_pb2", "ClientState.is_auto_rerun"),
)
"""Every part of Streamlit's runtime a wake touches, as (module, dotted path in it): the modules this module
imports from, and every attribute it reads or calls on what they give. A class's attribute is there when the class
has it, or when instances get it: a field of a protobuf message, or an attribute its ``__init__`` stores (read from
its bytecode, so that a renamed ``self._client_state`` is seen without a session)."""

_failure: str | None = None
"""Why a wake failed while this process served (a part gone at run time), or None: the wake is then off."""


def _instance_attributes(cls: type) -> set[str]:
    """The attributes an instance of ``cls`` has beyond its class's: a protobuf message's fields, and what its
    ``__init__`` stores (``self.name = ...``)."""
    names = set(getattr(getattr(cls, "DESCRIPTOR", None), "fields_by_name", ()))
    code = getattr(inspect.unwrap(cls.__init__), "__code__", None)
    if code is not None:
        names |= {i.argval for i in dis.get_instructions(code) if i.opname == "STORE_ATTR"}
    return names


def _has_part(module: str, path: str) -> bool:
    """Whether ``module`` imports and has ``path`` (dotted); anything failing on the way means no."""
    try:
        owner = importlib.import_module(module)
        *owners, name = path.split(".")
        for step in owners:
            owner = getattr(owner, step)
        return hasattr(owner, name) or (isinstance(owner, type) and name in _instance_attributes(owner))
    except Exception:  # noqa: BLE001 - a module that fails to import, in any way, is a part that is not there
        return False


def missing_parts(parts: tuple[tuple[str, str], ...] = PRIVATE_PARTS) -> tuple[str, ...]:
    """The ``parts`` (as :data:`PRIVATE_PARTS`, the wake's by default) this process's Streamlit lacks, as
    ``"module:path"`` (empty: all there)."""
    return tuple(f"{module}:{path}" for module, path in parts if not _has_part(module, path))


@functools.cache  # not a Memo: one fact of this process (its Streamlit), said once, no key, nothing to drop
def _missing_in_this_process() -> tuple[str, ...]:
    missing = missing_parts()
    if missing:
        logging.getLogger(__name__).warning(
            "mvlab: this Streamlit lacks %s: the server cannot wake sessions, and pages look for changes on a "
            "timer instead", ", ".join(missing))
    return missing


def _lost(exc: BaseException) -> None:
    """A listed part failed while the server ran: the wake is off from now on (pages drawn later use their
    timers), said once in the log."""
    global _failure
    if _failure is None:
        _failure = f"{type(exc).__name__}: {exc}"
        logging.getLogger(__name__).warning(
            "mvlab: waking a session failed (%s): the server wakes no session any more, pages drawn from now on look "
            "for changes on a timer", _failure)


def _runtime():
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return None
        runtime = Runtime.instance()
    except (ImportError, AttributeError, RuntimeError):
        return None
    return runtime if type(runtime) is Runtime else None  # AppTest's runtime is a mock


def available() -> bool:
    """Whether this process is a real Streamlit server that has every part a wake uses (:data:`PRIVATE_PARTS`,
    checked once per process) and none of them has failed since."""
    return _failure is None and _runtime() is not None and not _missing_in_this_process()


def current_session() -> str | None:
    """The id of the session whose script runs in this thread, or None outside a script run."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return None if ctx is None else ctx.session_id
    except (ImportError, AttributeError) as exc:
        _lost(exc)
        return None


def current_fragment() -> str:
    """The id of the fragment running in this thread ("" outside one, or where this Streamlit keeps it elsewhere:
    a wake then reruns the whole page instead, which is slower but right)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        return ThreadState.get().fragment_id or ""
    except (ImportError, RuntimeError, AttributeError):
        return ""


def session_connected(session_id: str) -> bool:
    """Whether the session still has a browser connected (a closed tab's session is let go; so is every session
    once the wake has failed: nobody is woken any more)."""
    runtime = _runtime()
    if runtime is None or _failure is not None:
        return False
    try:
        return runtime.get_app_session(session_id) is not None
    except AttributeError as exc:
        _lost(exc)
        return False


def _rerun_now(runtime, requests: dict[str, str], done: Callable[[dict[str, str]], None]) -> None:
    """On the event loop: rerun each settled session of ``requests`` (session id -> fragment id, "" for the
    whole page) from its saved client state; ``done`` gets the ones rerun, the ones gone ("gone"), and, where a
    part of Streamlit failed (the wake is then off), the ones not rerun ("failed")."""
    outcome = {}
    try:
        from streamlit.proto.ClientState_pb2 import ClientState

        for session_id, fragment in requests.items():
            session = runtime.get_app_session(session_id)
            if session is None:
                outcome[session_id] = "gone"
                continue
            if session._scriptrunner is not None:
                continue  # a run in progress (maybe the student's own click): looked at again next interval
            if fragment and not session.has_fragment(fragment):
                fragment = ""
            state = ClientState()
            state.CopyFrom(session._client_state)  # its address and page, as run on save reruns it
            state.fragment_id = fragment
            state.is_auto_rerun = False
            session.request_rerun(state)
            outcome[session_id] = "rerun"
    except (ImportError, AttributeError, TypeError, ValueError) as exc:  # a part renamed or changed in shape
        _lost(exc)
        outcome.update({s: "failed" for s in requests if s not in outcome})
    done(outcome)


def rerun_sessions(requests: dict[str, str], done: Callable[[dict[str, str]], None]) -> bool:
    """Ask the server's event loop to rerun these sessions (session id -> fragment id, or "" for the whole
    page); ``done(outcome)`` is called there with ``{session id: "rerun" | "gone" | "failed"}`` (a busy session is
    left out: it is asked again later). False when this is no real server or the wake is off (nothing is
    asked)."""
    if not available():
        return False
    runtime = _runtime()
    try:
        loop = runtime._get_async_objs().eventloop
    except RuntimeError:  # the runtime has not started its loop yet: nothing to wake
        return False
    except AttributeError as exc:
        _lost(exc)
        return False
    loop.call_soon_threadsafe(_rerun_now, runtime, requests, done)
    return True


@dataclass
class Subscription:
    """What one session shows of one topic: ``seen`` is ``project(value)`` of the value it was drawn from; the
    session is woken when ``project`` of the topic's newer value differs: its ``fragment``, or the whole page when
    "". ``fragment`` may also be a function of the newer projected value that names the part to rerun (what
    changed decides: a page whose parts change apart reruns only the part that shows the change)."""

    topic: str
    project: Callable[[Any], Hashable]
    seen: Hashable
    fragment: str | Callable[[Hashable], str] = ""

    def part_for(self, now: Hashable) -> str:
        """The fragment to rerun for the newer projected value ``now`` ("" for the whole page)."""
        return self.fragment(now) if callable(self.fragment) else self.fragment


class Watch:
    """One reader for every session of a server process that follows a topic (a class round's code).

    Parameters
    ----------
    read : callable
        ``read(topics)`` -> ``{topic: value}`` for a set of topics, in one look (one query); a topic it leaves
        out (deleted, expired) has the value None.
    interval : float
        Seconds between two looks while anyone follows something. The wake reaches a session at most one
        interval after the change (plus its rerun).
    rerun : callable, default :func:`rerun_sessions`
        ``rerun(requests, done)`` as :func:`rerun_sessions` (a test passes its own).
    connected : callable, default :func:`session_connected`
        ``connected(session_id)``: every ``PRUNE_EVERY`` looks, the sessions whose browser has gone (a closed
        tab) stop being followed, so that a round nobody watches any more is not read for them.
    """

    PRUNE_EVERY = 16

    def __init__(self, read: Callable[[frozenset], dict], interval: float = 0.25,
                 rerun: Callable[[dict, Callable], bool] = rerun_sessions,
                 connected: Callable[[str], bool] = session_connected):
        if not interval > 0:
            raise ValueError(f"interval must be > 0 seconds; got {interval!r}.")
        self.read, self.interval, self.rerun, self.connected = read, float(interval), rerun, connected
        self._subscriptions: dict[str, Subscription] = {}
        self._latest: dict[str, tuple[float, Any]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.looks = 0
        """How many looks the watch has taken (one read for all its sessions each)."""
        self.woken = 0
        """How many reruns it has asked for."""

    def __len__(self) -> int:
        with self._lock:
            return len(self._subscriptions)

    def follow(self, session_id: str, subscription: Subscription) -> None:
        """``session_id`` now shows ``subscription`` (replacing what it followed before); starts the reader."""
        with self._lock:
            self._subscriptions[session_id] = subscription
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="mvlab-watch", daemon=True)
                self._thread.start()

    def forget(self, session_id: str) -> None:
        """``session_id`` follows nothing any more."""
        with self._lock:
            self._subscriptions.pop(session_id, None)

    def latest(self, topic: str, max_age: float) -> Any:
        """The value of ``topic`` as the watch read it at most ``max_age`` seconds ago, or None (not followed, or
        older): a page run can take it instead of reading the topic again itself."""
        with self._lock:
            at, value = self._latest.get(topic, (float("-inf"), None))
        return value if time.monotonic() - at <= max_age else None

    def look(self) -> dict[str, str]:
        """One look: read every followed topic once and ask to rerun the sessions whose view changed; returns
        what was asked (session id -> fragment id)."""
        if self.looks % self.PRUNE_EVERY == self.PRUNE_EVERY - 1:
            self._prune()
        with self._lock:
            subscriptions = dict(self._subscriptions)
        if not subscriptions:
            return {}
        at = time.monotonic()
        values = self.read(frozenset(s.topic for s in subscriptions.values()))
        with self._lock:
            self._latest = {topic: (at, value) for topic, value in values.items()}
        self.looks += 1
        requests = {}
        for session_id, sub in subscriptions.items():
            value = values.get(sub.topic)
            now = sub.project(value) if value is not None else None
            if now != sub.seen:
                requests[session_id] = sub.part_for(now) if value is not None else ""
        if requests:
            self.rerun(requests, lambda outcome: self._asked(subscriptions, outcome))
        return requests

    def _prune(self) -> None:
        with self._lock:
            sessions = list(self._subscriptions)
        gone = [s for s in sessions if not self.connected(s)]
        with self._lock:
            for session_id in gone:
                self._subscriptions.pop(session_id, None)

    def _asked(self, looked_at: dict[str, Subscription], outcome: dict[str, str]) -> None:
        """A rerun was asked for these sessions: they follow what their rerun draws (it subscribes again), not
        what they followed when looked at; a gone session follows nothing."""
        with self._lock:
            for session_id in outcome:
                if self._subscriptions.get(session_id) is looked_at.get(session_id):
                    del self._subscriptions[session_id]
            self.woken += sum(1 for o in outcome.values() if o == "rerun")

    def _loop(self) -> None:
        while True:
            started = time.monotonic()
            try:
                self.look()
            except Exception:  # noqa: BLE001 - a failed look (a locked store) is said, and tried again next interval
                logging.getLogger(__name__).exception("mvlab: a look of the round watch failed")
            time.sleep(max(0.0, self.interval - (time.monotonic() - started)))
