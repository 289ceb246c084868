"""GGUF files already on this computer: the models folder, files the user added, and other apps' folders.

Users rarely keep models in one place, so besides Tandem's own models folder
and the paths registered with :func:`add_local_model` (kept in
``data_dir()/library.json``), the list includes GGUF files found in the usual
folders of other tools: the Hugging Face cache, LM Studio, llama.cpp's
download cache, GPT4All and ``~/models``. Ollama stores models as unnamed
blobs, so it is not scanned. Every file is inspected through the cache in
:mod:`app.engine.models.cache`, so only new or changed files cost a header read.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from app.core.display.wording import Phrase, Words, words_of
from app.core.errors import TandemError
from app.core.pairing.catalog import Catalog, CatalogModel
from app.engine.gguf.header import ModelFileError
from app.engine.gguf.inspection import ModelInspection
from app.engine.hub.cache import hf_cache_dir
from app.engine.models.cache import describe_file
from app.engine.models.catalog import bundled_catalog
from app.engine.paths import data_dir, models_dir

REGISTRY_NAME = "library.json"
MAX_SCAN_DEPTH = 6  # HF cache: models--org--name/snapshots/<commit>/[subfolder/]file.gguf

SOURCE_MODELS_FOLDER = "models folder"
SOURCE_ADDED = "added"

# The second and later shards of a split model are not models on their own.
_LATER_SHARD = re.compile(r"-(\d{5})-of-\d{5}\.gguf$", re.IGNORECASE)
_registry_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class LocalModel:
    """A GGUF file on disk, where it was found, and what it holds.

    ``inspection`` is ``None`` and ``error`` says why when the file cannot be
    read (truncated download, not GGUF): such files are listed, not hidden,
    so the user can see what went wrong.
    """

    path: Path
    file_size: int
    source: str
    inspection: ModelInspection | None
    error: str | None = None
    catalog_id: str | None = None
    error_words: Words | Phrase | None = None  # ``error`` as words, when the reader made it so (the window's language)

    @property
    def ok(self) -> bool:
        """True when the file could be inspected."""
        return self.inspection is not None

    @property
    def name(self) -> str:
        """The model's own name, else the file name."""
        return self.inspection.display_name if self.inspection else self.path.name

    @property
    def quant(self) -> str:
        """The quantisation, or ``"?"`` for unreadable files."""
        return self.inspection.quant if self.inspection else "?"


def discovery_roots() -> list[tuple[str, Path]]:
    """(label, folder) for every place scanned for GGUF files, in listing order."""
    home = Path.home()
    return [
        (SOURCE_MODELS_FOLDER, models_dir()),
        ("Hugging Face cache", hf_cache_dir()),
        ("LM Studio", home / ".lmstudio" / "models"),
        ("LM Studio", home / ".cache" / "lm-studio" / "models"),
        ("llama.cpp cache", Path(os.environ.get("LLAMA_CACHE") or home / ".cache" / "llama.cpp")),
        ("GPT4All", home / ".local" / "share" / "nomic.ai" / "GPT4All"),
        ("~/models", home / "models"),
    ]


def is_model_file(path: Path) -> bool:
    """A ``.gguf`` file that is a model on its own (not a vision projector or a later shard)."""
    name = path.name.lower()
    if not name.endswith(".gguf") or "mmproj" in name:
        return False
    match = _LATER_SHARD.search(name)
    return not (match and int(match.group(1)) > 1)


def scan_folder(root: Path, max_depth: int = MAX_SCAN_DEPTH) -> Iterator[Path]:
    """Model files under ``root``, skipping hidden folders and the HF cache's unnamed blobs."""
    if not root.is_dir():
        return
    root_depth = len(root.parts)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        depth = len(Path(dirpath).parts) - root_depth
        # Hidden folders hold partial downloads and app metadata; "blobs" holds
        # the HF cache's content-addressed copies, reached through snapshots/.
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "blobs" and depth < max_depth)
        for filename in sorted(filenames):
            path = Path(dirpath) / filename
            if is_model_file(path):
                yield path


