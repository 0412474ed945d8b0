"""The server's wake of waiting sessions (mvlab.ui.wake): one look for every session of a process, only the
sessions whose view changed are rerun, a busy one is asked again at the next look, a gone one forgotten; and
the parts of Streamlit's runtime the wake relies on are there in the installed Streamlit."""

import ast
import importlib
import inspect
import sys
import types
from pathlib import Path

import pytest

from mvlab.ui import wake
from mvlab.ui.wake import Subscription, Watch


class FakeServer:
    """Records the reruns asked for; ``busy`` sessions are left out of the outcome (asked again later),
    ``gone`` ones reported gone."""

    def __init__(self):
        self.asked, self.busy, self.gone = [], set(), set()

    def rerun(self, requests, done):
        self.asked.append(dict(requests))
        done({s: ("gone" if s in self.gone else "rerun") for s in requests if s not in self.busy})
        return True


def step_of(value):
    return value["step"]


def test_one_look_reads_every_topic_once_and_reruns_only_the_changed_sessions():
    state = {"A": {"step": 1}, "B": {"step": 1}}
    reads = []

    def read(topics):
        reads.append(set(topics))
        return {t: dict(state[t]) for t in topics if t in state}

    server = FakeServer()
    watch = Watch(read, interval=10, rerun=server.rerun, connected=lambda s: True)
    assert watch.look() == {} and reads == []  # nobody follows anything: nothing is read
    watch._thread = object()  # no background thread in this test: looks are taken by hand
    for i in range(5):
        watch.follow(f"a{i}", Subscription("A", step_of, 1))
    watch.follow("b0", Subscription("B", step_of, 1, fragment="frag"))
    assert watch.look() == {} and reads == [{"A", "B"}]  # one read for six sessions; nothing changed

    state["A"]["step"] = 2
    assert watch.look() == {f"a{i}": "" for i in range(5)}
    assert len(watch) == 1 and watch.woken == 5  # the woken follow what their rerun draws: they subscribe again
    assert watch.latest("A", max_age=60) == {"step": 2} and watch.latest("Z", max_age=60) is None

    state["B"]["step"] = 3
    server.busy.add("b0")  # a run in progress: not interrupted, asked again at the next look
    assert watch.look() == {"b0": "frag"} and len(watch) == 1
    server.busy.clear()
    assert watch.look() == {"b0": "frag"} and len(watch) == 0

    watch.follow("c", Subscription("B", step_of, 3))
    del state["B"]  # the round was deleted: the whole page reruns (it says so), the session is forgotten
    server.gone.add("c")
    assert watch.look() == {"c": ""} and len(watch) == 0


def test_the_part_rerun_is_the_one_that_shows_what_changed():
    """A subscription whose fragment is a function of the newer view: in one look, the session drawn on another step
    has its step's part rerun, the one drawn on this step its waiting part (new counts). Fails when the watch passes
    the function on instead of calling it with the newer view (tried: ``requests[...] = sub.fragment``)."""
    state = {"A": {"step": 1, "counts": 0}}
    server = FakeServer()
    watch = Watch(lambda topics: {t: dict(state[t]) for t in topics}, interval=10, rerun=server.rerun,
                  connected=lambda s: True)
    watch._thread = object()

    def project(value):
        return value["step"], value["counts"]

    def drawn_at(step):  # as mvlab.ui.class_round.follow_the_round: the step's part when the step changed
        return lambda now: "step-part" if now[0] != step else "waiting-part"

    watch.follow("on step 1", Subscription("A", project, (1, 0), drawn_at(1)))
    watch.follow("on step 2", Subscription("A", project, (2, 0), drawn_at(2)))
    state["A"] = {"step": 2, "counts": 3}
    assert watch.look() == {"on step 1": "step-part", "on step 2": "waiting-part"}


def test_sessions_whose_browser_has_gone_stop_being_followed():
    connected = {"a", "b"}
    watch = Watch(lambda topics: {t: {"step": 1} for t in topics}, interval=10, rerun=lambda r, done: True,
                  connected=lambda s: s in connected)
    watch._thread = object()
    for s in ("a", "b", "c"):
        watch.follow(s, Subscription("A", step_of, 1))
    for _ in range(Watch.PRUNE_EVERY):
        watch.look()
    assert sorted(watch._subscriptions) == ["a", "b"]  # "c" closed its tab: its round is no longer read for it


