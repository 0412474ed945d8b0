"""Tables for people: what ``st.dataframe`` shows of a numeric result table."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["readable"]


def readable(frame: pd.DataFrame, decimals: int = 4) -> pd.DataFrame:
    """A copy for display: floats rounded, missing values "—" (not ``None``/``nan``), booleans
    "yes"/"no", and ``snake_case`` column names (and index name) written with spaces."""
    out = frame.copy()
    for col in out.columns:
        values = out[col]
        if pd.api.types.is_bool_dtype(values):
            out[col] = np.where(values, "yes", "no")
        elif pd.api.types.is_float_dtype(values):
            out[col] = [("—" if pd.isna(v) else f"{v:.{decimals}f}".rstrip("0").rstrip(".") if v != 0 else "0")
                        for v in values]
        elif values.dtype == object:
            out[col] = ["—" if v is None or (isinstance(v, float) and np.isnan(v)) else v for v in values]
    out.columns = [str(c).replace("_", " ") for c in out.columns]
    if out.index.name:
        out.index.name = str(out.index.name).replace("_", " ")
    return out
