"""#73 item 4: a lesson file carries its texts per language; it may have one language only, and a reader of a
language it lacks reads it in its own.  Hostile texts are refused in every language."""

from pathlib import Path

import pytest

from mvlab.lessons.lesson_file import check_lesson_file, export_lesson, read_lesson

FIRST = (Path(__file__).resolve().parent.parent / "mvlab" / "lessons" / "examples" / "first-lesson.yaml").read_text()

GERMAN = FIRST.replace(
    "title: Do a forest's neighbours share a tumour's diagnosis?",
    "title:\n  en: Do a forest's neighbours share a tumour's diagnosis?\n"
    "  de: Teilen die Nachbarn eines Waldes die Diagnose eines Tumors?").replace(
    "  - title: The dissimilarity matrix\n",
    "  - title: {en: The dissimilarity matrix, de: Die Unähnlichkeitsmatrix}\n").replace(
    "      choices: [Everywhere, In one block per diagnosis, Nowhere]",
    "      choices: [{en: Everywhere, de: Überall}, {en: In one block per diagnosis, de: In einem Block je Diagnose},"
    " Nowhere]")


def problems_of(text: str):
    _, problems = check_lesson_file(text.encode(), data=False)
    return problems


def test_a_lesson_reads_in_each_language_it_has_and_falls_back_to_its_own():
    """Broken once: ``in_language`` that dropped the choices' translations showed the German step with English
    choices."""
    lesson = read_lesson(GERMAN.encode(), data=False)
    assert lesson.language == "en" and lesson.languages == ("en", "de")
    german = lesson.in_language("de")
    assert german.title == "Teilen die Nachbarn eines Waldes die Diagnose eines Tumors?"
    assert german.steps[0].title == "Die Unähnlichkeitsmatrix"
    assert german.steps[0].question.choices == ("Überall", "In einem Block je Diagnose", "Nowhere")
    assert german.steps[0].text == lesson.steps[0].text  # not translated: the lesson's own
    assert german.steps[1] == lesson.steps[1]
    assert german.steps[0].run is lesson.steps[0].run and german.steps[0].figures == lesson.steps[0].figures
    assert german.steps[0].question.answer == lesson.steps[0].question.answer  # answers count across languages
    assert lesson.in_language("fr") is lesson and lesson.in_language("en") is lesson
    assert lesson.title == "Do a forest's neighbours share a tumour's diagnosis?"


def test_a_lesson_written_in_another_language_is_read_in_it():
    spanish = FIRST.replace("format: 1\n", "format: 1\nlanguage: es\n").replace(
        "title: Do a forest's neighbours share a tumour's diagnosis?",
        "title: ¿Comparten los vecinos de un bosque el diagnóstico de un tumor?")
    lesson = read_lesson(spanish.encode(), data=False)
    assert lesson.language == "es" and lesson.languages == ("es",) and lesson.title.startswith("¿Comparten")


def test_an_export_keeps_every_language_and_reads_back_the_same():
    """Broken once: the export wrote the lesson's own texts only and the German ones were lost on a round trip
    (the editor's starting point is an export)."""
    lesson = read_lesson(GERMAN.encode(), data=False)
    again = read_lesson(export_lesson(lesson).encode(), data=False)
    assert again.languages == lesson.languages
    assert again.in_language("de").steps[0] == lesson.in_language("de").steps[0]
    assert again.in_language("de").title == lesson.in_language("de").title


@pytest.mark.parametrize("change, words, line", [
    # a per-language text without the lesson's own language
    (lambda t: t.replace("{en: The dissimilarity matrix, de: Die Unähnlichkeitsmatrix}",
                         "{de: Die Unähnlichkeitsmatrix}"), "needs one in the lesson's own language ('en')", 13),
    # a language mvlab does not speak
    (lambda t: t.replace("de: Die Unähnlichkeitsmatrix", "xx: Die Matrix"), "is not a language mvlab speaks", 13),
    # raw HTML in the German text only
    (lambda t: t.replace("de: Die Unähnlichkeitsmatrix", "de: <img src=x onerror=alert(1)>"), "raw HTML", 13),
    # a link to javascript: in a German choice
    (lambda t: t.replace("de: Überall", "de: '[Überall](javascript:alert(1))'"), "links may only go to", 19),
    # the lesson's own language unknown
    (lambda t: t.replace("format: 1\n", "format: 1\nlanguage: klingon\n"), "is not a language mvlab speaks", 2),
    # a text that is neither a text nor one per language
    (lambda t: t.replace("{en: The dissimilarity matrix, de: Die Unähnlichkeitsmatrix}", "[a, b]"), "must be a text",
     13),
])
def test_a_wrong_text_in_any_language_is_said_with_its_line(change, words, line):
    """Each case says what is wrong and where; nothing is read.  Broken once: the text checks read only plain
    texts, so raw HTML in a German text passed."""
    problems = problems_of(change(GERMAN))
    assert problems, "the file was accepted"
    assert any(words in p.message and p.line == line for p in problems), [str(p) for p in problems]


