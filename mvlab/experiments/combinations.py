"""Compare view-combination methods on one split, with the same view forests for all of them.

This is the paper's protocol for one repetition (docs/algorithms.md §A.6-A.8, §A.9): one stratified
train/test split; one dissimilarity forest per view, fitted once; then every combination
("average", "knn", "alignment", "oob", "dvs") trains on the same per-view matrices and is
scored on the same test rows.  With "dvs" the per-instance explanation of the test rows is kept.  The result keeps the
matrices so a dashboard can draw them and a user can download them.

Above :data:`mvlab.rfd.prototypes.PROTOTYPE_THRESHOLD` training rows (``prototypes="auto"``) the comparison
takes the large-data path of docs/algorithms.md §A.10: no (n, n) matrix is formed, every combination's
final forests see the dissimilarities to the same prototypes, neighbourhoods stay exact, the test rows are
read in blocks once for all methods; the result then keeps the per-view matrices of a class-stratified
sample of :data:`SAMPLE_ROWS` training rows (heatmaps, maps) and, with DVS, the 2-D map of every candidate's
space for all rows.
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from mvlab.core.forest_fit import fit_forest
from mvlab.core.params import N_JOBS, POSITIVE_INT, RANDOM_STATE, Interval, StrOptions, validate_params
from mvlab.core.progress import ProgressCallback, report_partial, scaled
from mvlab.core.projection import pca_project, radial_layout
from mvlab.core.serialize import pack, unpack
from mvlab.core.views import check_views
from mvlab.experiments.large_maps import SAMPLE_ROWS, candidate_maps, sample_matrices, subset_code
from mvlab.experiments.protocols import RepeatedHoldout
from mvlab.experiments.runner import Family, Preset
from mvlab.forest.measures import measure_spec, resolve_measure
from mvlab.i18n import N_, Message, format_number, gettext, to_wire
from mvlab.rfd.baselines import BASELINE_TITLES, BASELINES, late_fusion_proba, make_view_stacking
from mvlab.rfd.classifier import COMBINATION_TITLES, COMBINATIONS, RFDClassifier, StaticCombiner
from mvlab.rfd.dvs import DVSCombiner
from mvlab.rfd.dvs_pool import check_pool_size, subset_dissimilarity
from mvlab.rfd.dvs_rules import PAPER_RULES
from mvlab.rfd.explanation import DVSExplanation, view_choice_scores
from mvlab.rfd.prototypes import PROTOTYPE_SELECTIONS, resolve_prototypes
from mvlab.rfd.view_forests import ViewForests, combine, fit_view_forests
from mvlab.rfd.view_rows import ViewRows
from mvlab.rfd.weights import STATIC_COMBINATIONS

__all__ = ["CombinationComparison", "compare_combinations", "DISSIMILARITY", "COMPARISON_METHODS", "METHOD_TITLES",
           "method_title", "DVS_VARIANTS", "DVS_METHODS", "SAMPLE_ROWS"]

NEIGHBOURHOOD = 40
"""Training instances drawn around one test instance: its region of competence and what lies just beyond."""

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
BASELINE_TITLE = N_("baseline: {title}")
METHOD_TITLES = {**COMBINATION_TITLES,
                 "dvs-soft": N_("DVS, soft competence"),
                 "dvs-soft-shared": N_("DVS, soft competence, shared region"),
                 **{b: BASELINE_TITLE.format(title=t) for b, t in BASELINE_TITLES.items()}}


def method_title(name: str) -> str:
    """The title of the method ``name`` (:data:`METHOD_TITLES`) in the reader's language."""
    if name in BASELINE_TITLES:
        return gettext(BASELINE_TITLE).format(title=gettext(BASELINE_TITLES[name]))
    return gettext(METHOD_TITLES.get(name, name))


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
        Or, on the large-data path, (s, s) among the training rows ``sample`` (positions in the
        training rows, ascending; :attr:`matrix_rows`).
    test_dissimilarities : list of Q float32 arrays (n_test, n_train)
        Empty on the large-data path (no test matrix is kept).
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
    sample : ndarray of int or None
        Large-data path: the training positions whose matrices are kept (class-stratified,
        :data:`SAMPLE_ROWS`); None: every training row (exact space).
    prototype_note : str
        The final forests' space in one sentence (exact, or how many prototypes and why).
    maps : dict subset code -> (train_xy (n_train, 2), test_xy (n_test, 2), explained (2,))
        Large-data path with DVS: every candidate's map (:meth:`subset_map`); the code is the
        subset's mask as "0"/"1" characters.
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
    sample: np.ndarray | None = None
    prototype_note: str = ""
    maps: dict = field(default_factory=dict)

    @property
    def matrix_rows(self) -> np.ndarray:
        """Positions in the training rows of the rows (and columns) of ``train_dissimilarities``."""
        return np.arange(len(self.train_index)) if self.sample is None else self.sample

    @property
    def sampled(self) -> bool:
        """Whether the kept matrices are a sample of the training rows (large-data path)."""
        return self.sample is not None

    @property
    def sample_note(self) -> str:
        """What the kept matrices cover, in words ("" when they cover every training row), in the reader's language
        (said when read, from the stored rows)."""
        if not self.sampled:
            return ""
        return gettext("a class-stratified sample of {sample} of the {rows} training rows").format(
            sample=format_number(len(self.sample)), rows=format_number(len(self.train_index)))

    @property
    def explanation(self) -> DVSExplanation | None:
        """The explanation of ``"dvs"`` (else of the first DVS method), or None."""
        return self.explanations.get("dvs", next(iter(self.explanations.values()), None))

    @property
    def combinations(self) -> list[str]:
        """The combinations compared, in order (the keys of ``accuracy``)."""
        return list(self.accuracy)

    def joint_train(self, combination: str = "average") -> np.ndarray:
        """Joint training matrix ``sum_q w_q D_q`` (n_train, n_train) of a combination (§A.6 step 2);
        (s, s) among :attr:`matrix_rows` on the large-data path."""
        return combine(self.train_dissimilarities, self.weights[combination])

    def subset_rows(self, mask) -> tuple[np.ndarray, np.ndarray]:
        """Joint rows of a view subset (bool mask (Q,)): training (n_train, n_train) and test
        (n_test, n_train) matrices, the space DVS's candidate for that subset sees (§A.8 lines 4, 9).
        Not on the large-data path (no such matrix is kept): use :meth:`subset_map`."""
        if self.sampled:
            raise ValueError("this comparison took the large-data path and kept no (n_test, n_train) matrix; "
                             "subset_map(mask) gives the map of the subset's space.")
        return (subset_dissimilarity(self.train_dissimilarities, mask),
                subset_dissimilarity(self.test_dissimilarities, mask))

    def neighbourhood(self, explanation: DVSExplanation, i: int, m: int = NEIGHBOURHOOD):
        """Test instance ``i`` among its ``m`` nearest training instances in the space its region of competence
        was taken in (:meth:`DVSExplanation.region_space`: the subset ``explanation`` chose for it, or every view
        with a shared region), placed so that near looks near (:func:`mvlab.core.projection.radial_layout`:
        each at its exact dissimilarity from the instance, only the directions approximated).

        Returns
        -------
        near : ndarray of int (m,)
            Training positions, nearest first.
        coords : ndarray (m, 2)
            Their places around the instance at the origin.
        region : ndarray of int (k,)
            The positions in ``near`` of the instance's region of competence (its k nearest: the first k).
        """
        train, test = self.subset_rows(explanation.region_space(i))
        d = np.asarray(test[i], dtype=np.float64)
        near = np.argsort(d, kind="stable")[:m]
        coords = radial_layout(d[near], np.asarray(train, dtype=np.float64)[np.ix_(near, near)])
        region = np.array([int(np.flatnonzero(near == j)[0]) for j in explanation.region[i]])
        return near, coords, region

    def subset_map(self, mask) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
        """The 2-D map of a view subset's joint space (bool mask (Q,)): coordinates of the training
        rows (n_train, 2) and of the test rows (n_test, 2), the shares of variance of the two axes
        (2,) and what the map is, in words.  Exact space: a PCA of the training rows of
        :meth:`subset_rows` (every training row a column), test rows placed with it.  Large-data
        path: the map computed with the run (:func:`mvlab.experiments.large_maps.candidate_maps`)."""
        mask = np.asarray(mask, dtype=bool)
        if not self.sampled:
            train_xy, test_xy, explained = pca_project(*self.subset_rows(mask))
            return train_xy, test_xy, explained, "PCA of the dissimilarity rows"
        code = subset_code(mask)
        if code not in self.maps:
            raise ValueError(f"no map of the view subset {np.flatnonzero(mask).tolist()} was kept (only the DVS "
                             "candidates' maps are).")
        train_xy, test_xy, explained = self.maps[code]
        return (train_xy, test_xy, explained,
                f"PCA of the dissimilarities to the {self.settings.get('n_prototypes')} prototypes, axes fitted on "
                f"a sample of {len(self.sample)} training rows")

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

    def view_choice_table(self) -> pd.DataFrame:
        """The DVS methods' choices of views scored against the ground truth of informative views (synthetic data).

        Returns
        -------
        DataFrame (M + 1, 7)
            One row per DVS method (M = ``len(explanations)``, titled by :data:`METHOD_TITLES`), then one for the
            oracle that always uses each instance's true views, with the columns ``method``, ``precision``
            (share of chosen views that carry the class), ``recall`` (share of such views that were chosen),
            ``precision of a random choice`` (of subsets of the same sizes), ``views per instance`` (mean size
            of a choice), ``choices by tie-break`` (share) and ``accuracy`` (test accuracy). The oracle's row
            has NaN for the random choice and the tie-break, and ``oracle_accuracy`` as its accuracy.

        Raises
        ------
        ValueError
            When the comparison has no ground truth (``informative_test`` is None: data without one).
        """
        if self.informative_test is None:
            raise ValueError("view_choice_table needs the informative views of the test rows (synthetic data "
                             "with a ground truth); this comparison has none.")
        rows = []
        for method, e in self.explanations.items():
            scores = view_choice_scores(e.chosen_views, self.informative_test)
            rows.append({"method": METHOD_TITLES[method], "precision": scores["precision"],
                         "recall": scores["recall"], "precision of a random choice": scores["baseline precision"],
                         "views per instance": float(e.chosen_views.sum(axis=1).mean()),
                         "choices by tie-break": e.tie_rate, "accuracy": self.accuracy[method]})
        rows.append({"method": "oracle (the true views)", "precision": 1.0, "recall": 1.0,
                     "precision of a random choice": np.nan,
                     "views per instance": float(self.informative_test.sum(axis=1).mean()),
                     "choices by tie-break": np.nan, "accuracy": self.oracle_accuracy})
        return pd.DataFrame(rows)

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
        if self.sample is not None:
            arrays["sample"] = self.sample
        meta["prototype_note"] = to_wire(self.prototype_note)
        meta["maps"] = sorted(self.maps)
        for code, (train_xy, test_xy, explained) in self.maps.items():
            arrays.update({f"map[{code}].train": train_xy, f"map[{code}].test": test_xy,
                           f"map[{code}].explained": explained})
        return pack(arrays, meta)

    @classmethod
    def from_npz(cls, data: bytes) -> "CombinationComparison":
        """The comparison back from the bytes of :meth:`to_npz`."""
        z, meta = unpack(data)
        views, combos = meta["view_names"], list(meta["accuracy"])
        sampled = "sample" in z
        return cls(
            view_names=views, classes=meta["classes"],
            train_index=z["train_index"], test_index=z["test_index"],
            y_train=z["y_train"], y_test=z["y_test"],
            train_dissimilarities=[z[f"train_dissimilarity[{v}]"] for v in views],
            test_dissimilarities=[] if sampled else [z[f"test_dissimilarity[{v}]"] for v in views],
            weights={c: z[f"weights[{c}]"] for c in combos},
            predictions={c: z[f"predictions[{c}]"] for c in combos},
            accuracy=meta["accuracy"], view_oob_accuracy=z["view_oob_accuracy"],
            seconds=meta["seconds"], settings=meta["settings"],
            explanations={name: DVSExplanation.from_arrays(
                {k[len(f"explanation[{name}]."):]: v for k, v in z.items() if k.startswith(f"explanation[{name}].")},
                m) for name, m in meta.get("explanations", {}).items()},
            oracle_accuracy=meta.get("oracle_accuracy"), informative_test=z.get("informative_test"),
            sample=z.get("sample"), prototype_note=Message.from_wire(meta.get("prototype_note", "")),
            maps={code: (z[f"map[{code}].train"], z[f"map[{code}].test"], z[f"map[{code}].explained"])
                  for code in meta.get("maps", [])},
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
        "dvs": [DVSCombiner, None],
        "informative": ["array-like", None],
        "split": ["array-like", None],
        "prototypes": [StrOptions({"auto", "all"}), Interval(numbers.Integral, 1, None, closed="left"),
                       Interval(numbers.Real, 0.0, 1.0, closed="right")],
        "prototype_selection": [StrOptions(set(PROTOTYPE_SELECTIONS))],
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
    dvs: DVSCombiner | None = None,
    informative=None,
    split: tuple | None = None,
    prototypes="auto",
    prototype_selection: str = "stratified",
    random_state: int | None = None,
    n_jobs: int | None = None,
    progress: ProgressCallback = None,
    partial_results: bool = False,
) -> CombinationComparison:
    """Fit the view forests once on a stratified split and score every combination on it.

    Parameters
    ----------
    X : ndarray (n, d); y : ndarray (n,) of encoded labels
    views : mapping name -> column indices (e.g. ``ds.views``), or a list of Q index arrays
        (named by ``view_names``, else ``"view 0"``, ...)
    combinations : subset of :data:`COMPARISON_METHODS`
        The combinations of :class:`mvlab.rfd.classifier.RFDClassifier` (``"dvs"`` with the
        rules of ``dvs``), the DVS variants of :data:`DVS_VARIANTS` (the same pool of candidate
        forests, other rules) and the baselines of :mod:`mvlab.rfd.baselines`; all on the same
        split, the static ones and DVS on the same view forests.
    test_size : float in (0, 1)
        Share of instances held out, stratified by class (paper: 0.5).
    split : (train_index, test_index), optional
        Use these rows instead of drawing a split (``test_size`` is then ignored); lets a
        protocol of :mod:`mvlab.experiments.runner` give every method family the same splits.
    measure : str, Measure or its :func:`mvlab.forest.measures.measure_spec` dict
    n_estimators : int
        Trees of every forest (paper: 512), as for :class:`mvlab.rfd.classifier.RFDClassifier`.
    k : int
        SWknn's neighbours and, unless ``dvs`` says otherwise, the DVS region size.
    dvs : DVSCombiner, optional
        The rules (and ``k``) of ``"dvs"``, e.g. ``DVSCombiner(competence="soft", region="shared", k=9)``; its
        forest parameters are the comparison's.  None: the paper's rules with ``k``.
    informative : bool array (n, Q), optional
        The true informative views of every row (synthetic data): the DVS methods' choices on
        the test rows are scored against it and the oracle accuracy is computed.
    prototypes, prototype_selection
        As for :class:`mvlab.rfd.classifier.RFDClassifier` (docs/algorithms.md §A.10), the same for
        every combination; with prototypes (``"auto"`` above 10,000 training rows) and a measure
        with a sparse form, no (n, n) matrix is formed and the result keeps a sample
        (:attr:`CombinationComparison.sample`).
    random_state : int
        Seeds the split, the view forests and the final forests.
    progress : callable (fraction, message), optional
    partial_results : bool
        After each method but the last, offer the comparison of the methods scored so far to ``progress`` as a
        partial result (:func:`mvlab.core.progress.report_partial`; the Dissimilarity page draws it while the
        baselines grow); only up to :data:`PARTIAL_MAX_ROWS` training rows (a part carries every view's matrix), and
        not on the large-data path.
    """
    _check_methods(combinations)
    dvs = DVSCombiner(k=k) if dvs is None else clone(dvs)
    try:  # a bad rule is refused before any forest grows, in the combiner's own words
        dvs._validate_params()
    except ValueError as exc:  # (not re-raised as is: scikit-learn would name compare_combinations's parameter)
        raise ValueError(f"dvs={dvs!r}: {exc}") from None
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    train_index, test_index = _split_rows(y, split, test_size, random_state)
    X_train, X_test, y_train, y_test = X[train_index], X[test_index], y[train_index], y[test_index]
    names, views = _named_views(views, X.shape[1], view_names)
    measure = resolve_measure(measure)
    n_prototypes = resolve_prototypes(prototypes, len(train_index))
    blocked = n_prototypes is not None and measure.supports_sparse()  # no (n, n) matrix at all
    seconds = {}
    t = time.perf_counter()
    forests = fit_view_forests(X_train, y_train, views, measure=measure, n_estimators=n_estimators,
                               random_state=random_state, n_jobs=n_jobs, progress=scaled(progress, 0.0, 0.6),
                               dense_max_rows=0 if blocked else None)
    seconds["view forests"] = time.perf_counter() - t
    t = time.perf_counter()
    if blocked:  # the test rows in blocks, each scan once for every method that asks the same
        test_D = ViewRows(forests.forests, forests.views, X_test, n_jobs=n_jobs, remember=True)
    else:
        test_D = forests.transform(X_test, n_jobs=n_jobs)
    seconds["test dissimilarities"] = time.perf_counter() - t
    shared = _SharedWork(views, forests, test_D, X_train, y_train, X_test, measure, n_estimators, k, dvs,
                         random_state, n_jobs, prototypes, prototype_selection)
    settings = {"test_size": test_size, "measure": measure_spec(measure), "n_estimators": n_estimators, "k": k,
                "random_state": random_state, "combinations": list(combinations), "prototypes": prototypes,
                "prototype_selection": prototype_selection,
                "n_prototypes": len(train_index) if n_prototypes is None else n_prototypes}
    if "dvs" in combinations:
        settings.update({f"dvs_{rule}": value for rule, value in dvs.rules.items()}, dvs_k=dvs.k)

    def comparison(scores: _MethodScores, oracle=None, informative_test=None, sample=None, train_D=None,
                   maps=None) -> CombinationComparison:
        """The comparison of the methods ``scores`` holds, in the order asked (all of them, or a partial result)."""
        return CombinationComparison(
            view_names=names,
            classes=[str(c) for c in (classes if classes is not None else np.unique(y))],
            train_index=train_index, test_index=test_index, y_train=y_train, y_test=y_test,
            train_dissimilarities=list(forests.dissimilarities) if train_D is None else train_D,
            test_dissimilarities=[] if blocked else list(test_D),
            weights=dict(scores.weights), predictions=dict(scores.predictions),
            accuracy={c: scores.accuracy[c] for c in combinations if c in scores.accuracy},
            view_oob_accuracy=np.asarray(forests.oob_accuracies, dtype=np.float64),
            seconds={**seconds, **scores.seconds}, settings=settings, explanations=dict(scores.explanations),
            oracle_accuracy=oracle, informative_test=informative_test, sample=sample,
            prototype_note=scores.prototype_note, maps=maps or {},
        )

    def offer(scores: _MethodScores) -> None:
        if partial_results and not blocked and len(train_index) <= PARTIAL_MAX_ROWS \
                and len(scores.accuracy) < len(combinations):
            report_partial(progress, lambda: comparison(scores),
                           Message(N_("{done} of {total} methods ({methods})"), done=len(scores.accuracy),
                                   total=len(combinations), methods=", ".join(scores.accuracy)))

    scores = _score_methods(combinations, shared, y_test, progress, offer)
    seconds.update(scores.seconds)
    informative_test = oracle = None
    if informative is not None:
        informative_test = np.asarray(informative, dtype=bool)[test_index]
        if scores.pool is not None:
            oracle = _oracle_accuracy(scores.pool, test_D, informative_test, y_test)
    sample, train_D, maps = None, None, {}
    if blocked:
        t = time.perf_counter()
        sample, train_D = sample_matrices(forests, random_state, n_jobs, SAMPLE_ROWS)
        if scores.pool is not None:
            maps = candidate_maps(scores.pool, test_D, sample)
        seconds["sample and maps"] = time.perf_counter() - t
    if progress is not None:
        progress(1.0, Message(N_("done")))
    return comparison(scores, oracle, informative_test, sample, train_D, maps)


