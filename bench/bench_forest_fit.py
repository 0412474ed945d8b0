"""What ``mvlab.core.forest_fit.fit_forest`` buys: scikit-learn's forests without their per-tree Python overhead.

Printed, each measured in this run, the two ways interleaved (best of 3 for single fits):

1. one forest fitted by ``forest.fit`` and by ``fit_forest`` at the sizes of the Siamese deep forest's fold-models
   (2/3 of N training pairs of Ionosphere's 2 x 34 features; random forests and completely random forests), with a
   check that the trees are the same;
2. one draw of the paper protocol (gcForest + SDF, ``mvlab.reproduction.sdf_paper.run_draw``) both ways, with its
   accuracies, which must be equal;
3. the library work of the Dissimilarity, Dynamic view selection and Benchmark pages on their defaults (each
   settings' ``run``, on the two threads a run alone gets) with every forest fitted by ``forest.fit`` (the fast path
   switched off) and as the pages fit them (view forests, final forests, the concatenation and stacking baselines
   through ``fit_forest`` or :class:`mvlab.core.forest_fit.FastFitRandomForestClassifier`), best of 3 interleaved;
   the results, every array and number but the seconds, must be equal.

    python bench/bench_forest_fit.py                 # about 4 minutes
    python bench/bench_forest_fit.py --N 2000 --T 700
    python bench/bench_forest_fit.py --pages         # part 3 alone (about a minute)
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_of, timed
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

import mvlab.siamese.cascade as cascade
from mvlab.core.forest_fit import fit_forest
from mvlab.datasets import load_dataset
from mvlab.reproduction.sdf_paper import DrawTask, run_draw
from mvlab.siamese.pairs import make_pair_split, pair_features


def _same_trees(a, b) -> bool:
    return all(np.array_equal(x.tree_.threshold, y.tree_.threshold) and np.array_equal(x.tree_.value, y.tree_.value)
               for x, y in zip(a.estimators_, b.estimators_))


def single_fits(n_pairs: int, trees: int) -> None:
    ds = load_dataset("ionosphere")
    split = make_pair_split(ds.y, n_pairs, random_state=0)
    rows = 2 * n_pairs // 3  # a fold-model's training pairs
    X = pair_features(ds.X, split.train_pairs)[:rows].astype(np.float32)
    y = split.y_train[:rows]
    for name, make in (("random forest", lambda: RandomForestClassifier(trees, max_features="sqrt", random_state=1)),
                       ("completely random forest",
                        lambda: ExtraTreesClassifier(trees, max_features=1, random_state=1))):
        plain, a = best_of(lambda make=make: make().fit(X, y))
        fast, b = best_of(lambda make=make: fit_forest(make(), X, y))
        print(f"1. {name}, {rows} pairs x {X.shape[1]} features, {trees} trees: forest.fit {plain:.3f} s, "
              f"fit_forest {fast:.3f} s: {plain / fast:.2f}x; same trees: {_same_trees(a, b)}")


def one_draw(n_pairs: int, trees: int) -> None:
    task = DrawTask("ionosphere", n_pairs, trees, "disjoint", 0, ("gcforest", "sdf"))
    results = {}
    for label, fit in (("forest.fit", lambda est, X, y: est.fit(X, y)), ("fit_forest", fit_forest)):
        cascade.fit_forest = fit
        try:
            seconds, rows = timed(lambda: run_draw(task, n_jobs=1))
        finally:
            cascade.fit_forest = fit_forest
        results[label] = (seconds, [(r["model"], round(r["accuracy"], 6), r["n_levels"]) for r in rows])
    (plain, a), (fast, b) = results["forest.fit"], results["fit_forest"]
    print(f"2. one draw (Ionosphere, N = {n_pairs}, T = {trees}, gcForest + SDF, one thread): "
          f"forest.fit {plain:.1f} s, fit_forest {fast:.1f} s: {plain / fast:.2f}x; "
          f"same accuracies and levels: {a == b} {b}")


def _page_result(name: str, seed: int):
    """``settings.run`` of the page ``name``'s default settings with ``seed`` on its default data, on two threads, and
    what it returns without its seconds (the arrays of its ``.npz`` and its meta data; a Benchmark's stored rows
    without their batch's random name)."""
    import io
    import json

    from joblib import parallel_config

    from mvlab import datasets
    from mvlab.experiments import settings as settings_module
    from mvlab.store import ResultsStore
    from mvlab.ui.state import DEFAULT_SAMPLE, bundled_dataset

    settings = getattr(settings_module, name)(seed=seed)
    with parallel_config(backend="threading", n_jobs=2):
        if name == "BenchmarkSettings":
            import tempfile

            with tempfile.TemporaryDirectory() as folder:
                store = ResultsStore(f"{folder}/results.sqlite")
                seconds, (batch, _) = timed(lambda: settings.run(store))
                rows = store.results(kind=batch).drop(columns=["run_id", "kind", "seconds", "params"])
                return seconds, sorted(map(tuple, rows.astype(str).values.tolist()))
        ds = bundled_dataset(datasets.list_datasets()[0], DEFAULT_SAMPLE, seed)
        data = settings.data(ds) if hasattr(settings, "data") else ds
        seconds, result = timed(lambda: settings.run(data))
    packed = np.load(io.BytesIO(result.to_npz()))
    meta = json.loads(str(packed["meta"]))
    meta.pop("seconds", None)
    return seconds, ({key: packed[key].tolist() for key in packed.files if key != "meta"}, meta)


def pages(repeat: int = 3) -> None:
    """Part 3: each page's library work with every forest through ``forest.fit`` and as the pages fit them."""
    from mvlab.core import forest_fit

    for title, name in (("Dissimilarity", "DissimilaritySettings"), ("Dynamic view selection", "DVSSettings"),
                        ("Benchmark", "BenchmarkSettings")):
        _page_result(name, 0)  # warm-up: imports, caches
        best = {"forest.fit": float("inf"), "fit_forest": float("inf")}
        got = {}
        for _ in range(repeat):
            for label, fast in (("forest.fit", False), ("fit_forest", True)):
                kept = list(forest_fit._verified)
                forest_fit._verified[:] = [fast and forest_fit.fast_path_available()]
                try:
                    seconds, got[label] = _page_result(name, 1)
                finally:
                    forest_fit._verified[:] = kept
                best[label] = min(best[label], seconds)
        plain, fast = best["forest.fit"], best["fit_forest"]
        print(f"3. {title} page, its defaults (two threads): every forest by forest.fit {plain:.2f} s, as the page "
              f"fits them {fast:.2f} s: {plain / fast:.2f}x; same result: {got['forest.fit'] == got['fit_forest']}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=500)
    ap.add_argument("--T", type=int, default=400)
    ap.add_argument("--pages", action="store_true", help="part 3 alone: the pages' library work both ways")
    args = ap.parse_args(argv)
    if args.pages:
        pages()
        return
    single_fits(args.N, args.T)
    single_fits(2000, args.T)
    one_draw(args.N, args.T)
    pages()
    print(f"\n(numpy {np.__version__}; wall-clock seconds of this run; the machine's other load counts too)")


if __name__ == "__main__":
    main()
