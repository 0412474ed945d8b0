"""Siamese deep forest against gcForest on the same pairs and the same first-level trees (docs/algorithms.md §C.5-C.8).

One draw of the paper's protocol (§C.8): ``N`` training pairs and ``2N/3`` test pairs from
disjoint instance pools (:func:`mvlab.siamese.pairs.make_pair_split`), then two cascades fitted on them
with the same ``random_state``:

- ``"SDF"``: :class:`mvlab.siamese.SiameseDeepForest` with ``weighting="qp"`` (tree weights from
  the QP of Eqs. 23-28, z-doubling of §C.6);
- ``"gcForest"``: the same estimator with ``weighting="uniform"`` (Eq. 9), i.e. plain gcForest
  on concatenated pairs.

Both draw the same forest seeds, so their first-level trees are identical and the comparison
isolates the weighting. The result keeps what a dashboard shows: training (out-of-fold) and test
accuracy per cascade level and the levels kept, the SDF tree weights per level and forest with
their effective number of trees ``1 / sum_t w_t^2``, and the test scores ``S0 - S1`` with the
pair labels, from which :func:`tau_tradeoff` / :func:`tau_curve` compute the share of
undetermined pairs and the accuracy on the others for the threshold rule of §C.5.

With image data, multi-grained scanning with two lock-step windows (§C.7) can precede both
cascades; the scanner is fitted once on the training pairs and its output is shared by the two
cascades, which is the same as giving each cascade the same scanner (same seed, same pairs).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from mvlab.core.progress import ProgressCallback, report_partial, scaled
from mvlab.core.serialize import pack, unpack
from mvlab.i18n import N_, Message
from mvlab.siamese.forest import (
    UNDETERMINED,
    SiameseDeepForest,
    effective_number_of_trees,
    similarity_scores,
    threshold_rule,
)
from mvlab.siamese.pairs import make_pair_split, pair_features
from mvlab.siamese.scanning import MultiGrainedScanner, default_window_sizes

__all__ = [
    "MODELS",
    "SiameseExperiment",
    "TauTradeoff",
    "default_window_sizes",
    "run_siamese_experiment",
    "tau_curve",
    "tau_tradeoff",
]

MODELS = ("gcForest", "SDF")
"""Model names of a :class:`SiameseExperiment`: the uniform cascade and the QP-weighted one."""

PAIR_LABELS = (N_("similar"), N_("dissimilar"))
UNDETERMINED_LABEL = N_("undetermined")
"""A pair's labels (English in the tables and downloads; marked for the catalogues, said in the reader's language
where shown)."""
_MAX_SEED = np.iinfo(np.int32).max


# ----------------------------------------------------------------------------- tau rule
class TauTradeoff(NamedTuple):
    """What a threshold ``tau`` does to a set of scored pairs (see :func:`tau_tradeoff`)."""

    undetermined: float
    """Share of pairs with ``0 <= S0 - S1 < tau`` (no decision)."""
    accuracy: float
    """Accuracy on the determined pairs (NaN when none is determined)."""
    n_determined: int


def _check_scores(scores, y):
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y)
    if s.ndim != 1 or y.shape != s.shape:
        raise ValueError(f"scores and labels must be 1-D of the same length; got {s.shape} and {y.shape}.")
    if not np.all(np.isin(y, (0, 1))):
        raise ValueError("pair labels must be 0 (similar) or 1 (dissimilar).")
    return s, y


def tau_tradeoff(scores, y, tau) -> TauTradeoff:
    """Share of undetermined pairs and accuracy on the determined ones for threshold ``tau``.

    Parameters
    ----------
    scores : array-like of shape (n_pairs,)
        ``S0 - S1`` of every pair (§C.5).
    y : array-like of shape (n_pairs,)
        True pair labels, 0 similar, 1 dissimilar.
    tau : float >= 0
        ``S0 - S1 >= tau``: similar; ``< 0``: dissimilar; otherwise undetermined.
    """
    s, y = _check_scores(scores, y)
    if not np.isfinite(tau) or tau < 0:
        raise ValueError(f"tau must be a finite number >= 0; got {tau!r}.")
    pred = threshold_rule(s, float(tau))
    det = pred != UNDETERMINED
    n_det = int(det.sum())
    acc = float(np.mean(pred[det] == y[det])) if n_det else float("nan")
    undetermined = float(1.0 - n_det / s.size) if s.size else float("nan")
    return TauTradeoff(undetermined, acc, n_det)


def tau_curve(scores, y, taus=None, n_points: int = 101) -> pd.DataFrame:
    """:func:`tau_tradeoff` over a grid of thresholds.

    Parameters
    ----------
    scores, y : as :func:`tau_tradeoff`, shape (n_pairs,)
    taus : array-like of float >= 0, optional
        Default: ``n_points`` values from 0 to the largest score (at which every pair with a
        non-negative score becomes undetermined except the highest).

    Returns
    -------
    pandas.DataFrame with columns ``tau, undetermined, accuracy, n_determined``.
    """
    s, y = _check_scores(scores, y)
    if taus is None:
        top = float(s.max()) if s.size and s.max() > 0 else 1.0
        taus = np.linspace(0.0, top, n_points)
    rows = [dict(tau=float(t), **tau_tradeoff(s, y, float(t))._asdict()) for t in np.asarray(taus, float)]
    return pd.DataFrame(rows, columns=["tau", "undetermined", "accuracy", "n_determined"])


# -------------------------------------------------------------------------- the result
def _level_accuracies(model, F_test, y_test):
    """Test accuracy of every kept level (tau = 0 rule) and the last level's scores S0 - S1."""
    V = model.level_class_vectors_from_vectors(F_test)  # pair (or shared scanner) vectors, see _fit_cascade
    acc, scores = [], None
    for v in V:
        scores = similarity_scores(v)
        acc.append(float(np.mean(threshold_rule(scores) == y_test)))
    return np.asarray(acc), scores


