"""The cascade against DF21 level by level, grown without a stop (issue 54, item 3): which level to keep.

Both cascades are grown to ``--levels`` levels on the data and splits of ``bench_cascade_peers.py`` (the same
``make_data``), with their stopping rules switched off: DF21 with ``n_tolerant_rounds = levels + 1``, mvlab's
DF21 setting with ``patience = levels`` and ``level_choice="last"``. For every level the script prints the
out-of-bag accuracy (what both stopping rules read) and the held-out accuracy of a cascade cut after that level
(DF21: its own ``predict`` with ``n_layers_`` set to the level, the attribute its ``predict_proba`` loops over;
mvlab: :meth:`CascadeForest.level_class_vectors`). Each side runs in a fresh interpreter, one thread; DF21's in
``.venv-peers`` (``bench/requirements-peers.txt``).

Run from the repository root::

    .venv/bin/python bench/bench_cascade_levels.py --splits 3 6 --levels 7 --out docs/bench/bench_cascade_levels.txt
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cascade_peers import ONE_THREAD, REPO, held_out_by_level, make_data  # noqa: E402


def worker(side, split, levels, rows, test_rows):
    """Grow one side to ``levels`` levels on split ``split``; print its per-level accuracies as JSON."""
    X, y, splits = make_data(rows, test_rows, 1, first_split=split)
    tr, te = splits[0]
    t0 = time.perf_counter()
    if side == "DF21":
        from deepforest import CascadeForestClassifier

        model = CascadeForestClassifier(n_jobs=1, random_state=split, verbose=0, max_layers=levels,
                                        n_tolerant_rounds=levels + 1)
        model.fit(X[tr], y[tr])
        grown = int(model.n_layers_)
        oob = [float(model._get_layer(i).val_performance_) for i in range(grown)]
        held_out = []
        for k in range(1, grown + 1):
            model.n_layers_ = k
            held_out.append(float(np.mean(model.predict(X[te]) == y[te])))
    else:
        from mvlab.siamese.cascade import CascadeForest

        model = CascadeForest.df21(n_jobs=1, random_state=split, max_levels=levels, patience=levels,
                                   level_choice="last").fit(X[tr], y[tr])
        oob = [float(s) for s in model.level_scores_]
        held_out = held_out_by_level(model, X[te], y[te])
    print(json.dumps(dict(side=side, split=split, oob=oob, held_out=held_out, seconds=time.perf_counter() - t0)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--splits", type=int, nargs="+", default=[3, 6], help="split numbers (default 3 6)")
    ap.add_argument("--levels", type=int, default=7, help="levels grown (default 7)")
    ap.add_argument("--rows", type=int, default=10000)
    ap.add_argument("--test-rows", type=int, default=5000)
    ap.add_argument("--split", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--peers-venv", type=Path, default=REPO / ".venv-peers")
    ap.add_argument("--out", type=Path, help="also append the output to this file")
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.split, args.levels, args.rows, args.test_rows)
    from bench_peers import peers_python

    peers_py, why = peers_python(args.peers_venv, setup=True)
    lines = [f"# The cascade level by level, no stop: {args.rows} training rows, {args.test_rows} test rows, "
             f"{args.levels} levels, splits {args.splits} (bench/bench_cascade_levels.py)"]
    if peers_py is None:
        lines.append(f"DF21 NOT MEASURED: {why}")
    for split in args.splits:
        for side, python in (("DF21", peers_py), ("mvlab DF21 setting", Path(sys.executable))):
            if python is None:
                continue
            cmd = [str(python), __file__, "--worker", side, "--split", str(split), "--levels", str(args.levels),
                   "--rows", str(args.rows), "--test-rows", str(args.test_rows)]
            done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **ONE_THREAD}, check=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            best, top = int(np.argmax(r["oob"])), int(np.argmax(r["held_out"]))
            lines.append(f"  split {split}: {side:18s} out-of-bag " + " ".join(f"{v:.4f}" for v in r["oob"])
                         + f" (best: level {best + 1})")
            lines.append(f"  split {split}: {side:18s} held-out   " + " ".join(f"{v:.4f}" for v in r["held_out"])
                         + f" (at the best {r['held_out'][best]:.4f}, best held-out "
                         f"{r['held_out'][top]:.4f} at level {top + 1}; {r['seconds']:.0f} s)")
            print(lines[-2], lines[-1], sep="\n", flush=True)
    if args.out:
        with args.out.open("a") as fh:
            fh.write("\n".join(lines) + "\n\n")


if __name__ == "__main__":
    main()
