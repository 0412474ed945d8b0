"""The peers, measured in one run (issue 16, part 3; issue 54 item 4): mvlab against DF21, DESlib and treeple,
with floors.

Users choose between mvlab and the libraries they know, so this bench runs them side by side on the
same splits, in one run, and prints accuracies (mean +- std over the splits), fit and predict times
and their ratios:

1. **gcForest cascade vs DF21** (``deep-forest-py310``, LAMDA's implementation) on digits,
   breast-cancer and mfeat (stratified 50/50 splits), 4 forests x ``--trees`` trees per level:
   mvlab ``CascadeForest(n_completely_random=2, n_random=2, n_estimators=T)`` with the paper's
   ``class_vectors="kfold"`` (3 fold-models per forest) and with ``class_vectors="oob"`` (one
   bootstrapped forest, DF21's own choice); DF21 ``CascadeForestClassifier(n_estimators=2,
   n_trees=T)`` (2 random + 2 extra-trees forests per layer, its defaults otherwise). With
   ``--cascade-baseline REV`` the cascade of git revision REV runs too (same splits, same run), so
   the effect of a change to ``mvlab/siamese/cascade.py`` is read off one table. DF21 runs first on
   each split, so that a last mvlab row can stop at DF21's depth on that split (``max_levels`` =
   the layers DF21 kept): the comparison at equal depth, since prediction time grows with the levels.
2. **Dynamic selection vs DESlib** on mfeat 600 (6 views; ``--ds-splits`` stratified 50/50 splits,
   as in the paper): mvlab's ``RFDClassifier`` combinations (average, knn, alignment, oob, dvs) on
   the same view forests (``fit_view_forests``), against DESlib's OLA, LCA, KNORA-E, META-DES and
   DES-KNN on two pools: one random forest per view, and one per view subset (63), each member a
   ``Pipeline`` that selects its columns (DESlib gives every member all of X).
   **DSEL**: DESlib needs labelled rows that the pool did not learn (a bagged forest is right on
   almost all of its own training rows, so its competence there says nothing). The pool is fitted
   on a stratified half of the training rows and the other half is DSEL ("pool 1/2, DSEL 1/2",
   DESlib's own examples do this); with ``--dsel-train`` (and ``--full``) the variant "pool and DSEL
   = all training rows" runs too, to show what in-sample competence does. mvlab needs no DSEL: its
   weights and DVS competences are out-of-bag on all training rows.
3. **Floors**, same splits and trees: a plain random forest on all features, and late fusion (soft
   vote of per-view forests fitted on all training rows, with the seeds and settings of mvlab's view
   forests: the very trees the combinations use, checked, but timed without the dissimilarity
   matrices); for each DESlib pool, the pool's own soft vote.
4. **Multi-view forests vs treeple** (``--sections multiview``; printed as "## 3."): on the bundled
   multi-view sets segment (2 views), digits (4 quadrants) and mfeat (6 views), ``--mv-splits``
   stratified 50/50 splits (default 5, quick 2; the same ``stratified_splits`` as above), 100 trees:
   treeple's ``MultiViewRandomForestClassifier(n_estimators=100, feature_set_ends=<the views' column
   ends>)``, the columns put in view order (digits' quadrants are not contiguous), with
   ``apply_max_features_per_feature_set=True`` (per-view feature sampling, the reference of the
   ratios) and with its defaults (``max_features`` drawn over all the columns); against mvlab's
   ``RFDClassifier`` Avg and DVS (the DS section's settings, k = 7; ``fit`` grows the view forests
   itself) and the plain random forest on all features. Accuracy, fit, predict and the peak resident
   memory of the measuring process: every method and split runs in a fresh worker process, whose
   ``VmHWM`` (imports and data included) and its growth over the resident memory just before ``fit``
   are printed.

Three interpreters: mvlab needs scikit-learn >= 1.9, DF21 requires scikit-learn < 1.6 and treeple
0.10.3 requires >= 1.6 (and imports only with 1.6.x), so DF21 and DESlib run in their own venv
(``.venv-peers``, from ``bench/requirements-peers.txt``) and treeple in another (``.venv-treeple``,
from ``bench/requirements-treeple.txt``); this script creates either when missing, and only those
the chosen sections need. The script started with the app's interpreter is the orchestrator: it draws
the splits, writes them with the data to a temporary ``.npz``, and runs every side as a subprocess
of this same file (``--worker``), mvlab's with its own interpreter and the peers' with their
venv, alternating sides split by split (so a change in the machine's load hits both); import times
are not counted. Every estimator gets ``n_jobs=2``. Times are wall-clock: one fit per split and method,
predict best of 3; a ratio is the ratio of the mean times over the splits (per-split range in brackets).

Run from the repository root::

    .venv/bin/python bench/bench_peers.py            # default: about 30 minutes on 2 shared cores
    .venv/bin/python bench/bench_peers.py --sections multiview   # treeple's section alone: 5-10 minutes
    .venv/bin/python bench/bench_peers.py --quick    # 2 splits each, about 7 minutes
    .venv/bin/python bench/bench_peers.py --full     # 10 cascade splits, 512 trees and --dsel-train in the DS section

The output in docs/bench/bench_peers.txt is ``--cascade-baseline 3b28281 --dsel-train`` (28 minutes),
before the multi-view section; that section's is docs/bench/bench_peers_multiview.txt.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _timing import best_of, timed
from _venvs import venv_python

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run from anywhere without installing

CASCADE_DATASETS = ("digits", "breast-cancer", "mfeat")
COMBINATIONS = ("average", "knn", "alignment", "oob", "dvs")
DES_TECHNIQUES = ("OLA", "LCA", "KNORA-E", "META-DES", "DES-KNN")
K = 7  # region of competence: DVS and every DESlib technique
MV_DATASETS = ("segment", "digits", "mfeat")
MV_MVLAB = {"random forest, all features": None, "mvlab average (Avg)": "average", "mvlab dvs (DVS)": "dvs"}
MV_TREEPLE = {"treeple MultiViewRF, max_features per view": True, "treeple MultiViewRF (defaults)": False}






def load_job(path, split=None):
    """Spec, arrays and the splits to run: [(r, (train rows, test rows))], all or only split ``split``."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    spec = json.loads(str(arrays.pop("spec")))
    splits = [(r, (arrays[f"train_{r}"], arrays[f"test_{r}"])) for r in range(spec["n_splits"])
              if split is None or r == split]
    return spec, arrays, splits


