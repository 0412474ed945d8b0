"""Streamlit's insides, behind one door: every part of Streamlit that is not its public API and that mvlab uses.

Streamlit has no public way for a server to rerun one of its sessions, to send an element built once to many
sessions, to say whether a click waits for the run in progress, whether a closed tab's session is gone, or where the
app's main script lives. mvlab uses Streamlit's private parts for these, and a Streamlit release is the likeliest
thing to break mvlab. So this module is the only one of mvlab that imports from Streamlit's private modules
(``streamlit.runtime``, ``streamlit.elements``, ``streamlit.proto``, ``streamlit.delta_generator``,
``streamlit.string_util``) or reads a private attribute of Streamlit's, and it lists every part it uses in
:data:`FEATURES`, by the feature that uses it, each feature with the one line that says what falls back when one of
its parts is missing:

==================  =================================================================================================
feature             without it
==================  =================================================================================================
``wake``            a class round's student pages look for changes on a timer instead of being woken by the server
``built_once``      a figure or text a class shares is built by ``st.plotly_chart`` / ``st.markdown`` in every session
``waiting_click``   a Stop pressed while a page follows its run takes effect when the run ends
``session_alive``   a run whose tab was closed is not released early: it runs to its end unless someone presses Stop
``server_process``  the web process's own numerical work is not held to one BLAS thread nor its imports frozen out
                    of the garbage collector, and the pages' list is made anew at every run
``launch``          the launcher (:mod:`mvlab.ui.launch`) hands over to ``python -m streamlit``: the engine's workers
                    start at the first page, as under a plain ``streamlit run``
==================  =================================================================================================

One more private part is a file, not a name: the front end's chart and table code, built by Streamlit as modules
``static/static/js/<Name>.<hash>.js`` beside its package (:func:`frontend_modules`). A page asks the browser to load
them while the reader looks at it (:mod:`mvlab.ui.preload`); without them (a Streamlit that builds them otherwise)
nothing is loaded ahead, and the first figure of a tab loads its code when it is drawn, as Streamlit does.

:func:`check` looks at every part once, when the server starts (``app.py`` -> :func:`mvlab.ui.web_process.settle`),
and logs one line per feature that lost a part; every caller asks :func:`usable` (checked once per process) before it
touches a feature's parts and takes the public fallback when it says no. A part that passed the check but fails
while the server runs turns its feature off for the rest of the process (:func:`lost`, said once in the log), never a
traceback. ``tests/test_streamlit_insides.py`` fails on the installed Streamlit if a part is gone, fails if this
module uses a part it does not list, takes each part away in turn and sees its feature turned off, and checks each
feature's fallback; ``tests/test_layout.py`` fails when another module of mvlab imports a private part.
"""

from __future__ import annotations

import dis
import importlib
import inspect
import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import plotly.graph_objects as go
import streamlit as st

from mvlab.core.memo import Memo

__all__ = ["FEATURES", "Feature", "frontend_modules", "missing_parts", "missing", "usable", "check", "lost",
           "server_runtime", "a_real_server", "current_session", "current_fragment", "session_connected",
           "rerun_sessions", "session_alive", "a_click_waits", "main_script_parent", "place", "built_chart",
           "built_markdown", "send", "import_elements", "streamlit_command", "SCRIPT_RUN_LOG"]

_SCRIPT_RUN = "streamlit.runtime.scriptrunner_utils.script_run_context"
SCRIPT_RUN_LOG = _SCRIPT_RUN
"""The logger under which Streamlit warns of a thread without a script run (a name, not a part: were it renamed,
the warning would show in the log again, nothing else)."""


@dataclass(frozen=True)
class Feature:
    """A feature of mvlab that uses Streamlit's insides: its ``parts`` as (module, dotted path in it), and what
    falls back when one is missing (``without``, one line)."""

    parts: tuple[tuple[str, str], ...]
    without: str


