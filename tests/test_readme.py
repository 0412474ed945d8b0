"""The README's Python examples run (with fewer trees and splits, so the test stays quick)."""

import re

from conftest import ROOT


def readme_blocks():
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)


def test_library_examples_run(tmp_path):
    library, experiment = readme_blocks()
    shrink = {"n_estimators=512": "n_estimators=20", "n_estimators=100": "n_estimators=10",
              '"n_estimators": 100': '"n_estimators": 5', "RepeatedHoldout(10, 0.5)": "RepeatedHoldout(2, 0.5)",
              "ResultsStore()": f"ResultsStore({str(tmp_path / 'r.sqlite')!r})"}
    code = library + experiment
    for old, new in shrink.items():
        assert old in code, f"the README no longer contains {old!r}; update this test"
        code = code.replace(old, new)
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["explanation"].n_instances == 300
    assert set(namespace["res"].table["method"]) == {"average", "knn", "alignment", "oob"}
