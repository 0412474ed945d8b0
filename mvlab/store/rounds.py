"""Class rounds of a lesson: the room's answers to the predict-first questions, counted, nobody named.

A teacher starts a *round* of a lesson and gets a short code (``K7Q2``) that the students' link carries, and a
*teacher key* that only the teacher holds: revealing a step's answer, moving everyone to the next step,
renaming, exporting and deleting the round all need the key (only its SHA-256 is stored). A student's answer is
recorded under an anonymous token of their browser, once per step: a student who changes their mind replaces
their answer, the same answer sent twice counts once, a flood from one token counts once; once a step is
revealed its answers are closed, so what is stored is each student's answer *before* the discussion. Every value
is checked before it is stored (a code of the round alphabet, a step and a choice that are whole numbers in
their range, a token of URL-safe characters), and refused in words (:class:`RoundError`).

A browser that opens a round *joins* it (:meth:`ClassRounds.join`): one browser may join ``joins_per_browser``
times per ``join_window`` seconds (reloads, tabs), and one network address may bring ``new_per_address`` new
browsers per window, so a script that opens sessions in a loop cannot fill a round in the honest students'
place. A round holds at most ``max_answers`` answers, and rounds older than ``retention_days`` are deleted by
:meth:`ClassRounds.sweep`.

The rounds live in the results store's database (its SQLite file, or its PostgreSQL server:
:mod:`mvlab.store.database`), so several web-server processes serving one class on one store count together, and a
restart keeps the round.
"""

from __future__ import annotations

import csv
import hashlib
import io
import operator
import re
import secrets
import time
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from mvlab.store.database import Database, default_location, plain_text

__all__ = ["ClassRounds", "Round", "RoundStarted", "RoundError", "CODE_ALPHABET", "normal_code", "valid_code",
           "valid_token"]

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Letters and digits of a round's code: none that reads like another (no O/0, I/1)."""
CODE_LENGTH = 4

_METADATA = sa.MetaData()
ROUNDS = sa.Table(
    "class_rounds", _METADATA,
    sa.Column("code", sa.Text, primary_key=True),
    sa.Column("lesson", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("key_hash", sa.Text, nullable=False),
    sa.Column("created", sa.Double, nullable=False),
    sa.Column("step", sa.Integer, nullable=False, server_default="0"),
    sa.Column("revealed", sa.Text, nullable=False, server_default=""),
    sa.Column("share", sa.Integer, nullable=False, server_default="0"),
    sa.Column("max_answers", sa.Integer, nullable=False),
)
ANSWERS = sa.Table(
    "class_answers", _METADATA,
    sa.Column("code", sa.Text, sa.ForeignKey("class_rounds.code", ondelete="CASCADE"), primary_key=True),
    sa.Column("token", sa.Text, primary_key=True),
    sa.Column("step", sa.Integer, primary_key=True),
    sa.Column("choice", sa.Integer, nullable=False),
    sa.Column("time", sa.Double, nullable=False),
)
JOINS = sa.Table(
    "class_joins", _METADATA,
    sa.Column("code", sa.Text, sa.ForeignKey("class_rounds.code", ondelete="CASCADE"), primary_key=True),
    sa.Column("browser", sa.Text, primary_key=True),
    sa.Column("address", sa.Text, nullable=False),
    sa.Column("first", sa.Double, nullable=False),
    sa.Column("window_start", sa.Double, nullable=False),
    sa.Column("joins", sa.Integer, nullable=False),
    sa.Index("class_joins_address", "code", "address", "first"),
)
_PUBLIC = (ROUNDS.c.code, ROUNDS.c.lesson, ROUNDS.c.name, ROUNDS.c.created, ROUNDS.c.step, ROUNDS.c.revealed,
           ROUNDS.c.share, ROUNDS.c.max_answers)
_UPSERT = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}
_OLDEST, _CODE = sa.bindparam("oldest"), sa.bindparam("code")
# the statements a class round's pages run on every look, built once (building one costs more than running it)
_KEPT = sa.select(*_PUBLIC).where(ROUNDS.c.created >= _OLDEST)
_GET = _KEPT.where(ROUNDS.c.code == _CODE)
_MANY = _KEPT.where(ROUNDS.c.code.in_(sa.bindparam("codes", expanding=True)))
_COUNTS = (sa.select(ANSWERS.c.choice, sa.func.count())
           .where(ANSWERS.c.code == _CODE, ANSWERS.c.step == sa.bindparam("step")).group_by(ANSWERS.c.choice))
