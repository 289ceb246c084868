"""WCAG contrast in both themes: every text pair at 4.5:1, indicators and borders at 3:1, measured on pixels too.

The palette pairs come from :data:`app.ui.theme.TEXT_PAIRS`; the check boxes
and radio buttons are rendered with the theme applied and their outline's
pixels measured against the window behind them, since the outline is what
Fusion draws, not a palette role.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication, QCheckBox, QRadioButton, QStyle, QStyleOptionButton, QWidget

from app.ui import theme

PALETTES = {"dark": theme.dark_palette, "light": theme.light_palette}


def test_contrast_ratio_matches_wcag_reference_values() -> None:
    assert theme.contrast_ratio(QColor("black"), QColor("white")) == pytest.approx(21.0)
    assert theme.contrast_ratio(QColor("#777777"), QColor("white")) == pytest.approx(4.48, abs=0.01)
    assert theme.contrast_ratio(QColor("#595959"), QColor("white")) == pytest.approx(7.0, abs=0.01)


@pytest.mark.parametrize("name", sorted(PALETTES))
def test_every_text_pair_reaches_aa(qapp: QApplication, name: str) -> None:
    palette = PALETTES[name]()
    low = {
        f"{fg.name} on {bg.name}": round(theme.contrast_ratio(palette.color(fg), palette.color(bg)), 2)
        for fg, bg in theme.TEXT_PAIRS
        if theme.contrast_ratio(palette.color(fg), palette.color(bg)) < theme.TEXT_CONTRAST
    }
    assert not low, f"{name} theme: text pairs under 4.5:1: {low}"


@pytest.mark.parametrize("name", sorted(PALETTES))
def test_muted_and_disabled_text_and_indicators_stay_visible(qapp: QApplication, name: str) -> None:
    palette = PALETTES[name]()
    window, base = palette.color(QPalette.ColorRole.Window), palette.color(QPalette.ColorRole.Base)
    assert theme.contrast_ratio(theme.muted_text(palette), base) >= theme.TEXT_CONTRAST
    disabled = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText)
    assert theme.contrast_ratio(disabled, window) >= theme.INDICATOR_CONTRAST
    border = theme.indicator_border(palette)
    assert theme.contrast_ratio(border, window) >= theme.INDICATOR_CONTRAST
    assert theme.contrast_ratio(border, base) >= theme.INDICATOR_CONTRAST


@pytest.fixture
def themed(qapp: QApplication) -> Iterator[QApplication]:
    """The application with a theme applied by the test, back to the platform's look afterwards."""
    yield qapp
    theme.apply_theme(qapp, "system")


def _indicator_contrast(widget: QCheckBox | QRadioButton) -> float:
    """The strongest contrast any pixel of the indicator's outline makes with the window colour behind it."""
    holder = QWidget()
    holder.setAutoFillBackground(True)
    widget.setParent(holder)
    widget.adjustSize()
    holder.resize(widget.size())
    holder.show()
    option = QStyleOptionButton()
    widget.initStyleOption(option)
    element = (
        QStyle.SubElement.SE_CheckBoxIndicator
        if isinstance(widget, QCheckBox)
        else QStyle.SubElement.SE_RadioButtonIndicator
    )
    rect = widget.style().subElementRect(element, option, widget)
    image: QImage = holder.grab().toImage()
    ratio = image.devicePixelRatio()
    window = holder.palette().color(QPalette.ColorRole.Window)
    best = 1.0
    for x in range(int(rect.left() * ratio), int((rect.right() + 1) * ratio)):
        for y in range(int(rect.top() * ratio), int((rect.bottom() + 1) * ratio)):
            best = max(best, theme.contrast_ratio(image.pixelColor(x, y), window))
    holder.close()
    return best


@pytest.mark.parametrize("name", ["dark", "light"])
def test_unchecked_check_boxes_and_radio_buttons_are_drawn_visibly(themed: QApplication, name: str) -> None:
    theme.apply_theme(themed, name)
    for widget in (QCheckBox("Origins"), QRadioButton("Hybrid")):
        ratio = _indicator_contrast(widget)
        assert ratio >= theme.INDICATOR_CONTRAST, f"{name}: {type(widget).__name__} outline only {ratio:.2f}:1"


def test_plain_fusion_dark_outline_was_the_problem(themed: QApplication) -> None:
    """The measurement can fail: Fusion's own outline on the dark palette is under 3:1."""
    themed.setStyle("Fusion")
    themed.setPalette(theme.dark_palette())
    assert _indicator_contrast(QCheckBox("Origins")) < theme.INDICATOR_CONTRAST


def test_theme_switches_live_and_back(themed: QApplication) -> None:
    before = themed.palette().color(QPalette.ColorRole.Window)
    theme.apply_theme(themed, "dark")
    assert theme.is_dark(themed.palette())
    theme.apply_theme(themed, "light")
    assert not theme.is_dark(themed.palette())
    theme.apply_theme(themed, "system")
    assert themed.palette().color(QPalette.ColorRole.Window) == before