def registry_path() -> Path:
    """The JSON file listing models the user added by path."""
    return data_dir() / REGISTRY_NAME


def _read_registry() -> list[dict[str, str]]:
    try:
        data = json.loads(registry_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise TandemError(f"the model list {registry_path()} is damaged ({exc}); delete it to start afresh") from exc
    entries = data.get("models", []) if isinstance(data, dict) else []
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("path"), str)]


def _write_registry(entries: list[dict[str, str]]) -> None:
    path = registry_path()
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"version": 1, "models": entries}, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def registered_paths() -> list[Path]:
    """Paths added with :func:`add_local_model`, whether or not they still exist."""
    return [Path(e["path"]) for e in _read_registry()]


def _catalog_match(path: Path, size: int, catalog: Catalog | None) -> CatalogModel | None:
    if catalog is None:
        return None
    matches = catalog.models_named(path.name)
    exact = [m for m in matches if m.file_size == size and not m.size_approximate]
    return next(iter(exact or matches), None)


def _local_model(path: Path, source: str, catalog: Catalog | None) -> LocalModel:
    try:
        described = describe_file(path)
    except ModelFileError as exc:
        size = path.stat().st_size if path.exists() else 0
        match = _catalog_match(path, size, catalog)
        return LocalModel(path, size, source, None, str(exc), match.id if match else None, words_of(exc))
    inspection = described.inspection
    match = _catalog_match(path, inspection.file_size, catalog)
    return LocalModel(path, inspection.file_size, source, inspection, None, match.id if match else None)


def add_local_model(path: str | Path) -> LocalModel:
    """Register a GGUF file by path so it is listed wherever it lives.

    The file is inspected first: a missing, non-GGUF or truncated file raises
    :class:`ModelFileError` and is not registered.
    """
    path = Path(path).expanduser().absolute()
    inspection = describe_file(path).inspection
    if inspection.architecture == "clip":
        raise ModelFileError(f"{path.name} is a vision projector (mmproj), not a language model")
    with _registry_lock:
        entries = _read_registry()
        if not any(Path(e["path"]) == path for e in entries):
            entries.append({"path": str(path), "added": datetime.now(UTC).isoformat(timespec="seconds")})
            _write_registry(entries)
    return LocalModel(path, inspection.file_size, SOURCE_ADDED, inspection, None, _catalog_id(path, inspection))


def _catalog_id(path: Path, inspection: ModelInspection) -> str | None:
    try:
        match = _catalog_match(path, inspection.file_size, bundled_catalog())
    except TandemError:
        return None
    return match.id if match else None


def remove_local_model(path: str | Path) -> bool:
    """Forget a path added with :func:`add_local_model` (the file stays). True when it was registered."""
    path = Path(path).expanduser().absolute()
    with _registry_lock:
        entries = _read_registry()
        kept = [e for e in entries if Path(e["path"]) != path]
        if len(kept) != len(entries):
            _write_registry(kept)
            return True
    return False


def list_local_models(catalog: Catalog | None = None) -> list[LocalModel]:
    """Every model file found on disk, once each (a file reached by two routes is listed under the first).

    Unreadable files are included with ``error`` set. ``catalog`` (the bundled
    one by default) is used to tag files that match a catalog entry.
    """
    if catalog is None:
        try:
            catalog = bundled_catalog()
        except TandemError:
            catalog = None  # listing must work even if the catalog file is damaged
    seen: set[str] = set()
    found: list[LocalModel] = []

    def take(path: Path, source: str) -> None:
        try:
            real = os.path.realpath(path)
        except OSError:
            return
        if real in seen or not os.path.isfile(real):
            return
        seen.add(real)
        found.append(_local_model(path.absolute(), source, catalog))

    roots = discovery_roots()
    take_first = roots[:1]  # the models folder first, then files the user chose, then other apps
    for label, root in take_first:
        for path in scan_folder(root):
            take(path, label)
    for path in registered_paths():
        take(path, SOURCE_ADDED)
    for label, root in roots[1:]:
        for path in scan_folder(root):
            take(path, label)
    return found
