"""mvlab.ui: widgets from settings fields, the link parser, kept values, the run status line, the
shared figure cache and the server panel (AppTest scripts, no page)."""

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT


def widget_script():
    import streamlit as st

    from mvlab.experiments.settings import DissimilaritySettings as S
    from mvlab.experiments.settings import SiameseSettings
    from mvlab.ui import widgets

    widgets.number(st, S, "n_estimators", "Trees", "t")
    widgets.slider(st, S, "test_size", "Test share", "ts", step=0.05)
    widgets.select(st, S, "measure", "Measure", "m")
    widgets.toggle(st, S, "paper", "Paper", "p", help=S.paper_note())
    widgets.number(st, SiameseSettings, "n_pairs", "Pairs", "n", step=50, high=120, default=100)
    widgets.choice(st, "Pick", ["a", "b"], "c", "z")


def test_widgets_take_bounds_defaults_options_and_help_from_the_settings_field():
    from mvlab.experiments.settings import DissimilaritySettings, SiameseSettings

    at = AppTest.from_function(widget_script).run()
    assert not at.exception, at.exception
    trees, pairs = at.number_input(key="t"), at.number_input(key="n")
    assert (trees.min, trees.max, trees.value) == (3, 1000, DissimilaritySettings().n_estimators)
    assert (pairs.min, pairs.max, pairs.value) == (30, 120, 100)  # the data lower the top; the field's floor stays
    assert pairs.help == SiameseSettings.__dataclass_fields__["n_pairs"].metadata["help"]
    share = at.slider(key="ts")
    assert (share.min, share.max, share.value) == (0.1, 0.9, 0.5) and share.help == "Paper: 50/50 split."
    assert at.selectbox(key="m").options[0] == "breiman" and at.selectbox(key="m").value == "breiman"
    assert "512 trees" in at.toggle(key="p").help  # from the paper preset, not written by the page
    assert at.selectbox(key="c").value == "a"  # a default that is not offered falls back to the first option


OLD_WIDGET_KEYS = {  # every page's field -> widget key map as the pages wrote it by hand: the app's contract
    # (kept values, tests and browser checks find widgets by these keys); "{name}": a part the page computes
    "dvs": {"source": "dvs_source", "measure": "dvs_measure", "paper": "dvs_paper", "n_estimators": "dvs_trees",
            "k": "dvs_k", "test_size": "dvs_test", "show": "dvs_show"},
    "dissimilarity": {"measure": "dis_measure", "paper": "dis_paper", "n_estimators": "dis_trees",
                      "test_size": "dis_test", "k": "dis_k", "w": "dis_w", "kdn_k": "dis_kdn"},
    "siamese": {"paper": "sdf_paper", "n_pairs": "sdf_n", "n_estimators": "sdf_trees", "qp_probas": "sdf_qp",
                "max_levels": "sdf_levels", "lam": "sdf_lam", "z_schedule": "sdf_z", "scanning": "sdf_scan",
                "windows": "sdf_windows_{shape_key}"},
    "benchmark": {"family": "bm_family", "datasets": "bm_datasets", "methods": "bm_methods_{pending_family}",
                  "repetitions": "bm_reps", "n_estimators": "bm_trees", "n_max": "bm_n", "n_pairs": "bm_pairs"},
    "view_construction": {"source": "vc_source", "madelon_n": "vc_madelon_n", "methods": "vc_methods",
                          "classifiers": "vc_classifiers", "paper": "vc_paper", "max_views": "vc_k",
                          "n_splits": "vc_folds", "n_repeats": "vc_reps", "inner_cv": "vc_inner",
                          "ga_generations": "vc_generations", "n_used": "vc_n_{pending_source}",
                          "d_used": "vc_d_{pending_source}"},
}


class _PageNames(dict):
    """Names for evaluating one statement of a page: its imports and aliases, and "{name}" for a value the page
    computes when it runs (the family a link names, the images' shape)."""

    def __init__(self, namespace: dict):
        super().__init__()
        self.namespace = namespace

    def __missing__(self, name):
        return self.namespace[name] if name in self.namespace else "{" + name + "}"


