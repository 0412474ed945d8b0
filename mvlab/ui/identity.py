"""Who a browser is, without knowing who a person is: the anonymous token a class round counts a student's answers
under, the teacher keys a browser holds, and the network address a student comes from.

- **The browser's token** is a random value kept in a cookie (``mvlab_id``), so a reload, a second tab and a
  restarted server process all find the same student: one student, one answer. A browser that sends none (its first
  visit, or cookies refused) gets a new token for its session, written into the cookie by the page; a value that
  cannot be a token (:func:`mvlab.store.rounds.valid_token`, at least ``MIN_TOKEN`` characters) is replaced, never
  used. Nothing personal is in it.
- **A teacher key** never travels in the address after a round starts (a projected address bar would give it to the
  room): it is kept in the teacher's session and in a cookie of the teacher's browser named after the round
  (``mvlab_teacher_K7Q2``), so the teacher who reloads or opens a second tab still controls the round.
- **The address** is the connection's, unless the connection comes from a trusted proxy (``MVLAB_TRUSTED_PROXIES``:
  addresses or networks, default this machine, ``127.0.0.0/8,::1``: ``mvlab serve``'s nginx, and a TLS proxy in
  front of it on the same host); then the right-most address of ``X-Forwarded-For`` that is not a trusted proxy
  (nginx appends the address it saw to whatever the browser sent, so a forged left part is never reached), or, with
  no ``X-Forwarded-For``, ``X-Real-IP``. A header from any other peer is not believed: a browser cannot choose its
  address. IPv6 addresses count by their /64 network (one machine holds many of its addresses).

The cookies are written by a script of the page (``st.html`` with JavaScript: Streamlit has no server-side way to set
one), ``SameSite=Strict``, ``Secure`` when the page is served over https, and read back by Streamlit from the next
connection's request (``st.context.cookies``).
"""

from __future__ import annotations

import json
import secrets

import streamlit as st

from mvlab.core.addresses import forwarded_client, trusted_proxies
from mvlab.store.rounds import valid_code, valid_token

__all__ = ["BROWSER_COOKIE", "browser_token", "teacher_key", "keep_teacher_key", "write_cookies", "client_address",
           "KEY_FRAGMENT", "key_fragment", "take_key_from_fragment"]

BROWSER_COOKIE = "mvlab_id"
"""The cookie that holds a browser's anonymous token."""
TEACHER_COOKIE = "mvlab_teacher_"
"""Prefix of the cookie that holds a round's teacher key (the round's code follows)."""
MIN_TOKEN = 16
"""Characters a browser's token has at least (``secrets.token_urlsafe(16)`` gives 22): a hand-made short value such
as ``a`` is not taken, so nobody takes another student's place by guessing."""
TOKEN_DAYS = 365
"""Days a browser keeps its token."""


def _cookie(name: str) -> str | None:
    try:
        return st.context.cookies.get(name)
    except (AttributeError, RuntimeError):  # outside a browser's session (a bare script run)
        return None


def _write_cookie(name: str, value: str, days: float) -> None:
    """Ask for a cookie to be written by :func:`write_cookies` at the end of this run, once per session for each
    name and value, and not when the browser sent it already (the script that writes it is then never drawn)."""
    if st.session_state.get("_cookies_written", {}).get(name) == value or _cookie(name) == value:
        return
    st.session_state.setdefault("_cookies_pending", {})[name] = (value, days)


KEY_FRAGMENT = "mvlab_key"
"""The name of the teacher key in a teacher link's fragment (``#mvlab_key=KEY``): a fragment never reaches a
server, a proxy's log or a ``Referer``, and the page takes it out of the browser's history before anything else."""


def key_fragment(key: str) -> str:
    """The fragment of a teacher link that carries ``key`` (appended to the round's teacher address)."""
    return f"#{KEY_FRAGMENT}={key}"


