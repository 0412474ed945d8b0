"""The claims a lesson step may make about its result, by name: a step's answer is often a fact of the data (the
paper's rule ties for almost every instance; OFSP keeps under a quarter of the features), and a named check with
parameters says whether the computed result still shows it, so that ``lesson check --compute`` and the lessons'
tests catch a text that its figure no longer supports (a teacher's new data, a new release).

A check returns ``(holds, measured)``: whether the claim holds and what was measured, in words. Numeric checks
compare one measured value with ``above``, ``below``, ``at_least`` and ``at_most`` (at least one of them).
"""

from __future__ import annotations

import numpy as np

from mvlab.experiments.combinations import DVS_METHODS
from mvlab.experiments.siamese_comparison import tau_tradeoff
from mvlab.experiments.view_construction_sweep import CLASSIFIERS, METHODS, METRICS
from mvlab.i18n import N_, gettext, localised_number, ngettext
from mvlab.lessons.figure_registry import (
    USEFUL_GROUPS,
    explained_instance,
    feature_kinds,
    run_classifier,
    run_method,
)
from mvlab.lessons.pages import PAGES, PROXIMITY_MEASURES
from mvlab.lessons.parameters import Entry, Param
from mvlab.rfd.explanation import view_choice_scores

__all__ = ["CHECKS", "BOUNDS", "outcome"]

BOUNDS = (Param("above", "float", "The measured value is greater than this.", range=(-1e9, 1e9)),
          Param("below", "float", "The measured value is less than this.", range=(-1e9, 1e9)),
          Param("at_least", "float", "The measured value is at least this.", range=(-1e9, 1e9)),
          Param("at_most", "float", "The measured value is at most this.", range=(-1e9, 1e9)))
"""The comparisons of a numeric check (at least one is given)."""
_BOUND_TESTS = {
    # Translators: what a check wanted of a measured value: "(wanted above 0.9)"
    "above": (np.greater, N_("above {limit}")),
    # Translators: what a check wanted of a measured value: "(wanted below 0.1)"
    "below": (np.less, N_("below {limit}")),
    # Translators: what a check wanted of a measured value: "(wanted at least 0.5)"
    "at_least": (np.greater_equal, N_("at least {limit}")),
    # Translators: what a check wanted of a measured value: "(wanted at most 0.5)"
    "at_most": (np.less_equal, N_("at most {limit}")),
}


def _number(value: float, spec: str = ".3f") -> str:
    """``value`` written by ``spec`` (``".3f"``, ``"g"``, ``".3g"``) with the marks of the language being served."""
    return localised_number(format(value, spec))


def outcome(value: float, what: str, bounds: dict) -> tuple[bool, str]:
    """Whether ``value`` meets every bound given in ``bounds`` (the keys of :data:`BOUNDS`), and the sentence."""
    wanted = [(name, limit) for name, limit in bounds.items() if name in _BOUND_TESTS and limit is not None]
    holds = all(bool(_BOUND_TESTS[name][0](value, limit)) for name, limit in wanted)
    said = ""
    for name, limit in wanted:
        bound = gettext(_BOUND_TESTS[name][1]).format(limit=_number(limit, "g"))
        # Translators: two bounds a check wanted of a measured value: "above 0.5 and below 0.9"
        said = gettext("{first} and {second}").format(first=said, second=bound) if said else bound
    # Translators: a check's outcome: {what} is what was measured (e.g. "dvs's share of test instances decided by a
    # tie"), {wanted} its bounds (e.g. "above 0.9")
    return holds, gettext("{what} is {value} (wanted {wanted})").format(what=what, value=_number(value, ".3g"),
                                                                          wanted=said)


def _numeric(measure):
    """A numeric check from ``measure(ctx, **params) -> (value, what)``: the bounds applied to its value."""
    def check(ctx, above=None, below=None, at_least=None, at_most=None, **params):
        value, what = measure(ctx, **params)
        return outcome(float(value), what, {"above": above, "below": below, "at_least": at_least, "at_most": at_most})
    check.numeric = True
    return check


# ------------------------------------------------------------------------------------------------ any page
def _accuracies(ctx, *names) -> list[float]:
    have = PAGES[ctx.settings.kind].accuracies(ctx.result, ctx.settings)
    missing = [n for n in names if n not in have]
    if missing:
        raise ValueError(gettext("the result has no accuracy of {missing}; it has {methods}.").format(
            missing=", ".join(missing), methods=", ".join(have)))
    return [have[n] for n in names]


