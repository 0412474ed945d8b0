"""#73 in a real browser, on one server: each person's language from the address, the browser's locale or the
switch, with the page's ``lang`` and ``dir`` (right to left for Arabic); and (item 5) Chromium set to German, French,
Spanish and Arabic opens every page, a page's result and a lesson step (answered, its figures shown) with no English
sentence left (the visible text compared with the English page's, line by line) and no axe violation."""

import re

import pytest

from axe import violations as axe_violations
from browser import browser_tests_mark, exceptions, running_app, settle
from mvlab.i18n import catalogue
from mvlab.lessons import get_lesson
from mvlab.lessons.step_results import warm
from mvlab.store import ResultsStore

pytestmark = browser_tests_mark()

PAGES = ("", "lessons", "data", "dissimilarity", "view_construction", "dvs", "benchmark", "papers", "siamese")
"""Every page of the navigation, by its address."""
LOCALES = {"de": "de-DE", "fr": "fr-FR", "es": "es-ES", "ar": "ar"}
"""The browser's locale of each language (the page chooses the language from it)."""
WORD = re.compile(r"(?<![-_A-Za-z])(?<![A-Za-z]\.)[a-z]{3,}(?![-_A-Za-z])(?!\.[A-Za-z])")
"""A lower-case word of an English sentence: a name (``OFSP (Kumar & Minz 2016)``), an identifier
(``dvs-soft-shared``), a feature's column name (``mean.radius``) or a Material icon's name (``keyboard_arrow_right``,
drawn by the icon font as a glyph) has none."""
STREAMLITS_OWN = ("Drag and drop file here", "Browse files", "Limit ", "Press Enter to apply", "Press ⌘+Enter",
                  "Press Ctrl+Enter", "Language · Sprache")
"""Words Streamlit itself writes in its widgets, in English whatever the page's language (Streamlit translates
nothing of its own: its issue #1353), and the language switch's label, which says "Language" in all five."""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server whose store holds the DVS lesson's results (the step shows its figures at once)."""
    store = tmp_path_factory.mktemp("translated") / "results.sqlite"
    warm(get_lesson("dvs"), ResultsStore(store), say=lambda line: None)
    with running_app(store, MVLAB_WORKERS="1", MVLAB_DASHBOARD="off") as url:
        yield url


REPORT = "[class*='st-key-report-']"
"""The Papers page's reproduction report (its rules, coverage tables, readings and grids), which stays in English,
a scientific record (the page's header says so in the reader's language): :func:`mvlab.ui.views.papers_page.
report_text`."""


def lines(page) -> list[str]:
    """The page's visible text (main part and sidebar) without the reproduction report's, one line each."""
    text = page.evaluate("""() => {
        const report = [...document.querySelectorAll("%s")];
        report.forEach(e => { e.dataset.display = e.style.display; e.style.display = "none"; });
        const text = document.body.innerText;
        report.forEach(e => { e.style.display = e.dataset.display; });
        return text;
    }""" % REPORT)
    return [line.strip() for line in text.splitlines() if line.strip()]


def english_left(shown: list[str], english: set[str]) -> list[str]:
    """The lines of ``shown`` that are English sentences of the English page: two lower-case words or more, the same
    line on the English page, and not Streamlit's own words."""
    return [line for line in shown if line in english and len(WORD.findall(line)) >= 2
            and not line.startswith(STREAMLITS_OWN)]


def said(code: str, message: str) -> str:
    return catalogue.translations(code).gettext(message)


def done(page) -> None:
    """Wait until the script's run has ended and nothing on the page is stale (:func:`browser.settle` without its
    fixed pauses: eleven pages in five languages)."""
    page.wait_for_timeout(150)
    page.wait_for_selector("[data-testid=stStatusWidget]", state="detached", timeout=300_000)
    page.wait_for_function("document.querySelectorAll('[data-stale=true]').length === 0", timeout=60_000)


def visit(page, address: str, code: str) -> list[str]:
    page.goto(address)
    page.wait_for_selector("[data-testid=stSidebar]", timeout=120_000)
    page.wait_for_selector("h1", timeout=120_000)
    if code != "en":
        page.wait_for_function(f"document.documentElement.lang === '{code}'", timeout=60_000)
    done(page)
    assert not exceptions(page), (address, exceptions(page))
    return lines(page)


