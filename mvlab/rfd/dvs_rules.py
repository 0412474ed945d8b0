"""The rules of Dynamic View Selection as tables (docs/algorithms.md §A.8 lines 10-12).

A fitted DVS pool (:class:`mvlab.rfd.dvs.DVSCombiner`) turns into one choice per instance by
rules that cost nothing to change: how competent a candidate is on its region (line 11), how
much each neighbour counts, in which order equally competent candidates are preferred, and
which candidates then vote (line 12).  Each family is a table from a name to a small object
or function, as :data:`mvlab.forest.measures.MEASURES` is for the dissimilarity measures, so a
new rule is one entry here and one test; the combiner's parameters (``competence="soft"``,
...) are the table's keys and are validated against them.

Competence rules read the pool's out-of-bag evidence for the k neighbours of every instance
and every candidate, gathered as one (P, n, k) index array (``regions``), and return the
competence (P, n): never a loop over instances.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from mvlab.core.neighbours import k_smallest_indices
from mvlab.rfd.competence_regions import candidate_regions
from mvlab.rfd.view_forests import combine
from mvlab.rfd.view_rows import subset_combo

__all__ = [
    "RegionRule",
    "OwnSpaceRegion",
    "SharedRegion",
    "REGION_RULES",
    "PoolEvidence",
    "CompetenceRule",
    "OverallLocalAccuracy",
    "LocalClassAccuracy",
    "SoftLocalAccuracy",
    "COMPETENCE_RULES",
    "COMPETENCES",
    "NEIGHBOUR_WEIGHT_RULES",
    "NEIGHBOUR_WEIGHTS",
    "TIE_BREAK_ORDERS",
    "TIE_BREAKS",
    "SELECTIONS",
    "REGIONS",
    "PAPER_RULES",
    "selection_priority",
    "select_candidates",
]


class PoolEvidence:
    """What a competence rule may read about a fitted pool of P candidates on n_train rows.

    Parameters
    ----------
    oob_hits : ndarray of bool (n_train, P)
        ``I(c_w^OOB(x_i) == y_i)`` (§A.8 line 11); rows never out-of-bag are False.
    oob_true_proba : ndarray of float64 (n_train, P)
        Out-of-bag probability of each row's true class (0 for a row never out-of-bag).
    y : ndarray of int64 (n_train,)
        Encoded training labels.
    """

    def __init__(self, oob_hits: np.ndarray, oob_true_proba: np.ndarray, y: np.ndarray):
        self.oob_hits, self.oob_true_proba, self.y = oob_hits, oob_true_proba, y

    def gather(self, per_row: np.ndarray, regions: np.ndarray) -> np.ndarray:
        """``per_row`` (n_train, P) read at every candidate's neighbours: (P, n, k)."""
        cand = np.arange(regions.shape[0])[:, None, None]
        return per_row.T[cand, regions]


def _weighted_mean(evidence: np.ndarray, weights: Optional[np.ndarray]) -> np.ndarray:
    """Mean of ``evidence`` (P, n, k) over the neighbours, weighted by ``weights`` (P, n, k) if given
    (the plain mean where a region's weights sum to 0)."""
    if weights is None:
        return evidence.mean(axis=2)
    total = weights.sum(axis=2)
    num = np.einsum("pnk,pnk->pn", weights, evidence.astype(np.float64))
    return np.where(total > 0, num / np.where(total > 0, total, 1.0), evidence.mean(axis=2))


