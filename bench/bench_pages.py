"""Time, in a real browser on a warm server, from opening each page to its first figure, and for
training pages from the click on Train to the progress bar and to the first result figure.

    python bench/bench_pages.py        # needs Debian's chromium and the playwright package

Prints a markdown table (the README's "Page timings"). One run; the machine is shared, so
read the figures as orders of magnitude.
"""

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import CHROMIUM, CHROMIUM_ARGS, running_app, settle, unavailable_reason  # noqa: E402

# page link, whether it trains, heading text
PAGES = [("Data", False), ("Dissimilarity", True), ("Dynamic view selection", True), ("View construction", True),
         ("Siamese deep forest", True), ("Benchmark", True)]


def first_figure(page, timeout=300_000):
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 1", timeout=timeout)


def main() -> int:
    reason = unavailable_reason()
    if reason:
        print(f"cannot run: {reason}")
        return 1
    from playwright.sync_api import sync_playwright

    rows = []
    with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp) / "store.sqlite") as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        page.goto(url + "/")
        page.wait_for_selector("h1", timeout=60_000)
        settle(page)
        for name, trains in PAGES:  # warm-up: every page once (imports, caches)
            page.get_by_role("link", name=name, exact=True).click()
            settle(page)
        for name, trains in PAGES:
            page.get_by_role("link", name="Home", exact=True).click()
            settle(page)
            start = time.perf_counter()
            page.get_by_role("link", name=name, exact=True).click()
            page.wait_for_selector(f"h1:has-text('{name}')", timeout=60_000)
            heading = time.perf_counter() - start
            row = {"page": name, "heading": heading}
            if not trains:
                first_figure(page)
                row["first figure"] = time.perf_counter() - start
            else:
                settle(page)
                button = "Run benchmark" if name == "Benchmark" else "Train"
                click = time.perf_counter()
                page.get_by_role("button", name=button, exact=True).click()
                page.wait_for_selector("[data-testid=stProgress]", timeout=60_000)
                row["progress after click"] = time.perf_counter() - click
                settle(page, timeout=600_000)
                first_figure(page)
                row["result after click"] = time.perf_counter() - click
            rows.append(row)
            print(f"  {name}: " + ", ".join(f"{k} {v:.1f} s" for k, v in row.items() if k != "page"), file=sys.stderr)
        browser.close()
    print("| page | heading shown | first figure (no training) | progress shown after Train | results after Train |")
    print("|---|---|---|---|---|")
    fmt = lambda v: "—" if v is None else f"{v:.1f} s"  # noqa: E731
    for r in rows:
        print(f"| {r['page']} | {fmt(r['heading'])} | {fmt(r.get('first figure'))} | "
              f"{fmt(r.get('progress after click'))} | {fmt(r.get('result after click'))} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