def page_widget_keys(page: Path) -> dict | None:
    """The page's ``WIDGETS`` (field -> widget key) as the page builds it, without running the page: its
    imports and ``S = SomeSettings`` aliases executed, then the expression it assigns to ``WIDGETS``; None
    when the page has none."""
    import ast

    tree = ast.parse(page.read_text())
    targets = [n.value for n in tree.body if isinstance(n, ast.Assign)
               and [ast.unparse(t) for t in n.targets] == ["WIDGETS"]]
    if not targets:
        return None
    namespace: dict = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or isinstance(node, ast.Assign) and \
                isinstance(node.value, ast.Name):
            exec(compile(ast.Module([node], []), str(page), "exec"), namespace)
    return eval(compile(ast.Expression(targets[0]), str(page), "eval"), namespace, _PageNames(namespace))


def test_every_page_derives_its_widget_keys_from_the_settings_and_keeps_the_old_keys():
    """The pages build their field -> widget key maps with mvlab.ui.widgets.widget_keys (no hand-written dict),
    and every key is the one the page used before."""
    found = {}
    for page in sorted((ROOT / "pages").glob("*.py")):
        assert not re.search(r"WIDGETS = \{", page.read_text()), f"{page.name} writes its widget keys by hand"
        keys = page_widget_keys(page)
        if keys is not None:
            found[page.stem] = keys
    assert found == OLD_WIDGET_KEYS


def test_widget_keys_are_the_prefix_and_the_field_or_its_short_name():
    import dataclasses

    from mvlab.experiments.settings import DVSSettings, ViewConstructionSettings
    from mvlab.ui.widgets import SHORT_NAMES, widget_keys

    keys = widget_keys(DVSSettings, "dvs")
    assert "seed" not in keys  # the seed travels with the data, not with the page
    assert keys["source"] == "dvs_source" and keys["w"] == "dvs_w"  # the rule
    assert keys["n_estimators"] == "dvs_trees" and SHORT_NAMES["n_estimators"] == "trees"  # a short name
    assert list(keys) == [f.name for f in dataclasses.fields(DVSSettings) if f.name != "seed"]  # in their order
    assert set(widget_keys(DVSSettings, "dvs", exclude=["w", "kdn_k"])) == set(keys) - {"w", "kdn_k"}
    vc = widget_keys(ViewConstructionSettings, "vc", names={"max_views": "k", "n_repeats": "repeats"})
    assert vc["max_views"] == "vc_k" and vc["n_repeats"] == "vc_repeats"  # the page's name wins over SHORT_NAMES
    with pytest.raises(ValueError, match=r"DVSSettings has no field \['lam'\]"):
        widget_keys(DVSSettings, "dvs", names={"lam": "l"})
    with pytest.raises(ValueError, match="no field"):
        widget_keys(DVSSettings, "dvs", exclude=("seed",))


def test_no_page_draws_a_settings_field_by_hand():
    """#21: every widget a page maps to a settings field (its WIDGETS) is drawn by mvlab.ui.widgets, so its
    bounds, default and help come from the field; none is drawn with a literal default of its own."""
    for page in sorted((ROOT / "pages").glob("*.py")):
        text = page.read_text()
        keys = page_widget_keys(page)
        if keys is None:
            continue
        hand = [k for k in keys.values() if f'keep("{k}"' in text or f"keep(f\"{k}\"" in text]
        assert not hand, f"{page.name} draws {hand} by hand"
        assert not re.search(r"\b512\b", text), f"{page.name} writes the paper's 512 trees"


def links_script():
    import streamlit as st

    from mvlab.ui import links
    from mvlab.ui.state import kept, set_kept

    links.start(set_kept)
    st.write(repr({"notes": st.session_state["_url_notes"], "seed": kept("seed"), "n": kept("bundled_n_digits"),
                   "syn_n": kept("syn_n"), "syn_noise": kept("syn_noise")}))


