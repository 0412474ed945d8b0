"""The Siamese deep forest paper's grid (`python -m mvlab reproduce sdf-paper`, 610 draws) re-timed on a sample
of its draws: what the whole grid would take now, against the committed draws' own seconds (issue #54 item 5).

The committed draws are docs/reproduction/sdf_paper_draws.csv: one row per model, its ``seconds`` the model's fit
(and level-by-level scoring) as the engine worker measured it while the grid ran (two workers, other work beside
them). A draw's seconds are the sum of its models' rows. The 610 draws of the issue are the grid before ILPD
joined it (the file now holds 630; both totals are printed).

Each sampled draw is computed exactly as the grid computes it (``run_draw`` of the draw's own task from
``paper_grid()``: same seeds, models, ``max_levels=10``, one thread, OMP/OpenBLAS/MKL at one thread as Dask's
workers set them, inside ``call_on_threads`` as the engine calls it), in a fresh process, by two checkouts in
temporary ``git worktree``s: ``--old`` (the commit that completed the 610-draw grid) and ``--new`` (HEAD, the
committed code, not the working tree), alternately (old first on even draws, new first on odd ones). Each
process also times the SDF's tree-weight QPs (bench_sdf_draw's timer), so the rest is the forests.

The sample (a fixed rule, no randomness): eight draws, two at each N. Tables 4-6 on the anti-diagonal of N x T
(each N and each T once: (100, 1000), (500, 700), (1000, 400), (2000, 100)) with the three datasets in turn, plus
the cheapest corner (ecoli 100/100), Ionosphere's "shared" reading, Table 7 (haberman, N = 1000) and Table 8's
setting (N = 2000, T = 700: four models); the i-th draw of the list takes draw number i (mod the cell's draws),
so the sample spans the grid's rounds, which ran on successive commits.

The projection: per N, the sample's ratio of sums (new seconds over committed seconds of its draws at that N)
times the grid's committed seconds at that N, summed over N (the grid's seconds grow with N and T; N is where
they are stratified here). The plain ratio of sums over the whole sample is printed too.

    python bench/bench_sdf_grid_sample.py                 # about 16-20 minutes on this 2-core machine
    python bench/bench_sdf_grid_sample.py --old d18627b --new HEAD
    python bench/bench_sdf_grid_sample.py --draws 3 8 --repeat 2   # two of the sample again, fastest of two each
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DRAWS = "docs/reproduction/sdf_paper_draws.csv"
GRID_COMMIT = "d18627b"  # "Reproduction: the SDF grid is complete (610 draws ...)", 2026-11-25 22:05
KEY = ["dataset", "N", "T", "reading", "draw"]
SAMPLE = [  # (dataset, N, T, reading); the i-th takes draw i mod the cell's draw count
    ("ecoli", 100, 100, "disjoint"),
    ("ionosphere", 100, 1000, "disjoint"),
    ("yeast", 500, 700, "disjoint"),
    ("ecoli", 1000, 400, "disjoint"),
    ("ionosphere", 2000, 100, "disjoint"),
    ("ionosphere", 500, 400, "shared"),
    ("haberman", 1000, 700, "disjoint"),
    ("haberman", 2000, 700, "disjoint"),
]
PAUSE_LOG = Path("/tmp/mvlab_pause_log")
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def sample_keys() -> list[tuple]:
    return [(name, n, t, reading, i % (10 if n <= 1000 else 5)) for i, (name, n, t, reading) in enumerate(SAMPLE)]


# ------------------------------------------------------------------ one draw, in a fresh process of a checkout
def one_draw(key: list) -> None:
    """Run the grid's task of ``key`` as the engine's worker does; print one JSON line."""
    import resource

    import pandas as pd  # noqa: F401  (imported before the clock starts, as a warm worker has it)
    from bench_sdf_draw import QP_SECONDS, _timed_solver

    from mvlab.core.threads import call_on_threads
    from mvlab.reproduction.sdf_paper import paper_grid, run_draw

    name, n, t, reading, d = key
    (task,) = [k for k in paper_grid() if k.key == (name, int(n), int(t), reading, int(d))]
    _timed_solver()
    cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])  # noqa: E731  (user + system seconds)
    t0, c0 = time.perf_counter(), cpu()
    rows = call_on_threads(run_draw, task, 10, 1)
    wall, used = time.perf_counter() - t0, cpu() - c0
    print(json.dumps({"rows": rows, "wall": wall, "cpu": used, "qp": QP_SECONDS[0]}, default=float))


def run_side(tree: Path, key: tuple) -> tuple[dict, float, float]:
    """(result, start, end) of one draw computed by the checkout at ``tree``, in a fresh process."""
    env = {**os.environ, **ONE_THREAD, "PYTHONPATH": str(tree)}
    start = time.time()
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one-draw", json.dumps(list(key))],
                         cwd=tree, env=env, capture_output=True, text=True, check=True)
    end = time.time()
    return json.loads(out.stdout.strip().splitlines()[-1]), start, end


# ------------------------------------------------------------------ the committed draws, the pauses
def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def added_in(keys: list[tuple]) -> dict:
    """The commit that first committed each draw to the draws file (its code, or an earlier one, computed it)."""
    import pandas as pd

    found: dict = {}
    for line in reversed(git("log", "--format=%h %ad", "--date=format:%m-%d %H:%M", "--", DRAWS).splitlines()):
        commit = line.split()[0]
        d = pd.read_csv(io.StringIO(git("show", f"{commit}:{DRAWS}")))
        have = set(map(tuple, d[KEY].astype(str).to_numpy()))
        for k in keys:
            if k not in found and tuple(map(str, k)) in have:
                found[k] = line
    return found


def pauses() -> list[tuple[float, float]]:
    """The other session's SIGSTOP windows (start, end) in epoch seconds, from its log."""
    if not PAUSE_LOG.exists():
        return []
    out, start = [], None
    for line in PAUSE_LOG.read_text().splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        stamp = datetime.fromisoformat(parts[0]).replace(tzinfo=timezone.utc).timestamp()
        if parts[2] == "start":
            start = stamp
        elif parts[2] == "end" and start is not None:
            out.append((start, stamp))
            start = None
    if start is not None:
        out.append((start, float("inf")))
    return out


