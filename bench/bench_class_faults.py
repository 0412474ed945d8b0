"""A class round under faults and abuse: reloads, a student acting as the teacher, made-up choices, the store gone
for 20 s, a server process killed. Does every answer count once, and does every student still reach the next step?

    python bench/bench_class_faults.py                                   # 100 students, both stores, every fault
    python bench/bench_class_faults.py --store sqlite --faults reload kill --students 60

The server is ``mvlab serve`` with two Streamlit processes behind nginx (:func:`mvlab.deploy.serve.serving`, its
supervisor included), on a SQLite file and on a real PostgreSQL server (a throw-away cluster of Debian's package,
started as ``tests/postgres_server.py`` does), the DVS lesson warmed first, as in ``bench/bench_class_round.py``
(whose helpers this bench imports: the warm-up, the server, the client processes, the server's CPU). Each fault
is one round of the lesson on the same server: the students (``--students``, spread over ``--client-processes``
processes of threads) open the students' link of step 2 within ``--open-within`` seconds and answer within
``--answer-within`` seconds; once every student is in (or after a deadline) the teacher's page presses *Next step for
everyone* and each student waits for the next step's heading. Every student and the teacher is a session speaking
Streamlit's own protocol (``tests/streamlit_client.py``), as a browser does, with its own browser cookie
(``mvlab_id``: 22 random URL-safe characters, so a reload finds the same student) and its own ``mvlab_server``
cookie (nginx keeps a browser on one process by it). A student whose connection breaks reconnects as a browser
does (after 0.5 to 2 s, with a new session, the same cookies and the address its page last wrote).

The faults, one round each:

* ``reload``: every student, 1 to 6 s after their answer was confirmed, reloads (closes the session and opens a
  new one with the same cookie), then answers again before the reveal: the same choice (half of them: nothing to
  send) or another one (*Send my new answer*). One answer each must be counted, the last one confirmed.
* ``forge``: once the class has answered, sessions with students' cookies open what the projector shows, the
  teacher's address ``lesson=dvs&step=2&teacher=1&round=CODE`` (the teacher key lives in the teacher's browser
  only), as it is, with a made-up ``key=``, and with a made-up teacher cookie ``mvlab_teacher_CODE``, and press
  *Reveal the answer to the class* and *Next step for everyone*: by the button when their page draws it, else by
  replaying the teacher's own widget ids in the protocol (as a whole-page run, and as a run of the teacher's
  fragment). A forged action succeeded when the round's step or revealed steps changed in the store.
* ``bogus``: every student first sends a made-up choice in the radio's protocol value (``7``, ``-3``, ``abc`` or a
  30-digit number, in turn), then a real answer. None may be counted (checked in the store right after it).
* ``ahead``: every student first presses *Next* past the class's step and answers there if the page lets them, then
  comes back and answers the class's step. No question may be offered off the class's step, no answer counted there.
* ``flood``: once the class has answered, ``FLOOD_SESSIONS`` sessions without a cookie (each a new browser) from one
  address, as a script does: through nginx with a forwarded address (nginx appends this machine's, a trusted proxy's,
  so the script's is the one counted). No more than the per-minute limit of new browsers from one address may get in.
* ``outage``: 2 s into the answers the store goes away for ``--outage`` seconds (PostgreSQL: ``pg_ctl stop -m
  fast``, then started again; SQLite: another process holds the file's write lock, ``BEGIN IMMEDIATE``). A student
  whose page says the answer was not sent presses Send again 1 to 3 s later, as a person would; one whose page says
  the store is unavailable waits for the page to come back by itself, then presses Send. Every student who saw
  "Your answer is in" must have that answer in the store, and every student must get in; the teacher moves the
  class once every student is in and the fault has cleared.
* ``kill``: once the class has answered, the server process that does not serve the teacher is killed (SIGKILL);
  ``serve``'s supervisor starts it again; the teacher presses *Next step* ``--click-after-kill`` seconds after the
  death (while the dead process's students reconnect). Their answers must be kept, and every student must be on
  the next step within 10 s of the death.

Reported per fault and store: answers counted, lost (a student saw "Your answer is in" and the store does not
hold that answer), counted twice (answers beyond one per student), made-up choices counted, forged actions that
succeeded, students in, students on the next step and the median and slowest time from the click (from the death
for ``kill``), pages that showed a traceback, the server's CPU seconds during the round (its web processes and
nginx; for ``kill`` the dead process until its death and the one started in its place). Targets: 0 lost, 0
counted twice, 0 forged, 0 answers off the class's step, 0 admitted past the limit, every student on the next
step within 2 s of *next step* once the fault has cleared, and
within 10 s of a process's death.

Prints a table; docs/bench/bench_class_faults.txt keeps the latest output.
"""

