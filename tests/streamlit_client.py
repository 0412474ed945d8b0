"""A simulated student that speaks Streamlit's own protocol (a websocket of protobuf messages), as the
browser does, without drawing anything: the bench measures the server, not the students' browsers.

``StudentSession(url, page, query)`` opens a session on one page, runs it, and can press a button
by its label (``click("Train")``), choose an option of a radio (``choose``) and wait until an element whose
text contains some words arrives (``wait_for_text``).  A button drawn inside a fragment is pressed with its
fragment's id, as a browser does: the click reruns that fragment alone.  Like a browser, it sends back the
values it chose with every rerun, follows the query string the page writes (``st.query_params``), and reruns
the fragments that ask to rerun themselves (``run_every``) while it waits (``watch``).  Only what the benches
need: other widgets' states are left to the session (mvlab's pages keep them in ``st.session_state``).
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect


class StudentSession:
    def __init__(self, url: str, page: str, query: str = "", timeout: float = 120.0, cookie: str | None = None,
                 headers: dict[str, str] | None = None):
        parts = urlsplit(url)
        self.page, self.query, self.timeout = page, query, timeout
        sent = dict(headers or {}) | ({"Cookie": cookie} if cookie else {})
        self.ws = connect(f"ws://{parts.netloc}/_stcore/stream", subprotocols=["streamlit"], max_size=None,
                          additional_headers=sent or None,
                          open_timeout=timeout, ping_interval=None,  # a session read in turns: no keepalive
                          max_queue=None, close_timeout=5)  # read in turns: its frames wait, unbounded
        self.buttons: dict[str, str] = {}
        self.page_hash = ""
        self.fragments: dict[str, str] = {}  # a button's label -> the fragment it was drawn in ("" for none)
        self.texts: list[str] = []
        self.radios: dict[str, tuple[str, list[str]]] = {}  # a radio's label -> (widget id, its options)
        self.values: dict[str, str] = {}  # widget id -> the string value chosen (sent with every rerun)
        self.auto: dict[str, tuple[float, float]] = {}  # fragment id -> (interval s, when it is due next)
        self.finished = False
        self.runs_finished = 0  # runs (and fragment runs) the server finished for this session
        self.exceptions: list[str] = []
        self.run()

    def _send(self, widget_states=(), fragment_id: str = "", auto: bool = False) -> None:
        msg = BackMsg()
        state = msg.rerun_script
        if fragment_id:
            state.fragment_id = fragment_id
        state.is_auto_rerun = auto
        if self.page_hash:  # as a browser does after the first run (a fragment is found by its page)
            state.page_script_hash = self.page_hash
        state.query_string = self.query
        state.page_name = self.page
        for widget_id in widget_states:
            w = state.widget_states.widgets.add()
            w.id = widget_id
            w.trigger_value = True
        for widget_id, value in self.values.items():
            w = state.widget_states.widgets.add()
            w.id = widget_id
            w.string_value = value
        self.ws.send(msg.SerializeToString())

    def _read_until(self, done, timeout: float | None = None) -> bool:
        """Read messages, recording buttons and texts, until ``done()`` (True) or the script finished
        without it (False)."""
        deadline = time.time() + (timeout or self.timeout)
        while time.time() < deadline:
            raw = self.ws.recv(timeout=max(0.01, deadline - time.time()))
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "navigation":  # the page st.navigation chose (new_session names the main script)
                self.page_hash = msg.navigation.page_script_hash
            elif kind == "page_info_changed":  # the page wrote its address: later reruns carry it, as a browser's
                self.query = msg.page_info_changed.query_string
            elif kind == "auto_rerun":
                self.auto[msg.auto_rerun.fragment_id] = (msg.auto_rerun.interval,
                                                         time.time() + msg.auto_rerun.interval)
            elif kind == "stop_auto_rerun":  # the fragments the server let go (their timers only), as a browser does
                for fragment in msg.stop_auto_rerun.fragment_ids:
                    self.auto.pop(fragment, None)
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                self._record(msg.delta.new_element)
                if msg.delta.new_element.WhichOneof("type") == "button":
                    self.fragments[msg.delta.new_element.button.label] = msg.delta.fragment_id
                if done():
                    return True
            elif kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.finished = True
                self.runs_finished += 1  # a run that ended for a rerun (st.rerun) is followed by that rerun
                if done():
                    return True
                if msg.script_finished in (ForwardMsg.FINISHED_SUCCESSFULLY,
                                           ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                    return False
        raise TimeoutError(f"no answer within {timeout or self.timeout} s")

    def _record(self, element) -> None:
        kind = element.WhichOneof("type")
        if kind == "button":
            self.buttons[element.button.label] = element.button.id
        elif kind == "radio":
            self.radios[element.radio.label] = (element.radio.id, list(element.radio.options))
        elif kind == "heading":
            self.texts.append(element.heading.body)
        elif kind == "plotly_chart":  # its figure's JSON: titles and labels can be looked for as text
            self.texts.append(element.plotly_chart.spec)
        elif kind == "exception":
            self.exceptions.append(element.exception.message)
        elif kind in ("markdown", "alert"):
            self.texts.append(getattr(element, kind).body)

    def run(self) -> None:
        """Run the page (as on opening it) until its script finishes."""
        self.texts, self.finished = [], False
        self._send()
        self._read_until(lambda: False)

    def click(self, label: str) -> None:
        """Press the button with this label (it must have been drawn)."""
        self.texts, self.finished = [], False
        self._send([self.buttons[label]], self.fragments.get(label, ""))

    def choose(self, label: str, option: int) -> None:
        """Choose the ``option``-th option of the radio with this label (it must have been drawn): a rerun, as
        a browser sends when the choice changes; the value goes with every later rerun."""
        widget_id, options = self.radios[label]
        self.values[widget_id] = options[option]
        self.texts, self.finished = [], False
        self._send()
        self._read_until(lambda: False)

    def watch(self, words: str, timeout: float) -> bool:
        """Wait up to ``timeout`` s for an element containing ``words``, rerunning the fragments that ask for it
        (``run_every``) when they are due, as a browser does; True when it came."""
        deadline = time.time() + timeout
        self.texts = []
        while time.time() < deadline:
            if any(words in t for t in self.texts):
                return True
            now = time.time()
            due = [f for f, (interval, at) in self.auto.items() if at <= now]
            for fragment in due:
                self.auto[fragment] = (self.auto[fragment][0], now + self.auto[fragment][0])
                self._send(fragment_id=fragment, auto=True)
            nxt = min([at for _, at in self.auto.values()] + [deadline])
            try:
                self._read_until(lambda: any(words in t for t in self.texts), max(0.01, min(nxt, deadline) - now))
            except TimeoutError:
                continue
        return any(words in t for t in self.texts)

    def wait_for_text(self, words: str, timeout: float | None = None) -> bool:
        """Read until an element containing ``words`` arrives (True) or the run ends without it (False)."""
        return self._read_until(lambda: any(words in t for t in self.texts), timeout)

    def wait_for_page(self, words: str, timeout: float | None = None) -> bool:
        """Read until the run has finished with an element containing ``words`` on the page (the whole
        page delivered: True), or finished without it (False)."""
        return self._read_until(lambda: self.finished and any(words in t for t in self.texts), timeout)

    def close(self) -> None:
        self.ws.close()
