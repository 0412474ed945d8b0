"""A class round in a real browser (Debian's Chromium, the real engine): a teacher starts a round, six
students open its link and answer step 2 (two change their minds); the teacher's view shows "6 answered"
with the right distribution within 2 s (+1 s for this test's own looking) and without a click; the teacher
reveals and moves everyone on, and every student page shows the answer, then step 3, without a click.

The issue's bound for those two is 2 s. Here seven Chromium tabs share the machine's 2 cores with the server
(in class, every student has their own device): in the runs of 2026-11-25 every page had the answer and the
next step within 0.2-2.1 s in most runs, but a tab drawing the revealed figures sometimes took 5-7 s, so this
test holds them to ``CROWDED`` seconds and prints the arrivals; the 2 s bound belongs to a measurement of the
server alone."""

import time
from urllib.parse import quote

import pytest

from axe import violations as axe_violations
from browser import CHROMIUM, CHROMIUM_ARGS, browser_tests_mark, exceptions, running_app, screenshot, settle
from mvlab.lessons import get_lesson
from mvlab.lessons.step_results import warm
from mvlab.store import ClassRounds, ResultsStore

pytestmark = browser_tests_mark()

LIVE = 2.0  # seconds: the bound for the teacher's count, the reveal and the next step to arrive
CROWDED = 12.0  # seconds: the reveal and the next step in seven tabs on two cores (see the module's docstring)


