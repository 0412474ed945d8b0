"""Streamlit's own floor: what one rerun costs a server, whatever the app does (the reason a class round's
student pages are woken by the server instead of looking at the round on a timer).

    python bench/bench_streamlit_floor.py                 # 30 to 300 sessions
    python bench/bench_streamlit_floor.py --sessions 120 --seconds 20

A one-line app whose fragment refreshes itself every 0.5 s (``st.fragment(run_every=0.5)`` writing the time), one
``streamlit run`` of it, and N sessions speaking Streamlit's protocol (``tests/streamlit_client.py``) spread over
``--client-processes`` processes, each rerunning the fragment when it is due, as a browser does. Measured over
``--seconds``: the reruns asked for and done per second, and the server's CPU per rerun. Prints a table; the docs
keep the latest output in docs/bench/bench_streamlit_floor.txt. ``bench/bench_class_round.py`` measures the same
floor in its own run (:func:`floor`) and compares a woken student's rerun with it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

from browser import free_port  # noqa: E402
from mvlab.deploy.serve import wait_healthy  # noqa: E402
from streamlit_client import StudentSession  # noqa: E402

APP = """import time
import streamlit as st

st.fragment(run_every=0.5)(lambda: st.write(time.time()))()
"""
INTERVAL = 0.5


def session(url: str, start: float, until: float, out: list) -> None:
    """One session: open the app, then rerun its fragment whenever it is due until ``until``; counts the
    fragment runs the server finished from ``start`` on."""
    s = StudentSession(url, "", "", timeout=60)
    s.watch("never shown", max(0.1, start - time.time()))
    before = s.runs_finished
    s.watch("never shown", max(0.1, until - time.time()))
    s.close()
    out.append(s.runs_finished - before)


def client_process(url: str, n: int, start: float, until: float, queue) -> None:
    out: list[int] = []
    threads = [threading.Thread(target=session, args=(url, start, until, out), daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put(sum(out))


def measure(url: str, pid: int, sessions: int, clients: int, seconds: float) -> dict:
    server = psutil.Process(pid)
    start = time.time() + 3.0  # every session opened before the window
    until = start + seconds
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    workers = [ctx.Process(target=client_process, args=(url, len(range(c, sessions, clients)), start, until,
                                                                queue))
               for c in range(clients)]
    for w in workers:
        w.start()
    time.sleep(max(0.0, start - time.time()))
    cpu0 = sum(server.cpu_times()[:2])
    time.sleep(max(0.0, until - time.time()))
    cpu = sum(server.cpu_times()[:2]) - cpu0
    reruns = sum(queue.get() for _ in workers)
    for w in workers:
        w.join()
    done = reruns / seconds
    return {"sessions": sessions, "asked": sessions / INTERVAL, "done": done, "cpu": cpu / seconds,
            "ms": 1000 * cpu / seconds / done if done else float("nan")}


def floor(sessions: int, clients: int, seconds: float) -> dict:
    """The floor at ``sessions`` sessions (:func:`measure`): :data:`APP` served by one ``streamlit run`` of its own,
    started for this and stopped after (``bench/bench_class_round.py`` measures it in its own run this way)."""
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "floor.py"
        app.write_text(APP)
        port = free_port()
        log = Path(tmp) / "server.log"
        with log.open("w") as out:
            proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(app), "--server.headless",
                                     "true", "--server.port", str(port), "--server.address", "127.0.0.1",
                                     "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                                     "--runner.postScriptGC", "false"],
                                    cwd=tmp, env=os.environ, stdout=out, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_healthy(url, proc, "streamlit", log)
            return measure(url, proc.pid, sessions, clients, seconds)
        finally:
            proc.terminate()
            proc.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[30, 60, 120, 180, 240, 300])
    parser.add_argument("--client-processes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    print(f"bench_streamlit_floor: a fragment that reruns itself every {INTERVAL} s, one server process, "
          f"{psutil.cpu_count()} cores, {args.client_processes} client processes, {args.seconds:.0f} s per size")
    print(f"{'sessions':>8} {'reruns asked/s':>15} {'done/s':>7} {'server CPU (cores)':>19} "
          f"{'ms of CPU per rerun':>20}")
    for n in args.sessions:
        r = floor(n, args.client_processes, args.seconds)
        print(f"{r['sessions']:>8} {r['asked']:>15.0f} {r['done']:>7.0f} {r['cpu']:>19.2f} {r['ms']:>20.1f}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
