"""Values built once per server and shared by every session: a result's figures (a class that opens the same
result builds them once, not once per student) and results read back from the results store (one copy in
memory, not one per student).

Shared values are never changed in place: every session holds the same object.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Callable, TypeVar

import plotly.graph_objects as go

from mvlab.viz.frozen import FrozenFigure, freeze

__all__ = ["SharedValues", "VALUES", "RESULTS", "value", "figure", "stored_result"]

T = TypeVar("T")


class SharedValues:
    """At most ``size`` values, each computed once per key, the most recently used kept.

    A session that asks while another builds the same value waits for it (the sessions that shared a
    run all receive its result at the same moment: without the wait, each built every figure again);
    if the builder fails, the next one builds."""

    def __init__(self, size: int):
        self.size = size
        self._values: OrderedDict = OrderedDict()
        self._building: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._values)

    @property
    def building(self) -> int:
        """How many values are being built now."""
        return len(self._building)

    def get(self, name: str, key, compute: Callable[[], T]) -> T:
        """``compute()`` once for this ``name`` and ``key`` (anything JSON can write), or the value kept."""
        key = json.dumps([name, key], sort_keys=True, default=str)
        while True:
            with self._lock:
                if key in self._values:
                    self._values.move_to_end(key)
                    return self._values[key]
                building = self._building.get(key)
                if building is None:
                    building = self._building[key] = threading.Event()
                    break
            building.wait()
        try:
            value = compute()  # outside the lock: other keys are built and read meanwhile
            with self._lock:
                self._values[key] = value
                self._values.move_to_end(key)
                while len(self._values) > self.size:
                    self._values.popitem(last=False)
            return value
        finally:
            with self._lock:
                del self._building[key]
            building.set()


VALUES = SharedValues(256)
"""Figures and embeddings of results (small, many)."""
RESULTS = SharedValues(8)
"""Results read back from the results store (large: at 100,000 rows a comparison keeps its maps)."""


def value(name: str, key, compute: Callable[[], T]) -> T:
    """``compute()`` once per server for this ``name`` and ``key`` (a figure or an embedding of a result,
    keyed by the result's :func:`mvlab.engine.requests.result_key` and what else it depends on)."""
    return VALUES.get(name, key, compute)


def figure(name: str, key, build: Callable[[], go.Figure]) -> FrozenFigure:
    """The figure ``build()`` once per server for this ``name`` and ``key`` (:func:`value`), frozen
    (:class:`mvlab.viz.frozen.FrozenFigure`): the sessions that draw it share its wire form instead of
    encoding its arrays again, each one."""
    return VALUES.get(name, key, lambda: freeze(build()))


def stored_result(store, kind: str, fingerprint: str, settings, result_type):
    """The newest finished result for these data and settings in ``store``
    (:meth:`mvlab.store.ResultsStore.finished_result`), read back once per server for that
    run: the sessions that open it share one object.  None when there is none."""
    run_id = store.find_finished(kind, fingerprint, settings)
    if run_id is None:
        return None
    return RESULTS.get("result", [store.location, run_id, result_type.__name__],
                       lambda: store.run_result(run_id, result_type))