# ======================================================================================= workers
# Each worker runs in its own interpreter, reads one job (.npz) and writes its rows (JSON):
# {"versions": {...}, "rows": [{"method", "split", "accuracy", "fit", "predict", ...}]}.


def worker_mvlab_cascade(spec, arrays, splits):
    import sklearn

    import mvlab
    from mvlab import CascadeForest

    X, y = arrays["X"], arrays["y"]
    variants = []
    for v in spec["variants"]:
        cls = CascadeForest
        if v.get("source"):  # the cascade of another revision, loaded from its source file
            mod_spec = importlib.util.spec_from_file_location("cascade_baseline", v["source"])
            mod = importlib.util.module_from_spec(mod_spec)
            mod_spec.loader.exec_module(mod)
            cls = mod.CascadeForest
        variants.append((v["method"], cls, v["class_vectors"], v.get("df21_depth", False)))
    rows = []
    for r, (tr, te) in splits:
        for method, cls, cv, df21_depth in variants:
            extra = {"max_levels": spec["df21_depth"]} if df21_depth else {}
            est = cls(n_completely_random=2, n_random=2, n_estimators=spec["trees"], class_vectors=cv,
                      n_jobs=spec["n_jobs"], random_state=r, **extra)
            t_fit, _ = timed(lambda: est.fit(X[tr], y[tr]))
            t_pred, pred = best_of(lambda: est.predict(X[te]))
            rows.append(dict(method=method, split=r, accuracy=float(np.mean(pred == y[te])), fit=t_fit,
                             predict=t_pred, levels=int(est.n_levels_), built=len(est.level_scores_)))
    return {"versions": {"mvlab": mvlab.__version__, "scikit-learn": sklearn.__version__,
                         "numpy": np.__version__}, "rows": rows}


def worker_df21(spec, arrays, splits):
    from importlib import metadata

    import sklearn
    from deepforest import CascadeForestClassifier

    X, y = arrays["X"], arrays["y"]
    rows = []
    for r, (tr, te) in splits:
        est = CascadeForestClassifier(n_estimators=2, n_trees=spec["trees"], n_jobs=spec["n_jobs"],
                                      random_state=r, verbose=0)
        t_fit, _ = timed(lambda: est.fit(X[tr], y[tr]))
        t_pred, pred = best_of(lambda: est.predict(X[te]))
        kept = int(est.n_layers_)  # after early stopping: the layers kept; the tolerant ones were built too
        built = kept if kept == est.max_layers else kept + est.n_tolerant_rounds
        rows.append(dict(method="DF21", split=r, accuracy=float(np.mean(pred == y[te])), fit=t_fit,
                         predict=t_pred, levels=kept, built=built))
    return {"versions": {"deep-forest-py310": metadata.version("deep-forest-py310"),
                         "scikit-learn": sklearn.__version__, "numpy": np.__version__}, "rows": rows}