@pytest.fixture(scope="module")
def browser():
    """Seven people, seven screens: every tab is in front, so no tab's timers are throttled as a hidden
    tab's would be (the live parts are the browser's own timers)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS + [
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("rounds") / "results.sqlite"
    warm(get_lesson("ofsp"), ResultsStore(store), say=lambda line: None)
    with running_app(store, MVLAB_WORKERS="1", MVLAB_DASHBOARD="off") as url:
        yield url, store


def open_tab(browser, address):
    page = browser.new_context(viewport={"width": 1300, "height": 1800}).new_page()
    page.goto(address)
    page.wait_for_selector("h1", timeout=120_000)
    settle(page)
    return page


def arrivals(pages, selector: str, timeout: float = 20.0) -> list[float]:
    """Seconds until ``selector`` shows on each page, every page looked at in turn every 50 ms (no click)."""
    start, seen = time.perf_counter(), {}
    while len(seen) < len(pages) and time.perf_counter() - start < timeout:
        for i, page in enumerate(pages):
            if i not in seen and page.locator(selector).count():
                seen[i] = time.perf_counter() - start
        time.sleep(0.05)
    assert len(seen) == len(pages), f"{len(pages) - len(seen)} page(s) never showed {selector!r}"
    return [seen[i] for i in range(len(pages))]


def test_a_class_round_live(browser, server):
    """A round from the teacher's start to the next step, in Chromium. Among its checks, issue #72 item 5: the round
    panel that opens at the start stays open through the page's next whole runs. Fails when the expander has no key
    of its own (tried: the old expander, expanded only at the first run after the start: folded at the next)."""
    url, store = server
    step2, step3 = get_lesson("ofsp").steps[1], get_lesson("ofsp").steps[2]
    teacher = open_tab(browser, f"{url}/lessons?lesson=ofsp&step=2&teacher=1")
    teacher.get_by_role("button", name="Start a class round").click()
    settle(teacher)
    teacher.wait_for_url("**round=*", timeout=30_000)
    code = teacher.url.split("round=")[1].split("&")[0]
    students_link = teacher.locator("[data-testid=stCode]").first.inner_text()
    assert f"round={code}" in students_link and "key=" not in students_link
    teacher.wait_for_selector("img[alt^='QR code of the students']", timeout=30_000)  # the students' link as a QR code
    # issue #72 item 5: the panel stays open through the page's next runs (it folded at the first whole run after the
    # start: on a fresh server, a few seconds later); a run of the whole page, as Streamlit's "R" key asks for one
    for _ in range(3):
        teacher.locator("h1").first.click()
        teacher.keyboard.press("r")
        settle(teacher)
        assert teacher.locator("img[alt^='QR code of the students']").is_visible(), "the round panel folded"
    projected_carries_no_key(teacher, code)
    teacher.reload()  # the teacher reloads (or opens a second tab): still the teacher, still no key in sight
    teacher.wait_for_selector("text=Reveal the answer to the class", timeout=60_000)
    settle(teacher)
    projected_carries_no_key(teacher, code)
    assert not (found := axe_violations(teacher, "teacher, round started: ")), found  # WCAG 2.0/2.1 A and AA

    students = [open_tab(browser, f"{url}/lessons?lesson=ofsp&step=2&round={code}") for _ in range(6)]
    choices = [1, 1, 1, 0, 2, 0]
    for page, choice in zip(students, choices):
        answer(page, step2, choice)
    for page, choice in zip(students[4:], (1, 1)):  # two change their minds: their last answer counts
        page.get_by_text(f"({chr(97 + choice)}) {step2.question.choices[choice]}", exact=True).click()
        settle(page)
        page.get_by_role("button", name="Send my new answer").click()
        settle(page)
    students[0].reload()  # a student reloads: the same browser, the same student, the answer shown as sent
    students[0].wait_for_selector("text=Your answer is in", timeout=60_000)
    last_answer = time.perf_counter()
    assert ClassRounds(store).counts(code, 1) == {1: 5, 0: 1}

    teacher.bring_to_front()  # plotly draws on animation frames: only in the tab in front
    teacher.wait_for_function(
        "[...document.querySelectorAll('.js-plotly-plot')].some(p => p.layout && p.layout.title && "
        "String(p.layout.title.text).includes('6 answered') && JSON.stringify([...p.data[0].x]) === '[1,5,0]')",
        timeout=20_000)
    took = time.perf_counter() - last_answer
    assert took <= LIVE + 1.0, took  # the count and the distribution arrived without a click

    teacher.get_by_role("button", name="Reveal the answer to the class").click()
    took = arrivals(students, f"text=Answer: ({chr(97 + step2.question.answer)})")
    print(f"reveal reached the six students after {[round(t, 2) for t in took]} s")
    assert max(took) <= CROWDED, took  # every student page, without a click
    screenshot(students[0], "round_student_revealed")
    assert not (found := axe_violations(students[0], "student, revealed: ")), found

    for page in students:  # the class looks at the figures and discusses before the teacher moves on
        page.bring_to_front()
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 2", timeout=30_000)
    teacher.bring_to_front()
    teacher.get_by_role("button", name="Next step for everyone →").click()
    took = arrivals(students, f"h2:has-text('{step3.title}')")
    print(f"the next step reached the six students after {[round(t, 2) for t in took]} s")
    assert max(took) <= CROWDED, took
    screenshot(teacher, "round_teacher")
    assert not any(exceptions(p) for p in students + [teacher])
    assert not (found := axe_violations(teacher, "teacher, next step: ")), found
    assert not (found := axe_violations(students[1], "student, next step: ")), found
    for page in students + [teacher]:
        page.context.close()


def projected_carries_no_key(teacher, code: str) -> None:
    """What the teacher's tab shows and its address carry nothing of the round's teacher key (the key the browser
    keeps in its cookie): a student who photographs the projector cannot act as the teacher. Fails when the
    teacher's own link is drawn or the address keeps ``key=`` (tried: the old caption put back)."""
    keys = [c["value"] for c in teacher.context.cookies() if c["name"] == f"mvlab_teacher_{code}"]
    assert keys, "the teacher's browser keeps no key: a reload would lose the round"
    shown = teacher.evaluate("document.body.innerText") + teacher.url
    assert "key=" not in teacher.url and keys[0] not in shown
    assert keys[0] not in teacher.evaluate("[...document.querySelectorAll('[data-testid=stMain] *')]"
                                           ".map(e => e.innerText + [...e.attributes].map(a => a.value).join(' '))"
                                           ".join(' ')")


