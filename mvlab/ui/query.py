"""Settings in a link: a page's settings object to and from the URL's query values, so that a reload keeps
them and a link opens the same page for someone else.

The one parser of link values (:func:`parse_value`) checks each value against what its settings field
declares (options, or inclusive bounds); a value that does not fit falls back to the default with a note naming
the parameter (:func:`settings_from_query`).  The sidebar's data parameters use the same parser.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from typing import Any, Mapping

__all__ = ["query_fields", "settings_to_query", "settings_from_query", "parse_value"]


def query_fields(settings_cls) -> list[dataclasses.Field]:
    """The fields of a settings class a URL carries (the seed travels with the data, not with the page)."""
    return [f for f in dataclasses.fields(settings_cls) if f.name != "seed"]


def settings_to_query(settings) -> dict[str, str]:
    """The fields of ``settings`` that differ from their default, as URL query strings (lists comma-joined)."""
    out = {}
    for f in query_fields(type(settings)):
        value = getattr(settings, f.name)
        if value != f.default:
            out[f.name] = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
    return out


def settings_from_query(settings_cls, query: Mapping[str, Any], seed: int = 0) -> tuple[Any, list[str]]:
    """Settings of class ``settings_cls`` from URL query values; returns (settings, notes).

    Unknown keys are ignored (they belong to other pages or to the data); a value that does
    not parse, is not an allowed option or is out of range falls back to the default and
    adds a note naming the parameter and the allowed values.
    """
    hints = settings_cls.field_types()
    values, notes = {}, []
    for f in query_fields(settings_cls):
        if f.name not in query:
            continue
        raw = query[f.name]
        if isinstance(raw, (list, tuple)):  # a key given twice: lists join, scalars keep the last
            raw = ",".join(map(str, raw)) if typing.get_origin(hints[f.name]) is tuple else raw[-1]
        try:
            values[f.name] = _parse(raw, hints[f.name], f)
        except ValueError as exc:
            notes.append(f"'{f.name}={raw}' was ignored ({exc}); using {f.name}={_show(f.default)}.")
    return settings_cls(seed=seed, **values), notes


def _show(value) -> str:
    return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _parse(raw, hint, f: dataclasses.Field):
    return parse_value(raw, hint, f.metadata.get("options"), f.metadata.get("range"))


def parse_value(raw, hint, options=None, bounds=None):
    """A URL value as ``hint`` (int, float, bool, str or a tuple of them, comma-separated), checked
    against ``options`` (allowed strings) or ``bounds`` (inclusive); ValueError saying why not.
    The one parser of link values: page settings and the sidebar's data parameters use it."""
    text = str(raw).strip()
    if typing.get_origin(hint) is tuple:
        items = tuple(t.strip() for t in text.split(",") if t.strip())
        if typing.get_args(hint)[0] is int:
            try:
                return tuple(int(t) for t in items)
            except ValueError:
                raise ValueError("not a list of whole numbers") from None
        bad = [t for t in items if options is not None and t not in options]
        if bad:
            raise ValueError(f"{bad} not among {list(options)}")
        return items
    if hint is bool:
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError("not true or false")
    if hint is int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError("not a whole number") from None
    elif hint is float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError("not a number") from None
        if not math.isfinite(value):
            raise ValueError("not a finite number")
    else:
        value = text
        if options is not None and value not in options:
            raise ValueError(f"not one of {list(options)}")
        return value
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        raise ValueError(f"outside {bounds[0]}..{bounds[1]}")
    return value
