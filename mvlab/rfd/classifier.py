"""The multi-view random-forest-dissimilarity classifier (docs/algorithms.md §A.6-A.8, Algorithm 1).

One random forest per view gives one dissimilarity matrix per view
(:mod:`mvlab.rfd.view_forests`); the matrices are merged into a joint dissimilarity space and a
final random forest is trained on its rows.  How the views are merged is a *combiner*:

* :class:`StaticCombiner`: ``D = sum_q w_q D_q`` with static weights (:mod:`mvlab.rfd.weights`,
  §A.7) and one final forest;
* :class:`mvlab.rfd.dvs.DVSCombiner`: dynamic view selection, one forest per subset of views
  and a choice per instance (§A.8).

A combiner is an estimator (its parameters, ``random_state`` among them, in its constructor and its
``_parameter_constraints``) with ``fit(view_forests) -> self``,
``predict_proba(dissimilarities) -> (n, C)`` and ``view_weights_``; the DVS combiner also has
``explain(dissimilarities)``.  A combiner object is also how a classifier is given its rules:
``RFDClassifier(combination=DVSCombiner(competence="soft", k=5))``, with the nested parameters
(``combination__competence``) reachable by ``get_params``/``set_params`` and hence ``GridSearchCV``;
the names (``combination="dvs"``) are shorthands for the combiners with their default rules.
:class:`RFDClassifier` is the scikit-learn estimator; ``fit(X, y, view_forests=vf)`` reuses precomputed
view forests (so several combinations are compared on the *same* forests, as in the paper) and
:meth:`RFDClassifier.predict_proba_from_dissimilarities` takes precomputed test matrices.
"""

from __future__ import annotations

import numbers
from typing import Optional, Sequence

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.core.forest_fit import fit_forest
from mvlab.core.params import (
    MAX_FEATURES,
    N_JOBS,
    POSITIVE_INT,
    RANDOM_STATE,
    Interval,
    StrOptions,
)
from mvlab.core.progress import ProgressCallback, scaled
from mvlab.core.progress import report as _report
from mvlab.core.views import check_views
from mvlab.forest.measures import MEASURES, Measure, measure_spec, resolve_measure
from mvlab.i18n import N_, Message
from mvlab.rfd.dvs import DVSCombiner
from mvlab.rfd.dvs_pool import n_candidates
from mvlab.rfd.prototypes import (
    PROTOTYPE_SELECTIONS,
    PROTOTYPE_THRESHOLD,
    choose_prototypes,
    describe_prototypes,
    resolve_prototypes,
)
from mvlab.rfd.view_forests import ViewForests, combine, fit_view_forests
from mvlab.rfd.view_rows import prototype_columns, query_rows, train_rows
from mvlab.rfd.weights import (
    ALIGNMENT_NORMALIZATIONS,
    STATIC_COMBINATIONS,
    alignment_weights_from_rows,
    static_view_weights,
    swknn_weights_from_neighbours,
)

__all__ = ["COMBINATIONS", "COMBINATION_TITLES", "StaticCombiner", "RFDClassifier", "make_combiner"]

COMBINATIONS = STATIC_COMBINATIONS + ("dvs",)
COMBINATION_TITLES = {
    "average": N_("Avg: average of the views"),
    "knn": N_("SWknn: weights from kNN accuracy"),
    "alignment": N_("SWka: weights from kernel alignment"),
    "oob": N_("SWoob: weights from out-of-bag accuracy"),
    "dvs": N_("DVS: dynamic view selection"),
}
"""The combinations by the names of the paper (§A.7-A.8), for people."""


