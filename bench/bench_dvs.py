"""Benchmark of dynamic view selection (issue 4, section 4).

Setting: mfeat, a stratified sample of ``--n`` instances (default 600, as in the paper),
split 50/50 stratified (or, with ``--n-test``, the pool of the n/2 training instances tested
on ``--n-test`` instances from the rest of mfeat); 6 views -> 63 candidate forests; ``--trees`` trees per forest
(default 100; the paper uses 512), ``n_jobs=2``, k = 7.  Timings are best of 3 (the machine
is shared; the single pool fit is timed once).

Times, in one run:

* the view forests (:func:`mvlab.rfd.classifier.fit_view_forests`) and the DVS pool
  (:meth:`mvlab.rfd.dvs.DVSCombiner.fit`: 63 OOB forests on the averaged matrices);
* the competence of every candidate for every test instance, vectorised
  (:meth:`DVSCombiner.competences`: :func:`mvlab.rfd.competence_regions.candidate_regions` --
  shared partial sums, bounded k-smallest searches, blocks of rows on 2 threads -- then one
  gather + mean) against a per-instance Python loop (for each test
  instance and each candidate: the joint row, a stable ``np.argsort``, the mean OOB hit),
  timed on the first ``--loop-instances`` test instances and scaled linearly to all; both
  results are checked to be identical;
* ``explain`` (competences, selection, the chosen candidates' predictions, regions) and
  ``predict_proba``, as a share of the pool training time.

With ``--fit``, instead: **DVS's fit against Avg's** in the setting of the multi-view peers' comparison
(issue 54): all of mfeat (2000 instances), ``--folds`` stratified folds (default 5: 1600 training rows),
``--trees`` trees per forest, ``n_jobs=2``.  Every fold times ``RFDClassifier(combination="average").fit`` and
``RFDClassifier(combination="dvs").fit`` (each grows its own view forests, the same ones), wall clock and
the process's CPU time (the machine is shared: CPU time is the steadier figure).  On the first
``--reference-folds`` folds the DVS pool is also grown by the **reference path**, the code before issue 54
(:func:`reference_pool`: scikit-learn's ``forest.fit`` with ``oob_score=True``, one leave-one-out partition
per candidate), on the same view forests and threads as the fast ``DVSCombiner.fit``, ``--reference-repeats``
times each, alternating (the fastest kept); the bench asserts that both give the same out-of-bag evidence,
regions and training selections, and prints their ratio.

Run::

    .venv/bin/python bench/bench_dvs.py [--n 600] [--n-test 1000] [--trees 100] [--loop-instances 100]
    .venv/bin/python bench/bench_dvs.py --fit [--folds 5] [--reference-folds 1]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from _timing import best_of, timed
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.utils.parallel import Parallel, delayed

from mvlab.core.neighbours import k_smallest_indices
from mvlab.core.threads import split_workers
from mvlab.datasets.bundled import load_dataset
from mvlab.rfd.classifier import RFDClassifier
from mvlab.rfd.competence_regions import _kth_over_columns, _supersets, candidate_regions, joint_rows
from mvlab.rfd.dvs import DVSCombiner
from mvlab.rfd.dvs_pool import oob_hits, subset_dissimilarity, view_subsets
from mvlab.rfd.dvs_rules import COMPETENCE_RULES, REGION_RULES, PoolEvidence, select_candidates, selection_priority
from mvlab.rfd.view_forests import fit_view_forests


def loop_competence(comb: DVSCombiner, Ds):
    """Per-instance, per-candidate loop of §A.8 lines 9-11 (OLA), shape (n, P)."""
    n, P, k = Ds[0].shape[0], len(comb.candidates_), comb.k
    hits = comb.oob_hits_
    comp = np.zeros((n, P))
    for i in range(n):
        rows = [D[i : i + 1] for D in Ds]
        for c in range(P):
            row = subset_dissimilarity(rows, comb.subsets_[c])[0]
            region = np.argsort(row, kind="stable")[:k]
            comp[i, c] = hits[region, c].mean()
    return comp


def entries_under_bound(comb: DVSCombiner, Ds) -> float:
    """Mean number of entries per row that the bounded k-smallest search of
    :func:`mvlab.rfd.competence_regions.candidate_regions` has to rank (the rest is skipped)."""
    regions, _ = candidate_regions(Ds, comb.subsets_, comb.k)
    joints = joint_rows(Ds, comb.subsets_)
    counts = []
    for c, sup in enumerate(_supersets(comb.subsets_)):
        if sup:
            cols = np.concatenate([regions[p] for p in sup], axis=1)
            bound = _kth_over_columns(joints[c], cols, comb.k)
            counts.append((joints[c] <= bound[:, None]).sum(axis=1))
    return float(np.mean(counts))


def reference_candidate(Ds, mask, y, n_estimators, seed, n_jobs, k_train):
    """One candidate as before issue 54: scikit-learn's ``fit`` with ``oob_score=True`` (which copies every
    tree's out-of-bag rows to predict them) and a partition of its (n_train, n_train) matrix for the
    leave-one-out regions.  Returns the forest and its regions (n_train, k_train)."""
    Dw = subset_dissimilarity(Ds, mask)
    forest = RandomForestClassifier(n_estimators=n_estimators, max_features="sqrt", bootstrap=True,
                                    oob_score=True, random_state=seed, n_jobs=n_jobs).fit(Dw, y)
    return forest, k_smallest_indices(Dw, k_train, exclude_diagonal=True)


def reference_pool(vf, seed, n_estimators, k, n_jobs):
    """The pool of the paper's rules grown as before issue 54 (candidates on threads as ``DVSCombiner.fit``),
    then the replay (OLA, own regions, OOB tie-break, best).  Returns ``(oob_hits (n, P), oob_decision (P, n, C),
    regions (P, n, k), train_selection (n,))``."""
    Ds, y = vf.dissimilarities, np.asarray(vf.y, dtype=np.int64)
    subsets = view_subsets(vf.n_views)
    outer, inner = split_workers(n_jobs, len(subsets))
    k_train = min(k, len(y) - 1)
    with warnings.catch_warnings():  # set here, not in the threads: the filters are process-wide
        warnings.filterwarnings("ignore", message="Some inputs do not have OOB scores")
        pool = Parallel(n_jobs=outer, prefer="threads")(
            delayed(reference_candidate)(Ds, w, y, n_estimators, seed, inner, k_train) for w in subsets)
    hits = np.stack([oob_hits(f, y) for f, _ in pool], axis=1)
    decision = np.stack([f.oob_decision_function_ for f, _ in pool])
    regions = np.stack([r for _, r in pool])
    true_proba = decision[:, np.arange(len(y)), y].T
    competence = COMPETENCE_RULES["ola"](PoolEvidence(hits, true_proba, y), regions)
    priority = selection_priority(hits.mean(axis=0), subsets.sum(axis=1), "oob")
    return hits, decision, regions, select_candidates(competence.T, priority, "best")[0]


def clocked(fn):
    """``(wall seconds, CPU seconds of this process, fn())``."""
    cpu = time.process_time()
    wall, out = timed(fn)
    return wall, time.process_time() - cpu, out


def fit_section(args):
    """DVS's fit against Avg's on all of mfeat, and the pool's reference path against the fast one."""
    ds = load_dataset("mfeat")
    folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=0).split(ds.X, ds.y))
    print(f"DVS's fit on mfeat: {ds.n_samples} instances, {len(ds.view_indices)} views, {args.folds} stratified "
          f"folds ({len(folds[0][0])} train), {args.trees} trees per forest, k={args.k}, n_jobs=2; "
          "seconds wall / CPU")
    rows = []
    for f, (tr, _) in enumerate(folds):
        def fit(combination):
            clf = RFDClassifier(views=ds.view_indices, combination=combination, n_estimators=args.trees,
                                random_state=0, n_jobs=2)
            if combination == "dvs":
                clf.set_params(combination__k=args.k)
            return clf.fit(ds.X[tr], ds.y[tr])

        w_avg, c_avg, _ = clocked(lambda: fit("average"))
        w_dvs, c_dvs, dvs = clocked(lambda: fit("dvs"))
        line = (f"fold {f + 1}: Avg {w_avg:6.2f} / {c_avg:6.2f}   DVS {w_dvs:6.2f} / {c_dvs:6.2f}   "
                f"DVS/Avg {w_dvs / w_avg:5.1f}x wall, {c_dvs / c_avg:5.1f}x CPU")
        if f < args.reference_folds:
            vf, comb = dvs.view_forest_set_, dvs.combiner_
            times = {"reference": [], "fast": []}
            for _ in range(args.reference_repeats):  # alternating, the fastest of each: the machine is shared
                w, c, fast = clocked(lambda: DVSCombiner(k=args.k, n_estimators=args.trees, n_jobs=2,
                                                         random_state=comb.seed_).fit(vf))
                times["fast"].append((w, c))
                w, c, (hits, decision, regions, chosen) = clocked(
                    lambda: reference_pool(vf, comb.seed_, args.trees, args.k, 2))
                times["reference"].append((w, c))
            (w_fast, c_fast), (w_ref, c_ref) = (np.min(times["fast"], axis=0), np.min(times["reference"], axis=0))
            assert np.array_equal(hits, fast.oob_hits_), "reference and fast out-of-bag hits differ"
            assert all(np.array_equal(decision[c], forest.oob_decision_function_)
                       for c, forest in enumerate(fast.candidates_)), "out-of-bag decisions differ"
            assert np.array_equal(regions, fast._train_regions.for_rule(REGION_RULES["candidate"])[0])
            assert np.array_equal(chosen, fast.train_selection_), "training selections differ"
            assert np.array_equal(fast.train_selection_, comb.train_selection_)
            line += (f"\n        pool only (fastest of {args.reference_repeats}, alternating): reference path "
                     f"{w_ref:6.2f} / {c_ref:6.2f}, fast path {w_fast:6.2f} / {c_fast:6.2f}: {w_ref / w_fast:.2f}x "
                     f"wall, {c_ref / c_fast:.2f}x CPU (identical out-of-bag decisions, regions and selections)"
                     f"\n        DVS fit with the reference pool (this fit - fast pool + reference pool): "
                     f"{w_dvs - w_fast + w_ref:6.2f} / {c_dvs - c_fast + c_ref:6.2f}, "
                     f"{(w_dvs - w_fast + w_ref) / w_avg:.1f}x Avg's wall, {(c_dvs - c_fast + c_ref) / c_avg:.1f}x CPU")
        print(line, flush=True)
        rows.append((w_avg, c_avg, w_dvs, c_dvs))
    w_avg, c_avg, w_dvs, c_dvs = np.median(np.array(rows), axis=0)
    print(f"median over {args.folds} folds: Avg {w_avg:.2f} / {c_avg:.2f}, DVS {w_dvs:.2f} / {c_dvs:.2f}: "
          f"DVS/Avg {w_dvs / w_avg:.1f}x wall, {c_dvs / c_avg:.1f}x CPU")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=600, help="mfeat instances (stratified sample)")
    ap.add_argument("--trees", type=int, default=100, help="trees per forest (paper: 512)")
    ap.add_argument("--k", type=int, default=7)
    ap.add_argument("--n-test", type=int, default=None,
                    help="test instances drawn from the mfeat instances outside the n/2 training ones "
                         "(default: the other half of the --n sample)")
    ap.add_argument("--loop-instances", type=int, default=100,
                    help="test instances timed by the loop (best of 3, scaled to all; 0 = all, once)")
    ap.add_argument("--fit", action="store_true", help="DVS's fit against Avg's on all of mfeat (see above)")
    ap.add_argument("--folds", type=int, default=5, help="--fit: stratified folds")
    ap.add_argument("--reference-folds", type=int, default=1,
                    help="--fit: folds on which the pool is also grown by the reference path (0: none)")
    ap.add_argument("--reference-repeats", type=int, default=2,
                    help="--fit: reference and fast pools grown this many times each, alternating (fastest kept)")
    args = ap.parse_args()
    if args.fit:
        return fit_section(args)

    ds = load_dataset("mfeat")
    if args.n_test is None:
        if args.n < ds.n_samples:
            ds = ds.stratified_sample(args.n, random_state=0)
        tr, te = train_test_split(np.arange(ds.n_samples), test_size=0.5, stratify=ds.y, random_state=0)
    else:  # the pool of a 50/50 split of --n instances, tested on --n-test of the other instances
        tr, rest = train_test_split(np.arange(ds.n_samples), train_size=args.n // 2, stratify=ds.y, random_state=0)
        if args.n_test > len(rest):
            ap.error(f"--n-test must be at most {len(rest)} (mfeat instances outside the training set)")
        te = rest if args.n_test == len(rest) else train_test_split(
            rest, train_size=args.n_test, stratify=ds.y[rest], random_state=0)[0]
    print(f"mfeat: {len(tr) + len(te)} instances, {len(ds.view_indices)} views, "
          f"{len(tr)} train / {len(te)} test, {args.trees} trees per forest, k={args.k}, n_jobs=2")

    t_views, vf = timed(lambda: fit_view_forests(ds.X[tr], ds.y[tr], ds.view_indices, n_estimators=args.trees,
                                                 random_state=0, n_jobs=2))
    comb = DVSCombiner(k=args.k, n_estimators=args.trees, n_jobs=2, random_state=0)
    t_pool, _ = timed(lambda: comb.fit(vf))
    P = len(comb.candidates_)
    t_transform, Ds = timed(lambda: vf.transform(ds.X[te], n_jobs=2))
    print(f"view forests ({len(vf.views)}):            {t_views:8.3f} s")
    print(f"DVS pool ({P} candidates):          {t_pool:8.3f} s  ({t_pool / P * 1000:.1f} ms per candidate)")
    print(f"per-view test matrices (transform):  {t_transform:8.3f} s")

    t_vec, comp_vec = best_of(lambda: comb.competences(Ds))
    m = len(te) if args.loop_instances <= 0 else min(args.loop_instances, len(te))
    sub = [D[:m] for D in Ds]
    t_loop, comp_loop = best_of(lambda: loop_competence(comb, sub), repeat=1 if m == len(te) else 3)
    assert np.array_equal(comp_vec[:m], comp_loop), "vectorised and loop competences differ"
    t_loop_all = t_loop * len(te) / m
    print(f"competence, vectorised ({len(te)} x {P}):  {t_vec:8.4f} s")
    print(f"competence, per-instance loop:       {t_loop_all:8.4f} s"
          + ("" if m == len(te) else f"  (measured on {m} instances, scaled)"))
    print(f"  -> loop / vectorised = {t_loop_all / t_vec:.1f}x   (identical results)")

    print(f"entries under the bound per row (mean over candidates with a superset, first {m} rows): "
          f"{entries_under_bound(comb, sub):.1f}  (k = {args.k}, {comb.n_train_} training instances)")

    t_explain, ex = best_of(lambda: comb.explain(Ds))
    t_proba, proba = best_of(lambda: comb.predict_proba(Ds))
    assert np.array_equal(proba, ex.proba)
    acc = np.mean(ex.prediction == ds.y[te])
    print(f"explain ({len(te)} instances):           {t_explain:8.4f} s  = {100 * t_explain / t_pool:.2f} % of pool "
          f"training")
    print(f"predict_proba:                       {t_proba:8.4f} s  = {100 * t_proba / t_pool:.2f} % of pool training")
    print(f"DVS test accuracy {acc:.3f}; candidates chosen: {len(np.unique(ex.chosen))}/{P}; "
          f"mean tied candidates at max competence: {ex.n_tied.mean():.1f}")

    # the other rules on the same pool (DVS_VARIANTS of the comparison, and KNORA-U): explain's cost
    print("other rules on the same pool (with_rules; the replay on the training rows is timed separately):")
    for name, rules in {"soft competence": {"competence": "soft"},
                        "soft competence, shared region": {"competence": "soft", "region": "shared"},
                        "KNORA-U selection": {"selection": "knora-u"}}.items():
        t_rules, variant = timed(lambda: comb.with_rules(**rules))
        t_var, ex_var = best_of(lambda: variant.explain(Ds))
        print(f"  {name:31s} explain {t_var:7.4f} s = {100 * t_var / t_pool:.2f} % of pool training "
              f"(with_rules {100 * t_rules / t_pool:.2f} %); accuracy {np.mean(ex_var.prediction == ds.y[te]):.3f}, "
              f"mean tied {ex_var.n_tied.mean():.1f}")


if __name__ == "__main__":
    main()
