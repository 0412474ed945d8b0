"""mvlab's forest proximities against forestgeom's, on one forest, in one run (issue 54, items 1 and 2).

forestgeom 0.4.0 (PyPI; Aumon, Wolf, Moon & Rhodes, arXiv 2601.02735) computes exact forest proximities through the
sparse factorisation ``P = Q W^T`` (``Q`` the rows' leaf-indicator matrix, ``W`` the weighted leaf matrix), with the
uniform (Breiman), OOB and RF-GAP ("gap") weightings.  This bench grows ONE random forest (``--trees`` trees,
fully grown, bootstrap, ``make_classification`` with 20 features) per size, and runs both libraries' proximities of
the training rows on it, for every measure and route they share:

==========  ==========================================  =====================================================
route       mvlab                                       forestgeom (its public API, README of 0.4.0)
==========  ==========================================  =====================================================
dense       ``train_dissimilarity_``                    ``training_proximity(return_dense=True)``
sparse      ``sparse_rows(sort=False)`` (all rows)      ``training_proximity()`` (CSR, columns unsorted)
blocked     ``sparse_rows(rows=b, sort=False)`` per     ``query_map()[b] @ reference_map().T`` per block
            block (columns in the product's order)      (scipy's product: columns in its order too)
sorted      ``sparse_rows(rows=b)`` (columns            the same, then ``sort_indices()`` (canonical CSR)
            ascending: mvlab's default)
knn         blocked + ``k_smallest_sparse``             blocked + a plain top-k (this file; forestgeom has no
            (leave-one-out, ties to the lowest index)   neighbour search): sort by (row, -p, column)
==========  ==========================================  =====================================================

OOB has no ``Q``/``W`` factorisation in forestgeom (its README: pairwise-normalised, computed directly), so its
shared routes are dense and sparse.  Skipped sizes, said in the output: dense above 20,000 rows (an (n, n) float32
matrix is 40 GB at 100,000) and the all-rows sparse result above ``--max-all-rows`` (about 9,400 stored entries per
row at 100,000 rows of this data: 7.5 GB of entries for either library).

**Time** is wall-clock from the grown forest to the result: both sides pay their own leaf location and
bookkeeping (mvlab ``ForestDissimilarity._fit(forest=...)``, forestgeom ``Proximity(forest).fit``), never the
forest's growth.  **Memory** is the measuring process's own peak resident memory (``VmHWM``), and the part of
it above the process after loading the data and the forest and importing the library (the app's venv loads
pandas with scikit-learn: about 65 MB more before any proximity).  Every measurement runs in a fresh process;
the two libraries alternate, in turns that swap which goes first; times and peaks are medians over ``--repeat``
runs (the fastest in brackets).  **Agreement**: the largest absolute difference between mvlab's ``1 - d`` and
forestgeom's proximity over ``--sample`` rows spread over the training set (every column); the k-nearest lists
are compared row by row.  Where a definition differs, it is left out and said: RF-GAP's own proximity
``p(x_i, x_i)`` is 0 by definition (forestgeom), mvlab sets ``d(x_i, x_i) = 0`` (proximity 1).

Both sides run on ``--n-jobs`` threads (default 1: forestgeom's products are single-threaded; mvlab's blocks and
the forest's ``apply`` take the same setting).

Two interpreters: forestgeom is GPL-3.0-or-later, so it is never a dependency of mvlab; it runs in its own venv
(``.venv-forestgeom``, from ``bench/requirements-forestgeom.txt``, created by this script when missing), with the
same numpy, scipy and scikit-learn as the app's venv so that both load the same pickled forest.  Run::

    .venv/bin/python bench/bench_proximity_peers.py                       # 5,000, 20,000, 100,000 rows
    .venv/bin/python bench/bench_proximity_peers.py --sizes 5000,20000    # minutes
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run from anywhere without installing

from _venvs import venv_python  # noqa: E402  (the script's folder is on sys.path)

MEASURES = {"breiman": "uniform", "oob": "oob", "rfgap": "gap"}  # mvlab name -> forestgeom weight_scheme
ROUTES = {"breiman": ("dense", "sparse", "blocked", "sorted", "knn"), "oob": ("dense", "sparse"),
          "rfgap": ("dense", "sparse", "blocked", "sorted", "knn")}
DENSE_MAX = 20_000


# ============================================================================================ workers
# A worker runs in a fresh interpreter: it loads the job (data, forest), measures one (measure, route) and writes
# {"seconds", "peak", "baseline", "versions", "sample" (file of the proximity rows or the neighbour lists)}.

def _rss() -> int:
    """This process's own peak resident memory so far, bytes (VmHWM: :func:`_memory.own_memory_mib`; not
    ru_maxrss, which counts the orchestrator's peak in every worker)."""
    from _memory import own_memory_mib

    return int(own_memory_mib()[1] * 1024 * 1024)


