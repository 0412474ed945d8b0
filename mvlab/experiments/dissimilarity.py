"""Compare view-combination methods on one split, with the same view forests for all of them.

This is the paper's protocol for one repetition (ALGORITHMS.md §A.6-A.8, §A.9): one stratified
train/test split; one dissimilarity forest per view, fitted once; then every combination
("average", "knn", "alignment", "oob", "dvs") trains on the same per-view matrices and is
scored on the same test rows.  With "dvs" the per-instance explanation of the test rows is kept.  The result keeps the
matrices so a dashboard can draw them and a user can download them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from mvlab.rfd.dvs import subset_dissimilarity
from mvlab.rfd.explanation import DVSExplanation
from mvlab.rfd.weights import STATIC_COMBINATIONS
from mvlab.experiments.protocols import RepeatedHoldout
from mvlab.experiments.runner import Family, Preset
from mvlab.rfd.classifier import COMBINATION_TITLES, COMBINATIONS, RFDClassifier
from mvlab.rfd.view_forests import combine, fit_view_forests
from mvlab.forest.measures import measure_spec, resolve_measure
from mvlab.core.progress import ProgressCallback, scaled
from mvlab.core.serialize import pack, unpack
from mvlab.core.views import check_views

__all__ = ["CombinationComparison", "compare_combinations", "DISSIMILARITY", "COMBINATION_TITLES"]


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
    explanation : DVSExplanation or None
        With "dvs": its per-instance explanation of the test rows (region indices are positions
        in the training rows).
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
    explanation: DVSExplanation | None = None

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
        """Tidy rows (repetition 0, method, "accuracy", value, seconds) for the results store."""
        return [{"repetition": 0, "method": c, "metric": "accuracy", "value": a, "seconds": self.seconds[c]}
                for c, a in self.accuracy.items()]

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
                "seconds": self.seconds, "settings": self.settings}
        if self.explanation is not None:
            dvs_arrays, meta["dvs"] = self.explanation.to_arrays()
            arrays.update({f"dvs.{k}": v for k, v in dvs_arrays.items()})
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
            explanation=None if "dvs" not in meta else DVSExplanation.from_arrays(
                {k[4:]: v for k, v in z.items() if k.startswith("dvs.")}, meta["dvs"]),
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
    combinations : subset of ``COMBINATIONS`` of :mod:`mvlab.rfd.classifier`
    test_size : float in (0, 1)
        Share of instances held out, stratified by class (paper: 0.5).
    split : (train_index, test_index), optional
        Use these rows instead of drawing a split (``test_size`` is then ignored); lets a
        protocol of :mod:`mvlab.experiments.runner` give every method family the same splits.
    measure : str, Measure or its :func:`mvlab.forest.measures.measure_spec` dict
    n_estimators, k, dvs_competence, dvs_selection
        As for :class:`mvlab.rfd.classifier.RFDClassifier`; ``n_estimators`` sets the trees of every
        forest (paper: 512); ``k`` is SWknn's neighbours and the DVS region size.
    random_state : int
        Seeds the split, the view forests and the final forests.
    progress : callable (fraction, message), optional
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if not combinations:
        raise ValueError("give at least one combination to compare.")
    if split is not None:
        train_index, test_index = (np.sort(np.asarray(part, dtype=np.int64)) for part in split)
        if len(train_index) == 0 or len(test_index) == 0:
            raise ValueError("the split needs at least one training and one test row.")
    else:
        if not 0 < test_size < 1:
            raise ValueError(f"test_size must be between 0 and 1, got {test_size}.")
        counts = np.bincount(np.unique(y, return_inverse=True)[1])
        if counts.min() < 2:
            raise ValueError("every class needs at least two instances for a stratified split.")
        try:
            train_index, test_index = train_test_split(
                np.arange(len(y)), test_size=test_size, stratify=y, random_state=random_state)
        except ValueError as exc:
            raise ValueError(f"cannot split {len(y)} instances with test_size={test_size}: {exc}") from None
        train_index, test_index = np.sort(train_index), np.sort(test_index)
    X_train, X_test, y_train, y_test = X[train_index], X[test_index], y[train_index], y[test_index]

    view_list, names = check_views(views, X.shape[1])
    if view_names is not None:
        if len(view_names) != len(view_list):
            raise ValueError(f"{len(view_names)} view names for {len(view_list)} views.")
        names = [str(v) for v in view_names]
    views = dict(zip(names, view_list))  # named views: names reach the DVS candidates and explanations
    measure = resolve_measure(measure)
    seconds = {}
    t = time.perf_counter()
    forests = fit_view_forests(X_train, y_train, views, measure=measure, n_estimators=n_estimators,
                               random_state=random_state, n_jobs=n_jobs, progress=scaled(progress, 0.0, 0.6))
    seconds["view forests"] = time.perf_counter() - t
    t = time.perf_counter()
    test_D = forests.transform(X_test, n_jobs=n_jobs)
    seconds["test dissimilarities"] = time.perf_counter() - t

    weights, predictions, accuracy, explanation = {}, {}, {}, None
    # the DVS pool holds 2^Q - 1 forests against one final forest for a static combination
    cost = {c: (2 ** len(views) - 1 if c == "dvs" else 1) for c in combinations}  # noqa: E501
    done, total = 0, sum(cost.values())
    for c in combinations:
        sub = scaled(progress, 0.6 + 0.4 * done / total, 0.4 * cost[c] / total)
        if sub is not None:
            sub(0.0, f"combination {c}")
        t = time.perf_counter()
        clf = RFDClassifier(views=views, combination=c, measure=measure, n_estimators=n_estimators, k=k,
                            dvs_competence=dvs_competence, dvs_selection=dvs_selection,
                            random_state=random_state, n_jobs=n_jobs)
        clf.fit(X_train, y_train, progress=sub, view_forests=forests)
        pred = clf.predict_from_dissimilarities(test_D)
        if c == "dvs":
            explanation = clf.combiner_.explain(test_D)
        done += cost[c]
        seconds[c] = time.perf_counter() - t
        weights[c] = np.asarray(clf.view_weights_, dtype=np.float64)
        predictions[c] = np.asarray(pred)
        accuracy[c] = float(np.mean(pred == y_test))
    if progress is not None:
        progress(1.0, "done")

    settings = {"test_size": test_size, "measure": measure_spec(measure), "n_estimators": n_estimators, "k": k,
                "random_state": random_state, "combinations": list(combinations)}
    if "dvs" in combinations:
        settings.update(dvs_competence=dvs_competence, dvs_selection=dvs_selection)
    return CombinationComparison(
        view_names=names,
        classes=[str(c) for c in (classes if classes is not None else np.unique(y))],
        train_index=train_index, test_index=test_index, y_train=y_train, y_test=y_test,
        train_dissimilarities=list(forests.dissimilarities), test_dissimilarities=list(test_D),
        weights=weights, predictions=predictions, accuracy=accuracy,
        view_oob_accuracy=np.asarray(forests.oob_accuracies, dtype=np.float64),
        seconds=seconds, settings=settings, explanation=explanation,
    )


# ----------------------------------------------------------------------------- the family
_DEFAULTS = {"methods": list(COMBINATIONS), "measure": "breiman", "n_estimators": 100, "k": 7,
             "dvs_competence": "ola", "dvs_selection": "best"}


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


def _evaluate(ds, split, params, n_jobs, keep, progress=None):
    params = dict(params)
    result = compare_combinations(ds.X, ds.y, ds.views, classes=ds.classes, split=(split.train, split.test),
                                  combinations=params.pop("methods"), random_state=split.seed, n_jobs=n_jobs,
                                  progress=progress, **params)
    rows = result.result_rows()
    for r in rows:
        r.pop("repetition", None)
    return rows, (result if keep else None)


DISSIMILARITY = Family(
    name="dissimilarity",
    title="Random-forest dissimilarities (Bernard et al. 2020)",
    methods=tuple(COMBINATIONS),
    method_titles=dict(COMBINATION_TITLES),
    baseline="average",
    control="dvs",
    evaluate=_evaluate,
    check_params=check_params,
    presets={
        "quick": Preset({"n_estimators": 30}, RepeatedHoldout(5, 0.5)),
        "paper": Preset({"n_estimators": 512, "measure": "rfd"}, RepeatedHoldout(10, 0.5)),
    },
)
"""Avg, SWknn, SWka, SWoob and DVS on the same view forests of every split (§A.9): the sign test
compares every method with Avg, the post-hoc with DVS, the paper's proposal."""
