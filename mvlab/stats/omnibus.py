"""Omnibus tests that all methods perform alike: Friedman with the Iman-Davenport correction, and Friedman
aligned ranks (``docs/algorithms.md`` B.7 steps 1-4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as _st

from mvlab.stats._base import _as_score_matrix, _RanksOfMethods, _Result
from mvlab.stats.ranks import _aligned_ranks, friedman_ranks


@dataclass(frozen=True)
class FriedmanResult(_RanksOfMethods, _Result):
    """Result of :func:`friedman_test`.

    ``statistic`` is the Friedman chi-square ``chi2_F`` (df = K-1, p-value ``p_value``);
    ``iman_davenport`` the F statistic ``F_F = (N-1) chi2_F / (N(K-1) - chi2_F)`` with
    ``(K-1, (K-1)(N-1))`` degrees of freedom and p-value ``iman_davenport_p_value``.
    ``methods`` and ``average_ranks`` are aligned tuples (rank 1 = best).
    """

    statistic: float
    df: int
    p_value: float
    iman_davenport: float
    iman_davenport_df: tuple[int, int]
    iman_davenport_p_value: float
    n_blocks: int
    n_methods: int
    tie_correction: bool
    methods: tuple[str, ...]
    average_ranks: tuple[float, ...]

    def to_frame(self) -> pd.DataFrame:
        """One row per test (Friedman chi2, Iman-Davenport F): statistic, df, p_value."""
        return pd.DataFrame(
            {
                "statistic": [self.statistic, self.iman_davenport],
                "df": [str(self.df), f"{self.iman_davenport_df[0]}, {self.iman_davenport_df[1]}"],
                "p_value": [self.p_value, self.iman_davenport_p_value],
            },
            index=pd.Index(["Friedman chi2", "Iman-Davenport F"], name="test"),
        )

    def to_text(self, block_name: str = "blocks") -> str:
        """The test in one line, for people: ``Friedman over 3 datasets: chi2 = 6.000 (df = 2), p = 0.0498;
        Iman-Davenport F = inf (df = 2, 4), p = 0.0000``."""
        a, b = self.iman_davenport_df
        return (f"Friedman over {self.n_blocks} {block_name}: chi2 = {self.statistic:.3f} (df = {self.df}), "
                f"p = {self.p_value:.4f}; Iman-Davenport F = {self.iman_davenport:.3f} (df = {a}, {b}), "
                f"p = {self.iman_davenport_p_value:.4f}")


def _iman_davenport(chi2: float, n: int, k: int) -> tuple[float, float]:
    denom = n * (k - 1) - chi2
    if denom <= 1e-12 * max(1.0, n * (k - 1)):
        return float("inf"), 0.0  # every block ranks the methods identically
    f = (n - 1) * chi2 / denom
    return float(f), float(_st.f.sf(f, k - 1, (k - 1) * (n - 1)))


def friedman_test(scores, higher_is_better: bool = True, tie_correction: bool = True) -> FriedmanResult:
    """Friedman test that all methods perform alike, with the Iman-Davenport correction.

    Demšar (2006) Sec. 3.2.2 / García et al. (2010) Sec. 2.1, with R_j the average rank of
    method j (rank 1 = best inside each block) over N blocks and K methods::

        chi2_F = 12 N / (K (K+1)) * [ sum_j R_j^2 - K (K+1)^2 / 4 ]     df = K - 1
        F_F    = (N-1) chi2_F / (N (K-1) - chi2_F)                      df = (K-1, (K-1)(N-1))

    With ``tie_correction=True`` (default, as ``scipy.stats.friedmanchisquare``) chi2_F is
    divided by ``1 - sum(t^3 - t) / (N K (K^2 - 1))``, t running over the sizes of the groups of
    tied scores inside each block; without ties both choices give the same number. If every
    block ranks the methods identically, F_F is infinite and its p-value 0.

    Parameters
    ----------
    scores : array-like or DataFrame, shape (n_blocks, n_methods), n_blocks >= 2, n_methods >= 2
    higher_is_better : bool, default True
    tie_correction : bool, default True

    Returns
    -------
    FriedmanResult
    """
    x, methods, _ = _as_score_matrix(scores)
    n, k = x.shape
    r = friedman_ranks(x, higher_is_better)
    rbar = r.mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(rbar**2) - k * (k + 1) ** 2 / 4.0)
    if tie_correction:
        t_sum = 0.0
        for row in x:
            _, counts = np.unique(row, return_counts=True)
            t_sum += float(np.sum(counts.astype(float) ** 3 - counts))
        c = 1.0 - t_sum / (n * k * (k * k - 1))
        if c <= 0:  # every block is one big tie: no information at all
            chi2 = 0.0
        else:
            chi2 = chi2 / c
    chi2 = float(max(chi2, 0.0))
    p = float(_st.chi2.sf(chi2, k - 1))
    f, pf = _iman_davenport(chi2, n, k)
    return FriedmanResult(
        statistic=chi2,
        df=k - 1,
        p_value=p,
        iman_davenport=f,
        iman_davenport_df=(k - 1, (k - 1) * (n - 1)),
        iman_davenport_p_value=pf,
        n_blocks=n,
        n_methods=k,
        tie_correction=bool(tie_correction),
        methods=methods,
        average_ranks=tuple(float(v) for v in rbar),
    )


@dataclass(frozen=True)
class FriedmanAlignedResult(_RanksOfMethods, _Result):
    """Result of :func:`friedman_aligned_ranks_test` (``docs/algorithms.md`` B.7 steps 1-4).

    ``rank_totals`` are R_j (sum over blocks of the aligned ranks of method j),
    ``average_ranks`` are R_j / n_blocks, ``block_totals`` are the per-block sums Rb_b;
    ``statistic`` is T (chi-square with df = K-1 under H0), ``p_value = 1 - chi2_cdf(T, K-1)``.
    """

    statistic: float
    df: int
    p_value: float
    n_blocks: int
    n_methods: int
    methods: tuple[str, ...]
    rank_totals: tuple[float, ...]
    average_ranks: tuple[float, ...]
    block_totals: tuple[float, ...]

    _rank_name = "average_aligned_rank"

    def to_frame(self) -> pd.DataFrame:
        """One row per method: total and average aligned rank."""
        return pd.DataFrame(
            {"rank_total": self.rank_totals, "average_aligned_rank": self.average_ranks},
            index=pd.Index(self.methods, name="method"),
        )

    def to_text(self, block_name: str = "blocks") -> str:
        """The test in one line, for people: ``Friedman aligned ranks over 10 values of k: T = 12.345 (df = 5),
        p = 0.0304``."""
        return (f"Friedman aligned ranks over {self.n_blocks} {block_name}: T = {self.statistic:.3f} "
                f"(df = {self.df}), p = {self.p_value:.4f}")


def friedman_aligned_ranks_test(scores, higher_is_better: bool = True) -> FriedmanAlignedResult:
    """Friedman aligned ranks test (Hodges & Lehmann 1962), exactly ``docs/algorithms.md`` B.7 steps 1-4.

    García et al. (2010), Sec. 2.2. For x of shape (n_b, K)::

        1. a[b, j] = x[b, j] - mean_j x[b, j]                     (align each block)
        2. rank all n_b*K aligned values jointly, 1 = best (largest when higher is better),
           ties -> average ranks -> r[b, j]
        3. R_j = sum_b r[b, j],  Rb_b = sum_j r[b, j]
        4. T = (K-1) [ sum_j R_j^2 - (K n_b^2 / 4)(K n_b + 1)^2 ]
               / ( K n_b (K n_b + 1)(2 K n_b + 1) / 6 - (1/K) sum_b Rb_b^2 )
           p = 1 - chi2_cdf(T, df = K-1)

    Aligned values that differ by less than 1e-9 (relative) are treated as ties, so that
    floating-point noise from step 1 does not break ties that hold exactly. If the denominator
    is 0 (every block constant), T = 0 and p = 1.

    Parameters
    ----------
    scores : array-like or DataFrame, shape (n_blocks, n_methods), n_blocks >= 2, n_methods >= 2
    higher_is_better : bool, default True

    Returns
    -------
    FriedmanAlignedResult
    """
    x, methods, _ = _as_score_matrix(scores)
    n, k = x.shape
    r = _aligned_ranks(x, higher_is_better)
    R = r.sum(axis=0)  # step 3
    Rb = r.sum(axis=1)
    kn = k * n
    num = (k - 1) * (np.sum(R**2) - (k * n**2 / 4.0) * (kn + 1) ** 2)  # step 4
    den = kn * (kn + 1) * (2 * kn + 1) / 6.0 - np.sum(Rb**2) / k
    if den <= 1e-12 * kn**3:
        T = 0.0
    else:
        T = float(max(num / den, 0.0))
    return FriedmanAlignedResult(
        statistic=T,
        df=k - 1,
        p_value=float(_st.chi2.sf(T, k - 1)),
        n_blocks=n,
        n_methods=k,
        methods=methods,
        rank_totals=tuple(float(v) for v in R),
        average_ranks=tuple(float(v) for v in R / n),
        block_totals=tuple(float(v) for v in Rb),
    )