def _load(job):
    import joblib

    X, y, forest, spec = joblib.load(job)
    forest.set_params(n_jobs=spec["n_jobs"])
    return X, y, forest, spec


def _blocks(n, size):
    return [slice(a, min(a + size, n)) for a in range(0, n, size)]


def _topk(rows_of_p, offset, k):
    """The ``k`` largest proximities of every row of a CSR block, ranked by (-p, column), without the row's own
    column (``offset + row``): a plain top-k by one sort of the block's entries.  Rows with fewer than ``k`` such
    entries are filled with the lowest columns not taken (proximity 0), as mvlab's rule does."""
    coo = rows_of_p.tocoo()
    r, c, v = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data
    keep = (c != r + offset) & (v > 0)
    r, c, v = r[keep], c[keep], v[keep]
    order = np.lexsort((c, -v, r))
    r, c, v = r[order], c[order], v[order]
    n = rows_of_p.shape[0]
    counts = np.bincount(r, minlength=n)
    rank = np.arange(r.size) - (np.cumsum(counts) - counts)[r]
    sel = rank < k
    idx = np.full((n, k), -1, dtype=np.int64)
    val = np.zeros((n, k), dtype=np.float32)
    idx[r[sel], rank[sel]], val[r[sel], rank[sel]] = c[sel], v[sel]
    for i in np.flatnonzero(counts < k):
        taken = set(idx[i][idx[i] >= 0].tolist()) | {offset + i}
        free = (j for j in range(rows_of_p.shape[1]) if j not in taken)
        for s in range(counts[i], k):
            idx[i, s] = next(free)
    return idx, val


def worker_mvlab(job, measure, route, out):
    from mvlab.core.sparse_rows import k_smallest_sparse
    from mvlab.forest.dissimilarity import ForestDissimilarity

    X, y, forest, spec = _load(job)
    n, sample, k = len(y), np.asarray(spec["sample"]), spec["k"]
    baseline = _rss()
    t0 = time.perf_counter()
    fd = ForestDissimilarity(measure, n_estimators=spec["trees"], n_jobs=spec["n_jobs"],
                             dense_max_rows=None if route == "dense" else 0)._fit(X, y, forest=forest)
    result = {}
    if route == "dense":
        result["rows"] = 1.0 - fd.train_dissimilarity_[sample]
    elif route == "sparse":
        R = fd.sparse_rows(sort=False)
        result["rows"] = 1.0 - _dense_rows(R, sample)
    elif route in ("blocked", "sorted"):
        got = []
        for b in _blocks(n, spec["block"]):
            R = fd.sparse_rows(rows=b, sort=route == "sorted")
            inside = sample[(sample >= b.start) & (sample < b.stop)]
            got.append(1.0 - _dense_rows(R, inside - b.start))
        result["rows"] = np.concatenate(got)
    else:
        idx, val = np.empty((n, k), np.int64), np.empty((n, k), np.float32)
        for b in _blocks(n, spec["block"]):
            idx[b], val[b] = k_smallest_sparse(fd.sparse_rows(rows=b, sort=False), k,
                                               exclude=np.arange(b.start, b.stop))
        result["idx"], result["val"] = idx, 1.0 - val
    seconds = time.perf_counter() - t0
    return _finish(out, seconds, baseline, result)


