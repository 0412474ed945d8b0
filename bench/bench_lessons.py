"""Lessons in class: how fast each step opens on a warm server, in a real browser.

    python bench/bench_lessons.py          # needs Debian's chromium and the playwright package

Warms every lesson into a fresh results store (as ``python -m mvlab lesson all --warm`` does before
class), starts the server (``streamlit run app.py`` with its job engine), waits for the engine's workers
(a server started before class) and, for every step of every lesson, times in Chromium:

* **open**: from the click on *Next* (or the link, for step 1) to the step's question shown and the
  script finished;
* **see**: from the click on *Reveal the answer* to every figure of the step drawn.

Target (the lessons issue): every step after the first shows in under 2 s on a warm server (open + see).

An **added lesson** (issue #70) is walked too: the DVS lesson exported and added to the store under another id
(``dvs-added``: the same steps on the same stored results, opened from the store), and the bench prints the ratio of
its steps' open + see to the built-in DVS lesson's, measured in the same run (target at most 1.1). It also times
``lesson check`` of the guide's 37-line lesson: the check itself (in this process, median of 20) and the whole
command (``python -m mvlab lesson check``, a new interpreter and its imports, median of 3); target under 0.5 s.
Prints markdown tables and the verdicts.  One run on a shared machine.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite

from browser import chromium, running_app, settle, unavailable_reason  # noqa: E402
from mvlab.lessons import EXAMPLES_DIR, LESSONS  # noqa: E402
from mvlab.lessons.added import add_lesson, find_lesson  # noqa: E402
from mvlab.lessons.lesson_file import check_lesson_file, export_lesson  # noqa: E402
from mvlab.lessons.step_results import step_contexts, warm  # noqa: E402
from mvlab.store import ResultsStore  # noqa: E402

TARGET = 2.0
ADDED_RATIO_TARGET = 1.1
CHECK_TARGET = 0.5


def check_times() -> tuple[float, float]:
    """``lesson check`` of the guide's first lesson: the check in this process and the whole command (median s)."""
    path = EXAMPLES_DIR / "first-lesson.yaml"
    raw = path.read_bytes()
    inside = []
    for _ in range(20):
        start = time.perf_counter()
        check_lesson_file(raw, path.name)
        inside.append(time.perf_counter() - start)
    command = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mvlab", "lesson", "check", str(path)], check=True, capture_output=True)
        command.append(time.perf_counter() - start)
    return statistics.median(inside), statistics.median(command)


def drawn(page, n: int) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('.js-plotly-plot .main-svg, [data-testid=stDataFrame]').length >= {n}",
        timeout=120_000)


def walk(page, url: str, lesson, contexts) -> list[dict]:
    rows = []
    t0 = time.perf_counter()
    page.goto(f"{url}/lessons?lesson={lesson.id}&step=1")
    for number, step in enumerate(lesson.steps, 1):
        if number > 1:
            settle(page, timeout=120_000)
            t0 = time.perf_counter()
            page.get_by_role("button", name="Next →").click()
        page.locator("p", has_text="Predict first:").filter(has_text=step.question.prompt).wait_for(timeout=120_000)
        settle(page, timeout=120_000)
        opened = time.perf_counter() - t0 - 0.8  # settle's two fixed 0.4 s pauses are not the page's time
        page.get_by_text(f"(a) {step.question.choices[0]}", exact=True).click()
        page.get_by_role("button", name="Reveal the answer").wait_for()
        page.wait_for_timeout(300)
        t1 = time.perf_counter()
        page.get_by_role("button", name="Reveal the answer").click()
        drawn(page, len(step.items(contexts[step.run])))
        seen = time.perf_counter() - t1
        rows.append({"lesson": lesson.id, "step": number, "open": opened, "see": seen})
    return rows


def main() -> int:
    reason = unavailable_reason()
    if reason:
        print(f"bench_lessons needs a browser: {reason}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        store_path = Path(tmp) / "results.sqlite"
        store = ResultsStore(store_path)
        for lesson in LESSONS.values():
            warm(lesson, store, say=lambda line: None)
        text = export_lesson(LESSONS["dvs"]).replace("id: dvs\n", "id: dvs-added\n")
        add_lesson(text.encode(), {}, "dvs-added.yaml", location=str(store_path))
        added = find_lesson("dvs-added", str(store_path))
        walked = [*LESSONS.values(), added]
        contexts = {lesson.id: step_contexts(lesson, store) for lesson in walked}
        with running_app(store_path, MVLAB_DASHBOARD="off") as url, chromium() as browser:
            page = browser.new_context(viewport={"width": 1400, "height": 2000}).new_page()
            page.goto(f"{url}/lessons")  # the server's first page: imports and the engine's start
            page.wait_for_selector("h1", timeout=120_000)
            settle(page)
            for _ in range(60):  # a warm server: its job engine has started its workers (the panel says so)
                page.locator("[data-testid=stExpander] summary", has_text="Server").click()
                if page.get_by_text("Runs go to").count():
                    break
                page.wait_for_timeout(2000)
                page.reload()
                page.wait_for_selector("h1", timeout=120_000)
                settle(page)
            page.wait_for_timeout(3000)
            rows = [row for lesson in walked for row in walk(page, url, lesson, contexts[lesson.id])]
    print("| lesson | step | open (s) | see (s) | open + see (s) |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['lesson']} | {r['step']} | {r['open']:.2f} | {r['see']:.2f} | {r['open'] + r['see']:.2f} |")
    later = [r["open"] + r["see"] for r in rows if r["step"] > 1 and r["lesson"] != "dvs-added"]
    print(f"\nSteps after the first: median {statistics.median(later):.2f} s, slowest {max(later):.2f} s "
          f"(target: under {TARGET:.0f} s): {'met' if max(later) < TARGET else 'NOT met'}.")
    own = [r["open"] + r["see"] for r in rows if r["lesson"] == "dvs"]
    added = [r["open"] + r["see"] for r in rows if r["lesson"] == "dvs-added"]
    ratio = statistics.median(added) / statistics.median(own)
    print(f"Added lesson (the DVS lesson added to the store as dvs-added) against the built-in one, open + see per "
          f"step: median {statistics.median(added):.2f} s against {statistics.median(own):.2f} s, ratio {ratio:.2f} "
          f"(target at most {ADDED_RATIO_TARGET}): {'met' if ratio <= ADDED_RATIO_TARGET else 'NOT met'}.")
    inside, command = check_times()
    print(f"lesson check of the guide's 37-line lesson: the check {inside * 1000:.0f} ms, the whole command (a new "
          f"interpreter and its imports) {command:.2f} s (target under {CHECK_TARGET} s): "
          f"check {'met' if inside < CHECK_TARGET else 'NOT met'}, command "
          f"{'met' if command < CHECK_TARGET else 'NOT met'}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
