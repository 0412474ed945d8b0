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

from mvlab.reproduction.ofsp_paper import MAX_VIEWS, N_SPLITS, OfspTask, run_fold_reading

__all__ = ["LEAK_METHOD", "run_leak_draw"]

LEAK_METHOD = "OFSP, accuracy on the test fold"
"""The ``method`` of this reading's rows in its draws file."""


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
