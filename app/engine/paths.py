"""Where Tandem keeps its files: the platform's per-user data folder.

``TANDEM_DATA_DIR`` overrides the location (tests and portable installs);
otherwise platformdirs picks ``~/.local/share/Tandem`` on Linux,
``~/Library/Application Support/Tandem`` on macOS and ``%LOCALAPPDATA%\\Tandem``
on Windows, which survive reinstalling the app.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "Tandem"


def data_dir() -> Path:
    """The root of Tandem's data (created on demand)."""
    override = os.environ.get("TANDEM_DATA_DIR")
    root = Path(override).expanduser() if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    root.mkdir(parents=True, exist_ok=True)
    return root


def models_dir() -> Path:
    """Where downloaded and installed GGUF files go."""
    path = (
        Path(os.environ["TANDEM_MODELS_DIR"]).expanduser()
        if "TANDEM_MODELS_DIR" in os.environ
        else data_dir() / "models"
    )
    path.mkdir(parents=True, exist_ok=True)
    return path
