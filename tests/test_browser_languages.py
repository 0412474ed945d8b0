"""#73 in a real browser: each person's language from the address, the browser's locale or the switch, with the
page's ``lang`` and ``dir`` (right to left for Arabic)."""

import pytest

from axe import violations as axe_violations
from browser import browser_tests_mark, exceptions, running_app, settle

pytestmark = browser_tests_mark()


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("store") / "results.sqlite") as u:
        yield u


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


def test_the_address_the_browser_and_the_switch_each_choose_the_language(browser, url):
    """Arabic from ``?lang=ar`` (right to left), German from a browser set to de-DE, English from a Portuguese
    browser (a language mvlab does not speak), and the switch to German kept through a reload.
    Broken once: without the page's ``lang``/``dir`` script the Arabic page stayed ``en``/left to right."""
    arabic = opened(browser, url + "/data?lang=ar")
    arabic.wait_for_function("document.documentElement.dir === 'rtl'", timeout=30_000)
    assert document_language(arabic) == ["ar", "rtl"] and sidebar_header(arabic) == "البيانات"
    assert arabic.get_by_role("link", name="الدروس").count() == 1  # the navigation speaks it too
    assert not exceptions(arabic)
    assert not (found := axe_violations(arabic)), found
    german = opened(browser, url + "/data", locale="de-DE")
    german.wait_for_function("document.documentElement.lang === 'de'", timeout=30_000)
    settle(german)
    assert sidebar_header(german) == "Daten"
    assert "Zufallsstartwert" in german.locator("[data-testid=stSidebar]").inner_text()
    french = opened(browser, url + "/data", locale="pt-BR")
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