FEATURES: dict[str, Feature] = {
    "wake": Feature((
        ("streamlit.runtime", "Runtime.exists"),
        ("streamlit.runtime", "Runtime.instance"),
        ("streamlit.runtime", "Runtime.get_app_session"),
        ("streamlit.runtime", "Runtime._get_async_objs"),
        ("streamlit.runtime.runtime", "AsyncObjects.eventloop"),
        ("streamlit.runtime.app_session", "AppSession.request_rerun"),
        ("streamlit.runtime.app_session", "AppSession.has_fragment"),
        ("streamlit.runtime.app_session", "AppSession._scriptrunner"),
        ("streamlit.runtime.app_session", "AppSession._client_state"),
        ("streamlit.runtime.scriptrunner", "get_script_run_ctx"),
        (_SCRIPT_RUN, "ScriptRunContext.session_id"),
        (_SCRIPT_RUN, "ThreadState.get"),
        (_SCRIPT_RUN, "FragmentThreadState.fragment_id"),
        ("streamlit.proto.ClientState_pb2", "ClientState.fragment_id"),
        ("streamlit.proto.ClientState_pb2", "ClientState.is_auto_rerun"),
    ), "the server cannot wake sessions: a class round's student pages look for changes on a timer instead"),
    "built_once": Feature((
        ("streamlit", "_main"),
        ("streamlit.delta_generator", "DeltaGenerator._enqueue"),
        ("streamlit.delta_generator", "DeltaGenerator._active_dg"),
        ("streamlit.delta_generator", "DeltaGenerator._root_container"),
        ("streamlit.elements.lib.agent_spec", "element"),
        ("streamlit.elements.lib.form_utils", "current_form_id"),
        ("streamlit.elements.lib.layout_utils", "LayoutConfig"),
        ("streamlit.elements.lib.layout_utils", "create_layout_config"),
        ("streamlit.elements.markdown", "MarkdownProto.Type.NATIVE"),
        ("streamlit.elements.lib.utils", "compute_and_register_element_id"),
        ("streamlit.elements.lib.utils", "normalize_alt"),
        ("streamlit.elements.plotly_chart", "_plotly_data"),
        ("streamlit.elements.plotly_chart", "_resolve_content_height"),
        ("streamlit.elements.plotly_chart", "_resolve_content_width"),
        ("streamlit.proto.PlotlyChart_pb2", "PlotlyChart"),
        ("streamlit.string_util", "clean_text"),
        (_SCRIPT_RUN, "ThreadState.get"),
        (_SCRIPT_RUN, "FragmentThreadState.active_script_hash"),
    ), "figures and texts a class shares are built by st.plotly_chart and st.markdown in every session"),
    "waiting_click": Feature((
        ("streamlit.runtime.scriptrunner", "get_script_run_ctx"),
        (_SCRIPT_RUN, "ScriptRunContext.script_requests"),
        (_SCRIPT_RUN, "ScriptRunContext.fragment_ids_this_run"),
        ("streamlit.runtime.scriptrunner_utils.script_requests", "ScriptRequests._state"),
        ("streamlit.runtime.scriptrunner_utils.script_requests", "ScriptRequestType.RERUN"),
    ), "a Stop pressed while a page follows its run takes effect when the run ends"),
    "session_alive": Feature((
        ("streamlit.runtime", "Runtime.exists"),
        ("streamlit.runtime", "Runtime.instance"),
        ("streamlit.runtime", "Runtime.is_active_session"),
        ("streamlit.runtime.scriptrunner", "get_script_run_ctx"),
        (_SCRIPT_RUN, "ScriptRunContext.session_id"),
    ), "a run whose tab was closed is not released early: it runs to its end unless someone presses Stop"),
    "server_process": Feature((
        ("streamlit.runtime", "Runtime.exists"),
        ("streamlit.runtime", "Runtime.instance"),
        ("streamlit.runtime.scriptrunner", "get_script_run_ctx"),
        (_SCRIPT_RUN, "ScriptRunContext.pages_manager"),
        ("streamlit.runtime.pages_manager", "PagesManager.main_script_parent"),
    ), "the web process's numerical work is not held to one BLAS thread nor its imports frozen out of the garbage "
       "collector, and the pages' list is made anew at every run"),
    "launch": Feature((
        ("streamlit.web.cli", "main"),
    ), "the launcher hands over to python -m streamlit: the engine's workers start at the first page, as under a "
       "plain streamlit run"),
}
"""Every part of Streamlit's insides mvlab uses, by feature: the modules this module imports from, and every
attribute it reads or calls on what they give. A class's attribute is there when the class has it, or when instances
get it: a field of a protobuf message, or an attribute its ``__init__`` stores (read from its bytecode, so that a
renamed ``self._client_state`` is seen without a session)."""

_CHECKED = Memo(None)
"""Each feature's missing parts, looked at once per process."""
_LOST: dict[str, str] = {}
"""The features a part of which failed while this process served (feature -> why): off from then on."""


