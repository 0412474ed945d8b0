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

from mvlab.reproduction.markdown import CLASSIFIER_NAMES, generated_head
from mvlab.reproduction.ofsp_paper import MADELON, MADELON_SEED, N_SPLITS, OfspTask
from mvlab.reproduction.ofsp_paper_report import ofsp_reading, paper_range

__all__ = ["N_DRAWS", "FEATURE_SETS", "generator_seed", "load_draw", "run_generator_draw", "READING",
           "madelon_generator_markdown"]

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
    from mvlab.experiments.view_construction_sweep import ensemble_metrics

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


def madelon_generator_markdown(cells, draws, head: bool = True) -> str:
    """The section on the generator's draws: per classifier and view, the accuracy on mvlab's Madelon (draw 0)
    beside the median [min, max] over the other draws and how many of them score below it, with the paper's OFSP
    row on NIPS's draw (``head``: after the line naming command and files)."""
    n = draws["repetition"].nunique() if len(draws) else 0
    out = [generated_head(READING, f"{n} draw{'s' if n != 1 else ''} of the generator, mvlab's Madelon the first",
                          "Each classifier alone, the mean accuracy over the protocol's first five folds.")
           if head else ""]
    if draws.empty:
        return out[0] + "\n\nNo draw yet."
    out += ["", "| classifier | view | mvlab's Madelon | other draws: median [min, max] | other draws below mvlab's "
            "| the paper's OFSP (NIPS's draw, k = 1..10) |", "|---|---|---|---|---|---|"]
    for classifier in [c for c in CLASSIFIER_NAMES if c in set(draws["classifier"])]:
        low, high = paper_range("madelon-500", classifier)
        for method in FEATURE_SETS:
            ours, others = _accuracies(draws, classifier, method)
            spread = (f"{others.median():.3f} [{others.min():.3f}, {others.max():.3f}]" if len(others) else "none yet")
            below = f"{int((others < ours.iloc[0]).sum())} of {len(others)}" if len(ours) and len(others) else ""
            out.append(f"| {CLASSIFIER_NAMES[classifier]} | {method} | "
                       + (f"{ours.iloc[0]:.3f}" if len(ours) else "not run") + f" | {spread} | {below} | "
                       + (f"{low:.3f}-{high:.3f}" if np.isfinite(low) else "") + " |")
    return "\n".join(out).strip()


def _accuracies(draws, classifier: str, method: str):
    """mvlab's Madelon's accuracy (a one-row Series) and the other draws' (indexed by repetition)."""
    part = draws[(draws["classifier"] == classifier) & (draws["method"] == method)].set_index("repetition")
    return part.loc[part.index == 0, "accuracy"], part.loc[part.index > 0, "accuracy"]


def madelon_generator_facts(cells, draws, others) -> dict:
    """The numbers of the report's prose on this reading: how far the draw alone moves each classifier (the range
    over the other draws, every feature), on how many draws 1-NN trails the linear SVM and naive Bayes, whether the
    paper's OFSP row with the SVM lies inside the SVM's range over the draws, and by how much the paper's KNN beats
    its SVM and naive Bayes at every k on NIPS's draw."""
    from mvlab.reproduction.ofsp_paper import PAPER

    every = FEATURE_SETS[0]
    present = [c for c in CLASSIFIER_NAMES if c in set(draws["classifier"])]
    spreads = {c: _accuracies(draws, c, every)[1] for c in present}
    wide = draws[draws["method"] == every].pivot_table(index="repetition", columns="classifier", values="accuracy")
    paper = {c: np.array([PAPER[("madelon-500", c, k)] for k in range(1, 11)]) for c in CLASSIFIER_NAMES}
    knn_svm, knn_nb = paper["knn"] - paper["svm"], paper["knn"] - paper["nb"]
    missing = "not computed (a classifier without draws)"

    def trails(other: str) -> str:
        return f"{int((wide[other] > wide['knn']).sum())} of {len(wide)}" if {"knn", other} <= set(wide) else missing

    svm = spreads.get("svm")
    inside = missing if svm is None or svm.empty else (
        "inside" if svm.min() <= paper["svm"].min() and paper["svm"].max() <= svm.max() else "outside")
    return {"moves": ", ".join(f"{CLASSIFIER_NAMES[c]} {s.max() - s.min():.3f}" for c, s in spreads.items()),
            "svm_beats_knn": trails("svm"), "nb_beats_knn": trails("nb"), "svm_paper_inside": inside,
            "paper_knn_minus_svm": f"{knn_svm.min():.3f} to {knn_svm.max():.3f}",
            "paper_knn_minus_nb": f"{knn_nb.min():.3f} to {knn_nb.max():.3f}",
            "svm_range_every": missing if svm is None or svm.empty else f"{svm.min():.3f}–{svm.max():.3f}"}


READING = ofsp_reading(
    "madelon-generator", "How far the data's draw alone moves a Madelon cell",
    "mvlab's Madelon is one draw of Guyon's generator with NIPS 2003's settings, the paper's NIPS's own draw. Each "
    "classifier alone on other draws of the same generator, every feature or the 20 useful ones: a gap to the paper "
    "smaller than this spread cannot tell the method's fidelity from the data's draw.",
    draw=run_generator_draw, datasets=("madelon-500",), classifiers=("knn", "nb", "svm"),
    markdown=madelon_generator_markdown, facts=madelon_generator_facts, repetitions=N_DRAWS,
    cells_reading="draws of the generator, one 5-fold each")
"""Each classifier alone on 31 draws of Madelon's generator."""
