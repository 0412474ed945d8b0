"""What a lesson step shows, as a fingerprint robust to floating-point noise: every text exactly, every number
to 4 significant digits, every numeric array as its shape and the sums of its absolute values and squares (an
eigenvector's sign may flip between machines; its sums do not). ``tests/data/lesson_steps_before.json`` holds the
fingerprints of the four lessons as the Python modules showed them (issue #70: made once, by
``tests/make_lesson_fingerprints.py``, before the lessons became files); ``test_lesson_files`` compares every step."""

from __future__ import annotations

import base64
import hashlib
import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

TIMINGS = {"fit seconds"}
"""Table columns that hold measured times: their numbers are not compared (they differ from run to run)."""


def _number(x: float):
    if _timing[0]:
        return "timing"
    x = float(x)
    if not math.isfinite(x):
        return str(x)
    return float(f"{x:.4g}")


def _values(v):
    if isinstance(v, dict) and "bdata" in v and "dtype" in v:  # plotly's typed array, base64
        arr = np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        shape = [int(n) for n in str(v["shape"]).split(",")] if "shape" in v else [-1]
        return _values(arr.reshape(shape))
    if isinstance(v, dict):
        return {k: _values(x) for k, x in sorted(v.items()) if k != "template"}
    if isinstance(v, (list, tuple, np.ndarray)):
        arr = np.asarray(v, dtype=object)
        flat = list(arr.ravel()) if arr.ndim else [arr.item()]
        if flat and all(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
                        for x in flat):
            nums = np.asarray(flat, dtype=float)
            finite = nums[np.isfinite(nums)]
            return {"shape": list(arr.shape), "abs": _number(np.abs(finite).sum()),
                    "sq": _number((finite ** 2).sum()), "nan": int((~np.isfinite(nums)).sum())}
        if len(flat) > 20 and all(isinstance(x, str) for x in flat):
            return {"shape": list(arr.shape), "sha256": hashlib.sha256("\x1f".join(flat).encode()).hexdigest()}
        return [_values(x) for x in v]
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float, np.integer, np.floating)):
        return _number(v)
    return str(v)


_timing = [False]


def fingerprint(item, timing: bool = False) -> dict:
    """A figure's or a table's fingerprint (see the module); ``timing``: the item shows measured times, so none of
    its numbers is kept (only its texts and shapes), as none of a table's :data:`TIMINGS` columns."""
    _timing[0] = timing
    try:
        if isinstance(item, go.Figure):
            return {"figure": _values(item.to_plotly_json())}
        assert isinstance(item, pd.DataFrame), type(item)
        rows = []
        for row in item.astype(object).itertuples(index=False):
            cells = []
            for column, x in zip(item.columns, row):
                _timing[0] = timing or column in TIMINGS
                cells.append(_values(x))
            rows.append(cells)
        return {"table": {"columns": [str(c) for c in item.columns], "rows": rows}}
    finally:
        _timing[0] = False


def shows_timings(step_title: str) -> bool:
    """Whether a step's figure shows measured times (the OFSP lesson's last step)."""
    return step_title == "The price: time"