def _dense_rows(R, which):
    """Rows ``which`` of SparseRows ``R`` as a dense float32 array."""
    out = np.full((len(which), R.n_cols), np.float32(R.background), dtype=np.float32)
    for i, r in enumerate(which):
        a, b = R.indptr[r], R.indptr[r + 1]
        out[i, R.cols[a:b]] = R.values[a:b]
    return out


def worker_forestgeom(job, measure, route, out):
    from forestgeom import Proximity

    X, y, forest, spec = _load(job)
    n, sample, k = len(y), np.asarray(spec["sample"]), spec["k"]
    baseline = _rss()
    t0 = time.perf_counter()
    geometry = Proximity(forest=forest, weight_scheme=MEASURES[measure]).fit(X, y)
    result = {}
    if route == "dense":
        result["rows"] = geometry.training_proximity(return_dense=True)[sample]
    elif route == "sparse":
        result["rows"] = geometry.training_proximity()[sample].toarray()
    else:
        Q, WT = geometry.query_map(), geometry.reference_map().T.tocsr()
        got, idx, val = [], np.empty((n, k), np.int64), np.empty((n, k), np.float32)
        for b in _blocks(n, spec["block"]):
            P = Q[b] @ WT
            if route == "sorted":
                P.sort_indices()
            if route in ("blocked", "sorted"):
                inside = sample[(sample >= b.start) & (sample < b.stop)]
                got.append(P[inside - b.start].toarray())
            else:
                idx[b], val[b] = _topk(P, b.start, k)
        if route in ("blocked", "sorted"):
            result["rows"] = np.concatenate(got)
        else:
            result["idx"], result["val"] = idx, val
    seconds = time.perf_counter() - t0
    return _finish(out, seconds, baseline, result)


def _finish(out, seconds, baseline, result):
    import sklearn

    peak = _rss()
    np.savez(out + ".npz", **{key: np.asarray(v) for key, v in result.items()})
    Path(out).write_text(json.dumps({"seconds": seconds, "peak": peak, "baseline": baseline,
                                     "versions": {"numpy": np.__version__, "scikit-learn": sklearn.__version__}}))


WORKERS = {"mvlab": worker_mvlab, "forestgeom": worker_forestgeom}


# ======================================================================================= orchestrator
def forestgeom_python(path: Path, setup: bool) -> tuple[Path | None, str]:
    """The forestgeom venv's interpreter, created from bench/requirements-forestgeom.txt when missing (``_venvs``, as
    ``bench_peers``'s), with this interpreter's scikit-learn: both sides load one pickled forest."""
    import sklearn

    py, why = venv_python(path, "requirements-forestgeom.txt", "forestgeom, sklearn", setup)
    if py is None:
        return None, why
    check = subprocess.run([str(py), "-c", "import sklearn; print(sklearn.__version__)"], capture_output=True,
                           text=True)
    if check.stdout.strip() != sklearn.__version__:
        return None, (f"forestgeom's venv has scikit-learn {check.stdout.strip()}, this one {sklearn.__version__}: "
                      "one pickled forest needs the same release on both sides; recreate the venv.")
    return py, ""


def make_job(path, n, args):
    """Data, one forest grown on it (not timed by the workers) and the settings, in one joblib file."""
    import joblib
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    X, y = make_classification(n_samples=n, n_features=20, random_state=0)
    t0 = time.perf_counter()
    forest = RandomForestClassifier(n_estimators=args.trees, bootstrap=True, random_state=0, n_jobs=-1).fit(X, y)
    grow = time.perf_counter() - t0
    sample = np.unique(np.linspace(0, n - 1, args.sample).round().astype(np.int64))
    spec = dict(trees=args.trees, n_jobs=args.n_jobs, block=args.block, k=args.k, sample=sample.tolist())
    joblib.dump((X, y, forest, spec), path)
    return grow, int(sum(e.tree_.n_leaves for e in forest.estimators_)), sample


