"""Where the time of a class's identical requests goes: one timeline.

    python bench/bench_classroom_timeline.py [--students 30] [--rounds 2]

One server (``streamlit run app.py`` with its embedded engine, as ``make run``), the classroom bench's simulated
students (``bench/bench_classroom.py``) all pressing Train at once on the same settings.  For each round it prints,
in seconds from the first click: when the shared run started and when it was recorded finished (the results
store's timestamps, written by the engine's thread in the server as the worker reports), and when the first and
the last student had the whole result page; the run's time in its worker (wall seconds, measured there), the CPU
seconds of the engine's worker processes and of the web server during the round; first for one student alone,
then for the class, on the same seed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite

import bench_classroom  # noqa: E402

from browser import running_app  # noqa: E402
from mvlab.store import ResultsStore  # noqa: E402


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


def _cpu(processes) -> float:
    """CPU seconds (user + system) of these processes so far (one that ended counts 0)."""
    total = 0.0
    for p in processes:
        try:
            times = p.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp) / "results.sqlite", MVLAB_DASHBOARD="off") as url:
        bench_classroom.round_of(url, [1])  # warm-up: imports, the engine's workers
        print(f"{args.students} students, identical settings ({bench_classroom.QUERY}); each round: one student "
              "alone, then the class, on the same seed (each Train computes again). Seconds from the first click:\n")
        print("| round | students | run started | run recorded finished | first page delivered | last page delivered "
              "| run's time in its worker | workers' CPU | web server's CPU |")
        print("|---|---|---|---|---|---|---|---|---|")
        store = ResultsStore(Path(tmp) / "results.sqlite")
        server = psutil.Process(bench_classroom.server_pid(url))
        for r in range(args.rounds):
            seed = 700 + r
            for students in (1, args.students):  # alone first: where its own time goes
                workers = server.children(recursive=True)  # the engine's worker processes (and their nannies)
                before = (bench_classroom.cpu_seconds(server.pid), _cpu(workers))
                clicks, delivered = timed_round(url, seed, students)
                cpu = (bench_classroom.cpu_seconds(server.pid) - before[0], _cpu(workers) - before[1])
                runs = store.runs(kind="dissimilarity")
                run = runs[runs.seed == seed].sort_values("started").iloc[-1]
                t0 = min(clicks)
                print(f"| {r + 1} | {students} | {run.started - t0:.2f} | {run.finished - t0:.2f} | "
                      f"{min(delivered) - t0:.2f} | {max(delivered) - t0:.2f} | "
                      f"{run.summary['compute_seconds']:.2f} | {cpu[1]:.2f} | {cpu[0]:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
