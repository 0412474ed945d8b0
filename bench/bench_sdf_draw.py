"""Where one draw of the Siamese deep forest paper's protocol spends its time, and what the protocol's two
speed-ups buy (`python -m mvlab reproduce sdf-paper`, docs/reproduction.md §3.1).

One draw = one pair split and gcForest + SDF on it (λ chosen from the grid on training pairs). Printed, each
measured in this run:

1. the draw's time split into the SDF's tree-weight QPs (their own timers) and the rest (forests: fitting,
   tree probabilities, class vectors), the draw computed as an engine worker computes it (one thread, one BLAS
   thread: Dask's workers start with OMP/OpenBLAS/MKL_NUM_THREADS=1);
2. gcForest and SDF sharing their identical first level (fitted once) against each fitting its own;
3. two draws at once on the job engine's two workers (one thread each) against the same two draws one after
   the other in this process on two threads (the forests' own threading).

    python bench/bench_sdf_draw.py                          # ionosphere, N = 1000, T = 400 (about 6 minutes)
    python bench/bench_sdf_draw.py --dataset yeast --N 500 --T 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from mvlab.datasets import load_dataset
from mvlab.reproduction.sdf_paper import LAM_GRID, DrawTask, draw_seed, run_draw
from mvlab.siamese import SiameseDeepForest
from mvlab.siamese.pairs import make_pair_split, pair_features

QP_SECONDS = [0.0]


def _timed_solver():
    """Every tree-weight QP of the SDF (kept levels and the discarded last one) adds its time to QP_SECONDS."""
    import mvlab.siamese.forest as forest

    solve = forest.solve_tree_weights

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return solve(*args, **kwargs)
        finally:
            QP_SECONDS[0] += time.perf_counter() - t0

    forest.solve_tree_weights = timed


def fit_pair(ds, task, shared: bool):
    """gcForest then SDF on the task's pairs; returns (seconds, QP seconds)."""
    seed = draw_seed(task.dataset, task.N, task.reading, task.draw)
    split = make_pair_split(ds.y, task.N, random_state=seed)
    F = pair_features(ds.X, split.train_pairs)
    cache = {} if shared else None
    QP_SECONDS[0] = 0.0
    t0 = time.perf_counter()
    common = dict(n_estimators=task.T, max_levels=10, random_state=seed, n_jobs=1)
    with threadpool_limits(limits=1):
        SiameseDeepForest(weighting="uniform", **common).fit_from_vectors(F, split.y_train, model_cache=cache)
        SiameseDeepForest(lam_grid=list(LAM_GRID), **common).fit_from_vectors(F, split.y_train, model_cache=cache)
    return time.perf_counter() - t0, QP_SECONDS[0]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="ionosphere")
    ap.add_argument("--N", type=int, default=1000)
    ap.add_argument("--T", type=int, default=400)
    args = ap.parse_args(argv)
    ds = load_dataset(args.dataset)
    _timed_solver()
    tasks = [DrawTask(args.dataset, args.N, args.T, "disjoint", d, ("gcforest", "sdf")) for d in range(2)]
    print(f"{args.dataset}, N = {args.N} training pairs, T = {args.T} trees per forest, λ grid {list(LAM_GRID)}\n")

    shared, qp = fit_pair(ds, tasks[0], shared=True)
    own, _ = fit_pair(ds, tasks[0], shared=False)
    print(f"1. one draw {shared:.1f} s: the SDF's QPs {qp:.1f} s ({100 * qp / shared:.0f} %), forests and the rest "
          f"{shared - qp:.1f} s ({100 * (shared - qp) / shared:.0f} %)")
    print(f"2. first level shared {shared:.1f} s, each its own {own:.1f} s: {own / shared:.2f}x")

    from joblib import Parallel, delayed

    from mvlab.core.threads import call_on_threads
    from mvlab.engine import shared_engine

    t0 = time.perf_counter()
    for t in tasks:
        run_draw(t, n_jobs=2)
    serial = time.perf_counter() - t0
    engine = shared_engine()
    import joblib

    with engine.client.as_current(), joblib.parallel_config(backend="dask"):
        Parallel(n_jobs=2)([delayed(call_on_threads)(run_draw, tasks[0], 10, 1)])  # the workers' imports
        t0 = time.perf_counter()
        Parallel(n_jobs=2)(delayed(call_on_threads)(run_draw, t, 10, 1) for t in tasks)
        workers = time.perf_counter() - t0
    print(f"3. two draws one after the other on 2 threads {serial:.1f} s, at once on 2 engine workers "
          f"{workers:.1f} s: {serial / workers:.2f}x the throughput")
    print(f"\n(numpy {np.__version__}; wall-clock seconds of this run; the machine's other load counts too)")


if __name__ == "__main__":
    main()
