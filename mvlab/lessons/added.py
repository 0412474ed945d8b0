"""Lessons that teachers add (:class:`mvlab.store.saved_lessons.SavedLessons`) beside the built-in ones: adding a
checked file with its CSV, and finding a lesson by id, built-in first. An added lesson is read again from its file
only when its text changed (one :class:`~mvlab.core.memo.Memo` per process, keyed by the file's and the CSV's
digests), and its store is asked at most every :data:`LOOK_AGAIN_S` seconds per id, so that a class of 300 opening
one added lesson costs the store a few reads, not one per student and page run."""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from mvlab.core.memo import Memo
from mvlab.lessons import LESSONS
from mvlab.lessons.lesson_file import LessonFileError, read_lesson
from mvlab.lessons.lesson_schema import CSV_MAX_BYTES
from mvlab.lessons.model import Lesson
from mvlab.lessons.safe_yaml import MAX_BYTES, YamlProblem, read_yaml
from mvlab.store.saved_lessons import SavedLesson, SavedLessons

__all__ = ["Added", "saved_lessons", "add_lesson", "find_lesson", "lesson_files", "added_titles", "forget",
           "LOOK_AGAIN_S"]

LOOK_AGAIN_S = 10.0
"""Seconds an added lesson read from the store is used before the store is asked again (a change saved on another
server process shows within this time; a change saved in this process shows at once)."""

_STORES = Memo(8)
_READ = Memo(64)
_LOOKED: dict[tuple[str, str], tuple[float, SavedLesson | None]] = {}
_LOOKED_LOCK = threading.Lock()


def saved_lessons(location=None) -> SavedLessons:
    """The added lessons of the store at ``location`` (default the results store's), opened once per process."""
    return _STORES.get(str(location), lambda: SavedLessons(location, builtin=LESSONS))


@dataclass(frozen=True)
class Added:
    """A lesson just added: its ``lesson``, the ``key`` that changes or deletes it, and its ``link``'s query."""

    lesson: Lesson
    key: str

    @property
    def link(self) -> str:
        """The lesson's address on the dashboard (``/lessons?lesson=ID``)."""
        return f"/lessons?lesson={self.lesson.id}"


def lesson_files(path: Path) -> tuple[bytes, dict[str, bytes]]:
    """A lesson file's bytes and the CSV files it names that lie next to it (only those; one larger than a
    lesson's CSV may be is not read: its first bytes stand for it, and the reader says it is too large)."""
    with path.open("rb") as f:  # no more than a lesson file may have, plus one byte to say it is too large
        raw = f.read(MAX_BYTES + 1)
    try:
        runs = read_yaml(raw).value.get("runs", {})
        names = {r["csv"] for r in runs.values() if isinstance(r, dict) and isinstance(r.get("csv"), str)}
    except (YamlProblem, AttributeError):
        return raw, {}  # the reader says what is wrong with the file
    csv_files = {}
    for name in names:
        csv = path.parent / name
        if Path(name).name == name and csv.is_file():
            with csv.open("rb") as f:
                csv_files[name] = f.read(CSV_MAX_BYTES + 1)
    return raw, csv_files


def add_lesson(raw: bytes, csv_files: dict[str, bytes], file: str = "lesson.yaml", key: str | None = None,
               location=None) -> Added:
    """Check a lesson file (every problem at once: :class:`~mvlab.lessons.lesson_file.LessonFileError`) and save
    it with the one CSV file it names; ``key`` to change a lesson saved before."""
    lesson = read_lesson(raw, file, csv_files)
    named = {run.dataset for run in lesson.runs() if run.csv is not None}
    csv_name = next(iter(named), None)
    store = saved_lessons(location)
    key = store.save(lesson.id, lesson.title, lesson.source, csv_name,
                     None if csv_name is None else csv_files[csv_name], key=key)
    forget(lesson.id, location)
    return Added(lesson, key)


def forget(lesson_id: str, location=None) -> None:
    """Drop what this process read of an added lesson (it was saved or deleted here)."""
    with _LOOKED_LOCK:
        _LOOKED.pop((str(location), lesson_id), None)
        _LOOKED.pop((str(location), "\x00titles"), None)


def _recent(where: tuple, fetch):
    """``fetch()``'s value, asked of the store at most every :data:`LOOK_AGAIN_S` seconds for ``where``."""
    now = time.monotonic()
    with _LOOKED_LOCK:
        found = _LOOKED.get(where)
    if found is not None and now - found[0] < LOOK_AGAIN_S:
        return found[1]
    value = fetch()
    with _LOOKED_LOCK:
        _LOOKED[where] = (now, value)
        if len(_LOOKED) > 256:
            _LOOKED.pop(next(iter(_LOOKED)))
    return value


def _saved(lesson_id: str, location) -> SavedLesson | None:
    return _recent((str(location), lesson_id), lambda: saved_lessons(location).get(lesson_id))


def added_titles(location=None) -> dict[str, str]:
    """The added lessons' titles by id, the newest first (asked of the store at most every :data:`LOOK_AGAIN_S`
    seconds; a lesson saved or deleted in this process shows at once)."""
    return _recent((str(location), "\x00titles"), lambda: saved_lessons(location).titles())


def _digest(saved: SavedLesson) -> str:
    h = hashlib.sha256(saved.text.encode())
    h.update(saved.csv or b"")
    return h.hexdigest()


def find_lesson(lesson_id: str, location=None) -> Lesson:
    """The built-in lesson ``lesson_id``, else the added one; ValueError naming the built-in lessons when there is
    neither (a store that cannot answer: :class:`~mvlab.store.StoreUnavailable`)."""
    if lesson_id in LESSONS:
        return LESSONS[lesson_id]
    saved = _saved(lesson_id, location) if isinstance(lesson_id, str) else None
    if saved is None:
        raise ValueError(f"There is no lesson '{str(lesson_id)[:40]}'; the lessons are {', '.join(LESSONS)} and "
                         "those added to the store (python -m mvlab lesson add FILE).")
    try:
        return _READ.get(_digest(saved), lambda: read_lesson(saved.text.encode(), f"{saved.id} (added)",
                                                               saved.csv_files(), data=False))
    except LessonFileError as exc:  # saved by an older mvlab whose format read it
        raise ValueError(f"The added lesson '{saved.id}' cannot be read by this version of mvlab:\n{exc}") from None