def _instance_attributes(cls: type) -> set[str]:
    """The attributes an instance of ``cls`` has beyond its class's: a protobuf message's fields, and what its
    ``__init__`` stores (``self.name = ...``)."""
    names = set(getattr(getattr(cls, "DESCRIPTOR", None), "fields_by_name", ()))
    code = getattr(inspect.unwrap(cls.__init__), "__code__", None)
    if code is not None:
        names |= {i.argval for i in dis.get_instructions(code) if i.opname == "STORE_ATTR"}
    return names


def _has_part(module: str, path: str) -> bool:
    """Whether ``module`` imports and has ``path`` (dotted); anything failing on the way means no."""
    try:
        owner = importlib.import_module(module)
        *owners, name = path.split(".")
        for step in owners:
            owner = getattr(owner, step)
        return hasattr(owner, name) or (isinstance(owner, type) and name in _instance_attributes(owner))
    except Exception:  # noqa: BLE001 - a module that fails to import, in any way, is a part that is not there
        return False


def missing_parts(parts: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The ``parts`` this process's Streamlit lacks, as ``"module:path"`` (empty: all there), looked at now."""
    return tuple(f"{module}:{path}" for module, path in parts if not _has_part(module, path))


def missing(feature: str) -> tuple[str, ...]:
    """The parts of ``feature`` (a key of :data:`FEATURES`) this process's Streamlit lacks (looked at once)."""
    return _CHECKED.get(feature, lambda: missing_parts(FEATURES[feature].parts))


def usable(feature: str) -> bool:
    """Whether this process's Streamlit has every part of ``feature`` and none of them has failed since."""
    return feature not in _LOST and not missing(feature)


def check() -> list[str]:
    """Every feature's parts looked at (once per process; the server's start calls it): one line in the log per
    feature that lost a part, saying which and what falls back; the lines, also returned."""
    lines = [f"mvlab: this Streamlit lacks {', '.join(gone)}: {FEATURES[name].without}"
             for name in FEATURES if (gone := missing(name))]
    for line in lines:
        logging.getLogger(__name__).warning(line)
    return lines


def lost(feature: str, exc: BaseException) -> None:
    """A part of ``feature`` failed while the server ran: the feature is off from now on, said once in the log."""
    if feature not in _LOST:
        _LOST[feature] = f"{type(exc).__name__}: {exc}"
        logging.getLogger(__name__).warning("mvlab: Streamlit's %s failed (%s): from now on %s", feature,
                                            _LOST[feature], FEATURES[feature].without)


def frontend_modules(names: tuple[str, ...]) -> tuple[str, ...]:
    """The file names of the front end's modules ``names`` (e.g. ``"PlotlyChart"``) in this Streamlit's build:
    ``<Name>.<hash>.js`` in its ``static/static/js`` folder, each found once per process; a name this build lacks
    (or has twice) is left out."""
    return _MODULES.get(names, lambda: _find_modules(names))


def _find_modules(names: tuple[str, ...], folder: Path | None = None) -> tuple[str, ...]:
    folder = Path(st.__file__).parent / "static" / "static" / "js" if folder is None else folder
    found = []
    for name in names:
        # Name.hash.js, never Name.esm.hash.js; two of them and neither is sure
        files = [p.name for p in folder.glob(f"{name}.*.js") if p.name.count(".") == 2] if folder.is_dir() else []
        if len(files) == 1:
            found.append(files[0])
    return tuple(found)


_MODULES = Memo(None)


def streamlit_command(argv: list[str]) -> int:
    """Streamlit's command line (``run app.py ...``) in this process, so that a thread started before it goes on
    within the server (feature ``launch``); where this Streamlit lacks it, ``python -m streamlit`` replaces this
    process, said in the log."""
    if usable("launch"):
        from streamlit.web.cli import main

        sys.argv = ["streamlit", *argv]
        return main(prog_name="streamlit")
    logging.getLogger(__name__).warning("mvlab: this Streamlit lacks %s: %s", ", ".join(missing("launch")),
                                        FEATURES["launch"].without)
    os.execv(sys.executable, [sys.executable, "-m", "streamlit", *argv])
    return 1  # not reached: execv replaces the process


# ----------------------------------------------------------------------------------------------- the server and run
def server_runtime():
    """The runtime of the Streamlit server this process is, or None (no server, or AppTest's mock runtime)."""
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return None
        runtime = Runtime.instance()
    except (ImportError, AttributeError, RuntimeError):
        return None
    return runtime if type(runtime) is Runtime else None  # AppTest's runtime is a mock


def a_real_server() -> bool:
    """Whether this process is a real Streamlit server (not AppTest, not a plain script)."""
    return server_runtime() is not None


def _script_context():
    """The context of the script run in this thread, or None (outside one, or a Streamlit without it)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        return get_script_run_ctx()
    except (ImportError, AttributeError):
        return None


def in_a_script_run() -> bool:
    """Whether this thread runs a session's script (a page run, AppTest's too): where a session's state can be read.
    Asked quietly: a thread outside a run (the engine's, a command's) is no reason for a line in the server's log."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        return get_script_run_ctx(suppress_warning=True) is not None
    except (ImportError, AttributeError, TypeError):
        return False


