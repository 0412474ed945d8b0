"""Class rounds of a lesson: the room's answers to the predict-first questions, counted, nobody named.

A teacher starts a *round* of a lesson and gets a short code (``K7Q2``) that the students' link carries, and a
*teacher key* that only the teacher's link carries: revealing a step's answer, moving everyone to the next
step, renaming, exporting and deleting the round all need the key (only its SHA-256 is stored). A student's
answer is recorded under a random token of their browser tab, once per step: a student who changes their
mind replaces their answer, a flood from one token counts once; once a step is revealed its answers are
closed, so what is stored is each student's answer *before* the discussion. A round holds at most
``max_answers`` answers, and rounds older than ``retention_days`` are deleted by :meth:`ClassRounds.sweep`.

The rounds live in the results store's SQLite file (WAL), so several web-server processes serving one class
on one store count together, and a restart keeps the round.
"""

from __future__ import annotations

import csv
import hashlib
import io
import secrets
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from mvlab.store.results import default_path
from mvlab.store.sqlite import SQLiteFile

__all__ = ["ClassRounds", "Round", "RoundStarted", "RoundError", "CODE_ALPHABET", "normal_code"]

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Letters and digits of a round's code: none that reads like another (no O/0, I/1)."""
CODE_LENGTH = 4

_SCHEMA = """
CREATE TABLE IF NOT EXISTS class_rounds (
    code        TEXT PRIMARY KEY,
    lesson      TEXT NOT NULL,
    name        TEXT NOT NULL,
    key_hash    TEXT NOT NULL,
    created     REAL NOT NULL,
    step        INTEGER NOT NULL DEFAULT 0,
    revealed    TEXT NOT NULL DEFAULT '',
    share       INTEGER NOT NULL DEFAULT 0,
    max_answers INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS class_answers (
    code   TEXT NOT NULL REFERENCES class_rounds(code) ON DELETE CASCADE,
    token  TEXT NOT NULL,
    step   INTEGER NOT NULL,
    choice INTEGER NOT NULL,
    time   REAL NOT NULL,
    PRIMARY KEY (code, token, step)
);
"""


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


