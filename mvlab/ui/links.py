"""Shareable state: the dataset, the seed and the page's settings round-trip through the URL.

Every page writes its state into the address (``?dataset=digits&seed=3&k=9``) when it changes,
so a reload or a link sent to someone opens the same data and settings, and a result already in
the results store shows at once.  On the first run of a session, or whenever the address holds
something this session did not write (a pasted link), the query is read back into the widgets
before they are drawn; a value that does not fit falls back to the default with a note that
names the parameter.  An uploaded file cannot travel in a link: the link says so.

Data parameters: ``dataset`` (a bundled name, ``synthetic`` or ``upload``), ``n`` (sample size
of a bundled dataset), ``seed``, and for synthetic data ``syn_n``, ``syn_views``,
``syn_features``, ``syn_classes``, ``syn_p``, ``syn_sep``, ``syn_noise``, ``syn_relevance``.
The page's parameters are the fields of its settings object
(:mod:`mvlab.experiments.settings`), each mapped to the key of the widget that sets it.
"""

from __future__ import annotations

from typing import Mapping
from urllib.parse import urlencode, urlsplit

import streamlit as st

import mvlab.datasets as datasets
from mvlab.i18n import _
from mvlab.ui import language
from mvlab.ui.prose import markdown_literal
from mvlab.ui.query import parse_value, settings_from_query, settings_to_query

__all__ = ["start", "apply_page", "pending", "publish", "share_box", "settings_link", "SYNTHETIC"]

_WRITTEN = "_url_written"   # the query this session last wrote (or read)
_PENDING = "_url_pending"   # a query to apply in this run (new to this session)
_NOTES = "_url_notes"

SYNTHETIC = {  # query key -> (widget key, type, (low, high) or options, default)
    "syn_n": ("syn_n", int, (20, 200_000), 300),
    "syn_classes": ("syn_classes", int, (2, 10), 3),
    "syn_views": ("syn_views", int, (1, 10), 3),
    "syn_features": ("syn_features", int, (1, 200), 10),
    "syn_p": ("syn_p", float, (0.05, 1.0), 0.5),
    "syn_sep": ("syn_sep", float, (0.0, 6.0), 2.0),
    "syn_noise": ("syn_noise", str, ("random-class", "gaussian"), "random-class"),
    "syn_relevance": ("syn_relevance", str, ("iid", "region"), "iid"),
}
SOURCE_OF = {"synthetic": "Synthetic", "upload": "Upload CSV"}


def _current_query() -> dict:
    return {k: st.query_params.get_all(k) if len(st.query_params.get_all(k)) > 1 else st.query_params[k]
            for k in st.query_params.keys()}


def start(set_kept) -> None:
    """At the start of every page run (before any widget): if the address holds a query this
    session did not write, remember it for this run and apply its data part."""
    query = _current_query()
    st.session_state[_PENDING] = None
    st.session_state[_NOTES] = []
    if not query or query == st.session_state.get(_WRITTEN):
        return
    st.session_state[_PENDING] = query
    st.session_state[_WRITTEN] = query
    notes = st.session_state[_NOTES]
    names = datasets.list_datasets()
    dataset = query.get("dataset")
    if dataset is not None:
        if dataset in names:
            set_kept("dataset_source", "Bundled")
            set_kept("bundled_name", dataset)
            if "n" in query:
                info = datasets.dataset_info(dataset)
                n = _value(query["n"], int, (min(info.n_samples, 4 * info.n_classes), info.n_samples), "n", notes)
                if n is not None:
                    set_kept(f"bundled_n_{dataset}", n)
        elif dataset in SOURCE_OF:
            set_kept("dataset_source", SOURCE_OF[dataset])
            if dataset == "upload":
                notes.append("The link named an uploaded file: files cannot travel in a link, so upload it again "
                             "(the sidebar's Upload CSV) or pick another dataset.")
        else:
            notes.append(f"'dataset={dataset}' was ignored (not one of {names + list(SOURCE_OF)}); "
                         "using the sidebar's dataset.")
    if "seed" in query:
        seed = _value(query["seed"], int, (0, 2**31 - 1), "seed", notes)
        if seed is not None:
            set_kept("seed", seed)
    for key, (widget, kind, allowed, _default) in SYNTHETIC.items():
        if key in query:
            value = _value(query[key], kind, allowed, key, notes)
            if value is not None:
                set_kept(widget, value)


