"""Benchmark of the forest dissimilarity matrices (issue 3, section 4).

Setting: mfeat (2000 instances, all 649 features as one view), one random forest of 512
fully grown trees (mtry = sqrt), ``n_jobs=2``.  Times the training (train x train) Breiman and
RF-GAP matrices of :class:`mvlab.forest.dissimilarity.ForestDissimilarity` against

* ``forest.apply(X)`` itself (the leaves every method needs);
* a dense per-tree loop: ``np.equal.outer`` on the leaf ids of each tree, summed over trees
  (for RF-GAP the same loop with the OOB mask and the ``c_j(t) / |M|`` weights);
* a per-pair loop, timed on a random sample of pairs and extrapolated to the n (n + 1) / 2
  pairs of the symmetric matrix: the plain pure-Python loop over pairs and trees, and a
  faster variant with one numpy comparison of two leaf vectors per pair;
* scipy's sparse product ``(L @ L.T).toarray()`` (``engine="scipy"``).

mvlab's matrix and ``apply`` are timed on one thread and on ``--n-jobs`` threads (the forest's
``n_jobs``, which both use), each ratio to ``apply`` on the same number of threads; the loop
baselines are single-threaded.

Every baseline is checked to give the same matrix.  Run::

    .venv/bin/python bench/bench_proximity.py [--n 2000] [--trees 512] [--random]

(``--random`` uses random data of mfeat's shape instead of mfeat.)
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import best_of
from scipy.sparse._sparsetools import csr_matmat_maxnnz  # scipy's counting pass, timed on its own


def dense_breiman(leaves):
    n, T = leaves.shape
    counts = np.zeros((n, n), dtype=np.int32)
    for t in range(T):
        counts += np.equal.outer(leaves[:, t], leaves[:, t])
    return 1.0 - counts / T


def dense_rfgap(leaves, oob, wgap):
    n, T = leaves.shape
    S = np.zeros((n, n), dtype=np.float64)
    for t in range(T):
        S += np.equal.outer(leaves[:, t], leaves[:, t]) * oob[:, t, None] * wgap[None, :, t]
    n_oob = oob.sum(axis=1)
    return S / np.maximum(n_oob, 1)[:, None]


def pair_loop_time(leaves, n_pairs, rng, weights=None, pure_python=True):
    """Seconds for all n(n+1)/2 pairs, extrapolated from ``n_pairs`` random pairs.

    ``pure_python=True``: the obviously-correct loop over pairs *and* trees on Python lists;
    otherwise one numpy comparison of the two leaf vectors per pair.
    """
    n, T = leaves.shape
    rows_a = rng.integers(0, n, n_pairs)
    rows_b = rng.integers(0, n, n_pairs)
    if pure_python:
        L = leaves.tolist()
        Wq = None if weights is None else weights[0].tolist()
        Wg = None if weights is None else weights[1].tolist()
        t0 = time.perf_counter()
        for i, j in zip(rows_a.tolist(), rows_b.tolist()):
            a, b = L[i], L[j]
            if weights is None:
                sum(1 for t in range(T) if a[t] == b[t])
            else:
                oi, wj = Wq[i], Wg[j]
                sum(oi[t] * wj[t] for t in range(T) if a[t] == b[t])
    else:
        L = [np.ascontiguousarray(r) for r in leaves]
        t0 = time.perf_counter()
        if weights is None:
            for i, j in zip(rows_a, rows_b):
                np.count_nonzero(L[i] == L[j])
        else:
            Wq = [np.ascontiguousarray(r) for r in weights[0]]
            Wg = [np.ascontiguousarray(r) for r in weights[1]]
            for i, j in zip(rows_a, rows_b):
                np.sum((L[i] == L[j]) * Wq[i] * Wg[j])
    per_pair = (time.perf_counter() - t0) / n_pairs
    return per_pair * n * (n + 1) / 2, per_pair


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--trees", type=int, default=512)
    ap.add_argument("--pairs", type=int, default=3000, help="pairs timed for the pair loop")
    ap.add_argument("--random", action="store_true", help="random data instead of mfeat")
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args()

    from mvlab.forest.dissimilarity import ForestDissimilarity

    rng = np.random.default_rng(0)
    if args.random:
        X = rng.random((args.n, 649))
        y = rng.integers(0, 10, args.n)
        data = f"random data {X.shape}"
    else:
        from mvlab.datasets.bundled import load_dataset

        ds = load_dataset("mfeat")
        X, y = ds.X[: args.n], ds.y[: args.n]
        data = f"mfeat {X.shape} (all {len(ds.views)} views as one forest)"
    n, T = X.shape[0], args.trees
    print(f"data: {data}; {T} trees, mtry=sqrt, fully grown, n_jobs={args.n_jobs}")

    t0 = time.perf_counter()
    fb = ForestDissimilarity("breiman", n_estimators=T, random_state=0, n_jobs=args.n_jobs).fit(X, y)
    print(f"forest fit + leaves + Breiman matrix (fit total): {time.perf_counter() - t0:.2f} s")
    forest = fb.forest_

    leaves = fb.leaves_

    def with_threads(n_jobs, fn):
        """Run ``fn`` with the forest's apply and mvlab's leaf product on n_jobs threads."""
        forest.n_jobs, fb.n_jobs = n_jobs, n_jobs
        try:
            return fn()
        finally:
            forest.n_jobs, fb.n_jobs = args.n_jobs, args.n_jobs

    threads = sorted({1, args.n_jobs})
    t_apply = {j: with_threads(j, lambda: best_of(lambda: forest.apply(X)))[0] for j in threads}
    t_breiman, D = {}, None
    for j in threads:
        t_breiman[j], D = with_threads(j, lambda: best_of(lambda: fb._dissimilarity(leaves, train=True)))
    # the default (engine="auto"): the sparse rows by blocks scattered into the matrix; the two dense engines below
    t_scipy, D_scipy = with_threads(1, lambda: best_of(lambda: fb._dissimilarity(leaves, train=True, engine="scipy")))
    L = fb.leaf_indicator()
    LT = L.T.tocsr()
    t_public, S_public = best_of(lambda: (L @ LT).toarray())  # scipy's own product, counting pass included
    t_count, _ = best_of(lambda: csr_matmat_maxnnz(n, n, L.indptr, L.indices, LT.indptr, LT.indices))
    assert np.abs(D_scipy - (1.0 - S_public / T)).max() < 1e-6
    t_pairs_engine, _ = best_of(lambda: fb._dissimilarity(leaves, train=True, engine="pairs"))
    half = leaves[: n // 2]  # a test x train block: the first half of the rows against all
    t_cross_scipy, _ = with_threads(1, lambda: best_of(lambda: fb._dissimilarity(half, train=False, engine="scipy")))
    t_cross_pairs, _ = best_of(lambda: fb._dissimilarity(half, train=False, engine="pairs"))
    t_dense, D_dense = best_of(lambda: dense_breiman(leaves), repeat=1)
    t_pairs, per_pair = pair_loop_time(leaves, args.pairs, rng)
    t_pairs_np, per_pair_np = pair_loop_time(leaves, args.pairs, rng, pure_python=False)
    t_transform, D_tr = best_of(lambda: fb.transform(X), repeat=1)
    assert np.abs(D - D_dense).max() < 1e-6 and np.abs(D - D_scipy).max() < 1e-6
    assert np.abs(D - D_tr).max() < 1e-6
    pairs_per_tree = float((np.bincount(leaves.ravel()) ** 2).sum()) / T
    from mvlab.forest._leaf_product import AUTO_PAIRS_PER_CELL, _pairs_per_cell

    per_cell = _pairs_per_cell(leaves, leaves, fb.n_leaves_, None, None)

    print()
    print(f"same-leaf pairs per tree (incl. self): {pairs_per_tree:,.0f}  (n = {n})")
    print(f"same-leaf pairs per result cell: {per_cell:.1f}; engine='auto' uses scipy above "
          f"{AUTO_PAIRS_PER_CELL:g} / threads, else pairs")
    print(f"scipy's public product (L @ L.T).toarray(), one thread: {t_public:.3f} s, of which its non-zero "
          f"counting pass (csr_matmat_maxnnz, skipped by mvlab): {t_count:.3f} s ({100 * t_count / t_public:.0f} %)")
    print(f"engines, one thread, train x train : pairs {t_pairs_engine:.3f} s, scipy {t_scipy:.3f} s "
          f"(scipy / pairs = {t_scipy / t_pairs_engine:.2f})")
    print(f"engines, one thread, test x train  : pairs {t_cross_pairs:.3f} s, scipy {t_cross_scipy:.3f} s "
          f"(scipy / pairs = {t_cross_scipy / t_cross_pairs:.2f})")
    for j in threads:
        print(f"forest.apply(X), {j} thread(s)                  : {t_apply[j]:8.3f} s")
        print(f"Breiman train x train, mvlab, {j} thread(s)     : {t_breiman[j]:8.3f} s")
    print(f"  dense per-tree np.equal.outer loop           : {t_dense:8.3f} s")
    print(f"  pure-Python pair loop (pairs x trees; timed on {args.pairs} random pairs,")
    print(f"      {per_pair * 1e6:.1f} us/pair, extrapolated to n(n+1)/2 pairs): {t_pairs:8.1f} s")
    print(f"  numpy-per-pair loop (same extrapolation, {per_pair_np * 1e6:.1f} us/pair) : {t_pairs_np:8.1f} s")
    print(f"transform(X) (apply + test x train block, {args.n_jobs} thread(s)): {t_transform:8.3f} s")
    for j in threads:
        print(f"ratios  Breiman, {j} thread(s): {t_dense / t_breiman[j]:6.1f}x faster than the per-tree loop, "
              f"{t_pairs / t_breiman[j]:6.0f}x faster than the pure-Python pair loop "
              f"({t_pairs_np / t_breiman[j]:.0f}x vs numpy-per-pair); "
              f"matrix / apply (both {j} thread(s)) = {t_breiman[j] / t_apply[j]:.2f}")
    fastest = min(t_apply.values())
    print(f"        Breiman matrix on {args.n_jobs} thread(s) / the faster apply ({fastest:.3f} s) = "
          f"{t_breiman[args.n_jobs] / fastest:.2f}")

    fg = ForestDissimilarity("rfgap", n_estimators=T, random_state=0, n_jobs=args.n_jobs).fit(X, y)
    assert np.array_equal(fg.leaves_, leaves)
    t_gap = {}
    for j in threads:
        fg.n_jobs = j
        t_gap[j], Dg = best_of(lambda: fg._dissimilarity(leaves, train=True))
    oob = fg.oob_mask_.astype(np.float64)
    wgap = fg.measure_.reference_weights(fg, True)  # c_j(t) / |M_t(leaf)|
    t_gap_dense, P_dense = best_of(lambda: dense_rfgap(leaves, oob, wgap), repeat=1)
    t_gap_pairs, per_pair_g = pair_loop_time(leaves, args.pairs, rng, weights=(oob, wgap))
    Dg_ref = 1.0 - P_dense  # RF-GAP's default scaling "none"; d(x_i, x_i) = 0
    np.fill_diagonal(Dg_ref, 0.0)
    assert np.abs(Dg - Dg_ref).max() < 1e-5
    print()
    for j in threads:
        print(f"RF-GAP train x train, mvlab, {j} thread(s)      : {t_gap[j]:8.3f} s")
    print(f"  dense per-tree loop (weighted equal.outer)   : {t_gap_dense:8.3f} s")
    print(f"  pure-Python pair loop (extrapolated, {per_pair_g * 1e6:.1f} us/pair): {t_gap_pairs:8.1f} s")
    for j in threads:
        print(f"ratios  RF-GAP, {j} thread(s): {t_gap_dense / t_gap[j]:6.1f}x faster than the per-tree loop, "
              f"{t_gap_pairs / t_gap[j]:6.0f}x faster than the pure-Python pair loop; "
              f"matrix / apply (both {j} thread(s)) = {t_gap[j] / t_apply[j]:.2f}")
    print(f"        RF-GAP matrix on {args.n_jobs} thread(s) / the faster apply ({fastest:.3f} s) = "
          f"{t_gap[args.n_jobs] / fastest:.2f}")


if __name__ == "__main__":
    main()
