"""One way to turn a result into bytes and back: named arrays plus JSON metadata in a compressed
``.npz`` (no pickle), the form of every download and of every artifact in the results store."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any, Mapping

import numpy as np

__all__ = ["pack", "unpack"]


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def pack(arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any], compresslevel: int = 1) -> bytes:
    """Compressed ``.npz`` bytes holding ``arrays`` and ``meta`` (as JSON under the name ``meta``).

    Object arrays are stored as text; ``meta`` may hold numpy scalars and arrays (stored as lists).
    The file is an ordinary ``.npz`` (``np.load`` reads it); it is deflated at ``compresslevel``
    1 rather than numpy's default 6: forest dissimilarities (multiples of 1/T) compress almost as
    well, about 4x faster (6 matrices of 2500 x 2500: 1.5 s instead of 6.6 s).
    """
    if "meta" in arrays:
        raise ValueError("'meta' is reserved for the metadata; rename that array.")
    buf = io.BytesIO()
    entries = {"meta": np.array(json.dumps(meta, default=_jsonable)),
               **{k: (np.asarray(v).astype(str) if np.asarray(v).dtype == object else np.asarray(v))
                  for k, v in arrays.items()}}
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=compresslevel) as zf:
        for name, value in entries.items():
            with zf.open(f"{name}.npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, value, allow_pickle=False)
    return buf.getvalue()


def unpack(data: bytes) -> tuple[dict[str, np.ndarray], dict]:
    """The arrays and the metadata written by :func:`pack` (arrays loaded into memory)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        arrays = {k: z[k] for k in z.files if k != "meta"}
    return arrays, meta
