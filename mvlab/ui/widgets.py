"""Widgets built from the fields of a settings object: one source for every bound, default, list of
options and help text.

A settings field (:mod:`mvlab.experiments.settings`) declares its default, its allowed ``range``
or ``options`` and its ``help``; the URL parser checks links against the same metadata.  Each
helper here draws the widget for one field, kept across pages (:func:`mvlab.ui.state.keep`) under
the widget key the page maps the field to (:func:`widget_keys`: the page's prefix and the field's
name), so no page writes a bound, a default or a paper constant of its own.  The page keeps what only
the page knows: the label, the step, the column.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, Mapping

import streamlit as st

from mvlab.i18n import format_number, gettext
from mvlab.ui import links
from mvlab.ui.query import query_fields
from mvlab.ui.state import keep, kept, set_kept

__all__ = ["widget_keys", "SHORT_NAMES", "number", "slider", "select", "radio", "multiselect", "toggle", "choice",
           "field_default", "field_range", "field_help", "Form", "pending_choice", "resolve_keys"]


SHORT_NAMES = {"n_estimators": "trees", "test_size": "test", "repetitions": "reps", "n_repeats": "reps"}
"""Fields whose widget key, on every page, ends with a short name instead of the field's name."""


def widget_keys(settings_cls, prefix: str, names: Mapping[str, str] | None = None,
                exclude: Iterable[str] = ()) -> dict[str, str]:
    """The widget key of every field of ``settings_cls`` a page draws: ``{field: f"{prefix}_{name}"}``.

    ``name`` is the field's name, or its short name (:data:`SHORT_NAMES`), or what ``names`` gives
    for it (a page's own short name, or a name that depends on the data, e.g. ``f"windows_{shape}"``).
    Every field a link carries (all but ``seed``, :func:`mvlab.ui.query.query_fields`) is mapped,
    except those in ``exclude`` (fields the page does not draw: a link naming them is ignored).
    The keys are the app's contract: kept values, tests and browser checks find widgets by them.

    Parameters
    ----------
    settings_cls : settings dataclass (:mod:`mvlab.experiments.settings`)
    prefix : str
        The page's prefix, e.g. ``"dvs"``.
    names : mapping field -> str, optional
        The part of a key after ``prefix_`` where it is not the field's name nor its short name.
    exclude : iterable of str
        Fields the page does not draw.

    Returns
    -------
    dict field name -> widget key, in the order of the fields.

    Examples
    --------
    >>> from mvlab.experiments.settings import DissimilaritySettings
    >>> keys = widget_keys(DissimilaritySettings, "dis", names={"kdn_k": "kdn"})
    >>> keys["measure"], keys["n_estimators"], keys["kdn_k"]
    ('dis_measure', 'dis_trees', 'dis_kdn')
    """
    names, exclude = dict(names or {}), set(exclude)
    fields = [f.name for f in query_fields(settings_cls)]
    unknown = sorted((set(names) | exclude) - set(fields))
    if unknown:
        raise ValueError(f"{settings_cls.__name__} has no field {unknown} (its fields: {fields}).")
    return {f: f"{prefix}_{names.get(f, SHORT_NAMES.get(f, f))}" for f in fields if f not in exclude}


def _field(settings_cls, name: str) -> dataclasses.Field:
    for f in dataclasses.fields(settings_cls):
        if f.name == name:
            return f
    raise ValueError(f"{settings_cls.__name__} has no field {name!r}.")


def field_default(settings_cls, name: str):
    """The default of a settings field (a tuple default as a list, as multiselects keep it)."""
    value = _field(settings_cls, name).default
    return list(value) if isinstance(value, tuple) else value


def field_range(settings_cls, name: str) -> tuple:
    """The inclusive bounds a settings field declares."""
    bounds = _field(settings_cls, name).metadata.get("range")
    if bounds is None:
        raise ValueError(f"{settings_cls.__name__}.{name} declares no range.")
    return bounds


def field_options(settings_cls, name: str) -> list:
    options = _field(settings_cls, name).metadata.get("options")
    if options is None:
        raise ValueError(f"{settings_cls.__name__}.{name} declares no options.")
    return list(options)


def field_help(settings_cls, name: str) -> str | None:
    """The help text a settings field declares (None when it has none), in the reader's language: each of its
    parts (the estimator's doc, the page's note, the narrowed range) translated, its numbers written for the
    language."""
    parts = _field(settings_cls, name).metadata.get("help_parts") or ()
    said = [gettext(message).format(**{k: format_number(v) for k, v in values.items()}) if values
            else gettext(message) for message, values in parts]
    return " ".join(said) or None


def _help(settings_cls, name: str, help: str | None) -> str | None:
    return help if help is not None else field_help(settings_cls, name)


def _kind(settings_cls, name: str):
    return settings_cls.field_types()[name]


def number(where, settings_cls, name: str, label: str, key: str, step=None, help: str | None = None, default=None,
           high=None):
    """``where.number_input`` for a numeric field: its range (its top lowered to ``high`` when the
    data allow less), its default (or ``default``, e.g. a value that depends on the data), its help."""
    low, top = field_range(settings_cls, name)
    high = top if high is None else min(top, high)
    kind = _kind(settings_cls, name)
    step = step if step is not None else (1 if kind is int else 0.05)
    value = field_default(settings_cls, name) if default is None else default
    return where.number_input(label, kind(low), kind(high), step=kind(step), help=_help(settings_cls, name, help),
                              **keep(key, kind(value)))


def slider(where, settings_cls, name: str, label: str, key: str, step, help: str | None = None):
    """``where.slider`` for a numeric field."""
    low, high = field_range(settings_cls, name)
    kind = _kind(settings_cls, name)
    return where.slider(label, kind(low), kind(high), step=kind(step), help=_help(settings_cls, name, help),
                        **keep(key, kind(field_default(settings_cls, name))))