PARTIAL_MAX_ROWS = 1000
"""The most training rows at which :func:`compare_combinations` offers partial results: a part carries the views'
(n_train, n_train) matrices (at 2,500 rows, 150 MB for three views, packed and sent for every part)."""


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
    themselves and the forests' parameters (``dvs``: the unfitted combiner of "dvs", its rules and k)."""

    views: dict
    forests: ViewForests
    test_D: list
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    measure: object
    n_estimators: int
    k: int
    dvs: DVSCombiner
    random_state: int | None
    n_jobs: int | None
    prototypes: object = "auto"
    prototype_selection: str = "stratified"


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
    prototype_note: str = ""


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


def _score_methods(combinations, shared: _SharedWork, y_test, progress, scored=None) -> _MethodScores:
    """Fit every method on the shared work and score it on the test rows ``y_test`` (n_test,); the
    methods that build the DVS pool come first, so the variants reuse it.  ``scored(scores)`` is called after each
    method (the scores so far)."""
    scores = _MethodScores()
    cost = _progress_costs(combinations, len(shared.views))
    done, total = 0, sum(cost.values())
    for c in sorted(combinations, key=lambda c: c not in ("dvs",) + tuple(COMBINATIONS)):  # the pool first
        sub = scaled(progress, 0.6 + 0.4 * done / total, 0.4 * cost.get(c, 1) / total)
        if sub is not None:
            sub(0.0, f"{c}")
        t = time.perf_counter()
        scores.weights[c], proba, explanation, scores.pool, note = _fit_method(c, shared, scores.pool, sub)
        scores.prototype_note = scores.prototype_note or note
        if explanation is not None:
            scores.explanations[c] = explanation
        done += cost.get(c, 1)
        scores.seconds[c] = time.perf_counter() - t
        scores.predictions[c] = np.asarray(shared.forests.classes)[np.asarray(proba).argmax(axis=1)]
        scores.accuracy[c] = float(np.mean(scores.predictions[c] == y_test))
        if scored is not None:
            scored(scores)
    return scores


