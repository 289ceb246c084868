"""The newer-Python step's stamp and names (the step itself: ``python -m tests.packaging.newer_pythons``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.packaging.newer_pythons import VERSIONS, Version, parse_version, stamp_text


def test_stamp_follows_requirements_and_interpreter() -> None:
    base = stamp_text(["numpy>=1.26"], "3.12.1")
    assert stamp_text(["numpy>=1.26"], "3.12.1") == base
    assert stamp_text(["numpy>=2"], "3.12.1") != base
    assert stamp_text(["numpy>=1.26"], "3.12.2") != base


def test_the_step_covers_3_12_and_3_13_each_in_its_own_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert {(3, 12), (3, 13)} <= set(VERSIONS)
    monkeypatch.setenv("TANDEM_CACHE", "/cache")
    monkeypatch.delenv("TANDEM_PY313_VENV", raising=False)
    monkeypatch.setenv("TANDEM_PY312_VENV", "/elsewhere/py312")
    assert Version(3, 13).venv_path() == Path("/cache/venv-py3.13")
    assert Version(3, 12).venv_path() == Path("/elsewhere/py312")  # the 3.12 override still works
    monkeypatch.setenv("TANDEM_TEST_PY313", "0")
    assert Version(3, 13).skipped_by_env() and not Version(3, 12).skipped_by_env()


def test_a_version_is_read_as_written() -> None:
    assert parse_version("3.13") == (3, 13)
    with pytest.raises(SystemExit, match=r"like 3\.13"):
        parse_version("313")
