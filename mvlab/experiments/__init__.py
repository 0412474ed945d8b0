"""Experiments that give every method the same splits: protocols, the runner, the three papers' method
families, statistics, reports and the SQLite results store."""