def _fit_method(name, shared: _SharedWork, pool, progress):
    """One method on the shared work: its view weights (Q,), its test probabilities (n_test, C), its
    explanation (DVS methods; else None), the DVS pool (built by the first DVS method that needs it)
    and the note on its final forests' space ("" for a baseline or a variant)."""
    views = shared.views
    if name in BASELINES:
        return np.full(len(views), 1.0 / len(views)), _baseline_proba(name, shared), None, pool, ""
    if name in DVS_VARIANTS:
        note = ""
        if pool is None:
            pool, note = _dvs_pool(shared, progress)
        combiner = pool.with_rules(**{**PAPER_RULES, **DVS_VARIANTS[name]})
        explanation = combiner.explain(shared.test_D)
        return np.asarray(combiner.view_weights_, dtype=np.float64), explanation.proba, explanation, pool, note
    clf = _classifier(shared, name, shared.dvs)
    clf.fit(shared.X_train, shared.y_train, progress=progress, view_forests=shared.forests)
    weights = np.asarray(clf.view_weights_, dtype=np.float64)
    if name == "dvs":
        explanation = clf.combiner_.explain(shared.test_D)
        return weights, explanation.proba, explanation, clf.combiner_, clf.prototype_note_
    return weights, clf.combiner_.predict_proba(shared.test_D), None, pool, clf.prototype_note_


