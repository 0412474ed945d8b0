"""The figures a lesson step may show, by name: each reads its page's stored result (a :class:`StepContext`) and
draws one figure or one small table with the same :mod:`mvlab.viz` builders as the pages, with declared
parameters (:mod:`mvlab.lessons.parameters`). A lesson file names them (``figure: proximity.heatmap``) and gives
their parameters; nothing else of a file is ever called."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mvlab.core.projection import mds_2d
from mvlab.experiments.combinations import COMPARISON_METHODS, DVS_METHODS
from mvlab.experiments.view_construction_sweep import (
    CLASSIFIER_TITLES,
    CLASSIFIERS,
    METHODS,
    METRIC_TITLES,
    METRICS,
    feature_groups,
)
from mvlab.i18n import N_, gettext, localised_number, ngettext
from mvlab.lessons.pages import PROXIMITY_MEASURES
from mvlab.lessons.parameters import Entry, Param
from mvlab.rfd.explanation import view_choice_scores
from mvlab.viz import (
    data_figures,
    dissimilarity_figures,
    dvs_figures,
    proximity_figures,
    shared_figures,
    siamese_figures,
    view_construction_figures,
)

__all__ = ["FIGURES", "explained_instance", "typical_pair", "USEFUL_GROUPS", "run_classifier", "run_method",
           "feature_kinds"]

MEASURE_TITLES = {"breiman": "Breiman", "rfgap": "RF-GAP", "rfd": "RFD"}
DVS_SHOWN = {"average": "Avg", "oob": "SWoob", "dvs": N_("DVS (paper)"), "dvs-soft": N_("DVS (soft)"),
             "dvs-soft-shared": N_("DVS (soft, shared region)")}
"""The DVS lesson's names of the methods it shows (others keep their own); in the reader's language:
:func:`shown_method`."""
USEFUL_GROUPS = ("informative", "redundant")
"""The kinds of features of the Madelon-like set that carry the class."""
MADELON_GROUPS = USEFUL_GROUPS + ("noise",)

_INSTANCE = Param("instance", "int", "The instance followed: its row among the sample (0: the first).", 0,
                  range=(0, 100000))
_MEASURE = Param("measure", "str", "The proximity measure.", "breiman", options=PROXIMITY_MEASURES)
_TITLE = Param("title", "str", "The figure's title; default its own.")
_DVS_METHOD = Param("method", "str", "The dynamic view selection method: the paper's (dvs), the soft competence "
                    "(dvs-soft) or the soft one on a shared region (dvs-soft-shared).", "dvs", options=DVS_METHODS)
_DVS_INSTANCE = Param("instance", "int", "The test instance explained; default the first whose soft choice is "
                      "exactly its true view (the demo data's), else the first.", range=(0, 100000))
_SWEEP_METHOD = Param("method", "str", "The view-construction method.", "OFSP", options=METHODS)
_CLASSIFIER = Param("classifier", "str", "The ensemble's base classifier; default the run's first.",
                    options=tuple(CLASSIFIERS))


def shown_method(method: str) -> str:
    """The name the DVS lesson's figures give ``method`` (:data:`DVS_SHOWN`), in the reader's language."""
    return gettext(DVS_SHOWN[method]) if method in DVS_SHOWN else method


def _axes() -> tuple[str, str]:
    """The axes of a map placed by multidimensional scaling, in the reader's language."""
    return gettext("axis 1"), gettext("axis 2")


# ------------------------------------------------------------------------------------------------ proximity
def _labels(walk) -> np.ndarray:
    return np.asarray(walk.classes)[walk.y]


def _instance_of(walk, instance: int) -> int:
    if instance >= len(walk.y):
        n = len(walk.y)
        raise ValueError(ngettext("instance {instance} is not in the sample of {n} instance (0 to {last}).",
                                  "instance {instance} is not in the sample of {n} instances (0 to {last}).",
                                  n).format(instance=instance, n=n, last=n - 1))
    return instance


