"""The cascade against DF21 on a large training set (issue 54, item 3): accuracy, fit, predict, peak memory.

Data: scikit-learn's ``make_classification`` with 50 features (10 informative, 10 redundant), 3 classes,
``--rows`` training rows and ``--test-rows`` test rows per split (stratified, ``--splits`` splits drawn from
one data set of ``rows + test_rows`` rows, seed 0). The methods, each on the same splits:

* ``mvlab defaults``: ``CascadeForest()``, the papers' setting (2 completely-random + 2 random forests of
  100 trees, 3-fold class vectors, cumulative input, patience 1);
* ``mvlab oob, previous``: the same with ``class_vectors="oob", propagation="previous"`` (the issue's
  "DF21-like" row);
* ``mvlab DF21 setting``: ``CascadeForest.df21()`` (2 random + 2 extremely randomised forests of 100 trees,
  each tree grown on the distinct rows its bootstrap drew, out-of-bag class vectors of the previous level,
  255 bins with the edges repeated by ties kept, patience 2 at gain 1e-5, at most 20 levels, compact trees
  with one-byte thresholds);
* ``mvlab DF21, last level``: the same with ``level_choice="last"``: the levels grown after the best out-of-bag
  one are kept, and it predicts with the deepest (docs/algorithms.md §C.2);
* ``DF21``: ``deepforest.CascadeForestClassifier()`` (``deep-forest-py310`` 0.1.9), its defaults (2 random
  forests + 2 extra-trees forests of 100 trees a layer, 255 bins, 2 tolerant rounds).

Every (method, split) runs in a fresh interpreter (mvlab's with this one, DF21's with the peers' venv,
``.venv-peers`` from ``bench/requirements-peers.txt``, made by ``bench/bench_peers.py``), one thread
(``n_jobs=1``, BLAS/OpenMP pinned to 1), DF21 first on each split and then mvlab's methods, so a change in
the machine's load reaches both sides. fit = one fit; predict = best of 3 on the test rows; peak memory =
the worker's own peak resident memory (``VmHWM``: the interpreter, its imports, the data, the fit and the
predictions), "fit's peak" the same read when the fit ends (before predicting), "after imports" the same
read before the data is loaded, and "above imports" their difference. mvlab's compiled traversal of compact
trees is a C extension (``mvlab/_compiled/traverse.c``, since 0.7.9; before, numba, whose runtime added about
85 MB to these peaks when the first compact forest predicted). Ratios are against DF21 on the same split (median
over the splits, per-split range in brackets).

Below the table: each mvlab method's accuracy minus DF21's split by split, with paired tests (t, Wilcoxon), and for
``level_choice="last"`` every level's out-of-bag accuracy and every kept level's held-out accuracy (``--json``
saves the rows with them; ``--pool a.json b.json`` prints the tables of several runs' rows together, fitting
nothing).

Run from the repository root::

    .venv/bin/python bench/bench_cascade_peers.py --rows 10000 --splits 3
    .venv/bin/python bench/bench_cascade_peers.py --rows 50000 --splits 1 --methods df21 "mvlab DF21 setting"

docs/bench/bench_cascade_peers.txt holds both outputs (``--out`` appends to a file).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

MVLAB_METHODS = {  # method -> (base, the CascadeForest's settings); each also gets n_jobs=1, random_state=split
    "mvlab defaults": ("papers", {}),
    "mvlab oob, previous": ("papers", {"class_vectors": "oob", "propagation": "previous"}),
    "mvlab DF21 setting": ("df21", {}),
    "mvlab DF21, last level": ("df21", {"level_choice": "last"}),
}
ALL_METHODS = ("DF21", "mvlab DF21 setting", "mvlab DF21, last level", "mvlab defaults", "mvlab oob, previous")
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def peak_mb():
    """This process's own peak resident memory so far, MiB (VmHWM: :func:`_memory.own_memory_mib`; not ru_maxrss,
    which counts the orchestrator's peak in every worker)."""
    from _memory import own_memory_mib

    return own_memory_mib()[1]


