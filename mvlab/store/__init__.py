"""The results store: runs and results in one SQLite file that survives restarts, interruptions and
concurrent writers (:mod:`mvlab.store.results`)."""

from mvlab.store.results import STATUSES, ResultsStore, default_path, package_versions, process_identity

__all__ = ["ResultsStore", "default_path", "package_versions", "process_identity", "STATUSES"]