def answer(page, step, choice: int) -> None:
    """A student picks ``choice`` on ``step`` and sends it."""
    page.get_by_text(f"({chr(97 + choice)}) {step.question.choices[choice]}", exact=True).click()
    settle(page)
    page.get_by_role("button", name="Send my answer").click()
    settle(page)
    page.wait_for_selector("text=Your answer is in", timeout=30_000)


def test_two_servers_on_one_store_count_one_class(browser, server):
    """A class served by two Streamlit processes (two `make run` servers on one results store): the students of
    each send their answers to their own server, and the teacher's view on the first counts them all."""
    url, store = server
    step2 = get_lesson("ofsp").steps[1]
    started = ClassRounds(store).start("ofsp", step=1)  # as a teacher's button starts it; this test holds its key
    teacher_key, code = started.key, started.round.code
    with running_app(store, MVLAB_WORKERS="1", MVLAB_DASHBOARD="off") as second:
        students = [open_tab(browser, f"{address}/lessons?lesson=ofsp&step=2&round={code}")
                    for address in (url, second, second)]
        for page, choice in zip(students, (1, 0, 1)):
            answer(page, step2, choice)
        assert ClassRounds(store).counts(code, 1) == {1: 2, 0: 1}
        teacher = open_tab(browser, f"{url}/lessons?lesson=ofsp&step=2&teacher=1&round={code}&key={teacher_key}")
        teacher.wait_for_function(
            "[...document.querySelectorAll('.js-plotly-plot')].some(p => p.layout && p.layout.title && "
            "String(p.layout.title.text).includes('3 answered'))", timeout=20_000)
        assert not any(exceptions(p) for p in students + [teacher])
        for page in students + [teacher]:
            page.context.close()


def test_a_round_through_the_proxy_with_the_teacher_and_the_students_on_different_processes(browser, tmp_path):
    """`python -m mvlab serve --processes 2`: nginx in front of two Streamlit processes on one store. The teacher's
    browser lands on one process, the students' on the other (the proxy's cookie, set here to a key known to land
    there); the teacher starts the round in the browser, the students answer, the teacher sees them, reveals and
    moves the class, and every student page follows without a click."""
    from test_serve import keys_for_each_process

    from mvlab.deploy.serve import COOKIE, serving

    store = tmp_path / "results.sqlite"
    warm(get_lesson("ofsp"), ResultsStore(store), say=lambda line: None)
    step2, step3 = get_lesson("ofsp").steps[1], get_lesson("ofsp").steps[2]
    mp = pytest.MonkeyPatch()
    mp.setenv("MVLAB_WORKERS", "1")
    try:
        with serving(2, store=str(store), env={"MVLAB_WORKERS": "1"}, say=lambda line: None) as served:
            on = keys_for_each_process(served.url, 2)
            teacher_process, student_process = sorted(on)

            def tab(cookie, address):
                context = browser.new_context(viewport={"width": 1300, "height": 1800})
                context.add_cookies([{"name": COOKIE, "value": cookie.split("=", 1)[1], "url": served.url}])
                page = context.new_page()
                response = page.goto(address)
                page.wait_for_selector("h1", timeout=120_000)
                settle(page)
                return page, response.headers["x-mvlab-server"]

            teacher, where = tab(on[teacher_process], f"{served.url}/lessons?lesson=ofsp&step=2&teacher=1")
            assert where == teacher_process
            teacher.get_by_role("button", name="Start a class round").click()
            settle(teacher)
            teacher.wait_for_url("**round=*", timeout=30_000)
            code = teacher.url.split("round=")[1].split("&")[0]
            students = []
            for _ in range(3):
                page, where = tab(on[student_process], f"{served.url}/lessons?lesson=ofsp&step=2&round={code}")
                assert where == student_process  # the other process than the teacher's
                students.append(page)
            for page, choice in zip(students, (1, 1, 0)):
                answer(page, step2, choice)
            teacher.bring_to_front()
            teacher.wait_for_function(
                "[...document.querySelectorAll('.js-plotly-plot')].some(p => p.layout && p.layout.title && "
                "String(p.layout.title.text).includes('3 answered'))", timeout=20_000)
            teacher.get_by_role("button", name="Reveal the answer to the class").click()
            arrivals(students, f"text=Answer: ({chr(97 + step2.question.answer)})", timeout=CROWDED)
            teacher.bring_to_front()
            teacher.get_by_role("button", name="Next step for everyone →").click()
            took = arrivals(students, f"h2:has-text('{step3.title}')", timeout=CROWDED)
            print(f"through the proxy, the next step reached the students after {[round(t, 2) for t in took]} s")
            assert not any(exceptions(p) for p in students + [teacher])
            for page in students + [teacher]:
                page.context.close()
    finally:
        mp.undo()


