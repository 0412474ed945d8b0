"""Streamlit's insides behind one door (mvlab.ui.streamlit_insides): every private part mvlab uses is listed by the
feature that uses it and is there in the installed Streamlit; each part taken away in turn turns its feature off
(checked once per process, said in the log with what falls back); a part that fails while the server runs turns its
feature off without a traceback; the door uses no part it does not list, and no other module of mvlab touches
Streamlit's insides. The fallbacks end to end: tests/test_wake_fallback.py (a real server with a part of every
feature gone), tests/test_built_once.py (Streamlit's own calls draw the figure)."""

import ast
import importlib
import inspect
import sys
import types
from pathlib import Path

import pytest

from conftest import ROOT
from mvlab.ui import streamlit_insides as insides
from mvlab.ui import wake

PARTS = sorted({(feature, module, path) for feature, f in insides.FEATURES.items() for module, path in f.parts})
"""(feature, module, path) of every listed part."""


def test_every_part_of_every_feature_is_in_the_installed_streamlit():
    """A Streamlit upgrade that renames one of them turns its feature off: this test says so at once, instead of a
    lecture finding it out; and what the wake reruns is still a session's client state."""
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSession

    assert {feature: insides.missing_parts(f.parts) for feature, f in insides.FEATURES.items()} == {
        feature: () for feature in insides.FEATURES}
    assert "client_state" in inspect.signature(AppSession.request_rerun).parameters
    assert {"query_string", "page_script_hash"} <= set(ClientState.DESCRIPTOR.fields_by_name)
    assert insides.check() == []


def test_outside_a_real_server_nothing_is_woken_and_no_session_is_probed():
    assert not insides.a_real_server() and not wake.available()  # the test process runs no Streamlit server
    assert insides.rerun_sessions({"x": ""}, lambda outcome: None) is False
    assert insides.current_session() is None and insides.current_fragment() == ""
    assert insides.session_alive() is None and insides.a_click_waits() is None and insides.main_script_parent() == ""


def _renamed_code(code: types.CodeType, old: str, new: str) -> types.CodeType:
    consts = tuple(_renamed_code(c, old, new) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_names=tuple(new if n == old else n for n in code.co_names), co_consts=consts)


def _renamed_function(f: types.FunctionType, old: str, new: str) -> types.FunctionType:
    g = types.FunctionType(_renamed_code(f.__code__, old, new), f.__globals__, f.__name__, f.__defaults__,
                           f.__closure__)
    g.__kwdefaults__, g.__qualname__ = f.__kwdefaults__, f.__qualname__
    g.__dict__.update(f.__dict__)
    return g


def rename_attribute(cls: type, old: str, new: str, set_attribute=setattr) -> None:
    """Make ``cls`` as a Streamlit that renamed its attribute ``old`` to ``new`` would be: every method of the
    class (and its properties, and the functions nested in them) reads and stores ``new`` instead. The class
    still works (``tests/test_wake_fallback.py`` serves a lesson with ``AppSession._client_state`` renamed)."""
    for key, value in list(vars(cls).items()):
        if isinstance(value, types.FunctionType):
            replacement = _renamed_function(value, old, new)
        elif isinstance(value, (staticmethod, classmethod)) and isinstance(value.__func__, types.FunctionType):
            replacement = type(value)(_renamed_function(value.__func__, old, new))
        elif isinstance(value, property):
            replacement = property(*(f and _renamed_function(f, old, new) for f in (value.fget, value.fset,
                                                                                       value.fdel)), value.__doc__)
        else:
            continue
        set_attribute(cls, key, replacement)