def trained(page, code: str) -> list[str]:
    """The Dissimilarity page's result on its defaults, once Train is pressed (its text once the whole is drawn)."""
    page.get_by_role("button", name=said(code, "Train"), exact=True).click()
    page.get_by_text(said(code, "Map of the joint dissimilarity (classical MDS)")).wait_for(timeout=240_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4", timeout=120_000)
    settle(page)
    done(page)
    return lines(page)


def revealed(page, code: str) -> list[str]:
    """The DVS lesson's first step, predicted, revealed, its figures drawn."""
    page.get_by_text(said(code, "Predict first:"), exact=False).first.wait_for(timeout=240_000)
    choice = get_lesson("dvs").in_language(code).steps[0].question.choices[0]
    page.get_by_text(f"(a) {choice}", exact=True).click()
    settle(page)
    page.get_by_role("button", name=said(code, "Reveal the answer")).click()
    settle(page)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 1", timeout=120_000)
    settle(page)
    return lines(page)


@pytest.fixture(scope="module")
def english(browser, server) -> dict[str, set[str]]:
    """Each page's lines in English, the trained page's and the revealed step's."""
    context = browser.new_context(viewport={"width": 1400, "height": 2000}, locale="en-US")
    page = context.new_page()
    seen = {}
    for path in PAGES:
        seen[path] = set(visit(page, f"{server}/{path}", "en"))
        if path == "dissimilarity":
            seen["trained"] = set(trained(page, "en"))
    visit(page, f"{server}/lessons?lesson=dvs&step=1", "en")
    seen["step"] = set(revealed(page, "en"))
    context.close()
    return seen


@pytest.mark.parametrize("code", ["de", "ar"])
def test_every_page_a_result_and_a_lesson_step_leave_no_english_sentence(browser, server, english, code):
    """Every page, the Dissimilarity page's result and a revealed lesson step in a browser set to the language's
    locale: ``lang`` (and for Arabic ``dir="rtl"``) set, no line of the English page that is an English sentence,
    no exception, and axe 0 on the result and the step.  German (left to right) and Arabic (right to left) in every
    run: a text left out of the catalogue shows in every language alike, and French's and Spanish's own gaps are
    the catalogue test's and the prose test's; the slow walk below opens every page and every lesson step in all
    four.  Broken once: with the Dissimilarity page's "Trees per
    forest" label left unmarked (no ``_()``), the German page and its result kept it."""
    context = browser.new_context(viewport={"width": 1400, "height": 2000}, locale=LOCALES[code])
    page = context.new_page()
    left, found = {}, []
    for path in PAGES:
        left[path] = english_left(visit(page, f"{server}/{path}", code), english[path])
        if path == "dissimilarity":  # its result, trained on its defaults
            left["trained"] = english_left(trained(page, code), english["trained"])
            found += axe_violations(page, f"{code}, trained: ")
    assert page.evaluate("() => document.documentElement.dir") == ("rtl" if code == "ar" else "ltr")
    visit(page, f"{server}/lessons?lesson=dvs&step=1", code)
    left["step"] = english_left(revealed(page, code), english["step"])
    found += axe_violations(page, f"{code}, step: ")
    context.close()
    left = {path: lines for path, lines in left.items() if lines}
    assert not left, f"{code}: {left}"
    assert not found, found


def opened(browser, address, locale="en-US"):
    context = browser.new_context(viewport={"width": 1400, "height": 1600}, locale=locale)
    page = context.new_page()
    page.goto(address)
    page.wait_for_selector("[data-testid=stSidebar] h2", timeout=120_000)
    settle(page)
    return page


def document_language(page):
    return page.evaluate("() => [document.documentElement.lang, document.documentElement.dir]")


def sidebar_header(page):
    return page.locator("[data-testid=stSidebar] h2").first.inner_text()


def test_the_address_the_browser_and_the_switch_each_choose_the_language(browser, server):
    """Arabic from ``?lang=ar`` (right to left), German from a browser set to de-DE, English from a Portuguese
    browser (a language mvlab does not speak), and the switch to German kept through a reload.
    Broken once: without the page's ``lang``/``dir`` script the Arabic page stayed ``en``/left to right."""
    arabic = opened(browser, server + "/data?lang=ar")
    arabic.wait_for_function("document.documentElement.dir === 'rtl'", timeout=30_000)
    assert document_language(arabic) == ["ar", "rtl"] and sidebar_header(arabic) == "البيانات"
    assert arabic.get_by_role("link", name="الدروس").count() == 1  # the navigation speaks it too
    assert not exceptions(arabic)
    assert not (found := axe_violations(arabic)), found
    german = opened(browser, server + "/data", locale="de-DE")
    german.wait_for_function("document.documentElement.lang === 'de'", timeout=30_000)
    settle(german)
    assert sidebar_header(german) == "Daten"
    assert "Zufallsstartwert" in german.locator("[data-testid=stSidebar]").inner_text()
    french = opened(browser, server + "/data", locale="pt-BR")
    assert sidebar_header(french) == "Data" and document_language(french)[1] in ("", "ltr")
    # the switch: German, kept in the address and through a reload
    box = french.locator("[data-testid=stSidebar] [data-testid=stSelectbox]").filter(has_text="Language").first
    box.get_by_role("combobox").click()
    french.get_by_role("option", name="Deutsch").click()
    settle(french)
    french.wait_for_function("location.search.includes('lang=de')", timeout=30_000)
    assert sidebar_header(french) == "Daten"
    french.reload()
    french.wait_for_selector("[data-testid=stSidebar] h2", timeout=120_000)
    settle(french)
    assert sidebar_header(french) == "Daten"
    for page in (arabic, german, french):
        page.context.close()


@pytest.fixture(scope="module")
def every_lesson_server(tmp_path_factory):
    """A server whose store holds every built-in lesson's results (minutes to warm: for the slow walk alone)."""
    from mvlab.lessons import LESSONS

    store = tmp_path_factory.mktemp("every-lesson") / "results.sqlite"
    for lesson in LESSONS.values():
        warm(lesson, ResultsStore(store), say=lambda line: None)
    with running_app(store, MVLAB_WORKERS="1", MVLAB_DASHBOARD="off") as url:
        yield url


def revealed_step(page, code: str, lesson, number: int) -> list[str]:
    """Step ``number`` of ``lesson`` (as a reader of ``code`` reads it), predicted, revealed, its notes shown."""
    step = lesson.in_language(code).steps[number - 1]
    page.get_by_text(f"(a) {step.question.choices[0]}", exact=True).click()
    settle(page)
    page.get_by_role("button", name=said(code, "Reveal the answer")).click()
    page.get_by_text(said(code, "**What to notice.**").strip("*")).first.wait_for(timeout=240_000)
    done(page)
    return lines(page)


@pytest.mark.slow
def test_every_lesson_step_and_page_in_every_language_leaves_no_english_and_passes_axe(browser, every_lesson_server):
    """The whole of item 5, too long for every run (about ten minutes: ``--runslow``): every step of the four
    built-in lessons, predicted and revealed, and every page, in each language against English: no English
    sentence of the English page left, and axe 0 on every page and every revealed step (its detection is the quick
    test's, broken once there).  Run 2026-11-29: passed, 5.5 minutes."""
    from mvlab.lessons import LESSONS

    url, english, found, left = every_lesson_server, {}, [], {}
    for code in ["en", *LOCALES]:
        context = browser.new_context(viewport={"width": 1400, "height": 2000},
                                      locale=LOCALES.get(code, "en-US"))
        page = context.new_page()
        for path in PAGES:
            shown = visit(page, f"{url}/{path}", code)
            if code == "en":
                english[path] = set(shown)
            else:
                left[(code, path)] = english_left(shown, english[path])
                found += axe_violations(page, f"{code}, {path or 'home'}: ")
        for lesson_id, lesson in LESSONS.items():
            for number in range(1, len(lesson.steps) + 1):
                visit(page, f"{url}/lessons?lesson={lesson_id}&step={number}", code)
                shown = revealed_step(page, code, lesson, number)
                if code == "en":
                    english[(lesson_id, number)] = set(shown)
                else:
                    left[(code, lesson_id, number)] = english_left(shown, english[(lesson_id, number)])
                    found += axe_violations(page, f"{code}, {lesson_id} step {number}: ")
        context.close()
    assert not {where: lines for where, lines in left.items() if lines}
    assert not found, found