def _classifier(shared: _SharedWork, combination: str, dvs: DVSCombiner | None = None) -> RFDClassifier:
    """The :class:`RFDClassifier` of one combination on the shared work (fitted with its view forests):
    the shared ``k`` and, for ``"dvs"``, the combiner ``dvs`` (the paper's rules with the shared ``k`` when None)."""
    combiner = ((dvs if dvs is not None else DVSCombiner(k=shared.k)) if combination == "dvs"
                else StaticCombiner(combination=combination, k=shared.k))
    return RFDClassifier(views=shared.views, combination=combiner, measure=shared.measure,
                         n_estimators=shared.n_estimators, random_state=shared.random_state,
                         n_jobs=shared.n_jobs, prototypes=shared.prototypes,
                         prototype_selection=shared.prototype_selection)


def _oracle_accuracy(pool, test_D, informative_test, y_test) -> float:
    """Accuracy of the pool's candidate of each test row's true views (``informative_test`` (n_test, Q))."""
    return float(np.mean(pool.proba_with_views(test_D, informative_test).argmax(axis=1) == y_test))


def _dvs_pool(shared: _SharedWork, progress):
    """The DVS pool under the paper's rules, fitted on the shared view forests, and its space's note."""
    clf = _classifier(shared, "dvs")
    clf.fit(shared.X_train, shared.y_train, progress=progress, view_forests=shared.forests)
    return clf.combiner_, clf.prototype_note_