class CompetenceRule:
    """A competence of §A.8 line 11: ``rule(pool, regions, predictions, weights) -> (P, n)``.

    ``regions`` (P, n, k): training indices of every candidate's region for every instance;
    ``predictions`` (P, n): the candidates' predicted class indices for the instances, given only
    when :attr:`needs_predictions`; ``weights`` (P, n, k) or None: the neighbours' weights
    (:data:`NEIGHBOUR_WEIGHT_RULES`), ignored by a rule whose :attr:`uses_neighbour_weights` is False.
    """

    name = ""
    title = ""
    needs_predictions = False
    uses_neighbour_weights = True

    def __call__(self, pool: PoolEvidence, regions: np.ndarray, predictions: Optional[np.ndarray] = None,
                 weights: Optional[np.ndarray] = None) -> np.ndarray:
        """Competence of every candidate for every instance.

        Parameters
        ----------
        pool : PoolEvidence
            The pool's out-of-bag evidence on its n_train training rows.
        regions : int ndarray of shape (P, n, k)
            Training indices of every candidate's region for every instance.
        predictions : ndarray of shape (P, n), optional
            The candidates' predicted class indices (given when :attr:`needs_predictions`).
        weights : ndarray of shape (P, n, k), optional
            The neighbours' weights; None counts every neighbour once.

        Returns
        -------
        ndarray of float64 of shape (P, n)
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class OverallLocalAccuracy(CompetenceRule):
    """OLA, the paper's rule: the candidate's OOB accuracy over the k neighbours."""

    name, title = "ola", "OLA: OOB accuracy on the region (the paper)"

    def __call__(self, pool, regions, predictions=None, weights=None):
        """OOB accuracy of each candidate on each instance's region, shape (P, n): the share of the k neighbours
        it predicts right (the ``weights``-weighted mean when given)."""
        hits = pool.gather(pool.oob_hits, regions)
        if weights is None:  # a count, exact in integers
            return np.count_nonzero(hits, axis=2) / regions.shape[2]
        return _weighted_mean(hits, weights)


class LocalClassAccuracy(CompetenceRule):
    """LCA (Woods et al. 1997): OOB accuracy over the neighbours whose label is the candidate's
    prediction for the instance; 0 when no neighbour has that label (no local evidence)."""

    name, title = "lca", "LCA: OOB accuracy on the neighbours of the predicted class"
    needs_predictions, uses_neighbour_weights = True, False

    def __call__(self, pool, regions, predictions=None, weights=None):
        """OOB accuracy of each candidate over the neighbours labelled with its prediction, shape (P, n), 0 where
        no neighbour is; ``predictions`` (P, n) is required and ``weights`` ignored."""
        if predictions is None:
            raise ValueError("the LCA competence needs the candidates' predictions for the instances.")
        hits = pool.gather(pool.oob_hits, regions)
        same = pool.y[regions] == predictions[:, :, None]
        den = np.count_nonzero(same, axis=2)
        num = np.count_nonzero(same & hits, axis=2)
        return np.divide(num, den, out=np.zeros(num.shape, dtype=np.float64), where=den > 0)


class SoftLocalAccuracy(CompetenceRule):
    """Soft OLA: the mean OOB probability of each neighbour's true class, a graded OLA under
    which exact ties between candidates are rare."""

    name, title = "soft", "Soft: OOB probability of the true class on the region"

    def __call__(self, pool, regions, predictions=None, weights=None):
        """Mean OOB probability of the neighbours' true classes for each candidate, shape (P, n) (the
        ``weights``-weighted mean when given)."""
        return _weighted_mean(pool.gather(pool.oob_true_proba, regions), weights)


COMPETENCE_RULES: dict[str, CompetenceRule] = {
    rule.name: rule for rule in (OverallLocalAccuracy(), LocalClassAccuracy(), SoftLocalAccuracy())
}
"""Competence rules by name (``DVSCombiner(competence=...)``)."""
COMPETENCES = tuple(COMPETENCE_RULES)


NEIGHBOUR_WEIGHT_RULES: dict[str, Callable[[np.ndarray], Optional[np.ndarray]]] = {
    "uniform": lambda region_d: None,
    "similarity": lambda region_d: 1.0 - np.asarray(region_d, dtype=np.float64),
}
"""How much each neighbour counts, from its joint dissimilarity ``d`` to the instance (P, n, k):
equally, or ``1 - d`` (closer neighbours count more)."""
NEIGHBOUR_WEIGHTS = tuple(NEIGHBOUR_WEIGHT_RULES)


TIE_BREAK_ORDERS: dict[str, Callable[[np.ndarray, np.ndarray], tuple]] = {
    "oob": lambda acc, sizes: (-sizes, -acc),  # highest global OOB accuracy, then more views (§A.8 [REC])
    "fewest": lambda acc, sizes: (-acc, sizes),  # parsimony: fewest views, then highest OOB accuracy
}
"""Tie-break orders: the keys of ``np.lexsort`` (its last key is the primary one), before the index."""
TIE_BREAKS = tuple(TIE_BREAK_ORDERS)

class RegionRule:
    """Where a candidate's region of competence is searched (§A.8 line 10), for P candidates (bool subsets
    (P, Q)), in either of the two ways regions are found:

    * ``combos(subsets)``: the joint spaces whose k nearest rows a block scan of the training rows searches
      (:meth:`mvlab.rfd.view_rows.ViewRows.scan`), and ``spread(idx, dist, P)``: from the scan's regions and
      dissimilarities (one per searched space) to every candidate's, (P, n, k) each;
    * ``exact(Ds, subsets, k, n_jobs, with_dissimilarities, exclude_self)``: the regions (P, n, k) and, if
      asked, their dissimilarities, in the Q (n, n_train) view matrices ``Ds``; with ``exclude_self`` the rows
      are the training rows (square ``Ds``) and none is in its own region (the leave-one-out replay).
    """

    name = ""
    title = ""

    def combos(self, subsets: np.ndarray) -> list:
        """The joint spaces a block scan searches, as :func:`mvlab.rfd.view_rows.subset_combo` pairs."""
        raise NotImplementedError

    def spread(self, idx: np.ndarray, dist: np.ndarray, P: int) -> tuple[np.ndarray, np.ndarray]:
        """Every candidate's regions and dissimilarities (P, n, k) from the scan's (one per searched space)."""
        raise NotImplementedError

    def exact(self, Ds, subsets: np.ndarray, k: int, n_jobs=None, with_dissimilarities: bool = False,
              exclude_self: bool = False):
        """Regions (P, n, k) and their dissimilarities (or None) in the Q (n, n_train) matrices ``Ds``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class OwnSpaceRegion(RegionRule):
    """The paper's rule: each candidate's region in its own joint space (the average of its views' rows)."""

    name, title = "candidate", "each candidate's own space (the paper)"

    def combos(self, subsets):
        """One space per candidate: its views' average."""
        return [subset_combo(m) for m in subsets]

    def spread(self, idx, dist, P):
        """The scan's regions are the candidates' already."""
        return idx, dist

    def exact(self, Ds, subsets, k, n_jobs=None, with_dissimilarities=False, exclude_self=False):
        """Each candidate's k nearest in its own joint matrix."""
        # shared partial sums, bounded searches, threads; identical to k_smallest_indices of every joint matrix
        return candidate_regions(Ds, subsets, k, n_jobs=n_jobs, with_dissimilarities=with_dissimilarities,
                                 exclude_self=exclude_self)


