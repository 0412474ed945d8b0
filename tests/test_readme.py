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
    split = ("from sklearn.model_selection import train_test_split\n"
             "X_train, X_test, y_train, y_test = train_test_split(ds.X, ds.y, test_size=0.5, stratify=ds.y, "
             "random_state=0)\n")
    anchor = "ds.X, ds.y, ds.classes, ds.views, ds.Xs, ds.view_indices, ds.summary()\n"
    code = code.replace(anchor, anchor + split)
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["explanation"].n_instances == 300
    assert set(namespace["res"].table["method"]) == {"average", "knn", "alignment", "oob"}
