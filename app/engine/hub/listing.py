"""What a Hub search and a repository listing return: plain records, free of the HTTP stack.

Kept apart from :mod:`app.engine.hub.search` so the model library, the GUI
and the CLI can name these types without importing huggingface_hub.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


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
