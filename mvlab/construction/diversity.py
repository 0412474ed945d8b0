"""Diversity of the members of an ensemble (docs/algorithms.md B.4): disagreement (Eqs. 1-3) and
Kuncheva's pairwise and non-pairwise measures.

Prediction arrays: ``predictions`` is ``(n_classifiers, n_samples)``; a single classifier's
predictions are ``(n_samples,)``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "disagreement", "disagreement_total", "q_statistic", "kappa", "interrater_kappa", "double_fault",
    "pairwise_matrix", "diversity_report",
]


def _pair(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(
            f"two prediction vectors of the same length are needed, got shapes "
            f"{a.shape} and {b.shape}."
        )
    if a.size == 0:
        raise ValueError("prediction vectors are empty.")
    return a, b


def _oracle(a, b, y):
    a, b = _pair(a, b)
    y = np.asarray(y)
    if y.shape != a.shape:
        raise ValueError(f"y has shape {y.shape}, predictions have shape {a.shape}.")
    return a == y, b == y


def disagreement(pred_a, pred_b):
    """Eq. 2: fraction of instances on which two classifiers' labels differ.

    For binary labels this is ``(n01 + n10) / (n00 + n01 + n10 + n11)``;
    for more classes, the fraction of instances with different labels (B.4 [REC]).
    """
    a, b = _pair(pred_a, pred_b)
    return float(np.mean(a != b))


def _stack(predictions):
    P = np.asarray(predictions)
    if P.ndim != 2:
        raise ValueError("predictions must be 2-D, shape (n_classifiers, n_samples).")
    if P.shape[0] < 2:
        raise ValueError(
            "diversity needs at least two classifiers; predictions has "
            f"{P.shape[0]} row(s)."
        )
    if P.shape[1] == 0:
        raise ValueError("predictions have no samples.")
    return P


def disagreement_total(predictions):
    """DM_total (Eqs. 1/3): ``2 / (k (k - 1)) * sum_{i<j} dis(f_i, f_j)``.

    ``predictions``: (k, n) labels, k >= 2 (ValueError otherwise).
    """
    P = _stack(predictions)
    k = P.shape[0]
    total = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            total += disagreement(P[i], P[j])
    return 2.0 * total / (k * (k - 1))


def _counts(oa, ob):
    n11 = int(np.sum(oa & ob))
    n00 = int(np.sum(~oa & ~ob))
    n10 = int(np.sum(oa & ~ob))
    n01 = int(np.sum(~oa & ob))
    return n11, n10, n01, n00


def q_statistic(pred_a, pred_b, y):
    """Yule's Q of the oracle outputs: ``(N11 N00 - N01 N10) / (N11 N00 + N01 N10)``.

    N11 = both correct, N00 = both wrong, N10 / N01 = only a / only b correct.
    In [-1, 1]; ``nan`` when the denominator is 0 (e.g. one classifier never errs).
    """
    n11, n10, n01, n00 = _counts(*_oracle(pred_a, pred_b, y))
    den = n11 * n00 + n01 * n10
    return float("nan") if den == 0 else (n11 * n00 - n01 * n10) / den


def double_fault(pred_a, pred_b, y):
    """Double fault: fraction of instances that both classifiers misclassify (N00 / N)."""
    oa, ob = _oracle(pred_a, pred_b, y)
    return float(np.mean(~oa & ~ob))


def kappa(pred_a, pred_b):
    """Pairwise Cohen kappa between two label vectors (agreement beyond chance).

    ``kappa = (p_o - p_e) / (1 - p_e)``, ``p_o`` the observed agreement, ``p_e`` the
    agreement expected from the two label distributions. 1 = identical labels,
    0 = chance agreement; lower means more diverse. ``nan`` when ``p_e = 1``
    (both classifiers always output the same single label).
    """
    a, b = _pair(pred_a, pred_b)
    labels, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    n = a.size
    po = float(np.mean(a == b))
    # each label's share of a and of b: count / n, the very float np.mean(a == c) gives (a sum of ones, exact, then
    # one division); their products summed in label order, as a sum over the labels writes it
    share_a = np.bincount(codes[:n], minlength=labels.size) / n
    share_b = np.bincount(codes[n:], minlength=labels.size) / n
    pe = float(sum((share_a * share_b).tolist()))
    return float("nan") if pe == 1.0 else (po - pe) / (1.0 - pe)


def interrater_kappa(predictions, y):
    """Interrater agreement kappa of an ensemble (Kuncheva & Whitaker 2003), oracle outputs.

    ``kappa = 1 - (1/L) sum_j l_j (L - l_j) / (N (L - 1) p (1 - p))`` with ``l_j`` the
    number of the L classifiers correct on instance j and ``p`` their mean
    accuracy. ``predictions`` (L, N), ``y`` (N,). ``nan`` when ``p`` is 0 or 1.
    """
    P = _stack(predictions)
    y = np.asarray(y)
    if y.shape != (P.shape[1],):
        raise ValueError(f"y has shape {y.shape}, predictions have {P.shape[1]} samples.")
    L, N = P.shape
    correct = P == y[None, :]
    n_correct = correct.sum(axis=0)  # l(x_j) of the formula: members right on instance j
    p = correct.mean()
    if p in (0.0, 1.0):
        return float("nan")
    return float(1.0 - (np.sum(n_correct * (L - n_correct)) / L) / (N * (L - 1) * p * (1 - p)))


_PAIRWISE = {
    "disagreement": (disagreement, False),
    "kappa": (kappa, False),
    "q_statistic": (q_statistic, True),
    "double_fault": (double_fault, True),
}


def _pair_measure(measure, y):
    """The pairwise ``measure`` as a function of two label vectors (the oracle measures read ``y``)."""
    fn, needs_y = _PAIRWISE[measure]
    return (lambda a, b: fn(a, b, y)) if needs_y else fn


def pairwise_matrix(predictions, measure="disagreement", y=None):
    """Symmetric (k, k) matrix of a pairwise measure between the members.

    ``measure`` in {"disagreement", "kappa", "q_statistic", "double_fault"}; the
    last two need the true labels ``y`` (N,). The diagonal holds the measure of a
    classifier with itself. Average the upper triangle for an ensemble value.
    """
    if measure not in _PAIRWISE:
        raise ValueError(f"measure={measure!r}; use one of {sorted(_PAIRWISE)}.")
    P = _stack(predictions)
    if _PAIRWISE[measure][1] and y is None:
        raise ValueError(f"measure={measure!r} compares oracle outputs and needs y.")
    fn = _pair_measure(measure, y)
    k = P.shape[0]
    M = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            M[i, j] = M[j, i] = fn(P[i], P[j])
    return M


def diversity_report(predictions, y=None):
    """All diversity measures of an ensemble in one dict (for tables and box plots).

    ``predictions`` (k, n) member labels; ``y`` (n,) true labels or None. Keys:
    ``"disagreement"`` (DM_total, Eqs. 1/3), ``"kappa"`` (mean pairwise Cohen kappa),
    and with ``y`` also ``"q_statistic"``, ``"double_fault"`` (means over pairs, nan
    pairs ignored) and ``"interrater_kappa"``. With a single member (k = 1) every
    value is ``nan`` (diversity is undefined), unlike :func:`disagreement_total`,
    which raises, so a sweep over k = 1..10 can tabulate it directly.
    """
    P = np.asarray(predictions)
    if P.ndim != 2 or P.shape[1] == 0 or P.shape[0] == 0:
        raise ValueError("predictions must be 2-D, shape (n_classifiers, n_samples).")
    keys = ["disagreement", "kappa"] + (
        [] if y is None else ["q_statistic", "double_fault", "interrater_kappa"])
    if P.shape[0] < 2:
        return {key: float("nan") for key in keys}
    pairs = list(zip(*np.triu_indices(P.shape[0], 1)))  # i < j: the upper triangle of pairwise_matrix

    def mean_pairs(measure):
        fn = _pair_measure(measure, y)
        vals = np.array([fn(P[i], P[j]) for i, j in pairs])
        vals = vals[~np.isnan(vals)]
        return float(vals.mean()) if vals.size else float("nan")

    out = {"disagreement": disagreement_total(P), "kappa": mean_pairs("kappa")}
    if y is not None:
        out["q_statistic"] = mean_pairs("q_statistic")
        out["double_fault"] = mean_pairs("double_fault")
        out["interrater_kappa"] = interrater_kappa(P, y)
    return out
