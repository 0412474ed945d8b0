"""One policy for what a process computes once and keeps: :class:`Memo`.

Every value mvlab keeps in memory to avoid computing it again (a result's figures, a Markdown element built once, the
keys of a lesson's steps, a store opened once per location, the class rounds and their watch, the pages' templates,
what is derived from a frozen figure) lives in a :class:`Memo`, with one rule:

* **computed once per key**, by the first thread that asks; the threads that ask while it is computed wait for it
  and share it (a class woken at once asks for the same value from as many script threads);
* **a failure is not kept**: the exception reaches the thread that computed, and the next one to ask computes again
  (a store that could not be opened is opened at the next look);
* **size**: at most ``size`` values, the least recently used one dropped first; ``size=None`` keeps every value for
  as long as the memo lives, for values that own something that must not be made twice (the rounds' watch and its
  thread) or whose keys are few and fixed (the pages, the lessons' steps);
* **expiry**: none by time. A value is a pure function of its key (a key names everything it depends on: a result
  by its id, a store by its location and environment), so it never goes stale; it only goes out of memory.

A hit is one dictionary look-up without a lock (a memo on the path of every student's rerun must cost almost
nothing); the recency of a bounded memo's hit is recorded under its lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Hashable, TypeVar

__all__ = ["Memo"]

T = TypeVar("T")
_MISSING = object()


class Memo:
    """Values computed once per key and kept (see the module's rule).

    Parameters
    ----------
    size : int or None
        The most values kept, the least recently used dropped first; None: no bound.
    """

    def __init__(self, size: int | None):
        if size is not None and size < 1:
            raise ValueError(f"a memo keeps at least one value, or size=None; got size={size}.")
        self.size = size
        self._values: OrderedDict = OrderedDict()
        self._building: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._values

    def keys(self) -> list:
        """The keys kept, the least recently used first."""
        with self._lock:
            return list(self._values)

    @property
    def building(self) -> int:
        """How many values are being computed now."""
        return len(self._building)

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value kept for ``key``, or ``compute()`` once (the other threads that ask meanwhile wait for it)."""
        value = self._values.get(key, _MISSING)
        if value is not _MISSING:
            if self.size is not None:
                with self._lock:
                    if key in self._values:
                        self._values.move_to_end(key)
            return value
        while True:
            with self._lock:
                value = self._values.get(key, _MISSING)
                if value is not _MISSING:
                    return value
                building = self._building.get(key)
                if building is None:
                    building = self._building[key] = threading.Event()
                    break
            building.wait()
        try:
            value = compute()  # outside the lock: other keys are computed and read meanwhile, this one may nest
            with self._lock:
                self._values[key] = value
                if self.size is not None:
                    while len(self._values) > self.size:
                        self._values.popitem(last=False)
            return value
        finally:
            with self._lock:
                del self._building[key]
            building.set()

    def forget(self, key: Hashable) -> None:
        """Drop ``key``'s value, if kept (the next ask computes it again)."""
        with self._lock:
            self._values.pop(key, None)

    def clear(self) -> None:
        """Drop every value kept."""
        with self._lock:
            self._values.clear()
