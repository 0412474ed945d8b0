"""Tables for people: what ``st.dataframe`` shows of a numeric result table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mvlab.i18n import N_, _, gettext

__all__ = ["COLUMNS", "column_name", "translated", "readable"]


COLUMNS = (
    # the results' tables (mvlab.experiments: CombinationComparison.table, SiameseExperiment.table, ...)
    N_("combination"), N_("test accuracy"), N_("seconds"), N_("method"), N_("dataset"), N_("accuracy"),
    N_("model"), N_("level"), N_("forest"), N_("weight"), N_("class"), N_("view"), N_("features"), N_("mean"),
    N_("median std"), N_("constant features"), N_("min"), N_("max"), N_("average aligned rank"), N_("rank"),
    N_("p (Holm)"), N_("significant"), N_("wins"), N_("ties"), N_("losses"), N_("exact binomial p"),
    N_("verdict"), N_("average rank"), N_("std"), N_("value"), N_("dataset row"), N_("true label"),
    N_("prediction"), N_("paper"), N_("paper's value"), N_("table"), N_("cell"), N_("reading"), N_("open"),
)
"""The column names of the tables the pages show, in English as the library writes them (and its downloads keep
them: a CSV's columns do not change with the reader), marked for the catalogues: :func:`readable` and
:func:`translated` show them in the reader's language."""


def column_name(name) -> str:
    """A column's name as a reader reads it: ``snake_case`` written with spaces, in the reader's language where
    the catalogue has it (a view's or a method's name stays as it is)."""
    spaced = str(name).replace("_", " ")
    return gettext(spaced)


def translated(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its column names (and index name) in the reader's language (:func:`column_name`), values
    unchanged; a new frame sharing the data."""
    out = frame.rename(columns=column_name)
    if out.index.name:
        out.index.name = column_name(out.index.name)
    return out


def readable(frame: pd.DataFrame, decimals: int = 4) -> pd.DataFrame:
    """A copy for display: floats rounded, missing values "—" (not ``None``/``nan``), booleans
    "yes"/"no", and ``snake_case`` column names (and index name) written with spaces, all in the reader's language
    (:func:`translated`)."""
    out = frame.copy()
    yes, no = _("yes"), _("no")
    for col in out.columns:
        values = out[col]
        if pd.api.types.is_bool_dtype(values):
            out[col] = np.where(values, yes, no)
        elif pd.api.types.is_float_dtype(values):
            out[col] = [("—" if pd.isna(v) else f"{v:.{decimals}f}".rstrip("0").rstrip(".") if v != 0 else "0")
                        for v in values]
        elif values.dtype == object:
            out[col] = ["—" if v is None or (isinstance(v, float) and np.isnan(v)) else v for v in values]
    return translated(out)
