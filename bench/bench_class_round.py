"""A class round on one server: 30 students answer the same lesson step, the teacher watches and moves them on.

    python bench/bench_class_round.py               # 30 students
    python bench/bench_class_round.py --students 10

One server (``streamlit run app.py`` with its embedded job engine, as ``make run`` starts it) on a fresh results
store in which the DVS lesson was warmed first (``python -m mvlab lesson dvs --warm``, as a teacher does before
class).  A round of the DVS lesson is started in that store; the teacher's page opens the teacher's link at
step 2 and every student opens the students' link, each a session speaking Streamlit's own protocol
(``bench/_streamlit_client.py``) on a thread of its own, rerunning the page's self-refreshing parts (fragments
with ``run_every``: the teacher's count every 1.5 s, each student's look at the round every 0.5 s) as a browser
does.  The students answer within 5 s (each at a random moment: choose an option, then *Send my answer*).
Measured, on the issue's targets:

* answers counted: every student's answer is in the store, once (target: all);
* the teacher's view: from the last answer sent to the teacher's page showing "N answered" (target: 2 s);
* the next-step push: from the teacher's click on *Next step for everyone* to each student's page showing the
  next step's heading (target: all within 2 s);
* a page opening meanwhile: another session opens the Data page while the class polls (target: under 3 s; a
  protocol session, so the server's side: a real browser adds its own drawing).

One run on a shared 2-core machine, where the simulated students' polling runs on the server's cores too:
read the figures with that in mind.  Prints a table; the docs keep the latest output in
docs/bench/bench_class_round.txt.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite

from _streamlit_client import StudentSession  # noqa: E402

from browser import running_app  # noqa: E402

LESSON, STEP = "dvs", 2  # the step (1-based) everyone answers; the teacher then moves the class to STEP + 1


def warm(store: Path) -> None:
    subprocess.run([sys.executable, "-m", "mvlab", "--store", str(store), "lesson", LESSON, "--warm", "--n-jobs", "1"],
                   cwd=ROOT, check=True, capture_output=True)


def student(url, code, prompt, results, index, start_at, rng):
    """One student: open the link, wait for their moment, choose, send; then follow the round."""
    s = StudentSession(url, "lessons", f"lesson={LESSON}&step={STEP}&round={code}", timeout=300)
    results[index] = {"session": s, "opened": time.time()}
    time.sleep(max(0.0, start_at - time.time()))
    s.choose(prompt, rng.randrange(3))
    s.click("Send my answer")
    s._read_until(lambda: False)
    results[index]["sent"] = time.time()


def follow(session: StudentSession, heading: str, results: dict, index: int, deadline: float) -> None:
    """A student's page after the answer: polls the round (its fragment) until the next step's heading shows."""
    if session.watch(heading, max(0.1, deadline - time.time())):
        results[index]["moved"] = time.time()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=30)
    args = parser.parse_args()
    from mvlab.lessons import LESSONS
    from mvlab.store import ClassRounds

    lesson = LESSONS[LESSON]
    prompt = lesson.steps[STEP - 1].question.prompt
    next_heading = lesson.steps[STEP].title
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "results.sqlite"
        t = time.perf_counter()
        warm(store)
        print(f"bench_class_round: {args.students} students, lesson {LESSON!r} step {STEP}; lesson warmed in "
              f"{time.perf_counter() - t:.0f} s")
        started = ClassRounds(store).start(LESSON)
        code, key = started.round.code, started.key
        with running_app(store) as url:
            teacher = StudentSession(url, "lessons", f"lesson={LESSON}&step={STEP}&teacher=1&round={code}&key={key}",
                                     timeout=300)
            results: dict[int, dict] = {}
            seen: dict[str, float] = {}

            def teacher_watches():  # the teacher's page refreshes its count by itself while the class answers
                if teacher.watch(f"{args.students} answered", 120):
                    seen["all"] = time.time()

            watcher = threading.Thread(target=teacher_watches)
            watcher.start()
            begin = time.time() + 2.0  # every student opens the link first, then answers within 5 s
            threads = [threading.Thread(target=student, args=(url, code, prompt, results, i,
                                                              begin + rng.uniform(0, 5), random.Random(i)))
                       for i in range(args.students)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            watcher.join()
            last = max(r["sent"] for r in results.values() if "sent" in r)
            teacher_lag = seen["all"] - last if "all" in seen else float("nan")
            counted = sum(ClassRounds(store).counts(code, STEP - 1).values())

            # the class polls; meanwhile another session opens a page, then the teacher moves everyone on
            deadline = time.time() + 30
            followers = [threading.Thread(target=follow, args=(r["session"], next_heading, results, i, deadline))
                         for i, r in results.items()]
            for th in followers:
                th.start()
            time.sleep(2.0)
            t = time.time()
            StudentSession(url, "data", "dataset=breast-cancer", timeout=60).close()
            page_open = time.time() - t
            clicked = time.time()
            teacher.click("Next step for everyone →")
            for th in followers:
                th.join()
            moves = sorted(r["moved"] - clicked for r in results.values() if "moved" in r)
            for r in results.values():
                r["session"].close()
            teacher.close()

    n = args.students
    print(f"{'students':>8} {'answers counted':>16} {'teacher shows all (s after last answer)':>40} "
          f"{'moved to the next step':>23} {'push p50 / max (s)':>19} {'a page opens (s)':>17}")
    push = f"{statistics.median(moves):.2f} / {max(moves):.2f}" if moves else "-"
    print(f"{n:>8} {f'{counted} / {n}':>16} {teacher_lag:>40.2f} {f'{len(moves)} / {n}':>23} {push:>19} "
          f"{page_open:>17.2f}")
    ok = counted == n and teacher_lag <= 2.0 and len(moves) == n and moves and max(moves) <= 2.0 and page_open < 3.0
    print("targets (all counted; teacher within 2 s; every student moved within 2 s; a page under 3 s): "
          + ("met" if ok else "NOT met"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
