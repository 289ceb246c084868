"""The context gauge on the real SmolLM2 pair: it follows typing and streaming and names the turns that won't fit."""

from __future__ import annotations

from PySide6.QtCore import QObject, Slot

from tests.ui.helpers import load, pair_choice, send


class _GaugeReadings(QObject):
    """The gauge's "used" after the window has handled each step (queued, so it runs after the controller)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.used: list[int] = []
        window.host.worker.step.connect(self._step)

    @Slot(object)
    def _step(self, _event: object) -> None:
        self.used.append(self.window.chat.gauge.used)


def test_gauge_follows_typing_and_streaming_and_names_what_would_be_dropped(make_window, small_pair, qtbot):
    window = make_window()
    window.settings_panel.n_ctx.setValue(512)  # budget: 512 - min(max tokens, 512 / 4) = 384 prompt tokens
    window.settings_panel.max_tokens.setValue(24)
    load(qtbot, window, pair_choice(small_pair))
    gauge = window.chat.gauge
    assert gauge.total == 512 and gauge.used == 0

    prompt = window.chat.prompt
    prompt.setPlainText("Name three colours.")
    qtbot.waitUntil(lambda: gauge.used > 0, timeout=30_000)
    short = gauge.used
    prompt.setPlainText("Name three colours, and for each one say where it is found in nature, in one sentence.")
    qtbot.waitUntil(lambda: gauge.used > short, timeout=30_000)
    assert "/ 512 tokens" in gauge.label.text()
    assert not gauge.notice.isVisible()

    readings = _GaugeReadings(window)
    first = send(qtbot, window, prompt.toPlainText())
    assert readings.used == sorted(readings.used) and readings.used[-1] > readings.used[0]
    # Streaming: the prompt plus every token so far.
    assert readings.used[-1] == first.stats.prompt_tokens + first.stats.emitted
    qtbot.waitUntil(lambda: gauge.used >= readings.used[-1], timeout=30_000)

    # A long message would push the first turn out: the gauge says so before anything is sent.
    # Grow the message until it no longer fits beside the first turn (the count is the engine's own).
    words = 40
    while gauge.dropped == 0:
        before = gauge.used
        prompt.setPlainText(" ".join(f"word{i}" for i in range(words)))
        qtbot.waitUntil(lambda b=before: gauge.used != b, timeout=30_000)
        words += 10
        assert words < 400, "the message never pushed the first turn out"
    assert not gauge.notice.isHidden()
    assert "the 2 oldest messages, from “Name three colours, and for each…”" in gauge.notice.text()
    assert "would be left out" in gauge.notice.text()
    assert gauge.used <= 512
    prompt.clear()
    qtbot.waitUntil(lambda: gauge.dropped == 0, timeout=30_000)
    assert gauge.notice.isHidden()