def take_key_from_fragment(code: str, days: float) -> None:
    """On a teacher page of round ``code`` whose browser holds no key for it yet: a script that reads the key from
    the address's fragment (a teacher link opened on another device), keeps it in the round's teacher cookie,
    *replaces* the history entry with the address without the fragment (so that *Back* never shows the key, where
    a query's ``key=`` taken out of the address by Streamlit left an entry with it), and reloads the page, which
    then finds the key in its cookie. Nothing happens without such a fragment."""
    secure = "; Secure" if str(st.context.url or "").startswith("https:") else ""
    cookie = f"{TEACHER_COOKIE}{code}=' + m[1] + '; Path=/; Max-Age={int(days * 86400)}; SameSite=Strict{secure}"
    st.html("<script>(function () {"
            f"const m = /(?:^#|&){KEY_FRAGMENT}=([A-Za-z0-9_-]{{{MIN_TOKEN},64}})(?:&|$)/.exec(window.location.hash);"
            "if (!m) return;"
            f"document.cookie = '{cookie}';"
            "window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);"
            "window.location.reload();"
            "})(); if (document.currentScript) document.currentScript.textContent = '';</script>",
            unsafe_allow_javascript=True, width=1)


def write_cookies() -> None:
    """Write the cookies asked for in this session (:func:`browser_token`, :func:`keep_teacher_key`): one script
    drawn at the end of the page's run (a run stopped by ``st.rerun`` would take an element drawn earlier away before
    the browser ran it), then never again."""
    pending = st.session_state.pop("_cookies_pending", {})
    if not pending:
        return
    secure = "; Secure" if str(st.context.url or "").startswith("https:") else ""
    cookies = [f"{name}={value}; Path=/; Max-Age={int(days * 86400)}; SameSite=Strict{secure}"
               for name, (value, days) in pending.items()]
    lines = "".join(f"document.cookie = {json.dumps(cookie)};" for cookie in cookies)
    forget = "if (document.currentScript) document.currentScript.textContent = '';"  # the key not left in the page
    st.html(f"<script>{lines}{forget}</script>", unsafe_allow_javascript=True, width=1)
    st.session_state.setdefault("_cookies_written", {}).update({name: v for name, (v, _) in pending.items()})


def browser_token() -> str:
    """This browser's anonymous token: the cookie's when it holds one, else a new one for this session, written into
    the cookie (the next reload or tab brings it back)."""
    sent = _cookie(BROWSER_COOKIE)
    if valid_token(sent) and len(sent) >= MIN_TOKEN:
        return sent
    token = st.session_state.get("_browser_token")
    if token is None:
        token = st.session_state["_browser_token"] = secrets.token_urlsafe(MIN_TOKEN)
    _write_cookie(BROWSER_COOKIE, token, TOKEN_DAYS)
    return token


def teacher_key(code: str) -> str | None:
    """The teacher key of round ``code`` this browser holds (its session's, else its cookie's), or None. Not checked
    here: the store checks a key against the round (:meth:`mvlab.store.ClassRounds.holds`)."""
    code = valid_code(code)
    if code is None:
        return None
    key = st.session_state.get("_round_keys", {}).get(code) or _cookie(TEACHER_COOKIE + code)
    return key if valid_token(key) else None


def keep_teacher_key(code: str, key: str, days: float) -> None:
    """Keep round ``code``'s teacher key in this session and, for ``days``, in this browser's cookie."""
    code = valid_code(code)
    if code is None or not valid_token(key):
        return
    st.session_state.setdefault("_round_keys", {})[code] = key
    _write_cookie(TEACHER_COOKIE + code, key, days)


def client_address() -> str | None:
    """The network address this session's browser is counted under (:func:`forwarded_client` on the connection's
    peer and its forwarding headers, with ``MVLAB_TRUSTED_PROXIES``), or None when it is this machine itself (or not
    known)."""
    try:
        peer, headers = st.context.ip_address, st.context.headers
        forwarded_for, real_ip = headers.get("X-Forwarded-For"), headers.get("X-Real-IP")
    except (AttributeError, RuntimeError):
        return None
    peer = peer or "127.0.0.1"  # Streamlit says None for a connection from this machine (its nginx, for one)
    return forwarded_client(peer, forwarded_for, real_ip, trusted_proxies())  # checked when the server started
