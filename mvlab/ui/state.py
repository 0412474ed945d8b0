"""Session state shared by every page: the sidebar's dataset and global seed.

Every page starts with :func:`sidebar`, which draws the dataset and seed controls.  A widget
that a page draws is a new widget on the next page, so its value is kept in a shadow dict
(``st.session_state["_kept"]``): :func:`keep` seeds the widget from it before drawing and an
``on_change`` callback writes the user's choice back.  (Widgets drawn by the ``app.py``
entry point would persist by themselves in a browser, but ``AppTest`` cannot drive them after
the first run, and every page must be testable.)  The dataset actually in use lives in
``st.session_state["_dataset"]`` and changes only when a new choice loads without error, so a
broken upload shows an ``st.error`` and leaves the previous dataset usable.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import streamlit as st

import mvlab.datasets as datasets
from mvlab.datasets.container import MultiViewDataset
from mvlab.i18n import N_, _, format_list, ngettext
from mvlab.ui import language, links
from mvlab.ui.engine_panel import server_panel, your_run
from mvlab.ui.prose import markdown_literal

SOURCES = (N_("Bundled"), N_("Synthetic"), N_("Upload CSV"))
DEFAULT_SAMPLE = 600
"""Bundled datasets larger than this start as a stratified sample of 600 (the DVS paper uses
600 mfeat instances); the sidebar can raise it to the full size."""

_ACTIVE = "_dataset"
_UPLOADS = "_uploads"
_KEPT = "_kept"


def _remember(key: str) -> None:
    st.session_state[_KEPT][key] = st.session_state[key]


def keep(key: str, default) -> dict:
    """Widget keyword arguments that make its value survive page switches.

    Usage: ``st.slider("k", 1, 20, **keep("dvs_k", 7))`` (pass no ``value=``: the value
    comes from the session)."""
    kept = st.session_state.setdefault(_KEPT, {})
    st.session_state[key] = kept.setdefault(key, default)
    return {"key": key, "on_change": _remember, "args": (key,)}


@st.cache_resource(show_spinner="Loading dataset…", max_entries=16)
def _bundled_whole(name: str) -> MultiViewDataset:
    return datasets.load_dataset(name)


@st.cache_resource(show_spinner=False, max_entries=32)
def _bundled_sample(name: str, n_samples: int, seed: int) -> MultiViewDataset:
    return _bundled_whole(name).stratified_sample(n_samples, random_state=seed)


def bundled_dataset(name: str, n_samples: int, seed: int) -> MultiViewDataset:
    """A bundled dataset, or a stratified sample of it (datasets are immutable: safe to share).

    The whole dataset is read once per server, whatever the seed (a class on as many seeds as
    students read the file once, not once per student)."""
    ds = _bundled_whole(name)
    return ds if n_samples >= ds.n_samples else _bundled_sample(name, n_samples, seed)


@st.cache_resource(show_spinner="Generating data…", max_entries=32)
def synthetic_dataset(n_samples: int, n_views: int, n_features: int, n_classes: int,
                      p_informative: float, class_sep: float, noise: str, seed: int,
                      relevance: str = "iid") -> MultiViewDataset:
    """Synthetic multi-view data (:func:`mvlab.datasets.make_multiview_classification`), generated once
    per server for every set of parameters (datasets are immutable: safe to share)."""
    return datasets.make_multiview_classification(
        n_samples, n_views, n_features, n_classes, p_informative=p_informative, class_sep=class_sep,
        noise=noise, relevance=relevance, random_state=seed,
    )


def kept(key: str, default=None):
    """The kept value of a widget (what it will show), or ``default`` when it has none yet."""
    return st.session_state.get(_KEPT, {}).get(key, default)


def set_kept(key: str, value) -> None:
    """Change a kept widget's value from code (before the widget is drawn in this run)."""
    st.session_state.setdefault(_KEPT, {})[key] = value


