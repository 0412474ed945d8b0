"""The pages' explanatory prose, kept in Markdown files beside the code that shows it.

A page's longer text (its "What am I looking at?" block, the home page's introduction) is a file
``mvlab/ui/text/<page>/<name>.md``, shipped in the wheel as package data; a page shows it with
``st.markdown(page_text("dvs", "what_am_i_looking_at"))``.  Keeping it out of the Python leaves the
pages to wiring, and lets the prose be read and edited as Markdown.

A text in another language is the file ``<name>.<lang>.md`` beside it (``header.de.md``): :func:`page_text` gives
the reader's (:func:`mvlab.i18n.current_language`) where it exists, else the English one.
"""

from __future__ import annotations

from importlib import resources

from mvlab.i18n import current_language

__all__ = ["page_text", "text_names", "markdown_literal"]

TEXT_DIR = "text"
"""The folder of ``mvlab.ui`` that holds one folder of Markdown files per page."""


def _page_folder(page: str):
    return resources.files("mvlab.ui") / TEXT_DIR / page


def text_names(page: str) -> list[str]:
    """The names of the Markdown texts of ``page`` (sorted; empty when the page has none; a text's translations,
    ``<name>.<lang>.md``, are not names of their own)."""
    folder = _page_folder(page)
    if not folder.is_dir():
        return []
    return sorted(f.name.removesuffix(".md") for f in folder.iterdir()
                  if f.name.endswith(".md") and "." not in f.name.removesuffix(".md"))


def page_text(page: str, name: str, /, **values) -> str:
    """The Markdown text ``name`` of ``page`` (``mvlab/ui/text/<page>/<name>.md``), without its surrounding
    blank lines; with ``values``, its ``{field}`` placeholders filled by :meth:`str.format`.

    Raises
    ------
    FileNotFoundError
        When there is no such text; the message names the texts the page has.
    """
    source = _page_folder(page) / f"{name}.md"
    if not source.is_file():
        raise FileNotFoundError(f"No text {name!r} for page {page!r} (mvlab/ui/{TEXT_DIR}/{page}/{name}.md); "
                                f"the page's texts: {text_names(page) or 'none'}.")
    translated = _page_folder(page) / f"{name}.{current_language()}.md"
    if translated.is_file():
        source = translated
    text = source.read_text(encoding="utf-8").strip("\n")
    return text.format(**values) if values else text


_MARKDOWN_SIGNS = frozenset("\\`*_[]<>#|~$&")
"""The characters that can make Markdown or HTML inside a line (emphasis, links, images, code, tables,
strike-through, ``$math$``, entities): each is written escaped (CommonMark lets any ASCII punctuation be escaped
with a backslash)."""
_JOINED = frozenset(":@")
"""The characters after which (and ``.``, before which) an invisible word joiner (U+2060) is written: Streamlit's
``:red[…]``, ``:material/…:`` and emoji short codes, and GitHub's autolinks (``http://…``, ``www.…``, ``a@b.c``) are
not stopped by a backslash, and a joiner breaks each of them without changing what the reader sees."""


def markdown_literal(text) -> str:
    """``text`` as Markdown that shows it as it is: a value from an address or a page (``[link](http://...)``,
    ``**bold**``, ``:red[x]``, ``<b>``, ``www.example.com``) is shown as those characters, never interpreted; line
    breaks become spaces. A line's own start (``#``, ``-``, ``1.``) is the caller's words."""
    out = []
    for c in str(text):
        if c == ".":
            out.append("\u2060")
        out.append("\\" + c if c in _MARKDOWN_SIGNS else " " if c in "\r\n" else c)
        if c in _JOINED:
            out.append("\u2060")
    return "".join(out)
