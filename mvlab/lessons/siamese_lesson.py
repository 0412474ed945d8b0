"""The Siamese deep forest lesson: how tree weights from a quadratic programme separate similar from
dissimilar pairs (docs/algorithms.md, paper C), on pairs of breast-cancer instances."""

from __future__ import annotations

import dataclasses

import numpy as np

from mvlab.experiments.settings import SiameseSettings
from mvlab.experiments.siamese_comparison import SiameseExperiment, tau_tradeoff
from mvlab.lessons.model import Lesson, Question, Step, StepContext, StepRun
from mvlab.viz import siamese_figures

__all__ = ["LESSON"]

BASE = SiameseSettings(seed=0)
RUN = StepRun(BASE, "breast-cancer", SiameseExperiment)
RUN_LARGE_LAMBDA = StepRun(dataclasses.replace(BASE, lam=100.0), "breast-cancer", SiameseExperiment)
TAU = 1.0


def _pairs(ctx: StepContext):
    r, ds = ctx.result, ctx.data
    shown = []
    for label, name in ((0, "similar"), (1, "dissimilar")):
        a, b = _typical_pair(r, ds, label)
        z = ds.standardised_rows([a, b])
        names = (f"instance {a} ({ds.classes[ds.y[a]]})", f"instance {b} ({ds.classes[ds.y[b]]})")
        shown.append((z, names, name))
    values = np.concatenate([z.ravel() for z, _, _ in shown])
    pad = 0.05 * float(np.ptp(values))
    y_range = (float(values.min()) - pad, float(values.max()) + pad)  # one scale for both pairs
    return [siamese_figures.pair_view(z[0], z[1], feature_names=ds.feature_names, names=names, y_range=y_range,
                                      title=f"A typical {name} test pair (standardised features)")
            for z, names, name in shown]


def _typical_pair(r, ds, label: int) -> tuple[int, int]:
    """A test pair of this label (0 similar, 1 dissimilar) that SDF gets right and whose distance in the
    standardised features is the median of its label's: a typical pair, not an outlier."""
    pairs = r.test_pairs[r.y_test == label]
    z = ds.standardised_rows(np.arange(ds.n_samples))
    distance = np.linalg.norm(z[pairs[:, 0]] - z[pairs[:, 1]], axis=1)
    right = r.predictions("SDF")[r.y_test == label] == label
    candidates = np.flatnonzero(right) if right.any() else np.arange(len(pairs))
    median = np.median(distance[candidates])
    best = candidates[np.argmin(np.abs(distance[candidates] - median))]
    return int(pairs[best, 0]), int(pairs[best, 1])


def _levels(ctx: StepContext):
    return [siamese_figures.cascade_level_accuracy(ctx.result.level_table())]


def _one_level(ctx: StepContext) -> bool:
    return ctx.result.n_levels["gcForest"] == 1


WEIGHT_AXIS = (0.0, 0.21)
"""One scale for the tree weights of steps 3 and 4 (λ = 1 and λ = 100), so that the two are compared by eye."""


def _weights(ctx: StepContext):
    r = ctx.result
    return [siamese_figures.tree_weight_distributions(
        r.weights, r.forest_names, y_range=WEIGHT_AXIS,
        title=f"SDF tree weights, λ = {r.settings['lam']:g} (dashed: gcForest's 1/T; same scale in steps 3 and 4)")]


def _uneven(ctx: StepContext) -> bool:
    return ctx.result.mean_effective_trees < 0.6 * ctx.result.n_trees


def _near_uniform(ctx: StepContext) -> bool:
    return ctx.result.mean_effective_trees > 0.8 * ctx.result.n_trees


def _accuracy(ctx: StepContext):
    return [ctx.result.table().round(3)]


def _sdf_not_worse(ctx: StepContext) -> bool:
    return ctx.result.accuracy("SDF") >= ctx.result.accuracy("gcForest")


def _tau(ctx: StepContext):
    return [siamese_figures.tau_tradeoff_curve(ctx.result.tau_curves(TAU), TAU)]


def _tau_trades(ctx: StepContext) -> bool:
    r = ctx.result
    at0, at = tau_tradeoff(r.scores["SDF"], r.y_test, 0.0), tau_tradeoff(r.scores["SDF"], r.y_test, TAU)
    return at.undetermined > at0.undetermined and at.accuracy > at0.accuracy


