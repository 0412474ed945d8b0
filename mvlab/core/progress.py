"""The progress-callback convention shared by every long computation in mvlab.

Long work takes an optional ``progress(fraction, message)`` callable (docs/design.md §3); the library
never prints.  :func:`report` calls it with the fraction clipped to [0, 1]; :func:`scaled`
maps a sub-task's own 0..1 onto a slice ``[start, start + span]`` of its caller's progress.  A
callback stops the computation that calls it by raising :class:`Stopped`.
"""

from __future__ import annotations

from typing import Callable, Optional

ProgressCallback = Optional[Callable[[float, str], None]]


class Stopped(Exception):
    """Raised by a progress callback to stop the computation that called it (somebody pressed Stop):
    not a failure; what a run stored before it stays, and the run is recorded as ``stopped``."""


def report(progress: ProgressCallback, fraction: float, message: str) -> None:
    """Call ``progress(fraction, message)`` (fraction clipped to [0, 1]) unless it is None."""
    if progress is not None:
        progress(float(min(max(fraction, 0.0), 1.0)), message)


def scaled(progress: ProgressCallback, start: float, span: float) -> ProgressCallback:
    """A callback for a sub-task that reports into ``[start, start + span]`` of ``progress``."""
    if progress is None:
        return None
    return lambda fraction, message: report(progress, start + span * fraction, message)
