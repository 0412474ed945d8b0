"""Compare view-combination methods on one split, with the same view forests for all of them.

This is the paper's protocol for one repetition (docs/algorithms.md §A.6-A.8, §A.9): one stratified
train/test split; one dissimilarity forest per view, fitted once; then every combination
("average", "knn", "alignment", "oob", "dvs") trains on the same per-view matrices and is
scored on the same test rows.  With "dvs" the per-instance explanation of the test rows is kept.  The result keeps the
matrices so a dashboard can draw them and a user can download them.
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from mvlab.core.params import N_JOBS, POSITIVE_INT, RANDOM_STATE, Interval, StrOptions, validate_params
from mvlab.core.progress import ProgressCallback, scaled
from mvlab.core.serialize import pack, unpack
from mvlab.core.views import check_views
from mvlab.experiments.protocols import RepeatedHoldout
from mvlab.experiments.runner import Family, Preset
from mvlab.forest.measures import measure_spec, resolve_measure
from mvlab.rfd.baselines import BASELINE_TITLES, BASELINES, late_fusion_proba, make_view_stacking
from mvlab.rfd.classifier import COMBINATION_TITLES, COMBINATIONS, RFDClassifier
from mvlab.rfd.dvs import (
    COMPETENCES,
    PAPER_RULES,
    REGIONS,
    SELECTIONS,
    TIE_BREAKS,
    check_pool_size,
    subset_dissimilarity,
)
from mvlab.rfd.explanation import DVSExplanation, view_choice_scores
from mvlab.rfd.view_forests import ViewForests, combine, fit_view_forests
from mvlab.rfd.weights import STATIC_COMBINATIONS

__all__ = ["CombinationComparison", "compare_combinations", "DISSIMILARITY", "COMPARISON_METHODS", "METHOD_TITLES",
           "DVS_VARIANTS", "DVS_METHODS"]

DVS_VARIANTS = {
    "dvs-soft": {"competence": "soft"},
    "dvs-soft-shared": {"competence": "soft", "region": "shared"},
}
"""DVS with other rules on the same pool (the paper's rules with these changes): soft competence
(mean out-of-bag probability of the neighbours' true classes), and soft competence on one
region shared by all candidates."""
DVS_METHODS = ("dvs",) + tuple(DVS_VARIANTS)
COMPARISON_METHODS = tuple(COMBINATIONS) + tuple(DVS_VARIANTS) + BASELINES
"""Every method a comparison of view combinations can hold: the paper's combinations, the DVS
variants and the baselines a user would pick instead (:mod:`mvlab.rfd.baselines`)."""
METHOD_TITLES = {**COMBINATION_TITLES,
                 "dvs-soft": "DVS, soft competence",
                 "dvs-soft-shared": "DVS, soft competence, shared region",
                 **{b: f"baseline: {t}" for b, t in BASELINE_TITLES.items()}}


@dataclass
class CombinationComparison:
    """Everything one comparison measured.

    Attributes
    ----------
    view_names : list of str (Q,)
    classes : list of str (C,)
    train_index, test_index : ndarray of int
        Rows of the dataset used for training / testing.
    y_train, y_test : ndarray of int
        Encoded labels (indices into ``classes``).
    train_dissimilarities : list of Q float32 arrays (n_train, n_train)
    test_dissimilarities : list of Q float32 arrays (n_test, n_train)
    weights : dict combination -> ndarray (Q,), summing to 1
    predictions : dict combination -> ndarray (n_test,) of encoded labels
    accuracy : dict combination -> float (test accuracy)
    view_oob_accuracy : ndarray (Q,)
        Out-of-bag accuracy of each view forest.
    seconds : dict step -> wall-clock seconds ("view forests", "test dissimilarities", each combination)
    settings : dict
        The parameters that produced the result (for downloads and the results store).
    explanations : dict DVS method -> DVSExplanation
        Per-instance explanations of the test rows of every DVS method (region indices are
        positions in the training rows); the DVS methods share one pool of candidate forests.
    oracle_accuracy : float or None
        With the true informative views of synthetic data: the accuracy of the pool's candidate
        of each test instance's true views: the reference for any choice of views (not a strict
        ceiling: where that candidate errs, another subset can be right).
    """

    view_names: list
    classes: list
    train_index: np.ndarray
    test_index: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    train_dissimilarities: list
    test_dissimilarities: list
    weights: dict
    predictions: dict
    accuracy: dict
    view_oob_accuracy: np.ndarray
    seconds: dict
    settings: dict = field(default_factory=dict)
    explanations: dict = field(default_factory=dict)
    oracle_accuracy: float | None = None
    informative_test: np.ndarray | None = None

    @property
    def explanation(self) -> DVSExplanation | None:
        """The explanation of ``"dvs"`` (else of the first DVS method), or None."""
        return self.explanations.get("dvs", next(iter(self.explanations.values()), None))

    @property
    def combinations(self) -> list[str]:
        return list(self.accuracy)

    def joint_train(self, combination: str = "average") -> np.ndarray:
        """Joint training matrix ``sum_q w_q D_q`` (n_train, n_train) of a combination (§A.6 step 2)."""
        return combine(self.train_dissimilarities, self.weights[combination])

    def subset_rows(self, mask) -> tuple[np.ndarray, np.ndarray]:
        """Joint rows of a view subset (bool mask (Q,)): training (n_train, n_train) and test
        (n_test, n_train) matrices, the space DVS's candidate for that subset sees (§A.8 lines 4, 9)."""
        return (subset_dissimilarity(self.train_dissimilarities, mask),
                subset_dissimilarity(self.test_dissimilarities, mask))

    def table(self) -> pd.DataFrame:
        """One row per combination: test accuracy, seconds, and the weight of every view."""
        rows = []
        for c in self.combinations:
            row = {"combination": c, "test accuracy": self.accuracy[c], "seconds": self.seconds.get(c, np.nan)}
            row.update({f"w[{v}]": float(w) for v, w in zip(self.view_names, self.weights[c])})
            rows.append(row)
        return pd.DataFrame(rows)

    def result_rows(self) -> list[dict]:
        """Tidy rows for the results store: every method's ``"accuracy"``; for every DVS method
        also ``"tie_rate"`` (share of choices made by the tie-break) and, with a ground truth of
        informative views, ``"choice_precision"``, ``"choice_recall"`` and ``"oracle_accuracy"``."""
        rows = [{"repetition": 0, "method": c, "metric": "accuracy", "value": a, "seconds": self.seconds[c]}
                for c, a in self.accuracy.items()]
        for c, e in self.explanations.items():
            rows.append({"repetition": 0, "method": c, "metric": "tie_rate", "value": e.tie_rate})
            if self.informative_test is not None:
                scores = view_choice_scores(e.chosen_views, self.informative_test)
                rows += [{"repetition": 0, "method": c, "metric": "choice_precision", "value": scores["precision"]},
                         {"repetition": 0, "method": c, "metric": "choice_recall", "value": scores["recall"]}]
                if self.oracle_accuracy is not None:
                    rows.append({"repetition": 0, "method": c, "metric": "oracle_accuracy",
                                 "value": self.oracle_accuracy})
        return rows

    def weights_frame(self) -> pd.DataFrame:
        """Long table (combination, view, weight) of the view weights."""
        return pd.DataFrame(
            [{"combination": c, "view": v, "weight": float(w)}
             for c in self.combinations for v, w in zip(self.view_names, self.weights[c])]
        )

    def to_npz(self) -> bytes:
        """All arrays and the settings in one compressed ``.npz`` (settings as a JSON string)."""
        arrays = {
            "train_index": self.train_index, "test_index": self.test_index,
            "y_train": self.y_train, "y_test": self.y_test, "view_oob_accuracy": self.view_oob_accuracy,
        }
        for v, D in zip(self.view_names, self.train_dissimilarities):
            arrays[f"train_dissimilarity[{v}]"] = D
        for v, D in zip(self.view_names, self.test_dissimilarities):
            arrays[f"test_dissimilarity[{v}]"] = D
        for c in self.combinations:
            arrays[f"weights[{c}]"] = self.weights[c]
            arrays[f"predictions[{c}]"] = self.predictions[c]
        meta = {"view_names": self.view_names, "classes": self.classes, "accuracy": self.accuracy,
                "seconds": self.seconds, "settings": self.settings, "oracle_accuracy": self.oracle_accuracy,
                "explanations": {}}
        for name, e in self.explanations.items():
            dvs_arrays, meta["explanations"][name] = e.to_arrays()
            arrays.update({f"explanation[{name}].{k}": v for k, v in dvs_arrays.items()})
        if self.informative_test is not None:
            arrays["informative_test"] = self.informative_test
        return pack(arrays, meta)

    @classmethod
    def from_npz(cls, data: bytes) -> "CombinationComparison":
        z, meta = unpack(data)
        views, combos = meta["view_names"], list(meta["accuracy"])
        return cls(
            view_names=views, classes=meta["classes"],
            train_index=z["train_index"], test_index=z["test_index"],
            y_train=z["y_train"], y_test=z["y_test"],
            train_dissimilarities=[z[f"train_dissimilarity[{v}]"] for v in views],
            test_dissimilarities=[z[f"test_dissimilarity[{v}]"] for v in views],
            weights={c: z[f"weights[{c}]"] for c in combos},
            predictions={c: z[f"predictions[{c}]"] for c in combos},
            accuracy=meta["accuracy"], view_oob_accuracy=z["view_oob_accuracy"],
            seconds=meta["seconds"], settings=meta["settings"],
            explanations={name: DVSExplanation.from_arrays(
                {k[len(f"explanation[{name}]."):]: v for k, v in z.items() if k.startswith(f"explanation[{name}].")},
                m) for name, m in meta.get("explanations", {}).items()},
            oracle_accuracy=meta.get("oracle_accuracy"), informative_test=z.get("informative_test"),
        )


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "views": "no_validation",  # check_views
        "view_names": ["array-like", None],
        "classes": ["array-like", None],
        "combinations": ["array-like"],  # each a name of COMPARISON_METHODS, checked first thing
        "test_size": [Interval(numbers.Real, 0.0, 1.0, closed="neither")],
        "measure": "no_validation",  # resolve_measure
        "n_estimators": POSITIVE_INT,
        "k": POSITIVE_INT,
        "dvs_competence": [StrOptions(set(COMPETENCES))],
        "dvs_selection": [StrOptions(set(SELECTIONS))],
        "dvs_region": [StrOptions(set(REGIONS))],
        "dvs_tie_break": [StrOptions(set(TIE_BREAKS))],
        "informative": ["array-like", None],
        "split": ["array-like", None],
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
        "progress": [callable, None],
    },
    prefer_skip_nested_validation=True,
)
def compare_combinations(
    X,
    y,
    views,
    *,
    view_names: Sequence[str] | None = None,
    classes: Sequence[str] | None = None,
    combinations: Sequence[str] = STATIC_COMBINATIONS,
    test_size: float = 0.5,
    measure="breiman",
    n_estimators: int = 100,
    k: int = 7,
    dvs_competence: str = "ola",
    dvs_selection: str = "best",
    dvs_region: str = "candidate",
    dvs_tie_break: str = "oob",
    informative=None,
    split: tuple | None = None,
    random_state: int | None = None,
    n_jobs: int | None = None,
    progress: ProgressCallback = None,
) -> CombinationComparison:
    """Fit the view forests once on a stratified split and score every combination on it.

    Parameters
    ----------
    X : ndarray (n, d); y : ndarray (n,) of encoded labels
    views : mapping name -> column indices (e.g. ``ds.views``), or a list of Q index arrays
        (named by ``view_names``, else ``"view 0"``, ...)
    combinations : subset of :data:`COMPARISON_METHODS`
        The combinations of :class:`mvlab.rfd.classifier.RFDClassifier` (``"dvs"`` with the
        ``dvs_*`` rules), the DVS variants of :data:`DVS_VARIANTS` (the same pool of candidate
        forests, other rules) and the baselines of :mod:`mvlab.rfd.baselines`; all on the same
        split, the static ones and DVS on the same view forests.
    test_size : float in (0, 1)
        Share of instances held out, stratified by class (paper: 0.5).
    split : (train_index, test_index), optional
        Use these rows instead of drawing a split (``test_size`` is then ignored); lets a
        protocol of :mod:`mvlab.experiments.runner` give every method family the same splits.
    measure : str, Measure or its :func:`mvlab.forest.measures.measure_spec` dict
    n_estimators, k, dvs_competence, dvs_selection
        As for :class:`mvlab.rfd.classifier.RFDClassifier`; ``n_estimators`` sets the trees of every
        forest (paper: 512); ``k`` is SWknn's neighbours and the DVS region size.
    informative : bool array (n, Q), optional
        The true informative views of every row (synthetic data): the DVS methods' choices on
        the test rows are scored against it and the oracle accuracy is computed.
    random_state : int
        Seeds the split, the view forests and the final forests.
    progress : callable (fraction, message), optional
    """
    _check_methods(combinations)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    train_index, test_index = _split_rows(y, split, test_size, random_state)
    X_train, X_test, y_train, y_test = X[train_index], X[test_index], y[train_index], y[test_index]
    names, views = _named_views(views, X.shape[1], view_names)
    measure = resolve_measure(measure)
    seconds = {}
    t = time.perf_counter()
    forests = fit_view_forests(X_train, y_train, views, measure=measure, n_estimators=n_estimators,
                               random_state=random_state, n_jobs=n_jobs, progress=scaled(progress, 0.0, 0.6))
    seconds["view forests"] = time.perf_counter() - t
    t = time.perf_counter()
    test_D = forests.transform(X_test, n_jobs=n_jobs)
    seconds["test dissimilarities"] = time.perf_counter() - t
    dvs_rules = dict(dvs_competence=dvs_competence, dvs_selection=dvs_selection, dvs_region=dvs_region,
                     dvs_tie_break=dvs_tie_break)
    shared = _SharedWork(views, forests, test_D, X_train, y_train, X_test, measure, n_estimators, k, dvs_rules,
                         random_state, n_jobs)
    scores = _score_methods(combinations, shared, y_test, progress)
    seconds.update(scores.seconds)
    informative_test = oracle = None
    if informative is not None:
        informative_test = np.asarray(informative, dtype=bool)[test_index]
        if scores.pool is not None:
            oracle = _oracle_accuracy(scores.pool, test_D, informative_test, y_test)
    if progress is not None:
        progress(1.0, "done")

    settings = {"test_size": test_size, "measure": measure_spec(measure), "n_estimators": n_estimators, "k": k,
                "random_state": random_state, "combinations": list(combinations)}
    if "dvs" in combinations:
        settings.update(dvs_rules)
    return CombinationComparison(
        view_names=names,
        classes=[str(c) for c in (classes if classes is not None else np.unique(y))],
        train_index=train_index, test_index=test_index, y_train=y_train, y_test=y_test,
        train_dissimilarities=list(forests.dissimilarities), test_dissimilarities=list(test_D),
        weights=scores.weights, predictions=scores.predictions,
        accuracy={c: scores.accuracy[c] for c in combinations},  # in the order asked
        view_oob_accuracy=np.asarray(forests.oob_accuracies, dtype=np.float64),
        seconds=seconds, settings=settings, explanations=scores.explanations, oracle_accuracy=oracle,
        informative_test=informative_test,
    )


