"""Where the Hugging Face Hub keeps its downloads on this computer.

A module of its own, without ``huggingface_hub``, because two sides need the
answer: the Hub downloads (is a file already cached?) and the local model
discovery in :mod:`app.engine.models.local` (scan the cache for GGUF files),
which must stay cheap to import and must not make the Hub package import the
model library back.
"""

from __future__ import annotations

import os
from pathlib import Path


def hf_cache_dir() -> Path:
    """The Hugging Face hub cache, resolved from the environment at call time as huggingface_hub does.

    ``huggingface_hub.constants.HF_HUB_CACHE`` is fixed when that package is
    imported; reading the variables on each call lets tests and users change
    them while Tandem runs.
    """
    for variable in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(variable):
            return Path(os.environ[variable]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    cache_home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache_home).expanduser() / "huggingface" / "hub"
