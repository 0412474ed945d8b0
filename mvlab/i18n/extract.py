"""The catalogues kept in step with the code: extraction with Babel, the template, and each language's catalogue.

    python -m mvlab.i18n.extract            # say what is out of step (exit 1 when something is)
    python -m mvlab.i18n.extract --update   # write mvlab/locale/mvlab.pot and merge it into every mvlab.po

The messages are the English texts of every call ``_("...")``, ``N_("...")`` (marked, translated where shown),
``gettext("...")`` and ``ngettext("...", "...", n)`` in ``mvlab/`` (Babel's Python extractor).  :func:`problems` is
what the tests check: the committed template equals the extraction, and in every language each message of the
template is translated (not fuzzy), no entry is left from a message the code no longer has, and each translation
keeps the English text's placeholders (``{name}``, ``%(name)s``) and Markdown emphasis marks (a plural form may
say its count, ``{n}``, in words).
The translator's guide is docs/guide/translating.md.
"""

from __future__ import annotations

import argparse
import importlib
import io
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.pofile import read_po, write_po

from mvlab.i18n.catalogue import DOMAIN
from mvlab.i18n.languages import DEFAULT, LANGUAGES

__all__ = ["PACKAGE", "TEMPLATE", "KEYWORDS", "extract", "template_text", "po_file", "problems", "update", "main"]

PACKAGE = Path(__file__).resolve().parent.parent
"""The ``mvlab`` package folder: what is extracted, with the dashboard's ``app.py`` and ``pages/`` beside it."""
TEMPLATE = PACKAGE / "locale" / f"{DOMAIN}.pot"
KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2)}
COUNT = "{n}"
"""The count of a plural message: a form may say it in words instead ("one", "two": Arabic's forms for 1 and 2)."""
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\([A-Za-z_]+\)[sdif]|\*\*")


def po_file(code: str) -> Path:
    """The catalogue of the language ``code`` in the source tree."""
    return PACKAGE / "locale" / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract() -> Catalog:
    """Every message of ``mvlab/`` (its English text, singular and plural), with the places that use it."""
    catalog = Catalog(domain=DOMAIN, project="mvlab", charset="utf-8", fuzzy=False)
    options = dict(keywords=KEYWORDS, comment_tags=("Translators:",), strip_comment_tags=True)
    root = PACKAGE.parent
    for folder in (PACKAGE, root / "pages"):
        if folder.is_dir():
            for filename, lineno, message, comments, context in extract_from_dir(
                    str(folder), method_map=[("**.py", "python")], **options):
                catalog.add(message, None, [(f"{folder.name}/{filename}", lineno)], auto_comments=comments,
                            context=context)
    if (root / "app.py").is_file():
        for lineno, message, comments, context in extract_from_file("python", str(root / "app.py"), **options):
            catalog.add(message, None, [("app.py", lineno)], auto_comments=comments, context=context)
    for message, place, comment in documented_messages():
        catalog.add(message, None, [(place, 0)], auto_comments=[comment])
    return catalog


DOCUMENTED = (("mvlab.experiments.settings", "help_messages",
               "An estimator's parameter doc, shown as the help of a page's control."),)
"""The messages that are not literals in a call: ``(module, function, translators' comment)``, the function
returning the English texts (the estimators' parameter docs a page shows as its controls' help: written once, in
the estimator's docstring).  The module is imported by name when extracting, not by this module (the catalogues
are on the first floor, the settings above them)."""


def documented_messages():
    """``(message, place, comment)`` for each message of :data:`DOCUMENTED`."""
    for module, function, comment in DOCUMENTED:
        place = module.replace(".", "/") + ".py"
        for message in getattr(importlib.import_module(module), function)():
            yield message, place, comment


def template_text(catalog: Catalog | None = None) -> str:
    """The template (``.pot``) of ``catalog`` (the extraction by default) as committed: no dates, sorted by
    message, places without line numbers (a line added above a message does not change the template)."""
    out = io.BytesIO()
    write_po(out, catalog or extract(), omit_header=True, sort_output=True, include_lineno=False, width=120)
    return out.getvalue().decode("utf-8")


def _placeholders(text: str) -> list[str]:
    return sorted(_PLACEHOLDER.findall(text))


def _messages(catalog: Catalog) -> dict:
    return {m.id: m for m in catalog if m.id}


def problems(languages=None) -> list[str]:
    """What is out of step, in words (empty when nothing is): the template against the extraction, then each
    language's catalogue (``languages``: all but English by default) against the template."""
    out = []
    extracted = template_text()
    if not TEMPLATE.is_file() or TEMPLATE.read_text(encoding="utf-8") != extracted:
        out.append(f"{TEMPLATE.relative_to(PACKAGE.parent)} is not the extraction of the code: run "
                   "`python -m mvlab.i18n.extract --update`.")
    template = _messages(read_po(io.StringIO(extracted)))
    for code in languages or [c for c in LANGUAGES if c != DEFAULT]:
        path = po_file(code)
        if not path.is_file():
            out.append(f"{code}: no catalogue ({path.relative_to(PACKAGE.parent)}).")
            continue
        with path.open("rb") as handle:
            have = _messages(read_po(handle, locale=code))
        for key in template:
            text = key if isinstance(key, str) else key[0]
            got = have.get(key)
            strings = [s for s in ([got.string] if got is not None and isinstance(got.string, str)
                                   else list(got.string) if got is not None else []) if s]
            if got is None or not strings or got.fuzzy or (isinstance(key, tuple) and len(strings) < len(
                    got.string)):
                out.append(f"{code}: no translation of {text!r}.")
                continue
            for s in strings:
                if _placeholders(s) != _placeholders(text) and not (
                        isinstance(key, tuple) and _placeholders(s) == [p for p in _placeholders(text) if p != COUNT]):
                    out.append(f"{code}: the translation of {text!r} has the placeholders {_placeholders(s)}, the "
                               f"English text {_placeholders(text)}.")
        for key in have.keys() - template.keys():
            text = key if isinstance(key, str) else key[0]
            out.append(f"{code}: {text!r} is no longer in the code (a stale entry: run --update, which marks it "
                       "obsolete).")
    return out


def update() -> None:
    """Write the template and merge it into every language's catalogue (new messages untranslated, changed ones
    fuzzy, removed ones obsolete: Babel's :meth:`~babel.messages.catalog.Catalog.update`)."""
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    text = template_text()
    TEMPLATE.write_text(text, encoding="utf-8")
    template = read_po(io.StringIO(text))
    for code in LANGUAGES:
        if code == DEFAULT:
            continue
        path = po_file(code)
        if path.is_file():
            with path.open("rb") as handle:
                catalog = read_po(handle, locale=code)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=code, domain=DOMAIN, project="mvlab", charset="utf-8", fuzzy=False)
        catalog.update(template, no_fuzzy_matching=True)
        out = io.BytesIO()
        write_po(out, catalog, omit_header=False, sort_output=True, include_lineno=False, ignore_obsolete=True,
                 width=120)
        path.write_bytes(out.getvalue())


def main(argv=None) -> int:
    """The command (see the module docstring): exit 0 when everything is in step, 1 with each problem said."""
    parser = argparse.ArgumentParser(prog="python -m mvlab.i18n.extract", description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="write the template and merge it into every catalogue")
    args = parser.parse_args(argv)
    if args.update:
        update()
    found = problems()
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
