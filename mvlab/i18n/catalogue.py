"""gettext catalogues read with Babel, and the language of the person being served.

The catalogues are ``mvlab/locale/<lang>/LC_MESSAGES/mvlab.po`` (the template every language starts from:
``mvlab/locale/mvlab.pot``, extracted from the code by :mod:`mvlab.i18n.extract`).  They are read once per process
with Babel (:func:`translations`: the ``.po`` compiled in memory, so no compiled ``.mo`` is committed or built).

Whose language: :func:`current_language` asks the *language source* first (the dashboard registers one that reads
the Streamlit session's language, :func:`set_language_source`), else the thread's own (:func:`use_language`, e.g.
for a handout written in Spanish), else English.  Two sessions of one process in two languages each see their own:
nothing here is process-wide but the catalogues, which never change.
"""

from __future__ import annotations

import contextvars
import copy
import gettext as _gettext
import io
import threading
from contextlib import contextmanager
from importlib import resources
from typing import Callable

from babel import Locale
from babel.lists import format_list as babel_format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import get_decimal_symbol

from mvlab.i18n.languages import DEFAULT, LANGUAGES

__all__ = ["DOMAIN", "po_path", "translations", "gettext", "ngettext", "current_language", "use_language",
           "set_language_source", "format_number", "format_percent", "format_list",
           "language_name", "decimal_symbol"]

DOMAIN = "mvlab"
"""The catalogues' domain: ``mvlab.po`` of every language, ``mvlab.pot`` the template."""

_THREAD_LANGUAGE: contextvars.ContextVar[str] = contextvars.ContextVar("mvlab_language", default=DEFAULT)
_SOURCE: list[Callable[[], str | None]] = []
_LOADED: dict[str, _gettext.NullTranslations] = {}
_LOCK = threading.Lock()


def po_path(code: str):
    """The catalogue of the language ``code`` (a :class:`importlib.resources` path; it may not exist yet)."""
    return resources.files("mvlab") / "locale" / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def translations(code: str) -> _gettext.NullTranslations:
    """The translations of the language ``code``, read from its ``.po`` once per process (English, an unknown
    language and a language without a catalogue: the messages as written)."""
    if code in _LOADED:
        return _LOADED[code]
    with _LOCK:
        if code not in _LOADED:
            _LOADED[code] = _read(code)
        return _LOADED[code]


def _read(code: str) -> _gettext.NullTranslations:
    source = po_path(code)
    if code == DEFAULT or code not in LANGUAGES or not source.is_file():
        return _gettext.NullTranslations()
    with source.open("rb") as handle:
        catalog = read_po(handle, locale=code, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return _gettext.GNUTranslations(compiled)


def set_language_source(source: Callable[[], str | None]) -> None:
    """Where :func:`current_language` looks first: ``source()`` returns the language of the person being served
    now, or None where it cannot say (no session).  The dashboard registers one that reads the Streamlit session's
    language (:mod:`mvlab.ui.language`); set again, it replaces the one before."""
    _SOURCE[:] = [source]


def current_language() -> str:
    """The language of the person being served: the registered source's (a session's), else this thread's
    (:func:`use_language`), else English."""
    if _SOURCE:
        code = _SOURCE[0]()
        if code in LANGUAGES:
            return code
    return _THREAD_LANGUAGE.get()


@contextmanager
def use_language(code: str):
    """Serve ``code`` in this thread (and the tasks it starts) inside the ``with`` block, where no session says
    otherwise (a handout, the command line, a test)."""
    token = _THREAD_LANGUAGE.set(code if code in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _THREAD_LANGUAGE.reset(token)


def gettext(message: str) -> str:
    """``message`` (its English text) in the language of the person being served."""
    return translations(current_language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for the count ``n`` in the language being served, by its CLDR plural
    rules (Arabic has six forms; the catalogue's ``Plural-Forms`` header says which one a count takes)."""
    return translations(current_language()).ngettext(singular, plural, n)


def _pattern(kind: str, digits: int | None):
    """The language's own pattern of ``kind`` (``"decimal"`` or ``"percent"``, CLDR), with ``digits`` decimals."""
    locale = Locale.parse(current_language())
    pattern = copy.copy((locale.decimal_formats if kind == "decimal" else locale.percent_formats)[None])
    if digits is not None:
        pattern.frac_prec = (digits, digits)
    return locale, pattern


def format_number(value, digits: int | None = None) -> str:
    """``value`` written for the language being served, by its own CLDR pattern (``0,85`` in German and French,
    ``0.85`` in English; Babel); ``digits`` fixes the decimals."""
    locale, pattern = _pattern("decimal", digits)
    return pattern.apply(value, locale)


def decimal_symbol() -> str:
    """The decimal mark of the language being served ("," in German, French and Spanish; CLDR)."""
    return get_decimal_symbol(Locale.parse(current_language()))


def language_name(code: str) -> str:
    """The name of the language ``code`` in the language being served ("Englisch" to a German reader; CLDR)."""
    return Locale.parse(code).get_language_name(Locale.parse(current_language()))


def format_list(parts) -> str:
    """``parts`` (texts) joined as the language being served joins a list ("a, b, and c"; "a, b und c"; "a و b و c":
    CLDR's conjunction patterns, Babel)."""
    return babel_format_list(list(parts), style="standard", locale=Locale.parse(current_language()))


def format_percent(share, digits: int = 0) -> str:
    """``share`` (0.85) as a percentage for the language being served, by its own CLDR pattern (``85 %`` in German
    and French, ``85%`` in English; Babel)."""
    locale, pattern = _pattern("percent", digits)
    return pattern.apply(share, locale)