def worker_mvlab_ds(spec, arrays, splits):
    import sklearn
    from sklearn.ensemble import RandomForestClassifier

    import mvlab
    from mvlab import RFDClassifier, fit_view_forests, make_combiner

    X, y, T, J = arrays["X"], arrays["y"], spec["trees"], spec["n_jobs"]
    views = {name: arrays[f"view_{q}"] for q, name in enumerate(spec["view_names"])}
    rows = []
    for r, (tr, te) in splits:
        Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]

        def row(method, pred, fit, predict, **extra):
            rows.append(dict(method=method, split=r, accuracy=float(np.mean(pred == yte)), fit=fit,
                             predict=predict, **extra))

        rf = RandomForestClassifier(n_estimators=T, n_jobs=J, random_state=r)
        t_fit, _ = timed(lambda: rf.fit(Xtr, ytr))
        t_pred, pred = best_of(lambda: rf.predict(Xte))
        row("random forest, all features", pred, t_fit, t_pred)

        t_vf, vf = timed(lambda: fit_view_forests(Xtr, ytr, views, n_estimators=T, random_state=r, n_jobs=J))

        # Late fusion grows the view forests alone (same seeds and settings as fit_view_forests, so
        # the same trees, checked below) without the dissimilarity matrices the combinations need.
        def fit_late_fusion():
            return [RandomForestClassifier(n_estimators=T, max_features="sqrt", bootstrap=True, n_jobs=J,
                                           random_state=int(seed)).fit(Xtr[:, cols], vf.y)
                    for cols, seed in zip(vf.views, vf.seeds)]

        def late_fusion(forests):
            proba = np.mean([f.predict_proba(Xte[:, cols]) for f, cols in zip(forests, vf.views)], axis=0)
            return vf.classes[np.argmax(proba, axis=1)]

        t_fit, fusion = timed(fit_late_fusion)
        t_pred, pred = best_of(lambda: late_fusion(fusion))
        assert np.array_equal(pred, late_fusion([f.forest_ for f in vf.forests])), "late fusion: other trees"
        row("late fusion (soft vote of the view forests)", pred, t_fit, t_pred)

        t_tr, test_D = best_of(lambda: vf.transform(Xte, n_jobs=J))
        for c in COMBINATIONS:
            clf = RFDClassifier(views=views, combination=make_combiner(c).set_params(k=K), n_estimators=T,
                                random_state=r, n_jobs=J)
            t_fit, _ = timed(lambda: clf.fit(Xtr, ytr, view_forests=vf))
            t_pred, pred = best_of(lambda: clf.predict_from_dissimilarities(test_D))
            row(f"mvlab {c}", pred, t_vf + t_fit, t_tr + t_pred, own_fit=t_fit)
    return {"versions": {"mvlab": mvlab.__version__, "scikit-learn": sklearn.__version__,
                         "numpy": np.__version__}, "rows": rows}


def worker_deslib(spec, arrays, splits):
    from importlib import metadata

    import sklearn
    from deslib.dcs import LCA, OLA
    from deslib.des import DESKNN, KNORAE, METADES
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    techniques = {"OLA": OLA, "LCA": LCA, "KNORA-E": KNORAE, "META-DES": METADES, "DES-KNN": DESKNN}
    X, y, T, J = arrays["X"], arrays["y"], spec["trees"], spec["n_jobs"]
    views = [arrays[f"view_{q}"] for q in range(len(spec["view_names"]))]
    subsets = [s for m in range(1, len(views) + 1) for s in itertools.combinations(range(len(views)), m)]
    pools = {"6 view forests": [views[q] for q in range(len(views))],
             f"{len(subsets)} view-subset forests": [np.sort(np.concatenate([views[q] for q in s])) for s in subsets]}

    def member(cols, seed):
        # DESlib hands every member the whole X: the first step keeps the member's columns.
        return Pipeline([("columns", FunctionTransformer(np.take, kw_args={"indices": cols, "axis": 1})),
                         ("forest", RandomForestClassifier(n_estimators=T, n_jobs=J, random_state=seed))])

    rows = []
    for r, (tr, te) in splits:
        Xte, yte = X[te], y[te]
        dsel_modes = {"pool 1/2, DSEL 1/2": (arrays[f"pool_{r}"], arrays[f"dsel_{r}"])}
        if spec["dsel_train"]:
            dsel_modes["pool = DSEL = training rows"] = (tr, tr)
        for (pool_name, columns), (mode, (pool_rows, dsel_rows)) in itertools.product(pools.items(),
                                                                                      dsel_modes.items()):
            pool = [member(cols, 1000 * r + m) for m, cols in enumerate(columns)]
            t_pool, _ = timed(lambda: [p.fit(X[pool_rows], y[pool_rows]) for p in pool])
            tag = f"{pool_name}; {mode}"

            def soft_vote():
                return np.argmax(np.mean([p.predict_proba(Xte) for p in pool], axis=0), axis=1)

            t_pred, pred = best_of(soft_vote)
            rows.append(dict(method=f"soft vote of the pool [{tag}]", split=r, accuracy=float(np.mean(pred == yte)),
                             fit=t_pool, predict=t_pred))
            for name, cls in techniques.items():
                des = cls(pool_classifiers=pool, k=K, random_state=r)
                t_fit, _ = timed(lambda: des.fit(X[dsel_rows], y[dsel_rows]))
                t_pred, pred = best_of(lambda: des.predict(Xte))
                rows.append(dict(method=f"DESlib {name} [{tag}]", split=r, accuracy=float(np.mean(pred == yte)),
                                 fit=t_pool + t_fit, predict=t_pred, own_fit=t_fit))
    return {"versions": {"DESlib": metadata.version("DESlib"), "scikit-learn": sklearn.__version__,
                         "numpy": np.__version__}, "rows": rows}


def _memory_mib():
    """(resident MiB now, peak resident MiB of this process so far): :func:`_memory.own_memory_mib` (VmRSS, VmHWM).
    Every forest here runs on threads (scikit-learn's, treeple's and mvlab's joblib calls prefer threads), so the
    process is all there is to measure."""
    from _memory import own_memory_mib

    return own_memory_mib()


