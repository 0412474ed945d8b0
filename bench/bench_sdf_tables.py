"""Tables 3-6 of the Siamese deep forest paper on a bundled dataset: gcForest / SDF accuracy against N and T.

Protocol (docs/algorithms.md §C.8): each repetition draws N training pairs and 2N/3 test pairs from disjoint
instance pools; gcForest (uniform tree weights) and SDF (QP tree weights) are fitted on the same pairs
with the same seed (identical first-level trees) and scored on the test pairs; a cell is the mean test
accuracy over the repetitions, printed "gcF / SDF" like the paper. No multi-grained scanning (the paper
did not scan the UCI datasets either).

    python bench/bench_sdf_tables.py                      # N in {100, 500, 1000}, T in {100, 400}, 2 repetitions
    python bench/bench_sdf_tables.py --paper              # N 100 500 1000 2000, T 100 400 700 1000, 10 reps
    python bench/bench_sdf_tables.py --dataset digits --N 100 500 --T 100 --repeats 3

The default budget takes about 8 minutes on 2 shared cores. The paper uses 100 repetitions; even
``--paper`` uses 10 (hours on 2 cores), so its cells are noisier than the paper's.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np  # noqa: E402
import sklearn  # noqa: E402

from mvlab.datasets.bundled import load_dataset
from mvlab.experiments.pair_methods import compare_pair_methods


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="breast-cancer", help="bundled dataset (default breast-cancer)")
    ap.add_argument("--N", type=int, nargs="+", default=None, help="training pairs (default 100 500 1000)")
    ap.add_argument("--T", type=int, nargs="+", default=None, help="trees per forest (default 100 400)")
    ap.add_argument("--repeats", type=int, default=None, help="repetitions per cell (default 2; paper 100)")
    ap.add_argument("--max-levels", type=int, default=None, help="cascade levels at most (default 4)")
    ap.add_argument("--lam", type=float, default=1.0, help="lambda of the tree-weight QP (default 1)")
    ap.add_argument("--paper", action="store_true",
                    help="the paper's grid: N 100 500 1000 2000, T 100 400 700 1000, 10 repetitions, 10 levels")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args(argv)

    Ns = args.N or ([100, 500, 1000, 2000] if args.paper else [100, 500, 1000])
    Ts = args.T or ([100, 400, 700, 1000] if args.paper else [100, 400])
    repeats = args.repeats or (10 if args.paper else 2)
    max_levels = args.max_levels or (10 if args.paper else 4)
    ds = load_dataset(args.dataset)

    print(f"# gcForest / SDF test accuracy on pairs of `{ds.name}` ({ds.n_samples} instances, "
          f"{ds.n_features} features, {ds.n_classes} classes)\n")
    print(f"- N training pairs and 2N/3 test pairs from disjoint instance pools, class-balanced pairs; "
          f"mean over **{repeats} repetition(s)** per cell (the paper: 100)"
          + ("" if args.paper else "; reduced budget: N in {100, 500, 1000}, T in {100, 400}, "
             f"at most {max_levels} levels (paper grid: --paper)") + ".")
    print(f"- SDF: lambda = {args.lam:g}, z-doubling, out-of-fold QP probabilities with cross-fitting; both "
          f"cascades 2 CRF + 2 RF per level, 3 folds, patience 1, at most {max_levels} levels, same seed.")
    print(f"- seed {args.seed}, n_jobs {args.n_jobs}; Python {platform.python_version()}, numpy {np.__version__}, "
          f"scikit-learn {sklearn.__version__}, {platform.machine()}.\n")

    cells, seconds, diffs = {}, {}, []
    start = time.perf_counter()
    for N in Ns:
        for T in Ts:
            t = time.perf_counter()
            df = compare_pair_methods(
                ds.X, ds.y, N, methods=("gcforest", "sdf"), n_estimators=T, n_repeats=repeats, lam=args.lam,
                sdf_params=dict(max_levels=max_levels), random_state=args.seed, n_jobs=args.n_jobs,
            )
            acc = df.pivot(index="repeat", columns="method", values="accuracy")
            cells[N, T] = (acc["gcforest"].mean(), acc["sdf"].mean())
            diffs.extend((acc["sdf"] - acc["gcforest"]).tolist())
            seconds[N, T] = time.perf_counter() - t
            print(f"<!-- N={N} T={T}: gcF {cells[N, T][0]:.3f} SDF {cells[N, T][1]:.3f} "
                  f"({seconds[N, T]:.0f} s) -->", flush=True)

    print("\n| N | " + " | ".join(f"T={T}" for T in Ts) + " |")
    print("|---|" + "---|" * len(Ts))
    for N in Ns:
        row = " | ".join(f"{cells[N, T][0]:.3f}".lstrip("0") + "/" + f"{cells[N, T][1]:.3f}".lstrip("0") for T in Ts)
        print(f"| {N} | {row} |")
    d = np.asarray(diffs)
    wins = sum(cells[k][1] > cells[k][0] for k in cells)
    ties = sum(cells[k][1] == cells[k][0] for k in cells)
    sd = d.std(ddof=1) if d.size > 1 else 0.0
    print(f"\nSDF − gcF over all {d.size} paired fits: mean {d.mean():+.4f} (sd {sd:.4f}); "
          f"SDF higher in {wins} of {len(cells)} cells, equal in {ties}. Total {time.perf_counter() - start:.0f} s.")


if __name__ == "__main__":
    main()
