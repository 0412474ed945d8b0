"""How much the draw of Guyon's generator alone moves a Madelon cell: the substitute data's own spread.

mvlab's Madelon row is one draw of scikit-learn's ``make_classification`` (Guyon's generator) with NIPS 2003's
Madelon settings (:func:`mvlab.reproduction.ofsp_paper.load`: 5 informative features, 15 linear combinations, 480
noise features, 16 clusters per class, 500 rows, generator seed 2003); the paper's row is NIPS's own draw, made
with settings the challenge does not all publish. Each ``repetition`` r here is another draw of the same generator
with the same settings (seed 2003 for r = 0, mvlab's own data; seed r for r >= 1), scored on the
protocol's first repetition's five folds (fold seed 1000) by each of the paper's classifiers alone, on every
feature and on the 20 useful ones (the informative and their combinations, the views a perfect selection would
keep). The spread over draws says how far a cell can move with the data alone, where the paper's method is not
involved; a gap to the paper smaller than that spread cannot tell the method's fidelity from the data's draw.

A draw's rows follow :data:`mvlab.reproduction.ofsp_paper.OFSP_DRAW_COLUMNS` with ``seed`` the generator's seed,
``method`` one of :data:`FEATURE_SETS` and ``k`` 1 (a single view), so the draws file resumes as the protocol's.
"""

from __future__ import annotations

import time

import numpy as np

from mvlab.reproduction.ofsp_paper import MADELON, MADELON_SEED, N_SPLITS, OfspTask

__all__ = ["N_DRAWS", "FEATURE_SETS", "generator_seed", "load_draw", "run_generator_draw"]

N_DRAWS = 31
"""Draws of the generator scored: mvlab's own (r = 0) and 30 others."""

FEATURE_SETS = ("all 500 features", "the 20 useful features")
"""The two views scored: every feature, and the informative features with their linear combinations."""


def generator_seed(repetition: int) -> int:
    """The generator seed of draw ``repetition``: the Madelon row's own (2003) for 0, else ``repetition``."""
    return MADELON_SEED if repetition == 0 else int(repetition)


def load_draw(repetition: int):
    """Draw ``repetition`` of the generator at the Madelon row's settings (draw 0 is ``load("madelon-500")``)."""
    from mvlab.datasets import make_madelon

    return make_madelon(**MADELON, random_state=generator_seed(repetition))


def run_generator_draw(task: OfspTask, n_splits: int = N_SPLITS, n_jobs: int = 1, **_ignored) -> list[dict]:
    """One draw of the generator (``task.repetition``) scored by ``task.classifier`` alone on each view of
    :data:`FEATURE_SETS`: the accuracy on the test rows of the protocol's first repetition's folds (fold seed
    1000), averaged over the folds; rows of :data:`mvlab.reproduction.ofsp_paper.OFSP_DRAW_COLUMNS`. ``n_jobs``
    is accepted for the protocol runner and unused."""
    from mvlab.construction.ensemble import ViewEnsemble
    from mvlab.experiments.protocols import RepeatedKFold
    from mvlab.experiments.view_construction import ensemble_metrics

    if task.dataset != "madelon-500":
        raise ValueError(f"the generator's draws are Madelon's (madelon-500), not {task.dataset!r}.")
    ds = load_draw(task.repetition)
    useful = np.flatnonzero([not name.startswith("noise") for name in ds.feature_names])
    views = {FEATURE_SETS[0]: np.arange(ds.X.shape[1]), FEATURE_SETS[1]: useful}
    splits = RepeatedKFold(n_repeats=1, n_splits=n_splits).splits(ds.y, OfspTask(task.dataset, "", 0).seed)
    rows = []
    for method, view in views.items():
        start = time.perf_counter()
        folds = [ensemble_metrics(ViewEnsemble(views=[view], estimator=task.classifier, inner_cv=5,
                                               random_state=s.seed).fit(ds.X[s.train], ds.y[s.train]),
                                  ds.X, ds.y, s.test)[0] for s in splits]
        rows.append({"dataset": task.dataset, "classifier": task.classifier, "repetition": task.repetition,
                     "seed": generator_seed(task.repetition), "method": method, "k": 1,
                     "accuracy": float(np.mean([f["accuracy"] for f in folds])), "disagreement": np.nan,
                     "percent_features": float(np.mean([f["percent_features"] for f in folds])),
                     "seconds": (time.perf_counter() - start) / len(splits)})
    return rows