def _check_methods(combinations) -> None:
    """A ``ValueError`` for no combination or an unknown one, before any forest is grown."""
    if len(combinations) == 0:
        raise ValueError("give at least one combination to compare.")
    unknown = [c for c in combinations if c not in COMPARISON_METHODS]
    if unknown:
        raise ValueError(f"unknown combination(s) {unknown}; choose from {list(COMPARISON_METHODS)}.")


def _split_rows(y, split, test_size, random_state) -> tuple[np.ndarray, np.ndarray]:
    """Sorted training and test rows (int arrays): the given ``split``, or a stratified split of
    ``y`` (n,) holding out ``test_size`` of every class."""
    if split is not None:
        train_index, test_index = (np.sort(np.asarray(part, dtype=np.int64)) for part in split)
        if len(train_index) == 0 or len(test_index) == 0:
            raise ValueError("the split needs at least one training and one test row.")
        return train_index, test_index
    counts = np.bincount(np.unique(y, return_inverse=True)[1])
    if counts.min() < 2:
        raise ValueError("every class needs at least two instances for a stratified split.")
    try:
        train_index, test_index = train_test_split(
            np.arange(len(y)), test_size=test_size, stratify=y, random_state=random_state)
    except ValueError as exc:
        raise ValueError(f"cannot split {len(y)} instances with test_size={test_size}: {exc}") from None
    return np.sort(train_index), np.sort(test_index)