def import_elements() -> None:
    """Streamlit's chart element module imported now (the web process imports what the pages' first run would,
    before it freezes its objects): nothing where this Streamlit has it elsewhere."""
    try:
        import streamlit.elements.plotly_chart  # noqa: F401
    except ImportError:
        pass


def main_script_parent() -> str:
    """The folder of the app's main script in this run ("" outside a run, or where this Streamlit keeps it
    elsewhere: ``server_process``)."""
    ctx = _script_context()
    try:
        return str(ctx.pages_manager.main_script_parent) if ctx is not None else ""
    except AttributeError:
        return ""


# ------------------------------------------------------------------------------------------------------------ wake
def current_session() -> str | None:
    """The id of the session whose script runs in this thread, or None outside a script run."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return None if ctx is None else ctx.session_id
    except (ImportError, AttributeError) as exc:
        lost("wake", exc)
        return None


def current_fragment() -> str:
    """The id of the fragment running in this thread ("" outside one, or where this Streamlit keeps it elsewhere:
    a wake then reruns the whole page instead, which is slower but right)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        return ThreadState.get().fragment_id or ""
    except (ImportError, RuntimeError, AttributeError):
        return ""


def session_connected(session_id: str) -> bool:
    """Whether the session still has a browser connected (a closed tab's session is let go; so is every session
    once the wake has failed: nobody is woken any more)."""
    runtime = server_runtime()
    if runtime is None or "wake" in _LOST:
        return False
    try:
        return runtime.get_app_session(session_id) is not None
    except AttributeError as exc:
        lost("wake", exc)
        return False


def _rerun_now(runtime, requests: dict[str, str], done: Callable[[dict[str, str]], None]) -> None:
    """On the event loop: rerun each settled session of ``requests`` (session id -> fragment id, "" for the
    whole page) from its saved client state; ``done`` gets the ones rerun, the ones gone ("gone"), and, where a
    part of Streamlit failed (the wake is then off), the ones not rerun ("failed")."""
    outcome = {}
    try:
        from streamlit.proto.ClientState_pb2 import ClientState

        for session_id, fragment in requests.items():
            session = runtime.get_app_session(session_id)
            if session is None:
                outcome[session_id] = "gone"
                continue
            if session._scriptrunner is not None:
                continue  # a run in progress (maybe the student's own click): looked at again next interval
            if fragment and not session.has_fragment(fragment):
                fragment = ""
            state = ClientState()
            state.CopyFrom(session._client_state)  # its address and page, as run on save reruns it
            state.fragment_id = fragment
            state.is_auto_rerun = False
            session.request_rerun(state)
            outcome[session_id] = "rerun"
    except (ImportError, AttributeError, TypeError, ValueError) as exc:  # a part renamed or changed in shape
        lost("wake", exc)
        outcome.update({s: "failed" for s in requests if s not in outcome})
    done(outcome)


def rerun_sessions(requests: dict[str, str], done: Callable[[dict[str, str]], None]) -> bool:
    """Ask the server's event loop to rerun these sessions (session id -> fragment id, or "" for the whole page),
    as Streamlit's own *run on save* does; ``done(outcome)`` is called there with ``{session id: "rerun" | "gone" |
    "failed"}`` (a busy session is left out: it is asked again later). False when this is no real server or the
    wake is off (nothing is asked)."""
    runtime = server_runtime()
    if runtime is None or not usable("wake"):
        return False
    try:
        loop = runtime._get_async_objs().eventloop
    except RuntimeError:  # the runtime has not started its loop yet: nothing to wake
        return False
    except AttributeError as exc:
        lost("wake", exc)
        return False
    loop.call_soon_threadsafe(_rerun_now, runtime, requests, done)
    return True


