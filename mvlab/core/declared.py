"""What an estimator declares about one of its parameters: the bounds and options of its
``_parameter_constraints`` (:mod:`mvlab.core.params`) and the meaning its numpydoc docstring gives.

The dashboard's settings read these instead of declaring them a second time, so a parameter's range,
choices and help text live in one place, the estimator (a page may narrow a range for speed and says so).
"""

from __future__ import annotations

import inspect
import math
import re

from mvlab.core.params import Interval, StrOptions

__all__ = ["declared_bounds", "declared_options", "declared_doc"]


def _constraints(estimator_cls, name: str) -> list:
    try:
        return list(estimator_cls._parameter_constraints[name])
    except (AttributeError, KeyError):
        raise ValueError(f"{estimator_cls.__name__} declares no constraint for a parameter {name!r}.") from None


def declared_bounds(estimator_cls, name: str) -> tuple[float, float]:
    """The widest inclusive bounds the intervals of ``estimator_cls``'s constraint on ``name`` allow.

    Returns
    -------
    (low, high) : floats, ``-inf`` / ``inf`` where the interval is open-ended.  An open end of an
        integer interval is moved to the next integer inside it.

    Raises
    ------
    ValueError
        When the constraint holds no interval.
    """
    intervals = [c for c in _constraints(estimator_cls, name) if isinstance(c, Interval)]
    if not intervals:
        raise ValueError(f"{estimator_cls.__name__}.{name} is not constrained to an interval.")
    lows, highs = [], []
    for iv in intervals:
        integral = iv.type is not None and issubclass(iv.type, int) or getattr(iv.type, "__name__", "") == "Integral"
        low = -math.inf if iv.left is None else iv.left
        high = math.inf if iv.right is None else iv.right
        if integral and iv.left is not None and iv.closed in ("right", "neither"):
            low += 1
        if integral and iv.right is not None and iv.closed in ("left", "neither"):
            high -= 1
        lows.append(low)
        highs.append(high)
    return min(lows), max(highs)


def declared_options(estimator_cls, name: str) -> tuple[str, ...]:
    """The strings ``estimator_cls``'s constraint on ``name`` allows (its ``StrOptions``), sorted as declared
    in the docstring when it lists them, else alphabetically."""
    options: set[str] = set()
    for c in _constraints(estimator_cls, name):
        if isinstance(c, StrOptions):
            options |= set(c.options) - set(getattr(c, "deprecated", ()) or ())
    if not options:
        raise ValueError(f"{estimator_cls.__name__}.{name} allows no string options.")
    listed = re.findall(r'"([^"]+)"', _entry(estimator_cls, name)[0])
    ordered = [o for o in dict.fromkeys(listed) if o in options]
    return tuple(ordered + sorted(options - set(ordered)))


def _entry(estimator_cls, name: str) -> tuple[str, str]:
    """The (type line, description) of ``name`` in the Parameters section of the class docstring, or of the
    first base class that documents it (a subclass may say "parameters as its base")."""
    for cls in inspect.getmro(estimator_cls):
        doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
        section = re.search(r"^Parameters\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.S | re.M)
        if not section:
            continue
        entry = re.search(rf"^{re.escape(name)}\s*:\s*(.*)\n((?:[ \t]+.*\n?|\n(?=[ \t]))*)", section.group(1), re.M)
        if entry:
            return entry.group(1).strip(), " ".join(entry.group(2).split())
    raise ValueError(f"{estimator_cls.__name__}'s docstring does not document a parameter {name!r}.")


def declared_doc(estimator_cls, name: str, sentences: int = 1) -> str:
    """The first ``sentences`` sentence(s) of what ``estimator_cls``'s docstring says ``name`` is, without
    reStructuredText markup (for a widget's help)."""
    text = _entry(estimator_cls, name)[1]
    text = re.sub(r":\w+:`~?([^`]+)`", lambda m: m.group(1).rsplit(".", 1)[-1], text)
    text = text.replace("``", "")
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(\"`])", text)
    return " ".join(parts[:sentences]).strip()