def run_worker(python, side, job, measure, route, tmp):
    out = str(Path(tmp) / f"{side}.{measure}.{route}.json")
    cmd = [str(python), str(Path(__file__).resolve()), "--worker", side, "--job", str(job), "--measure", measure,
           "--route", route, "--out", out]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{side} {measure} {route} failed:\n{done.stderr[-4000:]}")
    with np.load(out + ".npz") as z:
        arrays = {key: z[key] for key in z.files}
    return json.loads(Path(out).read_text()), arrays


def agreement(measure, route, mv, fg, sample):
    """Largest |difference| of the proximities (off the diagonal for RF-GAP), or the k-nearest lists' match."""
    if route == "knn":
        same = np.all(mv["idx"] == fg["idx"], axis=1)
        gap = float(np.abs(np.sort(mv["val"], axis=1) - np.sort(fg["val"], axis=1)).max())
        return (f"{int(same.sum()):,}/{same.size:,} lists identical; their proximities within {gap:.1e}",
                gap)
    a, b = mv["rows"].astype(np.float64), fg["rows"].astype(np.float64)
    if measure == "rfgap":  # definitions differ on the diagonal: mvlab d = 0 (p = 1), RF-GAP p(x_i, x_i) = 0
        a[np.arange(len(sample)), sample] = b[np.arange(len(sample)), sample]
    diff = float(np.abs(a - b).max())
    return f"max |diff| {diff:.1e}" + (" (off the diagonal)" if measure == "rfgap" else ""), diff