def test_a_student_on_a_phone(browser, server):
    """A phone (390 x 844, touch, a mobile browser): the question, the choices, *Send my answer*, "your answer
    is in", the class's distribution and the next step, each in view without sideways scrolling, answered by
    taps; the figures leave a finger's drag to the page (no drag mode)."""
    url, store = server
    step2, step3 = get_lesson("ofsp").steps[1], get_lesson("ofsp").steps[2]
    started = ClassRounds(store).start("ofsp", share=True, step=1)
    code, key = started.round.code, started.key
    ClassRounds(store).answer(code, "someone-else", 1, 0)
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True,
                                  has_touch=True, user_agent=PHONE)
    page = context.new_page()
    page.goto(f"{url}/lessons?lesson=ofsp&step=2&round={code}")
    page.wait_for_selector("h1", timeout=120_000)
    settle(page)
    no_sideways = "document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth + 1"
    assert page.evaluate(no_sideways), "the student's page scrolls sideways on a phone"
    page.get_by_text(step2.question.prompt[:40]).first.wait_for()
    choice = page.get_by_text(f"(b) {step2.question.choices[1]}", exact=True)
    choice.scroll_into_view_if_needed()
    choice.tap()
    settle(page)
    send = page.get_by_role("button", name="Send my answer")
    send.scroll_into_view_if_needed()
    assert _fits(page, send)
    send.tap()
    settle(page)
    page.wait_for_selector("text=Your answer is in", timeout=30_000)
    page.wait_for_selector("caption:has-text(\"The class's answers: 2 answered\")", timeout=20_000)  # HTML bars
    assert ClassRounds(store).counts(code, 1) == {0: 1, 1: 1}
    assert page.evaluate(no_sideways)
    assert page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].every(p => p.layout.dragmode === false)")
    screenshot(page, "round_student_phone_waiting")
    assert not (found := axe_violations(page, "phone, answered: ")), found  # WCAG 2.0/2.1 A and AA

    ClassRounds(store).reveal(code, key, 1)
    page.wait_for_selector(f"text=Answer: ({chr(97 + step2.question.answer)})", timeout=20_000)
    settle(page)
    assert page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].length >= 1")
    assert page.locator("caption", has_text="The class's answers: 2 answered").count() == 1
    assert page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].every(p => p.layout.dragmode === false)")
    assert page.evaluate(no_sideways)
    screenshot(page, "round_student_phone_revealed")
    assert not (found := axe_violations(page, "phone, revealed: ")), found  # the answer, the figure's text, the chart
    # a finger dragging up across a figure's plot area scrolls the page (with plotly's default drag mode the same
    # drag zooms the figure and the page stays where it is: tried with a desktop browser's User-Agent)
    page.evaluate("document.querySelector('.js-plotly-plot .nsewdrag').scrollIntoView({block: 'center'})")
    page.wait_for_timeout(300)
    plot = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    before = page.evaluate(SCROLLED)
    assert page.evaluate(ROOM) > 100, "nothing below the figure to scroll to"
    finger_drag(context.new_cdp_session(page), plot["x"] + plot["width"] / 2, plot["y"] + plot["height"] / 2, -200)
    page.wait_for_timeout(500)
    assert page.evaluate(SCROLLED) > before + 50, "the figure took the finger's drag: the page did not scroll"
    ClassRounds(store).move_to(code, key, 2)
    page.wait_for_selector(f"h2:has-text('{step3.title}')", timeout=20_000)
    settle(page)
    assert page.evaluate(no_sideways)
    screenshot(page, "round_student_phone_next_step")
    assert not exceptions(page)
    context.close()