# ----------------------------------------------------------------------------- combiners
class StaticCombiner(BaseEstimator):
    """Static weighting + final forest on the joint matrix (§A.6 steps 2-3, §A.7).

    Parameters
    ----------
    combination : {"average", "knn", "alignment", "oob"}, default="average"
        ``"average"``: ``D = mean_q D_q``; ``"knn"``: SWknn (§A.7.1); ``"alignment"``: SWka
        (§A.7.2); ``"oob"``: SWoob (§A.7.3).
    k : int, default=7
        Neighbours of SWknn's leave-one-out kNN (§A.7.1, k not stated in the chapter).
    alignment_normalization : {"softmax", "proportional"}, default="softmax"
        SWka normalisation (§A.7.2).
    n_estimators, max_features, n_jobs, random_state
        The final forest's; inside :class:`RFDClassifier` they are the classifier's
        (``n_estimators``, ``final_max_features``, ``n_jobs`` and the seed it keeps for the final forest).

    Attributes after ``fit``: ``view_weights_`` (Q,), ``joint_dissimilarity_`` (n, n)
    float32, ``forest_`` (the final RandomForestClassifier, trained on encoded labels).
    """

    _parameter_constraints: dict = {
        "combination": [StrOptions(set(STATIC_COMBINATIONS))],
        "k": POSITIVE_INT,
        "alignment_normalization": [StrOptions(set(ALIGNMENT_NORMALIZATIONS))],
        "n_estimators": POSITIVE_INT,
        "max_features": MAX_FEATURES,
        "n_jobs": N_JOBS,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, combination="average", k=7, alignment_normalization="softmax",
                 n_estimators=100, max_features="sqrt", n_jobs=None, random_state=None):
        self.combination = combination
        self.k = k
        self.alignment_normalization = alignment_normalization
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, view_forests: ViewForests, prototypes: Optional[np.ndarray] = None):
        """Weights of the views, their joint matrix, and the final forest on it.

        ``prototypes`` (ascending training indices, docs/algorithms.md §A.10): the final forest sees
        only those columns, and the training rows are read in blocks (:mod:`mvlab.rfd.view_rows`;
        SWknn's neighbours and SWka's sums stay exact over all training rows).
        """
        self._validate_params()
        self.prototypes_ = None if prototypes is None else np.asarray(prototypes, dtype=np.int64)
        if self.prototypes_ is None:
            self.view_weights_ = static_view_weights(
                self.combination, view_forests, self.k, self.alignment_normalization
            )
            self.joint_dissimilarity_ = combine(view_forests.dissimilarities, self.view_weights_)
            self.view_dissimilarities_ = view_forests.dissimilarities
        else:
            rows = train_rows(view_forests, self.n_jobs)
            Q = view_forests.n_views
            combos = [(np.array([q]), np.ones(1)) for q in range(Q)] if self.combination == "knn" else []
            cols, idx, _ = rows.scan(self.prototypes_, combos, self.k, exclude_self=True)
            if self.combination == "knn":
                self.view_weights_ = swknn_weights_from_neighbours(list(idx), view_forests.y)
            elif self.combination == "alignment":
                self.view_weights_ = alignment_weights_from_rows(rows, view_forests.y, self.alignment_normalization)
            else:  # average and oob read no matrix
                self.view_weights_ = static_view_weights(self.combination, view_forests, self.k)
            self.joint_dissimilarity_ = combine(cols, self.view_weights_)
            self.view_dissimilarities_ = cols
        self.forest_ = fit_forest(RandomForestClassifier(
            n_estimators=self.n_estimators,
            max_features=self.max_features,
            random_state=self.random_state,
            n_jobs=self.n_jobs,
        ), self.joint_dissimilarity_, view_forests.y)
        return self

    def joint(self, dissimilarities) -> np.ndarray:
        """The final forest's input (n_new, n_train) or, with prototypes, (n_new, m), from per-view
        (n_new, n_train) matrices or a :class:`mvlab.rfd.view_rows.ViewRows`."""
        return combine(prototype_columns(dissimilarities, self.prototypes_), self.view_weights_)

    def predict_proba(self, dissimilarities) -> np.ndarray:
        """Class probabilities (n_new, C) from per-view (n_new, n_train) matrices (or a ViewRows)."""
        return self.forest_.predict_proba(self.joint(dissimilarities))


