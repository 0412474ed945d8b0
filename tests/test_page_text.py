"""mvlab.ui.prose: the pages' explanatory prose lives in Markdown files (mvlab/ui/text/<page>/<name>.md), each
one shown by a page, none missing, and no page keeps long prose inline."""

import ast
import re

import pytest

from conftest import ROOT
from mvlab.ui import prose
from mvlab.ui.page import EXPLANATION, HEADER, header_parts
from mvlab.ui.prose import page_text, text_names

TEXT = ROOT / "mvlab" / "ui" / "text"
PAGES = sorted((ROOT / "pages").glob("*.py"))
VIEWS = sorted((ROOT / "mvlab" / "ui" / "views").glob("*.py"))
LONG_LINES = 5
"""A string constant of this many lines or more in a page is prose that belongs in a Markdown file."""
RUN_BY_THE_RUNNER = {p.stem for p in PAGES if "mvlab.ui.page " in p.read_text()}
"""Pages whose header (title, caption, "What am I looking at?") mvlab.ui.page draws from their text files."""


def texts_the_pages_show() -> set[tuple[str, str]]:
    """(page, name) of every ``page_text("page", "name")`` call in the pages and their views, and the header texts
    the page runner (:func:`mvlab.ui.page.page_header`) shows for the pages it runs."""
    calls = {(page, name) for page in RUN_BY_THE_RUNNER for name in (HEADER, EXPLANATION)
             if (TEXT / page / f"{name}.md").is_file()}
    for page in PAGES + VIEWS:
        for node in ast.walk(ast.parse(page.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "page_text":
                args = [a.value for a in node.args if isinstance(a, ast.Constant)]
                assert len(args) == 2, f"{page.name}: page_text takes the page and the text's name, as literals"
                calls.add(tuple(args))
    return calls


def test_every_text_a_page_shows_exists_and_every_file_is_shown():
    shown = texts_the_pages_show()
    assert {("dvs", "what_am_i_looking_at"), ("home", "introduction")} <= shown
    for page, name in shown:
        assert (TEXT / page / f"{name}.md").is_file(), (page, name)
        assert len(page_text(page, name).split()) > 8, f"{page}/{name}.md is (nearly) empty"
    files = {(f.parent.name, f.stem) for f in TEXT.glob("*/*.md") if "." not in f.stem}  # translations: test_i18n
    assert files == shown, f"Markdown files no page shows: {sorted(files - shown)}"


def test_every_page_the_runner_draws_has_its_header_text():
    """Fails when a page run by mvlab.ui.page has no header.md, or one without its '# Title' line (tried: the
    Dissimilarity page's header.md without its first line)."""
    assert {"benchmark", "data", "dissimilarity", "papers", "view_construction"} <= RUN_BY_THE_RUNNER
    for page in RUN_BY_THE_RUNNER:
        title, caption = header_parts(page)
        assert title and len(caption.split()) > 8 and "\n" not in caption, page


def test_a_header_without_its_title_line_is_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "header.md").write_text("Demo\n\nA caption.\n")
    monkeypatch.setattr(prose, "_page_folder", lambda page: tmp_path / page)
    with pytest.raises(ValueError, match=re.escape("mvlab/ui/text/demo/header.md must start with a '# Title' line")):
        header_parts("demo")
    (tmp_path / "demo" / "header.md").write_text("# Demo\n\nA caption\nwrapped.\n\nA second paragraph.\n")
    assert header_parts("demo") == ("Demo", "A caption wrapped.\n\nA second paragraph.")


def test_no_page_keeps_long_prose_inline():
    for page in PAGES + VIEWS:
        long = [node.lineno for node in ast.walk(ast.parse(page.read_text()))
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
                and node.value.count("\n") >= LONG_LINES]
        assert not long, f"{page.name}, lines {long}: move the prose to mvlab/ui/text/{page.stem}/ (page_text)"


def test_a_text_is_the_markdown_without_its_surrounding_blank_lines():
    text = page_text("dvs", "what_am_i_looking_at")
    assert text.startswith("One forest per view") and text.endswith("stacking.")
    assert "**Why ties happen.**" in text and "\n\n" in text  # Markdown, paragraphs kept
    assert text_names("dvs") == ["header", "what_am_i_looking_at"] and text_names("no_such_page") == []


def test_a_missing_text_is_a_clear_error():
    with pytest.raises(FileNotFoundError, match=re.escape("No text 'nothing' for page 'dvs'")) as error:
        page_text("dvs", "nothing")
    assert "what_am_i_looking_at" in str(error.value)  # names the texts the page has
    with pytest.raises(FileNotFoundError, match="the page's texts: none"):
        page_text("no_such_page", "introduction")


def test_values_fill_the_named_fields_of_a_text(tmp_path, monkeypatch):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "note.md").write_text("\n{n} trees on **{name}**.\n\n{{braces}} stay\n")
    monkeypatch.setattr(prose, "_page_folder", lambda page: tmp_path / page)
    assert page_text("demo", "note", n=60, name="digits") == "60 trees on **digits**.\n\n{braces} stay"
    assert page_text("demo", "note") == "{n} trees on **{name}**.\n\n{{braces}} stay"  # no values: as written