class SharedRegion(RegionRule):
    """One region for every candidate: the k nearest in the all-views average (the usual practice of dynamic
    selection, DESlib's DSEL neighbourhood)."""

    name, title = "shared", "one region in the all-views average"

    def combos(self, subsets):
        """One space: the all-views average."""
        return [subset_combo(np.ones(subsets.shape[1], dtype=bool))]

    def spread(self, idx, dist, P):
        """The one region, for every candidate (a broadcast view, no copy)."""
        return np.broadcast_to(idx[0], (P,) + idx.shape[1:]), np.broadcast_to(dist[0], (P,) + idx.shape[1:])

    def exact(self, Ds, subsets, k, n_jobs=None, with_dissimilarities=False, exclude_self=False):
        """The k nearest in the all-views average, for every candidate."""
        joint = combine(Ds, np.full(len(Ds), 1.0 / len(Ds)))
        shared = k_smallest_indices(joint, k, exclude_diagonal=exclude_self)
        P = subsets.shape[0]
        regions = np.broadcast_to(shared, (P,) + shared.shape)
        region_d = (np.broadcast_to(np.take_along_axis(joint, shared, axis=1), regions.shape)
                    if with_dissimilarities else None)
        return regions, region_d


REGION_RULES: dict[str, RegionRule] = {rule.name: rule for rule in (OwnSpaceRegion(), SharedRegion())}
"""Region rules by name (``DVSCombiner(region=...)``)."""
REGIONS = tuple(REGION_RULES)
SELECTIONS = ("best", "knora", "knora-u")
PAPER_RULES = {"competence": "ola", "region": "candidate", "tie_break": "oob", "selection": "best",
               "neighbour_weights": "uniform"}