def _named_views(views, n_features: int, view_names) -> tuple[list[str], dict]:
    """The views' names (Q,) and the views as name -> column indices: the names reach the DVS
    candidates and explanations."""
    view_list, names = check_views(views, n_features)
    if view_names is not None:
        if len(view_names) != len(view_list):
            raise ValueError(f"{len(view_names)} view names for {len(view_list)} views.")
        names = [str(v) for v in view_names]
    return names, dict(zip(names, view_list))


@dataclass(frozen=True)
class _SharedWork:
    """What every method of one comparison shares: the views, their forests fitted on the training
    rows, the test rows' dissimilarities to the training rows (Q arrays (n_test, n_train)), the rows
    themselves and the forests' parameters (``dvs_rules``: the ``dvs_*`` keywords of "dvs")."""

    views: dict
    forests: ViewForests
    test_D: list
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    measure: object
    n_estimators: int
    k: int
    dvs_rules: dict
    random_state: int | None
    n_jobs: int | None


@dataclass
class _MethodScores:
    """Per method: view weights (Q,), test predictions (n_test,), test accuracy, seconds, and the
    explanation of every DVS method; ``pool`` is the DVS combiner the DVS methods shared (or None)."""

    weights: dict = field(default_factory=dict)
    predictions: dict = field(default_factory=dict)
    accuracy: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    explanations: dict = field(default_factory=dict)
    pool: object = None


