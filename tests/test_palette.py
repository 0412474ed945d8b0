"""The figures' colours (issue #47): the palettes stay apart for readers with deuteranopia or protanopia (simulated
with colorspacious, distances in CAM02-UCS), text meets 4.5:1 and marks that carry meaning 3:1 on white (WCAG 2.1
1.4.3, 1.4.11), and right and wrong differ by shape as well as by colour."""

import itertools

import numpy as np
import pytest
from colorspacious import cspace_convert, deltaE
from plotly.colors import hex_to_rgb, qualitative, unlabel_rgb

from mvlab.viz import palette as p
from mvlab.viz.siamese_figures import _SDF_COLORS
from mvlab.viz.view_construction_figures import VIEW_METHOD_COLORS

APART = 10.0
"""Smallest CAM02-UCS distance between two colours of a palette that carries meaning, for every reader (about
ten times a just-noticeable difference)."""
APART_WITH_SHAPES = 5.0
"""The same for eight to eleven classes, which also differ by marker shape (palette.CLASS_SYMBOLS)."""
VISIONS = (None, "deuteranomaly", "protanomaly")  # severity 100: deuteranopia and protanopia

PALETTES = {
    "classes and categories (up to 7)": p.OKABE_ITO,
    "right and wrong": (p.GREEN, p.RED),
    "wins, ties and losses": (p.GREEN, p.LIGHT_GREY, p.RED),
    "chosen, tied, other candidates": (p.RED, p.ORANGE, p.SKY),
    "view-construction methods": tuple(VIEW_METHOD_COLORS.values()),
    "SDF and gcForest": tuple(_SDF_COLORS.values()),
    "best bar and the others": (p.GREEN, p.GREY),
}


def rgb255(colour: str) -> np.ndarray:
    return np.array(hex_to_rgb(colour) if colour.startswith("#") else unlabel_rgb(colour), dtype=float)


def seen(colour: str, vision: str | None) -> np.ndarray:
    """The colour as a reader with ``vision`` (None: typical colour vision) sees it, in sRGB 0-255."""
    rgb = rgb255(colour) / 255
    if vision is not None:
        rgb = np.clip(cspace_convert(rgb, {"name": "sRGB1+CVD", "cvd_type": vision, "severity": 100}, "sRGB1"), 0, 1)
    return rgb * 255


def closest_pair(colours, vision) -> tuple[float, tuple]:
    return min((float(deltaE(seen(a, vision), seen(b, vision), input_space="sRGB255", uniform_space="CAM02-UCS")),
                (a, b)) for a, b in itertools.combinations(colours, 2))


def contrast(colour: str, background: str = "#ffffff") -> float:
    """WCAG 2.1's contrast ratio."""
    def luminance(c):
        x = rgb255(c) / 255
        x = np.where(x <= 0.03928, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)
        return 0.2126 * x[0] + 0.7152 * x[1] + 0.0722 * x[2]

    hi, lo = sorted((luminance(colour), luminance(background)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("vision", VISIONS)
@pytest.mark.parametrize("name", list(PALETTES))
def test_every_palette_stays_apart_under_deuteranopia_and_protanopia(name, vision):
    distance, pair = closest_pair(PALETTES[name], vision)
    assert distance >= APART, f"{name}: {pair} only {distance:.1f} apart for {vision or 'typical vision'}"


@pytest.mark.parametrize("vision", VISIONS)
def test_eight_to_eleven_classes_stay_apart_and_differ_by_shape(vision):
    distance, pair = closest_pair(p.MANY_CLASSES, vision)
    assert distance >= APART_WITH_SHAPES, (pair, distance)
    classes = [f"c{i}" for i in range(11)]
    assert len(set(p.class_symbols(classes).values())) == 11
    assert set(p.class_colors(classes).values()) == set(p.MANY_CLASSES)
    assert set(p.class_colors(classes[:7]).values()) == set(p.OKABE_ITO)


def test_the_check_tells_a_palette_that_fails_from_one_that_passes():
    """plotly's category-10 hues, mvlab's palette before: two of them fall together under protanopia, and its
    green and red of right and wrong were 5 apart under deuteranopia."""
    assert closest_pair(qualitative.Plotly, "protanomaly")[0] < APART_WITH_SHAPES
    assert closest_pair(("#2ca02c", "#d62728"), "deuteranomaly")[0] < APART


def test_text_meets_4_5_to_1_and_marks_that_carry_meaning_3_to_1_on_white():
    for text in (p.INK, p.STRONG_INK, p.REFERENCE_LINE, p.GREY):
        assert contrast(text) >= 4.5, text
    for mark in (p.BLUE, p.RED, p.GREEN, p.GREY, p.PURPLE):
        assert contrast(mark) >= 3.0, mark
    # lighter colours are drawn with an outline in INK where they carry meaning (ties, tied candidates)
    for light in (p.ORANGE, p.SKY, p.LIGHT_GREY):
        assert contrast(light) < 3.0 and contrast(p.INK, light) >= 4.5


def test_right_and_wrong_differ_by_shape():
    assert p.RIGHT_SYMBOL != p.WRONG_SYMBOL
