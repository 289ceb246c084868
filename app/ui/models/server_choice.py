"""The picker's "Server" choice: a remote OpenAI-compatible server in place of the local pair.

The user gives a base URL and, if the server wants one, an API key; Connect
asks ``/v1/models`` in the background and fills the model list, says what
kind of server answered (Tandem, llama-server, vLLM or another) and which
draft statistics it will report, or says in one line why it could not
connect. The key is kept where :class:`~app.engine.remote.credentials.CredentialStore`
can (the system keyring, else a private file) and the widget says where.
"Chat with this server" hands the engine to the window.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import TandemError
from app.engine.remote.client import KIND_NOTES, RemoteEngine, RemoteModel, ServerKind, context_of, kind_of
from app.engine.remote.credentials import CredentialStore
from app.ui.i18n.words import say, say_error
from app.ui.settings.store import RemoteChoice
from app.ui.threads.background import Background
from app.ui.threads.jobs import RemoteInfo

_KIND_NAMES = {
    ServerKind.TANDEM: "Tandem (serve)",
    ServerKind.LLAMA_SERVER: "llama-server (llama.cpp)",
    ServerKind.VLLM: "vLLM",
    ServerKind.PLAIN: str(QT_TRANSLATE_NOOP("ServerChoice", "another OpenAI-compatible server")),
}


@dataclass(frozen=True, slots=True)
class _Connected:
    """What one Connect found."""

    engine: RemoteEngine
    models: list[RemoteModel]
    kind: ServerKind


# Listing models is quick on any healthy server; a reply may take minutes, a model list should not.
CONNECT_TIMEOUT_S = 15.0


def _connect(base_url: str, api_key: str | None) -> _Connected:
    engine = RemoteEngine(base_url, api_key, read_timeout_s=CONNECT_TIMEOUT_S)
    models = engine.list_models()
    if not models:
        raise TandemError(
            QCoreApplication.translate("ServerChoice", "{url} offers no models").format(url=engine.base_url)
        )
    return _Connected(engine, models, kind_of(models))


class ServerChoice(QWidget):
    """Base URL, API key, Connect, the server's models and what it reports."""

    use_requested = Signal(object, object)  # RemoteEngine, RemoteInfo

    def __init__(
        self, background: Background, credentials: CredentialStore | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._background = background
        self.credentials = credentials or CredentialStore()
        self._connected: _Connected | None = None
        self._generation = 0  # an answer to an older Connect is dropped
        self._busy = False
        self._wanted_model = ""  # the model to select once connected (the one used last time)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.url = QLineEdit()
        self.url.setPlaceholderText("http://127.0.0.1:8080/v1")
        self.url.setToolTip(self.tr("the server's OpenAI base URL (…/v1 is added when missing)"))
        form.addRow(self.tr("URL"), self.url)
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText(self.tr("none"))
        form.addRow(self.tr("API key"), self.key)
        self.remember = QCheckBox(self.tr("Remember the key"))
        self.remember.setChecked(True)
        form.addRow("", self.remember)
        self.key_location = QLabel("")
        self.key_location.setWordWrap(True)
        form.addRow("", self.key_location)
        connect_row = QHBoxLayout()
        self.connect_button = QPushButton(self.tr("Connect"))
        self.connect_button.clicked.connect(self.connect_to_server)
        connect_row.addWidget(self.connect_button)
        connect_row.addStretch(1)
        form.addRow("", connect_row)
        self.models = QComboBox()
        self.models.setEnabled(False)
        form.addRow(self.tr("Model"), self.models)
        layout.addLayout(form)

        self.kind = QLabel("")
        self.kind.setWordWrap(True)
        layout.addWidget(self.kind)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        buttons = QHBoxLayout()
        self.use_button = QPushButton(self.tr("Chat with this server"))
        self.use_button.setEnabled(False)
        self.use_button.clicked.connect(self._use)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        # It shows what the server sent (its error text): never as rich text (no headings, images or links).
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        buttons.addWidget(self.use_button)
        buttons.addWidget(self.status, 1)
        layout.addLayout(buttons)

        self.url.editingFinished.connect(self._fill_saved_key)
        self.url.returnPressed.connect(self.connect_to_server)
        self.url.textEdited.connect(lambda _text: self._forget_connection())
        self.key.textEdited.connect(lambda _text: self._forget_connection())
        self._show_key_location()

    # -- public API ---------------------------------------------------------------------

    def restore(self, choice: RemoteChoice | None) -> None:
        """Fill in the server last used (its saved key too); connecting stays the user's click."""
        if choice is None:
            return
        self.url.setText(choice.base_url)
        self._wanted_model = choice.model
        self._fill_saved_key()

    def set_busy(self, busy: bool) -> None:
        """No switching to the server while a load or reply runs."""
        self._busy = busy
        self.use_button.setEnabled(self._connected is not None and not busy)

    @property
    def connected_kind(self) -> ServerKind | None:
        """The kind of the server Connect last reached (None before, or after the URL changed)."""
        return self._connected.kind if self._connected is not None else None

    def connect_to_server(self) -> None:
        """Ask the server for its models in the background; the answer fills the list or the error line."""
        url = self.url.text().strip()
        if not url.startswith(("http://", "https://")):
            self.status.setText(
                "✗ " + self.tr("the URL must start with http:// or https://, e.g. http://127.0.0.1:8080/v1")
            )
            return
        key = self.key.text().strip() or None
        self._generation += 1
        generation = self._generation
        self._forget_connection()
        self.connect_button.setEnabled(False)
        self.status.setText(self.tr("connecting to {url}…").format(url=url))
        self._background.submit(
            lambda: _connect(url, key),
            lambda found: self._connected_ready(generation, found, key),
            lambda exc: self._connect_failed(generation, exc),
        )

    # -- internals --------------------------------------------------------------------------

    def _connected_ready(self, generation: int, found: _Connected, key: str | None) -> None:
        if generation != self._generation:
            return
        self.connect_button.setEnabled(True)
        self._connected = found
        self.models.clear()
        for model in found.models:
            self.models.addItem(model.id)
        index = self.models.findText(self._wanted_model) if self._wanted_model else -1
        self.models.setCurrentIndex(max(0, index))
        self.models.setEnabled(True)
        name = self.tr(_KIND_NAMES[found.kind])
        self.kind.setText(self.tr("<b>{kind}</b>, %n model(s)", "", len(found.models)).format(kind=name))
        self.note.setText(KIND_NOTES[found.kind])
        self.status.setText("✓ " + self.tr("connected to {url}").format(url=found.engine.base_url))
        self.use_button.setEnabled(not self._busy)
        self._keep_key(found.engine.base_url, key)

    def _connect_failed(self, generation: int, exc: Exception) -> None:
        if generation != self._generation:
            return
        self.connect_button.setEnabled(True)
        self.status.setText(f"✗ {say_error(exc)}")

    def _keep_key(self, base_url: str, key: str | None) -> None:
        try:
            if key and self.remember.isChecked():
                self.credentials.save(base_url, key)
            elif not self.remember.isChecked():
                self.credentials.forget(base_url)
        except TandemError as exc:  # the connection works; only remembering the key failed
            self.status.setText(
                "✓ " + self.tr("connected, but the key was not saved: {error}").format(error=say_error(exc))
            )
        self._show_key_location()

    def _fill_saved_key(self) -> None:
        url = self.url.text().strip()
        if not url or self.key.text():
            return
        try:
            saved = self.credentials.load(RemoteEngine(url).base_url)
        except TandemError as exc:
            self.status.setText(self.tr("the saved key could not be read: {error}").format(error=say_error(exc)))
            return
        if saved:
            self.key.setText(saved)

    def _show_key_location(self) -> None:
        self.key_location.setText(
            self.tr("A remembered key is kept {where}.").format(where=say(self.credentials.where_words))
        )

    def _forget_connection(self) -> None:
        self._connected = None
        self.models.clear()
        self.models.setEnabled(False)
        self.use_button.setEnabled(False)
        self.kind.setText("")
        self.note.setText("")

    def _use(self) -> None:
        found = self._connected
        model = self.models.currentText()
        if found is None or not model:
            return
        engine = RemoteEngine(found.engine.base_url, found.engine.api_key, model)
        entry = next((m for m in found.models if m.id == model), RemoteModel(model))
        info = RemoteInfo(engine.base_url, model, found.kind, KIND_NOTES[found.kind], context_of(entry))
        self.use_requested.emit(engine, info)
