"""Colours and fonts, all derived from the application palette.

The engine only tags where a token came from; this module decides how each
origin looks. The origin tints are Okabe and Ito's colour-blind-safe hues
(bluish green, vermillion, sky blue) blended into the palette's base colour,
so the chat stays readable in light and dark themes and every origin stays
distinguishable under protanopia and deuteranopia (tests/ui/test_palette.py
checks it with the Machado et al. 2009 simulation and CIE76 distances). An
underline style per origin is the optional cue that needs no colour at all.
The same functions serve the chat view, the legend and the charts.

The theme switches live (:func:`apply_theme` remembers the platform's own
look the first time, so "system" can come back without a restart). Every
palette pair used for text keeps WCAG AA contrast (4.5:1) and every pair for
indicators and borders 3:1 in both themes: :func:`contrast_ratio` measures it
and tests/ui/test_contrast.py holds the palettes to it. Fusion draws a check
box's or radio button's outline from the window colour darkened, which on a
dark window is nearly invisible; :class:`_VisibleIndicators` draws them with
:func:`indicator_border` instead.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QFont, QFontDatabase, QPainter, QPalette, QTextCharFormat
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleFactory, QStyleOption, QWidget

from app.core.decoding.events import TokenOrigin
from app.ui.i18n import QT_TRANSLATE_NOOP

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
    TokenOrigin.DRAFT: QT_TRANSLATE_NOOP("theme", "solid underline"),
    TokenOrigin.CORRECTED: QT_TRANSLATE_NOOP("theme", "wavy underline"),
    TokenOrigin.BONUS: QT_TRANSLATE_NOOP("theme", "dotted underline"),
    TokenOrigin.TARGET: QT_TRANSLATE_NOOP("theme", "no underline"),
}

ORIGIN_LABELS: dict[TokenOrigin, str] = {
    TokenOrigin.DRAFT: QT_TRANSLATE_NOOP("theme", "draft, accepted"),
    TokenOrigin.CORRECTED: QT_TRANSLATE_NOOP("theme", "target correction"),
    TokenOrigin.BONUS: QT_TRANSLATE_NOOP("theme", "target bonus"),
    TokenOrigin.TARGET: QT_TRANSLATE_NOOP("theme", "target only"),
}

ORIGIN_EXPLANATIONS: dict[TokenOrigin, str] = {
    TokenOrigin.DRAFT: QT_TRANSLATE_NOOP("theme", "proposed by the drafter and accepted by the target"),
    TokenOrigin.CORRECTED: QT_TRANSLATE_NOOP("theme", "sampled by the target after it rejected the draft's proposal"),
    TokenOrigin.BONUS: QT_TRANSLATE_NOOP("theme", "sampled by the target for free after it accepted the whole draft"),
    TokenOrigin.TARGET: QT_TRANSLATE_NOOP("theme", "decoded by the target alone (no draft this step)"),
}


def origin_label(origin: TokenOrigin) -> str:
    """The origin's name (legend, hover card) in the window's language."""
    return QCoreApplication.translate("theme", ORIGIN_LABELS[origin])


def origin_explanation(origin: TokenOrigin) -> str:
    """What the origin means, in the window's language."""
    return QCoreApplication.translate("theme", ORIGIN_EXPLANATIONS[origin])


def origin_underline_name(origin: TokenOrigin) -> str:
    """The origin's underline style named, in the window's language."""
    return QCoreApplication.translate("theme", ORIGIN_UNDERLINE_NAMES[origin])


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
        QPalette.ColorRole.Highlight: QColor(44, 104, 196),  # white on it: 5.5:1 (it was 3.4:1)
        QPalette.ColorRole.HighlightedText: QColor(255, 255, 255),
        QPalette.ColorRole.Link: QColor(110, 170, 255),
        QPalette.ColorRole.PlaceholderText: QColor(150, 154, 160),
        QPalette.ColorRole.Mid: QColor(70, 74, 80),
        QPalette.ColorRole.Dark: QColor(22, 23, 26),
        QPalette.ColorRole.Light: QColor(70, 74, 80),
    }
    for role, colour in roles.items():
        p.setColor(role, colour)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(128, 132, 138))
    return p


def light_palette() -> QPalette:
    """Fusion's own light palette with a blue highlight."""
    style = QStyleFactory.create("Fusion")
    p = style.standardPalette() if style is not None else QPalette()
    p.setColor(QPalette.ColorRole.Highlight, QColor(48, 110, 200))
    p.setColor(QPalette.ColorRole.ToolTipBase, QColor(255, 255, 240))
    p.setColor(QPalette.ColorRole.ToolTipText, QColor(20, 20, 20))
    p.setColor(QPalette.ColorRole.PlaceholderText, QColor(110, 110, 110))
    # Fusion's disabled text (1.6:1) is unreadable; the panels use disabled labels for their notes too.
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(112, 112, 112))
    return p