SCROLLED = "Math.max(window.scrollY, ...[...document.querySelectorAll('*')].map(e => e.scrollTop))"
ROOM = ("Math.max(...[document.scrollingElement, ...document.querySelectorAll('*')].filter(e => e.scrollHeight > "
        "e.clientHeight + 1 && getComputedStyle(e).overflowY !== 'hidden').map(e => e.scrollHeight - e.clientHeight "
        "- e.scrollTop))")
PHONE = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 "
         "Mobile Safari/537.36")


def finger_drag(cdp, x: float, y: float, dy: float, steps: int = 10) -> None:
    """One finger put down at (x, y), moved by ``dy`` pixels in ``steps`` moves, lifted (Chromium's touch
    input, as a phone's screen sends it)."""
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, steps + 1):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y + dy * i / steps}]})
        time.sleep(0.016)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _fits(page, locator) -> bool:
    """The element lies within the phone's width."""
    box = locator.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"] + 1


FOCUSED = """() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const name = (el.getAttribute('aria-label') || el.innerText || el.closest('label')?.innerText || el.value || '')
        .trim().slice(0, 120);
    return {tag: el.tagName, role: el.getAttribute('role') || el.type || '', name};
}"""
LOOK = """(el) => {
    // How the control looks: outline, ring (box-shadow) and border of the element, and of its label's parts (a
    // radio's input is hidden; its ring is drawn on the label)
    const label = el.closest('label');
    const nodes = [el, ...(label ? [label, ...label.querySelectorAll('*')] : [])];
    return nodes.map(n => { const s = getComputedStyle(n);
        return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.borderColor].join(' '); }).join(';');
}"""


def tab_to(page, wanted, most: int = 120) -> dict:
    """Press Tab until the focused element's name contains ``wanted``; there, the control must look different with
    the focus than without it (a visible focus indicator: WCAG 2.4.7)."""
    for _ in range(most):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused and wanted in focused["name"]:
            control = page.evaluate_handle("document.activeElement")
            with_focus = page.evaluate(LOOK, control)
            page.evaluate("(el) => el.blur()", control)
            page.wait_for_timeout(100)
            without = page.evaluate(LOOK, control)
            assert with_focus != without, f"the focus does not show on {focused}"
            control.as_element().focus()  # back where the keyboard had put it
            return focused
    raise AssertionError(f"{most} Tabs never reached {wanted!r}")


def test_a_round_by_keyboard_alone_with_the_focus_visible(browser, server):
    """Issue #47: a student answers with Tab, arrows/Space and Enter, and the teacher reveals the answer and moves
    the class on with Tab and Enter; no mouse, and every control shows where the focus is."""
    url, store = server
    step2, step3 = get_lesson("ofsp").steps[1], get_lesson("ofsp").steps[2]
    started = ClassRounds(store).start("ofsp", step=1)
    code, key = started.round.code, started.key
    student = open_tab(browser, f"{url}/lessons?lesson=ofsp&step=2&round={code}")
    teacher = open_tab(browser, f"{url}/lessons?lesson=ofsp&step=2&teacher=1&round={code}&key={key}")

    student.bring_to_front()
    first = tab_to(student, step2.question.choices[0])  # the radio group: its first choice
    assert first["role"] == "radio"
    student.keyboard.press("ArrowDown")  # the next choice, (b)
    settle(student)
    tab_to(student, "Send my answer")
    student.keyboard.press("Enter")
    settle(student)
    student.wait_for_selector("text=Your answer is in", timeout=30_000)
    assert ClassRounds(store).counts(code, 1) == {1: 1}  # (b), chosen with the arrow key

    teacher.bring_to_front()
    teacher.wait_for_selector("text=1 answered", timeout=20_000)
    tab_to(teacher, "Reveal the answer to the class")
    teacher.keyboard.press("Enter")
    settle(teacher)
    student.wait_for_selector(f"text=Answer: ({chr(97 + step2.question.answer)})", timeout=20_000)
    tab_to(teacher, "Next step for everyone")
    teacher.keyboard.press("Enter")
    student.wait_for_selector(f"h2:has-text('{step3.title}')", timeout=20_000)
    assert ClassRounds(store).get(code).step == 2
    assert not exceptions(student) and not exceptions(teacher)
    for page in (student, teacher):
        page.context.close()


