"""Tandem: offline desktop chat with local GGUF models and visible speculative decoding."""

from __future__ import annotations

import importlib.metadata

APP_NAME = "Tandem"
# The name pip knows it by (pyproject.toml's [project] name): "tandem" on PyPI is another project's.
DISTRIBUTION = "tandem-chat"
# The fallback version when the package metadata is unavailable (a source
# checkout that was never pip-installed, or a frozen bundle built without it).
# Keep it equal to pyproject.toml's version; tests/packaging checks that.
__version__ = "0.1.0"


def version() -> str:
    """The installed distribution's version, else ``__version__``.

    Lives here rather than in the GUI's branding module so that headless code
    (the CLI, ``--selftest``) can report it without importing Qt.
    """
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return __version__
