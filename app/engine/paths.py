"""Where Tandem's files are: the per-user data, config and cache folders, and the resources shipped with the app.

Three folders, as the desktop expects them (platformdirs picks each; the
paths shown are Linux's, with ``$XDG_DATA_HOME``, ``$XDG_CONFIG_HOME`` and
``$XDG_CACHE_HOME`` honoured):

* data, ``~/.local/share/Tandem``: the chats, the models, the model library
  and the saved keys, what a backup must hold;
* config, ``~/.config/Tandem``: ``settings.ini``;
* cache, ``~/.cache/Tandem``: what Tandem can make again, the prefix cache
  (gigabytes), the learned speeds and the model facts it read before.

On macOS they are ``~/Library/Application Support/Tandem``, ``~/Library/Application
Support/Tandem`` and ``~/Library/Caches/Tandem``; on Windows ``%LOCALAPPDATA%\\Tandem``,
the same, and ``%LOCALAPPDATA%\\Tandem\\Cache``. The build scripts' cache
(``~/.cache/tandem``, lower case: wheels, virtual environments, llama-server)
is not Tandem's cache: none of the names the app keeps in its cache is one
the scripts use, so even where the file system ignores case the two never
take each other's files.

``TANDEM_DATA_DIR`` keeps everything in one folder (tests and portable
installs): the settings in it and the cache in its ``cache`` subfolder.
``TANDEM_CONFIG_DIR`` and ``TANDEM_CACHE_DIR`` set those two on their own.
:mod:`app.engine.relocation` moves files from where older versions kept them,
once.
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


def _private_folder(path: Path) -> Path:
    """``path``, made (0700) when it can be; as for :func:`data_dir`, whoever writes there reports a failure."""
    with contextlib.suppress(OSError):
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def config_dir() -> Path:
    """Where the settings are (created on demand): see the module docstring."""
    override = os.environ.get("TANDEM_CONFIG_DIR")
    if override:
        return _private_folder(Path(override).expanduser())
    if os.environ.get("TANDEM_DATA_DIR"):
        return data_dir()
    return _private_folder(Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)))


def cache_dir() -> Path:
    """Where what Tandem can make again is kept (created on demand, 0700: saved states hold prompts)."""
    override = os.environ.get("TANDEM_CACHE_DIR")
    if override:
        return _private_folder(Path(override).expanduser())
    if os.environ.get("TANDEM_DATA_DIR"):
        return _private_folder(data_dir() / "cache")
    return _private_folder(Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)))


def settings_file() -> Path:
    """The INI file of the settings that outlive the window (:mod:`app.ui.settings.store`)."""
    return config_dir() / "settings.ini"


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
    return cache_dir() / "prefix-cache"


def controller_profiles_file() -> Path:
    """Where the adaptive controller's learned costs are kept per pair (:mod:`app.engine.llama.profile_store`)."""
    return cache_dir() / "controller-profiles.json"