def accuracy_within(ctx, method, other, within):
    a, b = _accuracies(ctx, method, other)
    return abs(a - b) < within, gettext("{method}'s accuracy {a} and {other}'s {b} differ by {difference} (wanted "
                                        "less than {within})").format(
        method=method, other=other, a=_number(a), b=_number(b), difference=_number(abs(a - b)),
        within=_number(within, "g"))


def accuracy_ahead(ctx, method, other, by=0.0):
    a, b = _accuracies(ctx, method, other)
    return a > b + by, gettext("{method}'s accuracy {a} against {other}'s {b} (wanted more than {wanted})").format(
        method=method, other=other, a=_number(a), b=_number(b), wanted=_number(b + by))


def accuracy_not_behind(ctx, method, other, by=0.0):
    a, b = _accuracies(ctx, method, other)
    return a >= b - by, gettext("{method}'s accuracy {a} against {other}'s {b} (wanted at least {wanted})").format(
        method=method, other=other, a=_number(a), b=_number(b), wanted=_number(b - by))


def accuracy_highest(ctx, method, among):
    values = dict(zip([method, *among], _accuracies(ctx, method, *among)))
    best = max(values[m] for m in among)
    return values[method] >= best, gettext("{method}'s accuracy {a}, the best of {among} {best}").format(
        method=method, a=_number(values[method]), among=", ".join(among), best=_number(best))


# ------------------------------------------------------------------------------------------------ proximity
def _leaf_mates_same_class(ctx, instance=0):
    w = ctx.result
    same = [np.mean(w.y[w.leaf_mates(instance, t) & (np.arange(len(w.y)) != instance)] == w.y[instance])
            for t in range(w.n_trees) if w.leaf_mates(instance, t).sum() > 1]
    return float(np.mean(same)), gettext("the share of instance {instance}'s leaf-mates of its class").format(
        instance=instance)


def same_class_closer(ctx, measure="breiman"):
    w = ctx.result
    D, same = w.dissimilarities[measure], w.y[:, None] == w.y[None, :]
    inside, across = float(D[same].mean()), float(D[~same].mean())
    return inside < across, gettext("mean dissimilarity within a class {inside}, across classes {across}").format(
        inside=_number(inside), across=_number(across))


# ------------------------------------------------------------------------------------------------ dvs
def _explanation(ctx, method):
    return ctx.result.explanations[method]


def _tie_rate(ctx, method="dvs"):
    return _explanation(ctx, method).tie_rate, gettext("{method}'s share of test instances decided by a tie").format(
        method=method)


def _subsets_used(ctx, method="dvs"):
    return len(np.unique(_explanation(ctx, method).chosen)), gettext("the number of subsets {method} chose").format(
        method=method)


def _single_view_share(ctx, method="dvs"):
    e = _explanation(ctx, method)
    return float(np.mean(e.chosen_views.sum(axis=1) == 1)), gettext(
        "the share of instances {method} gave one view").format(method=method)


def _all_views_share(ctx, method="dvs"):
    e = _explanation(ctx, method)
    return float(np.mean(e.chosen_views.all(axis=1))), gettext(
        "the share of instances {method} gave every view").format(method=method)


def _view_precision(ctx, method="dvs"):
    if ctx.result.informative_test is None:
        raise ValueError(gettext("{data} does not say which view carries each instance's class; this check needs "
                                 "the region demo (settings: source: demo).").format(data=ctx.data.name))
    scores = view_choice_scores(_explanation(ctx, method).chosen_views, ctx.result.informative_test)
    return scores["precision"], gettext("the precision of {method}'s view choices").format(method=method)


def instance_tied(ctx, method="dvs", instance=None):
    i = explained_instance(ctx.result) if instance is None else instance
    n = int(_explanation(ctx, method).n_tied[i])
    return n > 1, ngettext("{n} candidate shares {method}'s best competence for test instance {i}",
                           "{n} candidates share {method}'s best competence for test instance {i}", n).format(
        n=n, method=method, i=i)


# ------------------------------------------------------------------------------------------------ view construction
def _kept_share(ctx, method="OFSP", k=3, classifier=None):
    M = ctx.result.membership(run_method(ctx, method), run_classifier(ctx, classifier), k)
    return float(M.any(axis=0).mean()), gettext("the share of features {method} kept for k = {k}").format(
        method=method, k=k)