def leaf_mates(ctx, instance=0, trees=3, title=None):
    w = ctx.result
    i = _instance_of(w, instance)
    # Translators: the name of a panel of a figure: the forest's tree {n}
    tree = gettext("tree {n}")
    mates = {tree.format(n=t + 1): w.leaf_mates(i, t) for t in range(min(trees, w.n_trees))}
    return proximity_figures.leaf_mates_map(
        mds_2d(w.dissimilarities["breiman"])[0], _labels(w), w.classes, i, mates,
        title=title or gettext("Our instance (star) and the instances sharing its leaf, in three trees<br><sup>placed "
                               "by the whole forest's Breiman dissimilarity (the map of step 4); faint: the other "
                               "instances</sup>"))


def proximity_rows(ctx, instance=0, after=(1, 5), title=None):
    w = ctx.result
    i = _instance_of(w, instance)
    counts = sorted({t for t in after if t < w.n_trees} | {w.n_trees})
    rows = {ngettext("after {n} tree", "after {n} trees", t).format(n=t): w.proximity_after(i, t) for t in counts}
    return proximity_figures.proximity_rows(
        rows, _labels(w), w.classes, i,
        title=title or gettext("Proximity of every other instance to ours, as trees are added"))


def proximity_heatmap(ctx, measure="breiman", title=None):
    w = ctx.result
    if not title:
        title = (gettext("Breiman dissimilarity 1 − proximity, view '{view}'") if measure == "breiman"
                 else gettext("{measure} dissimilarity, view '{view}'")).format(measure=MEASURE_TITLES[measure],
                                                                                 view=w.view_name)
    return dissimilarity_figures.dissimilarity_heatmap(w.dissimilarities[measure], _labels(w), title=title)


def proximity_map(ctx, measure="breiman", title=None):
    w = ctx.result
    return shared_figures.view_projections(
        {MEASURE_TITLES[measure]: mds_2d(w.dissimilarities[measure])}, _labels(w), w.classes, columns=1,
        title=title or gettext("The instances placed by their {measure} dissimilarity").format(
            measure=MEASURE_TITLES[measure]),
        axis_names=_axes())


def measure_maps(ctx, title=None):
    w = ctx.result
    return shared_figures.view_projections(
        {MEASURE_TITLES[m]: mds_2d(D) for m, D in w.dissimilarities.items()}, _labels(w), w.classes, columns=3,
        title=title or gettext("The same forest, three measures"), axis_names=_axes())


def neighbour_accuracy(ctx, title=None):
    w = ctx.result
    # Translators: the name of a bar: the forest's out-of-bag accuracy (beside the measures' kNN accuracies)
    forest = gettext("forest out-of-bag")
    bars = {**{MEASURE_TITLES[m]: a for m, a in w.knn_accuracy.items()}, forest: w.oob_accuracy}
    return shared_figures.method_accuracy(
        bars, highlight=forest, floor=0.5,
        title=title or gettext("Leave-one-out {k}-NN accuracy on the training dissimilarities, and the forest's "
                               "out-of-bag accuracy<br><sup>green: the forest's own honest estimate, the "
                               "reference</sup>").format(k=w.k))


# ------------------------------------------------------------------------------------------------ dvs
def _informative(ctx):
    if ctx.data.informative is None:
        raise ValueError(gettext("{data} does not say which view carries each instance's class; this figure needs "
                                 "the region demo (settings: source: demo).").format(data=ctx.data.name))
    return ctx.data.informative


def true_views(ctx, title=None):
    d = ctx.data
    return data_figures.informative_matrix(_informative(ctx), d.labels, d.view_names, **({"title": title} if title
                                                                                          else {}))


def dvs_accuracy(ctx, methods=("average", "oob", "dvs", "dvs-soft", "dvs-soft-shared"), oracle=True, title=None):
    r = ctx.result
    missing = [m for m in methods if m not in r.accuracy]
    if missing:
        raise ValueError(gettext("the run has no {missing}; it has {methods}.").format(
            missing=", ".join(missing), methods=", ".join(r.accuracy)))
    bars = {shown_method(m): r.accuracy[m] for m in methods}
    if oracle and r.oracle_accuracy is not None:
        bars[gettext("oracle (true view)")] = r.oracle_accuracy
    return shared_figures.method_accuracy(
        bars, title=title or gettext("Test accuracy on the same split and the same view forests"))


