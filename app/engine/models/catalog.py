"""The curated catalog that ships with the app, found wherever the app is installed."""

from __future__ import annotations

from pathlib import Path

from app.core.pairing.catalog import Catalog, load_catalog
from app.engine.paths import resources_dir


def bundled_catalog_path() -> Path:
    """``resources/catalog.json`` in a checkout or a frozen bundle."""
    return resources_dir() / "catalog.json"


def bundled_catalog() -> Catalog:
    """The curated catalog bundled with the app; :class:`~app.core.pairing.catalog.CatalogError` if unreadable."""
    return load_catalog(bundled_catalog_path())
