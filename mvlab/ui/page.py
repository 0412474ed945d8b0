"""A page is a declaration: :func:`run_page` runs it from its settings class and a view.

Every page of the dashboard does the same things in the same order: the sidebar, the header (title, caption and
"What am I looking at?", from the page's text files ``mvlab/ui/text/<page>/``: :func:`page_header`), the widgets of
its settings' fields (:class:`mvlab.ui.widgets.Form`, under the keys :func:`mvlab.ui.widgets.widget_keys` gives),
a link that restores them (:mod:`mvlab.ui.links`), the data the run needs built once (``settings.data``), the checks
before training (:func:`mvlab.ui.runs.checks`), the result looked up or trained
(:func:`mvlab.ui.runs.result_or_train`), then the view: a plain function of ``mvlab/ui/views/`` that draws one
result (its figures through :func:`mvlab.ui.figure_text.show_figure`). A page file declares a :class:`TrainingPage`
and hands it to :func:`run_page`; only what the page really has of its own (its controls, what it says before a
result, its view) is written for it. A page that trains no result of its own (the Data page, the Papers page, the
Benchmark page that browses the runs kept in the store) declares a :class:`Page`: the same sidebar, header, widgets
and link, then its view.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

import streamlit as st

from mvlab.datasets.container import MultiViewDataset
from mvlab.i18n import N_, _, said
from mvlab.ui import links, runs
from mvlab.ui.prose import page_text, text_names
from mvlab.ui.state import current_seed, set_kept, sidebar
from mvlab.ui.widgets import Form, resolve_keys

__all__ = ["HEADER", "EXPLANATION", "header_parts", "page_header", "Shown", "TrainingPage", "Page", "open_page",
           "run_data", "run_page", "result_part", "shown_part", "draw_part", "PARTIAL_NOTE", "STOPPED_NOTE"]

HEADER = "header"
"""The text of a page that holds its title (its first line, ``# Title``) and its caption (the rest)."""
EXPLANATION = "what_am_i_looking_at"
"""The text of a page shown in its "What am I looking at?" expander (where the page has one)."""


def header_parts(page: str) -> tuple[str, str]:
    """``(title, caption)`` of ``page`` from its header text (``mvlab/ui/text/<page>/header.md``): the first line
    without its ``#``, and the paragraphs under it.

    Raises
    ------
    ValueError
        When the text does not start with a ``# Title`` line.
    """
    first, _sep, rest = page_text(page, HEADER).partition("\n")
    if not first.startswith("# "):
        raise ValueError(f"mvlab/ui/text/{page}/{HEADER}.md must start with a '# Title' line, not {first[:40]!r}.")
    paragraphs = [" ".join(p.split()) for p in rest.strip().split("\n\n")]  # a text file's wrapped lines joined
    return first[2:].strip(), "\n\n".join(paragraphs)


def page_header(page: str) -> None:
    """The page's title and caption (:func:`header_parts`), then its "What am I looking at?" expander when the page
    has that text."""
    title, caption = header_parts(page)
    st.title(title)
    st.caption(caption)
    if EXPLANATION in text_names(page):
        with st.expander(_("What am I looking at?")):
            st.markdown(page_text(page, EXPLANATION))


@dataclass(frozen=True)
class Shown:
    """What a view draws one result with: the settings it was trained with, the data the run used (built once:
    the sidebar's dataset or the page's own, e.g. the region demo), the result's key (its figures are built once
    per server under it, :mod:`mvlab.ui.shared`) and the page's widget keys. On a :class:`Page` (nothing trained):
    the settings its controls return (None without settings), the sidebar's dataset and its fingerprint. ``part``:
    the view draws a partial result (:func:`draw_part`), and may leave its heaviest figures to the whole."""

    settings: Any
    data: MultiViewDataset
    key: str
    widgets: Mapping[str, str] = field(default_factory=dict)
    part: bool = False


@dataclass(frozen=True)
class TrainingPage:
    """A page that trains one experiment and shows its result.

    Parameters
    ----------
    name : str
        The page's file in pages/ and its folder of texts in mvlab/ui/text/ (e.g. ``"dvs"``).
    settings_cls : settings dataclass (:mod:`mvlab.experiments.settings`)
    result_type : type
        What the run returns, read back from the store with ``from_npz``.
    keys : mapping field -> widget key
        The page's widget keys (:func:`mvlab.ui.widgets.widget_keys`), parts in braces filled as the page runs
        (:func:`mvlab.ui.widgets.resolve_keys`).
    controls : callable Form -> settings
        Draws the page's widgets (:class:`mvlab.ui.widgets.Form`) and returns the settings they choose.
    view : callable (result, Shown) -> None
        Draws one result.
    waiting : callable Shown -> None
        What the page says while there is no result (before Train).
    train_key : str
        The key of the page's Train button (its Stop button's key starts with it).
    label : str
        What the run is called while it runs.
    summary : callable Shown -> None, optional
        Drawn above the Train button, with or without a result (what the run will build).
    """

    name: str
    settings_cls: type
    result_type: type
    keys: Mapping[str, str]
    controls: Callable[[Form], Any]
    view: Callable[[Any, Shown], None]
    waiting: Callable[[Shown], None]
    train_key: str
    label: str = "Training"
    summary: Callable[[Shown], None] | None = None


@dataclass(frozen=True)
class Page:
    """A page that trains no result of its own: it shows what is there (the sidebar's dataset, the runs kept in the
    results store, the papers' committed files).

    Parameters
    ----------
    name : str
        The page's file in pages/ and its folder of texts in mvlab/ui/text/ (e.g. ``"data"``).
    view : callable Shown -> None
        Draws the page below its header and widgets; ``shown.data`` is the sidebar's dataset, ``shown.key`` its
        fingerprint (what is built from it is built once per server under that key, :mod:`mvlab.ui.shared`).
    settings_cls, keys, controls : optional
        As for :class:`TrainingPage`, for a page with settings (the Benchmark page's family, datasets and sizes);
        ``shown.settings`` is what the controls return. Without them the link carries the sidebar's data alone and
        ``shown.settings`` is None.
    fragment : bool
        Whether the view is a fragment (:func:`shown_part`): for a view that starts and follows a run, so that its
        button, its Stop and its own widgets rerun it alone.
    """

    name: str
    view: Callable[[Shown], None]
    settings_cls: type | None = None
    keys: Mapping[str, str] = field(default_factory=dict)
    controls: Callable[[Form], Any] | None = None
    fragment: bool = False


def open_page(name: str, settings_cls, keys: Mapping[str, str],
              controls: Callable[[Form], Any]) -> tuple[MultiViewDataset, Any, dict[str, str]]:
    """The part every page with settings shares: the sidebar, the header, the widgets of the settings' fields under
    ``keys`` (:func:`mvlab.ui.widgets.resolve_keys`; a link's values applied to them first) and the link written
    back. Returns ``(the sidebar's dataset, settings, the widget keys of this run)``."""
    ds = sidebar(name)
    seed = current_seed()
    page_header(name)
    keys = resolve_keys(keys, settings_cls, ds)
    links.apply_page(settings_cls, keys, set_kept, seed)
    settings = controls(Form(settings_cls, keys, ds, seed))
    links.publish(settings)
    return ds, settings, keys


def run_data(settings, ds: MultiViewDataset) -> MultiViewDataset:
    """The data the run needs, built once for this request (``settings.data``: the region demo, the Madelon-like set,
    or the sidebar's dataset) and handed on to the checks, the run and the view. A set that cannot be generated is
    said in words (``st.error``) and the page stops."""
    if not hasattr(settings, "data"):
        return ds
    try:
        return settings.data(ds)
    except ValueError as exc:
        st.error(_("Cannot generate the page's data: {error}").format(error=exc))
        st.stop()


def run_page(page: TrainingPage | Page) -> None:
    """Run a page. A training page (:class:`TrainingPage`): :func:`open_page`, the data built once
    (:func:`run_data`), the checks (:func:`mvlab.ui.runs.checks`), then the result part (:func:`result_part`). Any
    other page (:class:`Page`): :func:`show_page`."""
    if isinstance(page, Page):
        show_page(page)
        return
    ds, settings, keys = open_page(page.name, page.settings_cls, page.keys, page.controls)
    data = run_data(settings, ds)
    runs.checks(settings, data)
    result_part(page, Shown(settings, data, runs.result_key(settings, data), keys))


PARTIAL_NOTE = N_("**Partial result, still computing**: {note} so far. The figures and their sentences below are "
                  "those of this part; they fill in as the rest comes.")
STOPPED_NOTE = N_("**Stopped: a partial result** ({note}), kept as it was when you pressed Stop. Nothing was stored; "
                  "press **Train** for the whole result.")


def draw_part(page: TrainingPage, shown: Shown, result, note: str, number: int, stopped: bool = False) -> None:
    """A partial result of the page's run (:func:`mvlab.ui.runs.follow`), said as one, drawn by the page's view
    under a key of its own (a part's figures are never taken for the whole's)."""
    st.info(_(STOPPED_NOTE if stopped else PARTIAL_NOTE).format(note=said(note)), icon=":material/pending:")
    page.view(result, replace(shown, key=f"{shown.key}#part{number}", part=True))


def _draw_result(page: TrainingPage, shown: Shown) -> None:
    """The page's summary, its result looked up or trained (Train, progress, Stop; the run's partial results drawn
    as they come), then its view; else the partial result kept from a run stopped, or what it says before a
    result."""
    if page.summary is not None:
        page.summary(shown)
    result = runs.result_or_train(shown.settings, shown.data, page.result_type, page.train_key, label=page.label,
                                  draw_partial=lambda r, note, number: draw_part(page, shown, r, note, number))
    if result is not None:
        page.view(result, shown)
    elif (kept := runs.kept_partial(page.train_key, shown.key)) is not None:
        number, note, part = kept
        draw_part(page, shown, part, note, number, stopped=True)
    else:
        page.waiting(shown)


result_part = runs.training_part(_draw_result)
"""The result part of a page (:func:`_draw_result`) as a fragment: Train, Stop and a widget of the result rerun it
alone (:func:`mvlab.ui.runs.training_part`)."""


def show_page(page: Page) -> None:
    """Run a page that trains nothing of its own (:class:`Page`): the sidebar, the header, its widgets when it has
    settings (:func:`open_page`; else the link of the sidebar's data written back), then its view, as a fragment
    when the page asks for one (:func:`shown_part`)."""
    if page.settings_cls is None:
        ds, settings, keys = sidebar(page.name), None, {}
        page_header(page.name)
        links.publish()
    else:
        ds, settings, keys = open_page(page.name, page.settings_cls, page.keys, page.controls)
    shown = Shown(settings, ds, ds.fingerprint(), keys)
    (shown_part if page.fragment else _draw_view)(page, shown)


def _draw_view(page: Page, shown: Shown) -> None:
    """The page's view."""
    page.view(shown)


shown_part = runs.training_part(_draw_view)
"""The view of a :class:`Page` as a fragment (:func:`mvlab.ui.runs.training_part`): its button, its Stop and its
widgets rerun it alone."""
