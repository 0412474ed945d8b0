"""Prototype dissimilarity spaces: the final forests see the dissimilarities to m training rows.

The dissimilarity representation of docs/algorithms.md §A.6 gives every instance one column per
training row, an ``(n, n)`` matrix.  Pękalska, Duin & Paclík (2006) showed that a *representation
set* of a few per cent of the training objects, drawn at random or by k-centres, classifies about
as well; with it the final forests of :class:`mvlab.rfd.classifier.RFDClassifier` grow on
``(n, m)`` matrices (``D_q[:, prototypes]``, the same prototypes in every view, so the joint
matrix ``sum_q w_q D_q`` keeps its meaning column by column) and the test rows need only their
``m`` columns.  Neighbourhoods (SWknn, DVS regions of competence) stay exact over all training
rows (:mod:`mvlab.rfd.view_rows`).

:func:`resolve_prototypes` turns the ``prototypes`` parameter into a count (or None: the exact
space) and :func:`choose_prototypes` draws them.
"""

from __future__ import annotations

import numbers
from typing import Optional

import numpy as np
from sklearn.utils import check_random_state

from mvlab.core.sparse_rows import combine_sparse
from mvlab.forest.dissimilarity import DENSE_MAX_ROWS
from mvlab.i18n import N_, Message

__all__ = ["PROTOTYPE_SELECTIONS", "PROTOTYPE_THRESHOLD", "DEFAULT_N_PROTOTYPES", "resolve_prototypes",
           "choose_prototypes", "describe_prototypes"]

PROTOTYPE_SELECTIONS = ("stratified", "random", "kcentres")
"""``"stratified"``: at random within each class, in proportion to the class sizes (at least one per
class); ``"random"``: at random among all training rows; ``"kcentres"``: per class (same counts
as stratified), greedy farthest-first in the all-views average dissimilarity from a random
first centre (Gonzalez's 2-approximation of the k-centres problem), ties at random."""

PROTOTYPE_THRESHOLD = DENSE_MAX_ROWS
"""With ``prototypes="auto"``, the exact space (every training row) up to this many training rows,
:data:`DEFAULT_N_PROTOTYPES` prototypes above it."""

DEFAULT_N_PROTOTYPES = 1000
"""Prototypes of ``prototypes="auto"`` above :data:`PROTOTYPE_THRESHOLD` training rows (1 % of
100,000 rows; the accuracy test at 5,000 rows is in ``tests/test_prototypes.py``)."""


def resolve_prototypes(prototypes, n_train: int) -> Optional[int]:
    """The number of prototypes ``m`` for the ``prototypes`` parameter, or None for the exact space.

    Parameters
    ----------
    prototypes : "auto", "all", int >= 1 or float in (0, 1]
        ``"all"``: the exact space (the dense ``(n_train, n_train)`` matrices);
        ``"auto"``: ``"all"`` up to :data:`PROTOTYPE_THRESHOLD` training rows, else
        :data:`DEFAULT_N_PROTOTYPES`; an int: that many (at most ``n_train``); a float: that
        fraction of the training rows (at least 1).  A count reaching ``n_train`` still takes
        the prototype path (every row a prototype, computed in blocks: the same numbers as
        ``"all"``).
    n_train : int
    """
    if isinstance(prototypes, str):
        if prototypes == "all":
            return None
        if prototypes == "auto":
            return None if n_train <= PROTOTYPE_THRESHOLD else min(DEFAULT_N_PROTOTYPES, n_train)
        raise ValueError(f"prototypes must be 'auto', 'all', a count or a fraction, got {prototypes!r}.")
    if isinstance(prototypes, numbers.Integral) and not isinstance(prototypes, bool):
        if prototypes < 1:
            raise ValueError(f"prototypes={prototypes} must be at least 1.")
        return int(min(prototypes, n_train))
    if isinstance(prototypes, numbers.Real) and not isinstance(prototypes, bool):
        if not 0.0 < prototypes <= 1.0:
            raise ValueError(f"a fraction of prototypes must lie in (0, 1], got {prototypes}.")
        return int(max(1, min(n_train, round(prototypes * n_train))))
    raise ValueError(f"prototypes must be 'auto', 'all', a count or a fraction, got {prototypes!r}.")


