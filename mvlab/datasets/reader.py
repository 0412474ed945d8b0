"""Reading a multi-view dataset from a CSV file (uploads and the bundled data alike).

Convention: a header; one label column; every other column named ``view.feature``.  Every bad
input raises a ``ValueError`` that says what is wrong and where (line and column).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from mvlab.datasets.container import MultiViewDataset

__all__ = ["read_multiview_csv", "MAX_UPLOAD_BYTES"]


MAX_UPLOAD_BYTES = 256 * 1024 * 1024
"""Largest CSV that :func:`read_multiview_csv` accepts by default (256 MiB: about 30 million numbers, e.g.
125,000 rows of 100 features written at full precision; above 10,000 training rows the dashboard's
comparisons take prototypes, and their memory estimate says before Train whether a worker holds the run)."""


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
    text = _decode_text(raw, name, max_bytes)
    header = _checked_header(text, name, label_column, separator, drop_columns)
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
    views = _views_from_names(feature_cols, separator, name)
    X = _parse_numbers(text, frame, feature_cols, name)
    labels = frame[label_column].str.strip()
    if (labels == "").any():
        r = int(np.flatnonzero((labels == "").to_numpy())[0])
        raise ValueError(f"{name}: the label is missing at line {r + 2}.")
    labels = _numeric_labels_if_possible(labels.to_numpy(dtype=object))
    _check_classes(labels, name)
    dataset_kwargs.setdefault("origin", "file")
    return MultiViewDataset(X, labels, views, name=name, feature_names=list(feature_cols), **dataset_kwargs)


def _decode_text(raw: bytes, name: str, max_bytes: int) -> str:
    """The file's text with ``\\n`` line ends, gunzipped if it is gzip (within ``max_bytes``), or a
    ValueError saying why it is not a text CSV file."""
    if raw[:2] == b"\x1f\x8b":
        import gzip

        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
                raw = gz.read(max_bytes + 1)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{name}: the file looks gzip-compressed but cannot be decompressed ({exc}).") from None
        if len(raw) > max_bytes:
            raise ValueError(f"{name}: once decompressed, the file is larger than the {max_bytes / 2**20:.0f} MiB "
                             "limit. Upload a sample of the rows or fewer columns.")
    if not raw.strip():
        raise ValueError(f"{name}: the file is empty.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{name}: this is not a text CSV file (it is not UTF-8 text).") from None
    if "\x00" in text:
        raise ValueError(f"{name}: this is not a text CSV file (it contains binary data).")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # Windows and old Mac line ends


def _checked_header(text: str, name: str, label_column: str, separator: str, drop_columns) -> list[str]:
    """The header's column names (stripped): at least two, unique, the label column among them and every
    column to drop present; else a ValueError naming the column."""
    try:
        header = next(csv.reader(io.StringIO(text)), [])
    except csv.Error as exc:
        raise ValueError(f"{name}: the header line cannot be read as CSV ({exc}).") from None
    header = [h.strip() for h in header]
    if len(header) < 2:
        raise ValueError(
            f"{name}: the header has {len(header)} column(s); expected a '{label_column}' column and "
            f"feature columns named 'view{separator}feature', separated by commas."
        )
    seen: set[str] = set()
    for j, h in enumerate(header):
        if h in seen:
            raise ValueError(f"{name}: column name {h!r} appears twice (columns must be unique; second at column "
                             f"{j + 1}).")
        seen.add(h)
    if label_column not in header:
        raise ValueError(
            f"{name}: there is no label column {label_column!r}; the header starts with {header[:5]}. "
            f"Say which column holds the labels (the sidebar's 'Label column' box in the app, label_column= in "
            f"Python), or name it {label_column!r}."
        )
    unknown_drop = [c for c in drop_columns if c not in header]
    if unknown_drop:
        raise ValueError(f"{name}: columns to drop not found: {unknown_drop}.")
    return header


def _views_from_names(feature_cols: list[str], separator: str, name: str) -> dict[str, list[int]]:
    """Views from ``view<separator>feature`` column names: view name -> positions among ``feature_cols``,
    in the order of their first column."""
    views: dict[str, list[int]] = {}
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
    return views


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
            raise ValueError(f"{path.name}: the file is {path.stat().st_size / 2**20:.1f} MiB; the limit is "
                             f"{max_bytes / 2**20:.0f} MiB.")
        raw, name = path.read_bytes(), path.name.split(".")[0]
    elif hasattr(source, "read"):
        name = Path(getattr(source, "name", "uploaded file")).name or "uploaded file"
        raw = source.read(max_bytes + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
    else:
        raise ValueError(f"Cannot read a CSV from an object of type {type(source).__name__}.")
    if len(raw) > max_bytes:
        raise ValueError(f"{name}: the file is larger than the {max_bytes / 2**20:.0f} MiB limit. Upload a "
                         "gzip-compressed copy (.csv.gz), a sample of the rows, or fewer columns.")
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
        raise ValueError(f"{name}: every instance has the label '{values[0]}'; classification needs at least two "
                         f"classes.")
    lonely = values[counts < 2]
    if lonely.size:
        raise ValueError(
            f"{name}: class '{lonely[0]}' has a single instance; every class needs at least two "
            f"(for stratified splits). Remove that row or add instances."
        )