@dataclass
class SiameseExperiment:
    """Everything one SDF-versus-gcForest run measured (see :func:`run_siamese_experiment`).

    Attributes
    ----------
    classes : list of str
        Class names of the instances (pairs are similar when both share a class).
    train_pairs : ndarray (N, 2) of int; y_train : ndarray (N,)
        Training pairs (row indices into the dataset's ``X``) and labels (0 similar, 1 dissimilar).
    test_pairs : ndarray (M, 2) of int; y_test : ndarray (M,)
        Test pairs, drawn from a pool of instances disjoint from the training pool.
    test_pair_classes : ndarray (M, 2) of int
        Class of each member of every test pair (index into ``classes``).
    train_pool, test_pool : ndarray of int
        The two disjoint instance pools.
    level_train : dict model -> ndarray (levels built,)
        Training (out-of-fold) accuracy of every level built, kept or not (the stopping rule's input).
    level_test : dict model -> ndarray (levels kept,)
        Test accuracy of the decision at each kept level.
    n_levels : dict model -> int
        Levels kept.
    scores : dict model -> ndarray (M,)
        ``S0 - S1`` of every test pair at the last kept level (positive = similar).
    weights : list (SDF levels kept) of list (forests) of ndarray (n_models, T)
        SDF tree weights, one row per fold-model, each on the simplex.
    forest_names : list of str
        Names of the forests of a level ("CRF 1", ..., "RF 1", ...).
    seconds : dict step -> wall-clock seconds
    settings : dict
        The parameters that produced the result, including ``cascade_seed``, the
        ``random_state`` both cascades (and the scanner) were given.
    """

    classes: list
    train_pairs: np.ndarray
    y_train: np.ndarray
    test_pairs: np.ndarray
    y_test: np.ndarray
    test_pair_classes: np.ndarray
    train_pool: np.ndarray
    test_pool: np.ndarray
    level_train: dict
    level_test: dict
    n_levels: dict
    scores: dict
    weights: list
    forest_names: list
    seconds: dict
    settings: dict = field(default_factory=dict)

    # ---------------------------------------------------------------- derived numbers
    @property
    def n_forests(self) -> int:
        """Forests per level (``S0 - S1`` lies in ``[-n_forests, n_forests]``)."""
        return len(self.forest_names)

    @property
    def models(self) -> list:
        """The models this result holds, in :data:`MODELS`'s order: both, or SDF alone in a partial result (its
        cascade grown, gcForest's still growing: :func:`run_siamese_experiment`)."""
        return [m for m in MODELS if m in self.scores]

    @property
    def n_trees(self) -> int:
        """Trees per forest (T)."""
        return int(self.weights[0][0].shape[1])

    def accuracy(self, model: str, tau: float = 0.0) -> float:
        """Test accuracy of a model; with ``tau > 0`` undetermined pairs count as errors."""
        return float(np.mean(threshold_rule(self.scores[model], tau) == self.y_test))

    def predictions(self, model: str, tau: float = 0.0) -> np.ndarray:
        """0 similar, 1 dissimilar, -1 undetermined for every test pair, shape (M,) (the rule of §C.5,
        :func:`mvlab.siamese.forest.threshold_rule`)."""
        return threshold_rule(self.scores[model], tau)

    def effective_trees(self) -> list:
        """Per SDF level and forest, the effective number of trees of each fold-model, (n_models,)."""
        return [[effective_number_of_trees(W) for W in level] for level in self.weights]

    @property
    def mean_effective_trees(self) -> float:
        """Effective number of trees of the SDF, averaged over levels, forests and fold-models."""
        return float(np.mean(np.concatenate([e for level in self.effective_trees() for e in level])))

    def table(self) -> pd.DataFrame:
        """One row per model: test accuracy, levels kept and built, training accuracy, seconds."""
        rows = []
        for m in MODELS:
            kept = self.n_levels[m]
            eff = self.mean_effective_trees if m == "SDF" else float(self.n_trees)
            rows.append({
                "model": m,
                "test accuracy": self.accuracy(m),
                "levels kept": kept,
                "levels built": len(self.level_train[m]),
                "training accuracy (out-of-fold)": float(self.level_train[m][kept - 1]),
                "mean effective number of trees": eff,
                "fit seconds": float(self.seconds.get(m, np.nan)),
            })
        return pd.DataFrame(rows)

    def level_table(self) -> pd.DataFrame:
        """Long table: model, level (1-based), training and test accuracy, kept."""
        rows = []
        for m in MODELS:
            for q, tr in enumerate(self.level_train[m]):
                kept = q < self.n_levels[m]
                rows.append({"model": m, "level": q + 1, "training accuracy": float(tr),
                             "test accuracy": float(self.level_test[m][q]) if kept else np.nan, "kept": kept})
        return pd.DataFrame(rows)

    def weight_table(self) -> pd.DataFrame:
        """Per SDF level and forest: effective number of trees (mean and range over the fold-models),
        largest weight, share of trees with weight 0, and the effective ``lambda`` of the level
        (``lam / z_scale^2``: z-doubling divides it by 4 per level, §C.6)."""
        lam = float(self.settings.get("lam", np.nan))
        double = self.settings.get("z_schedule", "double") == "double"
        rows = []
        for q, level in enumerate(self.weights):
            for name, W in zip(self.forest_names, level):
                eff = effective_number_of_trees(W)
                rows.append({
                    "level": q + 1, "forest": name, "trees": W.shape[1],
                    "effective trees (mean)": float(eff.mean()),
                    "effective trees (min)": float(eff.min()), "effective trees (max)": float(eff.max()),
                    "largest weight": float(W.max()), "share of zero weights": float(np.mean(W <= 1e-12)),
                    "effective lambda": lam / (4.0**q if double else 1.0),
                })
        return pd.DataFrame(rows)

    def tau_curves(self, tau: float = 0.0, n_points: int = 81) -> dict[str, pd.DataFrame]:
        """Each model's τ trade-off (:func:`tau_curve`) on ``n_points`` thresholds from 0 to just past the
        largest score (and past ``tau``), never beyond the number of forests (S0 - S1 cannot exceed it)."""
        top = max([float(np.max(self.scores[name])) for name in self.scores] + [tau, 0.05])
        grid = np.linspace(0.0, min(float(self.n_forests), 1.05 * top), n_points)
        return {name: tau_curve(self.scores[name], self.y_test, grid) for name in self.scores}

    def pair_table(self, tau: float = 0.0) -> pd.DataFrame:
        """One row per test pair: instances, classes, true label, and each model's score and
        prediction under the threshold ``tau``."""
        cls = np.asarray(self.classes, dtype=object)
        names = np.array(PAIR_LABELS + (UNDETERMINED_LABEL,), dtype=object)
        frame = pd.DataFrame({
            "pair": np.arange(len(self.y_test)),
            "instance a": self.test_pairs[:, 0], "instance b": self.test_pairs[:, 1],
            "class a": cls[self.test_pair_classes[:, 0]], "class b": cls[self.test_pair_classes[:, 1]],
            "true label": names[self.y_test],
        })
        for m in MODELS:
            frame[f"{m} S0-S1"] = self.scores[m]
            frame[f"{m} prediction"] = names[self.predictions(m, tau)]
        return frame

    # ------------------------------------------------------------------ persistence
    def to_npz(self) -> bytes:
        """All arrays and the metadata in one compressed ``.npz`` (metadata as a JSON string)."""
        arrays = {"train_pairs": self.train_pairs, "y_train": self.y_train, "test_pairs": self.test_pairs,
                  "y_test": self.y_test, "test_pair_classes": self.test_pair_classes,
                  "train_pool": self.train_pool, "test_pool": self.test_pool}
        for m in self.models:
            arrays[f"level_train[{m}]"] = np.asarray(self.level_train[m], dtype=np.float64)
            arrays[f"level_test[{m}]"] = np.asarray(self.level_test[m], dtype=np.float64)
            arrays[f"scores[{m}]"] = np.asarray(self.scores[m], dtype=np.float64)
        for q, level in enumerate(self.weights):
            for k, W in enumerate(level):
                arrays[f"weights[{q}][{k}]"] = W
        meta = {"classes": list(self.classes), "n_levels": self.n_levels, "forest_names": self.forest_names,
                "n_weight_levels": len(self.weights), "seconds": self.seconds, "settings": self.settings}
        return pack(arrays, meta)

    def result_rows(self) -> list[dict]:
        """Tidy rows (repetition 0, model, "accuracy", value, fit seconds) for the results store."""
        return [{"repetition": 0, "method": m, "metric": "accuracy", "value": self.accuracy(m),
                 "seconds": self.seconds.get(m)} for m in MODELS]

    @classmethod
    def from_npz(cls, data: bytes) -> "SiameseExperiment":
        """The experiment back from the bytes of :meth:`to_npz`."""
        z, meta = unpack(data)
        K = len(meta["forest_names"])
        models = [m for m in MODELS if m in meta["n_levels"]]
        return cls(
            classes=meta["classes"], train_pairs=z["train_pairs"], y_train=z["y_train"],
            test_pairs=z["test_pairs"], y_test=z["y_test"], test_pair_classes=z["test_pair_classes"],
            train_pool=z["train_pool"],
            test_pool=z["test_pool"],
            level_train={m: z[f"level_train[{m}]"] for m in models},
            level_test={m: z[f"level_test[{m}]"] for m in models},
            n_levels={m: int(v) for m, v in meta["n_levels"].items()},
            scores={m: z[f"scores[{m}]"] for m in models},
            weights=[[z[f"weights[{q}][{k}]"] for k in range(K)] for q in range(meta["n_weight_levels"])],
            forest_names=meta["forest_names"], seconds=meta["seconds"], settings=meta["settings"],
        )


