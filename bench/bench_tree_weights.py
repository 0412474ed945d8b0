"""Benchmark: SDF tree-weight QP, fast projected gradient vs cvxpy + Clarabel (docs/design.md §6).

Problem: min_{w in simplex} sum_i max(0, P[i] @ w)^2 + lam ||w||^2 at N = 2000 pairs and
T = 1000 trees (Eqs. 27-28). P comes from a real forest: a random forest of T trees grown on
digit pairs, evaluated on N held-out pairs (the out-of-fold P of qp_probas="oof"), and, as a
second case, from a synthetic generator with the same structure.

Prints the times, the ratio cvxpy / fast, and the objective agreement. With ``--sdf T`` it also
times a whole SiameseDeepForest fit (weighting="qp" and "uniform") on N digit pairs with T trees
per forest, and reports the share of that time spent in the QPs.

    .venv/bin/python bench/bench_tree_weights.py [--lam 1.0] [--source forest|synthetic|both|none]
                                                 [--sdf 100]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier

from mvlab.siamese.cascade import tree_probas
from mvlab.siamese.forest import tree_margin_matrix
from mvlab.siamese.pairs import make_pairs, pair_features
from mvlab.siamese.tree_weights import solve_tree_weights, tree_weight_objective


def forest_P(N, T, seed=0, n_jobs=2):
    X, y = load_digits(return_X_y=True)
    pairs, yp = make_pairs(y, 2 * N, random_state=seed)
    F = pair_features(X, pairs)
    tr, te = slice(0, N), slice(N, 2 * N)
    rf = RandomForestClassifier(n_estimators=T, random_state=seed, n_jobs=n_jobs).fit(F[tr], yp[tr])
    return tree_margin_matrix(tree_probas(rf, F[te], 2, n_jobs), yp[te])


def synthetic_P(N, T, seed=0):
    rng = np.random.default_rng(seed)
    correct = rng.random((N, T)) < rng.uniform(0.1, 1.0, size=(N, 1))
    conf = np.where(rng.random((N, T)) < 0.6, 1.0, rng.random((N, T)))
    return np.where(correct, -conf, conf)


def run(P, lam, label, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        w, info = solve_tree_weights(P, lam, return_info=True)
        times.append(time.perf_counter() - t0)
    t_fast = min(times)
    t0 = time.perf_counter()
    w_ref, info_ref = solve_tree_weights(P, lam, solver="cvxpy", cvxpy_solver="CLARABEL", return_info=True)
    t_ref = time.perf_counter() - t0
    f = tree_weight_objective(P, w, lam)
    f_ref = tree_weight_objective(P, w_ref, lam)
    print(f"[{label}] N={P.shape[0]} T={P.shape[1]} lam={lam}")
    print(f"  fast pgd : {t_fast:8.3f} s  (best of {repeats})  iters={info.n_iter}  objective={f:.12g}"
          f"  certified gap={info.gap:.2e}  trees>0={int((w > 0).sum())}")
    print(f"  Clarabel : {t_ref:8.3f} s  status={'optimal' if info_ref.converged else 'NOT optimal'}"
          f"  objective={f_ref:.12g}  gap at its w={info_ref.gap:.2e}")
    print(f"  ratio Clarabel / fast = {t_ref / t_fast:.0f}x ;  relative objective difference "
          f"(fast - Clarabel) / Clarabel = {(f - f_ref) / f_ref:+.2e} ;  max |w - w_ref| = "
          f"{np.abs(w - w_ref).max():.2e}")


def bench_sdf(N, T, lam, n_jobs=2):
    from mvlab.siamese.forest import SiameseDeepForest
    from mvlab.siamese.pairs import make_pair_split

    X, y = load_digits(return_X_y=True)
    sp = make_pair_split(y, N, random_state=0)
    for weighting in ("qp", "uniform"):
        model = SiameseDeepForest(
            weighting=weighting, lam=lam, n_estimators=T, n_jobs=n_jobs, random_state=0, preprocessor=X
        )
        t0 = time.perf_counter()
        model.fit(sp.train_pairs, sp.y_train)
        t_fit = time.perf_counter() - t0
        qp = sum(i.seconds for lvl in model.qp_info_ for f in lvl for i in f)
        n_qp = sum(len(f) for lvl in model.qp_info_ for f in lvl)
        acc = model.score(sp.test_pairs, sp.y_test)
        print(f"[SDF {weighting:7s}] {N} digit pairs, T={T}, n_jobs={n_jobs}: fit {t_fit:6.1f} s, "
              f"levels kept {model.n_levels_} (built {len(model.level_scores_)}), "
              f"{n_qp} QPs in {qp:.2f} s, test accuracy on {len(sp.y_test)} pairs {acc:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=2000)
    ap.add_argument("--T", type=int, default=1000)
    ap.add_argument("--lam", type=float, default=1.0)
    ap.add_argument("--source", choices=["forest", "synthetic", "both", "none"], default="both")
    ap.add_argument("--sdf", type=int, default=0, metavar="T",
                    help="also time SDF training on N digit pairs with T trees per forest")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    if args.source in ("forest", "both"):
        t0 = time.perf_counter()
        P = forest_P(args.N, args.T)
        print(f"(built forest P in {time.perf_counter() - t0:.1f} s; fraction of rows with "
              f"positive uniform margin: {np.mean(P.mean(axis=1) > 0):.3f})")
        run(P, args.lam, "forest, digits pairs", args.repeats)
    if args.source in ("synthetic", "both"):
        run(synthetic_P(args.N, args.T), args.lam, "synthetic", args.repeats)
    if args.sdf:
        bench_sdf(args.N, args.sdf, args.lam)


if __name__ == "__main__":
    main()