def selected_point(chart_key: str) -> int | None:
    """The ``customdata`` of the first selected point of a plotly chart drawn with
    ``on_select="rerun"``, or None.  Browsers send it as ``{"0": 26}``, AppTest as ``[26]`` or
    ``26``; points without customdata (other traces) are skipped."""
    event = st.session_state.get(chart_key)
    try:
        points = event["selection"]["points"]
    except (KeyError, TypeError):
        return None
    for point in points:
        data = point.get("customdata") if isinstance(point, dict) else None
        if isinstance(data, dict):
            data = next(iter(data.values()), None)
        if isinstance(data, (list, tuple)):
            data = data[0] if data else None
        if data is not None:
            return int(data)
    return None


def current_dataset() -> MultiViewDataset:
    """The dataset in use (the sidebar sets it; the first bundled dataset until then)."""
    if _ACTIVE not in st.session_state:
        st.session_state[_ACTIVE] = bundled_dataset(datasets.list_datasets()[0], DEFAULT_SAMPLE, 0)
    return st.session_state[_ACTIVE]


def current_seed() -> int:
    """The global random seed chosen in the sidebar."""
    return int(st.session_state.get("seed", 0))


def sidebar(page: str | None = None) -> MultiViewDataset:
    """Draw the dataset and seed controls; return the dataset in use.

    ``page`` is the page's name (its file in pages/, e.g. ``"dvs"``); by default the file that called this
    function. Reads a new query of the address into the widgets first (:mod:`mvlab.ui.links`); the page
    then calls :func:`mvlab.ui.links.publish` to write the current state back."""
    _route_through_app(page or _caller_page())
    language.choose()
    links.start(set_kept)
    with st.sidebar:
        language.switch()
        st.header(_("Data"))
        source = st.radio(_("Source"), SOURCES, horizontal=True, format_func=_, **keep("dataset_source", SOURCES[0]))
        st.number_input(_("Random seed"), min_value=0, max_value=2**31 - 1, step=1, **keep("seed", 0),
                        help=_("Every random choice (sampling, splits, forests) derives from this seed."))
        chosen = None
        if source == "Bundled":
            chosen = _bundled_controls()
        elif source == "Synthetic":
            chosen = _synthetic_controls()
        else:
            chosen = _upload_controls()
        if chosen is not None:
            st.session_state[_ACTIVE] = chosen
        ds = current_dataset()
        st.caption(_("In use: **{name}**: {shape}.").format(name=ds.name, shape=shape_in_words(
            ds.n_samples, ds.n_features, ds.n_views, ds.n_classes)))
        your_run()
        server_panel()
    name = st.session_state.get("bundled_name")
    st.session_state["_data_query"] = links.data_query(
        source, name, st.session_state.get(f"bundled_n_{name}"), current_seed(),
        {w: st.session_state.get(w) for w, *_ in links.SYNTHETIC.values()})
    return ds


def _caller_page() -> str:
    """The page whose file called the caller of this function: a page (``pages/dvs.py`` -> ``"dvs"``) or its view
    (``mvlab/ui/views/lessons_page.py`` -> ``"lessons"``), from its frame's file name, read directly
    (``inspect.stack()`` reads the source of every frame: about 40 ms a page run, the largest part of the server's
    CPU per student under a class's load)."""
    return Path(sys._getframe(2).f_code.co_filename).stem.removesuffix("_page")


def _route_through_app(page: str) -> None:
    """A deep link (e.g. /data) that reaches a fresh server before app.py ever ran is served in
    Streamlit's legacy pages/ mode, without our navigation; go through the entry point, keeping the
    query and the page asked for (app.py switches to it)."""
    if not st.session_state.get("_entered_via_app"):
        st.switch_page("app.py", query_params={**st.query_params.to_dict(), "page": page})


