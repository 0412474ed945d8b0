"""Where the time of a class's identical requests goes: one timeline.

    python bench/bench_classroom_timeline.py [--students 30] [--rounds 2]

One server (``streamlit run app.py`` with its embedded engine, as ``make run``), the classroom bench's simulated
students (``bench/bench_classroom.py``) all pressing Train at once on the same settings.  For each round it prints,
in seconds from the first click: when the shared run started and when it was recorded finished (the results
store's own timestamps, written by the worker), and when the first and the last student had the whole result
page; and one student's time alone for scale (median of 3).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite

import bench_classroom  # noqa: E402

from browser import running_app  # noqa: E402
from mvlab.experiments.store import ResultsStore  # noqa: E402


def timed_round(url: str, seed: int, students: int) -> tuple[list[float], list[float]]:
    """Every student presses Train at once on ``seed``; the clock times of the clicks and of the pages delivered."""
    clicks, delivered = [], []
    click, wait = bench_classroom.StudentSession.click, bench_classroom.StudentSession.wait_for_page

    def timed_click(self, label):
        clicks.append(time.time())
        return click(self, label)

    def timed_wait(self, words, timeout=None):
        ok = wait(self, words, timeout)
        delivered.append(time.time())
        return ok

    bench_classroom.StudentSession.click, bench_classroom.StudentSession.wait_for_page = timed_click, timed_wait
    try:
        bench_classroom.round_of(url, [seed] * students)
    finally:
        bench_classroom.StudentSession.click, bench_classroom.StudentSession.wait_for_page = click, wait
    return clicks, delivered


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp) / "results.sqlite", MVLAB_DASHBOARD="off") as url:
        bench_classroom.round_of(url, [1])  # warm-up: imports, the engine's workers
        alone = statistics.median(bench_classroom.round_of(url, [s])["times"][0] for s in (2, 3, 4))
        print(f"{args.students} students, identical settings ({bench_classroom.QUERY}); one student alone: "
              f"{alone:.2f} s (median of 3). Seconds from the first click:\n")
        print("| students | round | run started | run recorded finished | first page delivered | last page delivered |")
        print("|---|---|---|---|---|---|")
        store = ResultsStore(Path(tmp) / "results.sqlite")
        seeds = iter(range(700, 800))
        for students in (1, args.students):  # one alone first: where its own 'alone' time goes
            for r in range(args.rounds):
                seed = next(seeds)
                clicks, delivered = timed_round(url, seed, students)
                runs = store.runs(kind="dissimilarity")
                run = runs[runs.seed == seed].iloc[0]
                t0 = min(clicks)
                print(f"| {students} | {r + 1} | {run.started - t0:.2f} | {run.finished - t0:.2f} | "
                      f"{min(delivered) - t0:.2f} | {max(delivered) - t0:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
