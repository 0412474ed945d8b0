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
from babel.numbers import get_decimal_symbol, get_group_symbol

from mvlab.i18n.languages import DEFAULT, LANGUAGES

__all__ = ["DOMAIN", "po_path", "translations", "gettext", "ngettext", "current_language", "use_language",
           "set_language_source", "format_number", "plotly_separators", "localised_number", "format_percent",
           "format_list", "language_name", "decimal_symbol", "Message", "said", "to_wire", "joined"]

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


class Message(str):
    """An English text made once and read later by people of other languages (a dataset's description, made when the
    data are generated and shown on every page that shows them): the text itself, in English, as a ``str`` (what the
    command line, a CSV or a log write), that also keeps its message and values, so that :func:`said` can say it in
    the reader's language. ``Message(N_("{n} views, {shows}"), n=3, shows=Message(N_("pure noise")))``: a value
    may be a message too. Pickles with its message."""

    __slots__ = ("message", "values")

    def __new__(cls, message: str, /, **values):
        """The message (its English msgid, marked with ``N_``) with its ``values`` filled in, as English."""
        english = message.format(**values) if values else message
        self = super().__new__(cls, english)
        self.message, self.values = message, values
        return self

    def __reduce__(self):
        return _message, (self.message, self.values)

    def translated(self) -> str:
        """The text in the language of the person being served (its values said in it too)."""
        message = gettext(self.message)
        if not self.values:
            return message
        return message.format(**{k: said(v) if isinstance(v, Message) else v for k, v in self.values.items()})


    def to_wire(self) -> dict:
        """The message as plain data (JSON, msgpack: a worker's progress event): ``{"message": ..., "values":
        {...}}``, a value that is a message written the same way; :meth:`from_wire` reads it back."""
        return {"message": self.message, "values": {k: v.to_wire() if isinstance(v, Message) else v
                                                   for k, v in self.values.items()}}

    @classmethod
    def from_wire(cls, data) -> str:
        """What :meth:`to_wire` wrote, as a message again; a plain text (an older worker's, a library's own English)
        as it is."""
        if not isinstance(data, dict) or not isinstance(data.get("message"), str):
            return "" if data is None else str(data)
        values = {k: cls.from_wire(v) if isinstance(v, dict) else v for k, v in (data.get("values") or {}).items()}
        return cls(data["message"], **values)


def _message(message: str, values: dict) -> Message:
    return Message(message, **values)


def to_wire(text) -> str | dict:
    """``text`` as plain data for an event: a :class:`Message`'s :meth:`~Message.to_wire`, any other text as a
    ``str``."""
    return text.to_wire() if isinstance(text, Message) else str(text)


def joined(first, second) -> str:
    """``first + second`` (a progress prefix and a note), a :class:`Message` when either is one (each part said in
    the reader's language), else the plain text."""
    if isinstance(first, Message) or isinstance(second, Message):
        return Message(_JOINED, first=first, second=second)
    return first + second


_JOINED = "{first}{second}"
"""The message of two joined texts: not a sentence to translate (it is not in the catalogues; gettext gives it back
as it is)."""


def said(text: str) -> str:
    """``text`` in the language of the person being served: a :class:`Message` translated with its values, any other
    text looked up in the catalogue as it is (itself where the catalogue does not have it: a user's own words)."""
    return text.translated() if isinstance(text, Message) else gettext(text)


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


def plotly_separators() -> str:
    """The decimal and grouping marks of the language being served as plotly's ``layout.separators`` wants them
    (``".,"`` in English, ``",."`` in German: a figure's hover values and ticks written as the reader writes
    numbers; CLDR)."""
    locale = Locale.parse(current_language())
    return get_decimal_symbol(locale) + get_group_symbol(locale)


def localised_number(written: str) -> str:
    """A number written the English way (``f"{x:,}"``, ``f"{x:g}"``, ``f"{x:.3f}"``) with the decimal and grouping
    marks of the language being served (``0,95`` in German; the same text in English): a number in a sentence a
    person reads, whatever format it was written in."""
    marks = plotly_separators()  # the decimal mark, then the grouping mark
    return written.translate({ord("."): marks[0], ord(","): marks[1]})


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
