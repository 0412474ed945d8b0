"""Resident memory of a running server, sampled on a thread, for the bench scripts that drive one (imported as
``from _memory import MemoryPeak``)."""

import threading

import psutil


class MemoryPeak:
    """The peak resident memory of process ``pid`` and its descendants (their sum), or with
    ``largest_child=True`` of its largest descendant alone (the job engine's worker under a server), or with
    ``pids`` of those processes alone (their sum, no descendants), sampled every ``interval`` seconds while the
    ``with`` block runs."""

    def __init__(self, pid: int | None = None, largest_child: bool = False, interval: float = 0.2,
                 pids: list[int] | None = None):
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
            except psutil.Error:
                continue

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