SUBSET_TITLES = {"dvs": N_("Paper's DVS: which subset each test instance used"),
                 "dvs-soft": N_("Soft DVS: which subset each test instance used"),
                 "dvs-soft-shared": N_("Soft DVS on a shared region: which subset each test instance used")}
"""The default titles of :func:`subset_frequencies` (marked: translated where a figure is drawn)."""


def subset_frequencies(ctx, method="dvs", title=None):
    e = ctx.result.explanations[method]
    ties = "<br><sup>" + gettext("the best competence was tied for {percent} % of the test instances (median {n} "
                                 "candidates tied)").format(percent=localised_number(f"{100 * e.tie_rate:.0f}"),
                                                            n=localised_number(f"{np.median(e.n_tied):.0f}")) + "</sup>"
    return dvs_figures.subset_frequencies(e.candidate_names, e.selection_frequencies(),
                                          title=(title or gettext(SUBSET_TITLES[method])) + ties)


def explained_instance(result) -> int:
    """The test instance the DVS lesson explains: the first whose soft choice is exactly its true view (the first
    test instance when the true views are unknown or none is chosen exactly)."""
    if result.informative_test is None:
        return 0
    e = result.explanations["dvs-soft"]
    hits = np.flatnonzero((e.chosen_views == result.informative_test).all(axis=1))
    return int(hits[0]) if len(hits) else 0


def _test_instance(result, instance) -> int:
    if instance is None:
        return explained_instance(result)
    n = len(result.y_test)
    if instance >= n:
        raise ValueError(gettext("instance {instance} is not a test instance (0 to {last}).").format(
            instance=instance, last=n - 1))
    return instance


def instance_neighbourhood(ctx, method="dvs-soft", instance=None, title=None):
    r = ctx.result
    i = _test_instance(r, instance)
    e = r.explanations[method]
    near, coords, position = r.neighbourhood(e, i)
    return dvs_figures.neighbourhood_map(
        coords, np.asarray(r.classes)[r.y_train[near]], r.classes, region=position, region_hit=e.region_oob_hit[i],
        title=title or ngettext("Test instance {i} (star) and its {n} nearest training instance, in the space of "
                                "“{subset}”",
                                "Test instance {i} (star) and its {n} nearest training instances, in the space of "
                                "“{subset}”", len(near)).format(i=i, n=len(near), subset=e.chosen_names[i]))


COMPETENCE_TITLES = {"dvs": N_("Paper: out-of-bag accuracy on each candidate's own region"),
                     "dvs-soft": N_("Soft: out-of-bag probability of the true class, own region"),
                     "dvs-soft-shared": N_("Soft: out-of-bag probability of the true class, shared region")}
"""The default titles of :func:`candidate_competence` (marked: translated where a figure is drawn)."""


def candidate_competence(ctx, method="dvs", instance=None, title=None):
    r = ctx.result
    i = _test_instance(r, instance)
    e = r.explanations[method]
    return dvs_figures.candidate_competence(e.candidate_names, e.competence[i], e.chosen[i],
                                            title=title or gettext(COMPETENCE_TITLES[method]))


