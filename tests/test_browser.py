"""End-to-end tests in a real browser (Debian's Chromium driven by Playwright).

Skipped with a message when Chromium or playwright is missing; `.ci/run` installs both.
Screenshots land in test-artifacts/screenshots/ (the README's pictures come from there).
"""

import re
import time
from pathlib import Path

import pytest

from axe import violations as axe_violations
from browser import (
    browser_tests_mark,
    exceptions,
    open_page,
    running_streamlit,
    screenshot,
    settle,
    truncated_labels,
)

pytestmark = browser_tests_mark()


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return tmp_path_factory.mktemp("store") / "results.sqlite"


@pytest.fixture(scope="module")
def launched(store_path):
    """The dashboard as ``make run`` starts it (``python -m mvlab.ui.launch``), and what it had done before any page
    was opened: its log then, and its engine's worker processes."""
    import psutil

    from mvlab.ui.launch import READY

    with running_streamlit(store_path, ("-m", "mvlab.ui.launch")) as (u, log):
        until = time.monotonic() + 120
        while READY not in log.read_text() and time.monotonic() < until:
            time.sleep(0.2)
        server = next(p for p in psutil.Process().children() if "mvlab.ui.launch" in " ".join(p.cmdline()))
        workers = [p for p in server.children(recursive=True) if "spawn_main" in " ".join(p.cmdline())]
        yield u, {"log": log.read_text(), "workers": len(workers)}


@pytest.fixture(scope="module")
def url(launched):
    return launched[0]


def test_the_server_make_run_starts_is_ready_before_any_page_is_opened(launched):
    """#72: ``make run``'s server (:mod:`mvlab.ui.launch`) starts its engine's workers and imports its pages' modules
    as it starts, and says so in its log, before a browser opens any page (nothing but Streamlit's health check has
    reached it). Broken once: without ``engine.start_in_background()`` in ``get_ready`` the line never came (a page's
    first run started the engine, as under a plain ``streamlit run``)."""
    from mvlab.ui.launch import READY

    _, before = launched
    assert READY in before["log"] and "Traceback" not in before["log"], before["log"][-3000:]
    assert before["workers"] >= 1


new_page = open_page


@pytest.fixture
def page(browser, url):
    pg = new_page(browser, url + "/")
    yield pg
    pg.context.close()


HEADINGS = {"Home": "multi-view learning"}


def goto(page, name):
    page.get_by_role("link", name=name, exact=True).click()
    settle(page)
    page.wait_for_selector(f"h1:has-text('{HEADINGS.get(name, name)}')", timeout=120_000)


def wait_for_figures(page, n, timeout=180_000):
    """Wait until at least n plotly figures have been drawn; return how many there are."""
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {n}", timeout=timeout)
    return len(page.query_selector_all(".js-plotly-plot"))


def metric_values(page):
    return [m.inner_text() for m in page.query_selector_all("[data-testid=stMetricValue]")]


def dataset_box(page):
    return page.locator("[data-testid=stSidebar] [data-testid=stSelectbox]").filter(has_text="Dataset").first


def choose_dataset(page, name):
    """Pick a bundled dataset in the sidebar's select box (its options read "name · Q views")."""
    dataset_box(page).click()
    page.get_by_role("option", name=re.compile(f"^{re.escape(name)} · ")).click()
    settle(page)


def number_value(page, label):
    """The value shown in the number box whose label starts with ``label``."""
    return page.locator("[data-testid=stNumberInput]").filter(has_text=label).locator("input").first.input_value()


def set_number(page, label, value):
    box = page.locator("[data-testid=stNumberInput]").filter(has_text=label).locator("input").first
    box.fill(str(value))
    box.press("Enter")
    settle(page)


def sidebar_dataset(page):
    return dataset_box(page).locator("input").input_value()


