"""The origin colours stay apart for readers with red-green colour blindness.

Simulation: Machado, Oliveira and Fernandes (2009), "A Physiologically-based
Model for Simulation of Color Vision Deficiency", severity 1.0 matrices for
protanopia and deuteranopia, applied in linear sRGB. Distance: CIE76 (the
Euclidean distance in CIELAB, D65 white). Every pair of origin tints (and each
tint against the plain background of target-only text) must stay at least
``MIN_DELTA_E`` apart, in the light and the dark theme: about four times the
CIE76 just-noticeable difference of 2.3, so the tints read as different colours.
"""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtGui import QColor, QPalette

from app.core.decoding.events import TokenOrigin
from app.ui import theme
from tests.ui.palette_checks import MACHADO_2009, MIN_DELTA_E, simulated_delta_e


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
        assert distance >= MIN_DELTA_E, f"{o1.value} and {o2.value} are {distance:.1f} apart ({mode}, {deficiency})"


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
