"""The colours the figures share: every colour and colour scale that more than one figure uses, named once.

The conventions they carry, the same on every page: red marks the method or choice in focus (OFSP, SDF,
the post-hoc control, the subset DVS chose) and what went wrong (losses, a wrong neighbour); green what
went right (the best bar, wins, a right neighbour); grey a baseline.  Colours that one figure alone uses
stay in its module.
"""

from __future__ import annotations

from typing import Sequence

from plotly.colors import qualitative

__all__ = ["BLUE", "ORANGE", "GREEN", "RED", "PURPLE", "GREY", "INK", "STRONG_INK", "REFERENCE_LINE", "EMPTY_CELL",
           "WHITE", "CATEGORY", "nth_color", "class_colors", "presence_scale"]

# plotly's (and D3's) category-10 hues
BLUE = "#1f77b4"
ORANGE = "#ff7f0e"
GREEN = "#2ca02c"
RED = "#d62728"
PURPLE = "#9467bd"
GREY = "#7f7f7f"

INK = "#333"
"""Lines, outlines and labels: class boundaries, critical lines, the diagram's axis and labels."""
STRONG_INK = "#111"
"""Marks drawn over bars that must stand out: the sign test's diamonds, the diagram's group bars."""
REFERENCE_LINE = "#444"
"""Dashed reference lines: a uniform weight (1/Q, 1/T), the current threshold τ."""
EMPTY_CELL = "#e9ecef"
"""A heatmap cell that holds nothing (a view not used, a feature in no view)."""
WHITE = "white"

CATEGORY = qualitative.Plotly
"""Plotly's ten qualitative colours: classes, natural views, models without a colour of their own."""


def nth_color(colors: Sequence[str], i: int) -> str:
    """The ``i``-th colour of ``colors``, cycling when ``i`` runs past its end."""
    return colors[i % len(colors)]


def class_colors(classes: Sequence[str]) -> dict[str, str]:
    """A stable colour per class name (qualitative palette, 10 or 26 colours, cycled)."""
    colors = CATEGORY if len(classes) <= 10 else qualitative.Alphabet
    return {c: nth_color(colors, i) for i, c in enumerate(classes)}


def presence_scale(color: str) -> list:
    """A two-level heatmap colour scale: 0 (absent) as an empty cell, 1 (present) in ``color``."""
    return [[0, EMPTY_CELL], [1, color]]