def _useful_enrichment(ctx, method="OFSP", classifier=None):
    r, g = ctx.result, feature_kinds(ctx)
    base = np.isin(g, USEFUL_GROUPS).mean()
    if base == 0:
        raise ValueError(gettext("{data} has no informative or redundant features marked; this check needs the "
                                 "Madelon-like set (settings: source: madelon).").format(data=ctx.data.name))
    method, classifier = run_method(ctx, method), run_classifier(ctx, classifier)
    shares = [np.isin(g[r.membership(method, classifier, k).any(axis=0)], USEFUL_GROUPS).mean() for k in r.ks]
    return float(min(shares) / base), gettext("the smallest share of useful features among those {method} kept "
                                              "(over k), as a multiple of their share in the data").format(
        method=method)


def _per_k(ctx, metric, classifier):
    return ctx.result.per_k(metric, run_classifier(ctx, classifier))


def metric_grows(ctx, metric="percent_features", method="OFSP", classifier=None):
    line = _per_k(ctx, metric, classifier)[run_method(ctx, method)]
    first, last = float(line.iloc[0]), float(line.iloc[-1])
    return last > first, gettext("{method}'s {metric} is {first} at the smallest k and {last} at the largest").format(
        method=method, metric=metric, first=_number(first, ".3g"), last=_number(last, ".3g"))


def _metric_largest(ctx, metric="percent_features", method="OFSP", classifier=None):
    return float(_per_k(ctx, metric, classifier)[run_method(ctx, method)].max()), \
        gettext("{method}'s largest {metric} over k").format(method=method, metric=metric)


def metric_ahead_at_every_k(ctx, metric="seconds", method="OFSP", other="RFSP", classifier=None):
    table = _per_k(ctx, metric, classifier)
    a, b = table[run_method(ctx, method)], table[run_method(ctx, other)]
    behind = [int(k) for k in table.index[~(a > b).to_numpy()]]
    if not behind:
        return True, gettext("{method}'s {metric} is above {other}'s at every k").format(method=method, metric=metric,
                                                                                         other=other)
    return False, gettext("{method}'s {metric} is not above {other}'s at k = {ks}").format(
        method=method, metric=metric, other=other, ks=", ".join(map(str, behind)))


# ------------------------------------------------------------------------------------------------ siamese
def _levels_kept(ctx, model="gcForest"):
    return ctx.result.n_levels[model], gettext("the levels {model} kept").format(model=model)


def _effective_trees_share(ctx):
    r = ctx.result
    return r.mean_effective_trees / r.n_trees, gettext("SDF's mean effective number of trees, as a share of T")


def tau_trades(ctx, tau=1.0):
    r = ctx.result
    at0, at = tau_tradeoff(r.scores["SDF"], r.y_test, 0.0), tau_tradeoff(r.scores["SDF"], r.y_test, tau)
    holds = at.undetermined > at0.undetermined and at.accuracy > at0.accuracy
    return holds, gettext("at τ = {tau}: {undetermined} undetermined (at 0: {undetermined_at_0}), accuracy on the "
                          "decided {accuracy} (at 0: {accuracy_at_0})").format(
        tau=_number(tau, "g"), undetermined=_number(at.undetermined), undetermined_at_0=_number(at0.undetermined),
        accuracy=_number(at.accuracy), accuracy_at_0=_number(at0.accuracy))


# ------------------------------------------------------------------------------------------------ the registry
_ALL_PAGES = tuple(PAGES)
_METHOD = Param("method", "str", "A method of the run (see the page's accuracies).", required=True)
_OTHER = Param("other", "str", "The method compared with.", required=True)
_DVS = Param("method", "str", "The dynamic view selection method.", "dvs", options=DVS_METHODS)
_SWEEP = Param("method", "str", "The view-construction method.", "OFSP", options=METHODS)
_CLASSIFIER = Param("classifier", "str", "The base classifier; default the run's first.", options=tuple(CLASSIFIERS))
_METRIC = Param("metric", "str", "The metric.", "percent_features", options=METRICS)


def _entry(name, pages, check, doc, *params) -> Entry:
    numeric = getattr(check, "numeric", False)
    return Entry(name, pages, tuple(params) + (BOUNDS if numeric else ()), doc, check)


