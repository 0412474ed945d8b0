"""The dynamic view selection lesson: why the paper's choices are decided by ties, and what a graded
competence changes (docs/algorithms.md §A.8), on the region demo data."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mvlab.experiments.combinations import CombinationComparison
from mvlab.experiments.settings import DVSSettings
from mvlab.lessons.model import Lesson, Question, Step, StepContext, StepRun
from mvlab.rfd.explanation import view_choice_scores
from mvlab.viz import data_figures, dvs_figures, shared_figures

__all__ = ["LESSON", "explained_instance"]

RUN = StepRun(DVSSettings(seed=0, source="demo"), "breast-cancer", CombinationComparison)
SHOWN = {"average": "Avg", "oob": "SWoob", "dvs": "DVS (paper)", "dvs-soft": "DVS (soft)",
         "dvs-soft-shared": "DVS (soft, shared region)"}


def _data(ctx: StepContext):
    d = ctx.data
    return [data_figures.informative_matrix(d.informative, d.labels, d.view_names)]


def _accuracy(ctx: StepContext):
    r = ctx.result
    bars = {title: r.accuracy[m] for m, title in SHOWN.items()}
    bars["oracle (true view)"] = r.oracle_accuracy
    return [shared_figures.method_accuracy(bars, title="Test accuracy on the same split and the same view forests")]


def _paper_close_to_average(ctx: StepContext) -> bool:
    a = ctx.result.accuracy
    return abs(a["dvs"] - a["average"]) < 0.03


def _frequencies(method: str, title: str):
    def figures(ctx: StepContext):
        e = ctx.result.explanations[method]
        ties = (f"<br><sup>the best competence was tied for {100 * e.tie_rate:.0f} % of the test instances "
                f"(median {np.median(e.n_tied):.0f} candidates tied)</sup>")
        return [dvs_figures.subset_frequencies(e.candidate_names, e.selection_frequencies(), title=title + ties)]
    return figures


def _paper_ties(ctx: StepContext) -> bool:
    return ctx.result.explanations["dvs"].tie_rate > 0.9


def _soft_varies(ctx: StepContext) -> bool:
    e = ctx.result.explanations["dvs-soft"]
    single_views = float(np.mean(e.chosen_views.sum(axis=1) == 1))  # "the single views take most instances"
    return e.tie_rate < 0.1 and len(np.unique(e.chosen)) >= 4 and single_views > 0.5


def explained_instance(result: CombinationComparison) -> int:
    """The test instance the lesson explains: the first whose soft choice is exactly its true view."""
    e = result.explanations["dvs-soft"]
    hits = np.flatnonzero((e.chosen_views == result.informative_test).all(axis=1))
    return int(hits[0]) if len(hits) else 0


def _instance(ctx: StepContext):
    r = ctx.result
    i = explained_instance(r)
    paper, soft = r.explanations["dvs"], r.explanations["dvs-soft"]
    near, coords, position = r.neighbourhood(soft, i)
    return [dvs_figures.neighbourhood_map(
                coords, np.asarray(r.classes)[r.y_train[near]], r.classes, region=position,
                region_hit=soft.region_oob_hit[i],
                title=f"Test instance {i} (star) and its {len(near)} nearest training instances, in the space of "
                      f"“{soft.chosen_names[i]}”"),
            dvs_figures.candidate_competence(paper.candidate_names, paper.competence[i], paper.chosen[i],
                                             title="Paper: out-of-bag accuracy on each candidate's own region"),
            dvs_figures.candidate_competence(soft.candidate_names, soft.competence[i], soft.chosen[i],
                                             title="Soft: out-of-bag probability of the true class, own region")]


def _instance_ties(ctx: StepContext) -> bool:
    return ctx.result.explanations["dvs"].n_tied[explained_instance(ctx.result)] > 1


def _truth(ctx: StepContext):
    r = ctx.result
    rows = []
    for m in ("dvs", "dvs-soft", "dvs-soft-shared"):
        scores = view_choice_scores(r.explanations[m].chosen_views, r.informative_test)
        rows.append({"method": SHOWN[m], "precision": round(scores["precision"], 3),
                     "random choice of the same size": round(scores["baseline precision"], 3),
                     "recall": round(scores["recall"], 3), "accuracy": round(r.accuracy[m], 3)})
    rows.append({"method": "oracle (the true view)", "precision": 1.0, "random choice of the same size": np.nan,
                 "recall": 1.0, "accuracy": round(r.oracle_accuracy, 3)})
    return [pd.DataFrame(rows)]


def _soft_precise(ctx: StepContext) -> bool:
    r = ctx.result
    soft = view_choice_scores(r.explanations["dvs-soft"].chosen_views, r.informative_test)
    paper = view_choice_scores(r.explanations["dvs"].chosen_views, r.informative_test)
    all_views = float(np.mean(r.explanations["dvs"].chosen_views.all(axis=1)))  # "its subset holds all four views"
    return soft["precision"] > 0.6 > 0.35 > paper["precision"] and all_views > 0.9


STEPS = (
    Step(
        title="Data where the right view depends on the instance",
        text="600 synthetic instances, 4 views of 10 features. Every instance lies in one of four regions, visible "
             "in every view; in region q only **view q** shows the instance's class, the three others show a random "
             "class. Blue cells: the view that carries the instance's class.",
        run=RUN, figures=_data,
        question=Question("What should a multi-view method do for each instance?",
                          ("Trust all four views equally", "Use the view that carries this instance's class",
                           "Use the view with the best accuracy overall"), 1,
                          "Each view is right for a quarter of the instances and random elsewhere: no single view "
                          "and no fixed weighting is right everywhere. That is the case dynamic selection is for."),
        notice="Every view is informative for about a quarter of the instances: their overall accuracies are alike.",
        mistake="Looking for the best view of the dataset: here the best view changes from instance to instance."),
    Step(
        title="Static combinations and the paper's DVS",
        text="One forest per view, one dissimilarity matrix per view. **Avg** averages them; **SWoob** weights them "
             "by each forest's out-of-bag accuracy. The paper's **DVS** trains a forest per subset of views (15 "
             "here) and, for each test instance, uses the one most accurate on its 7 nearest training neighbours. "
             "The oracle uses each instance's true view.",
        run=RUN, figures=_accuracy,
        question=Question("How much does the paper's DVS gain over Avg here?",
                          ("A lot: it picks the right view", "Little or nothing", "It is much worse"), 1,
                          "Its competence, counted on 7 neighbours, rarely tells the candidates apart (next step), "
                          "so it does not pick the right view; the soft variants do better."),
        notice="The oracle shows what is at stake: the gap between Avg and the oracle is what choosing views can win.",
        mistake="Concluding that dynamic selection does not work: look at *how* it chose first.",
        holds=_paper_close_to_average),
    Step(
        title="Decided by the tie-break",
        text="The paper's competence of a candidate is the share of the 7 neighbours its forest classifies right "
             "(out of bag). When several candidates share the best score, a fixed order decides: better overall "
             "out-of-bag accuracy, then more views.",
        run=RUN, figures=_frequencies("dvs", "Paper's DVS: which subset each test instance used"),
        question=Question("How often do several candidates tie for the best competence?",
                          ("Almost never", "For about half of the instances", "For almost every instance"), 2,
                          "With 15 candidates, each scoring 0/7 to 7/7, many get all 7 right: a tie. The tie-break "
                          "order then decides alone, and it is the same for every instance, so nearly everyone gets "
                          "the same subset."),
        notice="One subset takes almost every instance: the per-instance choice carries no information.",
        mistake="Reading the chosen subsets as the views each instance needs: check the share the tie-break decided.",
        holds=_paper_ties),
    Step(
        title="A graded competence",
        text="The **soft** competence averages, over the 7 neighbours, the out-of-bag probability each candidate "
             "gives to the neighbour's true class. Confident and right scores higher than barely right.",
        run=RUN, figures=_frequencies("dvs-soft", "Soft DVS: which subset each test instance used"),
        question=Question("Will the chosen subsets now differ between instances?",
                          ("No, still one subset for all", "Yes, several subsets are used, ties are rare",
                           "Every instance uses all four views"), 1,
                          "Probabilities rarely tie exactly, so the competence itself decides; the subsets follow the "
                          "regions."),
        notice="The single views take most instances: in each region one view is confident.",
        mistake="Assuming more views are always safer: here averaging in a random view dilutes the right one.",
        holds=_soft_varies),
    Step(
        title="One instance, up close",
        text="A test instance (star) among its 40 nearest training instances in the space of the subset the soft "
             "DVS chose for it. Each is drawn at its exact dissimilarity from the star, so the 7 nearest, its region "
             "of competence, are the ringed points inside the dashed circle; the direction only hints at which "
             "neighbours are alike. Beside it, every candidate's competence under both rules, each on **its own** 7 "
             "nearest neighbours in its own space (only the chosen candidate's are the ringed ones).",
        run=RUN, figures=_instance, layout=(1, 2),
        question=Question("For this instance, how many candidates have the paper's top competence?",
                          ("Exactly one", "Several: a tie", "None"), 1,
                          "Several candidates classify all 7 neighbours right, so the paper's rule cannot choose "
                          "between them; the soft rule ranks them by confidence and picks the true view."),
        notice="The soft bars differ where the paper's bars are level: confidence separates the candidates.",
        mistake="Taking the neighbours from one fixed space for granted: each candidate has its own space; the "
                "shared-region variant uses the all-views space for every candidate.",
        holds=_instance_ties),
    Step(
        title="Against the ground truth",
        text="Since the data are synthetic we know each instance's true view. **Precision**: the share of chosen "
             "views that carry the class; a random choice of the same size gets 0.25. **Recall**: the share of true "
             "views that were chosen.",
        run=RUN, figures=_truth,
        question=Question("How precise are the soft choices compared with chance (0.25)?",
                          ("About chance", "Far above chance", "Perfect"), 1,
                          "The soft competence finds the view that carries the class for most instances; the "
                          "paper's rule, decided by the tie-break, chooses about as well as chance."),
        notice="The paper's rule has full recall only because its subset holds all four views.",
        mistake="Judging view choices by accuracy alone: a method can be accurate while choosing the wrong views.",
        holds=_soft_precise),
)

LESSON = Lesson(
    id="dvs", title="Dynamic view selection: who chooses, the competence or the tie-break?",
    summary="On data where each instance's class is visible in one view only, compare static combinations with "
            "the paper's dynamic view selection, see why its choices are decided by ties, and what a graded "
            "competence changes, against the ground truth and the oracle.",
    steps=STEPS)