def _measure(method, r, est, Xtr, ytr, Xte, yte):
    """One row of the multi-view section: fit once, predict best of 3, the accuracy and the process's memory
    (one method and one split per process: its peak is this method's, imports and data included)."""
    start, _ = _memory_mib()
    t_fit, _ = timed(lambda: est.fit(Xtr, ytr))
    t_pred, pred = best_of(lambda: est.predict(Xte))
    _, peak = _memory_mib()
    return dict(method=method, split=r, accuracy=float(np.mean(pred == yte)), fit=t_fit, predict=t_pred,
                start_mib=start, peak_mib=peak)


def worker_mvlab_mv(spec, arrays, splits):
    import sklearn
    from sklearn.ensemble import RandomForestClassifier

    import mvlab
    from mvlab import RFDClassifier, make_combiner

    X, y, T, J, method = arrays["X"], arrays["y"], spec["trees"], spec["n_jobs"], spec["method"]
    views = {name: arrays[f"view_{q}"] for q, name in enumerate(spec["view_names"])}
    rows = []
    for r, (tr, te) in splits:
        if MV_MVLAB[method] is None:
            est = RandomForestClassifier(n_estimators=T, n_jobs=J, random_state=r)
        else:  # the DS section's settings; the view forests grown by fit itself (a user's one call)
            est = RFDClassifier(views=views, combination=make_combiner(MV_MVLAB[method]).set_params(k=K),
                                n_estimators=T, random_state=r, n_jobs=J)
        rows.append(_measure(method, r, est, X[tr], y[tr], X[te], y[te]))
    return {"versions": {"mvlab": mvlab.__version__, "scikit-learn": sklearn.__version__,
                         "numpy": np.__version__}, "rows": rows}


def worker_treeple(spec, arrays, splits):
    from importlib import metadata

    import sklearn
    from treeple import MultiViewRandomForestClassifier

    X, y, T, J, method = arrays["X"], arrays["y"], spec["trees"], spec["n_jobs"], spec["method"]
    views = [arrays[f"view_{q}"] for q in range(len(spec["view_names"]))]
    # treeple's views are blocks of consecutive columns (feature_set_ends): the columns are put in view order
    # (digits' quadrants are not contiguous); the views partition the columns, so no column is lost or doubled.
    order = np.concatenate(views)
    assert np.array_equal(np.sort(order), np.arange(X.shape[1])), "the views must partition the columns"
    X, ends = X[:, order], np.cumsum([len(v) for v in views]).tolist()
    rows = []
    for r, (tr, te) in splits:
        est = MultiViewRandomForestClassifier(n_estimators=T, feature_set_ends=ends, random_state=r, n_jobs=J,
                                              apply_max_features_per_feature_set=MV_TREEPLE[method])
        rows.append(_measure(method, r, est, X[tr], y[tr], X[te], y[te]))
    return {"versions": {"treeple": metadata.version("treeple"), "scikit-learn": sklearn.__version__,
                         "numpy": np.__version__}, "rows": rows}


WORKERS = {"mvlab-cascade": worker_mvlab_cascade, "df21": worker_df21,
           "mvlab-ds": worker_mvlab_ds, "deslib": worker_deslib,
           "mvlab-mv": worker_mvlab_mv, "treeple": worker_treeple}


def run_worker(name, job, out, split=None, df21_depth=None, method=None):
    spec, arrays, splits = load_job(job, split)
    if df21_depth is not None:
        spec["df21_depth"] = df21_depth
    if method is not None:
        spec["method"] = method
    result = WORKERS[name](spec, arrays, splits)
    Path(out).write_text(json.dumps(result))


# ================================================================================== orchestrator
def peers_python(path: Path, setup: bool) -> tuple[Path | None, str]:
    """DF21's and DESlib's interpreter (bench/requirements-peers.txt)."""
    return venv_python(path, "requirements-peers.txt", "deepforest, deslib", setup)


def treeple_python(path: Path, setup: bool) -> tuple[Path | None, str]:
    """treeple's interpreter (bench/requirements-treeple.txt)."""
    return venv_python(path, "requirements-treeple.txt", "treeple", setup)


def parallel_probe() -> float:
    """Speed-up of two busy processes over one, right now (2.0 = two free cores)."""
    code = "s=0\nfor i in range(15_000_000): s+=i"
    t1, _ = timed(lambda: subprocess.run([sys.executable, "-c", code], check=True))
    t2, _ = timed(lambda: [p.wait() for p in [subprocess.Popen([sys.executable, "-c", code]) for _ in range(2)]])
    return 2 * t1 / t2


def write_job(path, spec, arrays, splits):
    spec = dict(spec, n_splits=len(splits))
    data = dict(arrays)
    for r, (tr, te) in enumerate(splits):
        data[f"train_{r}"], data[f"test_{r}"] = tr, te
    np.savez(path, spec=np.array(json.dumps(spec)), **data)


def call(python, worker, job, tmp, split, df21_depth=None, method=None):
    """Run one worker on one split (and with ``method``, that method alone) in a fresh interpreter; its rows and
    versions."""
    out = Path(tmp) / f"{Path(job).stem}.{worker}.{split}.json"
    cmd = [str(python), str(Path(__file__).resolve()), "--worker", worker, "--job", str(job), "--out", str(out),
           "--split", str(split)]
    if df21_depth is not None:
        cmd += ["--df21-depth", str(df21_depth)]
    if method is not None:
        cmd += ["--method", method]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"worker {worker} failed:\n{done.stderr[-4000:]}")
    return json.loads(out.read_text())


