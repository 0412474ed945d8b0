"""Two methods over N data sets: the sign test (Demšar 2006 Sec. 3.1.3, ``docs/algorithms.md`` A.9) and the
paired t-test (``docs/algorithms.md`` C.8 Table 9).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats as _st

from mvlab.stats._base import _check_alpha, _paired_vectors, _Result


def sign_test_critical_value(n: int, alpha: float = 0.05) -> float:
    """Demšar's critical number of wins (normal approximation), ``N/2 + z_{1-alpha/2} * sqrt(N)/2``.

    A method is significantly better (two-sided test at level ``alpha``) when its wins plus half
    its ties reach this value (:func:`sign_test`). ``docs/algorithms.md`` A.9: for N = 15 the value
    is 11.30 at 0.05 and 10.69 at 0.10 (12 and 11 whole wins without ties). Demšar (2006),
    Sec. 3.1.3.
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n (number of data sets) must be a positive integer; got {n!r}.")
    alpha = _check_alpha(alpha)
    z = _st.norm.ppf(1.0 - alpha / 2.0)
    return float(n / 2.0 + z * math.sqrt(n) / 2.0)


@dataclass(frozen=True)
class SignTestResult(_Result):
    """Result of :func:`sign_test` (method A against method B over ``n`` data sets).

    ``wins``/``ties``/``losses`` are the raw counts for A.

    The verdict (``a_significantly_better``, ``b_significantly_better``) follows ONE rule, the
    paper's (``docs/algorithms.md`` A.9, Demšar 2006 Sec. 3.1.3): ties are split evenly,
    ``wins_split = wins + ties/2`` (a half tie counts half), ``n`` is the number of all data
    sets, and A is significantly better when ``wins_split >= critical_value = n/2 + z sqrt(n)/2``
    (``z = z_{1-alpha/2}``); B when ``losses_split`` reaches it. The win / tie / loss chart of
    the dashboard draws exactly these numbers.

    ``p_value`` is shown beside it and is **not** the rule: the exact two-sided binomial test
    (p = 1/2) of ``exact_wins = wins + ties // 2`` successes out of ``exact_n = n - ties % 2``
    (ties split, an odd tie dropped, as Demšar does to keep whole counts). Demšar's critical
    number is a normal approximation; with few data sets it is looser than the exact test
    (N = 4: 4 wins of 4 reach 3.96, yet p = 0.125), so read the two together.
    """

    wins: int
    ties: int
    losses: int
    n: int
    alpha: float
    z: float
    wins_split: float
    losses_split: float
    critical_value: float
    exact_n: int
    exact_wins: int
    p_value: float
    a_significantly_better: bool
    b_significantly_better: bool

    @property
    def significant(self) -> bool:
        """True when either method reaches the critical value (Demšar's rule)."""
        return self.a_significantly_better or self.b_significantly_better

    def to_dict(self) -> dict:
        """The fields as a dict, with ``significant``."""
        d = asdict(self)
        d["significant"] = self.significant
        return d


def sign_test(
    a=None,
    b=None,
    *,
    wins: int | None = None,
    ties: int | None = None,
    losses: int | None = None,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    tie_tolerance: float = 0.0,
) -> SignTestResult:
    """Sign test of wins / ties / losses of method A against method B over N data sets.

    Give either two paired score vectors ``a`` and ``b`` (shape (n_datasets,), one value per
    data set), or the counts ``wins``, ``ties`` and ``losses`` of A (keywords).

    With vectors, data set i is a win for A when ``a[i]`` is better than ``b[i]`` by more than
    ``tie_tolerance`` (``higher_is_better`` sets the direction), a tie when
    ``|a[i] - b[i]| <= tie_tolerance``.

    Rule (``docs/algorithms.md`` A.9; Demšar 2006 Sec. 3.1.3): with N = all data sets and ties split
    evenly, A is significantly better at level ``alpha`` (two-sided) when
    ``wins + ties/2 >= N/2 + z_{1-alpha/2} * sqrt(N)/2``. Example: 15 data sets, 10 wins, 3 ties,
    2 losses: 11.5 >= 11.30, significant at 0.05. (Demšar's text drops an odd tie instead of
    counting half of it, which compares 11 with the critical value of N = 14, 10.67; the two
    readings differ only by sqrt(N) against sqrt(N-1) in the margin.) The exact two-sided
    binomial p-value (``scipy.stats.binomtest``) is reported beside the verdict, with the odd tie
    dropped: 11 of 14, p = 0.0574 in the example. See :class:`SignTestResult`.

    Returns
    -------
    SignTestResult
    """
    alpha = _check_alpha(alpha)
    have_vectors = a is not None or b is not None
    have_counts = wins is not None or ties is not None or losses is not None
    if have_vectors and have_counts:
        raise ValueError("give either the score vectors a and b, or wins/ties/losses, not both.")
    if have_vectors:
        if a is None or b is None:
            raise ValueError("both score vectors a and b are needed for the sign test.")
        a_, b_ = _paired_vectors(a, b, min_len=1)
        if not (tie_tolerance >= 0.0 and math.isfinite(tie_tolerance)):
            raise ValueError(f"tie_tolerance must be a finite number >= 0; got {tie_tolerance!r}.")
        d = a_ - b_ if higher_is_better else b_ - a_
        n_w = int(np.sum(d > tie_tolerance))
        n_l = int(np.sum(d < -tie_tolerance))
        n_t = int(d.size - n_w - n_l)
    elif have_counts:
        if wins is None or losses is None:
            raise ValueError("sign test from counts needs wins and losses (ties defaults to 0).")
        counts = {"wins": wins, "ties": 0 if ties is None else ties, "losses": losses}
        for k, v in counts.items():
            if isinstance(v, bool) or not isinstance(v, (int, np.integer, float, np.floating)) or int(v) != v or v < 0:
                raise ValueError(f"{k} must be a non-negative whole number; got {v!r}.")
        n_w, n_t, n_l = (int(counts[k]) for k in ("wins", "ties", "losses"))
    else:
        raise ValueError("sign_test needs either score vectors a and b, or wins=, ties=, losses=.")

    n = n_w + n_t + n_l
    if n < 1:
        raise ValueError("sign test needs at least one data set (wins + ties + losses >= 1).")
    crit = sign_test_critical_value(n, alpha)
    w_split, l_split = n_w + n_t / 2.0, n_l + n_t / 2.0
    exact_n, exact_w = n - (n_t % 2), n_w + n_t // 2
    p = 1.0 if exact_n == 0 else float(_st.binomtest(exact_w, exact_n, 0.5, alternative="two-sided").pvalue)
    return SignTestResult(
        wins=n_w,
        ties=n_t,
        losses=n_l,
        n=n,
        alpha=alpha,
        z=float(_st.norm.ppf(1.0 - alpha / 2.0)),
        wins_split=w_split,
        losses_split=l_split,
        critical_value=crit,
        exact_n=exact_n,
        exact_wins=exact_w,
        p_value=p,
        a_significantly_better=bool(w_split >= crit),
        b_significantly_better=bool(l_split >= crit),
    )