@pytest.mark.parametrize("query, expected, note", [
    ({"dataset": "digits", "n": "300", "seed": "4"}, {"seed": 4, "n": 300}, None),
    ({"seed": "-3"}, {"seed": None}, "'seed=-3' was ignored (outside 0..2147483647)"),
    ({"dataset": "digits", "n": "many"}, {"n": None}, "'n=many' was ignored (not a whole number)"),
    ({"syn_n": "999999", "syn_noise": "gaussian"}, {"syn_n": None, "syn_noise": "gaussian"},
     "'syn_n=999999' was ignored (outside 20..200000)"),
    ({"syn_noise": "loud"}, {"syn_noise": None},
     "'syn_noise=loud' was ignored (not one of ['random-class', 'gaussian'])"),
])
def test_link_values_are_parsed_by_the_settings_parser_and_bad_ones_named(query, expected, note):
    at = AppTest.from_function(links_script)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    shown = eval(at.markdown[0].value)  # the script writes a dict literal
    for key, value in expected.items():
        assert shown[key] == value, (key, shown)
    if note is None:
        assert shown["notes"] == []
    else:
        assert any(note in n for n in shown["notes"]), shown["notes"]


def test_the_run_status_line_says_position_wait_progress_and_sharing():
    from mvlab.engine import JobStatus
    from mvlab.ui.runs import status_text

    queued = status_text(JobStatus("j", "queued", 3, 95.0, 0.0, "", 0.0, 1), "Training")
    assert queued.startswith("Training: waiting for a free worker (position 3 in the queue; about 2 min before")
    assert "Stop" in queued
    assert "next to start; about 5 s" in status_text(JobStatus("j", "queued", 1, 4.6, 0, "", 0, 1), "T")
    assert "about 35 s" in status_text(JobStatus("j", "queued", 2, 33.0, 0, "", 0, 1), "T")  # 5 s steps past 20 s
    running = status_text(JobStatus("j", "running", None, 12.0, 0.5, "fold 2 of 4", 12.0, 3), "Training")
    assert running == ("Training: fold 2 of 4 (12 s, about 12 s left). Shared with 2 other sessions that asked "
                       "for the same run.")
    from mvlab.i18n import use_language

    with use_language("de"):  # #73: each count by the language's plural rule
        assert status_text(JobStatus("j", "running", None, 12.0, 0.5, "fold 2 of 4", 12.0, 2), "Training") == (
            "Training: fold 2 of 4 (12 s, noch etwa 12 s). Geteilt mit 1 anderen Sitzung, die denselben Lauf "
            "angefordert hat.")


def test_a_click_inside_a_fragment_waits_for_the_run_and_the_page_ends_its_run_for_it(monkeypatch):
    """Streamlit lets a click on a widget inside a fragment (Stop, on the training pages) wait until the run in
    progress ends; runs.end_for_a_waiting_click sees it in a private field (ScriptRequests._state, behind
    mvlab.ui.streamlit_insides) and ends the run with a rerun that Streamlit merges with the click: of the fragment
    in a fragment run, of the page in a full run; without the field (its feature off) it asks for nothing, and Stop
    waits for the run's end. The first half fails if the installed Streamlit changes either behaviour."""
    from types import SimpleNamespace

    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests, ScriptRequestType

    from mvlab.ui import runs
    from mvlab.ui import streamlit_insides as insides

    requests = ScriptRequests()
    assert requests.on_scriptrunner_yield() is None  # nothing waits
    requests.request_rerun(RerunData(fragment_id_queue=["train"]))  # a click inside the fragment
    assert requests.on_scriptrunner_yield() is None  # it does not interrupt the run ...
    assert requests._state == ScriptRequestType.RERUN  # ... and this says that it waits

    asked = []
    monkeypatch.setattr(runs.st, "rerun", lambda scope="app": asked.append(scope))
    for fragment_run, scope in ((["train"], "fragment"), ([], "app")):
        run = SimpleNamespace(script_requests=requests, fragment_ids_this_run=fragment_run)
        monkeypatch.setattr(insides, "_script_context", lambda run=run: run)
        runs.end_for_a_waiting_click()
        assert asked.pop() == scope
    monkeypatch.setattr(insides, "_LOST", {"waiting_click": "a part failed"})  # the fallback: Stop waits for the end
    runs.end_for_a_waiting_click()
    monkeypatch.setattr(insides, "_LOST", {})
    idle = ScriptRequests()
    monkeypatch.setattr(insides, "_script_context", lambda: SimpleNamespace(script_requests=idle,
                                                                            fragment_ids_this_run=["train"]))
    runs.end_for_a_waiting_click()
    monkeypatch.setattr(insides, "_script_context", lambda: None)  # no script run (the CLI, a plain test)
    runs.end_for_a_waiting_click()
    assert asked == []


