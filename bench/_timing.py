"""Wall-clock timing shared by the bench scripts (imported as ``from _timing import ...``: a script's
own folder is on ``sys.path``, also under the peers' interpreter)."""

import time


def timed(fn):
    """``(seconds, fn())`` of one call."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def best_of(fn, repeat=3):
    """``(fastest seconds, last result)`` of ``repeat`` calls: the machine is shared, the minimum is
    the least disturbed."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t, out = timed(fn)
        best = min(best, t)
    return best, out
