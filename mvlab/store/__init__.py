"""What mvlab keeps in its one database (a SQLite file, or a PostgreSQL server that several machines share:
:mod:`mvlab.store.database`), which survives restarts, interruptions and concurrent writers: the runs and results
(:mod:`mvlab.store.results`) and the class rounds of the lessons, the room's answers counted and nobody named
(:mod:`mvlab.store.rounds`)."""

from mvlab.store.connections import check_connection_budget, connections_per_process
from mvlab.store.database import StoreUnavailable, absolute_location, default_location, shown_location
from mvlab.store.protocol import READS, WRITES, RunReads, RunStore, RunWrites, record_result
from mvlab.store.results import STATUSES, ResultsStore, package_versions, process_identity
from mvlab.store.rounds import ClassRounds, Round, RoundError, RoundStarted

__all__ = ["ResultsStore", "default_location", "absolute_location", "shown_location", "package_versions",
           "process_identity", "STATUSES", "ClassRounds", "Round", "RoundError", "RoundStarted",
           "StoreUnavailable", "connections_per_process", "check_connection_budget", "RunStore", "RunWrites",
           "RunReads", "WRITES", "READS", "record_result"]
