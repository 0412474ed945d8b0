"""Multi-view dissimilarity-space classification (ALGORITHMS.md §A.6-A.7, Algorithm 1).

One random forest per view gives one dissimilarity matrix per view
(:class:`mvlab.proximity.ForestDissimilarity`); the matrices are merged into a joint
dissimilarity space ``D = sum_q w_q D_q`` and a final random forest is trained on its rows.

Building blocks, usable on their own so that several combinations can be evaluated on the
*same* view forests (as in the paper) without refitting them:

* :func:`fit_view_forests` -> :class:`ViewForests`: the per-view forests and training
  matrices, ``transform(X)`` for new rows (one ``(n_new, n_train)`` matrix per view);
* weights: :func:`swknn_weights` (§A.7.1), :func:`alignment_weights` (§A.7.2),
  :func:`oob_weights` (§A.7.3), :func:`static_view_weights` (dispatch, incl. ``"average"``);
* :func:`combine` (§A.6 step 2);
* :class:`RFDClassifier`, the scikit-learn estimator; ``fit(X, y, view_forests=vf)`` reuses
  precomputed view forests and :meth:`RFDClassifier.predict_proba_from_dissimilarities`
  takes precomputed test matrices.

Combination ``"dvs"`` (dynamic view selection, §A.8) lives in :mod:`mvlab.dvs`, which builds
on this module; the classifier imports ``mvlab.dvs.DVSCombiner`` when it needs it.  A combiner is any object with
``fit(view_forests, random_state) -> self``, ``predict_proba(dissimilarities) -> (n, C)`` and
``view_weights_``; :class:`StaticCombiner` is the one for the static methods.  The DVS
combiner also takes ``progress=`` in ``fit`` and has ``explain(dissimilarities)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional, Sequence

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.proximity import MEASURES, ForestDissimilarity, k_smallest_mask
from mvlab._progress import ProgressCallback, is_int as _is_int, report as _report, scaled
from mvlab._threads import worker_count

__all__ = [
    "COMBINATIONS",
    "STATIC_COMBINATIONS",
    "ViewForests",
    "check_views",
    "fit_view_forests",
    "knn_loo_accuracy",
    "swknn_weights",
    "kernel_alignment",
    "alignment_weights",
    "oob_weights",
    "static_view_weights",
    "combine",
    "StaticCombiner",
    "RFDClassifier",
]

STATIC_COMBINATIONS = ("average", "knn", "alignment", "oob")
COMBINATIONS = STATIC_COMBINATIONS + ("dvs",)
ALIGNMENT_NORMALIZATIONS = ("softmax", "proportional")
_MAX_INT = np.iinfo(np.int32).max


# ----------------------------------------------------------------------------- views
def check_views(views, n_features: int) -> tuple[list[np.ndarray], list[str]]:
    """Validate ``views`` against ``n_features`` columns.

    Parameters
    ----------
    views : None, list of 1-D integer array-likes, or dict name -> indices
        None = all columns as one view.
    n_features : int

    Returns
    -------
    views : list of ndarray of int64
    names : list of str (``"view 0"``, ... unless a dict gave names)

    Raises
    ------
    ValueError
        Empty list, empty view, non-integer indices, indices out of ``[0, n_features)``,
        or an index repeated within a view.
    """
    if views is None:
        return [np.arange(n_features, dtype=np.int64)], ["all features"]
    if isinstance(views, Mapping):
        names = [str(k) for k in views]
        items = list(views.values())
    else:
        if isinstance(views, np.ndarray) and views.ndim == 1 and views.dtype.kind in "iu":
            raise ValueError(
                "views must be a list of index arrays (one per view), not a flat array of "
                "indices; wrap a single view in a list: views=[indices]."
            )
        try:
            items = list(views)
        except TypeError:
            raise ValueError(
                f"views must be None, a list of integer index arrays or a dict, got {type(views).__name__}."
            ) from None
        names = [f"view {q}" for q in range(len(items))]
    if not items:
        raise ValueError("views is empty: give at least one view (or views=None for all columns).")
    out = []
    for q, (name, v) in enumerate(zip(names, items)):
        a = np.asarray(v)
        if a.ndim != 1:
            raise ValueError(f"View {name!r} must be a 1-D array of column indices, got shape {a.shape}.")
        if a.size == 0:
            raise ValueError(f"View {name!r} is empty; every view needs at least one column.")
        if a.dtype.kind == "b" or a.dtype.kind not in "iu":
            if a.dtype.kind == "f" and np.all(np.mod(a, 1) == 0):
                a = a.astype(np.int64)
            else:
                raise ValueError(
                    f"View {name!r} must hold integer column indices, got dtype {a.dtype} "
                    "(boolean masks are not accepted: use np.flatnonzero(mask))."
                )
        a = a.astype(np.int64)
        if a.min() < 0 or a.max() >= n_features:
            raise ValueError(
                f"View {name!r} has column indices outside [0, {n_features - 1}] "
                f"(min {a.min()}, max {a.max()}); X has {n_features} columns."
            )
        if np.unique(a).size != a.size:
            raise ValueError(f"View {name!r} repeats a column index; each column may appear once per view.")
        out.append(a)
    return out, names


class ViewForests:
    """The fitted view forests and their training matrices, shared by every combination.

    Attributes
    ----------
    views : list of ndarray of int64
        Column indices of each view (Q views).
    view_names : list of str
    forests : list of ForestDissimilarity
        One fitted forest per view (``forests[q].forest_`` is the scikit-learn forest).
    dissimilarities : list of ndarray of float32, each (n_train, n_train)
        ``D_q`` of ALGORITHMS.md §A.6 step 1.
    y : ndarray of int64, shape (n_train,)
        Encoded labels ``0..C-1``.
    classes : ndarray (C,)
        Original labels; ``classes[y]`` gives them back.
    seeds : ndarray of int64, shape (Q + 1,)
        Seeds of the view forests and (last) of the final forest(s).
    """

    def __init__(self, views, view_names, forests, y, classes, seeds):
        self.views = list(views)
        self.view_names = list(view_names)
        self.forests = list(forests)
        self.dissimilarities = [f.train_dissimilarity_ for f in self.forests]
        self.y = np.asarray(y)
        self.classes = np.asarray(classes)
        self.seeds = np.asarray(seeds)

    @property
    def n_views(self) -> int:
        return len(self.views)

    @property
    def n_train(self) -> int:
        return int(self.y.shape[0])

    @property
    def oob_accuracies(self) -> np.ndarray:
        """OOB accuracy of every view forest, shape (Q,) (rows never OOB count as errors)."""
        return np.array([f.oob_accuracy_ for f in self.forests])

    def transform(self, X, n_jobs=None) -> list[np.ndarray]:
        """Per-view dissimilarities of new rows to the training rows.

        Parameters
        ----------
        X : ndarray of shape (n_new, n_features)
            All columns (the views select theirs).

        Returns
        -------
        list of Q ndarrays of float32, each (n_new, n_train)  (§A.6 prediction step 1)
        """
        X = np.asarray(X, dtype=np.float64)
        jobs = min(worker_count(n_jobs), self.n_views)
        if jobs == 1:
            return [f.transform(X[:, v]) for f, v in zip(self.forests, self.views)]
        return Parallel(n_jobs=jobs, prefer="threads")(
            delayed(f.transform)(X[:, v]) for f, v in zip(self.forests, self.views)
        )


def fit_view_forests(
    X,
    y,
    views=None,
    *,
    measure: str = "breiman",
    n_estimators: int = 100,
    max_features="sqrt",
    random_state=None,
    n_jobs=None,
    progress: ProgressCallback = None,
    **measure_params,
) -> ViewForests:
    """Fit one :class:`ForestDissimilarity` per view, in parallel over views (threads).

    Parameters
    ----------
    X : array-like of shape (n_train, n_features)
    y : array-like of shape (n_train,)
    views : see :func:`check_views`
    measure, n_estimators, max_features, **measure_params
        Passed to every :class:`ForestDissimilarity` (``w``, ``kdn_k``, ``rfd_form``,
        ``rfgap_scaling``, ``max_depth``, ``min_samples_leaf``).
    random_state : int, RandomState or None
        Draws ``Q + 1`` seeds: view forest q gets ``seeds[q]``; ``seeds[Q]`` is left for the
        final forest.  The same ``random_state`` gives the same view forests whatever the
        combination.
    n_jobs : int or None
        Total threads: views run in parallel, each forest gets the remaining share.
    progress : callable (fraction, message), optional
        Called from the calling thread each time a view is done.

    Returns
    -------
    ViewForests
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    classes, y_enc = np.unique(y, return_inverse=True)
    views, names = check_views(views, X.shape[1])
    seeds = check_random_state(random_state).randint(_MAX_INT, size=len(views) + 1)
    total = worker_count(n_jobs)
    outer = min(total, len(views))
    inner = max(1, total // outer)
    makers = [
        ForestDissimilarity(
            measure=measure,
            n_estimators=n_estimators,
            max_features=max_features,
            random_state=int(seeds[q]),
            n_jobs=inner,
            **measure_params,
        )
        for q in range(len(views))
    ]
    _report(progress, 0.0, f"growing {len(views)} view forest(s) of {n_estimators} trees")
    forests = []
    if outer == 1:
        for q, (f, v) in enumerate(zip(makers, views)):
            forests.append(f.fit(X[:, v], y_enc))
            _report(progress, (q + 1) / len(views), f"view {names[q]!r} done")
    else:
        gen = Parallel(n_jobs=outer, prefer="threads", return_as="generator")(
            delayed(f.fit)(X[:, v], y_enc) for f, v in zip(makers, views)
        )
        for q, f in enumerate(gen):
            forests.append(f)
            _report(progress, (q + 1) / len(views), f"view {names[q]!r} done")
    return ViewForests(views, names, forests, y_enc, classes, seeds)


# ----------------------------------------------------------------------------- weights
def knn_loo_accuracy(D: np.ndarray, y: np.ndarray, k: int) -> float:
    """Leave-one-out kNN accuracy on a training dissimilarity matrix (§A.7.1).

    Parameters
    ----------
    D : ndarray of shape (n, n)
        Row j = dissimilarities of x_j to all training instances; the diagonal is excluded.
    y : ndarray of int, shape (n,)
        Encoded labels ``0..C-1``.
    k : int
        Neighbours (smallest values, ties broken by column index); majority vote, vote ties
        go to the lowest class index.

    Returns
    -------
    float
    """
    y = np.asarray(y)
    mask = k_smallest_mask(D, k, exclude_diagonal=True)
    C = int(y.max()) + 1
    Y = np.zeros((len(y), C), dtype=np.float64)
    Y[np.arange(len(y)), y] = 1.0
    votes = mask.astype(np.float64) @ Y
    return float(np.mean(votes.argmax(axis=1) == y))


def _normalize(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    s = a.sum()
    if not np.isfinite(s) or s <= 0:
        return np.full(a.shape, 1.0 / a.size)
    return a / s


def swknn_weights(dissimilarities: Sequence[np.ndarray], y: np.ndarray, k: int = 7) -> np.ndarray:
    """SWknn (§A.7.1): ``w_q = acc_q / sum_h acc_h`` with ``acc_q`` the LOO kNN accuracy on D_q.

    Returns
    -------
    w : ndarray (Q,), non-negative, sums to 1 (uniform if every accuracy is 0).
    """
    return _normalize([knn_loo_accuracy(D, y, k) for D in dissimilarities])


def kernel_alignment(K: np.ndarray, y: np.ndarray) -> float:
    """Kernel-target alignment ``A(K, K*)`` with the multi-class ideal kernel (§A.7.2).

    ``K*_ij = 1`` if ``y_i == y_j`` else ``-1/(C-1)``;
    ``A = <K, K*>_F / sqrt(<K, K>_F <K*, K*>_F)``, computed without forming K*.

    Parameters
    ----------
    K : ndarray (n, n)
        Similarity, ``K = 1 - D``.
    y : ndarray of int (n,)
        Encoded labels ``0..C-1`` with C >= 2.
    """
    K = np.asarray(K, dtype=np.float64)
    y = np.asarray(y)
    C = int(y.max()) + 1
    if C < 2:
        raise ValueError("kernel alignment needs at least 2 classes.")
    n = len(y)
    Y = np.zeros((n, C))
    Y[np.arange(n), y] = 1.0
    same = float(np.sum(Y * (K @ Y)))
    total = float(K.sum())
    c = 1.0 / (C - 1)
    kk_star = same - c * (total - same)
    n_same = float(np.sum(np.bincount(y, minlength=C).astype(np.float64) ** 2))
    star_star = n_same + c * c * (n * n - n_same)
    kk = float(np.sum(K * K))
    if kk <= 0:
        return 0.0
    return kk_star / np.sqrt(kk * star_star)


def alignment_weights(
    dissimilarities: Sequence[np.ndarray], y: np.ndarray, normalization: str = "softmax"
) -> np.ndarray:
    """SWka (§A.7.2): alignment ``A_q`` of ``K_q = 1 - D_q``, normalised to weights.

    ``normalization="softmax"`` (default, the chapter's reading): ``w = exp(A) / sum exp(A)``;
    ``"proportional"`` (Qiu & Lane heuristic): ``w = A / sum A`` with negative alignments
    clipped to 0 (uniform if none is positive).

    Returns
    -------
    w : ndarray (Q,), sums to 1.
    """
    if normalization not in ALIGNMENT_NORMALIZATIONS:
        raise ValueError(f"normalization must be one of {ALIGNMENT_NORMALIZATIONS}, got {normalization!r}.")
    A = np.array([kernel_alignment(1.0 - np.asarray(D, dtype=np.float64), y) for D in dissimilarities])
    if normalization == "softmax":
        e = np.exp(A - A.max())
        return e / e.sum()
    return _normalize(np.maximum(A, 0.0))


def oob_weights(oob_accuracies: Sequence[float]) -> np.ndarray:
    """SWoob (§A.7.3): ``w_q = (1 - e_q) / sum_h (1 - e_h)`` = normalised OOB accuracies."""
    return _normalize(np.asarray(oob_accuracies, dtype=np.float64))


def static_view_weights(
    combination: str, view_forests: ViewForests, k: int = 7, alignment_normalization: str = "softmax"
) -> np.ndarray:
    """Weights of a static combination on precomputed view forests, shape (Q,), sum 1."""
    Ds, y = view_forests.dissimilarities, view_forests.y
    if combination == "average":
        return np.full(len(Ds), 1.0 / len(Ds))
    if combination == "knn":
        return swknn_weights(Ds, y, k)
    if combination == "alignment":
        return alignment_weights(Ds, y, alignment_normalization)
    if combination == "oob":
        return oob_weights(view_forests.oob_accuracies)
    raise ValueError(f"combination must be one of {STATIC_COMBINATIONS} here, got {combination!r}.")


def combine(dissimilarities: Sequence[np.ndarray], weights: Sequence[float]) -> np.ndarray:
    """Joint dissimilarity ``D = sum_q w_q D_q`` (§A.6 step 2), float32, same shape as each D_q."""
    weights = np.asarray(weights, dtype=np.float64)
    out = np.zeros(np.shape(dissimilarities[0]), dtype=np.float64)
    for wq, D in zip(weights, dissimilarities):
        out += wq * np.asarray(D, dtype=np.float64)
    return out.astype(np.float32)


# ----------------------------------------------------------------------------- combiners
class StaticCombiner:
    """Static weighting + final forest on the joint matrix (§A.6 steps 2-3, §A.7).

    Attributes after ``fit``: ``view_weights_`` (Q,), ``joint_dissimilarity_`` (n, n)
    float32, ``forest_`` (the final RandomForestClassifier, trained on encoded labels).
    """

    def __init__(self, combination="average", k=7, alignment_normalization="softmax",
                 n_estimators=100, max_features="sqrt", n_jobs=None):
        self.combination = combination
        self.k = k
        self.alignment_normalization = alignment_normalization
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.n_jobs = n_jobs

    def fit(self, view_forests: ViewForests, random_state=None):
        self.view_weights_ = static_view_weights(
            self.combination, view_forests, self.k, self.alignment_normalization
        )
        self.joint_dissimilarity_ = combine(view_forests.dissimilarities, self.view_weights_)
        self.forest_ = RandomForestClassifier(
            n_estimators=self.n_estimators,
            max_features=self.max_features,
            random_state=random_state,
            n_jobs=self.n_jobs,
        ).fit(self.joint_dissimilarity_, view_forests.y)
        return self

    def joint(self, dissimilarities: Sequence[np.ndarray]) -> np.ndarray:
        return combine(dissimilarities, self.view_weights_)

    def predict_proba(self, dissimilarities: Sequence[np.ndarray]) -> np.ndarray:
        """Class probabilities (n_new, C) from per-view (n_new, n_train) matrices."""
        return self.forest_.predict_proba(self.joint(dissimilarities))


# ----------------------------------------------------------------------------- estimator
class RFDClassifier(ClassifierMixin, BaseEstimator):
    """Multi-view random-forest-dissimilarity classifier (ALGORITHMS.md §A.6, Algorithm 1).

    Parameters
    ----------
    views : list of integer arrays, dict name -> indices, or None, default=None
        Column indices of each view in ``X``; None = all columns as one view.  From a
        :class:`mvlab.datasets.MultiViewDataset` pass ``ds.view_indices`` or
        ``dict(ds.views)`` (``ds.views`` itself is a read-only mapping that ``clone``
        cannot deep-copy).
    combination : {"average", "knn", "alignment", "oob", "dvs"}, default="average"
        ``"average"``: ``D = mean_q D_q``; ``"knn"``: SWknn (§A.7.1); ``"alignment"``: SWka
        (§A.7.2); ``"oob"``: SWoob (§A.7.3); ``"dvs"``: dynamic view selection (§A.8, in
        :mod:`mvlab.dvs`).
    measure : {"breiman", "path", "rfd", "oob", "rfgap"}, default="breiman"
        Dissimilarity of every view forest (:class:`mvlab.proximity.ForestDissimilarity`).
        The chapter uses ``"rfd"``.
    n_estimators : int, default=100
        Trees of every forest grown (view forests and final forest). Paper: 512.
    k : int, default=7
        Neighbours of the neighbour-based combinations: LOO kNN of SWknn (§A.7.1, k not
        stated in the chapter) and the DVS region of competence (§A.8, k = 7 RECON).
    max_features : default="sqrt"
        mtry of the view forests (paper: sqrt of the view dimension).
    final_max_features : default="sqrt"
        mtry of the final forest (paper: sqrt(n_train), the dimension of the joint space).
    w, kdn_k, rfd_form, rfgap_scaling
        Measure parameters, see :class:`ForestDissimilarity`.
    alignment_normalization : {"softmax", "proportional"}, default="softmax"
        SWka normalisation (§A.7.2).
    dvs_competence : {"ola", "lca"}, default="ola"
        ``"dvs"`` only: competence of a candidate on its region (§A.8 line 11); ``"ola"`` is
        the paper's OOB accuracy, ``"lca"`` Woods et al.'s (see :mod:`mvlab.dvs`).
    dvs_selection : {"best", "knora"}, default="best"
        ``"dvs"`` only: the most competent candidate predicts (paper), or all maximally
        competent candidates average their probabilities.
    dvs_max_subset_size : int or None, default=None
        ``"dvs"`` only: keep only view subsets of at most this size (None: all 2^Q - 1).
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
    """

    def __init__(
        self,
        views=None,
        combination="average",
        measure="breiman",
        n_estimators=100,
        k=7,
        max_features="sqrt",
        final_max_features="sqrt",
        w=1.0,
        kdn_k=7,
        rfd_form="weighted_proximity",
        rfgap_scaling="row_max",
        alignment_normalization="softmax",
        dvs_competence="ola",
        dvs_selection="best",
        dvs_max_subset_size=None,
        random_state=None,
        n_jobs=None,
    ):
        self.views = views
        self.combination = combination
        self.measure = measure
        self.n_estimators = n_estimators
        self.k = k
        self.max_features = max_features
        self.final_max_features = final_max_features
        self.w = w
        self.kdn_k = kdn_k
        self.rfd_form = rfd_form
        self.rfgap_scaling = rfgap_scaling
        self.alignment_normalization = alignment_normalization
        self.dvs_competence = dvs_competence
        self.dvs_selection = dvs_selection
        self.dvs_max_subset_size = dvs_max_subset_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self, n_samples: int) -> None:
        if self.combination not in COMBINATIONS:
            raise ValueError(f"combination must be one of {COMBINATIONS}, got {self.combination!r}.")
        if self.measure not in MEASURES:
            raise ValueError(f"measure must be one of {MEASURES}, got {self.measure!r}.")
        if not _is_int(self.n_estimators) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be a positive integer, got {self.n_estimators!r}.")
        if not _is_int(self.k) or self.k < 1:
            raise ValueError(f"k must be a positive integer, got {self.k!r}.")
        if self.combination in ("knn", "dvs") and self.k > n_samples - 1:
            raise ValueError(
                f"k={self.k} neighbours need at least {self.k + 1} training instances, got {n_samples}; lower k."
            )
        if self.combination == "dvs":
            if self.dvs_competence not in ("ola", "lca"):
                raise ValueError(f"dvs_competence must be 'ola' or 'lca', got {self.dvs_competence!r}.")
            if self.dvs_selection not in ("best", "knora"):
                raise ValueError(f"dvs_selection must be 'best' or 'knora', got {self.dvs_selection!r}.")
        if self.alignment_normalization not in ALIGNMENT_NORMALIZATIONS:
            raise ValueError(
                f"alignment_normalization must be one of {ALIGNMENT_NORMALIZATIONS}, "
                f"got {self.alignment_normalization!r}."
            )

    def _measure_params(self) -> dict:
        return dict(w=self.w, kdn_k=self.kdn_k, rfd_form=self.rfd_form, rfgap_scaling=self.rfgap_scaling)

    def _make_combiner(self):
        if self.combination == "dvs":
            from mvlab.dvs import DVSCombiner  # imported here: mvlab.dvs builds on this module

            return DVSCombiner(
                k=self.k,
                competence=self.dvs_competence,
                selection=self.dvs_selection,
                max_subset_size=self.dvs_max_subset_size,
                n_estimators=self.n_estimators,
                max_features=self.final_max_features,
                n_jobs=self.n_jobs,
            )
        return StaticCombiner(
            combination=self.combination,
            k=self.k,
            alignment_normalization=self.alignment_normalization,
            n_estimators=self.n_estimators,
            max_features=self.final_max_features,
            n_jobs=self.n_jobs,
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
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self._check_params(X.shape[0])
        views, names = check_views(self.views, X.shape[1])
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(f"RFDClassifier needs at least 2 classes in y, got {len(classes)}.")
        # Share of the progress bar for the view forests: the DVS pool is the long part.
        split = 0.85
        combiner = self._make_combiner()
        if self.combination == "dvs":
            from mvlab.dvs import n_candidates

            n_pool = n_candidates(len(views), self.dvs_max_subset_size)
            split = len(views) / (len(views) + n_pool)
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
                **self._measure_params(),
            )
        else:
            self._check_view_forests(view_forests, X, y, views)
        seeds = view_forests.seeds
        stage = "candidate pool" if self.combination == "dvs" else "weights and final forest"
        _report(progress, split, f"combination {self.combination!r}: {stage}")
        if self.combination == "dvs":
            sub = scaled(progress, split, 1 - split)
            combiner.fit(view_forests, random_state=int(seeds[-1]), progress=sub)
        else:
            combiner.fit(view_forests, random_state=int(seeds[-1]))
        self.classes_ = view_forests.classes
        self.views_ = view_forests.views
        self.view_names_ = view_forests.view_names
        self.view_forest_set_ = view_forests
        self.view_forests_ = view_forests.forests
        self.dissimilarities_ = view_forests.dissimilarities
        self.combiner_ = combiner
        self.view_weights_ = np.asarray(getattr(combiner, "view_weights_", np.full(len(views), 1.0 / len(views))))
        if isinstance(combiner, StaticCombiner):
            self.final_forest_ = combiner.forest_
            self.joint_dissimilarity_ = combiner.joint_dissimilarity_
        _report(progress, 1.0, "done")
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
        if any(f.measure != self.measure or f.n_estimators != self.n_estimators for f in vf.forests):
            raise ValueError("view_forests use another measure or n_estimators than this classifier.")

    # ---------------------------------------------------------------- prediction
    def transform_views(self, X) -> list[np.ndarray]:
        """Per-view dissimilarities to the training rows: Q arrays (n_new, n_train), float32."""
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

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape (n_new, C), columns ordered as ``classes_``."""
        return self.predict_proba_from_dissimilarities(self.transform_views(X))

    def predict(self, X) -> np.ndarray:
        """Predicted labels, shape (n_new,)."""
        return self.predict_from_dissimilarities(self.transform_views(X))

    def explain(self, X):
        """Per-instance explanation of the dynamic view selection (``combination="dvs"`` only).

        Computes the per-view test matrices (Q arrays (n_new, n_train)) and delegates to
        :meth:`mvlab.dvs.DVSCombiner.explain`.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)

        Returns
        -------
        mvlab.dvs.DVSExplanation
            Per instance: chosen subset (``chosen``, ``chosen_views`` (n, Q)), competence of
            every candidate (n, 2^Q - 1), region of competence (``region`` and
            ``region_dissimilarity``, (n, k)), the chosen candidate's prediction and the final
            ``prediction`` (equal to :meth:`predict`); ``to_frame()`` gives a DataFrame.
        """
        check_is_fitted(self, "combiner_")
        if not hasattr(self.combiner_, "explain"):
            raise ValueError(f"explain() is only available for combination='dvs', not {self.combination!r}.")
        return self.combiner_.explain(self.transform_views(X))