@dataclass(frozen=True)
class PairedTTestResult(_Result):
    """Result of :func:`paired_t_test` for the differences ``d = a - b``.

    Fields follow ``docs/algorithms.md`` C.8 Table 9: ``p_value`` (two-sided), ``mean_difference``
    and the ``confidence`` interval ``[ci_low, ci_high]``; plus ``t``, ``df = n - 1``,
    ``std_difference`` (sample std, ddof=1) and ``standard_error = std / sqrt(n)``.
    """

    n: int
    mean_difference: float
    std_difference: float
    standard_error: float
    t: float
    df: int
    p_value: float
    confidence: float
    ci_low: float
    ci_high: float

    def to_frame(self) -> pd.DataFrame:
        """A one-row table (columns as in the SDF paper's Table 9, plus t, df, n)."""
        return pd.DataFrame([self.to_dict()])


def paired_t_test(a, b, confidence: float = 0.95) -> PairedTTestResult:
    """Two-sided paired t-test of ``a - b`` with a confidence interval for the mean difference.

    For the n paired differences d_i = a_i - b_i (``docs/algorithms.md`` C.8 Table 9, df = n - 1)::

        mean = (1/n) sum d_i,   s = std(d, ddof=1),   se = s / sqrt(n)
        t = mean / se,          p = 2 (1 - F_t(|t|; n-1))
        CI = mean -/+ t_{(1+confidence)/2; n-1} * se

    Same numbers as ``scipy.stats.ttest_rel(a, b)`` and its ``confidence_interval``. If all
    differences are equal (s = 0), t is 0 with p = 1 when they are all 0, otherwise +/-inf with
    p = 0; the interval is then the single point ``[mean, mean]``.

    Parameters
    ----------
    a, b : array-like, shape (n,), n >= 2, paired values (e.g. accuracies per data set)
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    PairedTTestResult
    """
    confidence = _check_alpha(confidence, "confidence")
    a_, b_ = _paired_vectors(a, b, min_len=2)
    d = a_ - b_
    n = d.size
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    se = sd / math.sqrt(n)
    df = n - 1
    # treat a spread at rounding-noise level as exactly zero
    if se <= 1e-14 * max(1.0, float(np.max(np.abs(d)))):
        sd = se = 0.0
        if mean == 0.0 or abs(mean) <= 1e-14 * max(1.0, float(np.max(np.abs(a_))), float(np.max(np.abs(b_)))):
            t, p = 0.0, 1.0
        else:
            t, p = math.copysign(math.inf, mean), 0.0
        lo = hi = mean
    else:
        t = mean / se
        p = float(min(1.0, 2.0 * _st.t.sf(abs(t), df)))
        h = float(_st.t.ppf(0.5 + confidence / 2.0, df)) * se
        lo, hi = mean - h, mean + h
    return PairedTTestResult(
        n=n,
        mean_difference=mean,
        std_difference=sd,
        standard_error=se,
        t=float(t),
        df=df,
        p_value=float(p),
        confidence=confidence,
        ci_low=float(lo),
        ci_high=float(hi),
    )
