"""The three papers' comparisons by name: the one place the CLI, the Benchmark page and the store
learn which methods a family compares, its sign-test baseline and its post-hoc control.

=====================  ==========================================  ==========  ========
family                 methods (as stored in results)              baseline    control
=====================  ==========================================  ==========  ========
``dissimilarity``      average, knn, alignment, oob, dvs           average     dvs
``view-construction``  OFSP, RFSP, Bagging, AB, VG-AC, VC-GA       RFSP        OFSP
                       (per base classifier and k)
``pairs``              rf, bagging, gcforest, sdf                  gcforest    sdf
=====================  ==========================================  ==========  ========
"""

from __future__ import annotations

from typing import Callable, Mapping

from mvlab.core.progress import ProgressCallback
from mvlab.datasets.container import MultiViewDataset
from mvlab.experiments.combinations import DISSIMILARITY
from mvlab.experiments.pair_methods import PAIRS
from mvlab.experiments.protocols import RepeatedHoldout, RepeatedKFold, RepeatedPairDraws
from mvlab.experiments.runner import ExperimentResult, Family, run_protocol
from mvlab.experiments.view_construction_sweep import VIEW_CONSTRUCTION

__all__ = ["FAMILIES", "get_family", "family_of_run", "make_protocol", "run_experiment"]

FAMILIES: dict[str, Family] = {f.name: f for f in (DISSIMILARITY, VIEW_CONSTRUCTION, PAIRS)}


def get_family(family) -> Family:
    """A :class:`Family` from its name (or the family itself); a ``ValueError`` lists the names."""
    if isinstance(family, Family):
        return family
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; choose one of {list(FAMILIES)}.")
    return FAMILIES[family]


def make_protocol(family, repetitions: int, *, folds: int = 0, test_size: float = 0.5, n_pairs: int = 500):
    """The protocol a family is compared with, at ``repetitions`` repetitions: pair draws of
    ``n_pairs`` training pairs for the pairs family; ``folds``-fold cross-validation when
    ``folds > 1`` (view construction: 3 folds unless told); otherwise stratified hold-out."""
    family = get_family(family)
    if family.needs_pairs:
        return RepeatedPairDraws(int(repetitions), int(n_pairs))
    if folds > 1 or family.name == "view-construction":
        return RepeatedKFold(int(repetitions), int(folds) if folds > 1 else 3)
    return RepeatedHoldout(int(repetitions), float(test_size))


def family_of_run(settings: Mapping | None, kind: str = "") -> Family | None:
    """The family of a stored run: from its settings (``{"family": ...}``, written by the runner),
    else from its kind (``"benchmark:<family>:..."``, ``"reproduce:<paper>:..."``); None if unknown."""
    name = (settings or {}).get("family")
    if name in FAMILIES:
        return FAMILIES[name]
    parts = kind.split(":")
    for part in parts[1:2]:
        if part in FAMILIES:
            return FAMILIES[part]
        legacy = {"dvs": "dissimilarity", "ofsp": "view-construction", "sdf": "pairs"}.get(part)
        if legacy:
            return FAMILIES[legacy]
    return None


def run_experiment(
    dataset: MultiViewDataset,
    family,
    params: Mapping,
    protocol,
    *,
    random_state: int = 0,
    n_jobs: int = 1,
    inner_jobs: int | None = None,
    store=None,
    kind: str | None = None,
    resume: bool = False,
    details: str | None = None,
    progress: ProgressCallback = None,
    partial: Callable | None = None,
) -> ExperimentResult:
    """Evaluate a family's methods (``"dissimilarity"``, ``"view-construction"``, ``"pairs"``, or a
    :class:`Family`) on every split of ``protocol``; see :func:`mvlab.experiments.runner.run_protocol`.

    Returns
    -------
    ExperimentResult with ``table`` columns dataset, method, repetition, fold, metric, value,
    seconds, params.
    """
    return run_protocol(dataset, get_family(family), params, protocol, random_state=random_state, n_jobs=n_jobs,
                        inner_jobs=inner_jobs, store=store, kind=kind, resume=resume, details=details,
                        progress=progress, partial=partial)
