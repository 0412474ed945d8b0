"""Dynamic View Selection (docs/algorithms.md §A.8, Algorithm 2 of Bernard et al. 2020).

For every non-empty subset ``w`` of the Q views, a candidate random forest ``c_w`` is grown
on the average ``D_w`` of the selected views' training dissimilarity matrices (the *pool*,
§A.8 lines 1-6).  For a test instance ``x`` and each candidate, the joint row ``d_w(x)``
(average of the selected views' rows, line 9) gives the region of competence ``theta_w``:
the k nearest training instances in that joint space (line 10).  The candidate's competence
``delta_w`` is its out-of-bag accuracy on the region (line 11); the most competent candidate
predicts (lines 12-13).

How it is fast (docs/design.md §6).  The boolean OOB-hit matrix ``H`` (n_train x candidates) is
computed once at fit time from each candidate's ``oob_decision_function_``.  At prediction
time the regions of all candidates for all test rows come from :func:`mvlab.
competence_regions.candidate_regions`: the joint rows ``d_w`` of all candidates share
their partial sums, and each candidate's k smallest entries per row (ties broken by training
index, as :func:`mvlab.core.neighbours.k_smallest_indices`) are searched only under a bound given
by the regions of the candidates with one more view; blocks of rows run on ``n_jobs``
threads.  The competence of every candidate for every test instance is then **one gather
and one mean**: ``H.T[c, regions[c, i, :]].mean(-1)`` over the (candidates, n_test, k) index
array.

The fit is the P candidate forests' compiled tree building and little else (docs/benchmarks.md, DVS's fit on
mfeat): each candidate is grown by :func:`mvlab.core.forest_fit.fit_forest` (scikit-learn's trees without its
Python around each tree), its out-of-bag decision read by :func:`mvlab.rfd.dvs_pool.out_of_bag_proba` from one
leaf lookup of all rows per tree (scikit-learn's ``oob_score`` copies each tree's out-of-bag rows of the
(n_train, n_train) matrix), with the bootstraps the candidates share found once
(:class:`mvlab.rfd.dvs_pool.SharedBootstraps`), and the leave-one-out regions of the replay come from one
:func:`~mvlab.rfd.competence_regions.candidate_regions` pass over the training rows (``exclude_self``).  All
give scikit-learn's and the per-candidate definition's numbers bit for bit.

Choices where the paper is silent (each a documented parameter or rule):

* **Tie-breaking** (line 12): among the candidates with the highest competence, the winner
  is the one with the highest *global* OOB accuracy, then the one with more views, then the
  lowest enumeration index (§A.8 [REC]).  This order is the static ``priority_`` of the pool.
* **Enumeration order**: candidate ``c`` is the subset whose bit ``q`` is set in the integer
  code of the c-th smallest code (view 0 <-> bit 0): for Q = 3 the order is
  ``{0}, {1}, {0,1}, {2}, {0,2}, {1,2}, {0,1,2}``.
* **OOB edge case**: a training instance that is never out-of-bag for a candidate counts as
  an OOB error of that candidate (§A.8 [REC]).
* **Seeds**: every candidate is grown with the *same* seed (common random numbers).  All
  candidates therefore share their bootstrap samples, so their OOB competences are measured
  on the same out-of-bag sets and differ only by the representation; and the all-views
  candidate is tree for tree the final forest of the ``"average"`` combination with the
  same seed (its matrix is built with :func:`mvlab.rfd.view_forests.combine` and uniform weights).
* **Competence** ``competence=``: ``"ola"`` (default, the paper): OOB accuracy over the k
  neighbours.  ``"lca"`` (Woods et al. 1997, §A.8 last block): OOB accuracy over the
  neighbours whose label equals the candidate's prediction for ``x``; **when no neighbour
  has that label the competence is 0** (no local evidence for the predicted class).
* **Selection** ``selection=``: ``"best"`` (default, the paper): the single winner after
  tie-breaking predicts.  ``"knora"``: every candidate whose competence equals the maximum
  takes part and the prediction is the mean of their ``predict_proba`` (a KNORA-style
  ensemble of the locally best candidates); with a unique maximum it equals ``"best"``.
* **view_weights_**: DVS has no static weights.  At fit time the selection is replayed on
  the *training* instances in a leave-one-out way (each instance's region is searched in
  the training rows ``D_w[j, :]`` with ``j`` itself excluded; the candidate's prediction
  for ``x_j``, needed by LCA, is its OOB prediction).  ``view_weights_[q]`` is the mean,
  over training instances, of the weight view ``q`` has in the joint representation of the
  selected candidate(s) (``1/|w|`` if selected, else 0; averaged over the members under
  ``"knora"``).  It sums to 1.  ``train_selection_`` keeps the selected candidate of every
  training instance.  Test-time frequencies come from :meth:`DVSExplanation.
  selection_frequencies` and :meth:`DVSExplanation.view_usage`.
* **Cost guard**: the pool has ``2^Q - 1`` forests.  More than 1023 candidates (Q > 10
  without ``max_subset_size``) triggers a :class:`DVSCostWarning`; more than 65535 is a
  ``ValueError``.  ``max_subset_size=s`` keeps only subsets of at most ``s`` views
  (``sum_{j<=s} C(Q, j)`` candidates).
"""

