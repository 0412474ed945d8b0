"""The house: every public name importable from ``mvlab``, no import circle inside the package
(imports inside functions included), and no module importing from a layer above its own."""

import ast
import importlib
from pathlib import Path

import pytest

import mvlab
from conftest import ROOT

PACKAGE = ROOT / "mvlab"

# Bottom to top: a module may import from its own layer (other modules of its subpackage) and below.
LAYERS = [
    {"core", "stats", "store", "i18n", "_compiled"},
    {"datasets", "forest", "siamese"},
    {"rfd", "construction"},
    {"experiments"},
    {"viz", "engine", "reproduction"},
    {"lessons", "deploy"},
    {"ui", "cli", "__main__"},
]
LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}

CONTRACT = [  # docs/design.md §3: names other code relies on, importable from mvlab itself
    "load_dataset", "list_datasets", "MultiViewDataset", "ForestDissimilarity", "RFDClassifier", "OFSP",
    "solve_tree_weights", "SiameseDeepForest", "posthoc_vs_control", "views_to_Xs", "Xs_to_views",
    "make_multiview_classification", "read_multiview_csv", "fit_view_forests", "DVSCombiner", "ViewEnsemble",
    "CascadeForest", "MultiGrainedScanner", "run_experiment", "ResultsStore", "nemenyi_critical_difference",
]


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts)
        yield name.removesuffix(".__init__"), path


def imported_modules(path: Path, module: str) -> set[str]:
    """Every mvlab module a file imports, at module level or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "mvlab"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == "mvlab":
                for a in node.names:  # "from mvlab.viz import palette" imports the module mvlab.viz.palette
                    sub = f"{node.module}.{a.name}"
                    out.add(sub if (PACKAGE.parent / (sub.replace(".", "/") + ".py")).exists() else node.module)
    out.discard(module)
    return out


def top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("name", sorted(set(mvlab.__all__) - {"__version__"}))
def test_every_public_name_comes_from_the_top_level_package(name):
    value = getattr(mvlab, name)
    home = importlib.import_module(mvlab._WHERE[name])
    assert getattr(home, name) is value
    namespace = {}
    exec(f"from mvlab import {name}", namespace)
    assert namespace[name] is value


def test_the_design_contract_is_public():
    assert set(CONTRACT) <= set(mvlab.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        mvlab.nope  # noqa: B018


def test_no_two_modules_share_a_name():
    """A module's name says what it does, once in the package: ``rounds`` was the store's class rounds and the
    Lessons page's round panel, ``lessons`` four files (issue #74). A page's view is ``<page>_page.py`` beside the
    page's own ``pages/<page>.py``. Fails when a second module takes a name (tried: mvlab/ui/rounds.py back)."""
    by_name = {}
    for name, path in modules():
        if path.name != "__init__.py":
            by_name.setdefault(path.stem, []).append(name)
    assert not {stem: names for stem, names in by_name.items() if len(names) > 1}


def test_submodules_never_import_the_top_level_package():
    offenders = [name for name, path in modules() if name != "mvlab" and "mvlab" in imported_modules(path, name)]
    assert not offenders, offenders


def test_no_module_imports_from_a_higher_layer():
    wrong = []
    for name, path in modules():
        if name == "mvlab":
            continue
        mine = LAYER_OF[top(name)]
        for other in imported_modules(path, name):
            if top(other) and LAYER_OF[top(other)] > mine:
                wrong.append(f"{name} -> {other}")
    assert not wrong, wrong


def test_no_import_circle_counting_imports_inside_functions():
    graph = {name: {m for m in imported_modules(path, name) if m != "mvlab"} for name, path in modules()}
    graph = {k: {m for m in v if m in graph} for k, v in graph.items()}
    state, stack, circles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                circles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not circles, circles


def test_only_the_ui_imports_streamlit():
    users = [name for name, path in modules() if "streamlit" in path.read_text() and
             any(isinstance(n, (ast.Import, ast.ImportFrom)) and "streamlit" in ast.dump(n)
                 for n in ast.walk(ast.parse(path.read_text())))]
    assert users and all(name.startswith("mvlab.ui") for name in users), users


OUTSIDE = ["DESIGN" + " §", "DESIGN" + ".md", "PEERS" + ".md", "../" + "shared"]  # spelled apart: this file is read too


def test_the_repository_stands_alone_its_design_is_in_docs():
    """Code, docs and README cite docs/design.md and docs/algorithms.md, never a document outside the
    repository (an old internal DESIGN file, or the team's shared folder)."""
    assert (ROOT / "docs" / "design.md").exists()
    outside = []
    for path in [*ROOT.glob("*.md"), *ROOT.glob("Makefile"), *(p for d in ("mvlab", "pages", "tests", "bench", "docs")
                                                               for p in (ROOT / d).rglob("*") if p.is_file())]:
        if path.suffix not in (".py", ".md", ""):
            continue
        text = path.read_text(errors="ignore")
        if any(cite in text for cite in OUTSIDE):
            outside.append(str(path.relative_to(ROOT)))
    assert not outside, f"these cite a document outside the repository: {outside}"


MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80


def function_lengths():
    """(lines of the body without its docstring, where) of every function and method in mvlab/."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body
                has_doc = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
                first = body[1] if has_doc and len(body) > 1 else body[0]
                yield node.end_lineno - first.lineno + 1, f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"


def test_modules_and_functions_stay_readable():
    """A newcomer reads a module in one sitting and a function on one screen: no module over 800 lines, no
    function body over 80 (docstrings not counted)."""
    long_modules = [f"{p.relative_to(ROOT)} ({n} lines)" for p in sorted(PACKAGE.rglob("*.py"))
                    if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES]
    assert not long_modules, f"split these modules by what they hold: {long_modules}"
    long_functions = [f"{where} ({n} lines)" for n, where in function_lengths() if n > MAX_FUNCTION_LINES]
    assert not long_functions, f"split these functions into named steps: {long_functions}"
    assert max(n for n, _ in function_lengths()) > 40  # the scan does see the functions


def _mvlab_imports_of_a_test_file(path: Path) -> set[str]:
    """The mvlab modules a test file imports, and those of the tests' helpers it imports (``postgres_server``,
    ``streamlit_client``), followed as far as they go."""
    seen, todo, found = set(), [path], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for node in ast.walk(ast.parse(current.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else []
            for name in names:
                if name.split(".")[0] == "mvlab":
                    found.add(name)
                elif (helper := ROOT / "tests" / f"{name}.py").exists():
                    todo.append(helper)
    return found


def test_the_serve_room_and_its_tests_import_nothing_of_the_dashboard():
    """``serve`` starts processes and nginx: it lives in mvlab/deploy/, not among the dashboard's Streamlit glue, and
    neither it nor its tests (tests/test_serve.py with the helpers it imports) import mvlab.ui; they reach the
    dashboard as a browser does, over HTTP. Fails when serve goes back under ui/ or a test of it imports the
    dashboard (tried: tests/test_serve.py importing mvlab.ui.class_round)."""
    assert (PACKAGE / "deploy" / "serve.py").exists() and not (PACKAGE / "ui" / "serve.py").exists()
    room = {name: imported_modules(path, name) for name, path in modules() if top(name) == "deploy"}
    assert room and not [f"{n} -> {m}" for n, ms in room.items() for m in ms if top(m) == "ui"], room
    tests = _mvlab_imports_of_a_test_file(ROOT / "tests" / "test_serve.py")
    assert "mvlab.deploy.serve" in tests and not [m for m in tests if top(m) == "ui"], sorted(tests)


MAX_VIEW_FUNCTION_LINES = 40
VIEWS = PACKAGE / "ui" / "views"


def test_a_page_run_by_the_runner_is_a_declaration_and_its_view_plain_functions():
    """docs/design.md, pages: every page but Lessons is run by mvlab.ui.page, a few lines with no function
    of its own, and Lessons (its round and its place) is one call of its view; a view (mvlab/ui/views/) is functions
    of at most 40 lines that import nothing from pages/, and the runner imports no view (a view depends on the
    runner's Shown, never the reverse). Fails when a view grows a long function, a page defines one, or a page is a
    program again (tried: the limit lowered to 12, which names dvs.one_instance, dvs.view and others; pages/data.py
    back to drawing the page itself; pages/lessons.py as it was, 62 lines with its round's branches)."""
    declared = [p for p in sorted((ROOT / "pages").glob("*.py")) if "mvlab.ui.page " in p.read_text()]
    assert {p.stem for p in declared} == {"benchmark", "data", "dissimilarity", "dvs", "home", "papers", "siamese",
                                          "view_construction"}
    for page in declared:
        tree = ast.parse(page.read_text())
        assert not [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))], page.name
        assert len(page.read_text().splitlines()) <= 20, page.name
    lessons = (ROOT / "pages" / "lessons.py").read_text()
    assert len(lessons.splitlines()) <= 20 and not [
        n for n in ast.walk(ast.parse(lessons)) if isinstance(n, (ast.FunctionDef, ast.Lambda, ast.If, ast.Try))]
    long = []
    for path in sorted(VIEWS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                body = node.body
                has_doc = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
                first = body[1] if has_doc and len(body) > 1 else body[0]
                if node.end_lineno - first.lineno + 1 > MAX_VIEW_FUNCTION_LINES:
                    long.append(f"{path.name}:{node.lineno} {node.name}")
    assert not long, f"split these view functions into named parts: {long}"
    assert not [m for m in imported_modules(PACKAGE / "ui" / "page.py", "mvlab.ui.page") if ".views" in m]
