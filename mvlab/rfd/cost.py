"""Memory and time of an :class:`mvlab.rfd.classifier.RFDClassifier` fit and prediction, before running it.

:func:`estimate_cost` adds up the large arrays of the path the classifier will take (the exact space
with its (n, n) matrices, or prototypes with row blocks; docs/algorithms.md §A.10) and the forests'
trees, and converts the work into seconds with per-operation constants measured on this project's
2-core machine (``bench/bench_scale.py`` prints the estimate beside the measured peak).
:meth:`CostEstimate.problems` says in words what exceeds a memory or time limit, with the
estimate of each remedy (prototypes, fewer trees, a sample of the rows).

What is modelled (bytes):

* the interpreter with numpy, scipy and scikit-learn loaded (:data:`BASE_BYTES`);
* the data (float64, a few copies: validation and the view slices);
* per view forest: the trees (``2 x leaves`` nodes of ``64 + 8 C`` bytes, :data:`VIEW_LEAVES_PER_ROW`
  leaves per training row and tree) and the per-(row, tree) arrays (leaves, in-bag counts, OOB mask,
  the ``apply`` result);
* exact space: ``Q`` float32 (n, n) matrices, a float64 (n, n) product per view being built
  (``min(Q, n_jobs)`` at once) and the joint matrix (combined by row blocks); test rows likewise;
* prototypes: the (n, m) columns, the joint one, and ``n_jobs`` row blocks of stored entries;
* final forests (one, or one per DVS candidate) with :data:`FINAL_LEAVES_PER_ROW` leaves per row.

The estimate is for planning, not a promise: ``tests/test_cost.py`` checks it against measured
peaks within a factor of 2 (memory) on small sizes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

from mvlab.forest.dissimilarity import DENSE_MAX_ROWS
from mvlab.forest.measures import resolve_measure
from mvlab.rfd.dvs_pool import n_candidates
from mvlab.rfd.prototypes import DEFAULT_N_PROTOTYPES, resolve_prototypes
from mvlab.rfd.view_rows import BLOCK_BYTES_PER_ENTRY, BLOCK_ENTRIES

__all__ = ["CostEstimate", "estimate_cost", "BASE_BYTES"]

BASE_BYTES = 250e6
"""Resident memory of a Python process with numpy, scipy and scikit-learn loaded (measured 206-250 MB)."""

VIEW_LEAVES_PER_ROW = 0.2
"""Leaves per training row and tree of a fully grown view forest (0.19 measured on the synthetic data)."""

FINAL_LEAVES_PER_ROW = 0.1
"""Leaves per training row and tree of a final / DVS candidate forest (0.04-0.09 measured)."""

TREE_HEAP_FACTOR = 1.5
"""Resident bytes per byte of tree nodes: scikit-learn grows a tree's node array by doubling and trims it at
the end, and the trimmed capacity mostly stays in the process heap (fitted on the 100,000-row DVS run)."""

ENTRIES_PER_ROW_PER_TREE = 10.0
"""Stored entries of a sparse dissimilarity row per tree (about 1,000 per view with 100 trees)."""

# seconds per unit of work on one thread (measured on the 2-core machine, bench/bench_scale.py)
SECONDS_VIEW_FOREST = 1.2e-7   # per tree x n log2 n x sqrt(features of the view)
SECONDS_FINAL_FOREST = 1.5e-8  # per tree x n log2 n x sqrt(columns of the joint space)
SECONDS_DENSE_CELL = 2.0e-8    # per cell of an (n, n_train) matrix per view (product, normalisation)
SECONDS_SPARSE_ENTRY = 5.0e-7  # per stored entry of a row block (product, union, k-smallest)
PARALLEL_EFFICIENCY = 0.75


@dataclass
class CostEstimate:
    """Estimated peak memory and wall-clock time of a fit plus one prediction.

    Attributes
    ----------
    peak_bytes : float
    seconds : float
    memory : dict of str -> float
        The memory of each part, in bytes (the peak is their sum: they coexist).
    time : dict of str -> float
        The time of each stage, in seconds.
    n_prototypes : int or None
        Prototypes of the path (None: the exact space).
    settings : dict
        The arguments of :func:`estimate_cost` (to estimate the remedies).
    """

    peak_bytes: float
    seconds: float
    memory: dict = field(default_factory=dict)
    time: dict = field(default_factory=dict)
    n_prototypes: Optional[int] = None
    settings: dict = field(default_factory=dict)
    refusal: Optional[str] = None

    def describe(self) -> str:
        """One sentence for people."""
        space = ("the exact space" if self.n_prototypes is None else f"{self.n_prototypes} prototypes")
        return (f"about {self.peak_bytes / 1e9:.1f} GB of memory and {_duration(self.seconds)} "
                f"({self.settings.get('n_train')} training rows, {space}).")

    def problems(self, limit_bytes: Optional[float] = None, limit_seconds: Optional[float] = None) -> list[str]:
        """What does not fit, in words, each with its remedies and their estimates; empty when all fits.

        Parameters
        ----------
        limit_bytes : float, optional
            Memory available to the fit (the server's or its worker's).
        limit_seconds : float, optional
            Time allowed.
        """
        out = []
        if self.refusal:
            out.append(self.refusal)
        over_b = limit_bytes is not None and self.peak_bytes > limit_bytes
        over_s = limit_seconds is not None and self.seconds > limit_seconds
        if not (over_b or over_s):
            return out
        what = []
        if over_b:
            what.append(f"about {self.peak_bytes / 1e9:.1f} GB of memory, more than the {limit_bytes / 1e9:.1f} GB "
                        "available")
        if over_s:
            what.append(f"about {_duration(self.seconds)}, more than the {_duration(limit_seconds)} allowed")
        advice = [f"{label} ({alt.describe()[6:-1]})" for label, alt in self._remedies()
                  if (limit_bytes is None or alt.peak_bytes <= limit_bytes)
                  and (limit_seconds is None or alt.seconds <= limit_seconds)]
        if not advice:
            advice = [f"{label} ({alt.describe()[6:-1]})" for label, alt in self._remedies()]
            hint = "None of the usual remedies is enough on its own; the closest: "
        else:
            hint = "Any of these fits: "
        out.append(f"This run needs {' and '.join(what)}. {hint}" + "; ".join(advice) + ".")
        return out

    def _remedies(self):
        s = dict(self.settings)
        n, m = s["n_train"], self.n_prototypes
        if m is None or m > DEFAULT_N_PROTOTYPES:
            yield (f"use prototypes={DEFAULT_N_PROTOTYPES}",
                   estimate_cost(**{**s, "prototypes": min(DEFAULT_N_PROTOTYPES, n)}))
        elif m > 200:
            yield f"fewer prototypes ({m // 2})", estimate_cost(**{**s, "prototypes": m // 2})
        if s["n_estimators"] > 25:
            t = max(25, s["n_estimators"] // 2)
            yield f"fewer trees (n_estimators={t})", estimate_cost(**{**s, "n_estimators": t})
        if n > 2000:
            k = max(1000, n // 4)
            yield (f"a stratified sample of {k} training rows",
                   estimate_cost(**{**s, "n_train": k, "n_test": min(s["n_test"], k)}))


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def estimate_cost(
    n_train: int,
    n_test: int,
    n_views: int,
    n_features: int,
    n_estimators: int = 100,
    combination: str = "average",
    *,
    measure="breiman",
    prototypes="auto",
    n_classes: int = 2,
    n_jobs: int = 1,
    k: int = 7,
    dvs_region: str = "candidate",
    dvs_max_subset_size: Optional[int] = None,
) -> CostEstimate:
    """Estimate the peak memory and the time of ``RFDClassifier(...).fit`` then ``predict`` on ``n_test`` rows.

    Parameters
    ----------
    n_train, n_test : int
        Training rows and rows to predict.
    n_views, n_features : int
        Views and columns in all (the columns are split evenly between the views).
    n_estimators : int
        Trees of every forest.
    combination : str
        As :class:`RFDClassifier` (``"dvs"`` grows one forest per view subset).
    measure, prototypes, k, dvs_region, dvs_max_subset_size
        As :class:`RFDClassifier` (``prototypes="auto"`` follows the same rule).
    n_classes : int
    n_jobs : int
        Threads (an int; -1 is not resolved here).

    Returns
    -------
    CostEstimate
        With ``problems(limit_bytes, limit_seconds)`` for the advice in words.
    """
    settings = dict(n_train=n_train, n_test=n_test, n_views=n_views, n_features=n_features,
                    n_estimators=n_estimators, combination=combination, measure=measure, prototypes=prototypes,
                    n_classes=n_classes, n_jobs=n_jobs, k=k, dvs_region=dvs_region,
                    dvs_max_subset_size=dvs_max_subset_size)
    n, nt, Q, T, C = int(n_train), int(n_test), int(n_views), int(n_estimators), int(n_classes)
    J = max(1, int(n_jobs))
    f = max(1.0, n_features / Q)
    m = resolve_prototypes(prototypes, n)
    P = n_candidates(Q, dvs_max_subset_size) if combination == "dvs" else 1
    node = TREE_HEAP_FACTOR * (64 + 8 * C)
    refusal = None
    measure_obj = resolve_measure(measure)
    if m is not None and not measure_obj.supports_sparse():
        refusal = (f"The {measure_obj.title} measure has no sparse form, so prototypes cannot avoid its "
                   f"(n, n) matrices; use Breiman, OOB, RF-GAP or RFD.")
    if m is None and n > DENSE_MAX_ROWS and not measure_obj.supports_sparse():
        refusal = (f"The {measure_obj.title} measure needs the dense (n, n) matrices, refused above "
                   f"{DENSE_MAX_ROWS} training rows; use Breiman, OOB, RF-GAP or RFD, or a sample.")

    mem: dict[str, float] = {"interpreter and libraries": BASE_BYTES}
    mem["data"] = 3 * (n + nt) * n_features * 8
    mem["view forests"] = Q * T * 2 * VIEW_LEAVES_PER_ROW * n * node + Q * n * T * 17
    cols = n if m is None else m
    mem["final forests"] = P * T * 2 * FINAL_LEAVES_PER_ROW * n * node
    if m is None:
        mem["training matrices"] = Q * n * n * 4 + n * n * 4 * (min(J, P) if P > 1 else 1)
        mem["matrix being built"] = min(Q, J) * n * n * 8 if combination != "dvs" else 0.0
        if combination in ("dvs", "knn"):  # the leave-one-out k-smallest search's temporaries (copies, masks)
            mem["neighbour searches"] = (min(J, P) if P > 1 else 1) * n * n * 24
        mem["test matrices"] = Q * nt * n * 4 + nt * n * 4
    else:
        mem["prototype columns"] = Q * n * m * 4 + n * m * 4 * (min(J, P) if P > 1 else 1) + Q * nt * m * 4
        mem["row blocks"] = J * Q * min(BLOCK_ENTRIES, (n + nt) * ENTRIES_PER_ROW_PER_TREE * T) * BLOCK_BYTES_PER_ENTRY
        mem["regions"] = P * (n + nt) * k * 12 if combination in ("dvs", "knn") else 0.0
    peak = float(sum(mem.values()))

    nlogn = n * max(1.0, math.log2(max(n, 2)))
    speed = 1.0 + (J - 1) * PARALLEL_EFFICIENCY
    tm: dict[str, float] = {}
    tm["view forests"] = SECONDS_VIEW_FOREST * Q * T * nlogn * math.sqrt(f) / speed
    oob = 1.2 if combination == "dvs" else 1.0
    tm["final forests"] = oob * P * SECONDS_FINAL_FOREST * T * nlogn * math.sqrt(cols) / speed
    if m is None:
        tm["dissimilarity matrices"] = SECONDS_DENSE_CELL * Q * (n * n + nt * n) / speed
        if combination == "dvs":
            tm["regions"] = SECONDS_DENSE_CELL * P * (n * n + nt * n) / speed
    else:
        passes = 1.0 if combination in ("average", "oob") else 1.5
        entries = ENTRIES_PER_ROW_PER_TREE * T * Q
        tm["row blocks"] = SECONDS_SPARSE_ENTRY * entries * (n * passes + nt) / speed
    seconds = float(sum(tm.values()))
    return CostEstimate(peak, seconds, mem, tm, m, settings, refusal)