from __future__ import annotations

import copy
import warnings
from contextlib import closing
from typing import Optional, Sequence

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.parallel import Parallel, delayed

from mvlab.core.params import MAX_FEATURES, N_JOBS, OPTIONAL_POSITIVE_INT, POSITIVE_INT, RANDOM_STATE, StrOptions
from mvlab.core.params import is_int as _is_int
from mvlab.core.progress import ProgressCallback
from mvlab.core.progress import report as _report
from mvlab.core.threads import split_workers
from mvlab.i18n import N_, Message
from mvlab.rfd.dvs_pool import (
    MAX_CANDIDATES_WITHOUT_WARNING,
    Candidate,
    DVSCostWarning,
    SharedBootstraps,
    TrainRegions,
    fit_candidate,
    subset_dissimilarity,
    subset_names,
    view_subsets,
)
from mvlab.rfd.dvs_rules import (
    COMPETENCE_RULES,
    COMPETENCES,
    NEIGHBOUR_WEIGHT_RULES,
    NEIGHBOUR_WEIGHTS,
    REGION_RULES,
    REGIONS,
    SELECTIONS,
    TIE_BREAKS,
    PoolEvidence,
    select_candidates,
    selection_priority,
)
from mvlab.rfd.explanation import DVSExplanation
from mvlab.rfd.view_forests import ViewForests
from mvlab.rfd.view_rows import DenseViewRows, ViewRows, prototype_columns, train_rows

__all__ = ["DVSCombiner"]
"""The pool's pieces (``view_subsets``, ``n_candidates``, ``oob_hits``, ...) are in :mod:`mvlab.rfd.dvs_pool` and
the rules in :mod:`mvlab.rfd.dvs_rules`."""

_MAX_INT = np.iinfo(np.int32).max


