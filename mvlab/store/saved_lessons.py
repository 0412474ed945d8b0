"""Lessons that teachers add: each lesson file (and its CSV file, if it has one) kept in the results store's database,
so that every server process and every machine on the store opens it from its link (``/lessons?lesson=ID``).

Saving a lesson gives a *key*, as starting a class round does (only its SHA-256 is stored): changing or deleting the
lesson needs it, so a student cannot overwrite a teacher's lesson. An id that a built-in lesson has, or that the
``lesson`` command reads as a word (``all``, ``check``...), is refused; so is anything larger than the lesson
format's limits (the file is checked by :mod:`mvlab.lessons.lesson_file` before it is saved; the store checks the
sizes again, and the id's form).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

import sqlalchemy as sa

from mvlab.store.database import Database, default_location

__all__ = ["SavedLessons", "SavedLesson", "SavedLessonError", "RESERVED_IDS", "MAX_FILE_BYTES", "MAX_CSV_BYTES"]

RESERVED_IDS = frozenset({"all", "check", "export", "add", "delete", "new", "template"})
"""Ids no added lesson may take (words of the ``lesson`` command and of the page)."""
MAX_FILE_BYTES = 256 * 1024
MAX_CSV_BYTES = 2 * 1024 * 1024
_ID = re.compile(r"[a-z][a-z0-9-]{2,39}")
_CSV_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}\.csv")

_METADATA = sa.MetaData()
LESSONS = sa.Table(
    "saved_lessons", _METADATA,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("csv_name", sa.Text, nullable=True),
    sa.Column("csv", sa.LargeBinary, nullable=True),
    sa.Column("key_hash", sa.Text, nullable=False),
    sa.Column("saved", sa.Double, nullable=False),
)


class SavedLessonError(ValueError):
    """A lesson that cannot be saved, changed or deleted, in words."""


@dataclass(frozen=True)
class SavedLesson:
    """An added lesson: its ``id``, ``title``, the file's ``text``, its CSV file (``csv_name``, ``csv`` bytes; None
    when it has none) and when it was last ``saved`` (seconds since the epoch)."""

    id: str
    title: str
    text: str
    csv_name: str | None
    csv: bytes | None
    saved: float

    def csv_files(self) -> dict[str, bytes]:
        """The lesson's CSV file by name (empty when it has none), as the lesson file's reader takes them."""
        return {} if self.csv_name is None else {self.csv_name: self.csv}


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class SavedLessons(Database):
    """The added lessons kept in the results store's database (a SQLite file or a ``postgresql://`` URL; default the
    results store's). ``builtin`` are the ids no added lesson may take (the built-in lessons')."""

    def __init__(self, location=None, *, builtin=(), timeout: float = 30.0):
        super().__init__(default_location() if location is None else location, timeout)
        self.builtin = frozenset(builtin)
        self._open("the added lessons", lambda: self._create(_METADATA))

    def _checked_id(self, lesson_id) -> str:
        if not isinstance(lesson_id, str) or not _ID.fullmatch(lesson_id):
            raise SavedLessonError(f"'{str(lesson_id)[:40]}' cannot be a lesson's id: 3 to 40 lower-case letters, "
                                   "digits and hyphens, starting with a letter.")
        if lesson_id in self.builtin or lesson_id in RESERVED_IDS:
            raise SavedLessonError(f"'{lesson_id}' is taken by mvlab itself (a built-in lesson or a word of the "
                                   "lesson command); give your lesson another id.")
        return lesson_id

    def get(self, lesson_id) -> SavedLesson | None:
        """The lesson saved under ``lesson_id``, or None (also for an id that cannot be one)."""
        if not isinstance(lesson_id, str) or not _ID.fullmatch(lesson_id):
            return None
        with self._connect() as conn:
            row = conn.execute(sa.select(LESSONS.c.id, LESSONS.c.title, LESSONS.c.text, LESSONS.c.csv_name,
                                         LESSONS.c.csv, LESSONS.c.saved).where(LESSONS.c.id == lesson_id)).first()
        return None if row is None else SavedLesson(row[0], row[1], row[2], row[3],
                                                     None if row[4] is None else bytes(row[4]), row[5])

    def titles(self) -> dict[str, str]:
        """Every added lesson's title by id, the most recently saved first."""
        with self._connect() as conn:
            rows = conn.execute(sa.select(LESSONS.c.id, LESSONS.c.title).order_by(LESSONS.c.saved.desc())).all()
        return dict(rows)

    def save(self, lesson_id: str, title: str, text: str, csv_name: str | None = None, csv: bytes | None = None,
             key: str | None = None, now: float | None = None) -> str:
        """Save a lesson (checked already: :func:`mvlab.lessons.lesson_file.read_lesson`); returns the key that
        changes or deletes it. A new id gets a fresh key (a ``key`` given for it is refused: the id is not the one
        meant); an id saved before needs its ``key`` (:class:`SavedLessonError` otherwise), and keeps it."""
        lesson_id = self._checked_id(lesson_id)
        if len(text.encode()) > MAX_FILE_BYTES:
            raise SavedLessonError(f"the lesson file has more than {MAX_FILE_BYTES // 1024} KiB.")
        if (csv_name is None) != (csv is None):
            raise SavedLessonError("a CSV file needs both its name and its bytes.")
        if csv_name is not None and (not _CSV_NAME.fullmatch(csv_name) or len(csv) > MAX_CSV_BYTES):
            raise SavedLessonError(f"the CSV file '{csv_name[:80]}' must be named like data.csv and hold at most "
                                   f"{MAX_CSV_BYTES // 1024 // 1024} MiB.")
        if "\x00" in text or "\x00" in title:
            raise SavedLessonError("a lesson file cannot hold a NUL character.")
        saved = time.time() if now is None else now
        values = {"title": title[:200], "text": text, "csv_name": csv_name, "csv": csv, "saved": saved}
        with self._transaction() as conn:
            found = conn.execute(sa.select(LESSONS.c.key_hash).where(LESSONS.c.id == lesson_id)
                                 .with_for_update()).scalar()
            if found is None:
                if key:  # a key for a lesson that does not exist: a typo in the id, or in the wrong store
                    raise SavedLessonError(f"there is no saved lesson '{lesson_id}' to change: save it without a key "
                                           "(a new lesson's key is given when it is saved).")
                key = secrets.token_urlsafe(16)
                while key.startswith("-"):  # "--key -x..." would read as an option on the command line
                    key = secrets.token_urlsafe(16)
                try:
                    conn.execute(LESSONS.insert().values(id=lesson_id, key_hash=_hash(key), **values))
                except sa.exc.IntegrityError:
                    raise SavedLessonError(f"a lesson '{lesson_id}' was saved at the same moment; save again with "
                                           "its key, or choose another id.") from None
                return key
            if not isinstance(key, str) or not hmac.compare_digest(found, _hash(key)):
                raise SavedLessonError(f"a lesson '{lesson_id}' exists already; changing it needs the key that was "
                                       "given when it was saved (or choose another id).")
            conn.execute(LESSONS.update().where(LESSONS.c.id == lesson_id).values(**values))
            return key

    def delete(self, lesson_id: str, key: str) -> None:
        """Delete a saved lesson; its key is needed (:class:`SavedLessonError` otherwise, also for no such lesson)."""
        lesson_id = self._checked_id(lesson_id)
        with self._transaction() as conn:
            found = conn.execute(sa.select(LESSONS.c.key_hash).where(LESSONS.c.id == lesson_id)).scalar()
            if found is None:
                raise SavedLessonError(f"there is no added lesson '{lesson_id}'.")
            if not isinstance(key, str) or not hmac.compare_digest(found, _hash(key)):
                raise SavedLessonError(f"deleting the lesson '{lesson_id}' needs the key that was given when it was "
                                       "saved.")
            conn.execute(LESSONS.delete().where(LESSONS.c.id == lesson_id))