def test_home(page):
    """The home page, its accessibility, and (#72) the chart and table code the browser loads while the reader looks
    at a page (:mod:`mvlab.ui.page_script`), so that the first figure after Train does not wait for plotly.js; the
    page's script element takes no room. Broken once: without ``page_script.load_ahead()`` in app.py, no PlotlyChart
    module came."""
    assert "multi-view learning with random forests" in page.inner_text("h1")
    page.wait_for_function("['/PlotlyChart.', '/DataFrame.'].every(m => performance.getEntriesByType('resource')"
                           ".some(e => e.name.includes(m)))", timeout=20_000)
    page.wait_for_function("window.mvlabLoadedAheadDone === true", timeout=20_000)  # said once they have run
    assert not page.query_selector_all(".js-plotly-plot")  # loaded ahead: no figure asked for it
    hidden = page.locator("[data-testid=stElementContainer]:has(.mvlab-page-script)")
    assert hidden.count() == 1 and not hidden.first.is_visible()
    assert not exceptions(page)
    screenshot(page, "home")
    assert not (found := axe_violations(page)), found  # WCAG 2.0/2.1 A and AA (issue #47)


def test_data_page_switches_dataset_and_keeps_it_across_pages(page):
    goto(page, "Data")
    wait_for_figures(page, 2)
    assert metric_values(page) == ["600", "649", "6", "10"]
    choose_dataset(page, "breast-cancer")
    assert metric_values(page) == ["569", "30", "3", "2"]
    goto(page, "Home")
    goto(page, "Data")
    assert metric_values(page) == ["569", "30", "3", "2"]
    assert wait_for_figures(page, 2) == 2
    assert not exceptions(page)
    screenshot(page, "data")
    assert not (found := axe_violations(page)), found  # WCAG 2.0/2.1 A and AA (issue #47)


def test_dissimilarity_page_trains_with_visible_progress(page):
    goto(page, "Dissimilarity")
    page.get_by_role("button", name="Train", exact=True).click()
    page.wait_for_selector("[data-testid=stProgress]", timeout=30_000)  # how fast: bench/bench_pages.py
    settle(page)
    page.wait_for_selector("text=test instances", timeout=120_000)
    # the whole result (the page draws the first combinations as a part while the baselines grow, #72)
    page.wait_for_selector("text=Partial result, still computing", state="detached", timeout=120_000)
    settle(page)
    assert wait_for_figures(page, 4) >= 4  # accuracy, weights, heatmap(s), MDS
    assert not exceptions(page)
    screenshot(page, "dissimilarity")
    assert not (found := axe_violations(page)), found  # WCAG 2.0/2.1 A and AA (issue #47)
    # only the open tab's heatmap is drawn; another tab draws its own view's matrix on the click
    view_tab = page.get_by_role("tab").nth(1)
    view = view_tab.inner_text().strip()
    view_tab.click()
    page.wait_for_selector(f".gtitle:has-text('{view}: ')", timeout=60_000)
    settle(page)  # the tab's run ended: the download below is the one the server holds (once not got in 60 s)
    assert not exceptions(page)
    with page.expect_download(timeout=60_000) as download:  # the CSV is made on the click (a deferred callable)
        page.get_by_role("button", name="Download results (.csv)").click()
    text = Path(download.value.path()).read_text()
    assert text.startswith("combination,test accuracy,seconds,") and "\naverage," in text and "fingerprint" in text


def current_instance(page):
    """The test instance the DVS page describes ("Test instance 12 (dataset row ...)")."""
    for text in page.locator("p").all_inner_texts():
        m = re.match(r"Test instance (\d+) \(dataset row", text)
        if m:
            return int(m.group(1))
    return None


