"""Guided lessons, one per method: steps that set the data and settings, show figures and ask a
question before they explain (:mod:`mvlab.lessons.model`); the Lessons page, the ``lesson`` command
(``--warm`` computes every step's results into the store, ``--html`` writes a handout) and the
handout (:mod:`mvlab.lessons.handout`) all read :data:`LESSONS`."""

from mvlab.lessons import dvs_lesson, ofsp_lesson, proximity_lesson, siamese_lesson
from mvlab.lessons.model import Lesson, Question, Step, StepContext, StepRun

__all__ = ["LESSONS", "get_lesson", "Lesson", "Question", "Step", "StepContext", "StepRun"]

LESSONS: dict[str, Lesson] = {lesson.id: lesson for lesson in
                              (proximity_lesson.LESSON, dvs_lesson.LESSON, ofsp_lesson.LESSON, siamese_lesson.LESSON)}
"""The lessons by id, in the order the Lessons page offers them."""


def get_lesson(lesson_id: str) -> Lesson:
    """The lesson ``lesson_id``; ValueError naming the lessons there are."""
    try:
        return LESSONS[lesson_id]
    except KeyError:
        raise ValueError(f"There is no lesson '{lesson_id}'; the lessons are {', '.join(LESSONS)}.") from None
