"""What a packaged build is made of, as one digest: the bundle's and the Linux packages' build stamps compare it.

Not a test module.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path

from tests.paths import REPO_ROOT

# scripts/wheel_libraries.py: the spec chooses the llama.cpp libraries with it.
INPUTS = ("packaging", "pyproject.toml", "scripts/wheel_libraries.py")


def installed_distributions() -> list[str]:
    """``name==version`` of every distribution in this environment, sorted."""
    found = {f"{d.metadata['Name']}=={d.version}".lower() for d in importlib.metadata.distributions()}
    return sorted(found)


def inputs_digest(root: Path = REPO_ROOT, distributions: list[str] | None = None) -> str:
    """SHA-256 over :data:`INPUTS` (packaging/** and the files named) and the installed distributions' versions."""
    digest = hashlib.sha256()
    for line in installed_distributions() if distributions is None else distributions:
        digest.update(line.encode() + b"\n")
    for name in INPUTS:
        path = root / name
        if not path.exists():  # a tree without it (the digest test's)
            continue
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if "__pycache__" in file.parts:
                continue
            digest.update(file.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()