def make_data(rows, test_rows, n_splits, first_split=0):
    """X, y and the splits ``first_split, ..., first_split + n_splits - 1`` [(train rows, test rows)]: stratified,
    ``rows`` train and ``test_rows`` test each; split ``r`` is the same whichever others are drawn."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(n_samples=rows + test_rows, n_features=50, n_informative=10, n_redundant=10,
                               n_classes=3, random_state=0)
    idx = np.arange(len(y))
    splits = [tuple(np.sort(p) for p in train_test_split(idx, train_size=rows, stratify=y, random_state=r))
              for r in range(first_split, first_split + n_splits)]
    return X, y, splits


# ============================================================================================ worker
def worker(method, job, split, out):
    """Fit and predict one method on one split, in this fresh interpreter; write its row as JSON."""
    after_imports = peak_mb()
    if method == "DF21":
        from importlib import metadata

        from deepforest import CascadeForestClassifier

        def make(r):
            return CascadeForestClassifier(n_jobs=1, random_state=r, verbose=0)

        version = f"deep-forest-py310 {metadata.version('deep-forest-py310')}"
    else:
        import mvlab
        from mvlab.siamese.cascade import CascadeForest

        def make(r):
            base, settings = MVLAB_METHODS[method]
            build = CascadeForest.df21 if base == "df21" else CascadeForest
            return build(**settings, n_jobs=1, random_state=r)

        version = f"mvlab {mvlab.__version__}"
    import sklearn

    after_imports = max(after_imports, peak_mb())
    with np.load(job) as z:
        X, y, tr, te = z["X"], z["y"], z[f"train_{split}"], z[f"test_{split}"]
    est = make(split)
    t0 = time.perf_counter()
    est.fit(X[tr], y[tr])
    fit = time.perf_counter() - t0
    fit_peak = peak_mb()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        pred = est.predict(X[te])
        times.append(time.perf_counter() - t0)
    peak = peak_mb()  # before the per-level scores below, which no user's predict does
    if method == "DF21":  # the kept layers' out-of-bag accuracy (DF21 drops the layers after its best)
        levels = int(est.n_layers_)
        level_oob = [float(est._get_layer(i).val_performance_) for i in range(levels)]
        level_test = []
    else:  # every level built (kept or not); with level_choice="last" the held-out accuracy of every kept level
        levels = int(est.n_levels_)
        level_oob = [float(s) for s in est.level_scores_]
        level_test = held_out_by_level(est, X[te], y[te]) if est.level_choice == "last" else []
    row = dict(method=method, split=split, accuracy=float(np.mean(pred == y[te])), fit=fit, predict=min(times),
               peak_mb=peak, fit_peak_mb=fit_peak, after_imports_mb=after_imports, levels=levels,
               level_oob=level_oob, level_test=level_test,
               versions=f"{version}, scikit-learn {sklearn.__version__}, numpy {np.__version__}")
    Path(out).write_text(json.dumps(row))


def held_out_by_level(cascade, X, y):
    """Accuracy on ``X, y`` of the cascade cut after each of its kept levels: the decision of every level's class
    vectors (:meth:`CascadeForest.level_class_vectors`) by the cascade's own rule (``_decide``, as ``predict``)."""
    return [float(np.mean(cascade.classes_[cascade._decide(V)] == y)) for V in cascade.level_class_vectors(X)]


# ====================================================================================== orchestrator
def run_one(python, method, job, split, tmp):
    out = Path(tmp) / f"{method.replace(' ', '_').replace(',', '')}.{split}.json"
    cmd = [str(python), str(Path(__file__).resolve()), "--worker", method, "--job", str(job), "--split", str(split),
           "--result", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **ONE_THREAD})
    if done.returncode:
        raise RuntimeError(f"{method} on split {split} failed:\n{done.stderr[-4000:]}")
    return json.loads(out.read_text())


