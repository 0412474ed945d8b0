"""The proximity lesson: what makes two instances similar to a forest (docs/algorithms.md §A.3-A.5)."""

from __future__ import annotations

import numpy as np

from mvlab.core.projection import mds_2d
from mvlab.experiments.proximity_walk import ProximityWalk
from mvlab.experiments.settings import ProximitySettings
from mvlab.lessons.model import Lesson, Question, Step, StepContext, StepRun
from mvlab.viz import dissimilarity_figures, proximity_figures, shared_figures

__all__ = ["LESSON", "FOCUS"]

RUN = StepRun(ProximitySettings(seed=0, view="worst", n_samples=300, n_estimators=50, k=5), "breast-cancer",
              ProximityWalk)
FOCUS = 0
"""The instance the lesson follows (the first of the sample)."""
MEASURE_TITLES = {"breiman": "Breiman", "rfgap": "RF-GAP", "rfd": "RFD"}


def _labels(walk: ProximityWalk) -> np.ndarray:
    return np.asarray(walk.classes)[walk.y]


def _map(walk: ProximityWalk, measure: str = "breiman") -> np.ndarray:
    return mds_2d(walk.dissimilarities[measure])[0]


def _leaf_mates(ctx: StepContext):
    w = ctx.result
    mates = {f"tree {t + 1}": w.leaf_mates(FOCUS, t) for t in range(3)}
    return [proximity_figures.leaf_mates_map(
        _map(w), _labels(w), w.classes, FOCUS, mates,
        title="Our instance (star) and the instances sharing its leaf, in three trees<br><sup>placed by the whole "
              "forest's Breiman dissimilarity (the map of step 4); faint: the other instances</sup>")]


def _mates_share_class(ctx: StepContext) -> bool:
    w = ctx.result
    same = [np.mean(w.y[w.leaf_mates(FOCUS, t) & (np.arange(len(w.y)) != FOCUS)] == w.y[FOCUS])
            for t in range(w.n_trees) if w.leaf_mates(FOCUS, t).sum() > 1]
    return float(np.mean(same)) > 0.8


def _growth(ctx: StepContext):
    w = ctx.result
    rows = {f"after {t} tree{'s' if t > 1 else ''}": w.proximity_after(FOCUS, t) for t in (1, 5, w.n_trees)}
    return [proximity_figures.proximity_rows(rows, _labels(w), w.classes, FOCUS,
                                             title="Proximity of every other instance to ours, as trees are added")]


def _heatmap(ctx: StepContext):
    w = ctx.result
    return [dissimilarity_figures.dissimilarity_heatmap(
        w.dissimilarities["breiman"], _labels(w), title=f"Breiman dissimilarity 1 − proximity, view '{w.view_name}'")]


def _blocks_darker(ctx: StepContext) -> bool:
    w = ctx.result
    D, same = w.dissimilarities["breiman"], w.y[:, None] == w.y[None, :]
    return float(D[same].mean()) < float(D[~same].mean())


def _mds(ctx: StepContext):
    w = ctx.result
    return [shared_figures.view_projections({"Breiman": mds_2d(w.dissimilarities["breiman"])}, _labels(w), w.classes,
                                            columns=1, title="The instances placed by their Breiman dissimilarity",
                                            axis_names=("axis 1", "axis 2"))]


def _measures(ctx: StepContext):
    w = ctx.result
    return [shared_figures.view_projections(
        {MEASURE_TITLES[m]: mds_2d(D) for m, D in w.dissimilarities.items()}, _labels(w), w.classes, columns=3,
        title="The same forest, three measures", axis_names=("axis 1", "axis 2"))]


def _accuracy(ctx: StepContext):
    w = ctx.result
    bars = {**{MEASURE_TITLES[m]: a for m, a in w.knn_accuracy.items()}, "forest out-of-bag": w.oob_accuracy}
    return [shared_figures.method_accuracy(
        bars, highlight="forest out-of-bag", floor=0.5,
        title=f"Leave-one-out {w.k}-NN accuracy on the training dissimilarities, and the forest's out-of-bag "
              "accuracy<br><sup>green: the forest's own honest estimate, the reference</sup>")]


def _breiman_most_optimistic(ctx: StepContext) -> bool:
    a, oob = ctx.result.knn_accuracy, ctx.result.oob_accuracy
    return a["breiman"] == max(a.values()) and a["breiman"] > oob and abs(a["rfgap"] - oob) < 0.03


