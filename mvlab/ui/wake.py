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
:func:`available` says whether they are all there; where they are not (a Streamlit that changed them, or
AppTest's mock runtime), the callers fall back to a fragment's timer, and ``tests/test_ui.py`` fails on the
installed Streamlit if one of them is gone, so that an upgrade cannot turn the push off unnoticed.

A busy session (a run in progress, e.g. the student's own click) is not interrupted: it is looked at again at
the next interval, so a click is never lost to a wake.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable

__all__ = ["available", "current_session", "current_fragment", "rerun_sessions", "Watch", "Subscription"]


def _runtime():
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return None
    runtime = Runtime.instance()
    return runtime if type(runtime) is Runtime else None  # AppTest's runtime is a mock


def available() -> bool:
    """Whether this process is a real Streamlit server whose runtime has the parts a wake uses."""
    from streamlit.runtime.app_session import AppSession

    runtime = _runtime()
    return (runtime is not None and hasattr(runtime, "get_app_session") and hasattr(runtime, "_get_async_objs")
            and all(hasattr(AppSession, name) for name in ("request_rerun", "has_fragment")))


def current_session() -> str | None:
    """The id of the session whose script runs in this thread, or None outside a script run."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return None if ctx is None else ctx.session_id


def current_fragment() -> str:
    """The id of the fragment running in this thread ("" outside one, or where this Streamlit keeps it elsewhere:
    a wake then reruns the whole page instead, which is slower but right)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        return ThreadState.get().fragment_id or ""
    except (ImportError, RuntimeError, AttributeError):
        return ""


def session_connected(session_id: str) -> bool:
    """Whether the session still has a browser connected (a closed tab's session is let go)."""
    runtime = _runtime()
    return runtime is not None and runtime.get_app_session(session_id) is not None


def _rerun_now(runtime, requests: dict[str, str], done: Callable[[dict[str, str]], None]) -> None:
    """On the event loop: rerun each settled session of ``requests`` (session id -> fragment id, "" for the
    whole page) from its saved client state; ``done`` gets the ones rerun and the ones gone ("gone")."""
    from streamlit.proto.ClientState_pb2 import ClientState

    outcome = {}
    for session_id, fragment in requests.items():
        session = runtime.get_app_session(session_id)
        if session is None:
            outcome[session_id] = "gone"
            continue
        if getattr(session, "_scriptrunner", None) is not None:
            continue  # a run in progress (maybe the student's own click): looked at again next interval
        if fragment and not session.has_fragment(fragment):
            fragment = ""
        state = ClientState()
        state.CopyFrom(session._client_state)  # its address and page, as run on save reruns it
        state.fragment_id = fragment
        state.is_auto_rerun = False
        session.request_rerun(state)
        outcome[session_id] = "rerun"
    done(outcome)


def rerun_sessions(requests: dict[str, str], done: Callable[[dict[str, str]], None]) -> bool:
    """Ask the server's event loop to rerun these sessions (session id -> fragment id, or "" for the whole
    page); ``done(outcome)`` is called there with ``{session id: "rerun" | "gone"}`` (a busy session is left
    out: it is asked again later). False when this is no real server (nothing is asked)."""
    runtime = _runtime()
    if runtime is None:
        return False
    runtime._get_async_objs().eventloop.call_soon_threadsafe(_rerun_now, runtime, requests, done)
    return True


@dataclass
class Subscription:
    """What one session shows of one topic: ``seen`` is ``project(value)`` of the value it was drawn from; the
    session is woken (its ``fragment``, or the whole page when "") when ``project`` of the topic's newer value
    differs."""

    topic: str
    project: Callable[[Any], Hashable]
    seen: Hashable
    fragment: str = ""


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
                requests[session_id] = sub.fragment if value is not None else ""
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
