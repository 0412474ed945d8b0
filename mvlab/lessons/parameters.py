"""Declared parameters of the named figures and checks a lesson file may use (:mod:`mvlab.lessons.figure_registry`,
:mod:`mvlab.lessons.check_registry`): each parameter says its type, default, allowed values or range and what it
does, so that a file's values are checked before anything is computed, every problem in words that say what is
allowed, and the lesson format's JSON Schema and its reference in the guide are written from the same declarations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Param", "Entry", "TYPES", "check_value", "checked_params"]

TYPES = {"int": "a whole number", "float": "a number", "str": "a text", "bool": "true or false",
         "list[str]": "a list of texts", "list[int]": "a list of whole numbers"}
"""The types a parameter may have, in words."""


@dataclass(frozen=True)
class Param:
    """One parameter: ``name``, ``type`` (a key of :data:`TYPES`), ``default`` (None with ``required`` False: the
    figure or check works it out, as ``help`` says), ``options`` (allowed texts) or ``range`` (inclusive bounds,
    of the number or of each item), ``help`` in words."""

    name: str
    type: str
    help: str
    default: Any = None
    options: tuple | None = None
    range: tuple[float, float] | None = None
    required: bool = False

    def allowed(self) -> str:
        """What the parameter takes, in words (for messages and the guide)."""
        said = TYPES[self.type]
        if self.options is not None:
            said += " among " + ", ".join(map(str, self.options))
        if self.range is not None:
            low, high = self.range
            said += f" from {low:g} to {high:g}" if math.isfinite(high) else f" of at least {low:g}"
        return said


@dataclass(frozen=True)
class Entry:
    """A named figure or check: ``name`` (``page.what``, or ``what`` for any page), the ``pages`` whose results
    it reads (the settings' kinds), its ``params``, what it shows or claims (``doc``) and the function
    (``build(ctx, **params)``)."""

    name: str
    pages: tuple[str, ...]
    params: tuple[Param, ...]
    doc: str
    build: Callable = field(repr=False, compare=False)

    def param(self, name: str) -> Param | None:
        """The parameter ``name``, or None."""
        return next((p for p in self.params if p.name == name), None)


def check_value(param: Param, value) -> str | None:
    """Why ``value`` does not fit ``param`` (None: it fits), in words naming what is allowed."""
    kind = param.type
    items = value if kind.startswith("list[") else [value]
    if kind.startswith("list["):
        if not isinstance(value, list) or not value:
            return f"must be {param.allowed()} (a list with at least one item)"
        if len(value) > 50:
            return "may hold at most 50 items"
        kind = kind[5:-1]
    for item in items:
        if kind == "bool":
            ok = isinstance(item, bool)
        elif kind == "int":
            ok = isinstance(item, int) and not isinstance(item, bool)
        elif kind == "float":
            ok = isinstance(item, (int, float)) and not isinstance(item, bool) and math.isfinite(item)
        else:
            ok = isinstance(item, str) and len(item) <= 300
        if not ok:
            return f"must be {param.allowed()}; got {_shown(item)}"
        if param.options is not None and item not in param.options:
            return f"must be one of {', '.join(map(str, param.options))}; got {_shown(item)}"
        if param.range is not None and not param.range[0] <= item <= param.range[1]:
            return f"must be {param.allowed()}; got {_shown(item)}"
    return None


def _shown(value) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 60 else text[:57] + "..."


def checked_params(entry: Entry, given: dict) -> tuple[dict, list[tuple[str, str]]]:
    """The parameters of ``entry`` from ``given`` (defaults filled in) and the problems as ``(parameter, words)``:
    an unknown parameter (naming those there are), a required one missing, a value that does not fit."""
    values, problems = {}, []
    for name in given:
        if entry.param(name) is None:
            there = ", ".join(p.name for p in entry.params) or "none"
            problems.append((name, f"'{entry.name}' has no parameter '{name}'; its parameters: {there}"))
    for p in entry.params:
        if p.name not in given:
            if p.required:
                problems.append((p.name, f"'{entry.name}' needs '{p.name}': {p.allowed()}. {p.help}"))
            values[p.name] = list(p.default) if isinstance(p.default, tuple) else p.default
            continue
        why = check_value(p, given[p.name])
        if why:
            problems.append((p.name, f"'{p.name}' of '{entry.name}' {why}"))
        else:
            values[p.name] = given[p.name]
    return values, problems
