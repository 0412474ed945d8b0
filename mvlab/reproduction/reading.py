"""A *reading*: one way of running a paper's protocol, declared once.

A paper's protocol is a reading (its own tables run as mvlab reads them), and so is every variant that a
paper's text allows and that moves its numbers (λ chosen on the test draws, OFSP's accuracy measured on the test
fold, ...). Each is one :class:`Reading` record, kept in its own module and listed once in
:mod:`mvlab.reproduction.registry`; from the record alone

- the command line makes ``python -m mvlab reproduce <name>`` with the options that apply to it (its datasets and
  classifiers as the only choices, so that argparse refuses what does not apply),
- :mod:`mvlab.reproduction.writer` reads its draws file ``<stem>_draws.csv``, writes its cells file
  ``<stem>_cells.csv`` and its section of docs/reproduction.md (``<!-- BEGIN <name> -->``),
- the dashboard's Papers page shows its section under its title and reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import pandas as pd

__all__ = ["Reading", "SDF_OPTIONS", "OFSP_OPTIONS"]

SDF_OPTIONS = ("datasets", "pairs_grid", "trees_grid", "repetitions", "max_levels")
"""The options of every Siamese-deep-forest reading (draws of pairs, :mod:`mvlab.reproduction.sdf_paper`)."""
OFSP_OPTIONS = ("datasets", "classifiers", "repetitions")
"""The options of every OFSP reading (repetitions of 5-fold cross-validation, :mod:`mvlab.reproduction.ofsp_paper`)."""


@dataclass(frozen=True)
class Reading:
    """One reading of a paper, everything the command line, the writer and the Papers page need.

    Parameters
    ----------
    name : the subcommand of ``reproduce`` and the report's section (``"sdf-lambda"``); its files' stem is the
        name with underscores (``sdf_lambda_draws.csv``, ``sdf_lambda_cells.csv``).
    paper : ``"sdf"`` or ``"ofsp"``, the paper it reads.
    title : what it asks, one line (the Papers page's heading, the subcommand's help).
    reason : why it is run: the paper's words or the gap it tests (a sentence or two).
    datasets : the datasets it runs by default; ``dataset_choices`` the only ones it can run (default: those).
    classifiers, classifier_choices : the same for OFSP's base classifiers (empty for the Siamese deep forest).
    options : which of the kind's options apply (``SDF_OPTIONS`` / ``OFSP_OPTIONS`` or a part of them).
    tasks : ``tasks(datasets=..., classifiers=..., repetitions=..., pairs_grid=..., trees_grid=..., **extra)`` ->
        the draws to compute (the keys of ``options`` that apply, plus those of ``extra_options``).
    draws_file : ``draws_file(folder)`` -> the :class:`mvlab.reproduction.cells.DrawsFile` of its draws.
    run : ``run(path, tasks, n_jobs=..., say=..., **run_options)`` -> the number of draws computed.
    cells : ``cells(draws, folder)`` -> its cells (a DataFrame; ``folder`` holds the other committed files it
        compares with).
    markdown : ``markdown(cells, draws)`` -> its section of the report (``head=False``: without the line that
        names the command and the files, as the Papers page shows it).
    facts : ``facts(cells, draws, others)`` -> the numbers the report's prose quotes, by name
        (``{{<name>.<fact>}}`` in the report's template), formatted; ``others(name)`` gives another reading's
        ``(cells, draws)`` (None, None when not computed) for the facts that compare with it.
    extra_options : argparse options of this reading alone: ``{"--readings": {"nargs": "+", ...}}``.
    figure : ``figure(others)`` -> a plotly figure of its cells (``<stem>_against_ours``), or None when no cell
        has a printed value yet.
    seconds_add_up : whether its draws' ``seconds`` summed are its time of model fitting (not for OFSP's rows: each
        is a mean over a repetition's folds, and VC-GA's one run per fold is counted in each of its ten k).
    store_kind : the kind under which each of its repetitions keeps its finished folds in the results store (the
        command line gives its ``run`` a store as ``split_store``: a :class:`mvlab.store.RunStore`), or None.
    """

    name: str
    paper: str
    title: str
    reason: str
    datasets: tuple
    tasks: Callable
    draws_file: Callable
    run: Callable
    cells: Callable
    markdown: Callable
    facts: Callable = field(default=lambda cells, draws, others: {})
    dataset_choices: tuple = ()
    classifiers: tuple = ()
    classifier_choices: tuple = ()
    options: Sequence[str] = ()
    extra_options: dict = field(default_factory=dict)
    figure: Callable | None = None
    store_kind: str | None = None
    seconds_add_up: bool = True

    @property
    def stem(self) -> str:
        """The stem of its files: ``sdf_lambda`` for ``sdf-lambda``."""
        return self.name.replace("-", "_")

    @property
    def command(self) -> str:
        """The command that computes it: ``python -m mvlab reproduce <name>``."""
        return f"python -m mvlab reproduce {self.name}"

    def count_draws(self, draws: pd.DataFrame) -> int:
        """How many draws (or repetitions) ``draws`` holds: its distinct keys (:attr:`DrawsFile.key`)."""
        return draws[self.draws_file(".").key].drop_duplicates().shape[0] if len(draws) else 0

    def draws_text(self, draws: pd.DataFrame) -> str:
        """:meth:`count_draws` in words, saying what a draw is where its key joins repetitions with rows (OFSP's
        readings: one repetition of one dataset and classifier), e.g. ``"93: 31 repetitions x 3 rows of dataset and
        classifier"``; the bare count otherwise."""
        n = self.count_draws(draws)
        key = list(self.draws_file(".").key)
        if not n or "repetition" not in key or len(key) == 1:
            return str(n)
        rows = [c for c in key if c != "repetition"]
        per_row = draws[key].drop_duplicates().groupby(rows).size()
        low, high = int(per_row.min()), int(per_row.max())
        reps = f"{low} repetitions" if low == high else f"{low}–{high} repetitions"
        return f"{n}: {reps} × {len(per_row)} row{'s' if len(per_row) > 1 else ''} of {' and '.join(rows)}"

    def read_draws(self, folder) -> pd.DataFrame:
        """Its draws in ``folder`` (empty, with the columns, when none are there yet)."""
        return self.draws_file(folder).read()
