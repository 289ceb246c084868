"""Colours and fonts, all derived from the application palette.

The engine only tags where a token came from; this module decides how each
origin looks. The origin tints are Okabe and Ito's colour-blind-safe hues
(bluish green, vermillion, sky blue) blended into the palette's base colour,
so the chat stays readable in light and dark themes and every origin stays
distinguishable under protanopia and deuteranopia (tests/ui/test_palette.py
checks it with the Machado et al. 2009 simulation and CIE76 distances). An
underline style per origin is the optional cue that needs no colour at all.
The same functions serve the chat view, the legend and the charts.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette, QTextCharFormat
from PySide6.QtWidgets import QApplication, QStyleFactory

from app.core.decoding.events import TokenOrigin

# Okabe & Ito, "Color Universal Design" (2008): hues that stay apart for the
# common colour-vision deficiencies. Green reads as "agreed", vermillion as
# "overruled", sky blue as "free".
OKABE_ITO: dict[str, QColor] = {
    "orange": QColor(0xE6, 0x9F, 0x00),
    "sky blue": QColor(0x56, 0xB4, 0xE9),
    "bluish green": QColor(0x00, 0x9E, 0x73),
    "yellow": QColor(0xF0, 0xE4, 0x42),
    "blue": QColor(0x00, 0x72, 0xB2),
    "vermillion": QColor(0xD5, 0x5E, 0x00),
    "reddish purple": QColor(0xCC, 0x79, 0xA7),
}
ORIGIN_HUES: dict[TokenOrigin, str] = {
    TokenOrigin.DRAFT: "bluish green",
    TokenOrigin.CORRECTED: "vermillion",
    TokenOrigin.BONUS: "sky blue",
}
# The cue without colour, for readers who cannot rely on it (and for print).
ORIGIN_UNDERLINES: dict[TokenOrigin, QTextCharFormat.UnderlineStyle] = {
    TokenOrigin.DRAFT: QTextCharFormat.UnderlineStyle.SingleUnderline,
    TokenOrigin.CORRECTED: QTextCharFormat.UnderlineStyle.WaveUnderline,
    TokenOrigin.BONUS: QTextCharFormat.UnderlineStyle.DotLine,
    TokenOrigin.TARGET: QTextCharFormat.UnderlineStyle.NoUnderline,
}
ORIGIN_UNDERLINE_NAMES: dict[TokenOrigin, str] = {
    TokenOrigin.DRAFT: "solid underline",
    TokenOrigin.CORRECTED: "wavy underline",
    TokenOrigin.BONUS: "dotted underline",
    TokenOrigin.TARGET: "no underline",
}

ORIGIN_LABELS: dict[TokenOrigin, str] = {
    TokenOrigin.DRAFT: "draft, accepted",
    TokenOrigin.CORRECTED: "target correction",
    TokenOrigin.BONUS: "target bonus",
    TokenOrigin.TARGET: "target only",
}

ORIGIN_EXPLANATIONS: dict[TokenOrigin, str] = {
    TokenOrigin.DRAFT: "proposed by the drafter and accepted by the target",
    TokenOrigin.CORRECTED: "sampled by the target after it rejected the draft's proposal",
    TokenOrigin.BONUS: "sampled by the target for free after it accepted the whole draft",
    TokenOrigin.TARGET: "decoded by the target alone (no draft this step)",
}


def blend(front: QColor, back: QColor, amount: float) -> QColor:
    """``amount`` of ``front`` over ``back`` (0 gives ``back``, 1 gives ``front``)."""
    a = max(0.0, min(1.0, amount))
    return QColor.fromRgbF(
        front.redF() * a + back.redF() * (1 - a),
        front.greenF() * a + back.greenF() * (1 - a),
        front.blueF() * a + back.blueF() * (1 - a),
    )


def is_dark(palette: QPalette) -> bool:
    """True when text is lighter than the background."""
    return palette.color(QPalette.ColorRole.Base).lightnessF() < 0.5


def origin_colours(palette: QPalette) -> dict[TokenOrigin, QColor | None]:
    """Background tint per origin; ``None`` means plain (target-only text needs no marking)."""
    base = palette.color(QPalette.ColorRole.Base)
    # Strong enough to stay apart under protanopia and deuteranopia, light enough for text on top.
    strength = 0.45 if is_dark(palette) else 0.35
    tints: dict[TokenOrigin, QColor | None] = {
        origin: blend(OKABE_ITO[hue], base, strength) for origin, hue in ORIGIN_HUES.items()
    }
    tints[TokenOrigin.TARGET] = None
    return tints


def ghost_colour(palette: QPalette) -> QColor:
    """Rejected proposals: dim, like placeholder text."""
    return blend(palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base), 0.45)


def muted_text(palette: QPalette) -> QColor:
    """Secondary text: headers, notices, footers."""
    return blend(palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base), 0.6)


def code_background(palette: QPalette) -> QColor:
    """Behind code blocks: a step away from the base towards the text colour."""
    return blend(palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base), 0.06)


def user_background(palette: QPalette) -> QColor:
    """Behind the user's turns, so the two voices are easy to tell apart."""
    return blend(palette.color(QPalette.ColorRole.Highlight), palette.color(QPalette.ColorRole.Base), 0.10)