def stratified_splits(y, n_splits, test_size=0.5):
    from sklearn.model_selection import train_test_split

    idx = np.arange(len(y))
    return [tuple(np.sort(part) for part in train_test_split(idx, test_size=test_size, stratify=y, random_state=r))
            for r in range(n_splits)]


def summarize(rows):
    """method -> dict of per-split arrays, in first-seen order."""
    out = {}
    for row in rows:
        d = out.setdefault(row["method"], {})
        for key, value in row.items():
            if key != "method":
                d.setdefault(key, []).append(value)
    return {m: {k: np.asarray(v) for k, v in d.items()} for m, d in out.items()}


def ratio(a, b):
    """Ratio of mean times and the per-split range."""
    per_split = a / b
    return a.mean() / b.mean(), per_split.min(), per_split.max()


def fmt_ratio(a, b):
    m, lo, hi = ratio(a, b)
    return f"{m:5.2f} ({lo:.2f}-{hi:.2f})"


def cascade_section(args, tmp, peers_py, versions):
    from mvlab import load_dataset

    variants = [{"method": "mvlab kfold (paper default)", "class_vectors": "kfold"},
                {"method": "mvlab oob", "class_vectors": "oob"}]
    if args.cascade_baseline:
        source = Path(tmp) / "cascade_baseline.py"
        text = subprocess.run(["git", "-C", str(REPO), "show", f"{args.cascade_baseline}:mvlab/siamese/cascade.py"],
                              capture_output=True, text=True, check=True).stdout
        source.write_text(text)
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", args.cascade_baseline],
                             capture_output=True, text=True, check=True).stdout.strip()
        variants.insert(1, {"method": f"mvlab kfold, cascade.py of {rev} (before)", "class_vectors": "kfold",
                            "source": str(source)})
    print(f"\n## 1. gcForest cascade vs DF21: {args.cascade_splits} stratified 50/50 splits, 4 forests x "
          f"{args.trees} trees per level, n_jobs={args.n_jobs}\n")
    print("mvlab: CascadeForest(n_completely_random=2, n_random=2, n_estimators=T, class_vectors=...); "
          "patience 1, at most 10 levels.")
    print("DF21:  CascadeForestClassifier(n_estimators=2, n_trees=T); its defaults otherwise "
          "(255 bins, 2 tolerant rounds, at most 20 layers).")
    print("levels = levels kept (built); fit = one fit; predict = best of 3 on the test half; "
          "ratios = mean time / DF21's mean time (per-split range);")
    print("per level = the same ratio for the prediction time divided by the levels kept (DF21: layers kept).\n")
    summary = {}
    for name in args.cascade_datasets:
        ds = load_dataset(name)
        splits = stratified_splits(ds.y, args.cascade_splits)
        job = Path(tmp) / f"cascade_{name}.npz"
        capped = [{"method": "mvlab oob, at most DF21's depth", "class_vectors": "oob", "df21_depth": True}]
        spec = {"trees": args.trees, "n_jobs": args.n_jobs,
                "variants": variants + (capped if peers_py is not None else [])}
        write_job(job, spec, {"X": ds.X, "y": ds.y}, splits)
        rows = []
        for r in range(len(splits)):  # the two sides alternate split by split, DF21 first (its depth caps a row)
            depth = None
            if peers_py is not None:
                peer = call(peers_py, "df21", job, tmp, r)
                versions.setdefault("DF21 side", peer["versions"])
                rows += peer["rows"]
                depth = peer["rows"][0]["levels"]
            res = call(sys.executable, "mvlab-cascade", job, tmp, r, depth)
            versions.setdefault("mvlab side", res["versions"])
            rows += res["rows"]
        s = summarize(rows)
        summary[name] = s
        n, d = ds.X.shape
        print(f"{name} ({n} x {d}, {len(ds.classes)} classes, {len(splits[0][0])} train / {len(splits[0][1])} test)")
        print(f"  {'method':44s} {'accuracy':>15s} {'fit s':>7s} {'predict s':>9s} {'levels':>9s}"
              f" {'fit / DF21':>17s} {'predict / DF21':>17s} {'per level':>9s}")
        ref = s.get("DF21")
        for method, d_ in s.items():
            acc = f"{d_['accuracy'].mean():.4f} ± {d_['accuracy'].std(ddof=1) if len(d_['accuracy']) > 1 else 0:.4f}"
            lv = f"{d_['levels'].mean():.1f} ({d_['built'].mean():.1f})"
            fr = fmt_ratio(d_["fit"], ref["fit"]) if ref is not None else "-"
            pr = fmt_ratio(d_["predict"], ref["predict"]) if ref is not None else "-"
            # prediction time per kept level, against DF21's per kept layer
            pl = (f"{ratio(d_['predict'] / d_['levels'], ref['predict'] / ref['levels'])[0]:9.2f}"
                  if ref is not None else "-")
            print(f"  {method:44s} {acc:>15s} {d_['fit'].mean():7.2f} {d_['predict'].mean():9.3f} {lv:>9s}"
                  f" {fr:>17s} {pr:>17s} {pl:>9s}")
        print()
    if peers_py is None:
        return
    print("Target: prediction no slower than DF21 at equal accuracy (|mean difference| <= the larger std), "
          "fit no slower, on every dataset:")
    methods = [v["method"] for v in variants] + ["mvlab oob, at most DF21's depth"]
    for method in methods:
        verdicts = []
        for name, s in summary.items():
            a, b = s[method], s["DF21"]
            sd = max(a["accuracy"].std(ddof=1), b["accuracy"].std(ddof=1)) if len(a["accuracy"]) > 1 else 0.0
            diff = a["accuracy"].mean() - b["accuracy"].mean()
            fit, pred = ratio(a["fit"], b["fit"])[0], ratio(a["predict"], b["predict"])[0]
            ok = abs(diff) <= sd + 1e-12 and fit <= 1 and pred <= 1
            verdicts.append(f"{name}: Δacc {diff:+.4f} (std {sd:.4f}), fit x{fit:.2f}, predict x{pred:.2f} "
                            f"{'met' if ok else 'MISSED'}")
        print(f"  {method}:\n    " + "\n    ".join(verdicts))