def test_dvs_page_click_on_the_map_selects_an_instance(page):
    goto(page, "Dynamic view selection")  # opens on the region demo, where choices differ between instances
    page.get_by_role("button", name="Train", exact=True).click()
    settle(page)
    page.wait_for_selector("text=Region of competence of one instance", timeout=120_000)
    wait_for_figures(page, 5)
    assert current_instance(page) == 0
    # click a test point on the map (its last traces are the test points of each class, after the training ones)
    chart = page.locator(".js-plotly-plot").nth(3)
    chart.scroll_into_view_if_needed()
    target = chart.locator(".scatterlayer .trace.scatter").last.locator(".points path").nth(10)
    box = target.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    settle(page)
    page.wait_for_function(
        "[...document.querySelectorAll('p')].some(p => /^Test instance [1-9]\\d* \\(dataset row/.test(p.innerText))",
        timeout=120_000)
    assert current_instance(page) not in (None, 0)
    assert not exceptions(page)
    screenshot(page, "dvs")
    assert not (found := axe_violations(page)), found  # WCAG 2.0/2.1 A and AA (issue #47)


def undetermined_text(page):
    """The value of the Siamese page's "undetermined" metric."""
    metric = page.locator("[data-testid=stMetric]").filter(has_text="ndetermined")
    return metric.locator("[data-testid=stMetricValue]").first.inner_text()


def test_siamese_page_trains_and_the_tau_slider_responds(page):
    goto(page, "Siamese deep forest")
    page.get_by_role("button", name="Train", exact=True).click()
    page.wait_for_selector("[data-testid=stProgress]", timeout=10_000)
    settle(page, timeout=300_000)
    assert wait_for_figures(page, 4) >= 4  # levels, weights, tau curve, pair view
    slider = page.get_by_role("group", name=re.compile("^τ")).locator("input").first
    undetermined = undetermined_text(page)
    assert undetermined.startswith("0 of")  # tau = 0: every pair is decided
    slider.focus()
    page.keyboard.press("End")  # tau = the number of forests: only unanimous pairs are still called similar
    settle(page)
    assert undetermined_text(page) != undetermined
    assert not exceptions(page)
    screenshot(page, "siamese")
    assert not (found := axe_violations(page)), found  # WCAG 2.0/2.1 A and AA (issue #47)


def test_benchmark_page_runs_a_small_comparison(page):
    goto(page, "Benchmark")
    page.get_by_role("button", name="Run benchmark").click()
    page.wait_for_selector("[data-testid=stProgress]", timeout=10_000)
    settle(page, timeout=300_000)
    page.wait_for_selector("text=Mean ± std of test accuracy", timeout=60_000)
    assert wait_for_figures(page, 2) >= 2  # ranks and the win/tie/loss chart
    assert not exceptions(page)
    screenshot(page, "benchmark")
    assert not (found := axe_violations(page)), found  # WCAG 2.0/2.1 A and AA (issue #47)


def test_view_construction_page_builds_views_and_draws_the_box_plots(page):
    goto(page, "View construction")
    page.get_by_role("button", name="Train", exact=True).click()
    page.wait_for_selector("[data-testid=stProgress]", timeout=10_000)
    settle(page, timeout=300_000)
    assert wait_for_figures(page, 4, timeout=120_000) >= 4  # boxes, lines, partition, partition vs natural
    assert not exceptions(page)
    screenshot(page, "view_construction")
    assert not (found := axe_violations(page)), found  # WCAG 2.0/2.1 A and AA (issue #47)


def test_a_broken_upload_in_the_browser_shows_an_error_and_keeps_the_data(page, tmp_path):
    goto(page, "Data")
    wait_for_figures(page, 2)
    before = metric_values(page)
    page.get_by_text("Upload CSV", exact=True).click()
    settle(page)
    broken = tmp_path / "broken.csv"
    broken.write_text("label,a.x,a.y\ncat,1,2\ndog,3,oops\ncat,1,1\ndog,2,2\n")
    page.locator("[data-testid=stFileUploader] input[type=file]").set_input_files(str(broken))
    settle(page)
    page.wait_for_selector("[data-testid=stAlert]", timeout=60_000)
    alert = page.locator("[data-testid=stAlert]").first.inner_text()
    assert "non-numeric value 'oops' at line 3, column 'a.y'" in alert
    assert metric_values(page) == before
    assert not exceptions(page)
    screenshot(page, "bad_upload")