from __future__ import annotations

import argparse
import functools
import os
import queue
import random
import shlex
import signal
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402
import sqlalchemy as sa  # noqa: E402
from bench_class_round import LESSON, STEP, ServerLoad, served_by_mvlab, start_clients, warm  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

from streamlit_client import StudentSession  # noqa: E402

FAULTS = ("reload", "forge", "bogus", "ahead", "flood", "outage", "kill")
STORES = ("sqlite", "postgresql")
IN = "Your answer is in"
NOT_SENT = "Your answer was not sent"
REFUSED = "not one of the choices"
QUESTION = "Predict first"
SEND = ("Send my answer", "Send my new answer")
REVEAL, NEXT = "Reveal the answer to the class", "Next step for everyone →"
BOGUS = ("7", "-3", "abc", "123456789012345678901234567890")
TOKEN_CHARS = string.ascii_letters + string.digits + "-_"
MOVE_WAIT = 15.0  # seconds a student waits for the next step after the click before it counts as not moved
RELOAD_AFTER = (1.0, 6.0)  # a student reloads this many seconds after their answer was confirmed
RETRY_AFTER = (1.0, 3.0)  # a person presses Send again this many seconds after "not sent"
RECONNECT_AFTER = (0.5, 2.0)  # a browser reconnects this many seconds after its connection broke
TARGET_MOVE, TARGET_AFTER_DEATH = 2.0, 10.0


class Browser(StudentSession):
    """A student's session that also knows which buttons its page drew since the last request it sent (a button
    is pressed only when the page shows it, as a person does), and which server process answered it."""

    def __init__(self, *args, **kwargs):
        self.drawn: set[str] = set()
        super().__init__(*args, **kwargs)

    def _send(self, *args, **kwargs) -> None:
        self.drawn = set()
        super()._send(*args, **kwargs)

    def _record(self, element) -> None:
        super()._record(element)
        if element.WhichOneof("type") == "button":
            self.drawn.add(element.button.label)
        elif element.WhichOneof("type") == "exception":  # where it was raised: the app's frames of its stack
            ours = [line.strip().split("\n")[0].replace(str(ROOT) + "/", "") for line in element.exception.stack_trace
                    if str(ROOT) in line and "/.venv/" not in line]
            self.exceptions[-1] += " | " + " / ".join(ours[-5:])

    @property
    def process(self) -> str:
        """The server process nginx sent this session to (``127.0.0.1:PORT``)."""
        return self.ws.response.headers.get("X-Mvlab-Server", "").split(",")[-1].strip()

    def settle(self, timeout: float = 60.0) -> None:
        """Read until the run in progress has finished."""
        try:
            self._read_until(lambda: False, timeout)
        except TimeoutError:
            pass

    def has(self, words: str) -> bool:
        return any(words in t for t in self.texts)


def student_cookie(rng: random.Random) -> tuple[str, str]:
    """A new browser's cookies (its anonymous token, and nginx's key that keeps it on one process) and token."""
    token = "".join(rng.choice(TOKEN_CHARS) for _ in range(22))
    return f"mvlab_id={token}; mvlab_server={rng.getrandbits(64):016x}", token


@functools.lru_cache(maxsize=None)
def _rounds_at(location: str):
    from mvlab.store import ClassRounds

    return ClassRounds(location)


def open_page(url: str, query: str, cookie: str, row: dict, until: float, rng: random.Random) -> Browser:
    """Open the page as a browser does, trying again while the server cannot be reached (a process restarting)."""
    while True:
        try:
            b = Browser(url, "lessons", query, timeout=60, cookie=cookie)
            row.setdefault("processes", []).append(b.process)
            return b
        except (OSError, InvalidStatus, TimeoutError, ConnectionClosed):
            if time.time() > until:
                raise
            time.sleep(rng.uniform(*RECONNECT_AFTER))


def keep_exceptions(b: Browser, row: dict) -> None:
    """Count the tracebacks this session's page showed (their message and the app's frames kept, to be reported)."""
    row["exceptions"] = row.get("exceptions", 0) + len(b.exceptions)
    row.setdefault("tracebacks", []).extend(e.replace("\n", " ")[:600] for e in b.exceptions)
    b.exceptions = []