# ----------------------------------------------------------------------------- estimator
class RFDClassifier(ClassifierMixin, BaseEstimator):
    """Multi-view random-forest-dissimilarity classifier (docs/algorithms.md §A.6, Algorithm 1).

    Parameters
    ----------
    views : list of integer arrays, mapping name -> indices, or None, default=None
        Column indices of each view in ``X``; None = all columns as one view.  From a
        :class:`mvlab.datasets.MultiViewDataset` pass ``ds.views`` (names reach the
        explanations) or ``ds.view_indices``.
    combination : {"average", "knn", "alignment", "oob", "dvs"}, StaticCombiner or DVSCombiner, default="average"
        How the views are merged.  A name is a shorthand for the combiner with its default rules:
        ``"average"``: ``D = mean_q D_q``; ``"knn"``: SWknn (§A.7.1, k = 7); ``"alignment"``: SWka
        (§A.7.2); ``"oob"``: SWoob (§A.7.3); ``"dvs"``: dynamic view selection with the paper's rules
        (§A.8, :mod:`mvlab.rfd.dvs`).  A combiner object carries its own rules, e.g.
        ``StaticCombiner("knn", k=5)`` or ``DVSCombiner(competence="soft", region="shared", k=7)``;
        its nested parameters are the classifier's (``set_params(combination__competence="lca")``,
        ``GridSearchCV`` over ``combination__k``).  The object is cloned at ``fit`` and its forest
        parameters (``n_estimators``, ``max_features``, ``n_jobs``, ``random_state``) are set from
        the classifier's, as the view forests' are.
    measure : str or Measure, default="breiman"
        Dissimilarity of every view forest: a name (``"breiman"``, ``"path"``, ``"rfd"``,
        ``"oob"``, ``"rfgap"``) or a measure object with its parameters, e.g. ``RFD(kdn_k=5)``
        (:mod:`mvlab.forest.measures`; ``GridSearchCV`` reaches ``measure__kdn_k``).  The
        chapter uses ``"rfd"``; Breiman is the fast default.
    n_estimators : int, default=100
        Trees of every forest grown (view forests and final forest). Paper: 512.
    max_features : default="sqrt"
        mtry of the view forests (paper: sqrt of the view dimension).
    final_max_features : default="sqrt"
        mtry of the final forest (paper: sqrt(n_train), the dimension of the joint space).
    prototypes : "auto", "all", int or float, default="auto"
        Columns of the final forests' dissimilarity space (docs/algorithms.md §A.10).  ``"all"``:
        every training row (the paper's exact space, (n_train, n_train) matrices); an int ``m``
        or a fraction of ``n_train``: ``m`` prototypes, the same in every view, and no
        (n_train, n_train) matrix at all (rows are read in blocks; SWknn's and DVS's neighbours
        stay exact over all training rows); ``"auto"``: ``"all"`` up to
        :data:`mvlab.rfd.prototypes.PROTOTYPE_THRESHOLD` (10,000) training rows, else
        :data:`mvlab.rfd.prototypes.DEFAULT_N_PROTOTYPES` (1,000) prototypes.
    prototype_selection : {"stratified", "random", "kcentres"}, default="stratified"
        How prototypes are drawn (:data:`mvlab.rfd.prototypes.PROTOTYPE_SELECTIONS`): at random
        within classes in proportion to their sizes, at random, or by k-centres per class.
    random_state : int, RandomState or None
        Draws the seeds of the Q view forests and of the final forest; view forests do not
        depend on ``combination``, so equal seeds share view forests across combinations.
    n_jobs : int or None
        Threads: view forests are fitted in parallel over views.

    Attributes
    ----------
    classes_ : ndarray (C,)
    n_features_in_ : int
    views_ : list of ndarray
    view_names_ : list of str
    view_forests_ : list of ForestDissimilarity
    dissimilarities_ : list of Q ndarrays (n_train, n_train), float32
    view_weights_ : ndarray (Q,), sums to 1
    joint_dissimilarity_ : ndarray (n_train, n_train), float32 (static combinations)
    final_forest_ : RandomForestClassifier (static combinations; trained on encoded labels)
    combiner_ : the fitted combiner
    view_forest_set_ : ViewForests (reusable: ``fit(X, y, view_forests=clf.view_forest_set_)``)
    prototypes_ : ndarray of int64 (m,) or None
        Training rows used as prototypes (ascending); None = the exact space (every training row).
    n_prototypes_ : int
        Columns of the final forests' space (``n_train`` for the exact space).
    prototype_note_ : str
        One sentence for people: exact space, or how many prototypes, how chosen and why.

    With prototypes, ``dissimilarities_`` are the views' (n_train, m) columns at the prototypes and
    ``joint_dissimilarity_`` is (n_train, m); :meth:`transform_views` and
    :meth:`predict_proba_from_dissimilarities` still speak of (n_new, n_train) matrices.
    """

    def __init__(
        self,
        views=None,
        combination="average",
        measure="breiman",
        n_estimators=100,
        max_features="sqrt",
        final_max_features="sqrt",
        random_state=None,
        n_jobs=None,
        prototypes="auto",
        prototype_selection="stratified",
    ):
        self.prototypes = prototypes
        self.prototype_selection = prototype_selection
        self.views = views
        self.combination = combination
        self.measure = measure
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.final_max_features = final_max_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    _parameter_constraints: dict = {
        "views": "no_validation",  # check_views, in fit
        "combination": [StrOptions(set(COMBINATIONS)), StaticCombiner, DVSCombiner],
        "measure": [StrOptions(set(MEASURES)), Measure],
        "n_estimators": POSITIVE_INT,
        "max_features": MAX_FEATURES,
        "final_max_features": MAX_FEATURES,
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
        "prototypes": [StrOptions({"auto", "all"}), Interval(numbers.Integral, 1, None, closed="left"),
                       Interval(numbers.Real, 0.0, 1.0, closed="right")],
        "prototype_selection": [StrOptions(set(PROTOTYPE_SELECTIONS))],
    }

    def set_params(self, **params):
        """Set parameters, nested ones included (``combination__k=5``).

        A nested combination parameter on a name (``combination="dvs"``, or a name set in the same
        call) first turns the name into its combiner (:func:`make_combiner`), so
        ``set_params(combination="knn", combination__k=5)`` is ``combination=StaticCombiner("knn", k=5)``.
        """
        if any(key.startswith("combination__") for key in params):
            base = params.pop("combination", self.combination)
            params = {"combination": make_combiner(base) if isinstance(base, str) else base, **params}
        return super().set_params(**params)

    def _make_combiner(self, seed: int):
        """A fresh combiner of ``combination`` (:func:`make_combiner`) with the classifier's forest
        parameters and ``seed`` (the view forests' last seed)."""
        return make_combiner(self.combination).set_params(
            n_estimators=self.n_estimators, max_features=self.final_max_features, n_jobs=self.n_jobs,
            random_state=seed)

    @staticmethod
    def _check_data_params(combiner, n_samples: int) -> None:
        """The check that needs the data: the neighbours of SWknn (leave-one-out) and of DVS."""
        uses_k = isinstance(combiner, DVSCombiner) or combiner.combination == "knn"
        if uses_k and combiner.k > n_samples - 1:
            raise ValueError(
                f"k={combiner.k} neighbours need at least {combiner.k + 1} training instances, got {n_samples}; "
                f"lower the combination's k."
            )

    def fit(self, X, y, progress: ProgressCallback = None, view_forests: Optional[ViewForests] = None):
        """Fit the view forests (or reuse ``view_forests``), the weights and the final forest.

        Parameters
        ----------
        X : array-like of shape (n_train, n_features)
        y : array-like of shape (n_train,)
        progress : callable (fraction, message), optional
        view_forests : ViewForests, optional
            Precomputed by :func:`fit_view_forests` (or ``other.view_forest_set_``) on the same
            ``X, y, views``; skips refitting.  With the same ``random_state`` the result
            equals a fresh fit.

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        combiner = self._make_combiner(0)  # seeded below, once the view forests' seed is known
        self._check_data_params(combiner, X.shape[0])
        views, names = check_views(self.views, X.shape[1])
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(f"RFDClassifier needs at least 2 classes in y, got {len(classes)}.")
        # Share of the progress bar for the view forests: the DVS pool is the long part.
        split = 0.85
        dvs = isinstance(combiner, DVSCombiner)
        if dvs:
            n_pool = n_candidates(len(views), combiner.max_subset_size)
            split = len(views) / (len(views) + n_pool)
        m = resolve_prototypes(self.prototypes, X.shape[0])
        sparse = resolve_measure(self.measure).supports_sparse()
        if view_forests is None:
            sub = scaled(progress, 0.0, split)
            view_forests = fit_view_forests(
                X, y, self.views,
                measure=self.measure,
                n_estimators=self.n_estimators,
                max_features=self.max_features,
                random_state=self.random_state,
                n_jobs=self.n_jobs,
                progress=sub,
                dense_max_rows=0 if (m is not None and sparse) else None,
            )
        else:
            self._check_view_forests(view_forests, X, y, views)
            if m is None and not view_forests.dense:
                raise ValueError("prototypes='all' needs the view forests' (n_train, n_train) matrices, and these "
                                 "view_forests were fitted without them (dense_max_rows); use prototypes "
                                 "(a count or 'auto') or refit them with dense_max_rows=None.")
        seed = int(view_forests.seeds[-1])
        prototypes = None
        if m is not None:
            _report(progress, split, Message(N_("choosing {n} prototypes ({selection})"), n=int(m),
                                             selection=self.prototype_selection))
            prototypes = choose_prototypes(view_forests, m, self.prototype_selection, random_state=seed)
        combiner.set_params(random_state=seed)
        stage = (N_("combination {combination}: candidate pool") if dvs else
                 N_("combination {combination}: weights and final forest"))
        _report(progress, split, Message(stage, combination=repr(combiner_name(combiner))))
        if dvs:
            sub = scaled(progress, split, 1 - split)
            combiner.fit(view_forests, progress=sub, prototypes=prototypes)
        else:
            combiner.fit(view_forests, prototypes=prototypes)
        self.prototypes_ = prototypes
        self.n_prototypes_ = int(X.shape[0] if prototypes is None else prototypes.size)
        reason = (Message(N_("as asked (prototypes={prototypes})"), prototypes=repr(self.prototypes))
                  if self.prototypes != "auto" else
                  Message(N_("because there are more than {threshold} training rows (prototypes='auto')"),
                          threshold=PROTOTYPE_THRESHOLD))
        self.prototype_note_ = describe_prototypes(prototypes, X.shape[0], self.prototype_selection, reason)
        self.classes_ = view_forests.classes
        self.views_ = view_forests.views
        self.view_names_ = view_forests.view_names
        self.view_forest_set_ = view_forests
        self.view_forests_ = view_forests.forests
        self.dissimilarities_ = combiner.view_dissimilarities_
        self.combiner_ = combiner
        self.view_weights_ = np.asarray(getattr(combiner, "view_weights_", np.full(len(views), 1.0 / len(views))))
        if isinstance(combiner, StaticCombiner):
            self.final_forest_ = combiner.forest_
            self.joint_dissimilarity_ = combiner.joint_dissimilarity_
        _report(progress, 1.0, Message(N_("done")))
        return self

    def _check_view_forests(self, vf: ViewForests, X, y, views) -> None:
        if not isinstance(vf, ViewForests):
            raise ValueError("view_forests must be a ViewForests (see fit_view_forests).")
        if vf.n_train != X.shape[0]:
            raise ValueError(f"view_forests were fitted on {vf.n_train} rows, X has {X.shape[0]}.")
        if len(vf.views) != len(views) or any(not np.array_equal(a, b) for a, b in zip(vf.views, views)):
            raise ValueError("view_forests were fitted with other views than this classifier's.")
        if not np.array_equal(vf.classes[vf.y], y):
            raise ValueError("view_forests were fitted with other labels than y.")
        if any(measure_spec(f.measure) != measure_spec(self.measure) or f.n_estimators != self.n_estimators
               for f in vf.forests):
            raise ValueError("view_forests use another measure or n_estimators than this classifier.")

    # ---------------------------------------------------------------- prediction
    def transform_views(self, X) -> list[np.ndarray]:
        """Per-view dissimilarities to the training rows: Q arrays (n_new, n_train), float32 (dense even
        with prototypes: mind ``n_new * n_train`` at large ``n_train``; prediction itself never builds them)."""
        check_is_fitted(self, "combiner_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.view_forest_set_.transform(X, n_jobs=self.n_jobs)

    def joint_dissimilarity(self, X) -> np.ndarray:
        """Joint dissimilarity ``sum_q w_q d_q(x)`` of new rows, shape (n_new, n_train)."""
        return combine(self.transform_views(X), self.view_weights_)

    def predict_proba_from_dissimilarities(self, dissimilarities: Sequence[np.ndarray]) -> np.ndarray:
        """Class probabilities (n_new, C) from precomputed per-view (n_new, n_train) matrices."""
        check_is_fitted(self, "combiner_")
        if len(dissimilarities) != len(self.views_):
            raise ValueError(f"expected {len(self.views_)} view matrices, got {len(dissimilarities)}.")
        n_train = self.view_forest_set_.n_train
        for D in dissimilarities:
            if np.ndim(D) != 2 or np.shape(D)[1] != n_train:
                raise ValueError(f"each view matrix must have shape (n_new, {n_train}), got {np.shape(D)}.")
        return self.combiner_.predict_proba(dissimilarities)

    def predict_from_dissimilarities(self, dissimilarities: Sequence[np.ndarray]) -> np.ndarray:
        """Labels (n_new,) from precomputed per-view matrices."""
        proba = self.predict_proba_from_dissimilarities(dissimilarities)
        return self.classes_[np.argmax(proba, axis=1)]

    def _query(self, X):
        """What the combiner reads for new rows: the (n_new, n_train) matrices (exact space) or, with
        prototypes, a :class:`mvlab.rfd.view_rows.ViewRows` (rows in blocks, no (n_new, n_train) matrix)."""
        if self.prototypes_ is None:
            return self.transform_views(X)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return query_rows(self.view_forest_set_, X, n_jobs=self.n_jobs)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape (n_new, C), columns ordered as ``classes_``."""
        check_is_fitted(self, "combiner_")
        if self.prototypes_ is None:
            return self.predict_proba_from_dissimilarities(self.transform_views(X))
        return self.combiner_.predict_proba(self._query(X))

    def predict(self, X) -> np.ndarray:
        """Predicted labels, shape (n_new,)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def explain(self, X):
        """Per-instance explanation of the dynamic view selection (``combination="dvs"`` only).

        Computes the per-view test matrices (Q arrays (n_new, n_train)) and delegates to
        :meth:`mvlab.rfd.dvs.DVSCombiner.explain`.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)

        Returns
        -------
        mvlab.rfd.dvs.DVSExplanation
            Per instance: chosen subset (``chosen``, ``chosen_views`` (n, Q)), competence of
            every candidate (n, 2^Q - 1), region of competence (``region`` and
            ``region_dissimilarity``, (n, k)), the chosen candidate's prediction and the final
            ``prediction`` (equal to :meth:`predict`); ``to_frame()`` gives a DataFrame.
        """
        check_is_fitted(self, "combiner_")
        if not hasattr(self.combiner_, "explain"):
            raise ValueError("explain() is only available for the DVS combination, not "
                             f"{combiner_name(self.combiner_)!r}.")
        return self.combiner_.explain(self._query(X))


# ----------------------------------------------------------------------------- combination objects
def make_combiner(combination):
    """A fresh, unfitted combiner for ``combination``: a name of :data:`COMBINATIONS` gives the
    combiner with its default rules (``"dvs"``: the paper's), a combiner object is cloned.

    Returns
    -------
    StaticCombiner or DVSCombiner
    """
    if isinstance(combination, (StaticCombiner, DVSCombiner)):
        return clone(combination)
    if combination == "dvs":
        return DVSCombiner()
    if combination in STATIC_COMBINATIONS:
        return StaticCombiner(combination=combination)
    raise ValueError(f"combination must be one of {list(COMBINATIONS)} or a StaticCombiner / DVSCombiner, "
                     f"got {combination!r}.")


def combiner_name(combiner) -> str:
    """The combination's name of a combiner (``"dvs"`` or the static weighting's)."""
    return "dvs" if isinstance(combiner, DVSCombiner) else combiner.combination
