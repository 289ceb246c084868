"""The thread cap for processes that share the machine on purpose (app/engine/cpu.py)."""

from __future__ import annotations

import pytest

from app.engine.cpu import MAX_THREADS_ENV, capped_threads, max_useful_threads, usable_cpus


def test_the_cap_lowers_the_useful_threads_and_a_bad_value_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAX_THREADS_ENV, raising=False)
    uncapped = max_useful_threads()
    assert 1 <= uncapped <= usable_cpus()
    monkeypatch.setenv(MAX_THREADS_ENV, "1")
    assert max_useful_threads() == 1
    monkeypatch.setenv(MAX_THREADS_ENV, str(uncapped + 8))  # a cap above the cores changes nothing
    assert max_useful_threads() == uncapped
    for bad in ("0", "-2", "two", ""):
        monkeypatch.setenv(MAX_THREADS_ENV, bad)
        assert max_useful_threads() == uncapped, bad


def test_a_count_asked_for_is_capped_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAX_THREADS_ENV, raising=False)
    assert capped_threads(4) == 4
    monkeypatch.setenv(MAX_THREADS_ENV, "2")
    assert (capped_threads(4), capped_threads(1)) == (2, 1)
