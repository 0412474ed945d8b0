"""Pages in a real browser, measured as ratios within one run.

    python bench/bench_pages.py            # needs Debian's chromium and the playwright package
    python bench/bench_pages.py --quick    # skip the 5,000-row part
    python bench/bench_pages.py --profile  # only: where each page's default computation spends its time

1. Every training page on its defaults, on a **freshly started server** each (#72), started as ``make run`` starts
   it (:mod:`mvlab.ui.launch`: its engine's workers and its pages' modules made ready as it starts; the seconds
   until its log says so are printed): from the click on Train to the progress bar, to the first figure (a partial
   result where the page draws one) and to the whole result, for the first Train after the server is ready (cold:
   the page's first run, its first result, a browser that has cached nothing) and for a second Train with another
   seed (warm), beside the page's library work alone (``settings.run`` of the warm run's settings, timed in this
   process after a warm-up).  Each Train is clicked once the browser has loaded the charts' code, as a person reading
   the page would (:mod:`mvlab.ui.page_script`; how long that took after the page settled is printed).  Targets:
   first figure <= 2 s and whole result <= 8 s cold;
   the warm page over its library work <= 1.2x.  The Data page: time to its heading and first figure.
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
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite

from browser import CHROMIUM, CHROMIUM_ARGS, running_app, running_streamlit, settle, unavailable_reason  # noqa: E402

# page title, its address, its button, its settings class's name
TRAINING = [("Dissimilarity", "dissimilarity", "Train", "DissimilaritySettings"),
            ("Dynamic view selection", "dvs", "Train", "DVSSettings"),
            ("View construction", "view_construction", "Train", "ViewConstructionSettings"),
            ("Siamese deep forest", "siamese", "Train", "SiameseSettings"),
            ("Benchmark", "benchmark", "Run benchmark", "BenchmarkSettings")]
BIG = {"dataset": "synthetic", "syn_n": 5000, "syn_views": 3, "syn_features": 20, "syn_classes": 3, "seed": 0}
FIRST_FIGURE, WHOLE = 2.0, 8.0
OVERHEAD = 1.2


def first_figure(page, timeout=300_000):
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 1", timeout=timeout)


def figures(page, n, timeout=600_000):
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {n}", timeout=timeout)


RUNNING = """(!!document.querySelector('[data-testid=stProgress]')
    || [...document.querySelectorAll('button')].some(b => b.innerText.trim() === 'Stop'))"""
PART = "document.body.innerText.includes('Partial result, still computing')"
FIGURE = "document.querySelectorAll('.js-plotly-plot').length >= 1"


def whole_result(page, timeout=600_000):
    """The run is over and its whole result drawn: no progress bar, no Stop, no partial result, a figure."""
    page.wait_for_function(f"() => !{RUNNING} && !{PART} && {FIGURE}", timeout=timeout, polling=50)


def train(page, url: str, slug: str, title: str, button: str, seed: int) -> dict:
    """Open the page with ``seed``, press its button once the browser has loaded the charts' code, as a person
    reading the page would (:mod:`mvlab.ui.page_script`; the seconds that took after the page had settled are
    returned as ``"code"``); seconds from the click to the progress bar, the first figure and the whole result."""
    page.goto(f"{url}/{slug}?seed={seed}")
    page.wait_for_selector(f"h1:has-text('{title}')", timeout=120_000)
    settle(page)
    settled = time.perf_counter()
    page.wait_for_function("window.mvlabLoadedAheadDone === true", timeout=60_000, polling=50)
    code = time.perf_counter() - settled
    click = time.perf_counter()
    page.get_by_role("button", name=button, exact=True).click()
    page.wait_for_selector("[data-testid=stProgress]", timeout=120_000)
    out = {"code": code, "progress": time.perf_counter() - click}
    # a part of the result drawn, or the whole (the Benchmark page shows the batches kept before it, under its run)
    page.wait_for_function(f"() => ({PART} && {FIGURE}) || (!{RUNNING} && {FIGURE})", timeout=600_000, polling=50)
    out["first figure"] = time.perf_counter() - click
    whole_result(page)
    out["whole"] = time.perf_counter() - click
    settle(page, timeout=600_000)
    return out


def library_seconds(settings_name: str, seed: int) -> float:
    """The page's computation alone on its default data with ``seed`` (``settings.run``), in this warm process, on
    the threads the engine gives a run that starts alone (:meth:`mvlab.engine.EngineConfig.idle_threads`, as the
    bench's Trains do)."""
    from joblib import parallel_config

    from mvlab import datasets
    from mvlab.engine import EngineConfig
    from mvlab.experiments import settings as settings_module
    from mvlab.ui.state import DEFAULT_SAMPLE, bundled_dataset

    settings = getattr(settings_module, settings_name)(seed=seed)
    data = None
    if settings_name != "BenchmarkSettings":
        ds = bundled_dataset(datasets.list_datasets()[0], DEFAULT_SAMPLE, seed)
        data = settings.data(ds) if hasattr(settings, "data") else ds
    with parallel_config(backend="threading", n_jobs=EngineConfig.from_env().idle_threads()):
        start = time.perf_counter()
        settings.run(data)
        return time.perf_counter() - start


@contextmanager
def ready_server(store: Path):
    """The dashboard as ``make run`` starts it (:mod:`mvlab.ui.launch`) on ``store``, once its log says it is ready
    (its engine's workers started, its pages' modules imported); yields its address and the seconds that took."""
    from mvlab.ui.launch import READY

    start = time.perf_counter()
    with running_streamlit(store, ("-m", "mvlab.ui.launch")) as (url, log):
        while READY not in log.read_text():
            if time.perf_counter() - start > 180:
                raise RuntimeError("the server did not say it was ready: " + log.read_text()[-2000:])
            time.sleep(0.05)
        yield url, time.perf_counter() - start


def default_pages(browser) -> list[dict]:
    """Part 1: each training page on a server of its own, cold then warm, and its library work; the Data page."""
    rows = []
    for title, slug, button, settings_name in TRAINING:
        with tempfile.TemporaryDirectory() as tmp, ready_server(Path(tmp) / "store.sqlite") as (url, ready):
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            cold = train(page, url, slug, title, button, seed=0)
            warm = train(page, url, slug, title, button, seed=1)
            page.close()
        library_seconds(settings_name, 0)  # warm-up: imports, caches
        row = {"page": title, "cold": cold, "warm": warm, "library": library_seconds(settings_name, 1),
               "ready": ready}
        rows.append(row)
        print(f"  {title}: cold {cold}, warm {warm}, library {row['library']:.2f} s", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp, ready_server(Path(tmp) / "store.sqlite") as (url, ready):
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        start = time.perf_counter()
        page.goto(f"{url}/data")
        page.wait_for_selector("h1:has-text('Data')", timeout=120_000)
        heading = time.perf_counter() - start
        first_figure(page)
        rows.append({"page": "Data", "heading": heading, "first figure": time.perf_counter() - start, "ready": ready})
        page.close()
    return rows


def profile_pages(top: int = 12) -> None:
    """``--profile``: each page's default computation under cProfile, its heaviest mvlab and scikit-learn calls by
    cumulative time (what #72's lighter defaults were chosen from)."""
    import cProfile
    import io
    import pstats

    for title, _, _, settings_name in TRAINING:
        library_seconds(settings_name, 0)
        profiler = cProfile.Profile()
        profiler.enable()
        seconds = library_seconds(settings_name, 1)
        profiler.disable()
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
        stats.print_stats(r"mvlab|sklearn", top)
        lines = [line for line in out.getvalue().splitlines() if "/" in line and "{" not in line]
        print(f"## {title}: {seconds:.2f} s under the profiler\n")
        for line in lines[:top]:
            parts = line.split()
            print(f"- {float(parts[3]):6.2f} s  {parts[-1].split('site-packages/')[-1].split('/work/main/')[-1]}")
        print()


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
    whole_result(page, timeout=900_000)
    settle(page, timeout=900_000)
    figures(page, 4)  # the accuracies, the weights, the open tab's heatmap and the map
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


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def main() -> int:
    if "--profile" in sys.argv:
        profile_pages()
        return 0
    reason = unavailable_reason()
    if reason:
        print(f"cannot run: {reason}")
        return 1
    from playwright.sync_api import sync_playwright

    quick = "--quick" in sys.argv
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        rows = default_pages(browser)
        with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp) / "store.sqlite") as url:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            draw = heatmap_draw(page)
            big = None if quick else big_data(page, url)
        browser.close()
    print(f"Each training page on a freshly started server, its defaults; seconds from the click on Train. Targets: "
          f"first figure <= {FIRST_FIGURE:.0f} s and whole result <= {WHOLE:.0f} s cold, the warm page over its "
          f"library work <= {OVERHEAD}x. Each cold Train is clicked once the browser has loaded the charts' code "
          f"(as a person reading the page would; the seconds that took after the page settled: "
          f"{', '.join(format(r['cold']['code'], '.1f') for r in rows if 'cold' in r)} s).\n")
    print("| page | server ready | cold: progress | cold: first figure | cold: whole | warm: first figure | "
          "warm: whole | library alone | warm page / library | targets |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "cold" not in r:
            continue
        cold, warm, lib = r["cold"], r["warm"], r["library"]
        ratio = warm["whole"] / lib
        ok = cold["first figure"] <= FIRST_FIGURE and cold["whole"] <= WHOLE and ratio <= OVERHEAD
        print(f"| {r['page']} | {r['ready']:.1f} s "
              f"| {cold['progress']:.1f} s | {cold['first figure']:.1f} s | {cold['whole']:.1f} s | "
              f"{warm['first figure']:.1f} s | {warm['whole']:.1f} s | {lib:.1f} s | {ratio:.2f} | "
              f"{met(ok)} |")
    data = next(r for r in rows if r["page"] == "Data")
    print(f"\nData page (nothing to train), on a server ready {data['ready']:.1f} s after its start: heading "
          f"{data['heading']:.1f} s, first figure {data['first figure']:.1f} s after the address was opened.\n")
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