_ALL_COUNTS = (sa.select(ANSWERS.c.code, ANSWERS.c.step, ANSWERS.c.choice, sa.func.count())
               .where(ANSWERS.c.code.in_(sa.bindparam("codes", expanding=True)))
               .group_by(ANSWERS.c.code, ANSWERS.c.step, ANSWERS.c.choice))
_ANSWER_OF = sa.select(ANSWERS.c.choice).where(ANSWERS.c.code == _CODE, ANSWERS.c.token == sa.bindparam("token"),
                                               ANSWERS.c.step == sa.bindparam("step"))
_KEY_HASH = sa.select(ROUNDS.c.key_hash).where(ROUNDS.c.code == _CODE)
_OPEN_ROUND = (sa.select(ROUNDS.c.revealed, ROUNDS.c.max_answers, ROUNDS.c.step)
               .where(ROUNDS.c.code == _CODE, ROUNDS.c.created >= _OLDEST).with_for_update())
_ANSWERS_IN = sa.select(sa.func.count()).where(ANSWERS.c.code == _CODE)
_JOINED = (sa.select(JOINS.c.window_start, JOINS.c.joins)
           .where(JOINS.c.code == _CODE, JOINS.c.browser == sa.bindparam("browser")))
_NEW_FROM = sa.select(sa.func.count(), sa.func.min(JOINS.c.first)).where(
    JOINS.c.code == _CODE, JOINS.c.address == sa.bindparam("address"), JOINS.c.first >= sa.bindparam("since"))
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_STEPS = 100
"""Steps a round may have (a lesson has six): a step number past it is refused."""
MAX_CHOICES = 26
"""Choices a question may have ((a) to (z)), where the caller does not say how many its step has."""


def _upsert(dialect: str):
    """The dialect's INSERT … ON CONFLICT of an answer (a changed mind replaces the earlier choice)."""
    insert = _UPSERT[dialect](ANSWERS)
    return insert.on_conflict_do_update(index_elements=[ANSWERS.c.code, ANSWERS.c.token, ANSWERS.c.step],
                                        set_={"choice": insert.excluded.choice, "time": insert.excluded.time})


_RECORD_ANSWER = {dialect: _upsert(dialect) for dialect in _UPSERT}
"""Each dialect's INSERT … ON CONFLICT (the same SQL in both; SQLAlchemy builds it per dialect)."""


class RoundError(ValueError):
    """A round operation refused, with the reason in words (unknown code, wrong key, closed step, full)."""


@dataclass(frozen=True)
class Round:
    """What everyone may know of a round (never its key)."""

    code: str
    lesson: str
    name: str
    created: float
    step: int
    """The step the teacher moved everyone to (0-based)."""
    revealed: frozenset = field(default_factory=frozenset)
    """Steps (0-based) whose answer the teacher revealed to the class."""
    share: bool = False
    """Students who answered see the class's distribution (without the right answer) before the reveal."""
    max_answers: int = 5000


@dataclass(frozen=True)
class RoundStarted:
    """A new round: its public part and the teacher key (shown once, to the teacher)."""

    round: Round
    key: str


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def normal_code(code) -> str:
    """A round's code as stored: any case and surrounding spaces accepted (``" k7q2 "`` is ``K7Q2``)."""
    return str(code or "").strip().upper()


def valid_code(code) -> str | None:
    """The round code ``code`` names (:func:`normal_code`), or None when it cannot be one: not
    ``CODE_LENGTH`` characters of :data:`CODE_ALPHABET` (a value from an address is checked before any look-up)."""
    code = normal_code(code)
    return code if len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code) else None


def valid_token(token) -> bool:
    """Whether ``token`` can be a browser's token: 1 to 64 URL-safe characters (letters, digits, ``-``, ``_``)."""
    return isinstance(token, str) and _TOKEN.fullmatch(token) is not None


def _round_name(name) -> str:
    """A round's name as stored: stripped, at most 80 characters; empty, or holding a character that is not text (a
    NUL, a control character: what a forged request sends), is a :class:`RoundError` in words, on SQLite as on
    PostgreSQL."""
    name = str(name).strip()
    if not name:
        raise RoundError("a round's name cannot be empty.")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise RoundError("a round's name cannot hold control characters (such as a NUL byte or a line break).")
    return name[:80]


