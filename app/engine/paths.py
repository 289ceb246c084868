"""Where Tandem's files are: the per-user data folder, and the resources shipped with the app.

``TANDEM_DATA_DIR`` overrides the location (tests and portable installs);
otherwise platformdirs picks ``~/.local/share/Tandem`` on Linux,
``~/Library/Application Support/Tandem`` on macOS and ``%LOCALAPPDATA%\\Tandem``
on Windows, which survive reinstalling the app.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "Tandem"


# The wheel installs the repository's resources/ folder as this top-level package
# (setup.py maps it), so that importlib.resources finds it in site-packages.
RESOURCES_PACKAGE = "tandem_resources"


def resources_dir() -> Path:
    """The folder of files shipped with the app (catalog, icons, bench prompts), wherever Tandem runs from.

    * a PyInstaller bundle: ``resources/`` unpacked beside the bundled code;
    * a source checkout, plain or installed editable: ``resources/`` beside
      ``app/`` in that same tree, so each working tree reads its own copy
      (an editable install's import hook would name the installed tree's);
    * an installed wheel (pip, pipx): the :data:`RESOURCES_PACKAGE` package,
      through :mod:`importlib.resources`.
    """
    bundle = getattr(sys, "_MEIPASS", None)  # set by PyInstaller's bootloader in a frozen app
    if bundle:
        return Path(bundle) / "resources"
    source_root = Path(__file__).resolve().parents[2]
    # pyproject.toml marks a source tree: site-packages has none, and a stray top-level
    # resources/ that another distribution put there must not be taken for ours.
    if (source_root / "pyproject.toml").is_file() and (source_root / "resources").is_dir():
        return source_root / "resources"
    try:
        found = importlib.resources.files(RESOURCES_PACKAGE)
    except ModuleNotFoundError:
        found = None
    # A package installed from a wheel lies on disk, so files() gives a real Path; Qt and
    # open() need one. Anything else (a zip import) is reported by the caller's missing file.
    if isinstance(found, Path):
        return found
    return source_root / "resources"


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


def prefix_cache_dir() -> Path:
    """Where the prefix cache keeps saved KV states (:mod:`app.engine.llama.prefix_cache`); made when first written."""
    return data_dir() / "prefix-cache"


def controller_profiles_file() -> Path:
    """Where the adaptive controller's learned costs are kept per pair (:mod:`app.engine.llama.profile_store`)."""
    return data_dir() / "controller-profiles.json"