def enter_through_app() -> None:
    """First thing on a page that reads its address itself (the Lessons page): a deep link that reached a fresh
    server goes through the entry point now (:func:`_route_through_app`), with the address as the reader gave it,
    before the page rewrites it (the notes on its values were lost with the rewritten address before)."""
    _route_through_app(_caller_page())


def plain_sidebar(server: bool = True) -> None:
    """The sidebar of a page that brings its own data (the Lessons page): this session's run and, unless
    ``server`` is False (a student in a class round: a phone, one of hundreds), the server panel; no dataset
    controls."""
    _route_through_app(_caller_page())
    language.choose()
    with st.sidebar:
        language.switch()
        st.caption(_("Lessons bring their own data and seeds; the dataset chosen on the other pages is not used here."))
        your_run()
        if server:
            server_panel()


def _short_title(name: str) -> str:
    """What a narrow select box shows in full (the browser test checks): the name and the views;
    the caption under it gives the title and the shape."""
    n_views = datasets.dataset_info(name).n_views
    return f"{name} · " + ngettext("{n} view", "{n} views", n_views).format(n=n_views)


def shape_in_words(n_samples: int, n_features: int, n_views: int | None, n_classes: int) -> str:
    """"600 instances, 649 features, 6 views, and 10 classes" in the language being served (each count by its own
    plural rule; the views left out when ``n_views`` is None)."""
    parts = [ngettext("{n} instance", "{n} instances", n_samples).format(n=n_samples),
             ngettext("{n} feature", "{n} features", n_features).format(n=n_features)]
    if n_views is not None:
        parts.append(ngettext("{n} view", "{n} views", n_views).format(n=n_views))
    parts.append(ngettext("{n} class", "{n} classes", n_classes).format(n=n_classes))
    return format_list(parts)


def _bundled_controls() -> MultiViewDataset:
    names = datasets.list_datasets()
    name = st.selectbox(_("Dataset"), names, **keep("bundled_name", names[0]),
                        format_func=_short_title)
    info = datasets.dataset_info(name)
    st.caption(f"{_(info.title)}: " + shape_in_words(info.n_samples, info.n_features, None, info.n_classes))
    default = min(info.n_samples, DEFAULT_SAMPLE)
    n = st.number_input(
        _("Instances (stratified sample)"), min_value=min(info.n_samples, 4 * info.n_classes),
        max_value=info.n_samples, step=50, **keep(f"bundled_n_{name}", default),
        help=ngettext("{name} has {n} instance; a smaller stratified sample trains faster.",
                      "{name} has {n} instances; a smaller stratified sample trains faster.",
                      info.n_samples).format(name=name, n=info.n_samples),
    )
    return bundled_dataset(name, int(n), current_seed())


def _synthetic_number(where, query_key: str, label: str, step, help: str | None = None):
    """A number box of the synthetic generator, its bounds and default from :data:`links.SYNTHETIC`
    (the one table the links are checked against)."""
    widget, kind, (low, high), default = links.SYNTHETIC[query_key]
    return where.number_input(_(label), kind(low), kind(high), step=kind(step), help=help and _(help),
                              **keep(widget, default))


def _synthetic_slider(query_key: str, label: str, step, help: str | None = None):
    widget, kind, (low, high), default = links.SYNTHETIC[query_key]
    return st.slider(_(label), kind(low), kind(high), step=kind(step), help=help and _(help), **keep(widget, default))


def _synthetic_choice(query_key: str, label: str, titles: dict, help: str | None = None):
    widget, _kind, options, default = links.SYNTHETIC[query_key]
    return st.selectbox(_(label), list(options), format_func=lambda o: _(titles[o]), help=help and _(help),
                        **keep(widget, default))


