"""Guided lessons: steps that set the data and settings, show figures and ask a question before they explain
(:mod:`mvlab.lessons.model`). A lesson is a file (:mod:`mvlab.lessons.lesson_file`): the four built-in ones are
``mvlab/lessons/builtin/*.yaml``; a teacher's are added to the results store (:mod:`mvlab.store.saved_lessons`).
The Lessons page, the ``lesson`` command (``--warm`` computes every step's results into the store, ``--html``
writes a handout) and the handout (:mod:`mvlab.lessons.handout`) all read :data:`LESSONS` and :func:`get_lesson`."""

from pathlib import Path

from mvlab.lessons.lesson_file import BUILTIN_FILES, read_lesson
from mvlab.lessons.model import Lesson, Question, Step, StepContext, StepRun

__all__ = ["LESSONS", "BUILTIN_DIR", "EXAMPLES_DIR", "get_lesson", "Lesson", "Question", "Step", "StepContext",
           "StepRun"]

BUILTIN_DIR = BUILTIN_FILES
"""The built-in lessons' files (one place: :data:`mvlab.lessons.lesson_file.BUILTIN_FILES`)."""
EXAMPLES_DIR = Path(__file__).with_name("examples")
"""The guide's example lessons (``first-lesson.yaml``, the editor's template; ``own-data.yaml`` with its
``tumours.csv``, 240 rows of the bundled breast-cancer data's mean and worst views)."""
BUILTIN_ORDER = ("proximity", "dvs", "ofsp", "siamese")


def _builtin() -> dict[str, Lesson]:
    lessons = {}
    for lesson_id in BUILTIN_ORDER:
        path = BUILTIN_DIR / f"{lesson_id}.yaml"
        lessons[lesson_id] = read_lesson(path.read_bytes(), f"mvlab/lessons/builtin/{path.name}", data=False,
                                         builtin=True)
    return lessons


LESSONS: dict[str, Lesson] = _builtin()
"""The built-in lessons by id, in the order the Lessons page offers them."""


def get_lesson(lesson_id: str) -> Lesson:
    """The built-in lesson ``lesson_id``; ValueError naming the lessons there are."""
    try:
        return LESSONS[lesson_id]
    except KeyError:
        raise ValueError(f"There is no lesson '{lesson_id}'; the lessons are {', '.join(LESSONS)}.") from None
