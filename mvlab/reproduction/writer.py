"""Writing the readings' cells files and docs/reproduction.md from the committed draws files.

Nothing here computes a model. Each reading of :data:`mvlab.reproduction.registry.READINGS` has its draws file
``<stem>_draws.csv``; from it come its cells file ``<stem>_cells.csv`` and its section of the report. The report is
rendered whole from its template (``report_template.md`` beside this module): the readings' sections replace the
template's ``<!-- BEGIN name -->`` ... ``<!-- END name -->`` blocks, and every ``{{name.fact}}`` of its prose is
filled in with that reading's fact (:attr:`mvlab.reproduction.reading.Reading.facts`), ``{{rules}}`` with the rules
of :mod:`mvlab.reproduction.verdicts`, ``{{coverage.x}}`` with the coverage tables and scope numbers of
:mod:`mvlab.reproduction.coverage`. ``reproduce report`` rewrites it byte for byte from the committed files, and a
test holds it to that; the sections that quote a command's printed output say so (the report's header names them).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from mvlab.core import resources
from mvlab.reproduction.coverage import coverage_facts
from mvlab.reproduction.markdown import replace_section
from mvlab.reproduction.outputs import OUTPUT_FACTS
from mvlab.reproduction.reading import Reading
from mvlab.reproduction.registry import READINGS, reading
from mvlab.reproduction.verdicts import rules_markdown

__all__ = ["REPRODUCTION_DIR", "TEMPLATE", "read_draws", "read_cells", "write_cells", "render_report",
           "write_report", "write_outputs", "PLACEHOLDER", "Files", "CommittedFiles"]

REPRODUCTION_DIR = resources.path("docs", "reproduction")
"""The committed draws and cells files (``<stem>_draws.csv``, ``<stem>_cells.csv``)."""

TEMPLATE = Path(__file__).with_name("report_template.md")
"""The report's template: its prose, with ``{{name.fact}}`` where a number from the files goes."""

PLACEHOLDER = re.compile(r"\{\{\s*([a-z0-9-]+)(?:\.([a-z0-9_]+))?\s*\}\}")
"""``{{name.fact}}`` (a reading's fact), ``{{rules}}`` or ``{{readings}}``."""

_BOOLEAN = {True: True, False: False, "True": True, "False": False}


def _path(name: str, kind: str, folder) -> Path:
    return Path(folder or REPRODUCTION_DIR) / f"{reading(name).stem}_{kind}.csv"


def read_draws(name: str, folder=None) -> pd.DataFrame | None:
    """The committed draws of the reading ``name`` in ``folder`` (default :data:`REPRODUCTION_DIR`), or None when
    none were computed yet."""
    path = _path(name, "draws", folder)
    return reading(name).draws_file(path.parent).read() if path.exists() else None


def read_cells(name: str, folder=None) -> pd.DataFrame | None:
    """The cells file of the reading ``name`` in ``folder`` (verdict columns as booleans, NaN where none), or None
    when none was written yet."""
    path = _path(name, "cells", folder)
    if not path.exists() or path.stat().st_size <= 1:
        return None
    cells = pd.read_csv(path, keep_default_na=True)
    for column in ("inside", "inside_one_draw"):
        if column in cells:
            cells[column] = cells[column].map(_BOOLEAN)
    if "paper_source" in cells:
        cells["paper_source"] = cells["paper_source"].astype(object).fillna("")
    return cells


class Files:
    """The readings' draws and cells computed from the draws files of one folder, each once."""

    def __init__(self, folder=None):
        self.folder = Path(folder or REPRODUCTION_DIR)
        self._cache: dict = {}

    def __call__(self, name: str) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
        """``(cells, draws)`` of the reading ``name``, or ``(None, None)`` when its draws file is missing or empty."""
        if name not in self._cache:
            r = reading(name)
            draws = r.read_draws(self.folder)
            if draws.empty:
                self._cache[name] = (None, None)
            else:
                self._cache[name] = (r.cells(draws, self.folder), draws)
        return self._cache[name]


class CommittedFiles:
    """The committed cells and draws files of ``folder`` (default: the report's), read as they are (the Papers
    page's view), called like :class:`Files`: ``files(name) -> (cells, draws)``."""

    def __init__(self, folder=None):
        self.folder = Path(folder or REPRODUCTION_DIR)

    def __call__(self, name: str):
        """``(cells, draws)`` of the reading ``name`` as committed (None where a file is missing)."""
        return read_cells(name, self.folder), read_draws(name, self.folder)