def select(where, settings_cls, name: str, label: str, key: str, help: str | None = None, **kwargs):
    """``where.selectbox`` over a field's options."""
    return where.selectbox(label, field_options(settings_cls, name), help=_help(settings_cls, name, help),
                           **keep(key, field_default(settings_cls, name)), **kwargs)


def radio(where, settings_cls, name: str, label: str, key: str, help: str | None = None, **kwargs):
    """``where.radio`` over a field's options."""
    return where.radio(label, field_options(settings_cls, name), help=_help(settings_cls, name, help),
                       **keep(key, field_default(settings_cls, name)), **kwargs)


def multiselect(where, settings_cls, name: str, label: str, key: str, help: str | None = None, options=None,
                **kwargs):
    """``where.multiselect`` over a field's options (or ``options``, a subset the page offers)."""
    options = list(options) if options is not None else field_options(settings_cls, name)
    default = [o for o in field_default(settings_cls, name) if o in options] or list(options)
    return where.multiselect(label, options, help=_help(settings_cls, name, help), **keep(key, default), **kwargs)


def toggle(where, settings_cls, name: str, label: str, key: str, help: str | None = None):
    """``where.toggle`` for a boolean field."""
    return where.toggle(label, help=_help(settings_cls, name, help),
                        **keep(key, bool(field_default(settings_cls, name))))


def choice(where, label: str, options, key: str, default, kind: str = "selectbox", **kwargs):
    """A kept select box (or ``kind="radio"``) over options that depend on a result (its methods,
    classifiers, k): a kept value no longer offered falls back to ``default``, or to the first option."""
    options = list(options)
    fallback = default if default in options else options[0]
    kw = keep(key, fallback)
    if st.session_state[key] not in options:
        set_kept(key, fallback)
        st.session_state[key] = fallback
    return getattr(where, kind)(label, options, **kw, **kwargs)


class Form:
    """The widgets of one page's settings: each draws a field of ``settings_cls`` under the key the page maps it to
    (``keys``, :func:`widget_keys`), so a page's controls name only the field, the label and the place.

    ``ds`` (the sidebar's dataset) and ``seed`` (the sidebar's seed) are what controls depend on (a bound, a label);
    :meth:`settings` makes the settings object with that seed.
    """

    def __init__(self, settings_cls, keys: Mapping[str, str], ds=None, seed: int = 0):
        self.settings_cls, self.keys, self.ds, self.seed = settings_cls, dict(keys), ds, seed

    def number(self, where, name: str, label: str, **kwargs):
        """:func:`number` for the field ``name``."""
        return number(where, self.settings_cls, name, label, self.keys[name], **kwargs)

    def slider(self, where, name: str, label: str, step, **kwargs):
        """:func:`slider` for the field ``name``."""
        return slider(where, self.settings_cls, name, label, self.keys[name], step, **kwargs)

    def select(self, where, name: str, label: str, **kwargs):
        """:func:`select` for the field ``name``."""
        return select(where, self.settings_cls, name, label, self.keys[name], **kwargs)

    def radio(self, where, name: str, label: str, **kwargs):
        """:func:`radio` for the field ``name``."""
        return radio(where, self.settings_cls, name, label, self.keys[name], **kwargs)

    def multiselect(self, where, name: str, label: str, **kwargs):
        """:func:`multiselect` for the field ``name``."""
        return multiselect(where, self.settings_cls, name, label, self.keys[name], **kwargs)

    def toggle(self, where, name: str, label: str, **kwargs):
        """:func:`toggle` for the field ``name``."""
        return toggle(where, self.settings_cls, name, label, self.keys[name], **kwargs)

    def kept(self, name: str):
        """The kept value of the field's widget (what it shows, e.g. a choice drawn with the result), else the
        field's default."""
        return kept(self.keys[name], field_default(self.settings_cls, name))

    def settings(self, **values):
        """The settings object of these values and the sidebar's seed."""
        return self.settings_cls(seed=self.seed, **values)


def pending_choice(settings_cls, name: str, key: str):
    """The value the field ``name`` will have in this run, before its widget is drawn: the one a link being applied
    names when the field allows it, else the kept one, else the default (for a widget key that depends on another
    field, e.g. the methods of the Benchmark page's family). A link's value the field does not allow is not used."""
    value = kept(key, field_default(settings_cls, name))
    asked = links.pending(name, value)
    options = _field(settings_cls, name).metadata.get("options")
    return asked if options is None or asked in options else value


def resolve_keys(keys: Mapping[str, str], settings_cls, ds=None) -> dict[str, str]:
    """The widget keys of a page as they are in this run: ``keys`` (:func:`widget_keys`) with their parts in braces
    filled, ``{pending_<field>}`` by the value ``<field>`` will have (:func:`pending_choice`) and ``{shape_key}`` by
    the images' shape of ``ds`` (``"28x28"``; ``""`` for data that are not images).

    Examples
    --------
    >>> from mvlab.experiments.settings import BenchmarkSettings
    >>> keys = widget_keys(BenchmarkSettings, "bm", names={"methods": "methods_{pending_family}"})
    >>> keys["methods"]
    'bm_methods_{pending_family}'
    """
    shape = getattr(ds, "image_shape", None)
    values = {"shape_key": "x".join(map(str, shape)) if shape is not None else ""}
    for field in dataclasses.fields(settings_cls):
        if field.name in keys and any(f"{{pending_{field.name}}}" in k for k in keys.values()):
            values[f"pending_{field.name}"] = pending_choice(settings_cls, field.name, keys[field.name])
    return {name: key.format_map(values) for name, key in keys.items()}