def table(rows, methods):
    """The issue's table: one line per method, ratios against DF21 on the same splits."""
    by = {m: sorted((r for r in rows if r["method"] == m), key=lambda r: r["split"]) for m in methods}
    ref = by.get("DF21")
    lines = ["| method | accuracy | fit s (fastest) | predict s (fastest) | peak memory MB (after imports) "
             "| fit's peak MB | above imports MB | levels | fit / DF21 | predict / DF21 | memory / DF21 "
             "| fit's peak / DF21 | above imports / DF21 |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in methods:
        rs = by[m]
        if not rs:
            continue
        acc = np.array([r["accuracy"] for r in rs])
        fit, pred = np.array([r["fit"] for r in rs]), np.array([r["predict"] for r in rs])
        mem = np.array([r["peak_mb"] for r in rs])
        fit_mem = np.array([r.get("fit_peak_mb", np.nan) for r in rs])
        imp = np.array([r["after_imports_mb"] for r in rs])
        own = mem - imp
        std = f"{acc.std(ddof=1):.4f}" if len(acc) > 1 else "(1 split)"
        cells = [m, f"{acc.mean():.4f} ± {std}", f"{np.median(fit):.1f} ({fit.min():.1f})",
                 f"{np.median(pred):.3f} ({pred.min():.3f})", f"{mem.min():.0f}–{mem.max():.0f} ({np.median(imp):.0f})",
                 f"{fit_mem.min():.0f}–{fit_mem.max():.0f}", f"{own.min():.0f}–{own.max():.0f}",
                 " ".join(str(r["levels"]) for r in rs)]
        if ref and m != "DF21" and [r["split"] for r in ref] == [r["split"] for r in rs]:
            for key in ("fit", "predict", "peak_mb", "fit_peak_mb", "above"):
                if key == "above":
                    # at least 1 MB below: a small fit may add nothing to the peak of the imports
                    q = np.array([max(a["peak_mb"] - a["after_imports_mb"], 1.0)
                                  / max(b["peak_mb"] - b["after_imports_mb"], 1.0) for a, b in zip(rs, ref)])
                else:
                    q = np.array([a[key] / b[key] for a, b in zip(rs, ref)])
                cells.append(f"{np.median(q):.2f} ({q.min():.2f}–{q.max():.2f})")
            acc_ref = np.array([r["accuracy"] for r in ref])
            cells[1] += f" ({'+' if acc.mean() >= acc_ref.mean() else ''}{100 * (acc.mean() - acc_ref.mean()):.1f} pt; "
            cells[1] += f"{int(np.sum(acc >= acc_ref))}/{len(acc)} splits ≥ DF21)"
        else:
            cells += ["", "", "", "", ""]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def paired(rows, methods):
    """Each mvlab method's accuracy against DF21's, split by split: the differences, their mean, and two paired
    tests (Student's t and Wilcoxon's signed ranks, scipy; with 3 splits or more)."""
    from scipy import stats

    by = {m: {r["split"]: r["accuracy"] for r in rows if r["method"] == m} for m in methods}
    lines = []
    for m in methods:
        common = sorted(set(by[m]) & set(by.get("DF21", {})))
        if m == "DF21" or not common:
            continue
        d = np.array([by[m][r] - by["DF21"][r] for r in common])
        line = (f"{m} − DF21, accuracy points on splits {common[0]}–{common[-1]}: "
                + " ".join(f"{100 * v:+.2f}" for v in d)
                + f"; mean {100 * d.mean():+.2f}, at least DF21's on {int(np.sum(d >= 0))} of {len(d)}")
        if len(d) >= 3:
            line += f"; paired t p = {stats.ttest_rel(d, np.zeros_like(d)).pvalue:.3f}"
            if np.any(d != 0):
                line += f", Wilcoxon p = {stats.wilcoxon(d).pvalue:.3f}"
        lines.append(line)
    return lines


def level_lines(rows, methods):
    """Per split, for the methods that record it: the level with the best out-of-bag accuracy (the first), and the
    held-out accuracy there and at the deepest level kept."""
    lines = []
    for m in (m for m in methods if MVLAB_METHODS.get(m, ("", {}))[1].get("level_choice") == "last"):
        for r in sorted((r for r in rows if r["method"] == m), key=lambda r: r["split"]):
            oob, test = r["level_oob"], r["level_test"]
            b = int(np.argmax(oob))
            lines.append(f"  split {r['split']}: {m}: out-of-bag accuracy by level "
                         + " ".join(f"{v:.4f}" for v in oob) + f" (best: level {b + 1}); held-out by kept level "
                         + " ".join(f"{v:.4f}" for v in test)
                         + (f" ({100 * (test[-1] - test[b]):+.2f} pt at the last against the best)"
                            if len(test) > b + 1 else ""))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--job", help=argparse.SUPPRESS)
    ap.add_argument("--split", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    ap.add_argument("--rows", type=int, default=10000, help="training rows per split (default 10000)")
    ap.add_argument("--test-rows", type=int, default=5000, help="test rows per split (default 5000)")
    ap.add_argument("--splits", type=int, default=3, help="stratified splits (default 3)")
    ap.add_argument("--first-split", type=int, default=0,
                    help="number of the first split (default 0): --first-split 3 --splits 2 runs splits 3 and 4")
    ap.add_argument("--methods", nargs="+", choices=ALL_METHODS, default=list(ALL_METHODS))
    ap.add_argument("--peers-venv", type=Path, default=REPO / ".venv-peers")
    ap.add_argument("--out", type=Path, help="also append the output to this file")
    ap.add_argument("--json", type=Path, help="also write every worker's row to this JSON file")
    ap.add_argument("--pool", type=Path, nargs="+",
                    help="fit nothing: print the tables of the rows saved by earlier runs' --json files, pooled")
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.job, args.split, args.result)

    from bench_peers import parallel_probe, peers_python

    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    methods = [m for m in ALL_METHODS if m in args.methods]
    if args.pool:
        rows = [row for path in args.pool for row in json.loads(path.read_text())]
        say(f"# The cascade against DF21: the rows of {len(args.pool)} run(s) pooled ("
            + ", ".join(p.name for p in args.pool) + f"), splits {sorted({r['split'] for r in rows})} "
            "(bench/bench_cascade_peers.py --pool)")
        summary(rows, [m for m in methods if any(r["method"] == m for r in rows)], say)
        append_to(args.out, lines)
        return
    peers_py = None
    if "DF21" in methods:
        peers_py, why = peers_python(args.peers_venv, setup=True)
        if peers_py is None:
            say(f"DF21 NOT MEASURED: {why}")
            methods.remove("DF21")
    say(f"# The cascade against DF21: {args.rows} training rows x 50 features, 3 classes, {args.test_rows} test rows, "
        f"{args.splits} stratified split(s) from split {args.first_split}, one thread (bench/bench_cascade_peers.py)")
    say(f"python {platform.python_version()}; {os.cpu_count()} cores, two busy processes ran {parallel_probe():.2f}x "
        "one at the start (2.00 = two free cores; the machine is shared)")
    t_start = time.perf_counter()
    X, y, splits = make_data(args.rows, args.test_rows, args.splits, args.first_split)
    numbers = range(args.first_split, args.first_split + args.splits)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.npz"
        arrays = {"X": X, "y": y}
        for r, (tr, te) in zip(numbers, splits):
            arrays[f"train_{r}"], arrays[f"test_{r}"] = tr, te
        np.savez(job, **arrays)
        for r in numbers:
            for m in methods:
                python = peers_py if m == "DF21" else Path(sys.executable)
                row = run_one(python, m, job, r, tmp)
                rows.append(row)
                if args.json:
                    args.json.write_text(json.dumps(rows, indent=1))
                say(f"  split {r}: {m:22s} accuracy {row['accuracy']:.4f}  fit {row['fit']:7.1f} s  predict "
                    f"{row['predict']:.3f} s  peak {row['peak_mb']:.0f} MB (fit's {row['fit_peak_mb']:.0f})  levels "
                    f"{row['levels']}")
    summary(rows, methods, say)
    say(f"total {time.perf_counter() - t_start:.0f} s; two busy processes ran {parallel_probe():.2f}x one at the end")
    append_to(args.out, lines)


def append_to(path, lines):
    """Append the printed lines to ``path`` (``--out``), if given."""
    if path:
        with path.open("a") as fh:
            fh.write("\n".join(lines) + "\n\n")


def summary(rows, methods, say):
    """The table, the paired accuracy lines, the per-level lines and the legend."""
    say()
    for line in table(rows, methods) + [""] + paired(rows, methods) + level_lines(rows, methods):
        say(line)
    say()
    say("accuracy: mean ± std over the splits (points and splits against DF21); fit, predict: median over the splits "
        "(fastest); peak memory: range over the splits (after imports: median); fit's peak: the peak when the fit "
        "ends, before predicting; above imports: peak minus after imports (what the data, the fit and the "
        "predictions added); levels: kept, per split; ratios: median of the "
        "per-split ratios (range)")
    versions = {r["method"].split()[0]: r["versions"] for r in rows}
    say("versions: " + "; ".join(f"{k}: {v}" for k, v in versions.items()))


if __name__ == "__main__":
    main()