def test_a_session_that_subscribed_again_before_its_wake_returned_keeps_its_new_subscription():
    state = {"A": {"step": 2}}
    watch = Watch(lambda topics: {t: state[t] for t in topics}, interval=10, rerun=lambda r, done: True,
                  connected=lambda s: True)
    watch._thread = object()
    watch.follow("s", Subscription("A", step_of, 1))
    looked = {"s": watch._subscriptions["s"]}
    newer = Subscription("A", step_of, 2)
    watch.follow("s", newer)  # its rerun ran and subscribed before the event loop reported the wake
    watch._asked(looked, {"s": "rerun"})
    assert watch._subscriptions["s"] is newer


def test_a_failed_look_is_tried_again_and_a_bad_interval_is_refused():
    calls = []

    def read(topics):
        calls.append(1)
        if len(calls) == 1:
            raise OSError("database is locked")
        return {}

    watch = Watch(read, interval=0.01, rerun=lambda r, done: True, connected=lambda s: True)
    watch.follow("s", Subscription("A", step_of, 1))
    import time

    deadline = time.time() + 5
    while len(calls) < 3 and time.time() < deadline:
        time.sleep(0.01)
    assert len(calls) >= 3  # the thread went on after the failure
    with pytest.raises(ValueError, match="interval"):
        Watch(read, interval=0)


def test_outside_a_real_server_nothing_is_woken():
    assert not wake.available()  # the test process runs no Streamlit server
    assert wake.rerun_sessions({"x": ""}, lambda outcome: None) is False
    assert wake.current_session() is None and wake.current_fragment() == ""