def _progress_costs(combinations, n_views: int) -> dict:
    """Each method's share of the progress bar, in units of one final forest: the DVS pool holds
    ``2^Q - 1`` forests (counted under ``"dvs"`` whenever a DVS method needs it), a DVS variant
    re-reads it, stacking fits a forest per view and fold."""
    pool_cost = 2 ** n_views - 1
    cost = {c: (0.05 * pool_cost if c in DVS_VARIANTS else 3 * n_views if c == "stacking" else 1)
            for c in combinations}
    if any(c in DVS_METHODS for c in combinations):
        cost["dvs"] = pool_cost
    return cost


def _score_methods(combinations, shared: _SharedWork, y_test, progress) -> _MethodScores:
    """Fit every method on the shared work and score it on the test rows ``y_test`` (n_test,); the
    methods that build the DVS pool come first, so the variants reuse it."""
    scores = _MethodScores()
    cost = _progress_costs(combinations, len(shared.views))
    done, total = 0, sum(cost.values())
    for c in sorted(combinations, key=lambda c: c not in ("dvs",) + tuple(COMBINATIONS)):  # the pool first
        sub = scaled(progress, 0.6 + 0.4 * done / total, 0.4 * cost.get(c, 1) / total)
        if sub is not None:
            sub(0.0, f"{c}")
        t = time.perf_counter()
        scores.weights[c], proba, explanation, scores.pool = _fit_method(c, shared, scores.pool, sub)
        if explanation is not None:
            scores.explanations[c] = explanation
        done += cost.get(c, 1)
        scores.seconds[c] = time.perf_counter() - t
        scores.predictions[c] = np.asarray(shared.forests.classes)[np.asarray(proba).argmax(axis=1)]
        scores.accuracy[c] = float(np.mean(scores.predictions[c] == y_test))
    return scores


