"""The progress-callback convention shared by every long computation in mvlab.

Long work takes an optional ``progress(fraction, message)`` callable (docs/design.md §3); the library
never prints.  :func:`report` calls it with the fraction clipped to [0, 1]; :func:`scaled`
maps a sub-task's own 0..1 onto a slice ``[start, start + span]`` of its caller's progress.  A
callback stops the computation that calls it by raising :class:`Stopped`.

A callback may also take **partial results**: a callable attribute ``partial(build, note)``, where ``build()``
returns the result as far as it is computed (an object of the computation's own result type) and ``note`` says in
words how far that is ("1 of 3 test folds").  A computation offers one with :func:`report_partial`, which calls
``build`` only when the callback listens (the job engine's does, :mod:`mvlab.engine.task`: the page shows the part
while the rest computes); :func:`scaled` passes it on.

A message or note may be a :class:`mvlab.i18n.Message` (its English, a ``str``, and what it takes to say it in
another language): a page shows a run's progress in its reader's language, though the run computes in a worker that
has none.
"""

from __future__ import annotations

from typing import Callable, Optional

from mvlab.i18n.catalogue import joined

ProgressCallback = Optional[Callable[[float, str], None]]


class Stopped(Exception):
    """Raised by a progress callback to stop the computation that called it (somebody pressed Stop):
    not a failure; what a run stored before it stays, and the run is recorded as ``stopped``."""


def report(progress: ProgressCallback, fraction: float, message: str) -> None:
    """Call ``progress(fraction, message)`` (fraction clipped to [0, 1]) unless it is None."""
    if progress is not None:
        progress(float(min(max(fraction, 0.0), 1.0)), message)


def report_partial(progress: ProgressCallback, build: Callable[[], object], note: str) -> None:
    """Offer the result computed so far to ``progress``'s ``partial(build, note)`` when it has one (see the module
    docstring); ``build`` is not called otherwise."""
    take = getattr(progress, "partial", None)
    if take is not None:
        take(build, note)


class _Scaled:
    """``progress`` seen by a sub-task: its fractions mapped into ``[start, start + span]``, its messages and its
    partial results' notes after ``prefix``."""

    def __init__(self, progress, start: float, span: float, prefix: str = ""):
        self.progress, self.start, self.span, self.prefix = progress, start, span, prefix
        take = getattr(progress, "partial", None)
        if take is not None:
            self.partial = lambda build, note: take(build, joined(prefix, note))

    def __call__(self, fraction: float, message: str) -> None:
        report(self.progress, self.start + self.span * fraction, joined(self.prefix, message))


def scaled(progress: ProgressCallback, start: float, span: float, prefix: str = "") -> ProgressCallback:
    """A callback for a sub-task that reports into ``[start, start + span]`` of ``progress``, its messages after
    ``prefix`` (and hands its partial results on, :func:`report_partial`)."""
    if progress is None:
        return None
    return _Scaled(progress, start, span, prefix)