def ds_section(args, tmp, peers_py, versions):
    from mvlab import load_dataset

    ds = load_dataset("mfeat")
    if args.ds_n < ds.n_samples:
        ds = ds.stratified_sample(args.ds_n, random_state=0)
    splits = stratified_splits(ds.y, args.ds_splits)
    from sklearn.model_selection import train_test_split

    arrays = {"X": ds.X, "y": ds.y}
    for q, cols in enumerate(ds.view_indices):
        arrays[f"view_{q}"] = np.asarray(cols)
    for r, (tr, _) in enumerate(splits):  # DESlib: pool rows and DSEL rows, a stratified half each
        pool, dsel = train_test_split(tr, test_size=0.5, stratify=ds.y[tr], random_state=r)
        arrays[f"pool_{r}"], arrays[f"dsel_{r}"] = np.sort(pool), np.sort(dsel)
    spec = {"trees": args.ds_trees, "n_jobs": args.n_jobs, "view_names": list(ds.views), "dsel_train": args.dsel_train}
    job = Path(tmp) / "ds_mfeat.npz"
    write_job(job, spec, arrays, splits)
    print(f"\n## 2. Dynamic selection vs DESlib, and the floors: mfeat {len(ds.y)} ({len(ds.view_indices)} views: "
          f"{', '.join(ds.views)}), {args.ds_splits} stratified 50/50 splits ({len(splits[0][0])} train / "
          f"{len(splits[0][1])} test), {args.ds_trees} trees per forest, k = {K}, n_jobs={args.n_jobs}\n")
    print("mvlab: RFDClassifier(views, combination=c, n_estimators=T, k=7) on the same view forests "
          "(fit_view_forests): fit = view forests + the combination, predict = test dissimilarities + the combination.")
    print("DESlib: technique(pool, k=7) on a pool of random forests (T trees each, column-selecting Pipelines); "
          "fit = pool + technique.")
    print("DSEL: 'pool 1/2, DSEL 1/2' = pool fitted on a stratified half of the training rows, DESlib fitted on the "
          "other half;")
    print("      'pool = DSEL = training rows' = both on all training rows (in-sample competence).")
    print("ratios = mean time / the random forest's on all features (per-split range).\n")
    rows = []
    for r in range(len(splits)):  # the two sides alternate split by split
        res = call(sys.executable, "mvlab-ds", job, tmp, r)
        versions.setdefault("mvlab side", res["versions"])
        rows += res["rows"]
        if peers_py is not None:
            peer = call(peers_py, "deslib", job, tmp, r)
            versions.setdefault("DESlib side", peer["versions"])
            rows += peer["rows"]
    s = summarize(rows)
    ref = s["random forest, all features"]
    print(f"  {'method':68s} {'accuracy':>15s} {'fit s':>7s} {'predict s':>9s} {'fit / RF':>18s} {'predict / RF':>18s}")
    for method, d_ in s.items():
        acc = f"{d_['accuracy'].mean():.4f} ± {d_['accuracy'].std(ddof=1) if len(d_['accuracy']) > 1 else 0:.4f}"
        print(f"  {method:68s} {acc:>15s} {d_['fit'].mean():7.2f} {d_['predict'].mean():9.3f}"
              f" {fmt_ratio(d_['fit'], ref['fit']):>18s} {fmt_ratio(d_['predict'], ref['predict']):>18s}")
    best_mv = max((m for m in s if m.startswith("mvlab")), key=lambda m: s[m]["accuracy"].mean())
    des = [m for m in s if m.startswith("DESlib")]
    if des:
        best_des = max(des, key=lambda m: s[m]["accuracy"].mean())
        print(f"\n  best mvlab: {best_mv} {s[best_mv]['accuracy'].mean():.4f}; best DESlib: {best_des} "
              f"{s[best_des]['accuracy'].mean():.4f}")
        for pool in sorted({m[m.index("[") + 1:-1] for m in des}):
            top = max((m for m in des if m.endswith(f"[{pool}]")), key=lambda m: s[m]["accuracy"].mean())
            gaps = [s[m]["accuracy"].mean() - s[top]["accuracy"].mean()
                    for m in s if m.startswith("mvlab") and m != "mvlab dvs"]
            print(f"  [{pool}] best technique {top.split(' [')[0]} {s[top]['accuracy'].mean():.4f}; "
                  f"mvlab's static combinations minus it: {min(gaps):+.4f} to {max(gaps):+.4f}; "
                  f"DVS minus it: {s['mvlab dvs']['accuracy'].mean() - s[top]['accuracy'].mean():+.4f}")


