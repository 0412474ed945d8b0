"""Sessions woken by the server when what they show changes, instead of every browser asking on a timer.

A class round's student page must change when the teacher reveals the answer or moves everyone on. Streamlit's
public way for a page to change by itself is a fragment with ``run_every``: a timer in each browser, each tick a
rerun on the server (about 8 ms of its CPU, however little the fragment does). 300 students looking twice a
second are 600 reruns a second, more than two cores can run; looking less often makes the class wait longer.
Here instead one thread per server process (:class:`Watch`) reads what its sessions follow, once per interval,
for all of them together, and reruns only the sessions whose view of it changed: a waiting student costs
the server nothing.

Streamlit has no public API to rerun a session from the server: :func:`mvlab.ui.streamlit_insides.rerun_sessions`
does it with the parts Streamlit's own *run on save* uses, behind that one door (feature ``wake``), which checks them
once per process; :func:`available` says no when one is gone (a Streamlit that renamed it) or when the runtime is not
a server's (AppTest's mock), and the callers then fall back to a fragment's timer. A part that fails anyway while the
server runs turns the wake off for the rest of the process (said once in the log), never a traceback.

A busy session (a run in progress, e.g. the student's own click) is not interrupted: it is looked at again at
the next interval, so a click is never lost to a wake.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable

from mvlab.store import StoreUnavailable
from mvlab.ui import streamlit_insides as insides

__all__ = ["available", "Watch", "Subscription"]


def available() -> bool:
    """Whether this process is a real Streamlit server that can wake its sessions: every part a wake uses is there
    (checked once per process) and none of them has failed since (:mod:`mvlab.ui.streamlit_insides`, ``wake``)."""
    return insides.a_real_server() and insides.usable("wake")


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
    rerun : callable, default :func:`mvlab.ui.streamlit_insides.rerun_sessions`
        ``rerun(requests, done)`` as that function (a test passes its own).
    connected : callable, default :func:`mvlab.ui.streamlit_insides.session_connected`
        ``connected(session_id)``: every ``PRUNE_EVERY`` looks, the sessions whose browser has gone (a closed
        tab) stop being followed, so that a round nobody watches any more is not read for them.
    """

    PRUNE_EVERY = 16

    def __init__(self, read: Callable[[frozenset], dict], interval: float = 0.25,
                 rerun: Callable[[dict, Callable], bool] = insides.rerun_sessions,
                 connected: Callable[[str], bool] = insides.session_connected):
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
            except StoreUnavailable:  # the store said it once in the log (and will say it is back): looked again
                pass
            except Exception:  # noqa: BLE001 - any other failed look is said, and tried again next interval
                logging.getLogger(__name__).exception("mvlab: a look of the round watch failed")
            time.sleep(max(0.0, self.interval - (time.monotonic() - started)))
