"""Static view weights of the joint dissimilarity ``D = sum_q w_q D_q`` (docs/algorithms.md §A.7).

:func:`swknn_weights` (leave-one-out kNN accuracy on each ``D_q``, §A.7.1),
:func:`alignment_weights` (kernel-target alignment of ``K_q = 1 - D_q``, §A.7.2),
:func:`oob_weights` (normalised out-of-bag accuracies of the view forests, §A.7.3) and
:func:`static_view_weights`, which picks one by name (``"average"`` gives uniform weights).
Every weight vector has shape (Q,), is non-negative and sums to 1.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mvlab.core.neighbours import k_smallest_mask
from mvlab.rfd.view_forests import ViewForests

__all__ = [
    "STATIC_COMBINATIONS",
    "ALIGNMENT_NORMALIZATIONS",
    "knn_loo_accuracy",
    "knn_accuracy_from_neighbours",
    "swknn_weights_from_neighbours",
    "alignment_weights_from_rows",
    "swknn_weights",
    "kernel_alignment",
    "alignment_weights",
    "oob_weights",
    "static_view_weights",
]

STATIC_COMBINATIONS = ("average", "knn", "alignment", "oob")


ALIGNMENT_NORMALIZATIONS = ("softmax", "proportional")


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


def knn_accuracy_from_neighbours(neighbours: np.ndarray, y: np.ndarray) -> float:
    """kNN accuracy from the neighbours of every row (n, k): majority vote of their labels, vote
    ties to the lowest class index; equals :func:`knn_loo_accuracy` when ``neighbours`` are the
    leave-one-out ``k_smallest_indices`` of ``D`` (the blocked path of SWknn, §A.7.1)."""
    y = np.asarray(y)
    n, C = len(y), int(y.max()) + 1
    votes = np.zeros((n, C), dtype=np.int64)
    np.add.at(votes, (np.repeat(np.arange(n), neighbours.shape[1]), y[neighbours].ravel()), 1)
    return float(np.mean(votes.argmax(axis=1) == y))


def swknn_weights_from_neighbours(neighbours, y: np.ndarray) -> np.ndarray:
    """SWknn (§A.7.1) from each view's leave-one-out neighbours (Q arrays (n, k)), as :func:`swknn_weights`."""
    return _normalize([knn_accuracy_from_neighbours(nb, y) for nb in neighbours])


def alignment_weights_from_rows(rows, y: np.ndarray, normalization: str = "softmax") -> np.ndarray:
    """:func:`alignment_weights` from the training rows in blocks (:class:`mvlab.rfd.view_rows.ViewRows`),
    never an (n, n) kernel: ``K = 1 - D`` is 0 outside the stored entries (background 1).  The same
    sums as the dense path, added in another order (equal to rounding)."""
    if normalization not in ALIGNMENT_NORMALIZATIONS:
        raise ValueError(f"normalization must be one of {ALIGNMENT_NORMALIZATIONS}, got {normalization!r}.")
    y = np.asarray(y)
    parts: dict[int, np.ndarray] = {}

    def block(b, sparse) -> None:
        out = np.zeros((len(sparse), 3))
        for q, s in enumerate(sparse):
            if s.background != 1.0:
                raise ValueError("kernel alignment from blocks needs dissimilarities with background 1.")
            K = 1.0 - s.values.astype(np.float64)
            same = y[b.start + s.row_index()] == y[s.cols]
            out[q] = (K[same].sum(), K.sum(), np.dot(K, K))
        parts[b.start] = out

    rows.map_blocks(block)
    sums = sum(parts[key] for key in sorted(parts))
    A = np.array([_alignment_from_sums(same, total, kk, y) for same, total, kk in sums])
    if normalization == "softmax":
        e = np.exp(A - A.max())
        return e / e.sum()
    return _normalize(np.maximum(A, 0.0))


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
    return _alignment_from_sums(same, total, float(np.sum(K * K)), y)


def _alignment_from_sums(same: float, total: float, kk: float, y: np.ndarray) -> float:
    """``A(K, K*)`` from ``sum_{y_i = y_j} K_ij``, ``sum K_ij`` and ``sum K_ij^2`` (§A.7.2)."""
    n = len(y)
    C = int(y.max()) + 1
    c = 1.0 / (C - 1)
    kk_star = same - c * (total - same)
    n_same = float(np.sum(np.bincount(y, minlength=C).astype(np.float64) ** 2))
    star_star = n_same + c * c * (n * n - n_same)
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
    if combination == "average":
        return np.full(view_forests.n_views, 1.0 / view_forests.n_views)
    if combination == "oob":
        return oob_weights(view_forests.oob_accuracies)
    Ds, y = view_forests.dissimilarities, view_forests.y
    if combination == "knn":
        return swknn_weights(Ds, y, k)
    if combination == "alignment":
        return alignment_weights(Ds, y, alignment_normalization)
    if combination == "oob":
        return oob_weights(view_forests.oob_accuracies)
    raise ValueError(f"combination must be one of {STATIC_COMBINATIONS} here, got {combination!r}.")
