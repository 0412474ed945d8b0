"""Benchmark: OFSP with incremental evaluators against the naive refit (issue 5, section 4).

For each base classifier (1-NN ``"knn"``, Gaussian naive Bayes ``"nb"`` and, with
``--estimators svm``, the linear SVM ``"svm"``), the same OFSP (k views, 5-fold
stratified inner CV, natural feature order) is fitted twice in one run:

* ``evaluator="incremental"``: per view and inner fold, the held-out x training
  squared-distance block (kNN), the per-class log-likelihood sums (NB) or the
  linear kernel's blocks (SVM, then one libsvm solve per candidate and fold) are
  updated when a feature is added;
* ``evaluator="naive"``: every candidate subset is scored by refitting a
  clone on each inner fold: for ``"knn"`` mvlab's ``LowestIndexKNN`` (the
  1-NN behind the name, whose tie rule the incremental evaluator follows, also
  on data rounded to a decimal grid), for ``"nb"`` scikit-learn's ``GaussianNB``,
  for ``"svm"`` scikit-learn's ``SVC(kernel="linear")``.
  For ``"knn"`` the refit of scikit-learn's ``KNeighborsClassifier(1, brute)`` is
  timed as well (the reference of earlier runs; the same views on data without
  near-ties, such as these).

Both run with BLAS/OpenMP limited to one thread (otherwise scikit-learn's brute kNN
spends most of each tiny fit starting threads, which would inflate the ratio).
The script asserts that both give the same views, discarded block and view
accuracies, and prints the times and their ratio.

Data (``--data``): ``madelon`` (default: scikit-learn's ``make_classification``,
Guyon's Madelon generator, n x d with 5 informative and 15 redundant features;
the issue's setting is 100 x 2000), or a bundled set through
``mvlab.datasets.load_dataset`` (``mfeat``, ``digits``, ``breast-cancer``), of which a
stratified sample of ``--n`` rows is taken. Run::

    .venv/bin/python bench/bench_ofsp.py [--data madelon] [--n 100] [--d 2000] [--k 10]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.neighbors import KNeighborsClassifier
from threadpoolctl import threadpool_limits

from mvlab.construction.partition import OFSP


def load(name, n, d, seed):
    if name == "madelon":
        from sklearn.datasets import make_classification

        X, y = make_classification(n_samples=n, n_features=d, n_informative=5,
                                   n_redundant=15, random_state=seed)
        return X, y, f"madelon-like make_classification {n} x {d}"
    from sklearn.model_selection import train_test_split

    from mvlab.datasets.bundled import load_dataset

    ds = load_dataset(name)
    X, y = np.asarray(ds.X, dtype=float), np.asarray(ds.y)
    if n < len(y):
        X, _, y, _ = train_test_split(X, y, train_size=n, stratify=y, random_state=seed)
    return X, y, f"{name}, stratified sample {X.shape[0]} x {X.shape[1]}"


def timed(model, X, y):
    t0 = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="madelon")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--d", type=int, default=2000, help="features (madelon only)")
    ap.add_argument("--k", type=int, default=10, help="number of views")
    ap.add_argument("--estimators", nargs="+", default=["knn", "nb"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-sklearn", action="store_true", help="do not time scikit-learn's kNN refit")
    args = ap.parse_args(argv)

    X, y, desc = load(args.data, args.n, args.d, args.seed)
    print(f"OFSP, k = {args.k}, 5-fold inner CV, natural order; data: {desc}, "
          f"{len(np.unique(y))} classes; 1 BLAS/OpenMP thread")
    print(f"{'estimator':>9} {'incremental s':>14} {'naive refit s':>14} {'ratio':>7} "
          f"{'% kept':>7}  view sizes")
    with threadpool_limits(limits=1):
        for est in args.estimators:
            kw = dict(n_views=args.k, estimator=est, inner_cv=5, random_state=args.seed)
            inc, ref = OFSP(evaluator="incremental", **kw), OFSP(evaluator="naive", **kw)
            t_inc = timed(inc, X, y)
            t_ref = timed(ref, X, y)
            assert np.array_equal(inc.assignment_, ref.assignment_), "views differ"
            assert np.array_equal(inc.view_scores_, ref.view_scores_), "scores differ"
            assert all(np.array_equal(a, b) for a, b in zip(inc.views_, ref.views_))
            assert np.array_equal(inc.discarded_, ref.discarded_)
            sizes = [len(v) for v in inc.views_]
            print(f"{est:>9} {t_inc:14.2f} {t_ref:14.2f} {t_ref / t_inc:6.0f}x "
                  f"{inc.percent_features_used_:6.1f}%  {sizes}  (identical views: yes)",
                  flush=True)
            if est == "knn" and not args.skip_sklearn:
                sk = OFSP(evaluator="naive", **{**kw, "estimator": KNeighborsClassifier(1, algorithm="brute")})
                t_sk = timed(sk, X, y)
                same = np.array_equal(inc.assignment_, sk.assignment_)
                print(f"{'  sklearn':>9} {'':14} {t_sk:14.2f} {t_sk / t_inc:6.0f}x  scikit-learn "
                      f"KNeighborsClassifier refit (identical views: {'yes' if same else 'no, near-ties'})",
                      flush=True)


if __name__ == "__main__":
    main()
