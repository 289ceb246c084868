"""Where each kind of file dialog opens: the folder used last for that kind, HOME before the first use.

Kept per kind in the settings file (``folders/<kind>``), so picking a model in
a models folder does not send the next chat export there. A folder that has
gone since opens HOME again.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from app.ui.settings.store import AppSettings


class FolderKind(Enum):
    """The kinds of file a dialog asks for."""

    MODELS = "models"  # GGUF files added in the Model tab or on the welcome page
    ATTACHMENTS = "attachments"  # files and folders attached to a message
    EXPORTS = "exports"  # chats, steps and unsaved replies written out
    CONFIGS = "configs"  # MCP configuration files


class LastFolders:
    """The last folder used per :class:`FolderKind`, kept in ``settings`` (in memory only without)."""

    def __init__(self, settings: AppSettings | None = None) -> None:
        self._settings = settings
        self._here: dict[FolderKind, str] = {}

    def start(self, kind: FolderKind, name: str = "") -> str:
        """Where a dialog for ``kind`` opens (with ``name`` suggested inside it, for a save dialog)."""
        stored = self._settings.text(f"folders/{kind.value}") if self._settings is not None else self._here.get(kind)
        folder = Path(stored) if stored and Path(stored).is_dir() else Path.home()
        return str(folder / name) if name else str(folder)

    def remember(self, kind: FolderKind, chosen: str | Path) -> None:
        """A dialog for ``kind`` returned ``chosen`` (a file, or a folder): its folder is where the next one opens."""
        path = Path(chosen)
        folder = str(path if path.is_dir() else path.parent)
        if self._settings is not None:
            self._settings.set_text(f"folders/{kind.value}", folder)
        else:
            self._here[kind] = folder
