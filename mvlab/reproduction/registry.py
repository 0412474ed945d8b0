"""Every reading of the papers, listed once (:class:`mvlab.reproduction.reading.Reading`).

The command line makes one ``reproduce`` subcommand per entry, :mod:`mvlab.reproduction.writer` writes each one's
cells file and report section, and the dashboard's Papers page shows each under its paper. Adding a reading is its
module (with its ``READING``), its test, and its line here.
"""

from __future__ import annotations

from mvlab.reproduction import (
    madelon_generator,
    ofsp_knn,
    ofsp_leak,
    ofsp_paper_report,
    ofsp_svm_range,
    sdf_lambda,
    sdf_lambda_grid,
    sdf_mnist,
    sdf_paper_report,
    sdf_readings,
)
from mvlab.reproduction.reading import Reading

__all__ = ["READINGS", "PAPERS", "reading", "readings_of"]

READINGS: dict[str, Reading] = {r.name: r for r in (
    sdf_paper_report.READING,
    sdf_lambda.READING,
    sdf_readings.READING,
    sdf_lambda_grid.READING,
    sdf_mnist.READING,
    ofsp_paper_report.READING,
    ofsp_leak.READING,
    ofsp_knn.READING,
    ofsp_svm_range.READING,
    madelon_generator.READING,
)}
"""The readings by name, each paper's own protocol first."""

PAPERS = {"sdf": "Siamese deep forest (Utkin & Ryabinin)", "ofsp": "OFSP (Kumar & Minz)"}
"""The papers whose tables are read cell by cell, by the ``paper`` of their readings."""


def reading(name: str) -> Reading:
    """The reading called ``name``; ValueError naming the readings there are otherwise."""
    if name not in READINGS:
        raise ValueError(f"no reading called {name!r}; the readings are {', '.join(READINGS)}.")
    return READINGS[name]


def readings_of(paper: str) -> list[Reading]:
    """The readings of ``paper`` (``"sdf"`` or ``"ofsp"``), its own protocol first."""
    return [r for r in READINGS.values() if r.paper == paper]
