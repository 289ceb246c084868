"""The curated catalog that ships with the app, found wherever the app is installed, with sizes corrected by use.

Some catalog sizes are approximate (the Hub's listings as best known when the
catalog was written). The first download of such a file learns its exact
size; it is kept in ``catalog-sizes.json`` in the cache folder and laid over
the bundled catalog from then on, so every window and the CLI show the
corrected size and a local copy is recognised by it.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from app.core import stored_json
from app.core.display.units import format_bytes
from app.core.pairing.catalog import Catalog, CatalogModel, catalog_key, load_catalog, with_exact_sizes
from app.engine.paths import cache_dir, resources_dir


def bundled_catalog_path() -> Path:
    """``catalog.json`` among the shipped resources (a checkout, an installed wheel or a frozen bundle)."""
    return resources_dir() / "catalog.json"


def exact_sizes_path() -> Path:
    """Where the sizes learnt at download are kept."""
    return cache_dir() / "catalog-sizes.json"


def exact_sizes() -> dict[str, int]:
    """The sizes learnt so far; an unreadable or damaged file counts as none (the catalog's own sizes apply)."""
    data = stored_json.as_dict(stored_json.read_file(exact_sizes_path()).value)
    return {str(k): v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool) and v > 0}


def bundled_catalog() -> Catalog:
    """The curated catalog bundled with the app, corrected sizes applied; CatalogError if unreadable."""
    return with_exact_sizes(load_catalog(bundled_catalog_path()), exact_sizes())


def record_exact_size(model: CatalogModel, size: int) -> str | None:
    """Remember the exact size of a downloaded catalog file; a line saying what was corrected, else ``None``.

    Nothing is written when the catalog already had it right. A disk that
    cannot take the small file only loses the correction, never the download.
    """
    if size == model.file_size and not model.size_approximate:
        return None
    key = catalog_key(model)
    sizes = exact_sizes()
    if sizes.get(key) == size:
        return None
    sizes[key] = size
    path = exact_sizes_path()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(sizes, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return None
    said = f"{'about ' if model.size_approximate else ''}{format_bytes(model.file_size)}"
    return f"catalog size corrected: {model.filename} is {size:,} bytes ({format_bytes(size)}); the catalog said {said}"
