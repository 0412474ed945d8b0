"""Statistical comparison of classifiers over several data sets (or blocks).

Everything here is pure numpy / scipy / pandas and returns small frozen dataclasses that a
dashboard can show (``to_frame()`` / ``to_dict()``).

Score matrices have shape ``(n_blocks, n_methods)``: one row per block (a data set, or one
value of k for the OFSP per-dataset tests of ``docs/algorithms.md`` B.7), one column per method.
A :class:`pandas.DataFrame` keeps its column names as method names and its index as block
names; a plain array gets method names ``"method_0"``, ``"method_1"``, ... . By default higher
scores are better (accuracy); pass ``higher_is_better=False`` for errors or times. Ranks
always follow the convention "rank 1 = best", ties get the average of the ranks they span.

Public API
----------
* :func:`rank_within_blocks`, :func:`average_ranks` -- Demšar (2006) Sec. 3.2.2.
* :func:`sign_test`, :func:`sign_test_critical_value` -- Demšar (2006) Sec. 3.1.3,
  ``docs/algorithms.md`` A.9 (critical number of wins ``N/2 + z*sqrt(N)/2``).
* :func:`friedman_test` -- Friedman chi-square and the Iman-Davenport F correction
  (Demšar 2006 Sec. 3.2.2; García et al. 2010 Sec. 2.1).
* :func:`friedman_aligned_ranks_test` -- ``docs/algorithms.md`` B.7 steps 1-4
  (García et al. 2010, Sec. 2.2, Friedman aligned ranks, Hodges & Lehmann 1962).
* :func:`posthoc_vs_control` -- 1xN post-hoc z tests against a control with Holm and
  Bonferroni-Dunn adjustments (``docs/algorithms.md`` B.7 steps 5-6; García et al. 2010 Sec. 3;
  Demšar 2006 Sec. 3.2.2); for aligned ranks the standard error is by default the exact
  within-block permutation one (B.7 step 5, corrected 2026-11-22; a null simulation in
  ``tests/test_stats.py`` checks its error rate), :func:`holm_adjust`, :func:`bonferroni_adjust`,
  :func:`bonferroni_dunn_critical_difference`.
* :func:`nemenyi_critical_difference` (all pairs), :func:`nonsignificant_groups` and
  :func:`critical_difference_groups` -- what a critical-difference diagram shows (Demšar 2006
  Sec. 3.2.2; drawn by :func:`mvlab.viz.benchmark_figures.critical_difference_diagram`).
* :func:`paired_t_test` -- ``docs/algorithms.md`` C.8 Table 9 (paired t-test with a confidence
  interval for the mean difference).

References
----------
J. Demšar (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7:1-30.
S. García, A. Fernández, J. Luengo, F. Herrera (2010). Advanced nonparametric tests for multiple
comparisons in the design of experiments in computational intelligence and data mining:
experimental analysis of power. Information Sciences 180:2044-2064.
"""

from __future__ import annotations

from mvlab.stats.critical_difference import (
    CriticalDifferenceResult,
    critical_difference_groups,
    nemenyi_critical_difference,
    nonsignificant_groups,
)
from mvlab.stats.omnibus import FriedmanAlignedResult, FriedmanResult, friedman_aligned_ranks_test, friedman_test
from mvlab.stats.pairwise import PairedTTestResult, SignTestResult, paired_t_test, sign_test, sign_test_critical_value
from mvlab.stats.posthoc import (
    PosthocResult,
    bonferroni_adjust,
    bonferroni_dunn_critical_difference,
    holm_adjust,
    posthoc_vs_control,
)
from mvlab.stats.ranks import average_ranks, rank_within_blocks

__all__ = [
    "rank_within_blocks",
    "average_ranks",
    "SignTestResult",
    "sign_test",
    "sign_test_critical_value",
    "FriedmanResult",
    "friedman_test",
    "FriedmanAlignedResult",
    "friedman_aligned_ranks_test",
    "PosthocResult",
    "posthoc_vs_control",
    "holm_adjust",
    "bonferroni_adjust",
    "bonferroni_dunn_critical_difference",
    "nemenyi_critical_difference",
    "nonsignificant_groups",
    "CriticalDifferenceResult",
    "critical_difference_groups",
    "PairedTTestResult",
    "paired_t_test",
]
