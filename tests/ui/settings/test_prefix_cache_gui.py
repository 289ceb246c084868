"""The Settings tab's prefix-cache box on a real window and the real small pair: size shown, Clear, limit kept."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.engine.llama.prefix_cache import SUFFIX
from app.engine.paths import prefix_cache_dir
from app.ui.main_window import MainWindow
from app.ui.settings.prefix_cache_box import LIMIT_KEY
from app.ui.settings.store import AppSettings
from tests.ui.helpers import load, pair_choice, send

# Over MIN_PREFIX_TOKENS (512) with the question, so the prompt's state is saved; no longer than that needs.
LONG = "\n".join(f"Line {i}: the heron near Cork weighed {3 * i + 1} grams." for i in range(40))


def test_a_long_prompt_is_saved_shown_and_cleared(
    make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], qtbot: QtBot
) -> None:
    window = make_window()
    box = window.settings_panel.prefix_cache_box
    cache = window.host.worker.prefix_cache
    assert cache is not None and box.cache is cache
    assert box.limit.value() == 4 and not box.clear_button.isEnabled()
    load(qtbot, window, pair_choice(small_pair))
    assert window.controller.pair is not None
    send(qtbot, window, f"{LONG}\n\nWhich line weighs 31 grams? Answer with the line number.")
    # The state is written after the finished event has gone out: wait for the files.
    qtbot.waitUntil(lambda: len(cache.entries) == 2, timeout=60_000)
    box.refresh()
    assert "2 saved state" in box.usage.text() and "MiB" in box.usage.text() and box.clear_button.isEnabled()
    assert len(list(prefix_cache_dir().glob(f"*{SUFFIX}"))) == 2
    box.clear_button.click()
    assert not list(prefix_cache_dir().glob(f"*{SUFFIX}")) and cache.size_bytes() == 0
    assert "0 B" in box.usage.text() and not box.clear_button.isEnabled()
    box.limit.setValue(0)  # Off: kept for the next launch
    assert AppSettings().text(LIMIT_KEY) == "0" and cache.budget_bytes == 0


def test_the_learned_speeds_are_counted_and_forgotten(
    make_window: Callable[..., MainWindow], small_pair: tuple[Path, Path], data_dir: Path, qtbot: QtBot
) -> None:
    window = make_window()
    box = window.settings_panel.prefix_cache_box
    assert box.profiles is window.host.worker.profile_store
    assert box.profiles_usage.text() == "0 pairs" and not box.forget_button.isEnabled()
    load(qtbot, window, pair_choice(small_pair))
    send(qtbot, window, "Name three rivers.")
    stored = data_dir / "cache" / "controller-profiles.json"
    qtbot.waitUntil(stored.exists, timeout=30_000)
    box.refresh()
    assert box.profiles_usage.text() == "1 pair" and box.forget_button.isEnabled()
    box.forget_button.click()
    assert not stored.exists()
    assert box.profiles_usage.text() == "0 pairs" and not box.forget_button.isEnabled()
