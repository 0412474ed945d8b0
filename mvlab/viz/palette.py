"""The colours the figures share: every colour and colour scale that more than one figure uses, named once.

Colour-blind safe: the named colours are Okabe and Ito's ("Color Universal Design", 2002), whose pairs stay apart
for people with deuteranopia or protanopia (tests/test_palette.py measures it with colorspacious). The conventions
they carry, the same on every page: vermillion (:data:`RED`) marks the method or choice in focus (OFSP, SDF, the
post-hoc control, the subset DVS chose) and what went wrong (losses, a wrong neighbour); bluish green (:data:`GREEN`)
what went right (the best bar, wins, a right neighbour); grey a baseline. Colour never says it alone: right and
wrong also differ by shape (:data:`RIGHT_SYMBOL`, :data:`WRONG_SYMBOL`) or by a word on the mark (✓ right, best,
chosen), wins, ties and losses by a pattern, classes by a marker symbol (:func:`class_symbols`). Colours that one
figure alone uses stay in its module.
"""

from __future__ import annotations

from typing import Sequence

from plotly.colors import qualitative

__all__ = ["BLUE", "ORANGE", "GREEN", "RED", "PURPLE", "SKY", "GREY", "LIGHT_GREY", "INK", "STRONG_INK",
           "REFERENCE_LINE", "EMPTY_CELL", "WHITE", "OKABE_ITO", "CATEGORY", "MANY_CLASSES", "RIGHT_SYMBOL",
           "WRONG_SYMBOL", "CLASS_SYMBOLS", "nth_color", "class_colors", "class_symbols", "presence_scale"]

# Okabe and Ito's colour-blind-safe hues (their yellow, #F0E442, is left out: 1.1:1 on white)
BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"
"""Bluish green: what went right."""
RED = "#D55E00"
"""Vermillion: the method in focus, what went wrong."""
PURPLE = "#CC79A7"
SKY = "#56B4E9"
GREY = "#666666"
"""A baseline: 5.7:1 on white, and apart from GREEN for every reader (tests/test_palette.py)."""
LIGHT_GREY = "#c7c7c7"
"""Ties, and what the eye should pass over."""

INK = "#333"
"""Lines, outlines and labels: class boundaries, critical lines, the diagram's axis and labels."""
STRONG_INK = "#111"
"""Marks drawn over bars that must stand out: the sign test's diamonds, the diagram's group bars."""
REFERENCE_LINE = "#444"
"""Dashed reference lines: a uniform weight (1/Q, 1/T), the current threshold τ."""
EMPTY_CELL = "#e9ecef"
"""A heatmap cell that holds nothing (a view not used, a feature in no view)."""
WHITE = "white"

OKABE_ITO = (BLUE, RED, GREEN, PURPLE, ORANGE, SKY, "#000000")
"""Okabe and Ito's seven colours (without yellow), the strongest apart under colour-vision deficiencies."""
CATEGORY = OKABE_ITO
"""Classes (up to seven), natural views, models without a colour of their own."""
MANY_CLASSES = tuple(qualitative.Safe)
"""Eleven colours for eight to eleven classes (CARTO's Safe, made for colour-blind readers; classes also differ by
:data:`CLASS_SYMBOLS`)."""
RIGHT_SYMBOL, WRONG_SYMBOL = "circle", "x-thin"
"""Marker shapes of right and wrong (drawn open, in :data:`GREEN` and :data:`RED`)."""
CLASS_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "triangle-down", "pentagon", "star-square",
                 "hexagon", "triangle-left", "hourglass")
"""One marker shape per class, beside its colour."""


def nth_color(colors: Sequence[str], i: int) -> str:
    """The ``i``-th colour of ``colors``, cycling when ``i`` runs past its end."""
    return colors[i % len(colors)]


def class_colors(classes: Sequence[str]) -> dict[str, str]:
    """A stable colour per class name: :data:`OKABE_ITO` up to seven classes, :data:`MANY_CLASSES` up to eleven,
    plotly's 26-colour Alphabet beyond (cycled)."""
    colors = OKABE_ITO if len(classes) <= len(OKABE_ITO) else (
        MANY_CLASSES if len(classes) <= len(MANY_CLASSES) else qualitative.Alphabet)
    return {c: nth_color(colors, i) for i, c in enumerate(classes)}


def class_symbols(classes: Sequence[str]) -> dict[str, str]:
    """A stable marker shape per class name (:data:`CLASS_SYMBOLS`, cycled): the second channel beside
    :func:`class_colors`."""
    return {c: nth_color(CLASS_SYMBOLS, i) for i, c in enumerate(classes)}


def presence_scale(color: str) -> list:
    """A two-level heatmap colour scale: 0 (absent) as an empty cell, 1 (present) in ``color``."""
    return [[0, EMPTY_CELL], [1, color]]