def test_a_link_opens_the_same_data_seed_and_settings_and_a_reload_keeps_them(browser, url):
    page = new_page(browser, url + "/dissimilarity?dataset=breast-cancer&n=300&seed=3&k=9&n_estimators=25")
    assert sidebar_dataset(page).startswith("breast-cancer")
    assert (number_value(page, "Random seed"), number_value(page, "Instances"), number_value(page, "k (SWknn)"),
            number_value(page, "Trees per forest")) == ("3", "300", "9", "25")
    # a change in the page goes into the address; a reload keeps it
    set_number(page, "k (SWknn)", 11)
    page.wait_for_function("location.search.includes('k=11')", timeout=30_000)
    page.reload()
    page.wait_for_selector("h1", timeout=120_000)
    settle(page)
    assert sidebar_dataset(page).startswith("breast-cancer")
    assert (number_value(page, "Random seed"), number_value(page, "k (SWknn)")) == ("3", "11")
    # the link offered in the sidebar opens the same in another person's browser
    page.get_by_text("Share these settings").click()
    link = page.locator("[data-testid=stSidebar] [data-testid=stCode]").first.inner_text().strip()
    assert link.startswith(url + "/dissimilarity?") and "dataset=breast-cancer" in link
    other = new_page(browser, link)
    assert sidebar_dataset(other).startswith("breast-cancer")
    assert (number_value(other, "Random seed"), number_value(other, "Instances"), number_value(other, "k (SWknn)"),
            number_value(other, "Trees per forest")) == ("3", "300", "11", "25")
    assert not exceptions(page) and not exceptions(other)
    # a value that does not fit falls back to the default, with a note naming the parameter
    bad = new_page(browser, url + "/dissimilarity?dataset=no-such-data&k=abc")
    note = bad.locator("[data-testid=stAlert]").filter(has_text="not used").first.inner_text()
    assert "dataset" in note and "k" in note
    settle(bad)
    bad.wait_for_function("""() => [...document.querySelectorAll('[data-testid=stNumberInput]')]
        .find(e => e.innerText.startsWith('k (SWknn)'))?.querySelector('input')?.value === '7'""", timeout=60_000)
    for pg in (page, other, bad):
        pg.context.close()


PAGES = ["Home", "Data", "Dissimilarity", "Dynamic view selection", "View construction", "Siamese deep forest",
         "Benchmark"]


def test_no_page_cuts_off_its_labels(page):
    seen = {}
    for name in PAGES:
        goto(page, name)
        if name in ("Dissimilarity", "Dynamic view selection"):  # their results carry the most labels
            page.get_by_role("button", name="Train", exact=True).click()
            settle(page)
            wait_for_figures(page, 3)
        seen[name] = truncated_labels(page)
    dataset_box(page).click()
    page.wait_for_selector("[role=option]", timeout=10_000)
    seen["dataset menu"] = truncated_labels(page)
    assert not {k: v for k, v in seen.items() if v}, f"labels cut off: {seen}"


def test_stop_ends_a_long_run_cleanly(page, store_path):
    from mvlab.store import ResultsStore

    goto(page, "View construction")
    # paper settings on nutrimouse: 50 splits (minutes) of short steps, so the stopped run reaches its next
    # progress report soon and leaves its worker
    choose_dataset(page, "nutrimouse")
    page.get_by_text("Paper settings", exact=False).first.click()
    settle(page)
    before = set(ResultsStore(store_path).runs()["run_id"])
    page.get_by_role("button", name="Train", exact=True).click()
    page.wait_for_selector("[data-testid=stProgress]", timeout=60_000)
    page.get_by_role("button", name="Stop").click()
    settle(page)
    page.wait_for_selector("text=Training was stopped; nothing was stored", timeout=60_000)
    settle(page)
    page.get_by_role("button", name="Stop").wait_for(state="detached", timeout=30_000)  # gone once the rerun ends
    # the run ends at its next progress report (or its worker is restarted after the engine's grace period)
    deadline = time.time() + 90
    while time.time() < deadline:
        runs = ResultsStore(store_path).runs()
        mine = runs[~runs["run_id"].isin(before)]
        if mine["status"].tolist() != ["running"]:
            break
        time.sleep(1)
    assert mine["status"].tolist() == ["stopped"]  # recorded as stopped, with no results
    assert ResultsStore(store_path).results(mine["run_id"].iloc[0]).empty
    # the page is usable at once: back to quick settings, and it trains
    page.get_by_text("Paper settings", exact=False).first.click()
    settle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    settle(page, timeout=300_000)
    assert wait_for_figures(page, 4, timeout=120_000) >= 4
    assert not exceptions(page)