def write_cells(name: str, folder, files: Files | None = None) -> Path:
    """Write the cells file of the reading ``name`` in ``folder`` from its draws file there (an empty file when no
    draw is there yet); returns its path."""
    cells, _ = (files or Files(folder))(name)
    path = _path(name, "cells", folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    (cells if cells is not None else pd.DataFrame()).to_csv(path, index=False, float_format="%.6g")
    return path


def _section(r: Reading, files: Files) -> str:
    cells, draws = files(r.name)
    if draws is None:
        return f"_Not computed yet: `{r.command}`._"
    return r.markdown(cells, draws)


def render_report(folder=None, template=None, files: Files | None = None) -> str:
    """The report rendered from ``template`` (default :data:`TEMPLATE`) and the draws files of ``folder``: every
    reading's section, every ``{{name.fact}}`` and ``{{rules}}``. A fact of a reading not computed yet reads
    *not computed yet*; a placeholder naming no reading or fact is a ValueError (a mistake in the template)."""
    files = files or Files(folder)
    text = Path(template or TEMPLATE).read_text(encoding="utf-8")
    for r in READINGS.values():
        text = replace_section(text, r.name, _section(r, files)) if f"<!-- BEGIN {r.name} -->" in text else text
    facts: dict = {}

    def fill(match: re.Match) -> str:
        name, fact = match.group(1), match.group(2)
        if fact is None and name in SPECIAL:
            return SPECIAL[name](files)
        if name in FILES_FACTS:
            if name not in facts:
                facts[name] = FILES_FACTS[name](files)
        elif name in OUTPUT_FACTS:
            if name not in facts:
                try:
                    facts[name] = OUTPUT_FACTS[name](files.folder)
                except FileNotFoundError as missing:
                    return f"_(not computed yet: {Path(missing.filename).name})_"
        else:
            r = reading(name)
            cells, draws = files(name)
            if draws is None:
                return f"_(not computed yet: `{r.command}`)_"
            if name not in facts:
                facts[name] = {**common_facts(r, draws), **r.facts(cells, draws, files)}
        if fact not in facts[name]:
            raise ValueError(f"the report's template asks for {{{{{name}.{fact}}}}}, which {name!r} does not give; "
                             f"it gives {', '.join(sorted(facts[name]))}.")
        return facts[name][fact]

    return PLACEHOLDER.sub(fill, text)


def common_facts(r: Reading, draws: pd.DataFrame) -> dict:
    """The facts every reading gives: ``draws`` (how many draws or repetitions its file holds), ``hours`` (of model
    fitting, its ``seconds`` column summed, where those add up, ``Reading.seconds_add_up``; else a dash), ``file`` (a
    link to its draws file)."""
    hours = f"{draws['seconds'].sum() / 3600:.1f}" if r.seconds_add_up else "—"
    return {"draws": str(r.count_draws(draws)), "hours": hours,
            "file": f"[{r.stem}_draws.csv](reproduction/{r.stem}_draws.csv)"}


def readings_table(files: Files) -> str:
    """Every reading of the registry as a table row: paper, what it asks, its command, draws file, draws and hours."""
    lines = ["| paper | reading | command | draws file | draws | hours of model fitting (— : OFSP's per-fold times "
             "do not add up) |", "|---|---|---|---|---|---|"]
    for r in READINGS.values():
        _, draws = files(r.name)
        facts = common_facts(r, draws) if draws is not None else {"draws": "0", "hours": "—"}
        counted = r.draws_text(draws) if draws is not None else "0"
        lines.append(f"| {r.paper} | {r.title} | `{r.command}` | [{r.stem}_draws.csv](reproduction/{r.stem}_draws.csv) "
                     f"| {counted} | {facts['hours']} |")
    return "\n".join(lines)


SPECIAL = {"rules": lambda files: rules_markdown(), "readings": readings_table}
"""The placeholders without a fact: ``{{rules}}`` and ``{{readings}}``."""
FILES_FACTS = {"coverage": coverage_facts}
"""Facts computed from every reading's files at once, by name (``{{coverage.sdf}}``: the coverage tables of
:mod:`mvlab.reproduction.coverage`)."""


def write_report(folder, report, template=None, files: Files | None = None) -> Path:
    """Write the report rendered from the draws files of ``folder`` (:func:`render_report`) to ``report``."""
    report = Path(report)
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(render_report(folder, template, files), encoding="utf-8")
    return report


def write_outputs(names, folder, report=None, template=None) -> list[Path]:
    """Write the cells files of the readings ``names`` in ``folder`` and, when ``report`` is a path, the whole report
    rendered from ``folder``; returns the paths written."""
    files = Files(folder)
    written = [write_cells(name, folder, files) for name in names]
    if report:
        written.append(write_report(folder, report, template, files))
    return written

