"""The Settings panel's "Hugging Face Hub" group: the token for gated and private models.

Kept where the remote servers' API keys are kept (the system keyring, else a
0600 file: :class:`~app.engine.remote.credentials.CredentialStore`), never in the
INI file. Discover and every download read it through the model library
(:func:`app.engine.models.hub_token.hub_token`), after ``HF_TOKEN`` when that is set.
"""

from __future__ import annotations

import os

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from app.core.errors import TandemError
from app.engine.remote.credentials import CredentialStore
from app.ui.i18n.words import say, say_error


class HubTokenBox(QGroupBox):
    """A password field with Save and Forget, and a line saying where the token is kept."""

    def __init__(self, credentials: CredentialStore | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Hugging Face Hub (this machine)"))
        self.credentials = credentials or CredentialStore()
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.field = QLineEdit()
        self.field.setEchoMode(QLineEdit.EchoMode.Password)
        self.field.setPlaceholderText(self.tr("hf_... (for gated and private models)"))
        self.field.setToolTip(
            self.tr(
                "A read token from huggingface.co/settings/tokens; a gated model also needs its licence accepted there"
            )
        )
        self.field.returnPressed.connect(self.save)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.clicked.connect(self.save)
        self.forget_button = QPushButton(self.tr("Forget"))
        self.forget_button.clicked.connect(self.forget)
        row.addWidget(QLabel(self.tr("Token")))
        row.addWidget(self.field, 1)
        layout.addLayout(row)
        # The buttons on a line of their own: beside the field they widened the side panel at its narrowest.
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.forget_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        # Read when first shown, not at start-up: a locked system keyring may ask to be unlocked.
        self._read = False

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """The first time the box is shown, say whether a token is saved."""
        super().showEvent(event)
        if not self._read:
            self.refresh()

    def refresh(self) -> None:
        """Say whether a token is saved, and where (the token itself is never shown)."""
        self._read = True
        try:
            saved = self.credentials.hub_token()
        except TandemError as exc:
            self.status.setText(say_error(exc))
            return
        self.forget_button.setEnabled(bool(saved))
        if saved:
            text = self.tr("A token is saved {where}; Discover and downloads send it.").format(
                where=say(self.credentials.where_words)
            )
        else:
            text = self.tr("No token saved: gated and private models cannot be listed or downloaded.")
        if os.environ.get("HF_TOKEN", "").strip():
            text += " " + self.tr("HF_TOKEN is set in the environment and is used instead.")
        self.status.setText(text)

    def save(self) -> None:
        """Keep the field's token (an empty field forgets it) and clear the field."""
        try:
            self.credentials.save_hub_token(self.field.text())
        except TandemError as exc:
            self.status.setText(say_error(exc))
            return
        self.field.clear()
        self.refresh()

    def forget(self) -> None:
        """Remove the saved token."""
        self.field.clear()
        self.save()
