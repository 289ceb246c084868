"""The context gauge with attachments, on the real SmolLM2 pair: counted tokens, what fits, what will be retrieved."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt

from tests.ui.attachments.steps import chip_names, click_paperclip, wait_read
from tests.ui.helpers import load, pair_choice


def test_the_gauge_counts_attachments_and_names_the_one_that_does_not_fit(
    make_window, qtbot, monkeypatch, tmp_path, small_pair
):
    small = tmp_path / "small.txt"
    small.write_text("The meeting moved to Thursday at ten.\n")
    big = tmp_path / "report.md"
    big.write_text("".join(f"Paragraph {i}: the quarterly numbers rose by {i} percent.\n\n" for i in range(300)))
    window = make_window()
    window.settings_panel.n_ctx.setValue(512)
    window.settings_panel.max_tokens.setValue(24)
    load(qtbot, window, pair_choice(small_pair))
    gauge = window.chat.gauge
    window.chat.prompt.setPlainText("When is the meeting?")
    qtbot.waitUntil(lambda: gauge.used > 0, timeout=30_000)
    typed = gauge.used

    click_paperclip(qtbot, monkeypatch, window, [small])
    wait_read(qtbot, window)
    flow = window.controller.attachments
    (attachment,) = flow.attachments()
    # The engine thread counts it with the target's tokenizer: the chip shows the count, not an estimate.
    qtbot.waitUntil(lambda: attachment.sha256 in flow.counts, timeout=30_000)
    counted = flow.counts[attachment.sha256]
    assert 5 < counted < 30
    qtbot.waitUntil(lambda: "≈" not in chip_names(window)[0], timeout=10_000)
    assert f"{counted:,} tokens" in chip_names(window)[0]
    # The reply planner fits the count: the file goes in whole, inside its block's opening and closing lines.
    qtbot.waitUntil(lambda: gauge.used > typed + counted, timeout=30_000)
    assert gauge.used - typed - counted < 40
    assert gauge.attachment_notice.isHidden()

    click_paperclip(qtbot, monkeypatch, window, [big])
    wait_read(qtbot, window)
    qtbot.waitUntil(lambda: not gauge.attachment_notice.isHidden(), timeout=30_000)
    notice = gauge.attachment_notice.text()
    # What is left beside the chat and the small file holds one passage of the planner's 300-500 tokens.
    assert re.fullmatch(r"report\.md: [\d,]+ tokens, does not fit: 1 passage will be retrieved per question", notice)
    assert "small.txt" not in notice  # the small one still goes in whole
    assert gauge.used <= 512

    # "whole": the chip warns that it will not fit whole, and the gauge says what happens instead.
    big_chip = window.chat.attachments.chips[1]
    qtbot.mouseClick(big_chip.whole, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "does not fit whole" in gauge.attachment_notice.text(), timeout=30_000)
    assert big_chip.name.text().startswith("⚠ report.md")
    assert "passages will be used instead" in big_chip.toolTip()
    assert window.chat.attachments.chips[0].whole.isChecked()  # whole documents: the message's every file

    # × on the big one: nothing is left out any more.
    qtbot.mouseClick(big_chip.remove, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: gauge.attachment_notice.isHidden(), timeout=30_000)
