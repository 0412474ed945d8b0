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
from mvlab.i18n import N_, format_number, gettext, ngettext

__all__ = ["read_multiview_csv", "MAX_UPLOAD_BYTES"]


MAX_UPLOAD_BYTES = 256 * 1024 * 1024
"""Largest CSV that :func:`read_multiview_csv` accepts by default (256 MiB: about 30 million numbers, e.g.
125,000 rows of 100 features written at full precision; above 10,000 training rows the dashboard's
comparisons take prototypes, and their memory estimate says before Train whether a worker holds the run)."""

UPLOADED = N_("uploaded file")
"""The name of data read from bytes or a nameless file object (in English: a dataset's name; a message about the
file says it in the reader's language)."""


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
        raise ValueError(gettext("{name}: this file cannot be read as CSV ({error}).").format(
            name=name, error=str(exc).strip())) from None
    frame.columns = header
    if len(frame) == 0:
        raise ValueError(gettext("{name}: the file has a header but no data rows.").format(name=name))

    feature_cols = [c for c in header if c != label_column and c not in drop_columns]
    if not feature_cols:
        raise ValueError(gettext("{name}: there are no feature columns besides the label.").format(name=name))
    views = _views_from_names(feature_cols, separator, name)
    X = _parse_numbers(text, frame, feature_cols, name)
    labels = frame[label_column].str.strip()
    if (labels == "").any():
        r = int(np.flatnonzero((labels == "").to_numpy())[0])
        raise ValueError(gettext("{name}: the label is missing at line {line}.").format(name=name, line=r + 2))
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
            raise ValueError(gettext("{name}: the file looks gzip-compressed but cannot be decompressed ({error}).")
                             .format(name=name, error=exc)) from None
        if len(raw) > max_bytes:
            raise ValueError(gettext("{name}: once decompressed, the file is larger than the {limit} MiB limit. Upload "
                                     "a sample of the rows or fewer columns.").format(
                name=name, limit=format_number(max_bytes / 2**20, 0)))
    if not raw.strip():
        raise ValueError(gettext("{name}: the file is empty.").format(name=name))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(gettext("{name}: this is not a text CSV file (it is not UTF-8 text).").format(name=name)) \
            from None
    if "\x00" in text:
        raise ValueError(gettext("{name}: this is not a text CSV file (it contains binary data).").format(name=name))
    return text.replace("\r\n", "\n").replace("\r", "\n")  # Windows and old Mac line ends


def _checked_header(text: str, name: str, label_column: str, separator: str, drop_columns) -> list[str]:
    """The header's column names (stripped): at least two, unique, the label column among them and every
    column to drop present; else a ValueError naming the column."""
    try:
        header = next(csv.reader(io.StringIO(text)), [])
    except csv.Error as exc:
        raise ValueError(gettext("{name}: the header line cannot be read as CSV ({error}).").format(
            name=name, error=exc)) from None
    header = [h.strip() for h in header]
    if len(header) < 2:
        raise ValueError(ngettext(
            "{name}: the header has {n} column(s); expected a '{label}' column and feature columns named "
            "'{pattern}', separated by commas.",
            "{name}: the header has {n} column(s); expected a '{label}' column and feature columns named "
            "'{pattern}', separated by commas.", len(header)).format(
            name=name, n=len(header), label=label_column, pattern=f"view{separator}feature"))
    seen: set[str] = set()
    for j, h in enumerate(header):
        if h in seen:
            raise ValueError(gettext("{name}: column name {column} appears twice (columns must be unique; second at "
                                     "column {position}).").format(name=name, column=repr(h), position=j + 1))
        seen.add(h)
    if label_column not in header:
        raise ValueError(gettext(
            "{name}: there is no label column {label}; the header starts with {start}. Say which column holds the "
            "labels (the sidebar's '{box}' box in the app, {argument} in Python), or name it {label}.").format(
            name=name, label=repr(label_column), start=header[:5], box=gettext("Label column"),
            argument="label_column="))
    unknown_drop = [c for c in drop_columns if c not in header]
    if unknown_drop:
        raise ValueError(gettext("{name}: columns to drop not found: {columns}.").format(name=name,
                                                                                           columns=unknown_drop))
    return header


def _views_from_names(feature_cols: list[str], separator: str, name: str) -> dict[str, list[int]]:
    """Views from ``view<separator>feature`` column names: view name -> positions among ``feature_cols``,
    in the order of their first column."""
    views: dict[str, list[int]] = {}
    for j, col in enumerate(feature_cols):
        view, sep, feature = col.partition(separator)
        if not sep:
            raise ValueError(gettext("{name}: column {column} has no view prefix; name feature columns '{pattern}' "
                                     "(for example '{example}').").format(
                name=name, column=repr(col), pattern=f"view{separator}feature", example=f"gene{separator}{col}"))
        if not view.strip():
            raise ValueError(gettext("{name}: column {column} has an empty view name before {separator}.").format(
                name=name, column=repr(col), separator=repr(separator)))
        if not feature.strip():
            raise ValueError(gettext("{name}: column {column} gives view {view} no feature name (an empty view).")
                             .format(name=name, column=repr(col), view=repr(view)))
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
            raise ValueError(gettext("{name}: missing value at line {line}, column {column}; fill or remove that "
                                     "row.").format(name=name, line=r + 2, column=repr(col)))
        bad = np.isnan(values) & ~cells.str.lower().isin(["nan", "-nan", "+nan"]).to_numpy()
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValueError(gettext("{name}: non-numeric value {value} at line {line}, column {column}.").format(
                name=name, value=repr(cells.iloc[r]), line=r + 2, column=repr(col)))
        nonfinite = ~np.isfinite(values)
        if nonfinite.any():
            r = int(np.flatnonzero(nonfinite)[0])
            raise ValueError(gettext("{name}: {value} (not a finite number) at line {line}, column {column}.").format(
                name=name, value=repr(cells.iloc[r]), line=r + 2, column=repr(col)))
    raise ValueError(gettext("{name}: some feature values could not be read as numbers.").format(name=name))


def _read_bytes(source, max_bytes: int) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray)):
        raw, name = bytes(source), UPLOADED
    elif isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(gettext("{path}: no such file.").format(path=path))
        if path.stat().st_size > max_bytes:
            raise ValueError(gettext("{name}: the file is {size} MiB; the limit is {limit} MiB.").format(
                name=path.name, size=format_number(path.stat().st_size / 2**20, 1),
                limit=format_number(max_bytes / 2**20, 0)))
        raw, name = path.read_bytes(), path.name.split(".")[0]
    elif hasattr(source, "read"):
        name = Path(getattr(source, "name", UPLOADED)).name or UPLOADED
        raw = source.read(max_bytes + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
    else:
        raise ValueError(f"Cannot read a CSV from an object of type {type(source).__name__}.")
    if len(raw) > max_bytes:
        raise ValueError(gettext("{name}: the file is larger than the {limit} MiB limit. Upload a gzip-compressed "
                                 "copy (.csv.gz), a sample of the rows, or fewer columns.").format(
            name=gettext(UPLOADED) if name == UPLOADED else name, limit=format_number(max_bytes / 2**20, 0)))
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
        raise ValueError(gettext("{name}: every instance has the label '{label}'; classification needs at least two "
                                 "classes.").format(name=name, label=values[0]))
    lonely = values[counts < 2]
    if lonely.size:
        raise ValueError(gettext("{name}: class '{label}' has a single instance; every class needs at least two (for "
                                 "stratified splits). Remove that row or add instances.").format(
            name=name, label=lonely[0]))
