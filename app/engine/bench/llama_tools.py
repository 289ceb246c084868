"""llama.cpp's measuring tools (``llama-bench``, ``llama-speculative-simple``), built once beside llama-server.

``scripts/build_llama_server.sh --tools`` builds them from the same vendored
sources and CPU options as llama-server, into ``llama-tools-<version>`` in the
same cache (:func:`app.engine.remote.llama_server.cache_dir`), rebuilt only
when the version or the options change. :func:`ensure_tool` runs that build on
first use, as :func:`app.engine.remote.llama_server.ensure_binary` does for the
server.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from app.core.errors import TandemError
from app.engine.remote.llama_server import BUILD_SCRIPT, cache_dir

TOOLS = ("llama-bench", "llama-speculative-simple")


def tools_dir() -> Path:
    """Where this llama-cpp-python version's tools are (or will be) built."""
    return cache_dir() / f"llama-tools-{importlib.metadata.version('llama-cpp-python')}"


def find_tool(name: str) -> Path | None:
    """The built tool ``name`` (one of :data:`TOOLS`), or None when it is not built."""
    if name not in TOOLS:
        raise ValueError(f"unknown llama.cpp tool {name!r}")
    path = tools_dir() / name
    return path if path.is_file() and os.access(path, os.X_OK) else None


def ensure_tool(name: str, say: Callable[[str], None], script: Path = BUILD_SCRIPT) -> Path:
    """:func:`find_tool`, else build the tools once with ``script --tools``, saying so in one line first."""
    found = find_tool(name)
    if found is not None:
        return found
    if not script.is_file():
        raise TandemError(f"{name} is not built, and this install has no scripts/build_llama_server.sh to build it")
    say(f"building {', '.join(TOOLS)} from the vendored llama.cpp once (about 10 minutes on two cores)")
    env = {**os.environ, "TANDEM_VENV": str(Path(sys.prefix))}
    done = subprocess.run(["bash", str(script), "--tools"], env=env, capture_output=True, text=True, check=False)
    found = find_tool(name)
    if done.returncode != 0 or found is None:
        raise TandemError(f"building {name} failed: {(done.stderr or done.stdout).strip()[-500:]}")
    return found
