"""Figures as files: a report's charts rendered to PNG by plotly.js in a headless Chromium.

``python -m mvlab reproduce ... --figures DIR`` uses this, so the charts of a reproduction (average
ranks, the sign test of the paper's Fig. 3, critical-difference diagrams) can go into a report
without opening the dashboard. Rendering uses the plotly.js bundled with the ``plotly`` package and
the system's Chromium through Playwright (``playwright`` is in requirements.txt; Chromium comes from
the system, ``apt-get install chromium``; nothing is downloaded).
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Mapping

import plotly
import plotly.graph_objects as go

from mvlab.experiments.report import ComparisonReport
from mvlab.viz import benchmark_figures

__all__ = ["report_figures", "write_png"]


def report_figures(report: ComparisonReport) -> dict[str, go.Figure]:
    """The charts the Benchmark page draws for ``report``, by file stem: ``average_ranks``,
    ``sign_test`` (against ``report.baseline``) and one ``critical_difference_<kind>`` per
    diagram (``nemenyi``, ``holm``), each only when the report has what it needs."""
    figures = {}
    if report.ranks is not None:
        figures["average_ranks"] = benchmark_figures.average_rank_bars(report.ranks)
    if report.sign_tests is not None:
        figures["sign_test"] = benchmark_figures.win_tie_loss(report.sign_tests, report.baseline, report.sign_critical)
    for kind, cd in report.critical_differences.items():
        figures[f"critical_difference_{kind}"] = benchmark_figures.critical_difference_diagram(cd)
    return figures


def chromium_path() -> str | None:
    """The system Chromium, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def write_png(figures: Mapping[str, go.Figure], folder, *, width: int = 900, height: int = 520,
              scale: float = 2.0) -> list[Path]:
    """Render every figure to ``folder/<name>.png`` (``width`` x ``height`` CSS pixels at ``scale``).

    Raises a ``ValueError`` saying what to install when Playwright or Chromium is missing.
    Returns the paths written, in the order of ``figures``.
    """
    browser_path = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        browser_path = None
    if browser_path is None:
        raise ValueError("Writing figures needs Chromium and Playwright: apt-get install chromium, and pip install "
                         "playwright (in requirements.txt); no browser is downloaded.")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    js = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text()
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        page = browser.new_page()
        page.set_content("<html><body><div id='fig'></div></body></html>")
        page.add_script_tag(content=js)
        for name, fig in figures.items():
            spec = json.loads(fig.to_json())
            url = page.evaluate(
                """async ([spec, w, h, s]) => {
                    const gd = document.getElementById('fig');
                    await Plotly.newPlot(gd, spec.data, spec.layout, {staticPlot: true});
                    return await Plotly.toImage(gd, {format: 'png', width: w, height: h, scale: s});
                }""", [spec, width, height, scale])
            path = folder / f"{name}.png"
            path.write_bytes(base64.b64decode(url.split(",", 1)[1]))
            written.append(path)
        browser.close()
    return written