THEMES = ("system", "light", "dark")
# What the menus and Preferences call each theme (translated where shown).
_THEME_LABELS = {
    "system": QT_TRANSLATE_NOOP("theme", "System"),
    "light": QT_TRANSLATE_NOOP("theme", "Light"),
    "dark": QT_TRANSLATE_NOOP("theme", "Dark"),
}


def label(name: str) -> str:
    """The theme's name as the menus show it, in the window's language."""
    return QCoreApplication.translate("theme", _THEME_LABELS.get(name, name))


# Text on its background: WCAG AA for normal text; indicators and borders: WCAG's 3:1 for non-text.
TEXT_CONTRAST = 4.5
INDICATOR_CONTRAST = 3.0
# The palette pairs the window draws text with (foreground, background), checked in both themes.
TEXT_PAIRS: tuple[tuple[QPalette.ColorRole, QPalette.ColorRole], ...] = (
    (QPalette.ColorRole.Text, QPalette.ColorRole.Base),
    (QPalette.ColorRole.Text, QPalette.ColorRole.AlternateBase),
    (QPalette.ColorRole.WindowText, QPalette.ColorRole.Window),
    (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Button),
    (QPalette.ColorRole.HighlightedText, QPalette.ColorRole.Highlight),
    (QPalette.ColorRole.ToolTipText, QPalette.ColorRole.ToolTipBase),
    (QPalette.ColorRole.PlaceholderText, QPalette.ColorRole.Base),
    (QPalette.ColorRole.Link, QPalette.ColorRole.Base),
)


def relative_luminance(colour: QColor) -> float:
    """WCAG 2.x relative luminance of an sRGB colour (0 black to 1 white)."""

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) + 0.0722 * linear(colour.blueF())


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio between two colours, from 1 (same) to 21 (black on white)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def indicator_border(palette: QPalette, target: float = INDICATOR_CONTRAST) -> QColor:
    """The outline of check boxes and radio buttons: text blended into the window, ``target`` against it and the base.

    Radio buttons ask for more: their round outline is antialiased, so its
    pixels come out paler than the pen.
    """
    text, window = palette.color(QPalette.ColorRole.WindowText), palette.color(QPalette.ColorRole.Window)
    base = palette.color(QPalette.ColorRole.Base)
    for amount in (0.45, 0.55, 0.65, 0.75, 0.9):  # the softest blend that still reads as a border
        colour = blend(text, window, amount)
        if min(contrast_ratio(colour, window), contrast_ratio(colour, base)) >= target:
            return colour
    return text


class _VisibleIndicators(QProxyStyle):
    """Fusion, with check box and radio button outlines drawn in :func:`indicator_border`.

    Fusion derives the outline from the window colour (darker by 40 %): fine on
    a light window, nearly invisible on a dark one. The indicator is drawn with
    a palette whose window colour Fusion darkens to exactly that border.
    """

    def drawPrimitive(  # noqa: N802 - Qt override
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        """Checks and radios with a border that can be seen; everything else as Fusion draws it."""
        indicators = (QStyle.PrimitiveElement.PE_IndicatorCheckBox, QStyle.PrimitiveElement.PE_IndicatorRadioButton)
        if element in indicators:
            radio = element is QStyle.PrimitiveElement.PE_IndicatorRadioButton
            border = indicator_border(option.palette, 4.5 if radio else INDICATOR_CONTRAST)
            palette = QPalette(option.palette)
            # Fusion's outline is window.darker(140), drawn lighter(110): undo both.
            palette.setColor(QPalette.ColorRole.Window, border.lighter(int(140 / 1.1)))
            option.palette = palette
        super().drawPrimitive(element, option, painter, widget)


_PLATFORM_LOOK: tuple[str, QPalette] | None = None


def apply_theme(app: QApplication, mode: str) -> None:
    """Use the Fusion style with a light or dark palette, or the platform's own look ("system"); live.

    The platform's style and palette are remembered the first time, so choosing
    "system" after "dark" brings them back without a restart.
    """
    global _PLATFORM_LOOK
    if _PLATFORM_LOOK is None:
        _PLATFORM_LOOK = (app.style().name(), QPalette(app.palette()))
    if mode not in THEMES:
        mode = "system"
    if mode == "system":
        name, palette = _PLATFORM_LOOK
        app.setStyle(name)
        app.setPalette(palette)
        return
    app.setStyle(_VisibleIndicators(QStyleFactory.create("Fusion")))
    app.setPalette(dark_palette() if mode == "dark" else light_palette())
