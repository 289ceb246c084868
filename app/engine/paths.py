"""Where Tandem's files are: the per-user data folder, and the resources shipped with the app.

``TANDEM_DATA_DIR`` overrides the location (tests and portable installs);
otherwise platformdirs picks ``~/.local/share/Tandem`` on Linux,
``~/Library/Application Support/Tandem`` on macOS and ``%LOCALAPPDATA%\\Tandem``
on Windows, which survive reinstalling the app.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "Tandem"


def resources_dir() -> Path:
    """The ``resources`` folder: beside ``app/`` in a checkout, or unpacked inside a PyInstaller bundle."""
    bundle = getattr(sys, "_MEIPASS", None)  # set by PyInstaller's bootloader in a frozen app
    root = Path(bundle) if bundle else Path(__file__).resolve().parents[2]
    return root / "resources"


def data_dir() -> Path:
    """The root of Tandem's data (created on demand).

    A folder that cannot be made (a file in its place, no permission) is
    returned all the same: start-up must not die here, and the chat store
    explains the problem in plain words when it opens its file.
    """
    override = os.environ.get("TANDEM_DATA_DIR")
    root = Path(override).expanduser() if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    with contextlib.suppress(OSError):
        root.mkdir(parents=True, exist_ok=True, mode=0o700)  # chats, settings, keys: this user's only
    return root


def models_dir() -> Path:
    """Where downloaded and installed GGUF files go."""
    path = (
        Path(os.environ["TANDEM_MODELS_DIR"]).expanduser()
        if "TANDEM_MODELS_DIR" in os.environ
        else data_dir() / "models"
    )
    with contextlib.suppress(OSError):  # as for data_dir: whoever writes there reports the problem
        path.mkdir(parents=True, exist_ok=True)
    return path
