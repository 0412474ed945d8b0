"""A reading of OFSP's Tables 3 and 4 that would explain their All-AML rows: OFSP's accuracy measured on the test rows.

OFSP adds a feature to the view whose accuracy it raises most (docs/algorithms.md B.2); the paper does not say on
which rows that accuracy is measured. mvlab measures it by an inner cross-validation of the training rows only
(:mod:`mvlab.reproduction.ofsp_paper`). Here, on the protocol's own outer folds, OFSP's accuracy is the one of a
classifier trained on the fold's training rows and scored on its *test* rows, the rows the ensemble is then scored
on: each feature is kept because it helps on the test rows. The ensemble itself (its weights by inner
cross-validation, its members) is trained on the training rows as in the protocol. Were the paper's cells measured
this way, they would sit near 100 % wherever a handful of features separate the test rows, as on All-AML leukemia,
and the members, all right on those rows, would hardly disagree (Table 4).
This is a diagnosis, not a protocol to use: it chooses on test data.
"""

from __future__ import annotations

import pandas as pd

from mvlab.reproduction.ofsp_paper import MAX_VIEWS, N_SPLITS, OfspTask, run_fold_reading

__all__ = ["LEAK_METHOD", "READING_LABELS", "run_leak_draw", "beside_the_protocol"]

LEAK_METHOD = "OFSP, accuracy on the test fold"
"""The ``method`` of this reading's rows in its draws file."""


READING_LABELS = {"protocol": "OFSP's accuracy by inner cross-validation (the protocol)",
                  "leak": "OFSP's accuracy on the test fold (a reading)"}
"""How the two readings are named side by side (:func:`beside_the_protocol`)."""


def beside_the_protocol(protocol_cells: pd.DataFrame | None, leak_cells: pd.DataFrame | None) -> pd.DataFrame:
    """OFSP's cells with a printed value from either reading, stacked in one table: the protocol's ``OFSP`` rows and
    this reading's rows, their ``reading`` column set to :data:`READING_LABELS` (the cells tables of
    ``ofsp_paper_cells.csv`` and ``ofsp_leak_cells.csv``; either may be None)."""

    parts = []
    if protocol_cells is not None:
        parts.append(protocol_cells[protocol_cells["model"] == "OFSP"].assign(reading=READING_LABELS["protocol"]))
    if leak_cells is not None:
        parts.append(leak_cells[leak_cells["model"] == LEAK_METHOD].assign(reading=READING_LABELS["leak"]))
    both = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return both[both["paper"].notna()] if len(both) else both


def run_leak_draw(task: OfspTask, max_views: int = MAX_VIEWS, n_splits: int = N_SPLITS, n_jobs: int = 1) -> list[dict]:
    """One repetition (the protocol's folds of ``task``): for every k, OFSP's views chosen by accuracy on each
    outer test fold, the performance-weighted ensemble trained on the outer training rows, its accuracy,
    members' disagreement and features kept on the test fold averaged over the folds; rows of
    :data:`mvlab.reproduction.ofsp_paper.OFSP_DRAW_COLUMNS`. ``n_jobs`` is accepted for the protocol runner
    and unused (OFSP's evaluators are single-threaded)."""
    from mvlab.construction.ensemble import ViewEnsemble
    from mvlab.construction.partition import OFSP

    def evaluate(ds, split, k, seed):
        ofsp = OFSP(k, task.classifier, inner_cv=[(split.train, split.test)], random_state=seed).fit(ds.X, ds.y)
        ens = ViewEnsemble(views=ofsp.views_, estimator=task.classifier, inner_cv=5, random_state=seed)
        return ens.fit(ds.X[split.train], ds.y[split.train])

    return run_fold_reading(task, {LEAK_METHOD: evaluate}, max_views, n_splits)
