"""One way to turn a result into bytes and back: named arrays plus JSON metadata in a compressed
``.npz`` (no pickle), the form of every download and of every artifact in the results store."""

from __future__ import annotations

import io
import json
from typing import Any, Mapping

import numpy as np

__all__ = ["pack", "unpack"]


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def pack(arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> bytes:
    """Compressed ``.npz`` bytes holding ``arrays`` and ``meta`` (as JSON under the name ``meta``).

    Object arrays are stored as text; ``meta`` may hold numpy scalars and arrays (stored as lists).
    """
    if "meta" in arrays:
        raise ValueError("'meta' is reserved for the metadata; rename that array.")
    clean = {k: (np.asarray(v).astype(str) if np.asarray(v).dtype == object else np.asarray(v)) for k, v in arrays.items()}
    buf = io.BytesIO()
    np.savez_compressed(buf, meta=np.array(json.dumps(meta, default=_jsonable)), **clean)
    return buf.getvalue()


def unpack(data: bytes) -> tuple[dict[str, np.ndarray], dict]:
    """The arrays and the metadata written by :func:`pack` (arrays loaded into memory)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        arrays = {k: z[k] for k in z.files if k != "meta"}
    return arrays, meta