def _synthetic_controls() -> MultiViewDataset:
    c1, c2 = st.columns(2)
    n = _synthetic_number(c1, "syn_n", N_("Instances"), 50)
    classes = _synthetic_number(c2, "syn_classes", N_("Classes"), 1)
    views = _synthetic_number(c1, "syn_views", N_("Views"), 1)
    features = _synthetic_number(c2, "syn_features", N_("Features per view"), 1)
    relevance = _synthetic_choice(
        "syn_relevance", N_("Which views carry the class"),
        {"iid": N_("independently per instance"), "region": N_("depends on a latent region")},
        help=N_("Independently: a random draw per instance and view (no rule can find them from x). Region: view q "
                "carries the class in latent region q, visible in every view (dynamic selection's premise)."))
    p = links.SYNTHETIC["syn_p"][3]
    if relevance == "iid":
        p = _synthetic_slider("syn_p", N_("P(view is informative)"), 0.05,
                              help=N_("For each instance and view, the chance that the view shows the instance's "
                                      "class."))
    sep = _synthetic_slider("syn_sep", N_("Class separation"), 0.25)
    noise = _synthetic_choice("syn_noise", N_("Uninformative views show"),
                              {"random-class": N_("a random class (misleading)"), "gaussian": N_("pure noise")})
    try:
        return synthetic_dataset(int(n), int(views), int(features), int(classes), float(p), float(sep), noise,
                                 current_seed(), relevance)
    except ValueError as exc:
        st.error(_("Cannot generate this synthetic dataset: {error}").format(error=exc))
        return None


def _upload_controls() -> MultiViewDataset | None:
    st.caption(_(
        "CSV with a header: one label column and feature columns named `view.feature` (e.g. `gene.ACAT1`, "
        "`lipid.C16.0`). Limit {megabytes} MB. Results on your file are kept only for sessions that upload the same "
        "file.").format(megabytes=datasets.MAX_UPLOAD_BYTES // 2**20))
    label = st.text_input(_("Label column"), **keep("upload_label", "label"),
                          help=_("The name of the column that holds the labels."))
    file = st.file_uploader(_("CSV file"), type=["csv", "gz", "txt"], key="upload_file")
    uploads: dict = st.session_state.setdefault(_UPLOADS, {})
    if file is None:
        result = uploads.get("last")
        if result is not None:
            st.caption(_("Using the last uploaded file, **{name}**.").format(name=markdown_literal(result.name)))
    else:
        data = file.getvalue()
        key = (hashlib.sha256(data).hexdigest(), label)
        if key not in uploads:
            try:
                uploads[key] = datasets.read_multiview_csv(data, label_column=label, name=file.name, origin="upload",
                                                            max_bytes=datasets.MAX_UPLOAD_BYTES)
            except ValueError as exc:
                uploads[key] = exc
        result = uploads[key]
        if isinstance(result, ValueError):
            st.error(_("The file was not loaded.") + f" {result}")
            st.caption(_("Still using **{name}**.").format(name=markdown_literal(current_dataset().name)))
            return None
        uploads["last"] = result
    if result is not None and st.button(_("Forget this data"), key="upload_forget",
                                        help=_("Delete every result computed on this file from the results store "
                                               "and stop using it in this session.")):
        forget_upload(result)
        return None
    return result


def forget_upload(ds: MultiViewDataset) -> int:
    """Delete the stored runs (results, artifacts) on these uploaded data and drop them from this
    session: its cached results, its upload; the session goes back to the default dataset."""
    from mvlab.ui.runs import forget_cached, results_store

    removed = results_store().forget(ds.fingerprint())
    forget_cached(ds)
    uploads = st.session_state.setdefault(_UPLOADS, {})
    for key in [k for k, v in uploads.items() if v is ds or (isinstance(v, MultiViewDataset) and
                                                             v.fingerprint() == ds.fingerprint())]:
        del uploads[key]
    if st.session_state.get(_ACTIVE) is ds:
        del st.session_state[_ACTIVE]
    st.success(ngettext("Forgot {name}: {n} stored run deleted.", "Forgot {name}: {n} stored runs deleted.",
                        removed).format(name=markdown_literal(ds.name), n=removed))
    return removed
