"""Benchmark of RFDClassifier at 5,000 to 100,000 training rows (issue 23, Bench).

Setting: the synthetic generator (:func:`mvlab.datasets.synthetic.make_multiview_classification`),
3 views x 20 features, 3 classes; ``n_train`` training rows and ``n_train / 4`` test rows (25 % more
rows than the training set); 100 trees for every forest, ``n_jobs=2``; ``prototypes="auto"`` (the
exact space up to 10,000 training rows, 1,000 prototypes above).  Two combinations:

* ``avg``: ``combination="average"``;
* ``dvs``: ``combination="dvs"`` with the soft competence and the shared region (7 candidates).

Each configuration runs in its own process (``--child``), which reports fit and predict wall-clock
times, the accuracy, and its own peak resident memory (``VmHWM``); the memory estimate of
:func:`mvlab.rfd.cost.estimate_cost` is printed beside it.  The parent prints the table, the slope
of log(total time) against log(n_train) per combination, and whether the targets are met:

* Avg at 100,000 training rows under 6 GB and 10 minutes;
* DVS (7 candidates) at 100,000 training rows under 8 GB and 20 minutes;
* slope at most 1.3.

The machine is shared (2 cores, other sessions running): times are single runs, not best-of.

Run::

    .venv/bin/python bench/bench_scale.py [--sizes 5000 20000 100000] [--combinations avg dvs]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

COMBINATIONS = {  # the combination (its name) and its rules (DVSCombiner's)
    "avg": ("average", {}),
    "dvs": ("dvs", {"competence": "soft", "region": "shared"}),
}
TARGETS = {"avg": (6e9, 600.0), "dvs": (8e9, 1200.0)}  # at 100,000 training rows: bytes, seconds
SLOPE_TARGET = 1.3
TREES, N_JOBS, VIEWS, FEATURES, CLASSES = 100, 2, 3, 20, 3


def child(name: str, n_train: int, seed: int) -> dict:
    from _memory import own_memory_mib  # the script's folder is on sys.path

    from mvlab.datasets.synthetic import make_multiview_classification
    from mvlab.rfd.classifier import RFDClassifier, make_combiner

    n_test = n_train // 4
    ds = make_multiview_classification(n_samples=n_train + n_test, n_views=VIEWS, n_features=FEATURES,
                                       n_classes=CLASSES, random_state=seed)
    X, y = ds.X, ds.y
    clf = RFDClassifier(views=ds.views, n_estimators=TREES, n_jobs=N_JOBS, random_state=seed,
                        combination=make_combiner(COMBINATIONS[name][0]).set_params(**COMBINATIONS[name][1]))
    t0 = time.perf_counter()
    clf.fit(X[:n_train], y[:n_train])
    t1 = time.perf_counter()
    accuracy = float(np.mean(clf.predict(X[n_train:]) == y[n_train:]))
    t2 = time.perf_counter()
    return {"name": name, "n_train": n_train, "n_test": n_test, "fit_s": t1 - t0, "predict_s": t2 - t1,
            "accuracy": accuracy, "peak_bytes": int(own_memory_mib()[1] * 1024 * 1024),
            "n_prototypes": clf.n_prototypes_}


def run_child(name: str, n_train: int, seed: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", name, str(n_train), str(seed)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return {"name": name, "n_train": n_train, "error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def slope(rows: list[dict]) -> float:
    ok = [r for r in rows if "error" not in r]
    if len(ok) < 2:
        return float("nan")
    n = np.log([r["n_train"] for r in ok])
    t = np.log([r["fit_s"] + r["predict_s"] for r in ok])
    return float(np.polyfit(n, t, 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000, 100000])
    ap.add_argument("--combinations", nargs="+", default=list(COMBINATIONS), choices=list(COMBINATIONS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--child", nargs=3, metavar=("NAME", "N_TRAIN", "SEED"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), int(args.child[2]))))
        return

    from mvlab.rfd.cost import estimate_cost

    print(f"bench_scale: synthetic data, {VIEWS} views x {FEATURES} features, {CLASSES} classes, {TREES} trees, "
          f"n_jobs={N_JOBS}; test rows = n_train / 4; each configuration in its own process; shared machine.")
    print(f"{'config':>5} {'n_train':>8} {'protos':>7} {'fit s':>8} {'pred s':>8} {'total s':>8} {'peak GB':>8} "
          f"{'est GB':>7} {'est s':>7} {'acc':>6}")
    results: dict[str, list[dict]] = {name: [] for name in args.combinations}
    for n in args.sizes:
        for name in args.combinations:
            r = run_child(name, n, args.seed)
            results[name].append(r)
            est = estimate_cost(n, n // 4, VIEWS, VIEWS * FEATURES, TREES, n_classes=CLASSES, n_jobs=N_JOBS,
                                combination=COMBINATIONS[name][0],
                                dvs_region=COMBINATIONS[name][1].get("region", "candidate"))
            if "error" in r:
                print(f"{name:>5} {n:>8} failed: {r['error']}  (estimate {est.peak_bytes / 1e9:.1f} GB)")
                continue
            total = r["fit_s"] + r["predict_s"]
            print(f"{name:>5} {n:>8} {r['n_prototypes']:>7} {r['fit_s']:>8.1f} {r['predict_s']:>8.1f} {total:>8.1f} "
                  f"{r['peak_bytes'] / 1e9:>8.2f} {est.peak_bytes / 1e9:>7.2f} {est.seconds:>7.0f} "
                  f"{r['accuracy']:>6.3f}", flush=True)
    print()
    for name, rows in results.items():
        s = slope(rows)
        if np.isnan(s):
            print(f"{name}: slope of log(total time) vs log(n_train): needs two sizes or more")
        else:
            print(f"{name}: slope of log(total time) vs log(n_train) = {s:.2f}  (target <= {SLOPE_TARGET}: "
                  f"{'met' if s <= SLOPE_TARGET else 'NOT met'})")
        big = [r for r in rows if r.get("n_train") == 100000 and "error" not in r]
        if big:
            limit_b, limit_s = TARGETS[name]
            r = big[0]
            total = r["fit_s"] + r["predict_s"]
            met = r["peak_bytes"] < limit_b and total < limit_s
            print(f"{name} at 100,000: {r['peak_bytes'] / 1e9:.2f} GB (target < {limit_b / 1e9:.0f}), "
                  f"{total / 60:.1f} min (target < {limit_s / 60:.0f}): {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
