"""What dynamic view selection decided for every instance, and why (:class:`DVSExplanation`),
and how well its choices match a ground truth of informative views (:func:`view_choice_scores`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

__all__ = ["DVSExplanation", "view_choice_scores"]


@dataclass
class DVSExplanation:
    """Per-instance explanation of dynamic view selection (n instances, Q views, P candidates).

    Attributes
    ----------
    view_names : list of str (Q)
    candidate_names : list of str (P)
        ``" + "``-joined view names of each candidate.
    subsets : ndarray of bool (P, Q)
        ``subsets[c, q]``: candidate c uses view q.
    classes : ndarray (C,)
        Labels; the columns of ``proba``.
    k : int
        Size of the region of competence.
    competence_kind : {"ola", "lca", "soft"}
    selection : {"best", "knora", "knora-u"}
    competence : ndarray of float64 (n, P)
        ``delta_w`` of every candidate for every instance (§A.8 line 11).
    chosen : ndarray of int64 (n,)
        Index of the selected candidate (after tie-breaking, line 12).  Under
        ``selection="knora"`` or ``"knora-u"`` it is the tie-break winner among the maximally
        competent candidates.
    chosen_views : ndarray of bool (n, Q)
        ``subsets[chosen]``: the views each instance used.
    members : ndarray of bool (n, P)
        Candidates that produced the prediction: exactly ``chosen`` under ``"best"``, every
        candidate with maximal competence under ``"knora"``, every candidate with a competence
        above 0 under ``"knora-u"`` (``chosen`` when all are 0).
    region : ndarray of int64 (n, k)
        Training indices of the chosen candidate's region of competence, nearest first
        (ties by index, line 10), in the space :meth:`region_space` names.
    region_dissimilarity : ndarray of float32 (n, k)
        The instance's dissimilarity to those neighbours in that space (``d_{w*}(x, x_i)`` with
        the paper's own-space regions).
    region_labels : ndarray (n, k)
        Their labels (values of ``classes``).
    region_oob_hit : ndarray of bool (n, k)
        Whether the chosen candidate's OOB prediction of each neighbour is correct.
    chosen_prediction : ndarray (n,)
        Label predicted by the chosen candidate alone (line 13).
    prediction : ndarray (n,)
        Final label (equals ``chosen_prediction`` under ``"best"``); ``predict`` agrees.
    proba : ndarray of float64 (n, C)
        Final class probabilities (those of ``predict_proba``).
    region_kind : {"candidate", "shared"}
        Where regions are taken: each candidate's own space (the paper), or one region in the
        all-views average for every candidate.
    tie_break : {"oob", "fewest"}
        How equal competences were decided (``DVSCombiner(tie_break=...)``).
    """

    view_names: list
    candidate_names: list
    subsets: np.ndarray
    classes: np.ndarray
    k: int
    competence_kind: str
    selection: str
    competence: np.ndarray
    chosen: np.ndarray
    chosen_views: np.ndarray
    members: np.ndarray
    region: np.ndarray
    region_dissimilarity: np.ndarray
    region_labels: np.ndarray
    region_oob_hit: np.ndarray
    chosen_prediction: np.ndarray
    prediction: np.ndarray
    proba: np.ndarray = field(repr=False)
    region_kind: str = "candidate"
    tie_break: str = "oob"

    @property
    def n_instances(self) -> int:
        """Number of instances explained, n."""
        return int(self.chosen.shape[0])

    def region_space(self, i: int) -> np.ndarray:
        """The views (bool (Q,)) whose averaged dissimilarity instance ``i``'s region of competence was taken in:
        the chosen candidate's own (§A.8 line 10, ``region_kind="candidate"``), or every view
        (``region_kind="shared"``, one region for all candidates)."""
        if self.region_kind == "shared":
            return np.ones(self.subsets.shape[1], dtype=bool)
        return self.subsets[self.chosen[i]]

    @property
    def chosen_names(self) -> list[str]:
        """Name of the chosen candidate of every instance (n,)."""
        return [self.candidate_names[c] for c in self.chosen]

    @property
    def chosen_competence(self) -> np.ndarray:
        """Competence of the chosen candidate (= the maximum), shape (n,)."""
        return self.competence[np.arange(self.n_instances), self.chosen]

    @property
    def tie_rate(self) -> float:
        """Share of instances whose choice was decided by the tie-break (more than one candidate
        shares the highest competence)."""
        return float(np.mean(self.n_tied > 1)) if self.n_instances else 0.0

    @property
    def n_tied(self) -> np.ndarray:
        """Number of candidates sharing the maximal competence, shape (n,)."""
        return np.count_nonzero(self.competence == self.competence.max(axis=1, keepdims=True), axis=1)

    def selection_frequencies(self) -> np.ndarray:
        """Fraction of instances whose chosen candidate is each candidate, shape (P,)."""
        P = len(self.candidate_names)
        return np.bincount(self.chosen, minlength=P) / max(self.n_instances, 1)

    def view_usage(self) -> np.ndarray:
        """Fraction of instances whose chosen subset contains each view, shape (Q,)."""
        return self.chosen_views.mean(axis=0) if self.n_instances else np.zeros(len(self.view_names))

    def to_frame(self, y_true=None):
        """One row per instance, as a pandas DataFrame (index = instance position).

        Columns: ``chosen`` (candidate index), ``subset`` (its name), ``n_views``, one bool
        column ``uses <view>`` per view, ``competence`` (of the chosen candidate),
        ``n_tied``, ``n_members``, ``chosen_prediction``, ``prediction``, then
        ``neighbour_0..k-1``, ``dissimilarity_0..k-1``, ``neighbour_label_0..k-1`` and
        ``neighbour_oob_hit_0..k-1`` (the region, nearest first).  With ``y_true`` (n,):
        also ``true`` and ``correct``.
        """
        import pandas as pd

        cols: dict = {
            "chosen": self.chosen,
            "subset": self.chosen_names,
            "n_views": self.chosen_views.sum(axis=1),
        }
        for q, name in enumerate(self.view_names):
            cols[f"uses {name}"] = self.chosen_views[:, q]
        cols["competence"] = self.chosen_competence
        cols["n_tied"] = self.n_tied
        cols["n_members"] = self.members.sum(axis=1)
        cols["chosen_prediction"] = self.chosen_prediction
        cols["prediction"] = self.prediction
        for j in range(self.k):
            cols[f"neighbour_{j}"] = self.region[:, j]
        for j in range(self.k):
            cols[f"dissimilarity_{j}"] = self.region_dissimilarity[:, j]
        for j in range(self.k):
            cols[f"neighbour_label_{j}"] = self.region_labels[:, j]
        for j in range(self.k):
            cols[f"neighbour_oob_hit_{j}"] = self.region_oob_hit[:, j]
        if y_true is not None:
            y_true = np.asarray(y_true)
            if y_true.shape != (self.n_instances,):
                raise ValueError(f"y_true must have shape ({self.n_instances},), got {y_true.shape}.")
            cols["true"] = y_true
            cols["correct"] = y_true == self.prediction
        return pd.DataFrame(cols)

    def to_arrays(self) -> tuple[dict, dict]:
        """Split into (arrays, metadata) for ``np.savez`` / JSON; inverse of :meth:`from_arrays`."""
        arrays, meta = {}, {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                arrays[f.name] = value.astype(str) if value.dtype == object else value
            else:
                meta[f.name] = value
        return arrays, meta

    @classmethod
    def from_arrays(cls, arrays: dict, meta: dict) -> "DVSExplanation":
        """The explanation back from the ``(arrays, meta)`` of :meth:`to_arrays`; fields missing from them keep
        their default."""
        values = {f.name: arrays[f.name] if f.name in arrays else meta[f.name] for f in fields(cls)
                  if f.name in arrays or f.name in meta}  # fields added later keep their default
        return cls(**values)

    def competence_frame(self):
        """Competence of every candidate, a pandas DataFrame (n, P) with candidate-name columns."""
        import pandas as pd

        return pd.DataFrame(self.competence, columns=list(self.candidate_names))


def view_choice_scores(chosen_views: np.ndarray, informative: np.ndarray) -> dict:
    """How well the chosen views match a ground truth of informative views (synthetic data).

    Parameters
    ----------
    chosen_views : bool (n, Q)
        Views used for each instance (``DVSExplanation.chosen_views``).
    informative : bool (n, Q)
        Views that carry each instance's class (``MultiViewDataset.informative``).

    Returns
    -------
    dict with, averaged over instances: ``precision`` (share of chosen views that are
    informative), ``recall`` (share of informative views that were chosen), ``hit`` (share of
    instances whose choice contains at least one informative view), and the same three for a
    ``baseline`` that chooses, for every instance, a subset of the same size uniformly at
    random (its expected values, computed exactly).
    """
    chosen = np.asarray(chosen_views, dtype=bool)
    truth = np.asarray(informative, dtype=bool)
    if chosen.shape != truth.shape or chosen.ndim != 2:
        raise ValueError(f"chosen_views and informative must have the same (n, Q) shape, got {chosen.shape} and "
                         f"{truth.shape}.")
    both = (chosen & truth).sum(axis=1)
    size, n_inf = chosen.sum(axis=1), truth.sum(axis=1)
    Q = chosen.shape[1]
    # a random subset of the same size: E[precision] = n_inf / Q, E[recall] = size / Q,
    # P(no informative view chosen) = C(Q - n_inf, size) / C(Q, size)
    from scipy.special import comb

    miss = comb(Q - n_inf, size) / comb(Q, size)
    return {
        "precision": float(np.mean(both / np.maximum(size, 1))),
        "recall": float(np.mean(both / np.maximum(n_inf, 1))),
        "hit": float(np.mean(both > 0)),
        "baseline precision": float(np.mean(n_inf / Q)),
        "baseline recall": float(np.mean(size / Q)),
        "baseline hit": float(np.mean(1 - miss)),
    }