def overlaps(start: float, end: float) -> bool:
    return any(a < end and b > start for a, b in pauses())


def timed_side(tree: Path, key: tuple, label: str) -> dict:
    """One side of one draw, rerun once if a pause overlapped it (a second overlap is kept and flagged)."""
    for attempt in range(2):
        res, start, end = run_side(tree, key)
        res["paused"] = overlaps(start, end)
        models = ", ".join(f"{r['model']} {r['seconds']:.1f}" for r in res["rows"])
        print(f"    {label}: {sum(r['seconds'] for r in res['rows']):.1f} s ({models}; QPs {res['qp']:.1f}; "
              f"the whole draw {res['wall']:.1f} s wall, {res['cpu']:.1f} s CPU)"
              f"{' (overlapped a pause' + (', rerun)' if attempt == 0 else ', kept)') if res['paused'] else ''}",
              flush=True)
        if not res["paused"]:
            break
    return res


# ------------------------------------------------------------------ the bench
def same_results(rows: list[dict], committed) -> str:
    """'' when every model's accuracy, levels and median lambda equal the committed ones, else what differs."""
    import numpy as np

    diffs = []
    for r in rows:
        c = committed[committed["model"] == r["model"]]
        if c.empty:
            diffs.append(f"{r['model']} not committed")
            continue
        c = c.iloc[0]
        for col in ("accuracy", "n_levels", "lam_median"):
            a, b = float(r[col]), float(c[col])
            if not (a == b or (np.isnan(a) and np.isnan(b)) or abs(a - b) < 1e-12):
                diffs.append(f"{r['model']} {col} {a:.4g} (committed {b:.4g})")
    return "; ".join(diffs)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default=GRID_COMMIT, help="the commit that computed the grid (default: completed it)")
    ap.add_argument("--new", default="HEAD", help="today's committed code")
    ap.add_argument("--draws", type=int, nargs="+", help="only these of the sample (1-based), e.g. to recheck outliers")
    ap.add_argument("--repeat", type=int, default=1, help="alternating rounds per draw; the fastest of each side kept")
    ap.add_argument("--one-draw", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one_draw:
        return one_draw(json.loads(args.one_draw))

    import numpy as np
    import pandas as pd

    draws = pd.read_csv(ROOT / DRAWS)
    per_draw = draws.groupby(KEY, as_index=False)["seconds"].sum()
    grid610 = per_draw[per_draw["dataset"] != "ilpd"]
    keys = [k for i, k in enumerate(sample_keys()) if not args.draws or i + 1 in args.draws]
    commits = {side: git("rev-parse", "--short", ref).strip() for side, ref in (("old", args.old), ("new", args.new))}
    added = added_in(keys)
    print(f"grid: {len(grid610)} draws, {grid610['seconds'].sum() / 3600:.2f} h of model fitting by their own seconds "
          f"({len(per_draw)} draws, {per_draw['seconds'].sum() / 3600:.2f} h with ILPD's 20)")
    print(f"old = {commits['old']} (grid completed), new = {commits['new']} (HEAD, committed code only); each draw in "
          f"a fresh process of a temporary worktree, one thread, alternating\n")

    tmp = Path(tempfile.mkdtemp(prefix="sdfgrid_"))
    trees = {side: tmp / side for side in commits}
    for side, commit in commits.items():
        git("worktree", "add", "--detach", str(trees[side]), commit)
    results = []
    try:
        for i, key in enumerate(keys):
            committed = draws.set_index(KEY).loc[key].reset_index()
            print(f"[{i + 1}/{len(keys)}] {key}  committed {committed['seconds'].sum():.1f} s, "
                  f"added in {added.get(key, '?')}", flush=True)
            runs = {"old": [], "new": []}
            for rep in range(args.repeat):
                for side in ("old", "new") if (i + rep) % 2 == 0 else ("new", "old"):
                    runs[side].append(timed_side(trees[side], key, side))
            total = lambda r: sum(x["seconds"] for x in r["rows"])  # noqa: E731
            results.append((key, committed, {side: min(rs, key=total) for side, rs in runs.items()}))
    finally:
        for side in commits:
            git("worktree", "remove", "--force", str(trees[side]))
        tmp.rmdir()

    print("\nper draw (seconds: the sum of the draw's model rows, as the draws file counts them; "
          "QP = the SDF's tree-weight QPs inside them)")
    head = (f"{'cell':<34} {'draw':>4} {'added in':<18} {'committed':>9} {'old':>7} {'new':>7} "
            f"{'new QP':>6} {'new/comm':>8} {'new/old':>7} {'CPU old':>7} {'CPU new':>7} {'new/old':>7}  results")
    print(head)
    print("-" * len(head))
    tab = []
    for key, committed, res in results:
        c = committed["seconds"].sum()
        o, n = (sum(r["seconds"] for r in res[s]["rows"]) for s in ("old", "new"))
        checks = {s: same_results(res[s]["rows"], committed) for s in ("old", "new")}
        said = "equal (old and new)" if not any(checks.values()) else \
            "; ".join(f"{s}: {v}" for s, v in checks.items() if v)
        flag = " *" if res["old"]["paused"] or res["new"]["paused"] else ""
        name, nn, t, reading, d = key
        print(f"{name + ' N=' + str(nn) + ' T=' + str(t) + ' ' + reading:<34} {d:>4} {added.get(key, '?')[:18]:<18} "
              f"{c:>9.1f} {o:>7.1f} {n:>7.1f} {res['new']['qp']:>6.1f} {n / c:>8.2f} {n / o:>7.2f} "
              f"{res['old']['cpu']:>7.1f} {res['new']['cpu']:>7.1f} {res['new']['cpu'] / res['old']['cpu']:>7.2f}  "
              f"{said}{flag}")
        tab.append({"N": nn, "committed": c, "old": o, "new": n, "qp": res["new"]["qp"],
                    "cpu_old": res["old"]["cpu"], "cpu_new": res["new"]["cpu"]})
    tab = pd.DataFrame(tab)
    tot = tab[["committed", "old", "new", "qp", "cpu_old", "cpu_new"]].sum()
    print(f"{'sample':<34} {'':>4} {'':<18} {tot['committed']:>9.1f} {tot['old']:>7.1f} {tot['new']:>7.1f} "
          f"{tot['qp']:>6.1f} {tot['new'] / tot['committed']:>8.2f} {tot['new'] / tot['old']:>7.2f} "
          f"{tot['cpu_old']:>7.1f} {tot['cpu_new']:>7.1f} {tot['cpu_new'] / tot['cpu_old']:>7.2f}")
    print("(CPU: user + system seconds of the whole draw's process work, its pair split and features included; "
          "one thread, so on an idle core CPU = wall)")
    if any(res["old"]["paused"] or res["new"]["paused"] for _, _, res in results):
        print("* a side overlapped another session's pause twice: kept, read with care")

    if args.draws:
        print("\n(a part of the sample: no projection)")
        return
    print("\nprojection, per N: the sample's ratio of sums at that N times the grid's committed seconds at that N")
    by_n = tab.groupby("N")[["committed", "old", "new", "cpu_new"]].sum()
    g = grid610.groupby("N")["seconds"].sum()
    proj = pd.DataFrame({"grid h": g / 3600, "old/comm": by_n["old"] / by_n["committed"],
                         "new/comm": by_n["new"] / by_n["committed"], "new/old": by_n["new"] / by_n["old"]})
    proj["old h"] = proj["grid h"] * proj["old/comm"]
    proj["new h"] = proj["grid h"] * proj["new/comm"]
    proj["new CPU h"] = proj["grid h"] * by_n["cpu_new"] / by_n["committed"]
    print(proj.round(2).to_string())
    total, old_h, new_h = proj["grid h"].sum(), proj["old h"].sum(), proj["new h"].sum()
    goal = total / 3
    plain = total * tot["new"] / tot["committed"]
    print(f"\nthe {len(grid610)}-draw grid: committed {total:.1f} h; at {commits['old']}'s code {old_h:.1f} h; "
          f"at today's ({commits['new']}) {new_h:.1f} h ({new_h / total:.2f}x the committed seconds, "
          f"{new_h / old_h:.2f}x the old code's, measured side by side); plain ratio of sums "
          f"{tot['new'] / tot['committed']:.2f} -> {plain:.1f} h")
    cpu_h = proj["new CPU h"].sum()
    print(f"by today's CPU seconds instead (what a core of its own would take): {cpu_h:.1f} h "
          f"({total / cpu_h:.2f}x faster than committed)")
    if new_h <= goal:
        print(f"goal: a third of {total:.1f} h = {goal:.1f} h: met ({new_h:.1f} h, {total / new_h:.2f}x faster)")
    else:
        print(f"goal: a third of {total:.1f} h = {goal:.1f} h: NOT met ({new_h:.1f} h, {total / new_h:.2f}x faster "
              f"than committed; the goal needs {new_h / goal:.2f}x more)")
    qp = tot["qp"] / tot["new"]
    print(f"where the time goes now: the SDF's QPs {tot['qp']:.0f} s of the sample's {tot['new']:.0f} s "
          f"({100 * qp:.0f} %), the forests and the rest {100 * (1 - qp):.0f} %")
    print(f"\n(numpy {np.__version__}; one run; wall-clock seconds; the machine's other load counts too)")


if __name__ == "__main__":
    main()