# ------------------------------------------------------------------------- the run
def run_siamese_experiment(
    X,
    y,
    n_train_pairs: int,
    *,
    n_test_pairs: int | None = None,
    n_estimators: int = 50,
    lam: float = 1.0,
    z_schedule: str = "double",
    qp_probas: str = "oof",
    max_levels: int = 4,
    patience: int = 1,
    n_completely_random: int = 2,
    n_random: int = 2,
    n_folds: int = 3,
    scanning: bool = False,
    image_shape: Sequence[int] | None = None,
    window_sizes: Sequence[int] | None = None,
    scan_estimators: int = 30,
    classes: Sequence[str] | None = None,
    random_state: int | None = None,
    n_jobs: int | None = None,
    progress: ProgressCallback = None,
) -> SiameseExperiment:
    """Train SDF and gcForest on the same pairs with the same seeds and collect what they did.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Instance classes (encoded or not); pairs get 0 (same class) or 1.
    n_train_pairs : int
        N; the test set has ``n_test_pairs`` (default ``2N/3``) pairs from a disjoint pool.
    n_estimators : int
        Trees per forest, T (paper: 100-1000).
    lam, z_schedule, qp_probas : SDF parameters (Eq. 23, §C.6, §C.5).
    max_levels, patience, n_completely_random, n_random, n_folds : cascade parameters (both models).
    scanning : bool
        Multi-grained scanning with two lock-step windows (§C.7) before the cascades; needs
        ``image_shape`` (H, W) with ``H * W == n_features``.
    window_sizes : list of int, optional
        Scanning window sides; default :func:`mvlab.siamese.scanning.default_window_sizes`.
    scan_estimators : int
        Trees per scanning forest (C-leo: 30).
    classes : sequence of str, optional
        Class names when ``y`` holds codes ``0..C-1`` (e.g. ``ds.classes``); default the labels.
    random_state : int, RandomState or None
        Seeds the pair draw, then one seed shared by both cascades (and the scanner).
    n_jobs : int, optional
    progress : callable ``(fraction, message) -> None``, optional
        Once SDF's cascade is grown, the experiment with SDF alone is offered to it as a partial result
        (:func:`mvlab.core.progress.report_partial`; built only when it listens).

    Returns
    -------
    SiameseExperiment
    """
    X, class_codes, y_enc = _check_data(X, y, n_train_pairs, scanning, image_shape)
    rng = check_random_state(random_state)
    if progress is not None:
        progress(0.0, Message(N_("drawing pairs")))
    split = make_pair_split(y_enc, int(n_train_pairs), n_test_pairs, random_state=rng.randint(_MAX_SEED))
    seed = int(rng.randint(_MAX_SEED))
    F_train = pair_features(X, split.train_pairs)
    F_test = pair_features(X, split.test_pairs)
    seconds = {}
    start = 0.0
    if scanning:
        t = time.perf_counter()
        if progress is not None:
            progress(0.02, Message(N_("multi-grained scanning (lock-step windows)")))
        F_train, F_test, window_sizes = _scan_pairs(F_train, split.y_train, F_test, image_shape, window_sizes,
                                                    scan_estimators, n_folds, n_jobs, seed)
        seconds["scanning"] = time.perf_counter() - t
        start = 0.2

    common = dict(lam=lam, z_schedule=z_schedule, qp_probas=qp_probas, max_levels=max_levels, patience=patience,
                  n_completely_random=n_completely_random, n_random=n_random, n_folds=n_folds,
                  n_estimators=n_estimators, n_jobs=n_jobs, random_state=seed)
    span = (1.0 - start) / 2
    runs = {}
    settings = {
        "n_train_pairs": int(len(split.y_train)), "n_test_pairs": int(len(split.y_test)),
        "n_estimators": int(n_estimators), "lam": float(lam), "z_schedule": z_schedule, "qp_probas": qp_probas,
        "max_levels": int(max_levels), "patience": int(patience), "n_completely_random": int(n_completely_random),
        "n_random": int(n_random), "n_folds": int(n_folds), "scanning": bool(scanning),
        "window_sizes": [int(w) for w in window_sizes] if scanning else None,
        "scan_estimators": int(scan_estimators) if scanning else None,
        "random_state": int(random_state) if isinstance(random_state, (int, np.integer)) else None,
        "cascade_seed": seed,
    }

    def experiment() -> SiameseExperiment:
        """What the cascades grown so far measured (SDF's first: a partial result holds it alone)."""
        sdf = runs["SDF"].model
        return SiameseExperiment(
            classes=_class_names(class_codes, classes),
            train_pairs=split.train_pairs, y_train=split.y_train, test_pairs=split.test_pairs, y_test=split.y_test,
            test_pair_classes=y_enc[split.test_pairs],
            train_pool=split.train_pool, test_pool=split.test_pool,
            level_train={m: r.level_train for m, r in runs.items()},
            level_test={m: r.level_test for m, r in runs.items()},
            n_levels={m: r.n_levels for m, r in runs.items()}, scores={m: r.scores for m, r in runs.items()},
            weights=[[np.asarray(W) for W in lv] for lv in sdf.weights_],
            forest_names=_forest_names(sdf), seconds=dict(seconds), settings=settings,
        )

    for i, (m, weighting) in enumerate((("SDF", "qp"), ("gcForest", "uniform"))):
        runs[m] = _fit_cascade(SiameseDeepForest(weighting=weighting, **common), m, F_train, split.y_train, F_test,
                               split.y_test, scaled(progress, start + i * span, span * 0.95))
        seconds[m] = runs[m].seconds
        if i == 0:
            report_partial(progress, experiment, Message(N_("1 of 2 cascades (SDF)")))
    if progress is not None:
        progress(1.0, Message(N_("done")))
    return experiment()