def _fit_method(name, shared: _SharedWork, pool, progress):
    """One method on the shared work: its view weights (Q,), its test probabilities (n_test, C), its
    explanation (DVS methods; else None) and the DVS pool (built by the first DVS method that needs it)."""
    views = shared.views
    if name in BASELINES:
        return np.full(len(views), 1.0 / len(views)), _baseline_proba(name, shared), None, pool
    if name in DVS_VARIANTS:
        if pool is None:
            pool = _dvs_pool(shared, progress)
        combiner = pool.with_rules(**{**PAPER_RULES, **DVS_VARIANTS[name]})
        explanation = combiner.explain(shared.test_D)
        return np.asarray(combiner.view_weights_, dtype=np.float64), explanation.proba, explanation, pool
    clf = RFDClassifier(views=views, combination=name, measure=shared.measure, n_estimators=shared.n_estimators,
                        k=shared.k, **shared.dvs_rules, random_state=shared.random_state, n_jobs=shared.n_jobs)
    clf.fit(shared.X_train, shared.y_train, progress=progress, view_forests=shared.forests)
    weights = np.asarray(clf.view_weights_, dtype=np.float64)
    if name == "dvs":
        explanation = clf.combiner_.explain(shared.test_D)
        return weights, explanation.proba, explanation, clf.combiner_
    return weights, clf.predict_proba_from_dissimilarities(shared.test_D), None, pool