def test_the_private_parts_of_streamlit_a_wake_uses_are_in_the_installed_streamlit():
    """A Streamlit upgrade that renames one of them turns the push off (pages fall back to polling): this
    test says so at once, instead of a lecture finding it out."""
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSession

    assert wake.missing_parts() == ()
    assert "client_state" in inspect.signature(AppSession.request_rerun).parameters
    assert {"query_string", "page_script_hash"} <= set(ClientState.DESCRIPTOR.fields_by_name)  # what a wake reruns


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
    attribute is deleted, a protobuf field dropped from the message, an instance attribute renamed in every
    method of its class."""
    owner = importlib.import_module(module)
    *owners, name = path.split(".")
    for step in owners:
        owner = getattr(owner, step)
    definer = next((k for k in getattr(owner, "__mro__", (owner,)) if name in vars(k)), None)
    fields = getattr(getattr(owner, "DESCRIPTOR", None), "fields_by_name", {})
    if definer is not None:
        monkeypatch.delattr(definer, name)
    elif name in fields:
        monkeypatch.setattr(owner, "DESCRIPTOR",
                            types.SimpleNamespace(fields_by_name={k: v for k, v in fields.items() if k != name}))
    else:
        rename_attribute(owner, name, f"{name}_renamed", monkeypatch.setattr)


@pytest.fixture
def as_a_server(monkeypatch):
    """This test process seen by :func:`wake.available` as a real server (its runtime stands in), the check done
    again for each test."""
    monkeypatch.setattr(wake, "_runtime", lambda: object())
    monkeypatch.setattr(wake, "_failure", None)
    wake._missing_in_this_process.cache_clear()
    yield
    wake._missing_in_this_process.cache_clear()


@pytest.mark.parametrize("part", [f"{module}:{path}" for module, path in wake.PRIVATE_PARTS]
                         + [f"{module}:" for module in sorted({module for module, _ in wake.PRIVATE_PARTS})])
def test_each_private_part_gone_turns_the_wake_off(part, as_a_server, monkeypatch):
    """Each listed part taken away in turn (a module that no longer imports, an attribute deleted, an instance
    attribute such as ``AppSession._client_state`` renamed in its class): ``available()`` says no, without an
    exception, and ``missing_parts`` names it. Failed for ``AppSession._client_state`` and ``_scriptrunner``
    before they were checked (the tester's case: a rename left the push on and nothing woke); fails when the
    check takes any attribute of a class for there (tried: 14 of the 20 cases fail), or when it does not read
    what ``__init__`` stores (tried: every case fails, the installed Streamlit seen without ``_client_state``)."""
    assert wake.available()  # everything is there: the stand-in runtime passes for a server
    module, path = part.split(":")
    if path:
        break_part(monkeypatch, module, path)
    else:
        monkeypatch.setitem(sys.modules, module, None)  # the module is gone: importing it fails
    wake._missing_in_this_process.cache_clear()
    assert wake.available() is False
    assert part in wake.missing_parts() or not path


def test_the_check_is_made_once_per_process(as_a_server, monkeypatch):
    """``available`` runs on every page draw: the parts are looked at once (fails without the cache (tried))."""
    calls = []
    monkeypatch.setattr(wake, "missing_parts", lambda: calls.append(1) or ())
    assert all(wake.available() for _ in range(5)) and calls == [1]


def _wake_source() -> ast.Module:
    return ast.parse(Path(wake.__file__).read_text())


def _touches_streamlit(function: ast.FunctionDef) -> bool:
    """A function of the wake module that imports from Streamlit or speaks to its runtime."""
    for node in ast.walk(function):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("streamlit"):
            return True
        if isinstance(node, ast.Name) and node.id in ("_runtime", "runtime"):
            return True
        if isinstance(node, ast.arg) and node.arg == "runtime":
            return True
    return False


PYTHONS_OWN = {"items", "update", "call_soon_threadsafe", "CopyFrom"}
"""Attributes the wake reads that are not Streamlit's: a dict's, an asyncio loop's, a protobuf message's."""


def test_the_wake_uses_no_part_of_streamlit_it_does_not_list():
    """Every import the wake module makes from Streamlit is of a listed part, and every attribute read in its
    functions that speak to Streamlit (and every private ``._name`` anywhere in it, but ``self``'s) is a listed
    part's: a new use of Streamlit's runtime must be added to ``PRIVATE_PARTS``, where ``available`` checks it.
    Fails when ``session._client_state`` is read but not listed, or ``session._foo`` is added (tried both)."""
    listed_names = {name for _, path in wake.PRIVATE_PARTS for name in path.split(".")}
    tree = _wake_source()
    imports = [(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               for alias in node.names if (node.module or "").startswith("streamlit")]
    imports += [(alias.name, "") for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
                if alias.name.startswith("streamlit")]
    assert len(imports) >= 4
    for module, name in imports:
        assert any(m == module and (not name or path.split(".")[0] == name) for m, path in wake.PRIVATE_PARTS), \
            f"wake imports {name or module} from {module} but PRIVATE_PARTS does not list it"

    functions = [f for f in tree.body if isinstance(f, ast.FunctionDef) and _touches_streamlit(f)]
    assert {"_runtime", "current_session", "current_fragment", "session_connected", "_rerun_now",
            "rerun_sessions"} <= {f.name for f in functions}
    read = {(f.name, node.attr) for f in functions for node in ast.walk(f) if isinstance(node, ast.Attribute)}
    read |= {(f.name, node.args[1].value) for f in functions for node in ast.walk(f)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1
             and isinstance(node.args[1], ast.Constant)}
    private = {("module", node.attr) for node in ast.walk(tree) if isinstance(node, ast.Attribute)
               and node.attr.startswith("_") and not node.attr.startswith("__")
               and not (isinstance(node.value, ast.Name) and node.value.id == "self")}
    unlisted = {(where, name) for where, name in read | private if name not in listed_names | PYTHONS_OWN}
    assert not unlisted, f"parts of Streamlit the wake uses but PRIVATE_PARTS does not list: {sorted(unlisted)}"


class _Session:
    """An AppSession of a Streamlit that renamed ``_client_state``."""

    _scriptrunner = None

    def __init__(self):
        self.asked = []

    def has_fragment(self, fragment):
        return True

    def request_rerun(self, state):
        self.asked.append(state)


def test_a_part_that_fails_while_the_server_runs_turns_the_wake_off_without_a_traceback(as_a_server, monkeypatch,
                                                                                         caplog):
    """A part that the check passed but that fails at run time (on the event loop or in the watch thread) is said
    once in the log and turns the wake off: the sessions asked for are reported ``failed`` (the watch forgets
    them), and pages drawn afterwards take their timers. Fails when ``_rerun_now`` reads
    ``getattr(session, "_client_state", None)`` or lets the AttributeError out (tried)."""
    session = _Session()
    runtime = types.SimpleNamespace(get_app_session=lambda s: session)
    outcomes = []
    wake._rerun_now(runtime, {"a": "", "b": "f"}, outcomes.append)
    assert outcomes == [{"a": "failed", "b": "failed"}] and session.asked == []
    assert wake.available() is False and "_client_state" in wake._failure
    assert "no session any more" in caplog.text
    assert wake.rerun_sessions({"a": ""}, outcomes.append) is False and len(outcomes) == 1
    assert wake.session_connected("a") is False  # the watch lets its sessions go

    monkeypatch.setattr(wake, "_failure", None)  # a runtime without its event loop, seen from the watch thread
    assert wake.rerun_sessions({"a": ""}, outcomes.append) is False and wake._failure is not None
    monkeypatch.setattr(wake, "_failure", None)
    import streamlit.runtime.scriptrunner as scriptrunner

    monkeypatch.delattr(scriptrunner, "get_script_run_ctx")
    assert wake.current_session() is None and wake.available() is False
