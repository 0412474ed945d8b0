"""Pages in a real browser on a warm server, measured as ratios within one run.

    python bench/bench_pages.py            # needs Debian's chromium and the playwright package
    python bench/bench_pages.py --quick    # skip the 5,000-row part

1. Every page, default settings: time to the heading and the first figure, and for training pages
   from the click on Train to the progress bar and to the first result figure.
2. 5,000 rows x 3 views x 20 features (synthetic, opened by a link): the Dissimilarity page's
   time from Train to its results against the library work of the same settings timed in this
   process (target: at most 1.5x), and on the Dynamic view selection page the time from
   changing the test instance to the new instance shown (target: under 1 s; the first visit of
   a chosen subset computes its projection once).
3. A dissimilarity heatmap of 300 instances in 100 classes against 3 classes: time for plotly.js
   to draw each figure built by mvlab.viz.dissimilarity_figures (target: within 2x).

Prints markdown tables (the README's "Page timings").  One run; the machine is shared, so read
ratios, not absolute seconds.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite

from browser import CHROMIUM, CHROMIUM_ARGS, running_app, settle, unavailable_reason  # noqa: E402

# page link, whether it trains
PAGES = [("Data", False), ("Dissimilarity", True), ("Dynamic view selection", True), ("View construction", True),
         ("Siamese deep forest", True), ("Benchmark", True)]
BIG = {"dataset": "synthetic", "syn_n": 5000, "syn_views": 3, "syn_features": 20, "syn_classes": 3, "seed": 0}


def first_figure(page, timeout=300_000):
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 1", timeout=timeout)


def figures(page, n, timeout=600_000):
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {n}", timeout=timeout)


def default_pages(page, url) -> list[dict]:
    rows = []
    page.goto(url + "/")
    page.wait_for_selector("h1", timeout=60_000)
    settle(page)
    for name, _ in PAGES:  # warm-up: every page once (imports, caches)
        page.get_by_role("link", name=name, exact=True).click()
        settle(page)
    for name, trains in PAGES:
        page.get_by_role("link", name="Home", exact=True).click()
        settle(page)
        start = time.perf_counter()
        page.get_by_role("link", name=name, exact=True).click()
        page.wait_for_selector(f"h1:has-text('{name}')", timeout=60_000)
        row = {"page": name, "heading": time.perf_counter() - start}
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
    return rows


def big_data(page, url) -> dict:
    """The 5,000-row measurements."""
    from urllib.parse import urlencode

    from mvlab.datasets.synthetic import make_multiview_classification
    from mvlab.experiments.settings import DissimilaritySettings

    ds = make_multiview_classification(BIG["syn_n"], n_views=BIG["syn_views"], n_features=BIG["syn_features"],
                                       n_classes=BIG["syn_classes"], random_state=BIG["seed"])
    out = {}
    # library work of the Dissimilarity page's default settings, timed here
    start = time.perf_counter()
    DissimilaritySettings(seed=BIG["seed"]).run(ds)
    out["dissimilarity library"] = time.perf_counter() - start
    page.goto(url + "/dissimilarity?" + urlencode(BIG))
    page.wait_for_selector("h1:has-text('Dissimilarity')", timeout=120_000)
    settle(page)
    click = time.perf_counter()
    page.get_by_role("button", name="Train", exact=True).click()
    page.wait_for_selector("text=test instances", timeout=900_000)
    settle(page, timeout=900_000)
    figures(page, 5)
    out["dissimilarity page"] = time.perf_counter() - click
    print(f"  5,000 rows, Dissimilarity: library {out['dissimilarity library']:.1f} s, "
          f"page {out['dissimilarity page']:.1f} s", file=sys.stderr)

    page.goto(url + "/dvs?" + urlencode({**BIG, "source": "sidebar"}))
    page.wait_for_selector("h1:has-text('Dynamic view selection')", timeout=120_000)
    settle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    box = page.locator("[data-testid=stNumberInput]").filter(has_text="Test instance").locator("input")
    # the explorer is drawn once training is over (its caption says "test instance" earlier)
    box.wait_for(timeout=900_000)
    settle(page, timeout=900_000)
    changes = []
    for i in (17, 403, 17, 1200, 403):
        start = time.perf_counter()
        box.fill(str(i))
        box.press("Enter")
        # a query of the page's paragraphs only: Playwright's text selector scans every node, the 5,000 SVG points too
        page.wait_for_function("(i) => [...document.querySelectorAll('[data-testid=stMarkdownContainer] p')].some("
                               "p => p.innerText.startsWith(`Test instance ${i} (dataset row`))",
                               arg=i, timeout=120_000)
        changes.append(time.perf_counter() - start)
        settle(page)
    out["dvs instance changes"] = changes
    print("  5,000 rows, DVS instance changes: " + ", ".join(f"{c:.2f} s" for c in changes), file=sys.stderr)
    return out


def heatmap_draw(page) -> dict:
    """plotly.js drawing time of mvlab's heatmap figure, 3 against 100 classes (300 instances)."""
    import numpy as np

    from mvlab.viz import dissimilarity_figures

    js = (Path(__import__("plotly").__file__).parent / "package_data" / "plotly.min.js").read_text()
    page.set_content("<html><body><div id='fig' style='width:900px;height:500px'></div></body></html>")
    page.add_script_tag(content=js)
    rng = np.random.default_rng(0)
    D = rng.random((300, 300))
    out = {}
    for n_classes in (3, 100):
        labels = np.repeat([f"class {c}" for c in range(n_classes)], 300 // n_classes)
        fig = json.loads(dissimilarity_figures.dissimilarity_heatmap(D, labels, max_size=300).to_json())
        times = []
        for _ in range(5):
            ms = page.evaluate("""async (fig) => {
                const t = performance.now();
                await Plotly.newPlot('fig', fig.data, fig.layout);
                return performance.now() - t; }""", fig)
            times.append(ms / 1000)
        out[n_classes] = float(np.median(times))
    return out


def main() -> int:
    reason = unavailable_reason()
    if reason:
        print(f"cannot run: {reason}")
        return 1
    from playwright.sync_api import sync_playwright

    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp) / "store.sqlite") as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        draw = heatmap_draw(page)
        rows = default_pages(page, url)
        big = None if quick else big_data(page, url)
        browser.close()
    print("| page | heading shown | first figure (no training) | progress shown after Train | results after Train |")
    print("|---|---|---|---|---|")
    fmt = lambda v: "—" if v is None else f"{v:.1f} s"  # noqa: E731
    for r in rows:
        print(f"| {r['page']} | {fmt(r['heading'])} | {fmt(r.get('first figure'))} | "
              f"{fmt(r.get('progress after click'))} | {fmt(r.get('result after click'))} |")
    print()
    print(f"Heatmap of 300 instances, plotly.js drawing time: 3 classes {draw[3] * 1000:.0f} ms, 100 classes "
          f"{draw[100] * 1000:.0f} ms: ratio {draw[100] / draw[3]:.2f} (target <= 2)")
    if big is not None:
        ratio = big["dissimilarity page"] / big["dissimilarity library"]
        ch = big["dvs instance changes"]
        print(f"5,000 rows x 3 views x 20 features: Dissimilarity page from Train to results "
              f"{big['dissimilarity page']:.1f} s, "
              f"its library work {big['dissimilarity library']:.1f} s: ratio {ratio:.2f} (target <= 1.5)")
        print(f"5,000 rows, Dynamic view selection, changing the test instance: {', '.join(f'{c:.2f}' for c in ch)} s "
              f"(first visit of a subset computes its projection; target < 1 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