def test_shared_values_are_computed_once_per_key_and_bounded():
    from mvlab.ui import shared

    calls = []
    first = shared.value("test-fig", ["k", 1], lambda: calls.append(1) or {"figure": 1})
    again = shared.value("test-fig", ["k", 1], lambda: calls.append(1) or {"figure": 2})
    other = shared.value("test-fig", ["k", 2], lambda: calls.append(1) or {"figure": 3})
    assert first is again and other == {"figure": 3} and len(calls) == 2
    for i in range(shared.VALUES.size + 5):
        shared.value("test-fill", i, lambda: 0)
    assert len(shared.VALUES) == shared.VALUES.size


def test_shared_value_asked_by_many_sessions_at_once_is_built_once():
    import threading
    import time

    from mvlab.ui import shared

    calls, got = [], []
    start = threading.Barrier(6)

    def build():
        calls.append(1)
        time.sleep(0.2)  # long enough for every other session to ask meanwhile
        return {"figure": len(calls)}

    def session():
        start.wait()
        got.append(shared.value("test-herd", "k", build))

    threads = [threading.Thread(target=session) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(got) == 6 and all(g is got[0] for g in got)


def test_shared_value_whose_builder_fails_is_built_by_the_next_session():
    import pytest

    from mvlab.ui import shared

    def broken():
        raise RuntimeError("figure failed")

    with pytest.raises(RuntimeError, match="figure failed"):
        shared.value("test-fail", "k", broken)
    assert shared.value("test-fail", "k", lambda: 7) == 7 and not shared.VALUES.building


def panel_script():
    import streamlit as st

    from mvlab.ui.engine_panel import server_panel

    with st.sidebar:
        server_panel()


def test_the_server_panel_shows_workers_and_runs_but_no_data_names():
    from mvlab.ui.runs import engine

    engine().connect()  # started from a test script's thread too (its temporary __main__ must not reach the workers)
    at = AppTest.from_function(panel_script, default_timeout=120).run()
    assert not at.exception, at.exception
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "Runs go to an embedded Dask cluster" in captions
    assert re.search(r"\d+ running, \d+ waiting \(at most \d+ may wait\)", captions)
    [table] = [m.value for m in at.sidebar.markdown if m.value.startswith("| worker |")]
    lines = table.splitlines()
    assert lines[0] == "| worker | memory used (GB) | limit (GB) |" and len(lines) >= 3
    assert re.fullmatch(r"\| 1 \| \d+\.\d\d \| \d+\.\d \|", lines[2])


def test_imported_objects_are_frozen_out_of_the_collector_once_and_only_in_a_real_server(monkeypatch):
    """The web server's imports leave the garbage collector (a full collection walked them all, holding the
    interpreter for 0.17-0.28 s under a class); a collection still frees the cycles sessions make, and runs by
    itself at the web process's thresholds (``GC_THRESHOLDS``; the test fails with Python's own); AppTest's
    runtime (this process, the tests' own objects) is left alone."""
    import gc
    import sys
    import weakref

    from mvlab.ui import web_process

    frozen_before, thresholds_before = gc.get_freeze_count(), gc.get_threshold()
    web_process.imports_out_of_gc()  # no Streamlit server in this process: nothing happens
    assert gc.get_freeze_count() == frozen_before and not web_process._FROZEN.is_set()
    assert gc.get_threshold() == thresholds_before

    monkeypatch.setattr(web_process, "_a_real_server", lambda: True)
    freezes, gc_freeze = [], gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: freezes.append(1) or gc_freeze())
    try:
        web_process.imports_out_of_gc()
        assert web_process._FROZEN.is_set()
        assert {"mvlab.ui.lesson_step", "mvlab.viz.dvs_figures", "mvlab.experiments.combinations"} <= set(sys.modules)
        assert gc.get_freeze_count() > max(frozen_before, 50_000)  # plotly, pandas, scikit-learn, Dask, Streamlit
        web_process.imports_out_of_gc()  # once per process
        assert len(freezes) == 1

        class Cycle:
            pass

        made = Cycle()
        made.me = made  # garbage made after the freeze is still collected
        alive = weakref.ref(made)
        del made
        gc.collect()
        assert alive() is None

        # the collector's thresholds are the web process's (a woken class made a full collection per wake with
        # Python's 700), and it still runs by itself: a cycle goes once enough objects have been allocated
        assert gc.get_threshold() == web_process.GC_THRESHOLDS and web_process.GC_THRESHOLDS[0] > 700
        made = Cycle()
        made.me = made
        alive = weakref.ref(made)
        del made
        kept = [Cycle() for _ in range(3 * web_process.GC_THRESHOLDS[0])]
        assert alive() is None and kept
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds_before)
        web_process._FROZEN.clear()