def _oracle_accuracy(pool, test_D, informative_test, y_test) -> float:
    """Accuracy of the pool's candidate of each test row's true views (``informative_test`` (n_test, Q))."""
    return float(np.mean(pool.proba_with_views(test_D, informative_test).argmax(axis=1) == y_test))


def _dvs_pool(shared: _SharedWork, progress):
    """The DVS pool under the paper's rules, fitted on the shared view forests."""
    clf = RFDClassifier(views=shared.views, combination="dvs", measure=shared.measure,
                        n_estimators=shared.n_estimators, k=shared.k, random_state=shared.random_state,
                        n_jobs=shared.n_jobs)
    return clf.fit(shared.X_train, shared.y_train, progress=progress, view_forests=shared.forests).combiner_


def _baseline_proba(name, shared: _SharedWork):
    """Test probabilities (n_test, C) of a baseline of :mod:`mvlab.rfd.baselines`, with the trees
    of this comparison: late fusion reuses the view forests; ``concat`` and ``stacking`` grow
    forests of ``n_estimators`` trees seeded from ``random_state``."""
    forests = shared.forests
    if name == "late-fusion":
        return late_fusion_proba(forests, shared.X_test)
    if name == "concat":
        model = RandomForestClassifier(n_estimators=shared.n_estimators, random_state=int(forests.seeds[-1]),
                                       n_jobs=shared.n_jobs)
    else:
        counts = np.bincount(np.unique(shared.y_train, return_inverse=True)[1])
        model = make_view_stacking(shared.views, shared.X_train.shape[1], n_estimators=shared.n_estimators,
                                   cv=int(min(3, counts.min())), random_state=int(forests.seeds[-1]),
                                   n_jobs=shared.n_jobs)
    return model.fit(shared.X_train, forests.y).predict_proba(shared.X_test)


# ----------------------------------------------------------------------------- the family
_DEFAULTS = {"methods": list(COMPARISON_METHODS), "measure": "breiman", "n_estimators": 100, "k": 7,
             "dvs_competence": "ola", "dvs_selection": "best", "dvs_region": "candidate", "dvs_tie_break": "oob"}


def check_params(params: dict) -> dict:
    """The dissimilarity family's parameters with defaults filled in; the measure as its JSON spec."""
    unknown = set(params) - set(_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} of the dissimilarity family; known: "
                         f"{sorted(_DEFAULTS)}.")
    out = {**_DEFAULTS, **params}
    out["methods"] = DISSIMILARITY.check_methods(out["methods"])
    out["measure"] = measure_spec(out["measure"])
    return out


def _check_data(n_views: int, params: dict) -> list[str]:
    """A DVS method needs a pool of ``2^Q - 1`` candidate forests: refused above 10 views."""
    if any(m in DVS_METHODS for m in params["methods"]):
        try:
            check_pool_size(n_views)
        except ValueError as exc:
            return [f"{exc} (or leave out the DVS methods {[m for m in params['methods'] if m in DVS_METHODS]})"]
    return []


def _evaluate(ds, split, params, n_jobs, keep, progress=None):
    params = dict(params)
    result = compare_combinations(ds.X, ds.y, ds.views, classes=ds.classes, split=(split.train, split.test),
                                  combinations=params.pop("methods"), informative=ds.informative,
                                  random_state=split.seed, n_jobs=n_jobs, progress=progress, **params)
    rows = result.result_rows()
    for r in rows:
        r.pop("repetition", None)
    return rows, (result if keep else None)


DISSIMILARITY = Family(
    name="dissimilarity",
    title="Random-forest dissimilarities (Bernard et al. 2020)",
    methods=COMPARISON_METHODS,
    method_titles=METHOD_TITLES,
    baseline="average",
    control="dvs",
    evaluate=_evaluate,
    check_params=check_params,
    check_data=_check_data,
    presets={
        "quick": Preset({"n_estimators": 30}, RepeatedHoldout(5, 0.5)),
        "paper": Preset({"n_estimators": 512, "measure": "rfd"}, RepeatedHoldout(10, 0.5)),
    },
)
"""Avg, SWknn, SWka, SWoob and DVS on the same view forests of every split (§A.9): the sign test
compares every method with Avg, the post-hoc with DVS, the paper's proposal."""
