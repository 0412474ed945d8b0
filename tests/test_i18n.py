"""mvlab.i18n (#73): the catalogues in step with the code, each person's language chosen only among those offered
whatever the browser sends, and two sessions of one process in two languages at once."""

import ast
import io
import re
import threading
from pathlib import Path

import pytest
from babel.messages.pofile import read_po, write_po
from hypothesis import given, settings
from hypothesis import strategies as st

from mvlab.i18n import (
    LANGUAGES,
    _,
    catalogue,
    extract,
    format_list,
    format_number,
    format_percent,
    language_of,
    languages,
    negotiate,
    ngettext,
)
from mvlab.i18n.catalogue import use_language

ROOT = Path(__file__).resolve().parent.parent


def test_the_catalogues_are_in_step_with_the_code():
    """The committed template is the extraction of the code, and every language translates each of its messages
    with the same placeholders, leaving none stale.  Broken once: a new ``_("Forests")`` in the sidebar without a
    catalogue update failed here, the template not being the extraction."""
    assert extract.problems() == []


def _catalogue_with(tmp_path, monkeypatch, code, change):
    """A copy of ``code``'s catalogue changed by ``change(catalog)``, where :func:`extract.problems` reads it."""
    source = extract.po_file(code)
    with source.open("rb") as handle:
        catalog = read_po(handle, locale=code)
    change(catalog)
    out = io.BytesIO()
    write_po(out, catalog, sort_output=True, include_lineno=False, ignore_obsolete=True, width=120)
    copy = tmp_path / f"{code}.po"
    copy.write_bytes(out.getvalue())
    monkeypatch.setattr(extract, "po_file", lambda c: copy if c == code else source.parent.parent.parent / c /
                        "LC_MESSAGES" / "mvlab.po")


@pytest.mark.parametrize("code", ["de", "ar"])
def test_a_missing_a_stale_and_a_wrong_placeholder_translation_are_each_said(tmp_path, monkeypatch, code):
    """What the check above would say for each fault, in words naming the message."""
    def spoil(catalog):
        catalog["Random seed"].string = ""
        catalog["In use: **{name}**: {shape}."].string = "**{name}**: {form}."
        catalog.add("A message the code no longer has", "Eine Meldung")

    _catalogue_with(tmp_path, monkeypatch, code, spoil)
    said = [p for p in extract.problems([code])]
    assert f"{code}: no translation of 'Random seed'." in said
    assert any("the translation of 'In use: **{name}**: {shape}.' has the placeholders" in p for p in said)
    assert any("'A message the code no longer has' is no longer in the code" in p for p in said)
    assert len(said) == 3


def test_a_plural_form_may_say_its_count_in_words_but_keeps_every_other_placeholder(tmp_path, monkeypatch):
    """Arabic says "one" and "two" in words (its forms for 1 and 2 leave ``{n}`` out); a form that drops another
    placeholder is said.  Broken once: comparing every form's placeholders exactly refused Arabic's."""
    key = ("{name} has {n} instance; a smaller stratified sample trains faster.",
           "{name} has {n} instances; a smaller stratified sample trains faster.")

    def spoil(catalog):
        forms = list(catalog[key].string)
        forms[3] = forms[3].replace("{name}", "mfeat")
        catalog[key].string = tuple(forms)

    assert extract.problems(["ar"]) == []
    _catalogue_with(tmp_path, monkeypatch, "ar", spoil)
    assert len(extract.problems(["ar"])) == 1


@given(st.one_of(st.text(max_size=60), st.none(), st.integers(), st.lists(st.text(max_size=12), max_size=4)))
@settings(max_examples=300, deadline=None)
def test_whatever_a_browser_sends_the_language_is_one_offered(value):
    """``?lang=`` and the browser's locale are hostile values: the language chosen is always one of those asked
    among, English when nothing fits.  Broken once: without the ``among`` check in ``language_of`` a language not
    offered (German, its catalogue incomplete) was chosen for "de-DE"."""
    assert negotiate(value, value, among=("en",)) == "en"
    assert negotiate(value, value) in LANGUAGES
    assert language_of(value, ("en", "fr")) in (None, "en", "fr")


