"""The chat in German: errors, notices, tooltips and numbers made below the window, shown in German.

The real catalogue (translations/tandem_de*.ts, compiled as setup does) is
installed with the German locale, so the window renders core and engine
sentences through its translator and writes numbers with German marks
("12,3", "1.234"); the same errors still print their English sentence.
Replies come from the real SmolLM2 pair.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.errors import PromptTooLongError
from app.engine.attachments import AttachmentError, read_attachment
from app.engine.attachments.limits import AttachmentLimits
from app.ui.chat.context.gauge import ContextGauge
from app.ui.i18n.words import say_error
from app.ui.main_window import MainWindow
from tests.ui.helpers import Recorder, load, pair_choice, send


def test_a_too_long_prompt_is_refused_in_german_naming_the_german_setting(
    german: None, make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    window = make_window()
    window.settings_panel.n_ctx.setValue(256)
    window.settings_panel.max_tokens.setValue(16)
    load(qtbot, window, pair_choice(small_pair))
    recorder = Recorder(window)
    window.chat.prompt.setPlainText("Bitte fassen Sie das zusammen. " + "Der Fluss läuft zum Meer. " * 80)
    window.chat.send_button.click()
    qtbot.waitUntil(lambda: bool(recorder.errors), timeout=120_000)
    message = window.chat.banner.text.text()
    assert re.search(r"der Prompt hat \d+ Tokens, aber der Kontext fasst 256", message), message
    assert "erhöhen Sie „Kontextgröße“ im Tab „Einstellungen“" in message, message
    assert "prompt" not in message.replace("Prompt", ""), "no English left in it"


def test_the_same_error_still_prints_english() -> None:
    error = PromptTooLongError(1234, 256)
    assert (
        str(error)
        == "the prompt is 1234 tokens but the context holds 256; shorten the prompt or raise the context size"
    )
    assert error.worded("--ctx").endswith("raise --ctx")


def test_the_reply_footer_writes_its_numbers_the_german_way(
    german: None, make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    window = make_window()
    window.settings_panel.max_tokens.setValue(24)
    window.settings_panel.draft_length.setValue(4)
    load(qtbot, window, pair_choice(small_pair))
    send(qtbot, window, "Nenne drei Farben.")
    footer = window.chat.view.messages[-1].footer
    assert re.search(r"\d+,\d Tok\./s", footer), footer  # "12,3 Tok./s", not "12.3 tok/s"
    assert "tok/s" not in footer, footer
    assert re.search(r"Annahme \d+%", footer) and re.search(r"\d,\d\d", footer), footer  # acceptance, mean length
    assert re.search(r"erstes Token [\d.]+ ms", footer), footer  # the prompt figures from core, in German
    assert "Prompt-Tokens" in footer, footer


def test_a_binary_file_is_refused_in_german(
    german: None, make_window: Callable[..., MainWindow], tmp_path: Path, qtbot: QtBot
) -> None:
    binary = tmp_path / "picture.bin"
    binary.write_bytes(bytes(range(256)) * 8)
    window = make_window()
    window.controller.attachments.attach_paths([binary])
    banner = window.chat.banner.text
    qtbot.waitUntil(lambda: "picture.bin" in banner.text(), timeout=30_000)
    assert banner.text() == "picture.bin kann nicht angehängt werden: sieht binär aus: sie enthält NUL-Bytes"
    with pytest.raises(AttachmentError) as caught:
        read_attachment(binary)
    assert str(caught.value) == "cannot attach picture.bin: looks binary: it holds NUL bytes"
    assert say_error(caught.value) == banner.text()


def test_a_too_large_file_says_its_size_with_a_german_decimal_comma(german: None, tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"a" * 2_500_000)
    with pytest.raises(AttachmentError) as caught:
        read_attachment(big, AttachmentLimits(max_file_bytes=1_500_000))
    assert str(caught.value) == "cannot attach big.txt: it is 2.5 MB; files over 1.5 MB are not attached"
    assert say_error(caught.value) == (
        "big.txt kann nicht angehängt werden: sie ist 2,5 MB groß; Dateien über 1,5 MB werden nicht angehängt"
    )


def test_sampling_tooltips_are_german(german: None, make_window: Callable[..., MainWindow]) -> None:
    panel = make_window().settings_panel
    assert panel.temperature.toolTip() == "0 ist greedy: genau die eigene greedy-Antwort des Zielmodells"
    assert panel.top_k.toolTip() == "die k wahrscheinlichsten Tokens behalten; 0 = aus"
    assert panel.min_p.toolTip().startswith("Tokens verwerfen, die weniger wahrscheinlich sind")


def test_the_context_gauge_groups_thousands_the_german_way(german: None, qtbot) -> None:  # type: ignore[no-untyped-def]
    gauge = ContextGauge()
    qtbot.addWidget(gauge)
    gauge.set_counts(1234, 4096, dropped=2)
    assert gauge.label.text().startswith("1.234 / 4.096"), gauge.label.text()
    assert "4.096" in gauge.notice.text(), gauge.notice.text()


def test_where_a_copied_token_came_from_is_said_in_german(german: None) -> None:
    """The core stores "earlier in this chat" and "report.pdf, p. 3" as data; the hover card and Stats say them."""
    from app.core.decoding.lookup import CONTEXT_CITATION
    from app.ui.chat.view.token_cards import copied_from_label

    assert copied_from_label(CONTEXT_CITATION) == "weiter oben in diesem Chat"
    assert copied_from_label("bericht.pdf, p. 3") == "bericht.pdf, S. 3"
    assert copied_from_label("notes.md") == "notes.md"
