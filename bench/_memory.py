"""Memory for the bench scripts (imported as ``from _memory import ...``; the script's folder is on ``sys.path``):
a process's own resident and peak resident memory (:func:`own_memory_mib`, what every bench reports of the process
that measures), and the resident memory of a running server, sampled on a thread (:class:`MemoryPeak`).

A process's peak is its ``VmHWM`` (``/proc/self/status``), never ``getrusage``'s ``ru_maxrss``: Linux carries the
parent's peak over fork and exec into ``ru_maxrss``, so a worker started by a bench's orchestrator would report at
least the orchestrator's peak (203 MB on the cascade bench, on both sides of a comparison). This module imports
nothing beyond the standard library at import time, so a peer's own environment (DF21's, forestgeom's) can use it."""

import threading


def own_memory_mib() -> tuple[float, float]:
    """(resident MiB now, peak resident MiB of this process so far): ``VmRSS`` and ``VmHWM`` of
    ``/proc/self/status`` (which reports KiB)."""
    with open("/proc/self/status") as f:
        kib = {k: int(v.split()[0]) for k, v in (line.split(":", 1) for line in f) if k in ("VmRSS", "VmHWM")}
    return kib["VmRSS"] / 1024, kib["VmHWM"] / 1024


class MemoryPeak:
    """The peak resident memory of process ``pid`` and its descendants (their sum), or with
    ``largest_child=True`` of its largest descendant alone (the job engine's worker under a server), or with
    ``pids`` of those processes alone (their sum, no descendants), sampled every ``interval`` seconds while the
    ``with`` block runs."""

    def __init__(self, pid: int | None = None, largest_child: bool = False, interval: float = 0.2,
                 pids: list[int] | None = None):
        import psutil

        self.procs = [psutil.Process(p) for p in pids] if pids else None
        self.proc = psutil.Process(pid) if pid is not None else None
        self.peak, self._stop = 0, threading.Event()
        self.largest_child, self.interval = largest_child, interval
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _now(self) -> int:
        if self.procs is not None:
            return sum(p.memory_info().rss for p in self.procs if p.is_running())
        children = self.proc.children(recursive=True)
        if self.largest_child:
            return max((p.memory_info().rss for p in children if p.is_running()), default=0)
        return sum(p.memory_info().rss for p in [self.proc, *children] if p.is_running())

    def _sample(self):
        while not self._stop.wait(self.interval):
            try:
                self.peak = max(self.peak, self._now())
            except Exception:  # noqa: BLE001 - psutil's errors: a process gone between two samples
                continue

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
