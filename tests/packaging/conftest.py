"""Fixtures for the packaging tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.packaging.sandbox import Sandbox


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    """A fresh sandbox for running the setup scripts."""
    return Sandbox(tmp_path)
