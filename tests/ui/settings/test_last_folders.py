"""Where each kind of file dialog opens: kept per kind in the settings file, HOME when the folder has gone."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.ui.settings.folders import FolderKind, LastFolders
from app.ui.settings.store import AppSettings


def test_each_kind_keeps_its_folder_and_a_gone_folder_opens_home(qapp: object, tmp_path: Path) -> None:
    settings = AppSettings(tmp_path / "settings.ini")
    folders = LastFolders(settings)
    models = tmp_path / "models"
    models.mkdir()
    assert folders.start(FolderKind.MODELS) == str(Path.home())
    folders.remember(FolderKind.MODELS, models / "a.gguf")  # a file chosen: its folder
    assert folders.start(FolderKind.MODELS) == str(models)
    assert folders.start(FolderKind.MODELS, "b.gguf") == str(models / "b.gguf")
    assert folders.start(FolderKind.EXPORTS) == str(Path.home())  # another kind keeps its own
    folders.remember(FolderKind.EXPORTS, tmp_path)  # a folder chosen: itself
    assert LastFolders(AppSettings(tmp_path / "settings.ini")).start(FolderKind.EXPORTS) == str(tmp_path)
    shutil.rmtree(models)
    assert folders.start(FolderKind.MODELS) == str(Path.home())


def test_without_settings_the_folder_is_kept_for_the_session(tmp_path: Path) -> None:
    folders = LastFolders()
    folders.remember(FolderKind.ATTACHMENTS, tmp_path / "notes.txt")
    assert folders.start(FolderKind.ATTACHMENTS) == str(tmp_path)
    assert LastFolders().start(FolderKind.ATTACHMENTS) == str(Path.home())