def multiview_section(args, tmp, treeple_py, versions):
    from mvlab import load_dataset

    treeple = list(MV_TREEPLE) if treeple_py is not None else []
    ref_name = "treeple MultiViewRF, max_features per view"  # the issue's per-view feature sampling
    print(f"\n## 3. Multi-view forests vs treeple: {', '.join(args.mv_datasets)}, {args.mv_splits} stratified 50/50 "
          f"splits (the bench's splits: train_test_split(stratify=y, random_state=r), r = 0..{args.mv_splits - 1}), "
          f"{args.mv_trees} trees per forest, n_jobs={args.n_jobs}\n")
    print("treeple: MultiViewRandomForestClassifier(n_estimators=T, feature_set_ends=<the views' column ends>, "
          "random_state=r), the columns put in view order;")
    print("         max_features per view = apply_max_features_per_feature_set=True: ceil(sqrt) of each view's "
          "columns drawn from each view (per-view feature sampling, the reference of the ratios);")
    print("         (defaults) = apply_max_features_per_feature_set=False: max_features='sqrt' of all the columns, "
          "drawn over all of them.")
    print(f"mvlab:   RFDClassifier(views, combination=c, n_estimators=T, k={K}, random_state=r).fit(X, y): the view "
          "forests, their dissimilarities and the combination (the DS section's settings);")
    print("         predict = the test dissimilarities + the combination. Floor: "
          "RandomForestClassifier(n_estimators=T, random_state=r) on all features.")
    print("Each method and split in a fresh process (treeple's first, then mvlab's, split by split): fit = one fit, "
          "predict = best of 3 on the test half;")
    print("peak MiB = the process's peak resident memory (VmHWM: imports and data included), + fit = peak minus "
          "the resident memory just before fit;")
    print("ratios = mean / the mean of treeple's max_features per view (time: per-split range in brackets).\n")
    summary = {}
    for name in args.mv_datasets:
        ds = load_dataset(name)
        splits = stratified_splits(ds.y, args.mv_splits)
        arrays = {"X": ds.X, "y": ds.y}
        for q, cols in enumerate(ds.view_indices):
            arrays[f"view_{q}"] = np.asarray(cols)
        spec = {"trees": args.mv_trees, "n_jobs": args.n_jobs, "view_names": list(ds.views)}
        job = Path(tmp) / f"mv_{name}.npz"
        write_job(job, spec, arrays, splits)
        rows = []
        for r in range(len(splits)):
            for method in treeple:
                peer = call(treeple_py, "treeple", job, tmp, r, method=method)
                versions.setdefault("treeple side", peer["versions"])
                rows += peer["rows"]
            for method in MV_MVLAB:
                res = call(sys.executable, "mvlab-mv", job, tmp, r, method=method)
                versions.setdefault("mvlab side", res["versions"])
                rows += res["rows"]
        s = summarize(rows)
        summary[name] = s
        n, d = ds.X.shape
        print(f"{name} ({n} x {d}, {len(ds.classes)} classes; {len(ds.views)} views: "
              f"{', '.join(f'{v} {len(c)}' for v, c in zip(ds.views, ds.view_indices))}; "
              f"{len(splits[0][0])} train / {len(splits[0][1])} test)")
        print(f"  {'method':44s} {'accuracy':>15s} {'fit s':>7s} {'predict s':>9s} {'peak MiB':>8s} {'+ fit':>6s}"
              f" {'fit / treeple':>18s} {'predict / treeple':>18s} {'peak / treeple':>14s}")
        ref = s.get(ref_name)
        for method, d_ in s.items():
            acc = f"{d_['accuracy'].mean():.4f} ± {d_['accuracy'].std(ddof=1) if len(d_['accuracy']) > 1 else 0:.4f}"
            fr = fmt_ratio(d_["fit"], ref["fit"]) if ref is not None else "-"
            pr = fmt_ratio(d_["predict"], ref["predict"]) if ref is not None else "-"
            mr = f"{d_['peak_mib'].mean() / ref['peak_mib'].mean():.2f}" if ref is not None else "-"
            print(f"  {method:44s} {acc:>15s} {d_['fit'].mean():7.2f} {d_['predict'].mean():9.3f}"
                  f" {d_['peak_mib'].mean():8.0f} {(d_['peak_mib'] - d_['start_mib']).mean():6.0f}"
                  f" {fr:>18s} {pr:>18s} {mr:>14s}")
        print()
    if treeple_py is None:
        return
    print("mvlab's side against treeple's max_features per view: accuracy difference (the larger std of the two), "
          "fit, predict and peak memory ratios (the memory a fit adds, both):")
    for method in MV_MVLAB:
        parts = []
        for name, s in summary.items():
            a, b = s[method], s[ref_name]
            sd = max(a["accuracy"].std(ddof=1), b["accuracy"].std(ddof=1)) if len(a["accuracy"]) > 1 else 0.0
            parts.append(f"{name}: Δacc {a['accuracy'].mean() - b['accuracy'].mean():+.4f} (std {sd:.4f}), "
                         f"fit x{ratio(a['fit'], b['fit'])[0]:.1f}, "
                         f"predict x{ratio(a['predict'], b['predict'])[0]:.1f}, "
                         f"peak x{a['peak_mib'].mean() / b['peak_mib'].mean():.2f} "
                         f"(+ fit {(a['peak_mib'] - a['start_mib']).mean():.0f} MiB against "
                         f"{(b['peak_mib'] - b['start_mib']).mean():.0f})")
        print(f"  {method}:\n    " + "\n    ".join(parts))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    ap.add_argument("--job", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--split", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--df21-depth", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--method", help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="2 splits per section (a few minutes)")
    ap.add_argument("--full", action="store_true", help="10 cascade splits and 512 trees per forest in section 2")
    ap.add_argument("--sections", "--section", nargs="+", choices=("cascade", "ds", "multiview"),
                    default=("cascade", "ds", "multiview"))
    ap.add_argument("--cascade-datasets", nargs="+", default=list(CASCADE_DATASETS))
    ap.add_argument("--cascade-splits", type=int, default=None, help="default 5 (quick 2, full 10)")
    ap.add_argument("--cascade-baseline", metavar="REV", default=None,
                    help="also run mvlab/siamese/cascade.py as of git revision REV (kfold), in the same run")
    ap.add_argument("--trees", type=int, default=100, help="trees per cascade forest (default 100)")
    ap.add_argument("--ds-splits", type=int, default=None, help="default 10 (quick 2)")
    ap.add_argument("--ds-trees", type=int, default=None, help="trees per forest in section 2 (default 100, full 512)")
    ap.add_argument("--ds-n", type=int, default=600, help="mfeat instances (stratified sample; paper: 600)")
    ap.add_argument("--dsel-train", action="store_true",
                    help="also run DESlib with pool and DSEL both on all training rows (on with --full)")
    ap.add_argument("--mv-datasets", nargs="+", default=list(MV_DATASETS), help="section 3's datasets")
    ap.add_argument("--mv-splits", type=int, default=None, help="section 3's splits: default 5 (quick 2)")
    ap.add_argument("--mv-trees", type=int, default=100, help="trees per forest in section 3 (default 100)")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--peers-venv", type=Path, default=REPO / ".venv-peers")
    ap.add_argument("--treeple-venv", type=Path, default=REPO / ".venv-treeple")
    ap.add_argument("--no-setup", action="store_true", help="do not create the peers' venvs when they are missing")
    args = ap.parse_args(argv)
    if args.worker:
        return run_worker(args.worker, args.job, args.out, args.split, args.df21_depth, args.method)
    args.cascade_splits = args.cascade_splits or (2 if args.quick else 10 if args.full else 5)
    args.ds_splits = args.ds_splits or (2 if args.quick else 10)
    args.mv_splits = args.mv_splits or (2 if args.quick else 5)
    args.ds_trees = args.ds_trees or (512 if args.full else 100)
    args.dsel_train = args.dsel_train or args.full

    import sklearn

    peers_py = treeple_py = None
    if {"cascade", "ds"} & set(args.sections):
        peers_py, why = peers_python(args.peers_venv, not args.no_setup)
    if "multiview" in args.sections:
        treeple_py, why_treeple = treeple_python(args.treeple_venv, not args.no_setup)
    print("# mvlab and its peers, measured in one run (bench/bench_peers.py)")
    print(f"python {platform.python_version()}, scikit-learn {sklearn.__version__} (mvlab side); "
          f"{os.cpu_count()} cores, two busy processes ran {parallel_probe():.2f}x one at the start "
          "(2.00 = two free cores; the machine is shared)")
    if {"cascade", "ds"} & set(args.sections):
        if peers_py is None:
            print(f"PEERS NOT MEASURED: {why}")
        print("not installable here: `deep-forest` (LAMDA's DF21 0.1.7, 2022) ships wheels for CPython <= 3.9 only "
              "and no source distribution, so pip finds nothing for Python 3.11; DF21 is measured through "
              "`deep-forest-py310` 0.1.9, the community fork of the same code (built from source here)")
    if "multiview" in args.sections and treeple_py is None:
        print(f"TREEPLE NOT MEASURED: {why_treeple}")
    t0 = time.perf_counter()
    versions = {}
    with tempfile.TemporaryDirectory() as tmp:
        if "cascade" in args.sections:
            cascade_section(args, tmp, peers_py, versions)
        if "ds" in args.sections:
            ds_section(args, tmp, peers_py, versions)
        if "multiview" in args.sections:
            multiview_section(args, tmp, treeple_py, versions)
    print("\nversions: " + "; ".join(f"{side}: " + ", ".join(f"{k} {v}" for k, v in vs.items())
                                     for side, vs in versions.items()))
    print(f"total {time.perf_counter() - t0:.0f} s; two busy processes ran {parallel_probe():.2f}x one at the end")


if __name__ == "__main__":
    main()