STEPS = (
    Step(
        title="Learning from pairs",
        text="A Siamese model learns from **pairs** of instances: *similar* when both have the same class, "
             "*dissimilar* otherwise. Here: 300 training pairs of breast-cancer tumours; the 200 test pairs come "
             "from other tumours, never seen in training. A pair is its two feature vectors side by side.",
        run=RUN, figures=_pairs, layout=(2,),
        question=Question("What does the model have to learn?",
                          ("The class of each instance", "Whether the two instances have the same class",
                           "Which of the two instances is larger"), 1,
                          "The label belongs to the pair. The same model can then compare instances of classes it "
                          "has seen few of, which is why Siamese models suit small data."),
        notice="The similar pair's two sets of bars follow each other more closely than the dissimilar pair's "
               "(both on one scale).",
        mistake="Drawing test pairs from training instances: the model would recognise the instances, not learn "
                "similarity."),
    Step(
        title="A cascade of forests",
        text="gcForest stacks **levels** of 4 forests (2 random forests, 2 completely-random ones). Each forest "
             "outputs a class vector; the next level sees the pair's features *plus* these vectors. Levels are "
             "added while the training accuracy (out-of-fold) improves.",
        run=RUN, figures=_levels,
        question=Question("How many levels are kept on 300 training pairs?",
                          ("One: the second level does not improve", "All four allowed", "None"), 0,
                          "Depth is chosen by the data: on a small training set a second level does not improve the "
                          "out-of-fold accuracy, so the cascade stops at one level."),
        notice="The kept level is the one with the best training accuracy, not test accuracy: the test is not used.",
        mistake="Expecting a deep forest to be deep: its depth is whatever the training accuracy supports.",
        holds=_one_level),
    Step(
        title="Weights from a quadratic programme",
        text="gcForest averages its trees (weight 1/T each). The **Siamese deep forest** (SDF) weights them: for "
             "every forest, non-negative weights summing to 1 minimise a hinge-squared loss that pushes similar "
             "pairs one way and dissimilar pairs the other, plus λ‖w‖².",
        run=RUN, figures=_weights,
        question=Question("Compared with gcForest's 1/T, the SDF weights are...",
                          ("All equal to 1/T", "Uneven: some trees weigh much more than 1/T, many much less",
                           "All on a single tree"), 1,
                          "Trees that separate the training pairs well get more weight. The effective number of trees "
                          "1/Σw² (on the axis labels) falls well below T."),
        notice="The effective number of trees says how many trees really vote.",
        mistake="Reading a weight near 0 as a useless tree: it may agree with better trees and add nothing new.",
        holds=_uneven),
    Step(
        title="λ pulls towards the average",
        text="The same pairs and trees with **λ = 100** instead of 1.",
        run=RUN_LARGE_LAMBDA, figures=_weights,
        question=Question("With a large λ, the weights...",
                          ("become more uneven", "move close to 1/T: SDF becomes gcForest", "do not change"), 1,
                          "λ‖w‖² is smallest for uniform weights, so a large λ outweighs the pair loss and the "
                          "effective number of trees approaches T."),
        notice="λ is a dial between gcForest (large λ) and trusting the pair loss (small λ).",
        mistake="Tuning λ on the test pairs: choose it by cross-validation on the training pairs.",
        holds=_near_uniform),
    Step(
        title="Does weighting help?",
        text="Test accuracy of both models on the same test pairs (and the same first-level trees: the comparison "
             "isolates the weighting).",
        run=RUN, figures=_accuracy,
        question=Question("On these 300 training pairs, SDF against gcForest:",
                          ("SDF is at least as accurate", "gcForest is clearly better", "Both fail"), 0,
                          "The weights come from the pair loss, which is what the test measures; the paper reports "
                          "gains on small training sets. One split is one draw: the Benchmark page repeats it."),
        notice="The difference is a few pairs out of 200: a single split cannot show it is significant.",
        mistake="Claiming a method is better from one split.",
        holds=_sdf_not_worse),
    Step(
        title="Undecided pairs: the threshold τ",
        text="A pair's score S0 − S1 is the weighted vote for *similar* minus the vote for *dissimilar*. A score "
             f"of at least τ means similar, below 0 dissimilar, in between **undetermined**. Dashed: τ = {TAU:g}.",
        run=RUN, figures=_tau,
        question=Question("Raising τ from 0 to 1...",
                          ("changes nothing", "leaves more pairs undetermined and makes the decided ones more accurate",
                           "makes every pair undetermined"), 1,
                          "Pairs with a small margin are the uncertain ones; setting them aside raises accuracy on "
                          "the rest, at the cost of coverage."),
        notice="Past a small τ, accuracy falls again while coverage keeps falling: leaving out the hard pairs "
               "helps only at first.",
        mistake="Reporting accuracy on decided pairs without saying how many were left undetermined.",
        holds=_tau_trades),
)

LESSON = Lesson(
    id="siamese", title="Siamese deep forest: weighting trees to separate pairs",
    summary="Pairs of instances, a cascade of forests, tree weights from a quadratic programme against the plain "
            "average, what λ does, and the trade-off of the undetermined-pair threshold τ.",
    steps=STEPS)