class ClassRounds(SQLiteFile):
    """The class rounds kept in the results store's file.

    Parameters
    ----------
    path : path of the SQLite file; default the results store's (:func:`mvlab.store.default_path`).
    retention_days : float, default 30
        Rounds older than this are deleted by :meth:`sweep` (and are not found by :meth:`get`).
    max_answers : int, default 5000
        Answers a new round accepts in all (one per student and step).
    """

    def __init__(self, path=None, *, retention_days: float = 30.0, max_answers: int = 5000, timeout: float = 30.0):
        if not retention_days > 0:
            raise ValueError(f"retention_days must be > 0; got {retention_days!r}.")
        if int(max_answers) < 1:
            raise ValueError(f"max_answers must be >= 1; got {max_answers!r}.")
        super().__init__(Path(path) if path is not None else default_path(), timeout)
        self.retention_days = float(retention_days)
        self.max_answers = int(max_answers)
        try:
            self._open(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ValueError(f"Cannot open the class rounds at {self.path}: {exc}. "
                             "Set MVLAB_STORE to a writable file path.") from None

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
            row = conn.execute("SELECT code, lesson, name, created, step, revealed, share, max_answers FROM "
                               "class_rounds WHERE code = ? AND created >= ?",
                               (normal_code(code), self._oldest_kept(now))).fetchone()
        return None if row is None else self._round(row)

    def rounds(self, now: float | None = None) -> list[Round]:
        """Every round kept, newest first."""
        with self._connect() as conn:
            rows = conn.execute("SELECT code, lesson, name, created, step, revealed, share, max_answers FROM "
                                "class_rounds WHERE created >= ? ORDER BY created DESC",
                                (self._oldest_kept(now),)).fetchall()
        return [self._round(r) for r in rows]

    def many(self, codes, now: float | None = None) -> dict[str, Round]:
        """The rounds of these codes that exist and have not expired, in one query: ``{code: Round}`` (a server
        process looks at every round its students follow at once, not once per student)."""
        codes = sorted({normal_code(c) for c in codes})
        if not codes:
            return {}
        with self._connect() as conn:
            rows = conn.execute("SELECT code, lesson, name, created, step, revealed, share, max_answers FROM "
                                f"class_rounds WHERE created >= ? AND code IN ({', '.join('?' * len(codes))})",
                                (self._oldest_kept(now), *codes)).fetchall()
        return {r[0]: self._round(r) for r in rows}

    def all_counts(self, codes) -> dict[tuple[str, int], dict[int, int]]:
        """Every step's counts of these rounds in one query: ``{(code, step): {choice: count}}``."""
        codes = sorted({normal_code(c) for c in codes})
        if not codes:
            return {}
        with self._connect() as conn:
            rows = conn.execute("SELECT code, step, choice, COUNT(*) FROM class_answers WHERE code IN "
                                f"({', '.join('?' * len(codes))}) GROUP BY code, step, choice", codes).fetchall()
        out: dict = {}
        for code, step, choice, n in rows:
            out.setdefault((code, int(step)), {})[int(choice)] = int(n)
        return out

    def counts(self, code, step: int) -> dict[int, int]:
        """How many students chose each choice (0-based) of ``step``: ``{choice: count}``."""
        with self._connect() as conn:
            rows = conn.execute("SELECT choice, COUNT(*) FROM class_answers WHERE code = ? AND step = ? "
                                "GROUP BY choice", (normal_code(code), int(step))).fetchall()
        return {int(c): int(n) for c, n in rows}

    def holds(self, code, key: str | None) -> bool:
        """Whether ``key`` is the teacher key of round ``code``."""
        with self._connect() as conn:
            row = conn.execute("SELECT key_hash FROM class_rounds WHERE code = ?", (normal_code(code),)).fetchone()
        return bool(row is not None and key and secrets.compare_digest(row[0], _hash(key)))

    def answer_of(self, code, token: str, step: int) -> int | None:
        """The choice a token recorded on a step, or None."""
        with self._connect() as conn:
            row = conn.execute("SELECT choice FROM class_answers WHERE code = ? AND token = ? AND step = ?",
                               (normal_code(code), token, int(step))).fetchone()
        return None if row is None else int(row[0])

    # -------------------------------------------------------------------------------- writing
    def start(self, lesson: str, *, name: str | None = None, share: bool = False,
              now: float | None = None) -> RoundStarted:
        """A new round of ``lesson`` with a fresh code and teacher key (the key is not stored, only its hash)."""
        created = time.time() if now is None else now
        key = secrets.token_urlsafe(16)
        for _ in range(50):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            label = name or f"{lesson} {time.strftime('%Y-%m-%d %H:%M', time.localtime(created))}"
            try:
                with self._transaction() as conn:
                    conn.execute("DELETE FROM class_rounds WHERE code = ? AND created < ?",
                                 (code, self._oldest_kept(now)))  # an expired round frees its code
                    conn.execute("INSERT INTO class_rounds (code, lesson, name, key_hash, created, share, max_answers)"
                                 " VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 (code, lesson, label, _hash(key), created, int(bool(share)), self.max_answers))
            except sqlite3.IntegrityError:
                continue  # the code is taken: draw another
            return RoundStarted(Round(code, lesson, label, created, 0, frozenset(), bool(share), self.max_answers),
                                key)
        raise RoundError("no free round code was found; delete old rounds.")

    def answer(self, code, token: str, step: int, choice: int, now: float | None = None) -> None:
        """Record ``token``'s choice on ``step`` (replacing its earlier one); a ``RoundError`` says why not."""
        code = normal_code(code)
        if not token or len(token) > 64:
            raise RoundError("an answer needs the browser tab's token.")
        with self._transaction() as conn:
            row = conn.execute("SELECT revealed, max_answers FROM class_rounds WHERE code = ? AND created >= ?",
                               (code, self._oldest_kept(now))).fetchone()
            if row is None:
                raise RoundError(f"there is no round {code!r} (or it has expired).")
            if str(int(step)) in row[0].split(","):
                raise RoundError("the teacher has revealed this step's answer: answers to it are closed.")
            known = conn.execute("SELECT 1 FROM class_answers WHERE code = ? AND token = ? AND step = ?",
                                 (code, token, int(step))).fetchone()
            if known is None:
                (n,) = conn.execute("SELECT COUNT(*) FROM class_answers WHERE code = ?", (code,)).fetchone()
                if n >= row[1]:
                    raise RoundError(f"this round is full: it has taken its {row[1]} answers.")
            conn.execute("INSERT INTO class_answers (code, token, step, choice, time) VALUES (?, ?, ?, ?, ?) "
                         "ON CONFLICT (code, token, step) DO UPDATE SET choice = excluded.choice, time = excluded.time",
                         (code, token, int(step), int(choice), time.time() if now is None else now))

    def _as_teacher(self, conn, code: str, key: str):
        row = conn.execute("SELECT key_hash, revealed FROM class_rounds WHERE code = ?", (code,)).fetchone()
        if row is None:
            raise RoundError(f"there is no round {code!r}.")
        if not key or not secrets.compare_digest(row[0], _hash(key)):
            raise RoundError("only the teacher of this round (its teacher link) can do that.")
        return row

    def reveal(self, code, key: str, step: int) -> None:
        """Reveal ``step``'s answer to the class (and close its answers)."""
        code = normal_code(code)
        with self._transaction() as conn:
            _, revealed = self._as_teacher(conn, code, key)
            steps = {s for s in revealed.split(",") if s} | {str(int(step))}
            conn.execute("UPDATE class_rounds SET revealed = ? WHERE code = ?",
                         (",".join(sorted(steps, key=int)), code))

    def move_to(self, code, key: str, step: int) -> None:
        """Move everyone to ``step`` (0-based)."""
        code = normal_code(code)
        with self._transaction() as conn:
            self._as_teacher(conn, code, key)
            conn.execute("UPDATE class_rounds SET step = ? WHERE code = ?", (int(step), code))

    def rename(self, code, key: str, name: str) -> None:
        """Rename the round (its teacher only: ``key``); the name is stripped and cut to 80 characters, and may
        not be empty (``RoundError``)."""
        name = str(name).strip()
        if not name:
            raise RoundError("a round's name cannot be empty.")
        code = normal_code(code)
        with self._transaction() as conn:
            self._as_teacher(conn, code, key)
            conn.execute("UPDATE class_rounds SET name = ? WHERE code = ?", (name[:80], code))

    def delete(self, code, key: str) -> None:
        """Delete the round and every answer of it."""
        code = normal_code(code)
        with self._transaction() as conn:
            self._as_teacher(conn, code, key)
            conn.execute("DELETE FROM class_rounds WHERE code = ?", (code,))

    def sweep(self, now: float | None = None) -> int:
        """Delete the rounds older than the retention (and their answers); returns how many."""
        with self._transaction() as conn:
            cur = conn.execute("DELETE FROM class_rounds WHERE created < ?", (self._oldest_kept(now),))
            return int(cur.rowcount)

    # ---------------------------------------------------------------------------- after class
    def export_csv(self, code, key: str) -> tuple[str, str]:
        """Two CSV texts: ``step, choice, count`` and one row per answer ``step, student, choice, seconds``
        (``student`` numbers the tokens 1, 2, ... in the order they first answered; no identity)."""
        code = normal_code(code)
        with self._connect() as conn:
            self._as_teacher(conn, code, key)
            rows = conn.execute("SELECT token, step, choice, time FROM class_answers WHERE code = ? "
                                "ORDER BY time", (code,)).fetchall()
            (created,) = conn.execute("SELECT created FROM class_rounds WHERE code = ?", (code,)).fetchone()
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