def _check_data(X, y, n_train_pairs, scanning, image_shape):
    """``X`` as float64 (n_samples, n_features), the sorted distinct labels of ``y`` and ``y`` encoded as
    their indices (n_samples,); a ``ValueError`` in words for data pairs cannot be drawn from or scanned."""
    X = np.asarray(X, dtype=np.float64)
    y_raw = np.asarray(y)
    if X.ndim != 2 or y_raw.shape != (X.shape[0],):
        raise ValueError(f"X must be (n_samples, n_features) and y (n_samples,); got {X.shape} and {y_raw.shape}.")
    names, y_enc = np.unique(y_raw, return_inverse=True)
    if names.size < 2:
        raise ValueError("the data have a single class: dissimilar pairs cannot be drawn.")
    if not isinstance(n_train_pairs, (int, np.integer)) or n_train_pairs < 6:
        raise ValueError(f"the number of training pairs must be an integer >= 6; got {n_train_pairs!r}.")
    if scanning:
        if image_shape is None:
            raise ValueError("multi-grained scanning needs image data: these data have no image shape.")
        if int(np.prod(image_shape)) != X.shape[1]:
            raise ValueError(f"image shape {tuple(image_shape)} does not match the {X.shape[1]} features.")
    return X, names, y_enc


def _scan_pairs(F_train, y_train, F_test, image_shape, window_sizes, scan_estimators, n_folds, n_jobs, seed):
    """Multi-grained scanning with two lock-step windows (§C.7), fitted once on the training pairs.

    ``F_train`` (N, 2 * H * W) and ``F_test`` (M, 2 * H * W) are concatenated pairs; returns their scanned
    vectors, (N, n_scanned) and (M, n_scanned), and the window sides used."""
    scanner = MultiGrainedScanner(
        image_shape=tuple(int(s) for s in image_shape), window_sizes=window_sizes, pairs=True,
        n_estimators=scan_estimators, n_folds=n_folds, n_jobs=n_jobs, random_state=seed,
    )
    F_train = scanner.fit_transform(F_train, y_train)
    return F_train, scanner.transform(F_test), list(scanner.window_sizes_)


