"""What makes two instances similar to a forest, tree by tree (the proximity lesson).

One random forest on one view; for every training instance the leaf it reaches in every tree
(``leaves``, shape (n, T)).  Breiman's proximity of ``x_i`` and ``x_j`` is the share of trees that
put them in the same leaf (docs/algorithms.md §A.3), so the proximity row of ``x_i`` after ``t``
trees is built from the leaf-mates of ``x_i`` in the first ``t`` trees
(:meth:`ProximityWalk.proximity_after`); after all ``T`` trees it is ``1 - D_breiman[i]``.  The
same forest (same seed, same data) also gives the RF-GAP and RFD dissimilarities, and each
measure's leave-one-out kNN accuracy says how good its neighbours are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from mvlab.core.progress import ProgressCallback, scaled
from mvlab.core.progress import report as _report
from mvlab.core.serialize import pack, unpack
from mvlab.forest.dissimilarity import ForestDissimilarity
from mvlab.i18n import N_, Message
from mvlab.rfd.weights import knn_loo_accuracy

__all__ = ["WALK_MEASURES", "ProximityWalk", "proximity_walk"]

WALK_MEASURES = ("breiman", "rfgap", "rfd")
"""The measures compared on the same forest: Breiman's (§A.3), RF-GAP and RFD (§A.5)."""


@dataclass
class ProximityWalk:
    """One forest's leaves and dissimilarities on one view.

    Attributes
    ----------
    view_name : str
    classes : list of str
    rows : int ndarray (n,)
        Rows of the dataset used (a stratified sample when the data are larger than asked).
    y : int ndarray (n,)
        Encoded labels.
    leaves : int32 ndarray (n, T)
        ``leaves[i, t]``: the leaf (numbered across the forest) of instance ``i`` in tree ``t``.
    dissimilarities : dict measure -> float32 ndarray (n, n)
        Training dissimilarities of :data:`WALK_MEASURES` (out-of-bag for RF-GAP).
    knn_accuracy : dict measure -> float
        Leave-one-out ``k``-NN accuracy on each matrix (§A.7.1).
    k : int
    oob_accuracy : float
        The forest's out-of-bag accuracy.
    seconds : float
    settings : dict
    """

    view_name: str
    classes: list
    rows: np.ndarray
    y: np.ndarray
    leaves: np.ndarray
    dissimilarities: dict
    knn_accuracy: dict
    k: int
    oob_accuracy: float
    seconds: float
    settings: dict

    @property
    def n_trees(self) -> int:
        """Number of trees ``T`` of the forest."""
        return int(self.leaves.shape[1])

    def leaf_mates(self, i: int, tree: int) -> np.ndarray:
        """Bool (n,): the instances in the same leaf as ``x_i`` in tree ``tree`` (``x_i`` itself included)."""
        return self.leaves[:, tree] == self.leaves[i, tree]

    def proximity_after(self, i: int, trees: int) -> np.ndarray:
        """Float (n,): the share of the first ``trees`` trees in which each instance shares ``x_i``'s leaf
        (Breiman's proximity row of ``x_i`` grown on ``trees`` trees)."""
        if not 1 <= trees <= self.n_trees:
            raise ValueError(f"trees must be between 1 and {self.n_trees}, got {trees}.")
        return np.mean(self.leaves[:, :trees] == self.leaves[i, :trees], axis=1)

    def result_rows(self) -> list[dict]:
        """Rows for the results store: each measure's leave-one-out kNN accuracy."""
        return [{"repetition": 0, "method": m, "metric": "knn_loo_accuracy", "value": a, "seconds": self.seconds}
                for m, a in self.knn_accuracy.items()]

    def to_npz(self) -> bytes:
        """The leaves, matrices, rows and metadata in one compressed ``.npz`` (metadata as a JSON string)."""
        arrays = {"rows": self.rows, "y": self.y, "leaves": self.leaves,
                  **{f"dissimilarity[{m}]": D for m, D in self.dissimilarities.items()}}
        meta = {"view_name": self.view_name, "classes": list(self.classes), "knn_accuracy": self.knn_accuracy,
                "k": self.k, "oob_accuracy": self.oob_accuracy, "seconds": self.seconds, "settings": self.settings}
        return pack(arrays, meta)

    @classmethod
    def from_npz(cls, data: bytes) -> "ProximityWalk":
        """The walk back from the bytes of :meth:`to_npz`."""
        z, meta = unpack(data)
        return cls(view_name=meta["view_name"], classes=meta["classes"], rows=z["rows"], y=z["y"], leaves=z["leaves"],
                   dissimilarities={m: z[f"dissimilarity[{m}]"] for m in meta["knn_accuracy"]},
                   knn_accuracy=meta["knn_accuracy"], k=meta["k"], oob_accuracy=meta["oob_accuracy"],
                   seconds=meta["seconds"], settings=meta["settings"])


def _stratified_rows(y: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` rows (all if fewer), the classes in their proportions, sorted."""
    if n >= len(y):
        return np.arange(len(y))
    rng = np.random.default_rng(seed)
    picked = []
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        take = max(1, int(round(n * len(members) / len(y))))
        picked.append(rng.choice(members, size=min(take, len(members)), replace=False))
    return np.sort(np.concatenate(picked))


def proximity_walk(X, y, *, view, view_name: str, classes, n_samples: int = 300, n_estimators: int = 50, k: int = 5,
                   random_state: int = 0, n_jobs=None, progress: ProgressCallback = None) -> ProximityWalk:
    """Grow one forest on one view of ``(X, y)`` and keep what the proximity lesson shows.

    Parameters
    ----------
    X : ndarray (n_total, d); y : int ndarray (n_total,) encoded labels
    view : int array of the view's columns; view_name : its name; classes : class names
    n_samples : a stratified sample of this many rows (all if the data have fewer)
    n_estimators, random_state, n_jobs : of the forest (the same forest for every measure)
    k : neighbours of the leave-one-out kNN accuracy
    """
    if n_estimators < 1 or k < 1 or n_samples < 2:
        raise ValueError("n_estimators, k and n_samples must be positive (n_samples at least 2).")
    start = time.perf_counter()
    rows = _stratified_rows(np.asarray(y), n_samples, random_state)
    Xv, yv = np.asarray(X)[np.ix_(rows, np.asarray(view))], np.asarray(y)[rows]
    if k >= len(rows):
        raise ValueError(f"k = {k} needs more than {k} instances; the sample has {len(rows)}.")
    dissimilarities, leaves, oob = {}, None, 0.0
    for q, measure in enumerate(WALK_MEASURES):
        fd = ForestDissimilarity(measure=measure, n_estimators=n_estimators, random_state=random_state, n_jobs=n_jobs)
        fd.fit(Xv, yv, progress=scaled(progress, q / len(WALK_MEASURES), 1 / len(WALK_MEASURES)))
        dissimilarities[measure] = fd.train_dissimilarity_
        if leaves is None:
            leaves, oob = fd.leaves_, fd.oob_accuracy_
        _report(progress, (q + 1) / len(WALK_MEASURES),
                Message(N_("{measure} dissimilarity ready"), measure=measure))
    accuracy = {m: knn_loo_accuracy(D, yv, k) for m, D in dissimilarities.items()}
    settings = {"view": view_name, "n_samples": n_samples, "n_estimators": n_estimators, "k": k,
                "random_state": random_state}
    return ProximityWalk(view_name=view_name, classes=list(classes), rows=rows, y=yv, leaves=leaves,
                         dissimilarities=dissimilarities, knn_accuracy=accuracy, k=k, oob_accuracy=float(oob),
                         seconds=time.perf_counter() - start, settings=settings)
