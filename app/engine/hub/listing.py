"""What a Hub search and a repository listing return: plain records, free of the HTTP stack.

Kept apart from :mod:`app.engine.hub.search` so the model library, the GUI
and the CLI can name these types without importing huggingface_hub.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

# How llama.cpp's gguf-split names the shards of one model: the count is in every name.
SPLIT_NAME = re.compile(r"^(?P<stem>.+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.gguf$", re.IGNORECASE)


def split_part_names(filename: str) -> list[str] | None:
    """Every shard's name for a split model's shard ``filename`` (in order), or ``None`` for a single file.

    The names follow from the pattern alone, so the parts can be found
    without asking the Hub (offline, in the Hugging Face cache).
    """
    match = SPLIT_NAME.match(filename)
    if not match:
        return None
    count = int(match["count"])
    if count < 1:
        return None
    return [f"{match['stem']}-{i:05d}-of-{count:05d}.gguf" for i in range(1, count + 1)]


@dataclass(frozen=True, slots=True)
class RepoResult:
    """One repository in a search result."""

    repo_id: str
    downloads: int
    likes: int
    last_modified: datetime | None
    gated: bool
    tags: tuple[str, ...] = ()
    architecture: str | None = None  # the Hub's own reading of the GGUF header, when it has one
    n_params: int | None = None
    base_models: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchPage:
    """One page of search results."""

    query: str
    sort: str
    page: int
    results: list[RepoResult]
    has_more: bool


@dataclass(frozen=True, slots=True)
class FilePart:
    """One file of a (possibly split) model, with the Hub's LFS facts."""

    filename: str
    size: int
    sha256: str | None


@dataclass(frozen=True, slots=True)
class RepoGGUF:
    """A model file in a repository: one file, or the shards of a split model as one entry."""

    repo_id: str
    filename: str  # the file to name when downloading: the first shard of a split model
    quant: str | None
    parts: tuple[FilePart, ...] = field(default_factory=tuple)

    @property
    def size(self) -> int:
        """Bytes of all parts together."""
        return sum(p.size for p in self.parts)

    @property
    def split(self) -> bool:
        """True for a model sharded into several files."""
        return len(self.parts) > 1

    @property
    def spec(self) -> str:
        """``owner/name/path.gguf``."""
        return f"{self.repo_id}/{self.filename}"
