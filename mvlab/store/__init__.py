"""What mvlab keeps in its one SQLite file, which survives restarts, interruptions and concurrent writers:
the runs and results (:mod:`mvlab.store.results`) and the class rounds of the lessons, the room's answers
counted and nobody named (:mod:`mvlab.store.rounds`)."""

from mvlab.store.results import STATUSES, ResultsStore, default_path, package_versions, process_identity
from mvlab.store.rounds import ClassRounds, Round, RoundError, RoundStarted

__all__ = ["ResultsStore", "default_path", "package_versions", "process_identity", "STATUSES", "ClassRounds", "Round",
           "RoundError", "RoundStarted"]
