"""The origin colours stay apart for readers with red-green colour blindness.

Simulation: Machado, Oliveira and Fernandes (2009), "A Physiologically-based
Model for Simulation of Color Vision Deficiency", severity 1.0 matrices for
protanopia and deuteranopia, applied in linear sRGB. Distance: CIE76 (the
Euclidean distance in CIELAB, D65 white). Every pair of origin tints (and each
tint against the plain background of target-only text) must stay at least
``_MIN_DELTA_E`` apart, in the light and the dark theme: about four times the
CIE76 just-noticeable difference of 2.3, so the tints read as different colours.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from PySide6.QtGui import QColor, QPalette

from app.core.decoding.events import TokenOrigin
from app.ui import theme

MACHADO_2009 = {
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "normal vision": np.eye(3),
}
_SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
_D65 = np.array([0.95047, 1.0, 1.08883])
_MIN_DELTA_E = 10.0


def _linear(colour: QColor) -> np.ndarray:
    c = np.array([colour.redF(), colour.greenF(), colour.blueF()])
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb: np.ndarray) -> np.ndarray:
    xyz = _SRGB_TO_XYZ @ np.clip(linear_rgb, 0.0, 1.0) / _D65
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def simulated_delta_e(a: QColor, b: QColor, deficiency: str) -> float:
    """CIE76 distance between two colours as a reader with ``deficiency`` sees them."""
    matrix = MACHADO_2009[deficiency]
    return float(np.linalg.norm(_lab(matrix @ _linear(a)) - _lab(matrix @ _linear(b))))


def test_the_simulation_confuses_red_and_green_as_it_should() -> None:
    # Guard for the test itself: a pure red and a green of similar lightness look alike to a deuteranope.
    red, green = QColor(200, 60, 40), QColor(110, 130, 30)
    assert simulated_delta_e(red, green, "normal vision") > 40
    assert simulated_delta_e(red, green, "deuteranopia") < 15


def _tints(palette: QPalette) -> dict[TokenOrigin, QColor]:
    base = palette.color(QPalette.ColorRole.Base)
    return {origin: colour or base for origin, colour in theme.origin_colours(palette).items()}


@pytest.mark.parametrize("deficiency", sorted(MACHADO_2009))
@pytest.mark.parametrize("mode", ["light", "dark"])
def test_origin_tints_stay_apart(qapp: object, mode: str, deficiency: str) -> None:
    palette = theme.dark_palette() if mode == "dark" else theme.light_palette()
    tints = _tints(palette)
    for (o1, c1), (o2, c2) in itertools.combinations(tints.items(), 2):
        distance = simulated_delta_e(c1, c2, deficiency)
        assert distance >= _MIN_DELTA_E, f"{o1.value} and {o2.value} are {distance:.1f} apart ({mode}, {deficiency})"


def test_the_default_tints_are_okabe_ito_hues(qapp: object) -> None:
    palette = theme.light_palette()
    base = palette.color(QPalette.ColorRole.Base)
    for origin, hue in theme.ORIGIN_HUES.items():
        tint = theme.origin_colours(palette)[origin]
        assert tint is not None
        # The tint lies on the line from the base colour to the Okabe-Ito hue.
        pure = theme.OKABE_ITO[hue]
        amount = (tint.redF() - base.redF()) / (pure.redF() - base.redF())
        assert theme.blend(pure, base, amount).name() == tint.name()


def test_every_origin_has_its_own_underline() -> None:
    styles = list(theme.ORIGIN_UNDERLINES.values())
    assert len(set(styles)) == len(TokenOrigin)
