"""The languages mvlab speaks and how one person's language is chosen.

A person's language comes from the address (``?lang=de``), else from the browser's (Streamlit's
``st.context.locale``, e.g. ``"de-DE"``), else English (:func:`negotiate`).  What comes from a browser is a hostile
value: only a language of :data:`LANGUAGES` is ever chosen, whatever is sent.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

__all__ = ["Language", "LANGUAGES", "DEFAULT", "OFFERED", "PREVIEW_VARIABLE", "offered", "language_of", "negotiate",
           "direction"]


@dataclass(frozen=True)
class Language:
    """One language: its code (the catalogue's folder and the ``lang`` attribute), its name in itself (what the
    switch shows), its writing direction (``"ltr"`` or ``"rtl"``) and whether people are offered it (its catalogue
    covers everything the dashboard shows; until then it is built, checked and tested, but not chosen for anyone)."""

    code: str
    name: str
    direction: str = "ltr"
    offered: bool = False


LANGUAGES: dict[str, Language] = {
    "en": Language("en", "English", offered=True),
    "de": Language("de", "Deutsch", offered=True),
    "fr": Language("fr", "Français", offered=True),
    "es": Language("es", "Español", offered=True),
    "ar": Language("ar", "العربية", "rtl", offered=True),
}
"""Every language mvlab has a catalogue for, in the switch's order; English is the source language."""
DEFAULT = "en"
PREVIEW_VARIABLE = "MVLAB_PREVIEW_LANGUAGES"


def offered(environ=None) -> tuple[str, ...]:
    """The languages people may choose: those whose catalogues cover the whole dashboard, and those a translator
    previews on a server of their own (``MVLAB_PREVIEW_LANGUAGES=de,ar``: known codes only, the rest ignored)."""
    environ = os.environ if environ is None else environ
    preview = {c.strip().lower() for c in str(environ.get(PREVIEW_VARIABLE, "")).split(",")}
    return tuple(code for code, language in LANGUAGES.items() if language.offered or code in preview)


OFFERED: tuple[str, ...] = offered()
"""The languages people may choose on this server (the address, the browser, the switch): :func:`offered`, read
once when the process starts."""

_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")


def language_of(tag, among=tuple(LANGUAGES)) -> str | None:
    """The language of ``among`` that a language tag names (``"de"``, ``"de-DE"``, ``"de_AT"``, ``"AR-eg"``), else
    None (anything else: not a text, not a tag, too long, a language not among them)."""
    if not isinstance(tag, str) or len(tag) > 35 or not _TAG.fullmatch(tag.strip()):
        return None
    primary = re.split(r"[-_]", tag.strip())[0].lower()
    return primary if primary in among else None


def negotiate(asked=None, browser=None, among=tuple(LANGUAGES)) -> str:
    """The language to serve: ``asked`` (the address's ``?lang=``) when it names one of ``among``, else the
    browser's ``browser`` (a tag such as ``"fr-FR"``, or a list of them in order of preference), else English.

    >>> negotiate("de", "fr-FR"), negotiate(None, "fr-FR"), negotiate("xx", ["pt-BR", "es-ES"]), negotiate()
    ('de', 'fr', 'es', 'en')
    """
    for tag in [asked] + (list(browser) if isinstance(browser, (list, tuple)) else [browser]):
        code = language_of(tag, among)
        if code is not None:
            return code
    return DEFAULT


def direction(code: str) -> str:
    """``"rtl"`` or ``"ltr"``: the writing direction of the language ``code`` (English's for an unknown one)."""
    return LANGUAGES.get(code, LANGUAGES[DEFAULT]).direction