# ----------------------------------------------------------------------------- combiner
class DVSCombiner(BaseEstimator):
    """Dynamic View Selection combiner for :class:`mvlab.rfd.classifier.RFDClassifier` (§A.8).

    The pool (one forest per view subset) is grown once by :meth:`fit`; the *rules* that turn
    the pool into a choice per instance (competence, region, tie-break, selection) are cheap
    and can be changed afterwards on the same forests with :meth:`with_rules`.

    Parameters
    ----------
    k : int, default=7
        Size of the region of competence, the k nearest training instances (§A.8 line 10; the paper's value is
        lost, 7 is a reconstruction); ``1 <= k <= n_train``.
    competence : {"ola", "lca", "soft"}, default="ola"
        ``"ola"``: OOB accuracy over the k neighbours (the paper, line 11).  ``"lca"``: OOB
        accuracy over the neighbours whose label equals the candidate's prediction for the
        instance, 0 when there is none (Woods et al.).  ``"soft"``: mean out-of-bag
        *probability* of each neighbour's true class (0 for a neighbour never out-of-bag): a
        graded version of OLA under which exact ties between candidates are rare.
    region : {"candidate", "shared"}, default="candidate"
        ``"candidate"``: each candidate's region is searched in its own joint space (the
        paper).  ``"shared"``: one region for all candidates, the k nearest in the all-views
        average (the usual practice of dynamic selection, DESlib's DSEL neighbourhood).
    tie_break : {"oob", "fewest"}, default="oob"
        Order among candidates of equal competence (:func:`selection_priority`): highest global
        OOB accuracy, then more views (§A.8 [REC]); or fewest views first.
    selection : {"best", "knora", "knora-u"}, default="best"
        ``"best"``: the most competent candidate predicts (lines 12-13).  ``"knora"``: all
        maximally competent candidates average their ``predict_proba``.  ``"knora-u"``: every
        candidate votes with a weight equal to its competence (KNORA-Union).
    neighbour_weights : {"uniform", "similarity"}, default="uniform"
        ``"similarity"``: OLA and soft competences weigh neighbour j by ``1 - d_j`` (its joint
        dissimilarity to the instance), so closer neighbours count more.  Not used by LCA.
    max_subset_size : int or None, default=None
        Keep only subsets of at most this many views (None: all ``2^Q - 1``).
    n_estimators : int, default=100
        Trees of every candidate forest (paper: 512).
    max_features : default="sqrt"
        mtry of the candidates; on an ``n_train``-column joint matrix ``"sqrt"`` is the
        paper's ``sqrt(n)`` (§A.2).
    n_jobs : int or None
        Candidates are grown in parallel (threads), one thread each when there are more
        candidates than jobs.
    random_state : int, RandomState or None, default=None
        The seed shared by every candidate: an int is used as is, otherwise one is drawn from it.
        :class:`~mvlab.rfd.classifier.RFDClassifier` passes the seed it keeps for the final forest.

    Attributes
    ----------
    subsets_ : ndarray of bool (P, Q)
    candidate_names_ : list of str (P)
    view_names_ : list of str (Q)
    classes_ : ndarray (C,)
        Original labels (candidates are trained on their indices ``0..C-1``).
    y_ : ndarray of int64 (n_train,)
        Encoded training labels.
    candidates_ : list of P fitted RandomForestClassifier
    oob_hits_ : ndarray of bool (n_train, P)
        ``I(c_w^OOB(x_i) == y_i)`` (§A.8 line 11); rows never OOB are False.
    oob_true_proba_ : ndarray of float64 (n_train, P)
        Out-of-bag probability of the true class (the soft competence's evidence).
    oob_accuracies_ : ndarray (P,)
        Global OOB accuracy of each candidate (``oob_hits_.mean(axis=0)``).
    priority_ : ndarray of int64 (P,)
        Static tie-break rank (0 = preferred) under ``tie_break``.
    seed_ : int
        The seed shared by all candidates.
    train_selection_ : ndarray of int64 (n_train,)
        Candidate selected for each training instance in the leave-one-out replay.
    view_weights_ : ndarray (Q,)
        Mean weight of each view in the selected candidates of the leave-one-out replay
        (sums to 1; see the module docstring).
    """

    RULES = ("competence", "region", "tie_break", "selection", "neighbour_weights")

    _parameter_constraints: dict = {
        "k": POSITIVE_INT,  # against the training rows, in fit
        "competence": [StrOptions(set(COMPETENCES))],
        "selection": [StrOptions(set(SELECTIONS))],
        "max_subset_size": OPTIONAL_POSITIVE_INT,
        "n_estimators": POSITIVE_INT,
        "max_features": MAX_FEATURES,
        "n_jobs": N_JOBS,
        "region": [StrOptions(set(REGIONS))],
        "tie_break": [StrOptions(set(TIE_BREAKS))],
        "neighbour_weights": [StrOptions(set(NEIGHBOUR_WEIGHTS))],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        k=7,
        competence="ola",
        selection="best",
        max_subset_size=None,
        n_estimators=100,
        max_features="sqrt",
        n_jobs=None,
        region="candidate",
        tie_break="oob",
        neighbour_weights="uniform",
        random_state=None,
    ):
        self.k = k
        self.competence = competence
        self.selection = selection
        self.max_subset_size = max_subset_size
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.n_jobs = n_jobs
        self.region = region
        self.tie_break = tie_break
        self.neighbour_weights = neighbour_weights
        self.random_state = random_state

    # ---------------------------------------------------------------- fit
    def _check_data_params(self, n_train: int) -> None:
        """The check ``_parameter_constraints`` cannot express: ``k`` against the training rows."""
        if self.k > n_train:
            raise ValueError(
                f"k={self.k} is larger than the training set ({n_train} instances): the region of "
                f"competence cannot hold more neighbours than there are training instances; use k <= {n_train}."
            )

    def fit(self, view_forests: ViewForests, progress: ProgressCallback = None,
            prototypes: Optional[np.ndarray] = None):
        """Grow the pool (§A.8 lines 1-6), the OOB-hit matrix, and replay the rules on the training rows.

        Parameters
        ----------
        view_forests : ViewForests
            Training matrices ``D_q`` (each (n_train, n_train)) and encoded labels.
        progress : callable (fraction, message), optional
            Called from the calling thread after each candidate.
        prototypes : ndarray of int (m,), optional
            Ascending training rows whose columns the candidates see (docs/algorithms.md §A.10);
            the training rows are then read in blocks and the regions of competence are still
            the exact k nearest over all training rows (:mod:`mvlab.rfd.view_rows`).

        Returns
        -------
        self

        Warns
        -----
        DVSCostWarning
            When the pool has more than 1023 candidates (Q > 10 without ``max_subset_size``).
        """
        y = np.asarray(view_forests.y, dtype=np.int64)
        n_train = y.shape[0]
        self._validate_params()
        self.prototypes_ = None if prototypes is None else np.asarray(prototypes, dtype=np.int64)
        self._check_data_params(n_train)
        subsets = view_subsets(view_forests.n_views, self.max_subset_size)
        self._warn_pool_size(subsets.shape[0], view_forests.n_views, n_train)
        seed = self._seed()
        k_train = min(self.k, n_train - 1)  # leave-one-out: k neighbours among the n_train - 1 others
        Ds, train_regions = self._training_inputs(view_forests, subsets, k_train)
        self.view_dissimilarities_ = Ds
        names = subset_names(subsets, view_forests.view_names)
        pool = self._grow_pool(Ds, subsets, names, y, seed, progress)

        self.subsets_ = subsets
        self.candidate_names_ = names
        self.view_names_ = list(view_forests.view_names)
        self.classes_ = np.asarray(view_forests.classes)
        self.y_ = y
        self.n_train_ = n_train
        self.seed_ = seed
        self.candidates_ = [c.forest for c in pool]
        self.oob_hits_ = np.stack([c.oob_hits for c in pool], axis=1)
        self.oob_true_proba_ = np.stack([c.oob_true_proba for c in pool], axis=1)
        self.oob_accuracies_ = self.oob_hits_.mean(axis=0)
        self._oob_predictions = np.stack([c.oob_predictions for c in pool], axis=0)  # (P, n_train)
        self._train_regions = train_regions  # None: a single training row, no region at all
        _report(progress, 0.96, Message(N_("leave-one-out replay of the selection on the training instances")))
        self._replay()
        _report(progress, 1.0, Message(N_("DVS pool ready")))
        return self

    @staticmethod
    def _warn_pool_size(P: int, Q: int, n_train: int) -> None:
        if P > MAX_CANDIDATES_WITHOUT_WARNING:
            warnings.warn(
                f"DVS with {Q} views grows {P} candidate random forests (one per non-empty subset "
                f"of views, 2^Q - 1 without a size limit), each on an {n_train} x {n_train} matrix; "
                "training time and memory grow as 2^Q.  Set max_subset_size (e.g. 2 or 3) to keep "
                "only small subsets.",
                DVSCostWarning,
                stacklevel=3,
            )

    def _seed(self) -> int:
        """The seed shared by every candidate: ``random_state`` itself if an int, else drawn from it."""
        if self.random_state is None or not _is_int(self.random_state):
            return int(check_random_state(self.random_state).randint(_MAX_INT))
        return int(self.random_state)

    def _training_inputs(self, view_forests: ViewForests, subsets: np.ndarray, k_train: int):
        """The candidates' training inputs (Q matrices: (n_train, n_train), or (n_train, m) prototype columns)
        and the :class:`TrainRegions` to fill (None when ``k_train`` is 0).  Exact space: a rule's regions are
        searched in the training matrices when the replay first needs them, for all candidates at once
        (:func:`mvlab.rfd.competence_regions.candidate_regions`).  With prototypes one pass over the
        training rows gives the prototype columns and the regions the current ``region`` rule needs."""
        train_regions = TrainRegions(k_train, subsets) if k_train > 0 else None
        if self.prototypes_ is None:
            Ds = [np.asarray(D) for D in view_forests.dissimilarities]
            if train_regions is not None:
                train_regions.views, train_regions.n_jobs = Ds, self.n_jobs
            return Ds, train_regions
        source = train_rows(view_forests, self.n_jobs)
        if train_regions is None:
            return source.scan(self.prototypes_)[0], None
        train_regions.source = source
        rule = REGION_RULES[self.region]
        Ds, idx, dist = source.scan(self.prototypes_, rule.combos(subsets), k_train, exclude_self=True)
        train_regions.found[rule.name] = (idx, dist)
        return Ds, train_regions

    def _grow_pool(self, Ds, subsets, names, y, seed, progress) -> list[Candidate]:
        """Grow the P candidates (§A.8 lines 1-6) on threads, reporting after each.  Rows never out-of-bag
        (few trees) count as errors (:func:`mvlab.rfd.dvs_pool.oob_hits`)."""
        P = subsets.shape[0]
        outer, inner = split_workers(self.n_jobs, P)
        args = (y, self.n_estimators, self.max_features, seed, inner, SharedBootstraps(y.shape[0]))
        _report(progress, 0.0, Message(N_("growing {n} DVS candidate forest(s) of {trees} trees"), n=int(P),
                                       trees=self.n_estimators))
        pool = []
        if outer == 1:
            gen = (fit_candidate(Ds, subsets[c], *args) for c in range(P))
        else:
            gen = Parallel(n_jobs=outer, prefer="threads", return_as="generator")(
                delayed(fit_candidate)(Ds, subsets[c], *args) for c in range(P)
            )
        with closing(gen):  # a stopped fit ends its threads now, not at garbage collection
            for c, candidate in enumerate(gen):
                pool.append(candidate)
                _report(progress, 0.95 * (c + 1) / P, Message(N_("candidate {number}/{count} ({views}) done"),
                                                               number=c + 1, count=int(P), views=str(names[c])))
        return pool

    def _replay(self) -> None:
        """``priority_``, ``train_selection_`` and ``view_weights_`` under the current rules."""
        subsets, n_train, P = self.subsets_, self.n_train_, self.subsets_.shape[0]
        sizes = subsets.sum(axis=1)
        self.priority_ = selection_priority(self.oob_accuracies_, sizes, self.tie_break)
        if self._train_regions is not None:
            regions, region_d = self._train_regions.for_rule(REGION_RULES[self.region])
            comp = self._competence_from_regions(regions, self._oob_predictions, region_d)
            chosen, members, votes = self._select(comp)
        else:  # a single training instance: nothing to compare, use the tie-break order
            chosen = np.full(n_train, int(np.argmin(self.priority_)), dtype=np.int64)
            votes = np.zeros((n_train, P))
            votes[:, chosen[0]] = 1.0
        self.train_selection_ = chosen
        share = subsets / sizes[:, None]  # (P, Q): weight of view q in candidate c
        self.view_weights_ = (votes @ share).mean(axis=0)

    def with_rules(self, **rules) -> "DVSCombiner":
        """The same fitted pool under other rules (``competence``, ``region``, ``tie_break``,
        ``selection``, ``neighbour_weights``): a new combiner sharing the candidate forests, with
        its own ``priority_``, ``train_selection_`` and ``view_weights_``.  Costs a replay on
        the training rows, not a single forest."""
        unknown = set(rules) - set(self.RULES)
        if unknown:
            raise ValueError(f"unknown DVS rule(s) {sorted(unknown)}; the rules are {list(self.RULES)}.")
        if not hasattr(self, "candidates_"):
            raise ValueError("this DVSCombiner is not fitted yet; call fit(view_forests) first.")
        other = copy.copy(self)
        other.set_params(**rules)
        other._validate_params()
        other._replay()
        return other

    @property
    def rules(self) -> dict:
        """The rules in use, by name."""
        return {name: getattr(self, name) for name in self.RULES}

    # ---------------------------------------------------------------- core
    def _competence_from_regions(self, regions: np.ndarray, predictions: Optional[np.ndarray],
                                 region_d: Optional[np.ndarray] = None) -> np.ndarray:
        """Competence (§A.8 line 11) from regions (P, n, k): one gather and one (weighted) mean.

        ``predictions`` (P, n) are the candidates' predictions for the instances (LCA);
        ``region_d`` (P, n, k) the joint dissimilarities of the regions (similarity weights).

        Returns
        -------
        ndarray of float64, shape (n, P)
        """
        pool = PoolEvidence(self.oob_hits_, self.oob_true_proba_, self.y_)
        weights = NEIGHBOUR_WEIGHT_RULES[self.neighbour_weights](region_d)
        comp = COMPETENCE_RULES[self.competence](pool, regions, predictions, weights)
        return np.ascontiguousarray(comp.T)

    def _select(self, comp: np.ndarray):
        """Selection (§A.8 line 12): :func:`select_candidates` with ``priority_``."""
        return select_candidates(comp, self.priority_, self.selection)

    def _inputs(self, dissimilarities, need_d: bool):
        """The candidates' inputs and, with prototypes, the regions: ``(Ds, pre)``.

        Exact space: ``Ds`` are the checked (n, n_train) matrices and ``pre`` is None (regions are
        searched in them).  With prototypes (a :class:`mvlab.rfd.view_rows.ViewRows`, or the
        (n, n_train) matrices): ``Ds`` are the views' (n, m) prototype columns and ``pre`` the
        regions (P, n, k) and their joint dissimilarities, exact over all training rows.
        """
        if getattr(self, "prototypes_", None) is None:  # also unfitted: _check_dissimilarities says so
            return self._check_dissimilarities(dissimilarities), None
        if not isinstance(dissimilarities, (ViewRows, DenseViewRows)):
            dissimilarities = DenseViewRows(self._check_dissimilarities(dissimilarities))
        rule = REGION_RULES[self.region]
        Ds, idx, dist = dissimilarities.scan(self.prototypes_, rule.combos(self.subsets_), self.k)
        return Ds, rule.spread(idx, dist, self.subsets_.shape[0])

    def _check_dissimilarities(self, dissimilarities) -> list[np.ndarray]:
        if not hasattr(self, "candidates_"):
            raise ValueError("this DVSCombiner is not fitted yet; call fit(view_forests) first.")
        Ds = [np.asarray(D) for D in dissimilarities]
        Q = self.subsets_.shape[1]
        if len(Ds) != Q:
            raise ValueError(f"expected {Q} view matrices, got {len(Ds)}.")
        n = Ds[0].shape[0] if Ds[0].ndim == 2 else -1
        for D in Ds:
            if D.ndim != 2 or D.shape != (n, self.n_train_):
                raise ValueError(
                    f"each view matrix must have shape (n_new, {self.n_train_}) with the same n_new, got {D.shape}."
                )
            if not np.all(np.isfinite(D)):
                raise ValueError("the dissimilarity matrices contain NaN or infinite values.")
        return Ds

    def _regions(self, Ds: list[np.ndarray], with_dissimilarities: bool):
        """Regions (P, n, k) and, if asked, their joint dissimilarities (P, n, k) (§A.8 line 10).

        The rule of ``region`` (:data:`mvlab.rfd.dvs_rules.REGION_RULES`): ``"candidate"`` each candidate's
        own space (:func:`mvlab.rfd.competence_regions.candidate_regions`: shared partial sums, bounded searches,
        threads), ``"shared"`` the k nearest in the all-views average for every candidate (a broadcast view).
        """
        return REGION_RULES[self.region].exact(Ds, self.subsets_, self.k, n_jobs=self.n_jobs,
                                               with_dissimilarities=with_dissimilarities)

    def _regions_and_competence(self, Ds: list[np.ndarray], with_dissimilarities: bool, pre=None):
        """§A.8 lines 9-11 for all instances at once, never a loop over instances.

        ``pre``: regions and their dissimilarities already found (prototype path, :meth:`_inputs`).
        Returns regions (P, n, k), their dissimilarities (P, n, k) or None, the candidates'
        probabilities (P, n, C) when LCA or KNORA-U needed all of them (else None) and
        competence (n, P).
        """
        n = Ds[0].shape[0]
        need_d = with_dissimilarities or self.neighbour_weights != "uniform"
        regions, region_d = self._regions(Ds, need_d) if pre is None else pre
        probas = None
        if COMPETENCE_RULES[self.competence].needs_predictions or self.selection == "knora-u":  # predictions for x
            probas = np.empty((len(self.candidates_), n, len(self.classes_)))
            Ds64 = [np.asarray(D, dtype=np.float64) for D in Ds]  # convert once, not per candidate
            for c, forest in enumerate(self.candidates_):
                probas[c] = forest.predict_proba(subset_dissimilarity(Ds64, self.subsets_[c]))
        preds = probas.argmax(axis=2) if probas is not None else None
        comp = self._competence_from_regions(regions, preds, region_d)  # line 11, one gather + mean
        return regions, region_d, probas, comp

    def _candidate_proba(self, Ds, probas, c, rows):
        if probas is not None:
            return probas[c, rows]
        return self.candidates_[c].predict_proba(subset_dissimilarity([D[rows] for D in Ds], self.subsets_[c]))

    def _evaluate(self, dissimilarities, explain: bool):
        Ds, pre = self._inputs(dissimilarities, explain)
        n, k, C = Ds[0].shape[0], self.k, len(self.classes_)
        regions, region_d, probas, comp = self._regions_and_competence(Ds, explain, pre)
        chosen, members, votes = self._select(comp)  # line 12
        proba = np.zeros((n, C))
        chosen_proba = np.zeros((n, C))
        for c in np.flatnonzero(members.any(axis=0)):  # line 13: only the candidates in use
            rows = np.flatnonzero(members[:, c])
            p = self._candidate_proba(Ds, probas, c, rows)
            proba[rows] += votes[rows, c, None] * p
            own = chosen[rows] == c
            chosen_proba[rows[own]] = p[own]
        if not explain:
            return proba
        ar = np.arange(n)
        region = regions[chosen, ar]
        return DVSExplanation(
            view_names=list(self.view_names_),
            candidate_names=list(self.candidate_names_),
            subsets=self.subsets_.copy(),
            classes=self.classes_,
            k=k,
            competence_kind=self.competence,
            selection=self.selection,
            competence=comp,
            chosen=chosen,
            chosen_views=self.subsets_[chosen],
            members=members,
            region=region,
            region_dissimilarity=region_d[chosen, ar],
            region_labels=self.classes_[self.y_[region]],
            region_oob_hit=self.oob_hits_[region, chosen[:, None]],
            chosen_prediction=self.classes_[chosen_proba.argmax(axis=1)],
            prediction=self.classes_[proba.argmax(axis=1)],
            proba=proba,
            region_kind=self.region,
            tie_break=self.tie_break,
        )

    # ---------------------------------------------------------------- public
    def competences(self, dissimilarities: Sequence[np.ndarray]) -> np.ndarray:
        """Competence of every candidate for every new instance (§A.8 lines 9-11).

        Parameters
        ----------
        dissimilarities : Q arrays, each (n_new, n_train)

        Returns
        -------
        ndarray of float64, shape (n_new, P)
        """
        Ds, pre = self._inputs(dissimilarities, False)
        return self._regions_and_competence(Ds, False, pre)[3]

    def predict_proba(self, dissimilarities: Sequence[np.ndarray]) -> np.ndarray:
        """Class probabilities (n_new, C) from per-view (n_new, n_train) matrices (§A.8 lines 7-13).

        ``"best"``: those of the selected candidate; ``"knora"``: the mean over the maximally
        competent candidates; ``"knora-u"``: the competence-weighted mean.  Columns follow
        ``classes_``.
        """
        return self._evaluate(dissimilarities, explain=False)

    def predict(self, dissimilarities: Sequence[np.ndarray]) -> np.ndarray:
        """Labels (n_new,) (values of ``classes_``)."""
        return self.classes_[self.predict_proba(dissimilarities).argmax(axis=1)]

    def explain(self, dissimilarities: Sequence[np.ndarray]) -> DVSExplanation:
        """Per-instance explanation: chosen subset, competences, region, predictions.

        Parameters
        ----------
        dissimilarities : Q arrays, each (n_new, n_train)

        Returns
        -------
        DVSExplanation
            Its ``proba`` and ``prediction`` equal :meth:`predict_proba` / :meth:`predict`.
        """
        return self._evaluate(dissimilarities, explain=True)

    def proba_with_views(self, dissimilarities: Sequence[np.ndarray], views) -> np.ndarray:
        """Class probabilities (n_new, C) when every instance uses the candidate of the views it is
        given (bool (n_new, Q)): with the true informative views of synthetic data, the *oracle*
        whose accuracy is the reference for any choice of views (not a strict ceiling: where that
        candidate errs, another subset can be right).

        Raises
        ------
        ValueError
            A row's subset is empty or not in the pool (``max_subset_size``).
        """
        if isinstance(dissimilarities, (ViewRows, DenseViewRows)):
            Ds = prototype_columns(dissimilarities, self.prototypes_)
        else:
            Ds = self._check_dissimilarities(dissimilarities)
            if self.prototypes_ is not None:
                Ds = prototype_columns(Ds, self.prototypes_)
        views = np.asarray(views, dtype=bool)
        if views.shape != (Ds[0].shape[0], self.subsets_.shape[1]):
            raise ValueError(f"views must have shape {(Ds[0].shape[0], self.subsets_.shape[1])}, got {views.shape}.")
        code_of = {tuple(row): c for c, row in enumerate(self.subsets_)}
        try:
            which = np.array([code_of[tuple(row)] for row in views], dtype=np.int64)
        except KeyError as exc:
            raise ValueError(f"the view subset {np.flatnonzero(exc.args[0]).tolist()} is not a candidate of the "
                             f"pool.") from None
        proba = np.zeros((len(which), len(self.classes_)))
        for c in np.unique(which):
            rows = np.flatnonzero(which == c)
            proba[rows] = self._candidate_proba(Ds, None, c, rows)
        return proba