def ground_truth(ctx, methods=DVS_METHODS):
    r = ctx.result
    if r.informative_test is None:
        raise ValueError(gettext("{data} does not say which view carries each instance's class; this table needs "
                                 "the region demo (settings: source: demo).").format(data=ctx.data.name))
    # Translators: the columns of a table of DVS's view choices: the method, the precision of its choices, that of a
    # random choice of as many views, their recall and the method's test accuracy
    method, precision, baseline, recall, accuracy = (gettext("method"), gettext("precision"),
                                                     gettext("random choice of the same size"), gettext("recall"),
                                                     gettext("accuracy"))
    rows = []
    for m in methods:
        scores = view_choice_scores(r.explanations[m].chosen_views, r.informative_test)
        rows.append({method: shown_method(m), precision: round(scores["precision"], 3),
                     baseline: round(scores["baseline precision"], 3),
                     recall: round(scores["recall"], 3), accuracy: round(r.accuracy[m], 3)})
    rows.append({method: gettext("oracle (the true view)"), precision: 1.0, baseline: np.nan,
                 recall: 1.0, accuracy: round(r.oracle_accuracy, 3)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------------ view construction
def run_classifier(ctx, classifier) -> str:
    """The base classifier ``classifier`` names (None: the run's first); ValueError when the run has none of it."""
    chosen = classifier or ctx.settings.classifiers[0]
    if chosen not in ctx.settings.classifiers:
        raise ValueError(gettext("the run has no {classifier} ensembles; its classifiers: {classifiers}.").format(
            classifier=chosen, classifiers=", ".join(ctx.settings.classifiers)))
    return chosen


def run_method(ctx, method) -> str:
    """``method``, when the run swept it; else ValueError naming the run's methods."""
    if method not in ctx.settings.methods:
        raise ValueError(gettext("the run has no {method}; its methods: {methods}.").format(
            method=method, methods=", ".join(ctx.settings.methods)))
    return method


def feature_kinds(ctx) -> np.ndarray:
    """The kind (natural view) of each feature the sweep used."""
    return feature_groups(ctx.data.views, ctx.result.feature_index)


def partition(ctx, method="OFSP", k=3, classifier=None, title=None):
    r = ctx.result
    method, classifier = run_method(ctx, method), run_classifier(ctx, classifier)
    if k not in r.ks:
        raise ValueError(gettext("k = {k} is not in the sweep (k = 1 to {largest}).").format(k=k, largest=max(r.ks)))
    M = r.membership(method, classifier, k)
    names = np.asarray(ctx.data.feature_names)[r.feature_index]
    folds = ctx.settings.effective().n_splits
    return view_construction_figures.partition_matrix(
        M, feature_kinds(ctx), names, title=title or ngettext(
            "{method}, k = {k}: which feature went to which view<br><sup>the partition learned on the last of the "
            "{folds} training fold</sup>",
            "{method}, k = {k}: which feature went to which view<br><sup>the partition learned on the last of the "
            "{folds} training folds</sup>", folds).format(method=method, k=k, folds=folds))


def kept_table(ctx, method="OFSP", classifier=None):
    r, g = ctx.result, feature_kinds(ctx)
    method, classifier = run_method(ctx, method), run_classifier(ctx, classifier)
    kinds = [k for k in MADELON_GROUPS if k in set(g)] + [k for k in dict.fromkeys(g) if k not in MADELON_GROUPS]
    useful = [kind for kind in USEFUL_GROUPS if kind in kinds]
    # Translators: columns of a table of the features a view-construction method kept: which features (a row says
    # "all features of the data" or "kept by OFSP"), how many were kept, and the share of useful ones among them
    features, kept_n, share = gettext("features"), gettext("kept"), gettext("useful share")
    rows = [{features: gettext("all features of the data"), "k": "", kept_n: len(g),
             **{kind: int((g == kind).sum()) for kind in kinds},
             **({share: round(float(np.isin(g, USEFUL_GROUPS).mean()), 3)} if useful else {})}]
    kept_by = gettext("kept by {method}").format(method=method)
    for k in r.ks:
        kept = r.membership(method, classifier, k).any(axis=0)
        rows.append({features: kept_by, "k": str(k), kept_n: int(kept.sum()),
                     **{kind: int((g[kept] == kind).sum()) for kind in kinds},
                     **({share: round(float(np.isin(g[kept], USEFUL_GROUPS).mean()), 3) if kept.any()
                         else np.nan} if useful else {})})
    return pd.DataFrame(rows)


def k_lines(ctx, metric="accuracy", classifier=None, title=None):
    classifier = run_classifier(ctx, classifier)
    s = ctx.settings.effective()
    folds = s.n_splits * s.n_repeats
    metric_title = gettext(METRIC_TITLES[metric])
    return view_construction_figures.k_sweep_lines(
        ctx.result.per_k(metric, classifier), metric_title=metric_title,
        title=title or ngettext("{metric} for each k ({classifier} members, mean over {folds} test fold)",
                                "{metric} for each k ({classifier} members, mean over {folds} test folds)",
                                folds).format(metric=metric_title, classifier=gettext(CLASSIFIER_TITLES[classifier]),
                                              folds=folds))


# ------------------------------------------------------------------------------------------------ siamese
def typical_pair(result, data, label: int) -> tuple[int, int]:
    """A test pair of ``label`` (0 similar, 1 dissimilar) that SDF gets right and whose distance in the
    standardised features is the median of its label's: a typical pair, not an outlier."""
    pairs = result.test_pairs[result.y_test == label]
    z = data.standardised_rows(np.arange(data.n_samples))
    distance = np.linalg.norm(z[pairs[:, 0]] - z[pairs[:, 1]], axis=1)
    right = result.predictions("SDF")[result.y_test == label] == label
    candidates = np.flatnonzero(right) if right.any() else np.arange(len(pairs))
    median = np.median(distance[candidates])
    best = candidates[np.argmin(np.abs(distance[candidates] - median))]
    return int(pairs[best, 0]), int(pairs[best, 1])


PAIR_KINDS = ("similar", "dissimilar")
PAIR_TITLES = {"similar": N_("A typical similar test pair (standardised features)"),
               "dissimilar": N_("A typical dissimilar test pair (standardised features)")}
"""The default titles of :func:`pair`, by kind (marked: translated where a figure is drawn)."""


def pair(ctx, kind="similar", title=None):
    """One typical pair, drawn on the scale shared by the typical similar and dissimilar pairs."""
    r, ds = ctx.result, ctx.data
    shown = {}
    # Translators: an instance of a pair drawn side by side: its number and its class's name
    instance = gettext("instance {i} ({label})")
    for label, name in enumerate(PAIR_KINDS):
        a, b = typical_pair(r, ds, label)
        shown[name] = (ds.standardised_rows([a, b]),
                       tuple(instance.format(i=j, label=ds.classes[ds.y[j]]) for j in (a, b)))
    values = np.concatenate([z.ravel() for z, _ in shown.values()])
    pad = 0.05 * float(np.ptp(values))
    y_range = (float(values.min()) - pad, float(values.max()) + pad)
    z, names = shown[kind]
    return siamese_figures.pair_view(z[0], z[1], feature_names=ds.feature_names, names=names, y_range=y_range,
                                     title=title or gettext(PAIR_TITLES[kind]))


def cascade_levels(ctx):
    return siamese_figures.cascade_level_accuracy(ctx.result.level_table())


def tree_weights(ctx, top=0.21, title=None):
    r = ctx.result
    return siamese_figures.tree_weight_distributions(
        r.weights, r.forest_names, y_range=(0.0, top),
        title=title or gettext("SDF tree weights, λ = {lam} (dashed: gcForest's 1/T)").format(
            lam=localised_number(f"{r.settings['lam']:g}")))


def siamese_accuracy(ctx):
    return ctx.result.table().round(3)


def tau_curve(ctx, tau=1.0):
    return siamese_figures.tau_tradeoff_curve(ctx.result.tau_curves(tau), tau)


# ------------------------------------------------------------------------------------------------ the registry
def _entry(name, pages, build, doc, *params) -> Entry:
    return Entry(name, pages, tuple(params), doc, build)


FIGURES: dict[str, Entry] = {e.name: e for e in (
    _entry("proximity.leaf_mates", ("proximity",), leaf_mates,
           N_("A map of the sample (placed by the Breiman dissimilarity) with the instances sharing the followed "
              "instance's leaf, one panel per tree."), _INSTANCE,
           Param("trees", "int", "How many trees (the first ones).", 3, range=(1, 6)), _TITLE),
    _entry("proximity.rows", ("proximity",), proximity_rows,
           N_("The followed instance's proximity to every other instance after some trees and after the whole forest."),
           _INSTANCE, Param("after", "list[int]", "After how many trees (the whole forest is always added).", (1, 5),
                            range=(1, 1000)), _TITLE),
    _entry("proximity.heatmap", ("proximity",), proximity_heatmap,
           N_("The dissimilarity matrix of the sample, instances sorted by class."), _MEASURE, _TITLE),
    _entry("proximity.map", ("proximity",), proximity_map,
           N_("The instances placed in a plane by multidimensional scaling of one measure's dissimilarity."), _MEASURE,
           _TITLE),
    _entry("proximity.measure_maps", ("proximity",), measure_maps,
           N_("The maps of the three measures (Breiman, RF-GAP, RFD) side by side."), _TITLE),
    _entry("proximity.neighbour_accuracy", ("proximity",), neighbour_accuracy,
           N_("Leave-one-out kNN accuracy of each measure's neighbours, beside the forest's out-of-bag accuracy."),
           _TITLE),
    _entry("dvs.true_views", ("dvs",), true_views,
           N_("Which view carries each instance's class (the region demo only)."), _TITLE),
    _entry("dvs.accuracy", ("dvs",), dvs_accuracy,
           N_("Test accuracy of some methods on the same split and view forests, and the oracle's."),
           Param("methods", "list[str]", "The methods shown, in order.",
                 ("average", "oob", "dvs", "dvs-soft", "dvs-soft-shared"), options=COMPARISON_METHODS),
           Param("oracle", "bool", "Add the oracle (each instance's true view; the region demo only).", True),
           _TITLE),
    _entry("dvs.subset_frequencies", ("dvs",), subset_frequencies,
           N_("How often each candidate subset of views was chosen, and how often the best competence was tied."),
           _DVS_METHOD, _TITLE),
    _entry("dvs.neighbourhood", ("dvs",), instance_neighbourhood,
           N_("One test instance among its nearest training instances, in the space of the subset chosen for it; its "
              "region of competence ringed."),
           Param("method", "str", _DVS_METHOD.help, "dvs-soft", options=DVS_METHODS), _DVS_INSTANCE, _TITLE),
    _entry("dvs.competence", ("dvs",), candidate_competence,
           N_("Every candidate's competence for one test instance, the chosen one marked."), _DVS_METHOD, _DVS_INSTANCE,
           _TITLE),
    _entry("dvs.ground_truth", ("dvs",), ground_truth,
           N_("A table: precision and recall of each method's view choices against the true views (the region demo "
              "only), and its accuracy."),
           Param("methods", "list[str]", "The methods compared.", DVS_METHODS, options=DVS_METHODS)),
    _entry("view_construction.partition", ("view_construction",), partition,
           N_("Which feature went to which view (and which were discarded) for one k, coloured by the features' "
              "kinds."),
           _SWEEP_METHOD, Param("k", "int", "The number of views.", 3, range=(1, 30)), _CLASSIFIER, _TITLE),
    _entry("view_construction.kept", ("view_construction",), kept_table,
           N_("A table: the kinds of features a method kept for each k, against the data as a whole."), _SWEEP_METHOD,
           _CLASSIFIER),
    _entry("view_construction.k_lines", ("view_construction",), k_lines,
           N_("One metric for each k, one line per method."),
           Param("metric", "str", "The metric.", "accuracy", options=METRICS), _CLASSIFIER, _TITLE),
    _entry("siamese.pair", ("siamese",), pair,
           N_("A typical similar or dissimilar test pair that SDF gets right, its two instances' standardised features "
              "side by side (both kinds on one scale)."),
           Param("kind", "str", "Which pair.", "similar", options=PAIR_KINDS), _TITLE),
    _entry("siamese.levels", ("siamese",), cascade_levels,
           N_("Training (out-of-fold) and test accuracy of each cascade level, the kept levels marked.")),
    _entry("siamese.tree_weights", ("siamese",), tree_weights,
           N_("The distribution of SDF's tree weights in each forest, against gcForest's 1/T."),
           Param("top", "float", "The top of the weight axis (one scale for several steps).", 0.21, range=(0.01, 1.0)),
           _TITLE),
    _entry("siamese.accuracy", ("siamese",), siamese_accuracy,
           N_("A table: test accuracy, levels, training accuracy, effective trees and time of SDF and gcForest.")),
    _entry("siamese.tau_curve", ("siamese",), tau_curve,
           N_("Accuracy on the decided pairs and the share left undetermined as the threshold τ grows."),
           Param("tau", "float", "The threshold marked (dashed).", 1.0, range=(0.0, 10.0))),
)}
"""Every figure a lesson file may name, by name (what each shows, its ``doc``, marked for the catalogues: the lesson
editor says it in the reader's language)."""