def send_until_in(b: Browser, prompt: str, choice: int, until: float, rng: random.Random, row: dict) -> bool:
    """Choose ``choice`` and press Send until the page says the answer is in (True), as a person does: again a
    moment after "not sent", after the page came back by itself where it said the store is unavailable; False at
    ``until``. Nothing to press (the choice is the one already confirmed): True when the page says it is in. A page
    that opened while the store was away has no question yet: wait for it (it comes back by itself), as a person
    does, instead of failing on the missing choices."""
    if prompt not in b.radios:
        row["store_waits"] = row.get("store_waits", 0) + 1
        if not b.watch(QUESTION, max(0.1, until - time.time())):
            return False
        b.settle()
        b.auto.clear()
        if prompt not in b.radios:
            return False
    b.choose(prompt, choice)
    while time.time() < until:
        label = next((lb for lb in SEND if lb in b.drawn), None)
        if label is None:
            if b.has(QUESTION):  # the question without a Send button: this choice is the one confirmed
                return b.has(IN)
            row["store_waits"] = row.get("store_waits", 0) + 1  # the page says the store is unavailable
            if b.watch(QUESTION, max(0.1, until - time.time())):  # it comes back by itself
                b.settle()
                b.auto.clear()  # the page's "look again" part is gone: a browser stops rerunning it
            continue
        b.click(label)
        b.settle()
        row["sends"] = row.get("sends", 0) + 1
        if b.has(IN) and not b.has(NOT_SENT) and not any(lb in b.drawn for lb in SEND):
            return True  # (with a Send button still drawn, "in" is the answer sent before this one)
        if b.has(NOT_SENT):
            row["not_sent"] = row.get("not_sent", 0) + 1
        time.sleep(rng.uniform(*RETRY_AFTER))
    return False


def wait_moved(b: Browser, url: str, heading: str, cookie: str, clicked, end: float, rng: random.Random,
               row: dict) -> Browser:
    """Wait for the next step's heading (its time in ``row["moved"]``), reconnecting as a browser does when the
    connection breaks; give up ``MOVE_WAIT`` s after the teacher's click (``clicked.value``) or at ``end``."""
    while time.time() < end:
        at = clicked.value
        if at and time.time() > at + MOVE_WAIT:
            return b
        try:
            if b.watch(heading, 1.0):
                row["moved"] = time.time()
                return b
        except (ConnectionClosed, OSError):
            row["broke"] = time.time()
            row["reconnects"] = row.get("reconnects", 0) + 1
            keep_exceptions(b, row)
            query = b.query
            try:
                b.close()
            except Exception:  # noqa: BLE001 - a broken connection
                pass
            time.sleep(rng.uniform(*RECONNECT_AFTER))
            b = open_page(url, query, cookie, row, end, rng)
            if b.has(heading):
                row["moved"], row["reopened moved"] = time.time(), True
                return b
            row["kept after reconnecting"] = b.has(IN)  # the reconnected page finds the answer this browser sent
    return b


def fault_student(url, store, fault, code, prompt, heading, cookie, token, open_at, answer_at, send_until, end,
                  ready, clicked, seed, out):
    """One student of a round with ``fault``: open the link at ``open_at``, answer at ``answer_at`` (with the
    fault's abuse), say it is ready (``ready``), then wait for the next step; its row goes into ``out[seed]``."""
    rng, row = random.Random(seed), {"token": token}
    out[seed] = row
    b = None
    try:
        time.sleep(max(0.0, open_at - time.time()))
        b = open_page(url, f"lesson={LESSON}&step={STEP}&round={code}", cookie, row, send_until, rng)
        row["opened"] = time.time()
        time.sleep(max(0.0, answer_at - time.time()))
        if fault == "ahead":  # Next past the class's step, answer there if the page lets one, then come back
            b.click("Next →")
            b.settle()
            row["ahead offered"] = any(name != prompt for name in b.radios)  # a question to send off the step
            if row["ahead offered"]:
                other = next(name for name in b.radios if name != prompt)
                b.choose(other, 0)
                if any(label in b.drawn for label in SEND):
                    b.click(next(label for label in SEND if label in b.drawn))
                    b.settle()
            row["ahead counted"] = _rounds_at(store).answer_of(code, token, STEP) is not None
            b.click("← Back")
            b.settle()
        if fault == "bogus":
            value = BOGUS[seed % len(BOGUS)]
            widget_id, _ = b.radios[prompt]
            b.choose(prompt, 0)
            b.values[widget_id] = value  # the script sends its own value, not one of the radio's options
            b.click("Send my answer")
            b.settle()
            row["bogus"] = value
            row["bogus_refused"] = b.has(REFUSED) and not b.has(IN)
            row["bogus_counted"] = _rounds_at(store).answer_of(code, token, STEP - 1) is not None
        choice = rng.randrange(3)
        if send_until_in(b, prompt, choice, send_until, rng, row):
            row["confirmed"], row["confirmed_at"] = choice, time.time()
        else:  # what the page said last
            row["last page"] = [t[:160] for t in b.texts if not t.startswith("{")][-4:]
        if fault == "reload" and "confirmed" in row:
            time.sleep(rng.uniform(*RELOAD_AFTER))
            query = b.query
            keep_exceptions(b, row)
            b.close()
            b = open_page(url, query, cookie, row, send_until, rng)
            row["kept"] = b.has(IN)  # the reloaded page finds the answer this browser sent
            again = choice if rng.random() < 0.5 else (choice + rng.randrange(1, 3)) % 3
            if send_until_in(b, prompt, again, send_until, rng, row):
                row["confirmed"], row["again"] = again, again != choice
        ready.put(seed)
        b = wait_moved(b, url, heading, cookie, clicked, end, rng, row)
    except Exception as exc:  # noqa: BLE001 - a lost session is counted, with its reason
        row["error"] = f"{type(exc).__name__}: {exc}"[:200]
        ready.put(seed)
    finally:
        if b is not None:
            keep_exceptions(b, row)
            try:
                b.close()
            except Exception:  # noqa: BLE001
                pass