def break_part(monkeypatch, module: str, path: str) -> None:
    """Take one listed part away, as an upgrade of Streamlit that renamed it would: a module's or a class's
    attribute deleted (an attribute ``__init__`` stores, such as a dataclass field, renamed in every method of its
    class too), a protobuf field dropped from the message, an enum's member or an object's attribute gone from the
    object (the object replaced by a copy without it)."""
    parent, owner = None, importlib.import_module(module)
    *owners, name = path.split(".")
    for step in owners:
        parent, owner = owner, getattr(owner, step)
    fields = getattr(getattr(owner, "DESCRIPTOR", None), "fields_by_name", {})
    if name in fields:
        monkeypatch.setattr(owner, "DESCRIPTOR",
                            types.SimpleNamespace(fields_by_name={k: v for k, v in fields.items() if k != name}))
        return
    if isinstance(owner, type) and name in insides._instance_attributes(owner):
        rename_attribute(owner, name, f"{name}_renamed", monkeypatch.setattr)
    definer = next((k for k in getattr(owner, "__mro__", (owner,)) if name in vars(k)), None)
    if definer is not None:
        try:
            monkeypatch.delattr(definer, name)
            return
        except (AttributeError, TypeError):  # an enum's member cannot be deleted
            pass
    if hasattr(owner, name):  # the object itself replaced by a copy without the attribute
        copy = types.SimpleNamespace(**{k: getattr(owner, k) for k in dir(owner) if k != name
                                        and not k.startswith("__")})
        monkeypatch.setattr(parent, owners[-1], copy)


@pytest.fixture
def as_a_server(monkeypatch):
    """This test process seen by the door as a real server (its runtime stands in), every feature checked again for
    each test and none lost."""
    monkeypatch.setattr(insides, "server_runtime", lambda: object())
    monkeypatch.setattr(insides, "_LOST", {})
    monkeypatch.setattr(insides, "_CHECKED", insides.Memo(None))
    yield


@pytest.mark.parametrize("feature, module, path", PARTS + sorted(
    {(feature, module, "") for feature, module, _ in PARTS}), ids=lambda v: v or "module")
def test_each_part_gone_turns_its_feature_off_and_the_log_says_what_falls_back(feature, module, path, as_a_server,
                                                                               monkeypatch, caplog):
    """Each listed part taken away in turn (a module that no longer imports, an attribute deleted, an instance
    attribute such as ``AppSession._client_state`` renamed in its class): its feature is no longer usable, without
    an exception, and the server's check says in one line which part is gone and what falls back. Failed for
    ``AppSession._client_state`` and ``_scriptrunner`` before they were checked (a rename left the push on and
    nothing woke); fails when the check takes any attribute of a class for there (tried: 14 of the wake's 20
    cases fail), or when it does not read what ``__init__`` stores (tried: every case fails)."""
    assert insides.usable(feature) and (feature != "wake" or wake.available())
    if path:
        break_part(monkeypatch, module, path)
    else:
        monkeypatch.setitem(sys.modules, module, None)  # the module is gone: importing it fails
    insides._CHECKED.clear()  # the check is made once per process: this stands for a process started now
    assert insides.usable(feature) is False and (feature != "wake" or wake.available() is False)
    said = insides.check()
    line = next(line for line in said if insides.FEATURES[feature].without in line)
    assert (f"{module}:{path}" in line if path else module in line) and line in caplog.text


def test_the_check_is_made_once_per_process(as_a_server, monkeypatch):
    """``usable`` runs on every page draw: the parts are looked at once (fails without the memo (tried))."""
    calls = []
    monkeypatch.setattr(insides, "missing_parts", lambda parts: calls.append(1) or ())
    assert all(insides.usable("wake") and insides.usable("built_once") for _ in range(5)) and len(calls) == 2


def _door() -> ast.Module:
    return ast.parse(Path(insides.__file__).read_text())


PYTHONS_OWN = {"items", "update", "call_soon_threadsafe", "CopyFrom", "to_dict", "spec", "alt", "body", "allow_html",
               "id", "parts", "without", "warning", "DESCRIPTOR", "fields_by_name", "opname", "argval", "__code__",
               "__init__", "split", "get", "Type", "eventloop"}
"""Attributes the door reads that are not Streamlit's private parts: a dict's, an asyncio loop's, a protobuf
message's, its own dataclass's, the logging module's, the bytecode reader's."""


def test_the_door_uses_no_part_of_streamlit_it_does_not_list():
    """Every import the door makes from Streamlit's private modules is of a listed part, and every private
    ``._name`` it reads (but its own) is a listed part's: a new use of Streamlit's insides must be listed, where the
    check sees it. Fails when ``session._client_state`` is read but not listed, or ``session._foo`` is added
    (tried both, when this was the wake's own test)."""
    listed = {(module, path.split(".")[0]) for _, module, path in PARTS}
    names = {name for _, _, path in PARTS for name in path.split(".")}
    tree = _door()
    imports = [(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               for alias in node.names if (node.module or "").startswith("streamlit.")]
    assert len(imports) >= 12
    unlisted = [(module, name) for module, name in imports
                if (module, name) not in listed and f"{module}.{name}" not in {m for m, _ in listed}]
    own = {name for name in vars(insides) if name.startswith("_")}
    private = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr.startswith("_")
               and not node.attr.startswith("__") and node.attr not in own}
    assert not unlisted and private <= names, (unlisted, sorted(private - names))


