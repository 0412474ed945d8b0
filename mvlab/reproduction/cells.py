"""A paper's table cells beside reproduced ones: per-cell statistics over independent draws.

A *cell* is one number a paper printed (a dataset, a setting, a model); mvlab's value of it is the mean
over independent draws of the protocol, given with its standard deviation, a 95 % confidence interval of the mean
(Student's t on the draws) and a 95 % prediction interval for one more draw. The paper's value is *inside* when it
lies in the interval of the mean, and *inside for one draw* when it lies in the prediction interval: the yardstick
for a paper's cell that was one run rather than a mean. The tables ``docs/reproduction/*_paper_cells.csv`` hold one
row per cell in the columns :data:`CELL_COLUMNS`.

Draws are kept one row per finished (draw, model) in an append-only CSV file (:class:`DrawsFile`), so a
run cut off loses only the draws in flight and a later run continues from the file.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["CELL_COLUMNS", "DrawsFile", "mean_interval", "prediction_interval", "summarise_cells", "cell_verdicts",
           "with_verdicts"]

CELL_COLUMNS = ["table", "dataset", "N", "T", "k", "classifier", "model", "reading", "draws", "mean", "std",
                "ci_low", "ci_high", "pi_low", "pi_high", "paper", "paper_source", "inside", "inside_one_draw"]
"""Columns of a cells file; a column that does not apply to a paper's tables is left empty. ``pi_low, pi_high``:
the 95 % prediction interval of one draw (:func:`prediction_interval`); ``paper_source``: where the paper's value
was printed when the table took it from another cell (Table 8 of the Siamese deep forest paper), else empty;
``inside_one_draw``: whether the paper's value lies in the prediction interval."""


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float, float]:
    """Mean, sample standard deviation and the two-sided Student-t interval of the mean of ``values``.

    ``(mean, std, low, high)``: ``mean -+ t_{(1+c)/2, n-1} * std / sqrt(n)``; with one value the std and the
    interval are NaN (one draw says nothing about its spread), with no value everything is NaN.
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return (math.nan,) * 4
    mean = float(x.mean())
    if x.size == 1:
        return mean, math.nan, math.nan, math.nan
    std = float(x.std(ddof=1))
    half = float(stats.t.ppf(0.5 + confidence / 2, x.size - 1)) * std / math.sqrt(x.size)
    return mean, std, mean - half, mean + half


def prediction_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """The two-sided Student-t prediction interval of one more draw from the distribution of ``values``.

    ``mean -+ t_{(1+c)/2, n-1} * std * sqrt(1 + 1/n)`` (normal draws, unknown variance); NaN with fewer than two
    values. Where :func:`mean_interval` asks "is the paper's value our mean?", this asks "could the paper's value be
    one draw of our protocol?": the yardstick for a printed cell that looks like a single run.
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size < 2:
        return math.nan, math.nan
    half = float(stats.t.ppf(0.5 + confidence / 2, x.size - 1)) * float(x.std(ddof=1)) * math.sqrt(1 + 1 / x.size)
    return float(x.mean()) - half, float(x.mean()) + half


class DrawsFile:
    """An append-only CSV of finished draws: one row per (draw, model), written and flushed to disk as
    soon as the draw ends, so an interrupted run keeps every draw it finished.

    Parameters
    ----------
    path : path of the CSV file (created with its header on the first :meth:`append`).
    columns : the columns, in order; rows written later must have exactly these keys.
    key : the columns that identify a draw (all its models' rows share them).
    """

    def __init__(self, path, columns: Sequence[str], key: Sequence[str]):
        self.path = Path(path)
        self.columns = list(columns)
        self.key = list(key)
        missing = [k for k in self.key if k not in self.columns]
        if missing:
            raise ValueError(f"key column(s) {missing} are not among the columns {self.columns}.")

    def read(self) -> pd.DataFrame:
        """Every row written so far (an empty frame with the columns when there is no file yet)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return pd.DataFrame(columns=self.columns)
        frame = pd.read_csv(self.path, keep_default_na=True)
        if list(frame.columns) != self.columns:
            raise ValueError(f"{self.path}: its columns {list(frame.columns)} are not the expected "
                             f"{self.columns}; move it aside or delete it to start afresh.")
        return frame

    def done(self) -> set:
        """Keys (tuples in the order of ``key``) of the draws already in the file."""
        frame = self.read()
        return {tuple(r) for r in frame[self.key].itertuples(index=False, name=None)}

    def append(self, rows: Iterable[dict]) -> None:
        """Write ``rows`` (dicts with exactly :attr:`columns`) at the end of the file, then flush and sync."""
        rows = list(rows)
        for row in rows:
            if set(row) != set(self.columns):
                raise ValueError(f"a draw row has the keys {sorted(row)}, not the columns {sorted(self.columns)}.")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists() or self.path.stat().st_size == 0
        with open(self.path, "a", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=self.columns, lineterminator="\n")
            if new:
                writer.writeheader()
            writer.writerows(rows)
            f.flush()
            os.fsync(f.fileno())


def summarise_cells(draws: pd.DataFrame, by: Sequence[str], value: str = "accuracy") -> pd.DataFrame:
    """Per group of ``by``: ``draws`` (how many), ``mean``, ``std``, ``ci_low``, ``ci_high`` of ``value``
    (:func:`mean_interval`) and ``pi_low``, ``pi_high`` (:func:`prediction_interval`)."""
    rows = []
    for key, group in draws.groupby(list(by), sort=True, dropna=False):
        values = group[value].to_numpy(dtype=np.float64)
        mean, std, low, high = mean_interval(values)
        pi_low, pi_high = prediction_interval(values)
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "draws": int(len(group)),
                     "mean": mean, "std": std, "ci_low": low, "ci_high": high, "pi_low": pi_low, "pi_high": pi_high})
    return pd.DataFrame(rows, columns=list(by) + ["draws", "mean", "std", "ci_low", "ci_high", "pi_low", "pi_high"])


def cell_verdicts(cells: pd.DataFrame, low: str = "ci_low", high: str = "ci_high") -> pd.Series:
    """Whether each cell's ``paper`` value lies inside ``[low, high]`` (the interval of the mean by default; the
    prediction interval with ``"pi_low", "pi_high"``); NaN where the paper printed no value or where there is no
    interval yet (a single draw)."""
    paper = cells["paper"].astype(float)
    inside = (paper >= cells[low]) & (paper <= cells[high])
    return inside.astype(object).where(paper.notna() & cells[low].notna(), np.nan)


def with_verdicts(cells: pd.DataFrame) -> pd.DataFrame:
    """``cells`` with ``inside`` and ``inside_one_draw`` (:func:`cell_verdicts` on each interval), ``paper_source``
    empty where not set, in the columns :data:`CELL_COLUMNS`."""
    cells = cells.copy()
    cells["inside"] = cell_verdicts(cells)
    cells["inside_one_draw"] = cell_verdicts(cells, "pi_low", "pi_high")
    if "paper_source" not in cells:
        cells["paper_source"] = ""
    return cells[CELL_COLUMNS].reset_index(drop=True)
