"""Input validation shared by the statistical tests, and the base of their frozen result dataclasses.

Score matrices have shape ``(n_blocks, n_methods)``; every bad input raises a ``ValueError`` that says what
is wrong and where.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd


def _check_alpha(alpha: float, name: str = "alpha") -> float:
    try:
        alpha = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {alpha!r}.") from None
    if not (0.0 < alpha < 1.0):
        raise ValueError(f"{name} must be strictly between 0 and 1, got {alpha!r}.")
    return alpha


def _as_score_matrix(scores, *, min_blocks: int = 2) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """Validate a score matrix; return ``(x, method_names, block_names)``, ``x`` float (n_blocks, n_methods)."""
    if isinstance(scores, pd.DataFrame):
        if scores.columns.has_duplicates:
            raise ValueError(
                f"method names (columns) must be unique; got {[str(c) for c in scores.columns]}."
            )
        non_numeric = [
            str(c) for c, dt in scores.dtypes.items() if not pd.api.types.is_numeric_dtype(dt)
        ]
        if non_numeric:
            raise ValueError(
                "scores must hold numbers only; non-numeric column(s): "
                f"{non_numeric}. Move labels to the index or drop those columns."
            )
        methods = tuple(str(c) for c in scores.columns)
        blocks = tuple(str(i) for i in scores.index)
        x = scores.to_numpy(dtype=float, na_value=np.nan)
    else:
        try:
            x = np.asarray(scores, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(
                "scores must be a numeric (n_blocks, n_methods) array or DataFrame; "
                "could not convert it to float."
            ) from None
        methods = blocks = ()
    if x.ndim != 2:
        raise ValueError(
            f"scores must be 2-D with shape (n_blocks, n_methods); got an array with {x.ndim} "
            f"dimension(s), shape {x.shape}."
        )
    n_blocks, n_methods = x.shape
    if n_methods < 2:
        raise ValueError(
            f"scores must have at least 2 methods (columns) to compare; got {n_methods}."
        )
    if n_blocks < min_blocks:
        raise ValueError(
            f"scores must have at least {min_blocks} blocks (rows: data sets or repetitions); "
            f"got {n_blocks}."
        )
    bad = ~np.isfinite(x)
    if bad.any():
        b, m = np.argwhere(bad)[0]
        raise ValueError(
            f"scores contain {int(bad.sum())} NaN or infinite value(s), first at block {b}, "
            f"method {m} ({x[b, m]!r}); remove or impute incomplete rows first."
        )
    if not methods:
        methods = tuple(f"method_{j}" for j in range(n_methods))
        blocks = tuple(str(i) for i in range(n_blocks))
    if len(set(methods)) != len(methods):
        raise ValueError(f"method names (columns) must be unique; got {list(methods)}.")
    return x, methods, blocks


def _as_vector(v, name: str) -> np.ndarray:
    if isinstance(v, (pd.Series, pd.Index)):
        v = v.to_numpy(dtype=float, na_value=np.nan)
    try:
        v = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 1-D sequence of numbers; could not convert it to float.") from None
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per data set); got shape {v.shape}.")
    bad = ~np.isfinite(v)
    if bad.any():
        raise ValueError(
            f"{name} contains {int(bad.sum())} NaN or infinite value(s), first at position "
            f"{int(np.argmax(bad))}; remove incomplete pairs first."
        )
    return v


def _paired_vectors(a, b, *, min_len: int) -> tuple[np.ndarray, np.ndarray]:
    a = _as_vector(a, "a")
    b = _as_vector(b, "b")
    if a.shape != b.shape:
        raise ValueError(
            f"a and b must be paired (same length, one value per data set); got lengths "
            f"{a.size} and {b.size}."
        )
    if a.size < min_len:
        raise ValueError(f"need at least {min_len} paired values; got {a.size}.")
    return a, b


def _resolve_control(control, methods: tuple[str, ...]) -> int:
    if isinstance(control, (int, np.integer)) and not isinstance(control, bool):
        # an integer is a column name if the columns are named by those integers, else a position
        if str(control) in methods:
            return methods.index(str(control))
        if not (-len(methods) <= control < len(methods)):
            raise ValueError(
                f"control index {control} is out of range for {len(methods)} methods."
            )
        return int(control) % len(methods)
    if str(control) in methods:
        return methods.index(str(control))
    raise ValueError(f"control {control!r} is not one of the methods {list(methods)}.")


def _check_p_values(p_values) -> np.ndarray:
    """``p_values`` as a non-empty float vector of values in [0, 1], or a ``ValueError`` saying what is wrong."""
    p = _as_vector(p_values, "p_values")
    if p.size == 0:
        raise ValueError("p_values is empty: need at least one p-value to adjust.")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p_values must lie in [0, 1].")
    return p


def _check_k_n(n_methods, n_blocks) -> tuple[int, int]:
    for name, v, least in (("n_methods", n_methods, 2), ("n_blocks", n_blocks, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer, float)) or int(v) != v or v < least:
            what = "methods" if name == "n_methods" else "blocks (data sets)"
            raise ValueError(f"a critical difference needs a whole number of at least {least} {what}; "
                             f"got {name}={v!r}.")
    return int(n_methods), int(n_blocks)


@dataclass(frozen=True)
class _Result:
    """Base of the frozen result dataclasses: ``to_dict()`` gives their fields as plain values."""

    def to_dict(self) -> dict:
        return asdict(self)


class _RanksOfMethods:
    """``ranks()`` for results with aligned ``methods`` and ``average_ranks`` tuples."""

    _rank_name = "average_rank"

    def ranks(self) -> pd.Series:
        """Average ranks as a Series indexed by method (in the result's order)."""
        return pd.Series(self.average_ranks, index=pd.Index(self.methods, name="method"), name=self._rank_name)
