"""The OFSP lesson: how optimal feature-set partitioning groups features into views, against a random
partition (docs/algorithms.md, paper B), on a Madelon-like set whose useful features are known."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mvlab.experiments.settings import ViewConstructionSettings
from mvlab.experiments.view_construction_sweep import METRIC_TITLES, KSweepResult, feature_groups
from mvlab.lessons.model import Lesson, Question, Step, StepContext, StepRun
from mvlab.viz import view_construction_figures

__all__ = ["LESSON"]

RUN = StepRun(ViewConstructionSettings(seed=0, source="madelon", madelon_n=200, methods=("OFSP", "RFSP"),
                                       classifiers=("nb",), max_views=6, n_used=200, d_used=500),
              "breast-cancer", KSweepResult)
K_SHOWN = 3
USEFUL = ("informative", "redundant")


def _groups(ctx: StepContext) -> np.ndarray:
    return feature_groups(ctx.data.views, ctx.result.feature_index)


def _partition(method: str):
    def figures(ctx: StepContext):
        r = ctx.result
        M = r.membership(method, "nb", K_SHOWN)
        names = np.asarray(ctx.data.feature_names)[r.feature_index]
        return [view_construction_figures.partition_matrix(
            M, _groups(ctx), names, title=f"{method}, k = {K_SHOWN}: which feature went to which view<br><sup>the "
                                          "partition learned on the last of the 3 training folds</sup>")]
    return figures


def _ofsp_discards(ctx: StepContext) -> bool:
    M = ctx.result.membership("OFSP", "nb", K_SHOWN)
    return M.any(axis=0).mean() < 0.25


def _kept_table(ctx: StepContext):
    r, g = ctx.result, _groups(ctx)
    rows = [{"features": "all features of the data", "k": "", "kept": len(g),
             **{group: int((g == group).sum()) for group in ("informative", "redundant", "noise")},
             "useful share": round(float(np.isin(g, USEFUL).mean()), 3)}]
    for k in r.ks:
        kept = r.membership("OFSP", "nb", k).any(axis=0)
        rows.append({"features": "kept by OFSP", "k": str(k), "kept": int(kept.sum()),
                     **{group: int((g[kept] == group).sum()) for group in ("informative", "redundant", "noise")},
                     "useful share": round(float(np.isin(g[kept], USEFUL).mean()), 3) if kept.any() else np.nan})
    return [pd.DataFrame(rows)]


def _kept_richer(ctx: StepContext) -> bool:
    r, g = ctx.result, _groups(ctx)
    base = np.isin(g, USEFUL).mean()
    return all(np.isin(g[r.membership("OFSP", "nb", k).any(axis=0)], USEFUL).mean() > 2 * base for k in r.ks)


def _lines(metric: str):
    def figures(ctx: StepContext):
        return [view_construction_figures.k_sweep_lines(
            ctx.result.per_k(metric, "nb"), metric_title=METRIC_TITLES[metric],
            title=f"{METRIC_TITLES[metric]} for each k (naive Bayes members, mean over 3 test folds)")]
    return figures


def _ofsp_more_accurate(ctx: StepContext) -> bool:
    acc = ctx.result.per_k("accuracy", "nb")
    return float(acc["OFSP"].mean()) > float(acc["RFSP"].mean()) + 0.03


def _kept_grows_but_small(ctx: StepContext) -> bool:
    kept = ctx.result.per_k("percent_features", "nb")["OFSP"]
    return kept.iloc[-1] > kept.iloc[0] and kept.max() < 30


def _ofsp_slower(ctx: StepContext) -> bool:
    t = ctx.result.per_k("seconds", "nb")
    return bool((t["OFSP"] > t["RFSP"]).all())


STEPS = (
    Step(
        title="Many features, few useful",
        text="200 instances, 2 classes, 500 features: **5 informative**, 15 **redundant** (mixtures of the "
             "informative ones) and 480 **noise**. We want k views for an ensemble: one classifier per view, "
             "weighted votes. First, a **random** partition (RFSP) into 3 views. Columns are features, coloured by "
             "their kind.",
        run=RUN, figures=_partition("RFSP"),
        question=Question("In a random partition into 3 views, where do the 20 useful features go?",
                          ("All into one view", "Scattered over the views, each drowned in about 160 noise features",
                           "They are left out"), 1,
                          "A random partition keeps every feature and deals them out by chance: each view gets a few "
                          "useful features among many noise ones."),
        notice="No feature is discarded: every member of the ensemble sees mostly noise.",
        mistake="Thinking more features per view means more information: noise features hurt distance- and "
                "density-based members."),
    Step(
        title="OFSP builds its views",
        text="OFSP fills the k views one feature at a time, keeping a feature in the view where it raises an "
             "inner cross-validated accuracy the most, and **discarding** it if it helps nowhere.",
        run=RUN, figures=_partition("OFSP"),
        question=Question("What happens to most of the noise features?",
                          ("They are spread evenly over the views", "They are discarded",
                           "They all go into one 'noise' view"), 1,
                          "A noise feature rarely improves the inner accuracy of any view, so OFSP leaves it out; the "
                          "views it builds are small."),
        notice="The bottom row (discarded) holds most columns, and not only noise: some informative and redundant "
               "features are left out too, when a view already has their signal.",
        mistake="Expecting OFSP to find exactly the 20 useful features: it keeps what helps the inner "
                "cross-validation, noise that helps by chance included.",
        holds=_ofsp_discards),
    Step(
        title="What OFSP keeps",
        text="Count the kinds of features OFSP kept for each k (the partition of the last of the 3 training folds), "
             "against the data as a whole.",
        run=RUN, figures=_kept_table,
        question=Question("Is the share of useful features among those kept higher than in the data (4 %)?",
                          ("No, about the same", "Yes, several times higher", "Yes, only useful features are kept"),
                          1,
                          "OFSP selects features by their effect on accuracy, so useful ones are over-represented, "
                          "though noise that helps on the inner folds by chance gets in too."),
        notice="A few informative features are enough: redundant ones carry the same signal.",
        mistake="Reading 'discarded' as 'useless': a redundant feature can be discarded because another already "
                "carries its signal.",
        holds=_kept_richer),
    Step(
        title="Accuracy across k",
        text="For k = 1..6 views, the ensemble's test accuracy (naive Bayes on each view, votes weighted by "
             "each member's inner accuracy), mean over 3 test folds.",
        run=RUN, figures=_lines("accuracy"),
        question=Question("Which partition gives the more accurate ensembles here?",
                          ("The random one (RFSP)", "OFSP", "Neither, they are equal"), 1,
                          "Members trained on a few useful features are each better than members drowned in noise; "
                          "weighting by performance adds to it."),
        notice="The lines wander with k: 3 folds of 200 instances are noisy, so compare the whole lines, not one k.",
        mistake="Picking the best k from this plot and reporting its accuracy: that choice was made on the test folds.",
        holds=_ofsp_more_accurate),
    Step(
        title="Features kept across k",
        text="The share of the 500 features used by at least one view, for each k.",
        run=RUN, figures=_lines("percent_features"),
        question=Question("As k grows, the share of features OFSP keeps...",
                          ("stays at 100 %", "grows, yet stays far below 100 %", "falls to zero"), 1,
                          "More views give more places where a feature can help, so more are kept; most noise still "
                          "helps nowhere. RFSP always keeps everything."),
        notice="A smaller model is easier to read: which features matter is part of the answer.",
        mistake="Comparing methods only on accuracy: the paper also reports features kept, diversity and time.",
        holds=_kept_grows_but_small),
    Step(
        title="The price: time",
        text="Wall-clock time to build the views and fit the ensemble (scoring the test fold is not timed), for "
             "each k.",
        run=RUN, figures=_lines("seconds"),
        question=Question("What does OFSP pay for its views?",
                          ("Nothing, it is as fast as a random partition", "More time: it evaluates candidate "
                           "features with inner cross-validation", "Less time, since it keeps fewer features"), 1,
                          "Every candidate placement of a feature is scored by cross-validation; a random partition "
                          "just deals features out."),
        notice="OFSP costs several times a random partition at every k (its placements are scored); at a tenth of "
               "a second these timings are noisy, so read the ratio, not the slope.",
        mistake="Timing on tiny data and extrapolating: the cost grows with the number of features and instances.",
        holds=_ofsp_slower),
)

LESSON = Lesson(
    id="ofsp", title="Building views from one feature set: OFSP against a random partition",
    summary="On a Madelon-like set whose useful features are known, see how OFSP groups features into views and "
            "discards noise, and compare its ensembles with a random partition on accuracy, features kept and time "
            "for k = 1..6 views.",
    steps=STEPS)
