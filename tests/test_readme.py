"""The Python examples of the README and of the library guide run (with fewer trees and splits, so the test stays
quick), and the command-line guide's commands parse."""

import re

from conftest import ROOT


def python_blocks(path="docs/guide/library.md"):
    return re.findall(r"```python\n(.*?)```", (ROOT / path).read_text(), re.S)


def readme_blocks():
    """The library guide's blocks: the tour, the cost estimate, an experiment, the job engine."""
    return python_blocks()


def test_the_readme_example_runs(capsys):
    (code,) = python_blocks("README.md")
    assert "n_estimators=50" in code, "the README's example changed; update this test"
    namespace = {}
    exec(compile(code.replace("n_estimators=50", "n_estimators=4"), "README.md", "exec"), namespace)
    grid = namespace["grid"]
    assert grid.best_params_["combination__competence"] in ("ola", "soft")
    assert grid.best_estimator_.combiner_.competence == grid.best_params_["combination__competence"]
    assert "{'combination__competence'" in capsys.readouterr().out


def test_library_examples_run(tmp_path):
    library, _, experiment, _ = readme_blocks()
    shrink = {"n_estimators=512": "n_estimators=20", "n_estimators=100": "n_estimators=10",
              '"n_estimators": 100': '"n_estimators": 5', "RepeatedHoldout(10, 0.5)": "RepeatedHoldout(2, 0.5)",
              "ResultsStore()": f"ResultsStore({str(tmp_path / 'r.sqlite')!r})"}
    code = library + experiment
    for old, new in shrink.items():
        assert old in code, f"the library guide no longer contains {old!r}; update this test"
        code = code.replace(old, new)
    namespace = {}
    exec(compile(code, "docs/guide/library.md", "exec"), namespace)
    assert namespace["explanation"].n_instances == 300
    assert set(namespace["res"].table["method"]) == {"average", "knn", "alignment", "oob"}


def test_the_job_engine_example_runs(capsys):
    code = readme_blocks()[3].replace('Engine()', 'Engine(EngineConfig(n_workers=1, dashboard=None))')
    code = code.replace("import Engine, Request", "import Engine, EngineConfig, Request")
    exec(compile(code, "docs/guide/library.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out.strip() == "finished 10.0"


def cited_sections():
    """Every section of docs/algorithms.md that a docstring, page, test, bench or doc cites ("§A.8", "B.7 step 5")."""
    cite = re.compile(r"docs/algorithms\.md\)?((?:[ ,;§]|and|paper [A-C])*(?:[A-D]\.\d+(?:\.\d+)?[-–]?)+)")
    section = re.compile(r"[A-D]\.\d+(?:\.\d+)?")
    for folder in ("mvlab", "pages", "tests", "bench", "docs", "sample_data"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".md") and path.name != "algorithms.md":
                for m in cite.finditer(path.read_text()):
                    for s in section.findall(m.group(1)):
                        yield path.relative_to(ROOT), s
    for m in cite.finditer((ROOT / "README.md").read_text()):
        for s in section.findall(m.group(1)):
            yield "README.md", s


def test_the_cost_estimate_example_says_what_the_readme_says():
    block = readme_blocks()[1]
    namespace = {}
    exec(compile(block, "docs/guide/library.md", "exec"), namespace)
    said = re.search(r"est.describe\(\)\s+# '(.*)'", block).group(1)
    assert namespace["est"].describe() == said
    assert "more than the 4.0 GB available" in namespace["est"].problems(limit_bytes=4e9)[0]


def test_cited_algorithm_sections_exist():
    headings = set(re.findall(r"^#+ ([A-D]\.\d+(?:\.\d+)?) ", (ROOT / "docs" / "algorithms.md").read_text(), re.M))
    cited = list(cited_sections())
    assert len(cited) > 40  # the docstrings do cite it
    missing = [(str(where), s) for where, s in cited if s not in headings]
    assert not missing, f"sections cited but not in docs/algorithms.md: {missing}"


def test_command_line_examples_parse_and_the_quick_ones_run(tmp_path, capsys):
    """Every command of the command-line guide's block is valid for the parser as written; the
    ones that take seconds run."""
    import shlex

    from mvlab.cli import build_parser, main

    text = (ROOT / "docs" / "guide" / "command-line.md").read_text()
    block = re.search(r"# Command line\n\n```bash\n(.*?)```", text, re.S).group(1)
    prefix = ".venv/bin/python -m mvlab "
    commands = [shlex.split(line.split("  #")[0].removeprefix(prefix)) for line in block.splitlines() if line]
    assert all(line.startswith(prefix) for line in block.splitlines() if line)
    assert len(commands) >= 6
    for argv in commands:
        build_parser().parse_args(argv)  # exits (SystemExit) on an argument the parser does not know
    store = ["--store", str(tmp_path / "r.sqlite")]
    for argv in commands:
        if argv[0] in ("datasets", "runs"):
            assert main(store + argv) == 0
    assert "| mfeat |" in capsys.readouterr().out