# ------------------------------------------------------------------------------------------------ the stores
class SqliteLock:
    """The SQLite file's write lock held by another process (``BEGIN IMMEDIATE``) for a while."""

    name = "SQLite's write lock held by another process"
    SCRIPT = ("import sqlite3, sys, time\n"
              "c = sqlite3.connect(sys.argv[1], timeout=60, isolation_level=None)\n"
              "c.execute('BEGIN IMMEDIATE')\n"
              "print('locked', flush=True)\n"
              "time.sleep(float(sys.argv[2]))\n"
              "c.execute('ROLLBACK')\n")

    def __init__(self, path: Path):
        self.path = path

    def hold(self, seconds: float) -> tuple[float, float]:
        """Hold the lock for ``seconds``; returns when it was taken and released."""
        proc = subprocess.Popen([sys.executable, "-c", self.SCRIPT, str(self.path), str(seconds)],
                                stdout=subprocess.PIPE, text=True)
        proc.stdout.readline()
        taken = time.time()
        proc.wait()
        return taken, time.time()


class PostgresStop:
    """The PostgreSQL server stopped (``pg_ctl stop -m fast``) for a while, then started again as it was."""

    name = "PostgreSQL stopped (pg_ctl stop -m fast), then started"

    def __init__(self, server_url: str):
        import psycopg

        from postgres_server import _as_owner, binaries

        with psycopg.connect(server_url, autocommit=True) as conn:
            self.data = Path(conn.execute("SHOW data_directory").fetchone()[0])
        command = shlex.split((self.data / "postmaster.opts").read_text())
        options = command[1:]
        if "-D" in options:  # pg_ctl gives the data folder itself
            i = options.index("-D")
            del options[i:i + 2]
        self.options, self.as_owner, self.pg_ctl = shlex.join(options), _as_owner, str(binaries() / "pg_ctl")

    def hold(self, seconds: float) -> tuple[float, float]:
        """Stop the server, wait ``seconds``, start it; returns when it was down and when it accepted again."""
        subprocess.run(self.as_owner([self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"]), check=True,
                       capture_output=True)
        down = time.time()
        time.sleep(max(0.0, down + seconds - time.time()))
        subprocess.run(self.as_owner([self.pg_ctl, "-D", str(self.data), "-l", str(self.data.parent / "server.log"),
                                      "-o", self.options, "-w", "-t", "60", "start"]), check=True,
                       capture_output=True)
        return down, time.time()


@contextmanager
def a_store(kind: str):
    """A fresh store of ``kind``, the lesson warmed in it: yields its location and its outage."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "results.sqlite"
            warm(path)
            yield str(path), SqliteLock(path)
    else:
        from postgres_server import new_database, postgres_server

        with postgres_server() as server_url:
            location = new_database(server_url)
            warm(location)
            yield location, PostgresStop(server_url)


# ------------------------------------------------------------------------------------------------ one round
def answers_in_store(rounds, code: str) -> dict[str, int]:
    from mvlab.store.rounds import ANSWERS

    with rounds._connect() as conn:
        rows = conn.execute(sa.select(ANSWERS.c.token, ANSWERS.c.choice)
                            .where(ANSWERS.c.code == code, ANSWERS.c.step == STEP - 1)).all()
    return {token: int(choice) for token, choice in rows}


def forge(url: str, rounds, code: str, teacher: Browser, cookies: list[str], rng: random.Random) -> list[dict]:
    """Students try to act as the teacher from what the projector shows (see the module docstring); one entry per
    try: how, which action, whether the page drew the button, whether the round changed in the store."""
    projected = f"lesson={LESSON}&step={STEP}&teacher=1&round={code}"
    made_up = "".join(rng.choice(TOKEN_CHARS) for _ in range(22))
    ways = [("the projected address", projected, cookies[0]),
            ("the projected address with a made-up key=", f"{projected}&key={made_up}", cookies[1 % len(cookies)]),
            ("a made-up teacher cookie", projected, f"{cookies[2 % len(cookies)]}; mvlab_teacher_{code}={made_up}")]
    tries = []
    for how, query, cookie in ways:
        for label in (REVEAL, NEXT):
            for replay in ("whole page", "teacher's fragment"):
                before = rounds.get(code)
                b = Browser(url, "lessons", query, timeout=60, cookie=cookie)
                drawn = label in b.drawn
                if drawn:
                    b.click(label)
                else:  # the teacher's widget id, replayed in the protocol (ids are the same in every session)
                    b._send([teacher.buttons[label]], teacher.fragments.get(label, "") if replay != "whole page"
                            else "")
                b.settle(3)  # a replayed fragment the session does not have ends no run: nothing comes back
                after = rounds.get(code)
                tries.append({"how": how, "action": label, "replay": replay, "drawn": drawn,
                              "forged": (after.step, after.revealed) != (before.step, before.revealed),
                              "exceptions": len(b.exceptions)})
                b.close()
                if drawn:
                    break  # pressed as drawn: the replay adds nothing
    return tries


FLOOD_SESSIONS, FLOOD_ADDRESS = 160, "198.51.100.7"
FLOOD_LIMIT = 120  # new browsers one address may bring per minute (MVLAB_ROUND_JOINS_PER_ADDRESS's default)


def flood(url: str, rounds, code: str) -> dict:
    """Once the class has answered: ``FLOOD_SESSIONS`` sessions without a cookie (each a new browser) through nginx,
    as a script behind one address does, each sending ``X-Forwarded-For: FLOOD_ADDRESS`` (nginx appends the address
    it saw, this machine's: a trusted proxy, so the script's address is the one counted), each answering if its page
    lets it. Admitted: pages that did not say the student could not join; counted: their answers in the store."""
    before = sum(rounds.counts(code, STEP - 1).values())
    admitted, refusals, start = 0, set(), time.time()
    for _ in range(FLOOD_SESSIONS):
        b = Browser(url, "lessons", f"lesson={LESSON}&step={STEP}&round={code}", timeout=60,
                    headers={"X-Forwarded-For": FLOOD_ADDRESS})
        refused = [t for t in b.texts if "could not join class round" in t]
        if refused:
            refusals.add(refused[0].split(": ", 1)[-1][:120])
        else:
            admitted += 1
            prompt = next(iter(b.radios), None)
            if prompt is not None:
                b.choose(prompt, 0)
                if SEND[0] in b.drawn:
                    b.click(SEND[0])
                    b.settle(10)
        b.close()
    return {"sessions": FLOOD_SESSIONS, "admitted": admitted, "seconds": time.time() - start,
            "counted": sum(rounds.counts(code, STEP - 1).values()) - before, "refusals": sorted(refusals)}


def process_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def run_fault(fault: str, served, store: str, outage, n: int, clients: int, open_within: float,
              answer_within: float, outage_s: float, click_after_kill: float, cookies: list[tuple[str, str]],
              seed: int) -> dict:
    import multiprocessing

    from mvlab.lessons import LESSONS
    from mvlab.store import ClassRounds

    lesson = LESSONS[LESSON]
    prompt, heading = lesson.steps[STEP - 1].question.prompt, lesson.steps[STEP].title
    rng = random.Random(seed)
    rounds = ClassRounds(store)
    started = rounds.start(LESSON, step=STEP - 1)
    code, key = started.round.code, started.key
    url = served.url
    teacher_id = "".join(rng.choice(TOKEN_CHARS) for _ in range(22))
    teacher = Browser(url, "lessons", f"lesson={LESSON}&step={STEP}&teacher=1&round={code}", timeout=300,
                      cookie=f"mvlab_id={teacher_id}; mvlab_teacher_{code}={key}")
    if NEXT not in teacher.buttons:
        raise RuntimeError(f"the teacher's page has no '{NEXT}' button: {[t[:200] for t in teacher.texts]} "
                           f"{teacher.exceptions}")
    load = ServerLoad(served.pids())
    load.start()
    begin = time.time() + 3.0  # the client processes start meanwhile
    answers_from = begin + open_within
    fault_from = answers_from + 2.0
    send_until = answers_from + answer_within + 60.0 + (outage_s if fault == "outage" else 0.0)
    end = send_until + MOVE_WAIT + 30.0
    ctx = multiprocessing.get_context("spawn")
    ready, clicked = ctx.Queue(), ctx.Value("d", 0.0)
    plans = [(url, store, fault, code, prompt, heading, cookie, token, begin + rng.uniform(0, open_within),
              answers_from + rng.uniform(0, answer_within), send_until, end, ready, clicked, i)
             for i, (cookie, token) in enumerate(cookies[:n])]
    workers, results = start_clients(fault_student, plans, clients)
    out: dict = {"fault": fault, "n": n, "code": code}

    def teacher_watches():  # the teacher's page refreshes its count by itself while the class answers
        teacher.watch(f"{n} answered", max(1.0, send_until - time.time()))

    watcher = threading.Thread(target=teacher_watches, daemon=True)
    watcher.start()
    fault_thread = None
    if fault == "outage":
        def go_away():
            time.sleep(max(0.0, fault_from - time.time()))
            out["outage"] = outage.hold(outage_s)

        fault_thread = threading.Thread(target=go_away, daemon=True)
        fault_thread.start()
    readied: set[int] = set()
    while len(readied) < n and time.time() < send_until + 5:
        try:
            readied.add(ready.get(timeout=1.0))
        except queue.Empty:
            continue
    out["ready"] = len(readied)
    watcher.join()  # its own deadline bounds it
    if fault_thread is not None:
        fault_thread.join()  # the teacher moves the class on once the fault has cleared
    if fault == "forge":
        out["forge"] = forge(url, rounds, code, teacher, [c for c, _ in cookies[:3]], rng)
    if fault == "flood":
        out["flood"] = flood(url, rounds, code)
    if fault == "kill":
        on = teacher.process
        victim = next(s for s, b in zip(served.servers, served.backends) if not b.endswith(on))
        backend = served.backends[served.servers.index(victim)]
        out["killed"] = f"{victim.name}, pid {victim.process.pid}"
        time.sleep(1.0)
        dead = psutil.Process(victim.process.pid)
        dead_cpu = sum(dead.cpu_times()[:2])  # what the load's sum loses with it
        os.kill(dead.pid, signal.SIGKILL)
        out["death"] = time.time()

        def back_again():
            while not process_answers(backend) and time.time() < out["death"] + 120:
                time.sleep(0.2)
            out["restarted"] = time.time() - out["death"]

        threading.Thread(target=back_again, daemon=True).start()
        time.sleep(max(0.0, out["death"] + click_after_kill - time.time()))
    out["clicked"] = clicked.value = time.time()
    teacher.click(NEXT)
    rows: dict[int, dict] = {}
    for _ in workers:
        rows.update(results.get())
    for w in workers:
        w.join()
    load.stop()
    out["cpu"] = load.cpu1 - load.cpu0
    if fault == "kill":  # the dead process's CPU until its death, and its successor's
        out["cpu"] += dead_cpu + sum(psutil.Process(victim.process.pid).cpu_times()[:2])
    try:
        teacher.settle(10)
    except (ConnectionClosed, OSError):
        pass
    keep_exceptions(teacher, out)
    teacher.close()
    now = rounds.get(code)
    out["round moved"] = now is not None and now.step == STEP
    out["rows"], out["stored"] = rows, answers_in_store(rounds, code)
    return out


# ------------------------------------------------------------------------------------------------ the report
def summary(r: dict) -> dict:
    """The figures of one round (see the module docstring)."""
    rows, stored, n = r["rows"], r["stored"], r["n"]
    tokens = {row["token"] for row in rows.values()}
    confirmed = [row for row in rows.values() if "confirmed" in row]
    lost = sum(stored.get(row["token"]) != row["confirmed"] for row in confirmed)
    flooded = r.get("flood", {})
    twice = len(stored) - len(tokens & set(stored)) - flooded.get("counted", 0)  # the flood's own answers apart
    start = r.get("death", r["clicked"])
    moves = sorted(row["moved"] - start for row in rows.values() if "moved" in row)
    forged = [t for t in r.get("forge", []) if t["forged"]]
    bogus = [row for row in rows.values() if "bogus" in row]
    s = {"counted": len(stored), "lost": lost, "twice": twice, "in": len(confirmed),
         "bogus counted": sum(row["bogus_counted"] for row in bogus) + sum(c not in range(3) for c in stored.values()),
         "bogus refused": sum(row["bogus_refused"] for row in bogus), "bogus sent": len(bogus),
         "forged": len(forged), "forge tries": len(r.get("forge", [])), "moved": len(moves),
         "p50": statistics.median(moves) if moves else float("nan"), "max": max(moves) if moves else float("nan"),
         "exceptions": sum(row.get("exceptions", 0) for row in rows.values()) + r.get("exceptions", 0)
         + sum(t["exceptions"] for t in r.get("forge", [])),
         "errors": sorted({row["error"] for row in rows.values() if "error" in row}),
         "reloaded kept": sum(bool(row.get("kept")) for row in rows.values() if "kept" in row),
         "reloaded": sum("kept" in row for row in rows.values()),
         "changed": sum(bool(row.get("again")) for row in rows.values()),
         "not sent": sum(row.get("not_sent", 0) for row in rows.values()),
         "store waits": sum(row.get("store_waits", 0) for row in rows.values()),
         "sends": sum(row.get("sends", 0) for row in rows.values()),
         "reconnected": sum(row.get("reconnects", 0) > 0 for row in rows.values()),
         "reconnected kept": sum(bool(row.get("kept after reconnecting")) for row in rows.values()),
         "reopened moved": sum(bool(row.get("reopened moved")) for row in rows.values()),
         "tracebacks": sorted({t for row in [*rows.values(), r] for t in row.get("tracebacks", [])}),
         "last pages": [row["last page"] for row in rows.values() if "last page" in row],
         "stuck": sorted({tuple(row.get("processes", [])) for row in rows.values() if "moved" not in row}),
         "ahead offered": sum(bool(row.get("ahead offered")) for row in rows.values()),
         "ahead counted": sum(bool(row.get("ahead counted")) for row in rows.values()),
         "ahead tried": sum("ahead counted" in row for row in rows.values()),
         "flood admitted": flooded.get("admitted", 0),
         "flood past limit": max(0, flooded.get("admitted", 0) - FLOOD_LIMIT)}
    limit = TARGET_AFTER_DEATH if "death" in r else TARGET_MOVE
    s["met"] = (lost == 0 and twice == 0 and s["forged"] == 0 and s["bogus counted"] == 0 and len(confirmed) == n
                and len(moves) == n and s["max"] <= limit and r["round moved"] and s["ahead counted"] == 0
                and s["ahead offered"] == 0 and s["flood past limit"] == 0)
    return s


def report(results: list[tuple[str, dict]], args) -> None:
    print(f"{args.students} students over {args.client_processes} client processes; 2 server processes behind "
          f"nginx; students open the link within {args.open_within:.0f} s and answer within "
          f"{args.answer_within:.0f} s")
    print(f"{'store':<10} {'fault':<7} {'counted':>8} {'lost':>4} {'twice':>5} {'forged':>8} {'bogus':>7} "
          f"{'in':>8} {'moved':>8} {'p50/max (s)':>12} {'from':>6} {'tracebacks':>10} {'CPU s':>6}  targets")
    for store, r in results:
        s, n = summary(r), r["n"]
        forged = f"{s['forged']}/{s['forge tries']}" if r["fault"] == "forge" else "-"
        bogus = f"{s['bogus counted']}/{s['bogus sent']}" if r["fault"] == "bogus" else "-"
        print(f"{store:<10} {r['fault']:<7} {s['counted']:>4}/{n:<3} {s['lost']:>4} {s['twice']:>5} {forged:>8} "
              f"{bogus:>7} {s['in']:>4}/{n:<3} {s['moved']:>4}/{n:<3} {s['p50']:>5.2f}/{s['max']:<6.2f} "
              f"{'death' if 'death' in r else 'click':>6} {s['exceptions']:>10} {r['cpu']:>6.1f}  "
              + ("met" if s["met"] else "NOT met"))
        for line in details(r, s):
            print(f"           {line}")
    print(f"targets: 0 lost, 0 counted twice, 0 made-up choices counted, 0 forged actions, 0 questions offered or "
          f"answers counted off the class's step, 0 browsers from one address admitted past {FLOOD_LIMIT} a minute "
          "(the flood's own answers are in 'counted'), every student in and on "
          f"the next step within {TARGET_MOVE:.0f} s of the click once the fault has cleared "
          f"({TARGET_AFTER_DEATH:.0f} s of the death for kill)")


def details(r: dict, s: dict) -> list[str]:
    lines = []
    if r["fault"] == "reload":
        lines.append(f"{s['reloaded']} reloaded; {s['reloaded kept']} found their answer on the reloaded page; "
                     f"{s['changed']} then sent another answer")
    elif r["fault"] == "forge":
        shown = sum(t["drawn"] for t in r["forge"])
        lines.append(f"{s['forge tries']} forged presses ({', '.join(dict.fromkeys(t['how'] for t in r['forge']))}; "
                     f"by the drawn button or the teacher's replayed widget id): the teacher's buttons drawn for the "
                     f"forger {shown} times, the round changed {s['forged']} times")
    elif r["fault"] == "bogus":
        lines.append(f"{s['bogus sent']} made-up choices sent ({', '.join(BOGUS[:3])}, a 30-digit number): "
                     f"{s['bogus refused']} refused in words on the page, {s['bogus counted']} counted")
    elif r["fault"] == "ahead":
        lines.append(f"{s['ahead tried']} students pressed Next past the class's step before answering: a question "
                     f"offered there {s['ahead offered']} times, an answer counted there {s['ahead counted']} times")
    elif r["fault"] == "flood":
        f = r["flood"]
        lines.append(f"{f['sessions']} new browsers from one address ({FLOOD_ADDRESS}, forwarded through nginx) in "
                     f"{f['seconds']:.0f} s: {f['admitted']} admitted (the limit: {FLOOD_LIMIT} a minute), "
                     f"{f['counted']} of their answers counted; refused with: "
                     f"{'; '.join(f['refusals'][:2]) or 'none'}")
    elif r["fault"] == "outage" and "outage" in r:
        down, up = r["outage"]
        lines.append(f"the store away {up - down:.1f} s; {s['sends']} presses of Send, {s['not sent']} pages said "
                     f"'not sent', {s['store waits']} times a page said the store is unavailable and came back by "
                     f"itself; the click {r['clicked'] - up:.1f} s after the store was back")
    elif r["fault"] == "kill":
        lines.append(f"killed {r['killed']}; it answered again {r.get('restarted', float('nan')):.1f} s after its "
                     f"death; the click {r['clicked'] - r['death']:.1f} s after the death; {s['reconnected']} "
                     f"students reconnected: {s['reopened moved']} opened on the next step, {s['reconnected kept']} "
                     f"found their answer on the step they left; slowest move from the click "
                     f"{s['max'] - (r['clicked'] - r['death']):.2f} s")
    if not r["round moved"]:
        lines.append("the teacher's click did not move the round in the store")
    if s["moved"] < r["n"]:
        lines.append(f"{r['n'] - s['moved']} students not on the next step (their processes: "
                     f"{'; '.join(' -> '.join(p) for p in s['stuck'][:4])})")
    for e in s["errors"][:3]:
        lines.append(f"lost session: {e}")
    for e in s["tracebacks"][:3]:
        lines.append(f"traceback on a page: {e}")
    for page in s["last pages"][:2]:
        lines.append(f"a student not in; their page said last: {page}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--store", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--faults", nargs="+", choices=FAULTS, default=list(FAULTS))
    parser.add_argument("--client-processes", type=int, default=4, help="processes the simulated students share")
    parser.add_argument("--open-within", type=float, default=10.0)
    parser.add_argument("--answer-within", type=float, default=10.0)
    parser.add_argument("--outage", type=float, default=20.0, help="seconds the store is away (default 20)")
    parser.add_argument("--click-after-kill", type=float, default=1.0,
                        help="seconds after the process's death the teacher presses Next step (default 1)")
    args = parser.parse_args()
    stores = STORES if args.store == "both" else (args.store,)
    print(f"bench_class_faults: lesson {LESSON!r} step {STEP}, faults {', '.join(args.faults)}, "
          f"{psutil.cpu_count()} cores", flush=True)
    rng = random.Random(0)
    cookies = [student_cookie(rng) for _ in range(args.students)]
    results = []
    env = {"MVLAB_WORKERS": "1", "MVLAB_DASHBOARD": "off"}
    for kind in stores:
        with a_store(kind) as (location, outage):
            with served_by_mvlab(location, 2, env) as served:
                for i, fault in enumerate(args.faults):
                    t = time.time()
                    r = run_fault(fault, served, location, outage, args.students, args.client_processes,
                                  args.open_within, args.answer_within, args.outage, args.click_after_kill, cookies,
                                  seed=i)
                    results.append((kind, r))
                    print(f"  {kind} {fault}: done in {time.time() - t:.0f} s", flush=True)
    report(results, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