def _class_counts(y: np.ndarray, m: int) -> np.ndarray:
    """Prototypes per class: proportional to the class sizes (largest remainders), at least one per
    class when ``m`` allows, never more than the class has."""
    sizes = np.bincount(y)
    C = sizes.size
    if m >= sizes.sum():
        return sizes.copy()
    base = np.minimum(sizes, 1) if m >= np.count_nonzero(sizes) else np.zeros(C, dtype=np.int64)
    rest = m - base.sum()
    share = rest * (sizes - base) / max((sizes - base).sum(), 1)
    counts = base + np.floor(share).astype(np.int64)
    order = np.argsort(-(share - np.floor(share)), kind="stable")
    for c in order[: m - counts.sum()]:
        counts[c] += 1
    return np.minimum(counts, sizes)


def choose_prototypes(view_forests, m: int, selection: str = "stratified", random_state=None) -> np.ndarray:
    """Draw ``m`` prototypes among the training rows of ``view_forests``.

    Parameters
    ----------
    view_forests : mvlab.rfd.view_forests.ViewForests
    m : int, ``1 <= m <= n_train``
    selection : one of :data:`PROTOTYPE_SELECTIONS`
    random_state : int, RandomState or None

    Returns
    -------
    ndarray of int64 (m,), ascending training row indices
    """
    if selection not in PROTOTYPE_SELECTIONS:
        raise ValueError(f"prototype_selection must be one of {PROTOTYPE_SELECTIONS}, got {selection!r}.")
    y = np.asarray(view_forests.y, dtype=np.int64)
    n = y.shape[0]
    if not 1 <= m <= n:
        raise ValueError(f"{m} prototypes: the count must lie in [1, {n}] (the training rows).")
    rng = check_random_state(random_state)
    if m == n:
        return np.arange(n, dtype=np.int64)
    if selection == "random":
        return np.sort(rng.choice(n, size=m, replace=False)).astype(np.int64)
    counts = _class_counts(y, m)
    chosen = []
    for c, mc in enumerate(counts):
        members = np.flatnonzero(y == c)
        if mc == 0:
            continue
        if selection == "stratified" or mc == members.size:
            chosen.append(rng.choice(members, size=mc, replace=False))
        else:
            chosen.append(_k_centres(view_forests, members, int(mc), rng))
    return np.sort(np.concatenate(chosen)).astype(np.int64)


def _k_centres(view_forests, members: np.ndarray, m: int, rng) -> np.ndarray:
    """Greedy farthest-first centres among ``members`` in the all-views average dissimilarity."""
    Q = view_forests.n_views
    weights = np.full(Q, 1.0 / Q)
    perm = rng.permutation(members.size)  # random order for the ties (most distances are 1)
    nearest = np.full(members.size, np.inf)
    centres = [int(perm[0])]
    for _ in range(m - 1):
        i = int(members[centres[-1]])
        rows = [f.sparse_rows(rows=np.array([i])) for f in view_forests.forests]
        d = combine_sparse(rows, weights).take_columns(members)[0]
        np.minimum(nearest, d, out=nearest)
        nearest[centres[-1]] = -1.0  # a centre is never chosen again
        centres.append(int(perm[np.argmax(nearest[perm])]))
    return members[np.array(centres)]


def describe_prototypes(prototypes_: Optional[np.ndarray], n_train: int, selection: str, reason: str) -> str:
    """The human sentence of ``RFDClassifier.prototype_note_``: a :class:`mvlab.i18n.Message` (its English, said in
    the reader's language where it is shown; ``reason`` may be one too)."""
    if prototypes_ is None:
        return Message(N_("Exact dissimilarity space: the final forest sees the dissimilarities to all {rows} training "
                          "rows."), rows=int(n_train))
    m = prototypes_.size
    return Message(N_("Prototype dissimilarity space: the final forest(s) see the dissimilarities to {prototypes} of "
                      "the {rows} training rows ({share} %, chosen {selection}) {reason}; neighbourhoods (SWknn, DVS "
                      "regions) are still exact over all training rows."),
                   prototypes=int(m), rows=int(n_train), share=f"{100 * m / n_train:.1f}", selection=selection,
                   reason=reason)