# ---------------------------------------------------------------------------------- session_alive, waiting_click
def session_alive() -> Callable[[], bool] | None:
    """``is_active()`` of this run's session, asked of the server (False once its browser has gone), or None where
    there is no server to ask (AppTest) or this Streamlit lacks a part (``session_alive``)."""
    runtime, ctx = server_runtime(), _script_context()
    if runtime is None or ctx is None or not usable("session_alive"):
        return None
    session_id = ctx.session_id

    def is_active() -> bool:
        try:
            return bool(runtime.is_active_session(session_id))
        except AttributeError as exc:
            lost("session_alive", exc)
            return True  # never released on a failing part: the run goes on, as without the feature

    return is_active


def a_click_waits() -> str | None:
    """Whether a rerun waits for this run to end (a click of the page during a full run, or of its fragment during a
    fragment run): the scope to rerun in (``"fragment"`` or ``"app"``), else None (none waits, or this Streamlit
    does not say: ``waiting_click``)."""
    ctx = _script_context()
    if ctx is None or not usable("waiting_click"):
        return None
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    if getattr(ctx.script_requests, "_state", None) != ScriptRequestType.RERUN:
        return None
    return "fragment" if ctx.fragment_ids_this_run else "app"


# ------------------------------------------------------------------------------------------------------ built_once
def place() -> tuple:
    """Where an element drawn now goes: the page, the form and the root container (an element built for one place
    is sent again only there)."""
    from streamlit.elements.lib.form_utils import current_form_id
    from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

    dg = st._main._active_dg
    return ThreadState.get().active_script_hash, current_form_id(dg), dg._root_container


def built_chart(figure: go.Figure, key: str, alt: str):
    """The chart's element and layout as ``st.plotly_chart(figure, key=key, alt=alt)`` builds them for this call
    here, with its defaults (its id registered in this run as Streamlit's own call registers it)."""
    import plotly.io
    from streamlit.elements.lib.form_utils import current_form_id
    from streamlit.elements.lib.layout_utils import LayoutConfig
    from streamlit.elements.lib.utils import compute_and_register_element_id, normalize_alt
    from streamlit.elements.plotly_chart import _resolve_content_height, _resolve_content_width
    from streamlit.proto.PlotlyChart_pb2 import PlotlyChart

    main = st._main
    element = PlotlyChart(theme="streamlit", form_id=current_form_id(main),
                          spec=plotly.io.to_json(figure.to_dict(), validate=False), config=json.dumps({}))
    said = normalize_alt(alt)
    if said is not None:
        element.alt = said
    element.id = compute_and_register_element_id(
        "plotly_chart", user_key=key, key_as_main_identity=False, dg=main, plotly_spec=element.spec,
        plotly_config=element.config, selection_mode=("points", "box", "lasso"), is_selection_activated=False,
        theme="streamlit", width="stretch", height="content", alt=said)
    shape = figure.to_dict()
    return element, LayoutConfig(width=_resolve_content_width("stretch", shape),
                                 height=_resolve_content_height("content", shape))


def built_markdown(body: str, unsafe_allow_html: bool):
    """The Markdown element and layout as ``st.markdown`` builds them for ``body``."""
    from streamlit.elements.lib.layout_utils import create_layout_config
    from streamlit.elements.markdown import MarkdownProto
    from streamlit.string_util import clean_text

    element = MarkdownProto(body=clean_text(body), allow_html=unsafe_allow_html,
                            element_type=MarkdownProto.Type.NATIVE, unterminated_parsing=False,
                            hide_anchors=False, wrap=True)
    return element, create_layout_config(text_alignment="left")


def send(kind: str, built: tuple[Any, Any], key: str | None = None) -> None:
    """Send an element built by :func:`built_chart` (``kind="plotly_chart"``, with its ``key``) or
    :func:`built_markdown` (``"markdown"``) in this run, as Streamlit's own call sends it."""
    from streamlit.elements.lib import agent_spec
    from streamlit.elements.plotly_chart import _plotly_data

    element, layout = built
    if kind == "plotly_chart":
        agent_props = agent_spec.element("plotly_chart", key=key, data_builder=lambda: _plotly_data(element.spec),
                                         alt=element.alt or None)
    else:
        agent_props = agent_spec.element("markdown", body=element.body, help=None,
                                         unsafe_allow_html=element.allow_html or None)
    st._main._enqueue(kind, element, layout_config=layout, agent_props=agent_props)