def median_and_best(values):
    return float(np.median(values)), float(np.min(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="5000,20000,100000", help="training rows, comma-separated")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3, help="runs per side up to 20,000 rows")
    ap.add_argument("--repeat-large", type=int, default=1, help="runs per side above 20,000 rows")
    ap.add_argument("--block", type=int, default=1000, help="rows per block of the blocked and knn routes")
    ap.add_argument("--k", type=int, default=10, help="neighbours of the knn route")
    ap.add_argument("--sample", type=int, default=64, help="rows compared for agreement")
    ap.add_argument("--n-jobs", type=int, default=1, help="threads of both sides (products, apply)")
    ap.add_argument("--max-all-rows", type=int, default=DENSE_MAX, help="largest size for the all-rows sparse route")
    ap.add_argument("--measures", default=",".join(MEASURES))
    ap.add_argument("--routes", default="dense,sparse,blocked,sorted,knn")
    ap.add_argument("--venv", type=Path, default=REPO / ".venv-forestgeom")
    ap.add_argument("--no-setup", action="store_true", help="do not create forestgeom's venv when it is missing")
    ap.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    ap.add_argument("--job", help=argparse.SUPPRESS)
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    ap.add_argument("--route", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        WORKERS[args.worker](args.job, args.measure, args.route, args.out)
        return

    fg_py, why = forestgeom_python(args.venv, not args.no_setup)
    if fg_py is None:
        sys.exit(f"forestgeom is not available: {why}")
    import scipy
    import sklearn

    import mvlab

    fg_version = subprocess.run([str(fg_py), "-c", "from importlib import metadata; print(metadata.version("
                                 "'forestgeom'))"], capture_output=True, text=True).stdout.strip()
    print(f"mvlab {mvlab.__version__} vs forestgeom {fg_version}; numpy {np.__version__}, scipy {scipy.__version__}, "
          f"scikit-learn {sklearn.__version__}; Python {platform.python_version()}, {platform.machine()}")
    print(f"one forest per size: {args.trees} trees, fully grown, bootstrap; make_classification(n, 20 features, "
          f"random_state=0); {args.n_jobs} thread(s) each side; blocks of {args.block:,} rows; k = {args.k}")
    print("time: from the grown forest to the result (leaves and bookkeeping included, growth not); peak: the "
          "measuring process's peak RSS (above its loaded baseline in brackets); median of the runs (fastest)\n")
    measures = [m for m in args.measures.split(",") if m]
    routes = [r for r in args.routes.split(",") if r]
    mv_py = Path(sys.executable)
    header = (f"{'measure, route':22s} {'rows':>8s} | {'mvlab s':>15s} {'peak MB':>14s} | {'forestgeom s':>15s} "
              f"{'peak MB':>14s} | {'time fg/mv':>10s} {'mem fg/mv':>10s} | agreement")
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="bench_prox_peers_") as tmp:
        for n in [int(s) for s in args.sizes.split(",") if s]:
            job = Path(tmp) / f"job{n}.joblib"
            grow, leaves, sample = make_job(job, n, args)
            print(f"--- {n:,} rows: forest grown in {grow:.1f} s (not counted), {leaves / args.trees:,.0f} leaves "
                  "per tree", flush=True)
            print(header, flush=True)
            repeat = args.repeat if n <= DENSE_MAX else args.repeat_large
            for measure in measures:
                for route in ROUTES[measure]:
                    if route not in routes:
                        continue
                    if route == "dense" and n > DENSE_MAX:
                        print(f"{measure + ', ' + route:22s} {n:>8,} | skipped: an (n, n) float32 matrix is "
                              f"{4 * n * n / 1e9:.0f} GB", flush=True)
                        continue
                    if route == "sparse" and n > args.max_all_rows:
                        print(f"{measure + ', ' + route:22s} {n:>8,} | skipped: the all-rows result of either "
                              f"library holds every stored entry (above --max-all-rows={args.max_all_rows:,})",
                              flush=True)
                        continue
                    runs = {"mvlab": [], "forestgeom": []}
                    arrays = {}
                    for r in range(repeat):
                        order = ("mvlab", "forestgeom") if r % 2 == 0 else ("forestgeom", "mvlab")
                        for side in order:
                            info, arr = run_worker(mv_py if side == "mvlab" else fg_py, side, job, measure, route,
                                                   tmp)
                            runs[side].append(info)
                            arrays[side] = arr
                    text, diff = agreement(measure, route, arrays["mvlab"], arrays["forestgeom"], sample)
                    cells, stats = [], {}
                    for side in ("mvlab", "forestgeom"):
                        t_med, t_best = median_and_best([i["seconds"] for i in runs[side]])
                        p_med = float(np.median([i["peak"] for i in runs[side]]))
                        above = float(np.median([i["peak"] - i["baseline"] for i in runs[side]]))
                        stats[side] = (t_med, p_med, above)
                        cells.append(f"{t_med:7.2f} ({t_best:6.2f}) {p_med / 1e6:6,.0f} ({above / 1e6:5,.0f})")
                    t_ratio = stats["forestgeom"][0] / stats["mvlab"][0]
                    m_ratio = stats["forestgeom"][1] / stats["mvlab"][1]
                    print(f"{measure + ', ' + route:22s} {n:>8,} | {cells[0]} | {cells[1]} | {t_ratio:9.2f}x "
                          f"{m_ratio:9.2f}x | {text}", flush=True)
                    verdicts.append((n, measure, route, t_ratio, m_ratio, stats["forestgeom"][2] / max(
                        stats["mvlab"][2], 1.0), diff))
            job.unlink()
            print(flush=True)
    print("ratios (forestgeom / mvlab; above 1: mvlab faster or leaner), each measured in this run:")
    for n, measure, route, t_ratio, m_ratio, a_ratio, diff in verdicts:
        ahead = "ahead or level" if t_ratio >= 1.0 and m_ratio >= 1.0 else "BEHIND"
        print(f"  {n:>8,} {measure:8s} {route:8s} time {t_ratio:5.2f}x  peak {m_ratio:5.2f}x  "
              f"(above baseline {a_ratio:5.2f}x)  agreement {diff:.1e}  {ahead}")


if __name__ == "__main__":
    main()