CHECKS: dict[str, Entry] = {e.name: e for e in (
    _entry("accuracy_within", _ALL_PAGES, accuracy_within,
           "Two methods' accuracies differ by less than `within`.", _METHOD, _OTHER,
           Param("within", "float", "The largest difference.", required=True, range=(0.0, 1.0))),
    _entry("accuracy_ahead", _ALL_PAGES, accuracy_ahead,
           "A method's accuracy is above another's by more than `by`.", _METHOD, _OTHER,
           Param("by", "float", "The margin.", 0.0, range=(-1.0, 1.0))),
    _entry("accuracy_not_behind", _ALL_PAGES, accuracy_not_behind,
           "A method's accuracy is at least another's, less `by`.", _METHOD, _OTHER,
           Param("by", "float", "The margin allowed.", 0.0, range=(0.0, 1.0))),
    _entry("accuracy_highest", _ALL_PAGES, accuracy_highest,
           "A method's accuracy is the highest of a list of methods.", _METHOD,
           Param("among", "list[str]", "The methods compared.", required=True)),
    _entry("proximity.leaf_mates_same_class", ("proximity",), _numeric(_leaf_mates_same_class),
           "The share of the followed instance's leaf-mates that have its class (mean over the trees).",
           Param("instance", "int", "The instance followed.", 0, range=(0, 100000))),
    _entry("proximity.same_class_closer", ("proximity",), same_class_closer,
           "Instances of one class are closer to each other than to the other classes, on average.",
           Param("measure", "str", "The measure.", "breiman", options=PROXIMITY_MEASURES)),
    _entry("dvs.tie_rate", ("dvs",), _numeric(_tie_rate),
           "The share of test instances for which several candidates tied for the best competence.", _DVS),
    _entry("dvs.subsets_used", ("dvs",), _numeric(_subsets_used), "How many different subsets were chosen.", _DVS),
    _entry("dvs.single_view_share", ("dvs",), _numeric(_single_view_share),
           "The share of test instances given a single view.", _DVS),
    _entry("dvs.all_views_share", ("dvs",), _numeric(_all_views_share),
           "The share of test instances given every view.", _DVS),
    _entry("dvs.view_precision", ("dvs",), _numeric(_view_precision),
           "The share of chosen views that carry the instance's class (the region demo only).", _DVS),
    _entry("dvs.instance_tied", ("dvs",), instance_tied,
           "Several candidates share the best competence for one test instance.", _DVS,
           Param("instance", "int", "The test instance; default the one the DVS figures explain.",
                 range=(0, 100000))),
    _entry("view_construction.kept_share", ("view_construction",), _numeric(_kept_share),
           "The share of the features a method kept (in at least one view) for one k.", _SWEEP,
           Param("k", "int", "The number of views.", 3, range=(1, 30)), _CLASSIFIER),
    _entry("view_construction.useful_enrichment", ("view_construction",), _numeric(_useful_enrichment),
           "How many times richer in useful features the kept features are than the data, at the worst k "
           "(the Madelon-like set only).", _SWEEP, _CLASSIFIER),
    _entry("view_construction.metric_grows", ("view_construction",), metric_grows,
           "A method's metric is larger at the largest k than at the smallest.", _METRIC, _SWEEP, _CLASSIFIER),
    _entry("view_construction.metric_largest", ("view_construction",), _numeric(_metric_largest),
           "A method's largest value of a metric over k.", _METRIC, _SWEEP, _CLASSIFIER),
    _entry("view_construction.metric_ahead_at_every_k", ("view_construction",), metric_ahead_at_every_k,
           "A method's metric is above another's at every k.",
           Param("metric", "str", "The metric.", "seconds", options=METRICS), _SWEEP,
           Param("other", "str", "The method compared with.", "RFSP", options=METHODS), _CLASSIFIER),
    _entry("siamese.levels_kept", ("siamese",), _numeric(_levels_kept), "The cascade levels a model kept.",
           Param("model", "str", "The model.", "gcForest", options=("gcForest", "SDF"))),
    _entry("siamese.effective_trees_share", ("siamese",), _numeric(_effective_trees_share),
           "SDF's mean effective number of trees 1/Σw², as a share of the trees per forest."),
    _entry("siamese.tau_trades", ("siamese",), tau_trades,
           "Raising the threshold τ from 0 leaves more pairs undetermined and makes the decided ones more accurate.",
           Param("tau", "float", "The threshold.", 1.0, range=(0.0, 10.0))),
)}
"""Every check a lesson file may name, by name."""