def test_tags_name_their_languages_and_nothing_else():
    assert [language_of(t) for t in ("de", "de-DE", "DE_at", "ar-EG", "fr-CA", "es-419")] == \
        ["de", "de", "de", "ar", "fr", "es"]
    assert [language_of(t) for t in ("", "pt-BR", "<script>", "de;q=1", "x" * 40, "d", "deu-DE-" + "a" * 40)] == \
        [None] * 7
    assert negotiate(None, ["pt-BR", "fr-FR", "de"]) == "fr"
    assert negotiate("de", "fr", among=("en", "fr")) == "fr"


def test_two_threads_in_two_languages_at_once_each_see_their_own():
    """Nothing is process-wide: two people served at the same moment by one process read their own languages
    (the dashboard's sessions are threads of one process).  Broken once: a module-level language instead of the
    context variable made the German thread read French."""
    seen, barrier = {}, threading.Barrier(2)

    def serve(code):
        with use_language(code):
            barrier.wait()
            seen[code] = [_("Random seed") for _i in range(200)]

    threads = [threading.Thread(target=serve, args=(c,)) for c in ("de", "fr")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(seen["de"]) == {"Zufallsstartwert"} and set(seen["fr"]) == {"Graine aléatoire"}
    assert _("Random seed") == "Random seed"


def test_counts_numbers_and_lists_follow_each_languages_rules():
    """CLDR through Babel: Arabic's six plural forms, decimal commas, each language's list."""
    forms = {}
    for n in (0, 1, 2, 3, 11, 100):
        with use_language("ar"):
            forms[n] = ngettext("{n} view", "{n} views", n).format(n=n)
    assert forms == {0: "لا مناظير", 1: "منظور واحد", 2: "منظوران", 3: "3 مناظير", 11: "11 منظورًا", 100: "100 منظور"}
    with use_language("de"):
        assert (format_number(0.8537, 2), format_percent(0.853), format_list(["a", "b", "c"])) == \
            ("0,85", "85\u00a0%", "a, b und c")
    with use_language("fr"):
        assert format_number(12345.5) == "12\u202f345,5"
    assert (format_number(0.8537, 2), format_percent(0.853), format_list(["a", "b", "c"])) == ("0.85", "85%",
                                                                                             "a, b, and c")


def test_nothing_sets_the_process_locale():
    """Two sessions in two languages cannot share a process-wide locale: no ``setlocale`` anywhere in mvlab."""
    found = [str(p.relative_to(ROOT)) for p in (ROOT / "mvlab").rglob("*.py")
             if re.search(r"\bsetlocale\s*\(", p.read_text(encoding="utf-8"))]
    assert found == []


def test_a_language_is_offered_only_once_its_catalogue_covers_the_dashboard(monkeypatch):
    """Until a language is complete nobody is served it, whatever the address or browser ask (a German browser
    would otherwise get a page half in German); a translator previews it on a server of their own.  All five are
    complete now (the catalogue test above and the prose test keep them so) and offered."""
    assert languages.offered({}) == tuple(LANGUAGES) == ("en", "de", "fr", "es", "ar")
    unfinished = dict(LANGUAGES, fr=languages.Language("fr", "Français"), ar=languages.Language("ar", "العربية", "rtl"))
    monkeypatch.setattr(languages, "LANGUAGES", unfinished)
    assert languages.offered({}) == ("en", "de", "es")
    # unknown codes are ignored
    assert languages.offered({"MVLAB_PREVIEW_LANGUAGES": "ar, DE,xx,<b>"}) == ("en", "de", "es", "ar")


def test_a_session_reads_its_own_language_and_the_page_says_it(monkeypatch):
    """AppTest sessions of one process asking ``?lang=de``, ``?lang=ar`` and ``?lang=fr`` (not offered here), and
    one without: each sidebar speaks its session's language, the page's ``lang`` and ``dir`` are said (``rtl`` for
    Arabic; nothing for English, which the page already is), a language not offered is ignored, and the English
    session run again after the others is still English.  (AppTest cannot run a page twice once a radio's labels
    are translated: it looks the value's English text up among the labels; the browser test runs them.)  Broken
    once: a session language read from the thread's context (not the session) left the last session's language in
    the next one."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(languages, "OFFERED", ("en", "de", "ar"))
    english = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    english.switch_page("pages/data.py").run()
    for code, header, said in (("de", "Daten", ('"de"', '"ltr"')), ("ar", "البيانات", ('"ar"', '"rtl"')),
                               ("fr", "Data", ())):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.query_params["lang"] = code
        at.run()
        html = " ".join(e.proto.body for e in at.get("html") if "documentElement.lang" in e.proto.body)
        assert all(part in html for part in said) if said else html == "", html
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.query_params["lang"] = code
        at.switch_page("pages/data.py").run()
        assert not at.exception, at.exception
        assert at.sidebar.header[0].value == header
        english.run()
        assert not english.exception and english.sidebar.header[0].value == "Data"


def test_the_extraction_covers_the_dashboards_entry_point():
    """The navigation's titles (app.py) are in the template with the package's messages."""
    template = extract.TEMPLATE.read_text(encoding="utf-8")
    assert "#: app.py" in template and 'msgid "Dynamic view selection"' in template
    assert catalogue.translations("de").gettext("Home") == "Start"


def test_each_pages_prose_has_its_translations_beside_it_with_the_same_placeholders():
    """A page's long text in another language is ``<name>.<lang>.md`` beside the English one: of a language mvlab
    speaks, with the English text's ``{placeholders}``; every text of every page (its header, its "What am I looking
    at?", the home page's introduction, the Papers page's notes) is in all five; the reader's language is read.
    Broken once: ``text_names`` counted ``header.de`` as a text of its own; and once without the German
    ``what_am_i_looking_at.de.md`` of the DVS page."""
    from mvlab.ui.prose import TEXT_DIR, page_text, text_names

    folder = ROOT / "mvlab" / "ui" / TEXT_DIR
    for path in folder.glob("*/*.*.md"):
        name, code = path.name.removesuffix(".md").rsplit(".", 1)
        english = (path.parent / f"{name}.md").read_text(encoding="utf-8")
        assert code in LANGUAGES and code != "en", path
        assert sorted(re.findall(r"\{\w+\}", path.read_text(encoding="utf-8"))) == sorted(
            re.findall(r"\{\w+\}", english)), path
    for page in (p.name for p in folder.iterdir() if p.is_dir()):
        assert all("." not in n for n in text_names(page))
        for code in LANGUAGES:
            if code != "en":
                translated = folder / page / f"header.{code}.md"
                assert translated.is_file() and translated.read_text(encoding="utf-8").startswith("# "), translated
                for name in text_names(page):
                    assert (folder / page / f"{name}.{code}.md").is_file(), (page, name, code)
    with use_language("de"):
        assert page_text("data", "header").startswith("# Daten")
    assert page_text("data", "header").startswith("# Data")


def test_a_figures_words_are_in_each_readers_language_for_one_shared_figure():
    """The sentence that says what a figure shows (its text alternative) in the reader's language, numbers with its
    decimal mark, for one figure shared by every session (a frozen figure's cache keeps one text per language).
    Broken once: the text cached under one name gave the first reader's language to everyone."""
    import plotly.graph_objects as go

    from mvlab.ui.figure_text import figure_text
    from mvlab.viz.frozen import freeze

    figure = freeze(go.Figure(go.Bar(x=["a", "b", "c"], y=[0.25, 0.75, 0.5]), layout={"title": {"text": "T"}}))
    english = figure_text(figure)[0]
    with use_language("de"):
        german = figure_text(figure)[0]
    with use_language("ar"):
        arabic = figure_text(figure)[0]
    assert english == "Figure: T. 3 bars, highest b (0.75), lowest a (0.25)."
    assert german == "Abbildung: T. 3 Balken, höchster b (0,75), niedrigster a (0,25)."
    assert arabic.startswith("الشكل: T. 3 أعمدة") and figure_text(figure)[0] == english


def test_the_class_answers_bars_are_built_once_per_language():
    """The room's answers on a student's phone are built once per server and shared: one per language (broken
    once: the key without the language gave the first reader's words to every student)."""
    from mvlab.lessons import LESSONS
    from mvlab.ui.class_round import class_bars

    step, counts = LESSONS["dvs"].steps[0], {0: 1, 1: 3}
    english = class_bars(step, counts, True)
    with use_language("de"):
        german = class_bars(step, counts, True)
    assert "The class's answers: 4 answered" in english and "3 (75 %)  ✓ right" in english
    assert "Die Antworten der Klasse: 4 haben geantwortet" in german and "✓ richtig" in german


def test_a_message_made_once_is_said_in_each_readers_language():
    """A text made once and shown later (a synthetic dataset's description, made when the data are generated) is its
    English as a ``str`` for the command line and a CSV, and said in each reader's language, its values too (a
    nested message), after a pickle (a dataset crosses to the engine's workers).  Broken once: ``said`` looked the
    English text up as it was, and the German reader read English."""
    import pickle

    from mvlab.datasets.synthetic import make_multiview_classification
    from mvlab.i18n import N_, Message, said

    ds = make_multiview_classification(n_samples=60, n_views=3, relevance="region", random_state=0)
    assert isinstance(ds.description, Message) and ds.description.startswith("Synthetic (region-structured")
    assert str(ds.description) == ds.description and "a random class" in ds.description
    again = pickle.loads(pickle.dumps(ds.description))
    with use_language("de"):
        german = said(again)
        assert german == said(ds.description) and "Synthetisch" in german and "3" in german
        assert "a random class" not in german and said(Message(N_("a random class"))) in german
        assert said("a user's own words") == "a user's own words"
    assert said(again) == ds.description


def test_a_shared_figure_is_built_once_per_language_with_its_readers_number_marks():
    """A result's figure shared by every session (``shared.figure``) is built once per language: its words are
    built in the reader's language and its hover values and ticks use the reader's decimal mark (plotly's
    ``layout.separators``).  Broken once: the key without the language gave a German class the English figure."""
    import plotly.graph_objects as go

    from mvlab.ui import shared

    built = []

    def build():
        built.append(catalogue.current_language())
        return go.Figure(go.Bar(x=[_("Train")], y=[0.5]))

    english = shared.figure("test_i18n_figure", ["key"], build)
    with use_language("de"):
        german = shared.figure("test_i18n_figure", ["key"], build)
        assert shared.figure("test_i18n_figure", ["key"], build) is german
    assert shared.figure("test_i18n_figure", ["key"], build) is english
    assert built == ["en", "de"]
    assert english.layout.separators == ".," and german.layout.separators == ",."
    assert list(german.data[0].x) == ["Trainieren"] and list(english.data[0].x) == ["Train"]


def test_a_pages_tables_and_controls_help_are_in_the_readers_language():
    """A result table's column names and yes/no, and a control's help (an estimator's own parameter doc, the page's
    narrower range with its numbers) are said in the reader's language; a CSV's columns stay the library's English.
    Broken once: ``field_help`` returned the English help kept in the field's metadata."""
    import pandas as pd

    from mvlab.experiments.settings import DissimilaritySettings, help_messages
    from mvlab.ui.tables import readable
    from mvlab.ui.widgets import field_help

    frame = pd.DataFrame({"test accuracy": [0.5], "significant": [True], "w[v1]": [0.25]})
    assert list(readable(frame).columns) == ["test accuracy", "significant", "w[v1]"]
    english_help = field_help(DissimilaritySettings, "kdn_k")
    assert "This page allows 1 to 50" in english_help
    with use_language("de"):
        shown = readable(frame)
        german_help = field_help(DissimilaritySettings, "kdn_k")
    assert list(shown.columns) == [_t("de", "test accuracy"), _t("de", "significant"), "w[v1]"]
    assert shown.iloc[0, 1] == _t("de", "yes") != "yes" and "test accuracy" not in shown.columns
    assert german_help != english_help and "50" in german_help and "This page allows" not in german_help
    assert list(frame.columns) == ["test accuracy", "significant", "w[v1]"]  # the frame itself (a CSV) unchanged
    template = extract.TEMPLATE.read_text(encoding="utf-8")
    assert all(f'msgid "{m[:30]}' in template.replace('"\n"', "") for m in help_messages())


def _t(code: str, message: str) -> str:
    return catalogue.translations(code).gettext(message)


_SHOWN_BY = {"markdown", "caption", "info", "warning", "error", "success", "subheader", "header", "title", "button",
             "toggle", "checkbox", "radio", "selectbox", "multiselect", "slider", "select_slider", "number_input",
             "text_input", "text_area", "expander", "metric", "download_button", "file_uploader", "write",
             "link_button", "tabs", "toast", "spinner", "form_submit_button", "popover", "status", "pills",
             "segmented_control"}
_TRANSLATING = {"_", "gettext", "ngettext", "N_", "said", "page_text", "markdown_literal"}
_SENTENCE = re.compile(r"(?<![-_A-Za-z{])[a-z]{3,}(?![-_A-Za-z}])")


def _english_in(node) -> list[str]:
    """The English words of ``node`` that no translating call wraps: string constants (and an f-string's constant
    parts) with two lower-case words or more, outside ``_()``, ``gettext()``, ``said()``, ``page_text()``, ...;
    HTML, CSS and icon codes are no sentences."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in _TRANSLATING:
        return []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _english_in(node.func.value)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        return [text] if len(_SENTENCE.findall(text)) >= 2 and not text.lstrip().startswith(("<", ":material")) \
            else []
    if isinstance(node, (ast.JoinedStr, ast.BinOp, ast.IfExp, ast.FormattedValue)):
        return [w for child in ast.iter_child_nodes(node) for w in _english_in(child)]
    return []


def test_no_page_shows_a_sentence_left_out_of_the_catalogue():
    """Every text a page gives Streamlit to show (a Markdown line, a caption, a message, a label or help of a
    widget) goes through the catalogue: no English sentence written straight into a ``st.*`` call in mvlab/ui,
    app.py or pages/ (the browser test of the translations reads the pages it opens; this reads the code of every
    one, results and rare messages included).  Broken once: the Benchmark page's "The benchmark's runs cannot be
    started or shown until it is back" written without ``_()``."""
    found = []
    files = [*sorted((ROOT / "mvlab" / "ui").rglob("*.py")), ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SHOWN_BY \
                    and "log" not in ast.unparse(node.func.value).lower():  # a logger's info(): the server's log
                shown = list(node.args[:1]) + [k.value for k in node.keywords if k.arg in ("label", "help")]
                found += [f"{path.relative_to(ROOT)}:{n.lineno}: {w[:60]!r}" for n in shown for w in _english_in(n)]
    assert found == []


def test_a_bar_chart_is_mirrored_for_a_right_to_left_reader_and_nothing_else_is():
    """An Arabic reader reads a chart of horizontal bars from the right: its categories on the right, its bars
    growing leftwards (a fixed range reversed too); the same figure for an English reader, and a map for any
    reader, stay as they are (numbers and their axes read left to right in Arabic too).  Broken once: without the
    right-to-left branch of ``localised`` the Arabic bars kept their categories on the left."""
    import plotly.graph_objects as go

    from mvlab.ui import shared

    def bars():
        return go.Figure(go.Bar(x=[0.2, 0.7], y=["a", "b"], orientation="h"), layout={"xaxis": {"range": [0, 1]}})

    def unranged():
        return go.Figure(go.Bar(x=[0.2, 0.7], y=["a", "b"], orientation="h"))

    with use_language("ar"):
        arabic, free = shared.figure("test_rtl_bars", [1], bars), shared.figure("test_rtl_bars", [2], unranged)
        drawn_map = shared.figure("test_rtl_map", [1], lambda: go.Figure(go.Scatter(x=[0, 1], y=[1, 0])))
    english = shared.figure("test_rtl_bars", [1], bars)
    assert tuple(arabic.layout.xaxis.range) == (1, 0) and arabic.layout.yaxis.side == "right"
    assert free.layout.xaxis.autorange == "reversed" and free.layout.yaxis.side == "right"
    assert tuple(english.layout.xaxis.range) == (0, 1) and english.layout.yaxis.side is None
    assert drawn_map.layout.xaxis.autorange is None and drawn_map.layout.yaxis.side is None