def _baseline_proba(name, shared: _SharedWork):
    """Test probabilities (n_test, C) of a baseline of :mod:`mvlab.rfd.baselines`, with the trees
    of this comparison: late fusion reuses the view forests; ``concat`` and ``stacking`` grow
    forests of ``n_estimators`` trees seeded from ``random_state``."""
    forests = shared.forests
    if name == "late-fusion":
        return late_fusion_proba(forests, shared.X_test)
    if name == "concat":
        model = fit_forest(RandomForestClassifier(n_estimators=shared.n_estimators,
                                                  random_state=int(forests.seeds[-1]), n_jobs=shared.n_jobs),
                           shared.X_train, forests.y)
    else:  # its per-view forests fit fast themselves (FastFitRandomForestClassifier)
        counts = np.bincount(np.unique(shared.y_train, return_inverse=True)[1])
        model = make_view_stacking(shared.views, shared.X_train.shape[1], n_estimators=shared.n_estimators,
                                   cv=int(min(3, counts.min())), random_state=int(forests.seeds[-1]),
                                   n_jobs=shared.n_jobs).fit(shared.X_train, forests.y)
    return model.predict_proba(shared.X_test)


# ----------------------------------------------------------------------------- the family
_DEFAULTS = {"methods": list(COMPARISON_METHODS), "measure": "breiman", "n_estimators": 100, "k": 7, "dvs": {}}
_LEGACY_DVS = ("dvs_competence", "dvs_selection", "dvs_region", "dvs_tie_break")
"""Flat DVS rule keys of runs stored before the rules became ``{"dvs": {rule: value}}``: still read."""