def test_a_class_reads_one_lesson_each_in_their_own_language(monkeypatch):
    """On the Lessons page: a German reader reads the added lesson's German title and choices, a Spanish reader
    (Spanish offered, the lesson has none) reads it in English, told in Spanish which languages it has, and an
    English reader sees it as written.  Broken once: the page drew the lesson as read from the store, in its own
    language, for everyone."""
    import os

    from conftest import lessons_session, step_titles
    from mvlab.i18n import languages
    from mvlab.lessons.added import add_lesson

    monkeypatch.setattr(languages, "OFFERED", ("en", "de", "es"))
    add_lesson(GERMAN.encode(), {}, "first.yaml", location=os.environ["MVLAB_STORE"])
    german = lessons_session(lesson="tumour-neighbours", lang="de")
    assert step_titles(german)[0] == "Die Unähnlichkeitsmatrix"
    assert any(o.endswith("Überall") for r in german.radio for o in r.options), "the German choices are not shown"
    assert any("Englisch und Deutsch" in c.value for c in german.caption)
    spanish = lessons_session(lesson="tumour-neighbours", lang="es")
    assert step_titles(spanish)[0] == "The dissimilarity matrix"
    assert any("se muestra en inglés" in c.value for c in spanish.caption)
    english = lessons_session(lesson="tumour-neighbours")
    assert step_titles(english)[0] == "The dissimilarity matrix"
    assert any("English and German" in c.value for c in english.caption)


def test_the_handout_speaks_its_readers_language():
    """A German reader's handout: the lesson's German texts, the handout's own words in German, ``lang="de"``; an
    Arabic reader's is laid out right to left.  Broken once: the handout said ``lang='en'`` and "Show the answer"
    whatever its reader's language."""
    from mvlab.i18n import use_language
    from mvlab.lessons.handout import render_handout

    lesson = read_lesson(GERMAN.encode(), data=False)
    with use_language("de"):
        page = render_handout(lesson.in_language("de"), {})
    assert "<html lang='de' dir='ltr'>" in page and "<summary>Antwort zeigen</summary>" in page
    assert "Die Unähnlichkeitsmatrix" in page and "Schritt 1 von 2" in page and "2 Schritte." in page
    assert "Show the answer" not in page
    with use_language("ar"):
        assert "<html lang='ar' dir='rtl'>" in render_handout(lesson, {})


@pytest.mark.parametrize("lesson_id", ["proximity", "dvs", "ofsp", "siamese"])
def test_a_built_in_lesson_has_every_text_in_each_language_it_has(lesson_id):
    """The four built-in lessons are in five languages: each of their texts is given in all five (a reader
    never meets their English in the middle of another language), and what a reader of each reads differs from the
    English where words are more than names.  Broken once: a step's 'notice' left in English only passed the lesson's
    checks (a text may fall back) but failed here."""
    import yaml

    from mvlab.lessons import BUILTIN_DIR, LESSONS

    lesson = LESSONS[lesson_id]
    assert lesson.languages == ("en", "de", "fr", "es", "ar")
    doc = yaml.safe_load((BUILTIN_DIR / f"{lesson_id}.yaml").read_text(encoding="utf-8"))

    def texts(value, key=None):
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("title", "summary", "text", "prompt", "why", "notice", "mistake", "caption"):
                    yield k, v
                else:
                    yield from texts(v, k)
        elif isinstance(value, list):
            for v in value:
                yield from (("choice", v),) if key == "choices" else texts(v)

    for where, text in texts(doc):
        assert isinstance(text, dict) and set(text) == set(lesson.languages), (where, text)
    for code in lesson.languages[1:]:
        read = lesson.in_language(code)
        for mine, english in zip(read.steps, lesson.steps):
            assert all(a != b for a, b in ((mine.title, english.title), (mine.text, english.text),
                                           (mine.question.prompt, english.question.prompt),
                                           (mine.question.why, english.question.why), (mine.notice, english.notice),
                                           (mine.mistake, english.mistake))), (code, english.title)


def test_a_figures_title_is_read_in_the_readers_language_and_built_apart():
    """A figure's title given per language (the Siamese lesson's weight plots): a German reader's figure is titled in
    German, and its figures are built under a key of their own (the server builds a step's figures once and shares
    them).  Broken once: the step's figures' key without the language served the English figure to German readers."""
    from mvlab.lessons import LESSONS
    from mvlab.ui.lesson_step import items_key

    lesson = LESSONS["siamese"]
    german = lesson.in_language("de")
    assert dict(german.steps[2].figures[0].params)["title"].startswith("SDF-Baumgewichte, λ = 1 ")
    assert dict(lesson.steps[2].figures[0].params)["title"].startswith("SDF tree weights, λ = 1 ")

    run = lesson.steps[2].run

    class Ctx:
        settings, data = run.settings, run.data()

    key = lambda les: items_key(les, 3, les.steps[2], Ctx())  # noqa: E731
    assert key(german) != key(lesson) and key(lesson.in_language("fr")) != key(german)