def test_the_modules_frozen_before_the_first_page_are_every_module_of_mvlab_the_pages_import():
    """web_process._import_what_pages_import is a list kept by hand: a module a page imports and the list
    misses would stay in the collector's walks (checked in fresh interpreters: the pages' own import
    statements, wherever they are in the page, against the list)."""
    import ast
    import subprocess
    import sys

    def mvlab_modules(code: str) -> set[str]:
        code += "\nimport sys\nprint(*[m for m in sys.modules if m.startswith('mvlab')])"
        run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        return set(run.stdout.split())

    statements = sorted({ast.unparse(node) for page in (ROOT / "pages").glob("*.py")
                         for node in ast.walk(ast.parse(page.read_text()))
                         if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mvlab")
                         or isinstance(node, ast.Import) and node.names[0].name.startswith("mvlab")})
    assert len(statements) >= len(list((ROOT / "pages").glob("*.py")))  # found: each page imports mvlab
    pages = mvlab_modules("\n".join(statements))
    listed = mvlab_modules("from mvlab.ui import web_process\nweb_process._import_what_pages_import()")
    assert pages - listed == set()


def test_pages_read_no_private_session_keys():
    for page in sorted(Path(ROOT / "pages").glob("*.py")):
        text = page.read_text()
        assert '"_kept"' not in text and '"_url_pending"' not in text, page.name


def test_stored_result_is_read_back_once_per_run_and_shared_by_sessions(tmp_path):
    """A class opening a stored result: one object for every session (one copy in memory, one read), the store's
    own look-up as the reference; a newer finished run is read back anew."""
    import threading

    from mvlab.store import ResultsStore
    from mvlab.ui import shared

    reads = []

    class Blob:
        def __init__(self, data):
            self.data = data

        @classmethod
        def from_npz(cls, data):
            reads.append(data)
            return cls(data)

    store, settings = ResultsStore(tmp_path / "r.sqlite"), {"n_estimators": 5}
    assert shared.stored_result(store, "dvs", "f", settings, Blob) is None
    run = store.start_run("dvs", "demo", "f", 0, settings)
    store.put_artifact(run, "result", b"first")
    store.finish_run(run, {})
    got, start = [], threading.Barrier(8)

    def session():
        start.wait()
        got.append(shared.stored_result(store, "dvs", "f", settings, Blob))

    threads = [threading.Thread(target=session) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and all(g is got[0] for g in got) and reads == [b"first"]
    assert got[0].data == store.finished_result("dvs", "f", settings, Blob).data
    assert shared.stored_result(store, "dvs", "other", settings, Blob) is None  # other data: not found
    newer = store.start_run("dvs", "demo", "f", 0, settings)
    store.put_artifact(newer, "result", b"second")
    store.finish_run(newer, {})
    assert shared.stored_result(store, "dvs", "f", settings, Blob).data == b"second"