def check_params(params: dict) -> dict:
    """The dissimilarity family's parameters with defaults filled in; the measure as its JSON spec; the DVS
    rules as ``{"dvs": {rule: value}}`` (``DVSCombiner``'s parameters besides its forests'; JSON, as the store
    keeps them), checked by building the combiner."""
    params = dict(params)
    legacy = {key[len("dvs_"):]: params.pop(key) for key in _LEGACY_DVS if key in params}
    if legacy:
        params["dvs"] = {**legacy, **params.get("dvs", {})}
    unknown = set(params) - set(_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} of the dissimilarity family; known: "
                         f"{sorted(_DEFAULTS)}.")
    out = {**_DEFAULTS, **params}
    out["methods"] = DISSIMILARITY.check_methods(out["methods"])
    out["measure"] = measure_spec(out["measure"])
    out["dvs"] = dict(out["dvs"])
    allowed = set(DVSCombiner.RULES) | {"k", "max_subset_size"}
    if set(out["dvs"]) - allowed:
        raise ValueError(f"unknown DVS rule(s) {sorted(set(out['dvs']) - allowed)}; the rules are {sorted(allowed)}.")
    DVSCombiner(**out["dvs"])._validate_params()  # a bad rule is refused here, with the rule's name
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
    params["dvs"] = DVSCombiner(**{"k": params["k"], **params.pop("dvs")})
    result = compare_combinations(ds.X, ds.y, ds.views, classes=ds.classes, split=(split.train, split.test),
                                  combinations=params.pop("methods"), informative=ds.informative,
                                  random_state=split.seed, n_jobs=n_jobs, progress=progress, **params)
    rows = result.result_rows()
    for r in rows:
        r.pop("repetition", None)
    return rows, (result if keep else None)


DISSIMILARITY = Family(
    name="dissimilarity",
    title=N_("Random-forest dissimilarities (Bernard et al. 2020)"),
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
