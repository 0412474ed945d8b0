"""Lessons in class: how fast each step opens on a warm server, in a real browser.

    python bench/bench_lessons.py          # needs Debian's chromium and the playwright package

Warms every lesson into a fresh results store (as ``python -m mvlab lesson all --warm`` does before
class), starts the server (``streamlit run app.py`` with its job engine), waits for the engine's workers
(a server started before class) and, for every step of every lesson, times in Chromium:

* **open**: from the click on *Next* (or the link, for step 1) to the step's question shown and the
  script finished;
* **see**: from the click on *Reveal the answer* to every figure of the step drawn.

Target (the lessons issue): every step after the first shows in under 2 s on a warm server (open + see).
Prints a markdown table and the verdict.  One run on a shared machine.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite

from browser import chromium, running_app, settle, unavailable_reason  # noqa: E402
from mvlab.lessons import LESSONS  # noqa: E402
from mvlab.lessons.step_results import step_contexts, warm  # noqa: E402
from mvlab.store import ResultsStore  # noqa: E402

TARGET = 2.0


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
        contexts = {lid: step_contexts(lesson, store) for lid, lesson in LESSONS.items()}
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
            rows = [row for lesson in LESSONS.values() for row in walk(page, url, lesson, contexts[lesson.id])]
    print("| lesson | step | open (s) | see (s) | open + see (s) |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['lesson']} | {r['step']} | {r['open']:.2f} | {r['see']:.2f} | {r['open'] + r['see']:.2f} |")
    later = [r["open"] + r["see"] for r in rows if r["step"] > 1]
    print(f"\nSteps after the first: median {statistics.median(later):.2f} s, slowest {max(later):.2f} s "
          f"(target: under {TARGET:.0f} s): {'met' if max(later) < TARGET else 'NOT met'}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