"""The rules of the paper (Algorithm 2 with the reconstructions of docs/algorithms.md §A.8)."""


def selection_priority(oob_accuracies, subset_sizes, tie_break: str = "oob") -> np.ndarray:
    """Static tie-break rank of the candidates (§A.8 line 12), 0 = preferred.

    ``tie_break="oob"`` (§A.8 [REC], the default): highest global OOB accuracy, then most
    views, then lowest enumeration index.  ``"fewest"`` (parsimony): fewest views, then highest
    global OOB accuracy, then lowest index (:data:`TIE_BREAK_ORDERS`).

    Parameters
    ----------
    oob_accuracies : array-like (P,)
    subset_sizes : array-like of int (P,)
    tie_break : {"oob", "fewest"}

    Returns
    -------
    ndarray of int64 (P,), a permutation of ``0..P-1``
    """
    if tie_break not in TIE_BREAK_ORDERS:
        raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}.")
    acc = np.asarray(oob_accuracies, dtype=np.float64)
    sizes = np.asarray(subset_sizes, dtype=np.int64)
    P = acc.shape[0]
    order = np.lexsort((np.arange(P),) + TIE_BREAK_ORDERS[tie_break](acc, sizes))
    priority = np.empty(P, dtype=np.int64)
    priority[order] = np.arange(P)
    return priority


def select_candidates(competence, priority, selection: str = "best") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Selection of §A.8 line 12 for many instances at once.

    Parameters
    ----------
    competence : ndarray (n, P)
    priority : ndarray of int (P,)
        From :func:`selection_priority`.
    selection : {"best", "knora", "knora-u"}

    Returns
    -------
    chosen : ndarray of int64 (n,)
        Among the candidates of maximal competence (exact equality), the one of lowest
        ``priority`` (for every selection: the candidate an explanation shows first).
    members : ndarray of bool (n, P)
        The candidates that vote: ``chosen`` alone for ``"best"``; every maximally competent
        candidate for ``"knora"``; every candidate with a competence above 0 for
        ``"knora-u"`` (``chosen`` when all are 0).
    vote_weights : ndarray of float64 (n, P)
        Each member's share of the vote (rows sum to 1): equal for ``"best"`` / ``"knora"``,
        proportional to the competence for ``"knora-u"`` (KNORA-Union, Ko et al. 2008).
    """
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {SELECTIONS}, got {selection!r}.")
    comp = np.asarray(competence, dtype=np.float64)
    priority = np.asarray(priority, dtype=np.int64)
    n, P = comp.shape
    tied = comp == comp.max(axis=1, keepdims=True)
    chosen = np.where(tied, priority[None, :], P).argmin(axis=1).astype(np.int64)
    if selection == "knora":
        members = tied
        weights = members.astype(np.float64)
    elif selection == "knora-u":
        weights = np.clip(comp, 0.0, None)
        none = weights.sum(axis=1) <= 0
        weights[none, chosen[none]] = 1.0
        members = weights > 0
    else:
        members = np.zeros_like(tied)
        members[np.arange(n), chosen] = True
        weights = members.astype(np.float64)
    return chosen, members, weights / weights.sum(axis=1, keepdims=True)