def figures_now(page) -> int:
    return len(page.query_selector_all(".js-plotly-plot"))


def test_view_construction_shows_a_partial_result_before_the_whole_and_a_stop_keeps_it(browser, url):
    """#72: the first half of the k's of the first test fold is drawn while the rest computes (every figure, said to
    be partial), then the folds done, the whole replaces them, and a Stop keeps the part on the page.  Broken once:
    without the page's ``draw_partial`` the partial note never showed and the first figure came with the whole
    result."""
    # 5 folds on 150 instances: the first part comes after about a tenth of the run
    page = new_page(browser, url + "/view_construction?n_splits=5&seed=5")
    page.get_by_role("button", name="Train", exact=True).click()
    start = time.perf_counter()
    page.wait_for_selector("text=Partial result, still computing", timeout=120_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=60_000)
    part_after = time.perf_counter() - start
    assert "k = 1..5 of the first test fold so far" in page.inner_text("body")
    screenshot(page, "view_construction_partial")
    assert page.get_by_role("button", name="Stop").is_visible()  # still computing
    page.wait_for_selector("text=Partial result, still computing", state="detached", timeout=300_000)
    settle(page, timeout=300_000)
    assert wait_for_figures(page, 4) >= 4  # the whole: boxes, lines, partition, partition vs natural
    whole_after = time.perf_counter() - start
    assert part_after < whole_after
    assert "Partial result" not in page.inner_text("body") and not exceptions(page)
    # another seed; Stop once the part shows: the part stays, said to be stopped, and nothing was stored
    page.goto(url + "/view_construction?n_splits=10&seed=6")
    page.wait_for_selector("h1:has-text('View construction')", timeout=120_000)
    settle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.wait_for_selector("text=Partial result, still computing", timeout=120_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=60_000)
    page.get_by_role("button", name="Stop").click()
    page.wait_for_selector("text=Stopped: a partial result", timeout=60_000)
    settle(page)
    kept = page.inner_text("body")  # the part shown when Stop was pressed: the first k's, or (slower) the first folds
    assert figures_now(page) >= 2 and ("(k = 1..5 of the first test fold)" in kept or "of 10 splits)" in kept)
    assert page.get_by_role("button", name="Stop").count() == 0
    assert not exceptions(page)
    page.context.close()


def test_papers_view_shows_published_and_reproduced_values_on_a_fresh_store(page):
    """The Papers page reads the committed results files: on this module's fresh store it shows the Siamese
    deep forest paper's cells beside mvlab's, with links that open the Siamese page at a cell's setting."""
    goto(page, "Papers")
    assert not exceptions(page)
    page.wait_for_selector("h3:has-text('Table 4: Ecoli')", timeout=60_000)
    text = page.inner_text("body")
    assert re.search(r"of the paper's cells inside our 95 % interval|no cell with an interval yet", text)
    # the grid of Table 4 as text: Ecoli at N = 100, T = 100 reads "mvlab ... / 0.439 (the paper's gcForest)"
    row = next(line for line in text.splitlines() if line.startswith("100\t"))
    assert "/ 0.439" in row and "/ 0.530" in row and re.search(r"0\.\d{3}", row.split("/")[0])
    page.wait_for_selector("[data-testid=stDataFrame]", timeout=60_000)  # the cells with their links
    screenshot(page, "papers")
