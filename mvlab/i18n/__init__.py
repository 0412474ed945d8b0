"""Every person in their own language: the catalogues of the words people read, and the language of each person.

* :mod:`mvlab.i18n.languages`: the languages mvlab speaks (their names in themselves, their direction), which of
  them are complete, and how a person's language is chosen (``?lang=``, else the browser's, else English).
* :mod:`mvlab.i18n.catalogue`: gettext catalogues (``mvlab/locale/<lang>/LC_MESSAGES/mvlab.po``, read with Babel
  once per process); :func:`gettext` and :func:`ngettext` in the language of the person being served, numbers and
  percentages formatted by Babel for it. Nothing is process-wide: no ``setlocale``; in a Streamlit session the
  language is that session's, elsewhere (the command line, a handout) the one :func:`use_language` sets for the
  thread.

English is the source language: a message is its English text (``_("Random seed")``), a language without a
translation of it shows the English.
"""

from mvlab.i18n.catalogue import (
    Message,
    current_language,
    decimal_symbol,
    format_list,
    format_number,
    format_percent,
    gettext,
    joined,
    language_name,
    localised_number,
    ngettext,
    plotly_separators,
    said,
    set_language_source,
    to_wire,
    use_language,
)
from mvlab.i18n.languages import DEFAULT, LANGUAGES, OFFERED, Language, direction, language_of, negotiate

_ = gettext


def N_(message: str) -> str:
    """``message`` as it is, marked for the catalogues: a text kept as a value (a radio's option, a table's title)
    and translated where it is shown (``format_func=gettext``)."""
    return message


__all__ = ["_", "N_", "gettext", "ngettext", "Message", "said", "joined", "to_wire", "current_language", "use_language",
           "set_language_source", "format_number", "format_percent", "format_list", "plotly_separators",
           "localised_number", "LANGUAGES", "OFFERED", "Language", "DEFAULT", "language_of", "negotiate", "direction",
           "language_name", "decimal_symbol"]