def _value(raw, kind, allowed, key, notes):
    """``raw`` parsed by the settings' parser (:func:`mvlab.ui.query.parse_value`), or
    None with a note naming the parameter."""
    try:
        return parse_value(raw, kind, options=allowed if kind is str else None,
                           bounds=None if kind is str else allowed)
    except ValueError as exc:
        notes.append(f"'{key}={raw}' was ignored ({exc}).")
        return None


def pending(name: str, default=None):
    """The raw value of ``name`` in a link being applied in this run (a pasted or shared address),
    else ``default``: for a widget whose key depends on another setting (e.g. the Benchmark
    page's methods depend on the family the link names)."""
    return (st.session_state.get(_PENDING) or {}).get(name, default)


def apply_page(settings_cls, widgets: Mapping[str, str], set_kept, seed: int = 0) -> None:
    """Apply the page's part of a new query: every field of ``settings_cls`` found in it sets the
    kept value of its widget (``widgets`` maps field name -> widget key); call before drawing them."""
    query = st.session_state.get(_PENDING)
    if not query:
        return
    page_query = {k: v for k, v in query.items() if k in widgets}
    if not page_query:
        return
    settings, notes = settings_from_query(settings_cls, page_query, seed=seed)
    st.session_state[_NOTES] += notes
    for field, widget in widgets.items():
        if field in page_query:
            value = getattr(settings, field)
            set_kept(widget, list(value) if isinstance(value, tuple) else value)


def data_query(ds_source: str, ds_name: str | None, n: int | None, seed: int, synthetic: Mapping | None) -> dict:
    """The data part of the query for the sidebar's current choice."""
    out: dict = {"seed": str(seed)}
    if ds_source == "Bundled" and ds_name:
        out["dataset"] = ds_name
        if n is not None:
            out["n"] = str(n)
    elif ds_source == "Synthetic":
        out["dataset"] = "synthetic"
        for key, (widget, *_rest) in SYNTHETIC.items():
            if synthetic and widget in synthetic:
                out[key] = str(synthetic[widget])
    else:
        out["dataset"] = "upload"
    return out


def publish(settings=None) -> dict:
    """Write the data and page settings into the address (when they changed); returns the query.
    Shows the notes of a query read in this run, if any."""
    query = dict(st.session_state.get("_data_query", {}))
    if settings is not None:
        query.update(settings_to_query(settings))
    query.update(language.query())
    if query != _current_query():
        st.query_params.from_dict(query)
    st.session_state[_WRITTEN] = query
    share_box(query, uploaded=query.get("dataset") == "upload")
    notes = st.session_state.get(_NOTES) or []
    if notes:
        st.info(_("Some settings of the link were not used:") + "\n\n" + "\n".join(f"- {markdown_literal(n)}"
                                                                                for n in notes))
        st.session_state[_NOTES] = []
    return query


def share_box(query: Mapping, uploaded: bool) -> None:
    """A link that reopens this page with these data and settings (copy it with the code box's button)."""
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001 - outside a browser session (tests): a relative link
        url = ""
    parts = urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else (parts.path or "")
    with st.sidebar.expander(_("Share these settings")):
        st.code(f"{base}?{urlencode(query)}", language=None)
        if uploaded:
            st.caption(_("An uploaded file cannot travel in a link: whoever opens it must upload the same file."))
        else:
            st.caption(_("The link opens the same data, seed and page settings; results already computed show at "
                         "once."))


def settings_link(page: str, settings, data: Mapping[str, object] | None = None) -> str:
    """A relative link that opens ``page`` (its url path, e.g. ``"siamese"``) with ``data`` (e.g.
    ``{"dataset": "ecoli"}``) and the page's ``settings``, as the page itself would write them."""
    query = {**{k: str(v) for k, v in (data or {}).items()}, **settings_to_query(settings)}
    return f"{page}?{urlencode(query)}"