def test_no_other_module_of_mvlab_touches_streamlits_insides():
    """``grep`` finds Streamlit's private modules imported in one file of mvlab/: this door. Fails when another
    module imports one (tried: ``from streamlit.runtime import Runtime`` back in mvlab/ui/runs.py)."""
    private = ("streamlit.runtime", "streamlit.elements", "streamlit.proto", "streamlit.delta_generator",
               "streamlit.string_util", "streamlit.web")
    users = set()
    for path in sorted((ROOT / "mvlab").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            modules = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                       else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            if any(m == p or m.startswith(p + ".") for m in modules for p in private):
                users.add(path.relative_to(ROOT).as_posix())
            if isinstance(node, ast.Attribute) and node.attr == "_main" and getattr(node.value, "id", "") == "st":
                users.add(path.relative_to(ROOT).as_posix())
    assert users == {"mvlab/ui/streamlit_insides.py"}


class _Session:
    """An AppSession of a Streamlit that renamed ``_client_state``."""

    _scriptrunner = None

    def __init__(self):
        self.asked = []

    def has_fragment(self, fragment):
        return True

    def request_rerun(self, state):
        self.asked.append(state)


def test_a_part_that_fails_while_the_server_runs_turns_its_feature_off_without_a_traceback(as_a_server, monkeypatch,
                                                                                          caplog):
    """A part that the check passed but that fails at run time (on the event loop or in the watch thread) is said
    once in the log and turns its feature off: the sessions asked for are reported ``failed`` (the watch forgets
    them), and pages drawn afterwards take their timers. Fails when ``_rerun_now`` reads
    ``getattr(session, "_client_state", None)`` or lets the AttributeError out (tried)."""
    session = _Session()
    runtime = types.SimpleNamespace(get_app_session=lambda s: session)
    outcomes = []
    insides._rerun_now(runtime, {"a": "", "b": "f"}, outcomes.append)
    assert outcomes == [{"a": "failed", "b": "failed"}] and session.asked == []
    assert wake.available() is False and "_client_state" in insides._LOST["wake"]
    assert insides.FEATURES["wake"].without in caplog.text
    assert insides.rerun_sessions({"a": ""}, outcomes.append) is False and len(outcomes) == 1
    assert insides.session_connected("a") is False  # the watch lets its sessions go
    assert insides.usable("built_once")  # the other features are not touched

    monkeypatch.setattr(insides, "_LOST", {})  # a runtime without its event loop, seen from the watch thread
    assert insides.rerun_sessions({"a": ""}, outcomes.append) is False and "wake" in insides._LOST
    monkeypatch.setattr(insides, "_LOST", {})
    import streamlit.runtime.scriptrunner as scriptrunner

    monkeypatch.delattr(scriptrunner, "get_script_run_ctx")
    assert insides.current_session() is None and wake.available() is False


class _Live:
    """An AppSession as a wake finds it: idle (no script runner), its last client state, its fragments."""

    _scriptrunner = None

    def __init__(self, fragments=()):
        from streamlit.proto.ClientState_pb2 import ClientState

        self._client_state = ClientState(query_string="lesson=ofsp&step=2", page_script_hash="abc")
        self.fragments, self.asked = set(fragments), []

    def has_fragment(self, fragment):
        return fragment in self.fragments

    def request_rerun(self, state):
        self.asked.append(state)


def test_a_wake_reruns_each_idle_session_from_its_own_address_and_leaves_busy_and_gone_ones(as_a_server,
                                                                                            monkeypatch):
    """Through the server's event loop (a stand-in that runs the call at once): an idle session is rerun with its
    saved address and page, its fragment alone when it still has it, else the whole page; a busy one (a run in
    progress) is left for the next look; a gone one is said gone. Fails when a wake reruns a busy session (tried:
    the ``_scriptrunner`` test removed: the click in progress was rerun over)."""
    idle, partial, busy = _Live(), _Live(fragments={"f"}), _Live()
    busy._scriptrunner = object()
    sessions = {"idle": idle, "partial": partial, "busy": busy}
    loop = types.SimpleNamespace(call_soon_threadsafe=lambda fn, *args: fn(*args))
    runtime = types.SimpleNamespace(get_app_session=sessions.get,
                                    _get_async_objs=lambda: types.SimpleNamespace(eventloop=loop))
    outcomes = []
    monkeypatch.setattr(insides, "server_runtime", lambda: runtime)
    assert insides.rerun_sessions({"idle": "gone-fragment", "partial": "f", "busy": "", "left": ""}, outcomes.append)
    assert outcomes == [{"idle": "rerun", "partial": "rerun", "left": "gone"}]
    assert [(s.query_string, s.page_script_hash, s.fragment_id, s.is_auto_rerun) for s in idle.asked + partial.asked] \
        == [("lesson=ofsp&step=2", "abc", "", False), ("lesson=ofsp&step=2", "abc", "f", False)]
    assert busy.asked == [] and insides.session_connected("idle") and not insides.session_connected("left")

    def not_started():
        raise RuntimeError("no event loop yet")

    runtime._get_async_objs = not_started  # a server still starting: nothing to wake, the wake stays on
    assert insides.rerun_sessions({"idle": ""}, outcomes.append) is False and insides.usable("wake")


def test_a_closed_tabs_session_is_seen_gone_and_a_failing_part_keeps_the_run(as_a_server, monkeypatch):
    """``session_alive`` asks the server whether this run's session still has its browser; where that part fails
    at run time the run is kept (as without the feature) and the feature is off. Fails when a failing part reads as
    a closed tab (tried: ``return False`` in the ``except``: every run of the process would be released)."""
    active = {"s1": True}
    runtime = types.SimpleNamespace(is_active_session=lambda session_id: active[session_id])
    monkeypatch.setattr(insides, "server_runtime", lambda: runtime)
    monkeypatch.setattr(insides, "_script_context", lambda: types.SimpleNamespace(session_id="s1"))
    is_active = insides.session_alive()
    assert is_active() is True
    active["s1"] = False
    assert is_active() is False
    del runtime.is_active_session  # a Streamlit that renamed it, found out at run time
    assert is_active() is True and not insides.usable("session_alive") and insides.session_alive() is None


def test_the_pages_probe_waits_for_streamlits_grace_before_a_closed_tab_releases_its_run(monkeypatch):
    """mvlab.ui.runs.session_alive_probe: a tab closed for less than ``server.disconnectedSessionTTL`` is still
    alive (a reload, a phone's network change), then not; a tab that comes back is alive again at once."""
    import time

    from mvlab.ui import runs

    active = [True]
    monkeypatch.setattr(insides, "session_alive", lambda: lambda: active[0])
    monkeypatch.setattr(runs.st, "get_option", lambda name: 0.2)
    alive = runs.session_alive_probe()
    assert alive()
    active[0] = False
    assert alive()  # within the grace
    time.sleep(0.25)
    assert not alive()
    active[0] = True
    assert alive()
    monkeypatch.setattr(insides, "session_alive", lambda: None)  # no server, or no such part
    assert runs.session_alive_probe() is None


def test_the_front_ends_chart_modules_are_found_by_name_and_look_alikes_left_out(tmp_path):
    """The chart and table modules the pages load ahead (:mod:`mvlab.ui.page_script`) are in the installed
    Streamlit's build; in a folder, ``Name.hash.js`` is taken, ``Name.esm.hash.js`` and a name built twice are not.
    Broken once: without the ``count(".") == 2`` filter, DataFrame's look-alike made it ambiguous and left it out."""
    from mvlab.ui.page_script import MODULES

    installed = insides.frontend_modules(MODULES)
    assert [name.split(".")[0] for name in installed] == list(MODULES)
    folder = Path(__import__("streamlit").__file__).parent / "static" / "static" / "js"
    assert all((folder / name).is_file() for name in installed)
    for name in ("PlotlyChart.abc.js", "DataFrame.esm.x1.js", "DataFrame.y2.js", "Twice.a.js", "Twice.b.js"):
        (tmp_path / name).write_text("")
    assert insides._find_modules(("PlotlyChart", "DataFrame", "Twice", "Gone"), tmp_path) == (
        "PlotlyChart.abc.js", "DataFrame.y2.js")
