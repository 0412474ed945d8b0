"""Compact forests' compiled traversal against the routes it replaced (issue 54, item 3): ratios in one run.

A random forest and a forest of extremely randomised trees (the two kinds of DF21's levels), 100 trees each, fully
grown on 10,000 binned rows (``make_classification``, 50 features, 3 classes, codes 0..255), predicted on 5,000
more, one thread, best of 7 per route, alternating:

* ``compiled``: ``forest_proba`` on the ``CompactForest`` (mvlab's compiled traversal, a C extension since 0.7.9,
  numba before; all trees in one call: every row steps half a tree's depth, then only the rows not yet on a leaf);
* ``whole depth``: the same kernel with ``staged=False``, every row stepping the tree's whole depth, as the
  traversal before 0.7.8 did (which also read four arrays a step where this reads one record);
* ``rebuilt``: each compact tree rebuilt as a scikit-learn ``Tree`` and its ``apply`` (the route before the
  kernel; the reference of ``tests/test_compact_traverse.py``);
* ``scikit-learn``: the fitted forest's own ``predict_proba``.

The first three give the same probabilities bit for bit, scikit-learn's within 1e-12 (checked here first). Run
from the repository root::

    .venv/bin/python bench/bench_compact_traversal.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import numpy as np  # noqa: E402
from _timing import best_of  # noqa: E402


def time_routes(forest, rows, kind):
    """Print the four routes' best times on one fitted forest (its trees made compact), after checking that they
    give the same probabilities."""
    from test_compact_traverse import reference_tree_predict

    from mvlab.siamese._traverse import accumulate_leaves
    from mvlab.siamese.class_vectors import forest_proba
    from mvlab.siamese.compact import CompactForest

    compact = CompactForest(forest, integer_inputs=True)
    T = compact.n_estimators

    def whole_depth():
        acc = np.zeros((len(rows), 3))
        accumulate_leaves(rows.astype(np.uint8), np.arange(T), np.full(T, 1 / T), compact.arrays(), acc,
                          staged=False)
        return acc

    routes = {
        "compiled": lambda: forest_proba(compact, rows, 3),
        "whole depth": whole_depth,
        "rebuilt": lambda: sum((1 / T) * reference_tree_predict(compact, t, rows) for t in range(T)),
        "scikit-learn": lambda: forest.predict_proba(rows),
    }
    first = {name: fn() for name, fn in routes.items()}  # a first call of each, outside the timing
    assert np.array_equal(first["compiled"], first["rebuilt"])
    assert np.array_equal(first["compiled"], first["whole depth"])
    assert np.allclose(first["compiled"], first["scikit-learn"], rtol=0, atol=1e-12)
    best = {name: float("inf") for name in routes}
    for _ in range(7):
        for name, fn in routes.items():
            best[name] = min(best[name], best_of(fn, 1)[0])
    steps = forest.decision_path(rows)[0].nnz / (len(rows) * T) - 1  # a row's nodes on its path, less the root
    print(f"# {kind}, 100 trees x {compact.node_offsets_[-1] // T} nodes, 5,000 rows, one thread, best of 7;"
          f" a row reaches its leaf in {steps:.1f} steps on average, the trees' depth {compact.max_depths_.mean():.1f}")
    for name, seconds in best.items():
        print(f"  {name:13s} {seconds * 1e3:7.1f} ms   compiled / this: {best['compiled'] / seconds:.2f}")


def main():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    X, y = make_classification(15000, 50, n_informative=20, n_classes=3, random_state=0)
    X = np.floor((X - X.min(0)) / (X.max(0) - X.min(0) + 1e-9) * 255).astype(np.float32)
    rows = np.ascontiguousarray(X[10000:])
    for kind, make in (("random forest", RandomForestClassifier), ("extremely randomised trees", ExtraTreesClassifier)):
        time_routes(make(100, random_state=0, n_jobs=1).fit(X[:10000], y[:10000]), rows, kind)


if __name__ == "__main__":
    main()
