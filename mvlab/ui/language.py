"""Each person's language on the dashboard: chosen per session, kept in the address, said to the browser.

The language of a session is chosen at the start of each page run (:func:`choose`): the address's ``?lang=``,
else the browser's (``st.context.locale``), else English, among the languages offered
(:data:`mvlab.i18n.languages.OFFERED`: those whose catalogues are complete).  It is kept in the session, so a
fragment's rerun speaks it too, and it is what :func:`mvlab.i18n.gettext` translates into for this session only
(:func:`session_language`, registered as the catalogues' language source): two people on one server process read
their own languages at the same moment.  The page's ``lang`` and ``dir`` attributes follow it (a screen reader
reads German as German; Arabic is laid out right to left), and the sidebar offers a switch when more than one
language is offered.
"""

from __future__ import annotations

import json

import streamlit as st

from mvlab.i18n import N_, direction, gettext, language_of, languages, negotiate, set_language_source
from mvlab.i18n.languages import DEFAULT, LANGUAGES
from mvlab.ui import streamlit_insides as insides

__all__ = ["SESSION_KEY", "session_language", "choose", "script", "query", "switch"]

SESSION_KEY = "_language"
SKIP_LINK = N_("Skip to main content")
"""The words of Streamlit's own link to the page's content (the first thing a keyboard or a screen reader reaches),
said in the page's language by :func:`say` (Streamlit writes it in English)."""
_SAID = "_language_said"


def session_language() -> str | None:
    """The language of the Streamlit session this thread serves, or None outside a session (the catalogues then
    use the thread's own, :func:`mvlab.i18n.use_language`)."""
    if not insides.in_a_script_run():
        return None
    try:
        return st.session_state.get(SESSION_KEY)
    except Exception:  # noqa: BLE001 - a session being torn down: no language of its own any more
        return None


set_language_source(session_language)


def _browser_locale() -> str | None:
    try:
        return st.context.locale
    except Exception:  # noqa: BLE001 - no browser (AppTest): none to ask
        return None


def choose() -> str:
    """This session's language for this run (see the module docstring), kept in the session.  A value the address
    or the browser sends that names no language offered is ignored (the session keeps its own, or English)."""
    kept = st.session_state.get(SESSION_KEY)
    offered = languages.OFFERED
    code = (language_of(st.query_params.get("lang"), offered) or (kept if kept in offered else None)
            or negotiate(None, _browser_locale(), among=offered))
    st.session_state[SESSION_KEY] = code
    return code


def script() -> str:
    """The page's ``lang`` and ``dir`` attributes set to this session's language, and Streamlit's skip link
    (:data:`SKIP_LINK`) said in it, as a line of JavaScript run in each run of a session that speaks, or has spoken,
    another language than English (a run can be cut short by a rerun, and the script with it; the page sends it:
    :func:`mvlab.ui.page_script.send`).  An English page, as Streamlit serves it, needs none: ""."""
    code = st.session_state.get(SESSION_KEY, DEFAULT)
    if code == DEFAULT and st.session_state.get(_SAID, DEFAULT) == DEFAULT:
        return ""
    st.session_state[_SAID] = code
    return ("document.documentElement.lang = %s; document.documentElement.dir = %s; "
            "const skip = document.querySelector('[data-testid=stSkipToContent]'); "
            "if (skip) { skip.textContent = %s; }"
            % (json.dumps(code), json.dumps(direction(code)), json.dumps(gettext(SKIP_LINK))))


def query() -> dict[str, str]:
    """The address's part for the session's language: ``{"lang": code}``, nothing for English (links stay short)."""
    code = st.session_state.get(SESSION_KEY, DEFAULT)
    return {} if code == DEFAULT else {"lang": code}


def _switched() -> None:
    st.session_state[SESSION_KEY] = st.session_state["language_switch"]
    st.query_params["lang"] = st.session_state[SESSION_KEY]


def switch() -> None:
    """The language switch (each language named in itself), when more than one is offered."""
    if len(languages.OFFERED) < 2:
        return
    code = st.session_state.get(SESSION_KEY, DEFAULT)
    st.session_state["language_switch"] = code
    st.selectbox("Language · Sprache · Langue · Idioma · اللغة", languages.OFFERED, key="language_switch",
                 format_func=lambda c: LANGUAGES[c].name, on_change=_switched)
