"""Where the repository is, for tests at any depth of ``tests/`` (its files, ``main.py``, ``resources/``)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
