"""Colour distances as readers with red-green colour blindness see them: the palette tests' measure.

Not a test module. Simulation: Machado, Oliveira and Fernandes (2009), severity 1.0
matrices for protanopia and deuteranopia, applied in linear sRGB; distance: CIE76
(the Euclidean distance in CIELAB, D65 white).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QColor

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
MIN_DELTA_E = 10.0


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
