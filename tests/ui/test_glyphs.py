"""Every symbol the window writes exists in the application's font (none draws as a box).

The symbols are collected from the string literals of app/ui and the German
translations, so a new button with a new symbol is checked without a list to
keep. A symbol that the code draws only after asking the font
(:func:`app.ui.chat.attachments.access.has_glyph`) is left out.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from PySide6.QtGui import QFontMetrics, QImage
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]
# Drawn only where has_glyph() finds them in the font (the paperclip beside attachments).
ASKED_FIRST = {"📎"}


def _ui_symbols() -> dict[str, str]:
    """Each non-ASCII character in app/ui's strings and the German translations, with one place it occurs."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "app" / "ui").rglob("*.py")):
        for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            if token.type in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)):
                for char in token.string:
                    if ord(char) > 127:
                        found.setdefault(char, f"{path.relative_to(ROOT)}:{token.start[0]}")
    for path in sorted((ROOT / "translations").glob("*.ts")):
        for text in re.findall(r"<(?:translation|numerusform)[^>]*>(.*?)</", path.read_text(encoding="utf-8"), re.S):
            for char in text:
                if ord(char) > 127:
                    found.setdefault(char, path.name)
    return found


def test_every_symbol_the_window_writes_is_in_its_font(qapp: QApplication) -> None:
    symbols = _ui_symbols()
    assert "…" in symbols and "▶" in symbols  # the walk found the strings
    metrics = QFontMetrics(qapp.font())
    missing = {
        f"U+{ord(c):04X} {c} ({where})"
        for c, where in symbols.items()
        if c not in ASKED_FIRST and not metrics.inFontUcs4(ord(c))
    }
    assert not missing, f"drawn as boxes in {qapp.font().family()}: {sorted(missing)}"


def _row(image: QImage, y: int) -> str:
    """One pixel row: '#' where the icon is painted, '.' where it is clear."""
    return "".join("#" if image.pixelColor(x, y).alpha() > 128 else "." for x in range(image.width()))


def test_the_step_views_play_button_shows_a_pause_icon_that_reads_as_two_bars(make_window, qtbot) -> None:
    window = make_window()
    view = window.steps.view
    button = view.play_button
    assert button.text() == "Play" and not button.icon().isNull()
    play = button.icon().pixmap(16).toImage()
    view.player.play()
    assert button.text() == "Pause"
    pause = button.icon().pixmap(16).toImage()
    assert pause != play
    # Two solid bars with a clear gap of at least two pixels at 16 px (the style's own read as a box).
    middle = _row(pause, 8)
    assert re.fullmatch(r"\.*#{2,}\.{2,}#{2,}\.*", middle), middle
    view.player.pause()
    assert button.text() == "Play" and _row(button.icon().pixmap(16).toImage(), 8) == _row(play, 8)
    assert re.fullmatch(r"\.*#{4,}\.*", _row(play, 8)), _row(play, 8)  # the triangle: one solid run