def test_an_addresss_values_are_drawn_as_text_never_as_links_or_markup(browser, server):
    """What the browser draws of a hostile address: no link, no bold, no icon, no colour, the characters as they were
    typed, and still there once the page has run again. Fails when a note goes to Markdown as it is, or with
    backslashes alone (tried: the word joiners of markdown_literal removed: http://… and www.… were drawn as links
    and :material/key: as an icon), and when the notes go with the next run (tried: the page without
    address_notes: they showed for an instant, then the rewritten address had nothing to say)."""
    url, _ = server
    hostile = {"lesson": "[w](http://e.example)**b**", "step": ":red[r]:material/key:www.e.example", "round": "me@e.ex"}
    page = open_tab(browser, f"{url}/lessons?" + "&".join(f"{k}={quote(v)}" for k, v in hostile.items()))
    alerts = page.locator("[data-testid=stAlert]")
    page.wait_for_function("[...document.querySelectorAll('[data-testid=stAlert]')].map(a => a.innerText)"
                           ".join(' ').replaceAll('\u2060', '').includes('me@e.ex')", timeout=30_000)
    page.wait_for_timeout(3000)  # the runs after the first (the page switch, the rewritten address) keep them
    text = " ".join(alerts.all_inner_texts()).replace("\u2060", "")
    assert all(value in text for value in hostile.values()), text
    for markup in ("a", "strong", "em", "span[data-testid=stIconMaterial]", "span[style*=color]"):
        assert alerts.locator(markup).count() == 0, (markup, alerts.locator(markup).all_inner_texts())
    page.context.close()



def test_the_teacher_link_opened_on_another_device_leaves_no_key_in_the_history(browser, server, tmp_path):
    """Issue #71 item 5: the teacher link of the downloaded file carries the key in its fragment, which the browser
    never sends (no server, proxy log or ``Referer`` sees it); opened from the file on another device, the page keeps
    the key in the round's teacher cookie and replaces the history entry before reloading, so that tab controls the
    round and no address of its history, *Back* or *Forward*, holds the key. Fails when the link carries ``key=`` in
    its query (tried: round_panel's teacher_query with "&key=": the key was in the address the server received; with
    Streamlit 1.67 its own history entry did not keep it on *Back*, which the review had seen, nor does it now)."""
    import re
    import shutil

    url, store = server
    started = ClassRounds(store).start("ofsp", step=1)
    code, key = started.round.code, started.key
    first = open_tab(browser, f"{url}/lessons?lesson=ofsp&step=2&teacher=1&round={code}&key={key}")
    with first.expect_download() as download:
        first.get_by_role("button", name="Teacher link for another device (a file)").click()
    saved = tmp_path / "teacher-link.html"
    shutil.copy(download.value.path(), saved)
    first.context.close()
    link = re.search(r'href="([^"]+)"', saved.read_text()).group(1).replace("&amp;", "&")
    assert link.endswith(f"#mvlab_key={key}") and "key=" not in link.split("#")[0], link
    other = browser.new_context(viewport={"width": 1300, "height": 1800}).new_page()  # another device: no cookie
    other.goto(saved.as_uri())
    other.get_by_role("link").click()
    other.get_by_role("button", name="Reveal the answer to the class").wait_for(timeout=60_000)
    settle(other)
    projected_carries_no_key(other, code)
    visited = [other.url]
    for move in (other.go_back, other.go_forward):
        move()
        settle(other)
        visited.append(other.url)
    assert not any(key in u or "mvlab_key" in u for u in visited), visited
    assert visited[1] == saved.as_uri()  # Back leads to the file: no entry of the round's address with the key
    other.get_by_role("button", name="Reveal the answer to the class").wait_for(timeout=60_000)
    assert not exceptions(other)
    other.context.close()
