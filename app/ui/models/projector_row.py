"""The pair picker's "Images" row: which vision projector the target reads pictures with, and a way to pick one.

A projector belongs to one model, so a pick is kept per target. Without a pick
the projector is the ``mmproj*.gguf`` beside the target (as the engine finds
it); without either, images are refused. A picked file is checked in the
background: only a GGUF whose architecture is ``clip`` is taken.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QToolButton, QWidget

from app.engine.llama.vision import find_projector
from app.engine.models.local import describe_file
from app.ui.i18n.words import say_error
from app.ui.settings.folders import FolderKind, LastFolders
from app.ui.threads.background import Background


def _is_projector(path: Path) -> bool:
    """Whether the header of the GGUF file ``path`` says it is a vision projector (raises for a bad file)."""
    return describe_file(path).inspection.architecture == "clip"


class ProjectorRow(QWidget):
    """The projector of the current target: shown, picked with "…", and un-picked with "×"."""

    changed = Signal()  # the current target's projector changed (a pick, or its removal)

    def __init__(self, background: Background, folders: LastFolders, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._background = background
        self._folders = folders
        self._picked: dict[Path, Path] = {}  # target -> the projector picked for it
        self._target: Path | None = None
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.pick_button = QToolButton()
        self.pick_button.setText("…")
        self.pick_button.setToolTip(self.tr("choose the target's vision projector (an mmproj GGUF file)"))
        self.pick_button.clicked.connect(self._browse)
        self.clear_button = QToolButton()
        self.clear_button.setText("×")
        self.clear_button.setToolTip(self.tr("use the projector beside the model again"))
        self.clear_button.clicked.connect(self._clear)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.pick_button)
        row.addWidget(self.clear_button)
        self.show_target(None)

    def projector(self) -> Path | None:
        """The projector picked for the current target (None: the one beside it, if any)."""
        return self._picked.get(self._target) if self._target is not None else None

    def remember(self, target: Path, projector: Path | None) -> None:
        """Take ``projector`` as picked for ``target`` (a stored choice); None keeps what was picked."""
        if projector is not None:
            self._picked[target] = projector
            if target == self._target:
                self._show()

    def show_target(self, target: Path | None) -> None:
        """Show the projector of ``target`` (None: no target chosen)."""
        self._target = target
        self._show()

    def _show(self) -> None:
        picked = self.projector()
        beside = find_projector(self._target) if self._target is not None else None
        if picked is not None:
            text = self.tr("{name} (chosen)").format(name=picked.name)
        elif beside is not None:
            text = self.tr("{name} (beside the model)").format(name=beside.name)
        else:
            text = self.tr("none: pictures are refused")
        self.label.setText(text)
        self.label.setToolTip(str(picked or beside or ""))
        self.pick_button.setEnabled(self._target is not None)
        self.clear_button.setVisible(picked is not None)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Choose a vision projector"),
            self._folders.start(FolderKind.MODELS),
            self.tr("GGUF files (*.gguf)"),
        )
        if not path or self._target is None:
            return
        self._folders.remember(FolderKind.MODELS, path)
        target, chosen = self._target, Path(path)
        self._background.submit(
            lambda: _is_projector(chosen),
            lambda found: self._picked_for(target, chosen, found),
            lambda exc: self.label.setText(say_error(exc)),
        )

    def _picked_for(self, target: Path, projector: Path, is_projector: bool) -> None:
        if not is_projector:
            self.label.setText(self.tr("{name} is not a vision projector (an mmproj GGUF)").format(name=projector.name))
            return
        self._picked[target] = projector
        if target == self._target:
            self._show()
            self.changed.emit()

    def _clear(self) -> None:
        if self._target is not None and self._picked.pop(self._target, None) is not None:
            self._show()
            self.changed.emit()