def highlight_background(palette: QPalette) -> QColor:
    """Behind a message a search jumped to, for a moment: the Okabe-Ito yellow, softened."""
    return blend(OKABE_ITO["yellow"], palette.color(QPalette.ColorRole.Base), 0.35)


def warning_background(palette: QPalette) -> QColor:
    """Behind error banners."""
    return blend(OKABE_ITO["vermillion"], palette.color(QPalette.ColorRole.Window), 0.25)


def chart_colour(palette: QPalette) -> QColor:
    """The main series colour in charts."""
    return blend(OKABE_ITO["bluish green"], palette.color(QPalette.ColorRole.Text), 0.85)


def monospace_font(point_size: float | None = None) -> QFont:
    """The system's fixed-pitch font, for code."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setStyleHint(QFont.StyleHint.TypeWriter)
    if point_size:
        font.setPointSizeF(point_size)
    return font


def dark_palette() -> QPalette:
    """A calm dark palette for the Fusion style."""
    p = QPalette()
    window, base, text = QColor(37, 39, 43), QColor(29, 31, 34), QColor(226, 228, 232)
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor(44, 47, 52),
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor(48, 51, 56),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.ToolTipBase: QColor(52, 55, 61),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.Highlight: QColor(76, 140, 230),
        QPalette.ColorRole.HighlightedText: QColor(255, 255, 255),
        QPalette.ColorRole.Link: QColor(110, 170, 255),
        QPalette.ColorRole.PlaceholderText: QColor(140, 144, 150),
        QPalette.ColorRole.Mid: QColor(70, 74, 80),
        QPalette.ColorRole.Dark: QColor(22, 23, 26),
        QPalette.ColorRole.Light: QColor(70, 74, 80),
    }
    for role, colour in roles.items():
        p.setColor(role, colour)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(120, 124, 130))
    return p


def light_palette() -> QPalette:
    """Fusion's own light palette with a blue highlight."""
    style = QStyleFactory.create("Fusion")
    p = style.standardPalette() if style is not None else QPalette()
    p.setColor(QPalette.ColorRole.Highlight, QColor(48, 110, 200))
    p.setColor(QPalette.ColorRole.ToolTipBase, QColor(255, 255, 240))
    p.setColor(QPalette.ColorRole.ToolTipText, QColor(20, 20, 20))
    return p


THEMES = ("system", "light", "dark")


def apply_theme(app: QApplication, mode: str) -> None:
    """Use the Fusion style with a light or dark palette, or leave the platform's look ("system")."""
    if mode not in THEMES:
        mode = "system"
    if mode == "system":
        return
    app.setStyle("Fusion")
    app.setPalette(dark_palette() if mode == "dark" else light_palette())