STEPS = (
    Step(
        title="One tree, one leaf",
        text="A forest is grown on one view of the breast-cancer data (the 'worst' measurements of 300 tumours, "
             "benign or malignant). Every tree sends every instance down to one leaf. We follow one instance "
             "(the star) and ask which instances land in the **same leaf** as it does.",
        run=RUN, figures=_leaf_mates,
        question=Question("Which instances share our instance's leaf in a tree?",
                          ("Any instances, the class plays no part", "Mostly instances of its own class, near it in "
                           "the view", "The instances farthest from it"), 1,
                          "Each tree splits the data until its leaves are pure for the instances it was grown on, so "
                          "a leaf gathers nearby instances of one class. Instances the tree did not see (out of bag) "
                          "may still land there with another class."),
        notice="Each tree gives a different group of leaf-mates, often a large one: one tree is a coarse, noisy "
               "opinion. (The map places the instances by the whole forest's dissimilarity of step 4; points of "
               "one class may sit on top of each other.)",
        mistake="Reading one tree's leaf as 'the' neighbourhood. A single tree is unstable; the forest averages many.",
        holds=_mates_share_class),
    Step(
        title="Tree by tree: the proximity row",
        text="The **proximity** of two instances is the share of trees in which they share a leaf. After one tree it "
             "is 0 or 1; each new tree adds its vote. The bars are every other instance, grouped by class.",
        run=RUN, figures=_growth,
        question=Question("What happens to the proximity row as trees are added?",
                          ("It stays 0 or 1", "It becomes graded: many values between 0 and 1, highest within "
                           "our instance's class", "It becomes the same for every instance"), 1,
                          "With T trees the proximity is a count out of T, so it takes T + 1 values. Instances that "
                          "share the leaf in most trees are the forest's nearest neighbours of ours."),
        notice="The panels keep the instances in the same places: watch the high bars settle into one class.",
        mistake="Thinking proximity is a distance in the features. It only counts shared leaves: two instances far "
                "apart in a feature the trees ignore can still be close."),
    Step(
        title="From proximities to a dissimilarity matrix",
        text="Doing this for every instance gives an n × n matrix. Its dissimilarity is 1 − proximity (Breiman). The "
             "heatmap sorts the instances by class; dark means similar.",
        run=RUN, figures=_heatmap,
        question=Question("If the view separates the classes, where are the dark cells?",
                          ("Spread evenly over the matrix", "In blocks on the diagonal, one per class",
                           "Only in the off-diagonal blocks"), 1,
                          "Instances of one class share leaves with each other more than with the other class, so "
                          "their dissimilarities are small: dark blocks along the diagonal."),
        notice="The blocks are not uniform: some instances of a class sit close to the other class (lighter rows).",
        mistake="Expecting a black diagonal to mean something: every instance shares all its leaves with itself.",
        holds=_blocks_darker),
    Step(
        title="A map of the dissimilarity space",
        text="Multidimensional scaling places the instances in a plane so that their distances follow the "
             "dissimilarities as well as two axes can.",
        run=RUN, figures=_mds,
        question=Question("What will the map show?",
                          ("One round cloud with the classes mixed", "Groups by class, with a border region where "
                           "they meet", "Exactly one point per class"), 1,
                          "The forest was grown to tell the classes apart, so its dissimilarity pulls each class "
                          "together; instances it finds hard sit between the groups."),
        notice="The map is a picture of the matrix, not of the features: it shows what the forest thinks is similar.",
        mistake="Reading the axes as features. They are only the two directions that keep most of the matrix."),
    Step(
        title="Other measures on the same forest",
        text="The same leaves can be counted differently. **RF-GAP** uses, for each instance, only the trees that "
             "did not see it (out of bag) and weighs leaf-mates by how often they were drawn. **RFD** weighs each "
             "reference instance by how hard it is to classify (its disagreeing neighbours).",
        run=RUN, figures=_measures,
        question=Question("Are the three maps the same?",
                          ("Identical: the forest is the same", "Similar groups, but the measures place the border "
                           "instances differently", "Unrelated pictures"), 1,
                          "All three read the same trees, so the class structure is shared; they differ in what "
                          "counts as a shared leaf and how much each leaf-mate weighs."),
        notice="RF-GAP's map looks less tidy, and the map is to blame: each RF-GAP proximity row sums to 1, so its "
               "dissimilarities are all close to 1 and two axes keep only a few per cent of them (see the shares "
               "in the panel's title). Compare the groups, not the spread.",
        mistake="Choosing a measure by how clean its picture looks (see the next step)."),
    Step(
        title="Honest neighbours",
        text="How good are the neighbours each measure gives? Each bar is the accuracy of voting among the 5 nearest "
             "training instances, each instance left out of its own vote, next to the forest's out-of-bag accuracy.",
        run=RUN, figures=_accuracy,
        question=Question("Which measure's neighbours look best on the training data?",
                          ("Breiman", "RF-GAP", "RFD", "All the same"), 0,
                          "Breiman's proximity counts trees that were grown on both instances and their labels, so "
                          "on the training data it is optimistic. RF-GAP counts only trees that did not see the "
                          "instance: its accuracy is an honest estimate, close to the forest's out-of-bag accuracy."),
        notice="The highest bar is not the most trustworthy one: ask which trees saw the instance.",
        mistake="Judging a proximity by its accuracy on the data the forest was trained on.",
        holds=_breiman_most_optimistic),
)

LESSON = Lesson(
    id="proximity", title="What makes two instances similar to a forest?",
    summary="Follow one instance through the trees of a forest, build its proximity row, see the dissimilarity "
            "matrix and its map, and compare Breiman's measure with RF-GAP and RFD on the same forest.",
    steps=STEPS)
