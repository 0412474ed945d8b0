"""Checks of estimator parameters shared by every module (one validation convention)."""

from __future__ import annotations

import numbers

__all__ = ["is_int"]


def is_int(value) -> bool:
    """An integer, and not a bool (``True`` is an ``int`` in Python)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