def _whole(value, what: str, below: int) -> int:
    """``value`` as a whole number in ``[0, below)``, else a :class:`RoundError` in words (a string, a float, a
    bool, a number out of range: whatever a page or an address sent)."""
    if isinstance(value, bool):
        raise RoundError(f"{what} {value!r} is not a whole number.")
    try:
        number = operator.index(value)
    except TypeError:
        raise RoundError(f"{what} {str(value)[:20]!r} is not a whole number.") from None
    if not 0 <= number < below:
        raise RoundError(f"{what} {str(number)[:20]} is out of range (0 to {below - 1}).")
    return number


class ClassRounds(Database):
    """The class rounds kept in the results store's database.

    Parameters
    ----------
    location : a SQLite file or a ``postgresql://`` URL; default the results store's
        (:func:`mvlab.store.default_location`).
    retention_days : float, default 30
        Rounds older than this are deleted by :meth:`sweep` (and are not found by :meth:`get`).
    max_answers : int, default 5000
        Answers a new round accepts in all (one per student and step).
    joins_per_browser : int, default 30
        Times one browser may join a round (open it: a page load, a reload, a tab) per ``join_window``.
    new_per_address : int, default 120
        New browsers one network address may bring into a round per ``join_window`` (0: no limit). A class behind
        one NAT shares an address: raise it for a large class that reaches the server through one.
    join_window : float, default 60
        Seconds over which joins are counted.
    browsers_per_address : int, default 400
        Browsers one network address (an IPv6 /64 network: :func:`mvlab.ui.identity.client_address`) may bring into
        one round in all (0: no limit), so that a script from one place cannot fill a round at the per-minute rate
        (120 a minute fills 5,000 answers' worth of browsers in under an hour). Raise it for a class of more than
        400 behind one NAT.
    timeout : float, default 30
        Seconds a call waits for the store (another writer's lock, a connection) before it is
        :class:`~mvlab.store.database.StoreUnavailable`.
    """

    def __init__(self, location=None, *, retention_days: float = 30.0, max_answers: int = 5000,
                 joins_per_browser: int = 30, new_per_address: int = 120, join_window: float = 60.0,
                 browsers_per_address: int = 400, timeout: float = 30.0):
        if not retention_days > 0:
            raise ValueError(f"retention_days must be > 0; got {retention_days!r}.")
        if int(max_answers) < 1:
            raise ValueError(f"max_answers must be >= 1; got {max_answers!r}.")
        if int(joins_per_browser) < 1 or int(new_per_address) < 0 or not join_window > 0:
            raise ValueError("joins_per_browser must be >= 1, new_per_address >= 0 and join_window > 0; got "
                             f"{joins_per_browser!r}, {new_per_address!r} and {join_window!r}.")
        super().__init__(default_location() if location is None else location, timeout)
        self.retention_days = float(retention_days)
        self.max_answers = int(max_answers)
        self.joins_per_browser, self.new_per_address = int(joins_per_browser), int(new_per_address)
        if int(browsers_per_address) < 0:
            raise ValueError(f"browsers_per_address must be >= 0; got {browsers_per_address!r}.")
        self.browsers_per_address = int(browsers_per_address)
        self.join_window = float(join_window)
        self._open("the class rounds", lambda: self._create(_METADATA))

    # -------------------------------------------------------------------------------- reading
    def _oldest_kept(self, now: float | None) -> float:
        return (time.time() if now is None else now) - self.retention_days * 86400.0

    @staticmethod
    def _round(row) -> Round:
        code, lesson, name, created, step, revealed, share, max_answers = row
        steps = frozenset(int(s) for s in revealed.split(",") if s)
        return Round(code, lesson, name, created, int(step), steps, bool(share), int(max_answers))

    def get(self, code, now: float | None = None) -> Round | None:
        """The round of ``code`` (any case, spaces ignored), or None when there is none or it expired."""
        with self._connect() as conn:
            row = conn.execute(_GET, {"oldest": self._oldest_kept(now), "code": normal_code(code)}).first()
        return None if row is None else self._round(row)

    def rounds(self, now: float | None = None) -> list[Round]:
        """Every round kept, newest first."""
        with self._connect() as conn:
            rows = conn.execute(_KEPT.order_by(ROUNDS.c.created.desc()), {"oldest": self._oldest_kept(now)}).all()
        return [self._round(r) for r in rows]

    def unrevealed(self, lesson: str, since: float, now: float | None = None) -> frozenset[int]:
        """The steps (0-based, below :data:`MAX_STEPS`) that some round of ``lesson`` started at ``since`` or later
        (and kept) has not revealed yet: whose answers no page shows meanwhile to anyone but that round's own teacher
        and, once revealed, its students (issue #71 item 3). A round that has revealed every step it reached hides
        the steps after it still."""
        with self._connect() as conn:
            rows = conn.execute(sa.select(ROUNDS.c.revealed).where(
                ROUNDS.c.lesson == str(lesson), ROUNDS.c.created >= max(float(since), self._oldest_kept(now)))).all()
        hidden: set[int] = set()
        for (revealed,) in rows:
            shown = {int(s) for s in revealed.split(",") if s}
            hidden |= set(range(MAX_STEPS)) - shown
        return frozenset(hidden)

    def many(self, codes, now: float | None = None) -> dict[str, Round]:
        """The rounds of these codes that exist and have not expired, in one query: ``{code: Round}`` (a server
        process looks at every round its students follow at once, not once per student)."""
        codes = sorted({normal_code(c) for c in codes})
        if not codes:
            return {}
        with self._connect() as conn:
            rows = conn.execute(_MANY, {"oldest": self._oldest_kept(now), "codes": codes}).all()
        return {r[0]: self._round(r) for r in rows}

    def all_counts(self, codes) -> dict[tuple[str, int], dict[int, int]]:
        """Every step's counts of these rounds in one query: ``{(code, step): {choice: count}}``."""
        codes = sorted({normal_code(c) for c in codes})
        if not codes:
            return {}
        with self._connect() as conn:
            rows = conn.execute(_ALL_COUNTS, {"codes": codes}).all()
        out: dict = {}
        for code, step, choice, n in rows:
            out.setdefault((code, int(step)), {})[int(choice)] = int(n)
        return out

    def counts(self, code, step: int) -> dict[int, int]:
        """How many students chose each choice (0-based) of ``step``: ``{choice: count}``."""
        with self._connect() as conn:
            rows = conn.execute(_COUNTS, {"code": normal_code(code), "step": int(step)}).all()
        return {int(c): int(n) for c, n in rows}

    def holds(self, code, key: str | None) -> bool:
        """Whether ``key`` is the teacher key of round ``code``."""
        with self._connect() as conn:
            stored = conn.execute(_KEY_HASH, {"code": normal_code(code)}).scalar()
        return bool(stored is not None and key and secrets.compare_digest(stored, _hash(key)))

    def answer_of(self, code, token: str, step: int) -> int | None:
        """The choice a token recorded on a step, or None."""
        with self._connect() as conn:
            choice = conn.execute(_ANSWER_OF, {"code": normal_code(code), "token": token, "step": int(step)}).scalar()
        return None if choice is None else int(choice)

    # -------------------------------------------------------------------------------- writing
    def start(self, lesson: str, *, name: str | None = None, share: bool = False, step: int = 0,
              now: float | None = None) -> RoundStarted:
        """A new round of ``lesson`` with a fresh code and teacher key (the key is not stored, only its hash), the
        class at ``step`` (0-based: where the teacher starts it, where the students' link opens)."""
        step = _whole(step, "step", MAX_STEPS)
        lesson = plain_text(lesson, "a lesson's id")
        created = time.time() if now is None else now
        key = secrets.token_urlsafe(16)
        for _ in range(50):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            label = (_round_name(name) if name
                     else f"{lesson} {time.strftime('%Y-%m-%d %H:%M', time.localtime(created))}")
            try:
                with self._transaction() as conn:  # an expired round frees its code
                    conn.execute(ROUNDS.delete().where(ROUNDS.c.code == code,
                                                       ROUNDS.c.created < self._oldest_kept(now)))
                    conn.execute(ROUNDS.insert().values(code=code, lesson=lesson, name=label, key_hash=_hash(key),
                                                        created=created, share=int(bool(share)), step=step,
                                                        max_answers=self.max_answers))
            except sa.exc.IntegrityError:
                continue  # the code is taken: draw another
            return RoundStarted(Round(code, lesson, label, created, step, frozenset(), bool(share),
                                      self.max_answers), key)
        raise RoundError("no free round code was found; delete old rounds.")

    def join(self, code, browser: str, address: str | None = None, now: float | None = None) -> None:
        """``browser`` opens round ``code`` from network ``address`` (None: unknown, or the server's own machine,
        not counted by address). A ``RoundError`` says when it may not, and how long to wait: the browser
        joined ``joins_per_browser`` times in the last ``join_window`` seconds, or it is new and its address
        brought ``new_per_address`` new browsers in that time, or ``browsers_per_address`` in all. A browser that
        joined before is never refused for its address (a student who reloads keeps their place)."""
        code, browser = self._checked(code, browser)
        now = time.time() if now is None else now
        with self._transaction() as conn:
            if conn.execute(_OPEN_ROUND, {"code": code, "oldest": self._oldest_kept(now)}).first() is None:
                raise RoundError(f"there is no round {code!r} (or it has expired).")
            known = conn.execute(_JOINED, {"code": code, "browser": browser}).first()
            if known is not None:
                start, joins = known
                if now - start >= self.join_window:
                    start, joins = now, 0
                if joins >= self.joins_per_browser:
                    raise RoundError(f"this browser opened the round {joins} times in the last "
                                     f"{self.join_window:.0f} s; wait {start + self.join_window - now:.0f} s.")
                conn.execute(JOINS.update().where(JOINS.c.code == code, JOINS.c.browser == browser)
                             .values(window_start=start, joins=joins + 1))
                return
            if address and self.new_per_address:
                since = now - self.join_window
                new, oldest = conn.execute(_NEW_FROM, {"code": code, "address": address, "since": since}).first()
                if new >= self.new_per_address:
                    raise RoundError(f"{new} new students joined from your network address in the last "
                                     f"{self.join_window:.0f} s, the most this server lets in; wait "
                                     f"{oldest + self.join_window - now:.0f} s and open the link again.")
            if address and self.browsers_per_address:
                total = conn.execute(_NEW_FROM, {"code": code, "address": address, "since": 0.0}).first()[0]
                if total >= self.browsers_per_address:
                    raise RoundError(f"{total} students have joined this round from your network address, the most "
                                     "one address may bring into a round; ask your teacher.")
            conn.execute(JOINS.insert().values(code=code, browser=browser, address=address or "", first=now,
                                               window_start=now, joins=1))

    @staticmethod
    def _checked(code, token) -> tuple[str, str]:
        """``(code, token)`` checked (:func:`valid_code`, :func:`valid_token`), else a :class:`RoundError`."""
        checked = valid_code(code)
        if checked is None:
            raise RoundError(f"{str(code)[:20]!r} is not a round code ({CODE_LENGTH} letters and digits).")
        if not valid_token(token):
            raise RoundError("an answer needs the browser's token (1 to 64 letters, digits, - or _).")
        return checked, token

    def answer(self, code, token: str, step: int, choice: int, now: float | None = None, *,
               choices: int = MAX_CHOICES) -> None:
        """Record ``token``'s choice on ``step`` (replacing its earlier one; the same choice again changes
        nothing); a ``RoundError`` says why not: a value that is not a whole number in range (``step`` below
        :data:`MAX_STEPS`, ``choice`` below ``choices``, the number of the step's choices), a step the class is
        not on (an answer counts only for the step the teacher has the class on: a student who goes ahead or back
        answers nothing there), the step revealed, the round full. The round's row is locked meanwhile
        (PostgreSQL), so answers given at once never pass its cap and never land on a step the class has left."""
        code, token = self._checked(code, token)
        step = _whole(step, "step", MAX_STEPS)
        choice = _whole(choice, "choice", _whole(choices, "the number of choices", MAX_CHOICES + 1))
        with self._transaction() as conn:
            row = conn.execute(_OPEN_ROUND, {"code": code, "oldest": self._oldest_kept(now)}).first()
            if row is None:
                raise RoundError(f"there is no round {code!r} (or it has expired).")
            if str(step) in row[0].split(","):
                raise RoundError("the teacher has revealed this step's answer: answers to it are closed.")
            if step != row[2]:
                raise RoundError(f"the class is on step {row[2] + 1}: answers count only for the step the class is "
                                 "on.")
            known = conn.execute(_ANSWER_OF, {"code": code, "token": token, "step": step}).first()
            if known is not None and known[0] == choice:
                return  # sent again (a retry after a failure, a second tab): counted once, its time kept
            if known is None and conn.execute(_ANSWERS_IN, {"code": code}).scalar() >= row[1]:
                raise RoundError(f"this round is full: it has taken the {row[1]} answers it was started with, so "
                                 "yours could not be counted. Tell your teacher.")
            conn.execute(_RECORD_ANSWER[self.dialect], {"code": code, "token": token, "step": step,
                                                        "choice": choice,
                                                        "time": time.time() if now is None else now})

    def _as_teacher(self, conn, code: str, key: str):
        """The round's ``(key_hash, revealed, created)`` (its row locked, PostgreSQL), if ``key`` is its teacher's."""
        row = conn.execute(sa.select(ROUNDS.c.key_hash, ROUNDS.c.revealed, ROUNDS.c.created)
                           .where(ROUNDS.c.code == code).with_for_update()).first()
        if row is None:
            raise RoundError(f"there is no round {code!r}.")
        if not key or not secrets.compare_digest(row[0], _hash(key)):
            raise RoundError("only the teacher of this round (its teacher link) can do that.")
        return row

    def _teacher_sets(self, code, key: str, **values) -> None:
        """As the round's teacher (``key``), set these columns of the round."""
        code = normal_code(code)
        with self._transaction() as conn:
            self._as_teacher(conn, code, key)
            conn.execute(ROUNDS.update().where(ROUNDS.c.code == code).values(**values))

    def reveal(self, code, key: str, step: int) -> None:
        """Reveal ``step``'s answer to the class (and close its answers)."""
        code, step = normal_code(code), _whole(step, "step", MAX_STEPS)
        with self._transaction() as conn:
            _, revealed, _ = self._as_teacher(conn, code, key)
            steps = {s for s in revealed.split(",") if s} | {str(step)}
            conn.execute(ROUNDS.update().where(ROUNDS.c.code == code)
                         .values(revealed=",".join(sorted(steps, key=int))))

    def move_to(self, code, key: str, step: int) -> None:
        """Move everyone to ``step`` (0-based, below :data:`MAX_STEPS`)."""
        self._teacher_sets(code, key, step=_whole(step, "step", MAX_STEPS))

    def rename(self, code, key: str, name: str) -> None:
        """Rename the round (its teacher only: ``key``) to :func:`_round_name` of ``name``."""
        self._teacher_sets(code, key, name=_round_name(name))

    def delete(self, code, key: str) -> None:
        """Delete the round and every answer of it."""
        code = normal_code(code)
        with self._transaction() as conn:
            self._as_teacher(conn, code, key)
            conn.execute(ROUNDS.delete().where(ROUNDS.c.code == code))

    def sweep(self, now: float | None = None) -> int:
        """Delete the rounds older than the retention (and their answers); returns how many."""
        with self._transaction() as conn:
            return int(conn.execute(ROUNDS.delete().where(ROUNDS.c.created < self._oldest_kept(now))).rowcount)

    # ---------------------------------------------------------------------------- after class
    def export_csv(self, code, key: str) -> tuple[str, str]:
        """Two CSV texts: ``step, choice, count`` and one row per answer ``step, student, choice, seconds``
        (``student`` numbers the tokens 1, 2, ... in the order they first answered; no identity)."""
        code = normal_code(code)
        a = ANSWERS.c
        with self._transaction() as conn:
            _, _, created = self._as_teacher(conn, code, key)
            rows = conn.execute(sa.select(a.token, a.step, a.choice, a.time).where(a.code == code)
                                .order_by(a.time)).all()
        counts: dict = {}
        numbers: dict = {}
        per_answer = io.StringIO()
        w = csv.writer(per_answer, lineterminator="\n")
        w.writerow(["step", "student", "choice", "seconds after the start"])
        for token, step, choice, t in rows:
            numbers.setdefault(token, len(numbers) + 1)
            counts[(step, choice)] = counts.get((step, choice), 0) + 1
            w.writerow([step + 1, numbers[token], choice + 1, round(t - created, 1)])
        totals = io.StringIO()
        w = csv.writer(totals, lineterminator="\n")
        w.writerow(["step", "choice", "count"])
        for (step, choice), n in sorted(counts.items()):
            w.writerow([step + 1, choice + 1, n])
        return totals.getvalue(), per_answer.getvalue()

    def summary(self, code, key: str, correct: dict[int, int]) -> list[dict]:
        """Per step (0-based, with a right choice in ``correct``): answers and the share that chose right
        before the discussion (answers close at the reveal, so every stored answer was given before it)."""
        code = normal_code(code)
        with self._connect() as conn:
            self._as_teacher(conn, code, key)
        out = []
        for step in sorted(correct):
            counts = self.counts(code, step)
            n = sum(counts.values())
            out.append({"step": step, "answers": n,
                        "share correct": (counts.get(correct[step], 0) / n) if n else float("nan")})
        return out
