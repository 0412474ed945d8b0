"""The Dissimilarity and DVS pages on 100,000 training rows, in a real browser on the real engine.

    python bench/bench_pages_scale.py [--rows 125000] [--trees 30] [--test-share 0.2]

Starts the server as a researcher with big data would (``MVLAB_WORKERS=1``: one engine worker with every
core and 80 % of the memory), opens each page in Chromium with a link to the synthetic generator at
``--rows`` instances (3 views x 20 features, 3 classes; the test share leaves 100,000 training rows), reads
the page's memory estimate, presses Train and times it to the drawn result while sampling the engine
worker's resident memory (psutil, every second).  On the DVS page it then times the instance explorer:
a new test instance typed in, until the page names it with its region and maps drawn (target: under 1 s).

Prints a markdown table; one run on a shared 2-core machine (absolute times mean little; the point is that
the pages train at this size within the estimate and answer fast afterwards).
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

from _memory import MemoryPeak  # noqa: E402

from browser import chromium, exceptions, running_app, settle, unavailable_reason  # noqa: E402

EXPLORER_TARGET = 1.0


def caption_with(page, text: str) -> str:
    return next((t for t in page.locator("[data-testid=stCaptionContainer]").all_inner_texts() if text in t), "")


def train(page, url: str, path: str, done_text: str, pid: int) -> dict:
    page.goto(url + path)
    page.wait_for_selector("h1", timeout=120_000)
    settle(page, timeout=600_000)
    estimate = caption_with(page, "Estimated peak memory")
    t0 = time.perf_counter()
    with MemoryPeak(pid, largest_child=True, interval=1.0) as memory:
        page.get_by_role("button", name="Train", exact=True).click()
        page.wait_for_selector(f"text={done_text}", timeout=4 * 3600_000)
        settle(page, timeout=600_000)
    seconds = time.perf_counter() - t0
    errors = exceptions(page) + page.locator("[data-testid=stAlertContentError]").all_inner_texts()
    return {"seconds": seconds, "estimate": estimate, "peak": memory.peak, "errors": errors,
            "note": caption_with(page, "dissimilarity space")}


def explorer_times(page, instances) -> list[float]:
    box = page.get_by_label("Test instance (or click one on the map)")
    times = []
    for i in instances:
        box.fill(str(i))
        t0 = time.perf_counter()
        box.press("Enter")
        page.wait_for_function(
            "i => [...document.querySelectorAll('p')].some(p => p.innerText.startsWith(`Test instance ${i} (`))",
            arg=i, timeout=60_000)
        page.wait_for_function("document.querySelectorAll('[data-testid=stStatusWidget]').length === 0",
                               timeout=60_000)
        times.append(time.perf_counter() - t0)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=125_000)
    parser.add_argument("--trees", type=int, default=30)
    parser.add_argument("--test-share", type=float, default=0.2)
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"bench_pages_scale needs a browser: {reason}")
        return 1
    data = f"dataset=synthetic&syn_n={args.rows}&syn_views=3&syn_features=20&syn_classes=3"
    common = f"n_estimators={args.trees}&test_size={args.test_share}"
    n_train = args.rows - round(args.test_share * args.rows)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, \
            running_app(Path(tmp) / "results.sqlite", MVLAB_WORKERS="1", MVLAB_DASHBOARD="off") as url, \
            chromium() as browser:
        import psutil

        server = next(p for p in psutil.Process().children(recursive=True) if "streamlit" in " ".join(p.cmdline()))
        page = browser.new_context(viewport={"width": 1400, "height": 2400}).new_page()
        dis = train(page, url, f"/dissimilarity?{data}&{common}", "Map of the joint dissimilarity", server.pid)
        rows.append(("Dissimilarity", dis))
        dvs = train(page, url, f"/dvs?{data}&{common}&source=sidebar", "Region of competence of one instance",
                    server.pid)
        rows.append(("DVS", dvs))
        page.wait_for_timeout(2000)
        n_test = args.rows - n_train
        explorer = explorer_times(page, [n_test // 7 * j for j in range(1, 7)])
        explorer_errors = exceptions(page)
    print(f"{args.rows:,} synthetic instances (3 views x 20 features, 3 classes), test share {args.test_share}: "
          f"{n_train:,} training rows; {args.trees} trees per forest; one engine worker with both cores.\n")
    print("| page | train to result (min) | worker peak (GB) | estimate shown before Train | errors |")
    print("|---|---|---|---|---|")
    for name, r in rows:
        est = r["estimate"].split("about ")[1].split(" (")[0] if "about " in r["estimate"] else "?"
        print(f"| {name} | {r['seconds'] / 60:.1f} | {r['peak'] / 1e9:.2f} | {est} | {len(r['errors'])} |")
    for name, r in rows:
        print(f"\n{name}: {r['note']}")
        for e in r["errors"]:
            print(f"  error: {e[:300]}")
    print(f"\nDVS instance explorer, 6 instances: median {statistics.median(explorer):.2f} s, slowest "
          f"{max(explorer):.2f} s (target under {EXPLORER_TARGET:.0f} s): "
          f"{'met' if max(explorer) < EXPLORER_TARGET else 'NOT met'}; exceptions: {len(explorer_errors)}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