class _CascadeRun(NamedTuple):
    """One fitted cascade of a :class:`SiameseExperiment` and what it measured."""

    model: SiameseDeepForest
    level_train: np.ndarray
    """(levels built,) training (out-of-fold) accuracy of every level."""
    level_test: np.ndarray
    """(levels kept,) test accuracy of every kept level."""
    n_levels: int
    scores: np.ndarray
    """(M,) ``S0 - S1`` of every test pair at the last kept level."""
    seconds: float


def _fit_cascade(model, name, F_train, y_train, F_test, y_test, progress) -> _CascadeRun:
    """Fit ``model`` on the training vectors ``F_train`` (N, n) and labels (N,), and score its levels on
    ``F_test`` (M, n) and ``y_test`` (M,); ``progress`` messages are prefixed with ``name``.

    Both cascades take the same vectors: concatenated pairs, or the output of the one scanner fitted in
    :func:`run_siamese_experiment` (a scanner inside each model would be fitted twice, with the same
    result)."""
    t = time.perf_counter()
    step = (lambda f, msg: progress(f, Message(N_("{model}: {step}"), model=name, step=msg))) if progress else None
    model.fit_from_vectors(F_train, y_train, progress=step)
    level_test, scores = _level_accuracies(model, F_test, y_test)
    level_train = np.asarray(model.level_scores_, dtype=np.float64)
    return _CascadeRun(model, level_train, level_test, int(model.n_levels_), scores, time.perf_counter() - t)


def _forest_names(model) -> list[str]:
    """Names of the forests of a level: ``"CRF 1", ..., "RF 1", ...``."""
    kinds = ["CRF"] * model.n_completely_random + ["RF"] * model.n_random
    return [f"{k} {kinds[:i + 1].count(k)}" for i, k in enumerate(kinds)]


def _class_names(codes: np.ndarray, classes) -> list[str]:
    """Names of the sorted distinct labels ``codes``: ``classes[code]`` when the labels are codes
    ``0..C-1`` of ``classes``, else the labels themselves."""
    if classes is not None and np.issubdtype(codes.dtype, np.integer) and codes.max() < len(classes):
        return [str(classes[int(v)]) for v in codes]
    return [str(c) for c in codes]
