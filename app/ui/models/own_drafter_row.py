"""The picker's line on the target's own drafter, with a button that runs it through llama-server.

The line explains what the target's header says (MTP layers that draft for
it with no second file, layers this llama.cpp cannot run, or a count whose
weights were stripped) and names the local EAGLE-3 heads and DFlash drafters
that fit the target; the button starts a
:class:`~app.engine.remote.managed.ManagedServer` with ``--spec-type
draft-mtp`` (or ``draft-eagle3`` / ``draft-dflash`` with the first fitting
head, when the target has no MTP layers to run) in the background and hands its engine to the window as the
Server page does, so the chat and Stats show its per-step acceptance as for
any llama-server. One managed server runs at a time: starting another, or
:meth:`OwnDrafterRow.shutdown` (the window's close), stops it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.core.pairing.own_drafter import OwnDrafter
from app.engine.remote.client import KIND_NOTES, ServerKind
from app.engine.remote.managed import ManagedEngine, ManagedServer
from app.ui.i18n.words import say, say_error
from app.ui.threads.background import Background
from app.ui.threads.jobs import RemoteInfo

# The context the managed server is started with (the synthetic and real MTP models train on far more).
MANAGED_CONTEXT = 4096


class OwnDrafterRow(QWidget):
    """What the target carries as its own drafter, and "Chat through llama-server" when llama.cpp can run it."""

    use_requested = Signal(object, object)  # RemoteEngine, RemoteInfo: as ServerChoice.use_requested

    def __init__(self, background: Background, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._background = background
        self._target: Path | None = None
        self._head: Path | None = None  # the EAGLE-3 or DFlash file the button runs, when the target has no MTP
        self._managed: ManagedServer | None = None
        self._generation = 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.line = QLabel("")
        self.line.setWordWrap(True)
        layout.addWidget(self.line)
        row = QHBoxLayout()
        self.start_button = QPushButton(self.tr("Chat through llama-server"))
        self.start_button.setToolTip(
            self.tr(
                "Tandem starts llama.cpp's own server with the model's own drafter (--spec-type draft-mtp, "
                "draft-eagle3 or draft-dflash) and chats with it as with any server; it stops when another "
                "starts or the window closes"
            )
        )
        self.start_button.clicked.connect(self.start)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        row.addWidget(self.start_button)
        row.addWidget(self.status, 1)
        layout.addLayout(row)
        self.setVisible(False)

    @property
    def managed(self) -> ManagedServer | None:
        """The running managed server, if any."""
        return self._managed

    def show_target(
        self, target: Path | None, own: OwnDrafter | None, heads: Sequence[tuple[Path, OwnDrafter]] = ()
    ) -> None:
        """Show what ``target`` carries and the heads beside it that fit (nothing for a plain model: the row hides).

        The button runs the model's own MTP layers when llama.cpp can, else the first fitting head.
        """
        self._target = target
        self._head = None
        lines = []
        if own is not None:
            lines.append(self.tr("This model: {what}").format(what=say(own.explanation())))
        for path, head in heads:
            lines.append(self.tr("{name}: {what}").format(name=path.name, what=say(head.explanation())))
        self.setVisible(bool(lines))
        if not lines:
            return
        self.line.setText("\n".join(lines))
        mtp = own is not None and own.usable and not own.kind.needs_head_file
        if not mtp and heads:
            self._head = heads[0][0]
        self.start_button.setVisible(mtp or self._head is not None)
        self.status.setText("")

    def start(self) -> None:
        """Start a managed llama-server for the target (stopping the one before) and hand its engine on."""
        target = self._target
        if target is None:
            return
        self.shutdown()
        self._generation += 1
        generation = self._generation
        self.start_button.setEnabled(False)
        self.status.setText(self.tr("starting llama-server for {name}…").format(name=target.name))
        head = self._head
        self._background.submit(
            lambda: _start(target, head),
            lambda started: self._started(generation, started),
            lambda exc: self._failed(generation, exc),
        )

    def shutdown(self) -> None:
        """Stop the managed server, if one runs (the chat with it then fails in one line, its text kept)."""
        managed, self._managed = self._managed, None
        if managed is not None:
            managed.stop()

    def _started(self, generation: int, started: tuple[ManagedServer, ManagedEngine, RemoteInfo]) -> None:
        managed, engine, info = started
        if generation != self._generation:  # another start came since: this one is not wanted
            managed.stop()
            return
        self._managed = managed
        self.start_button.setEnabled(True)
        self.status.setText(
            self.tr("llama-server runs {name} with {spec}").format(
                name=managed.target.name, spec=managed.drafter.kind.value
            )
        )
        self.use_requested.emit(engine, info)

    def _failed(self, generation: int, exc: Exception) -> None:
        if generation != self._generation:
            return
        self.start_button.setEnabled(True)
        self.status.setText("✗ " + say_error(exc))


def _start(target: Path, head: Path | None) -> tuple[ManagedServer, ManagedEngine, RemoteInfo]:
    """Start the server and ask for its model (off the GUI thread); a failed start leaves no process."""
    managed = ManagedServer(target, head, n_ctx=MANAGED_CONTEXT)
    managed.start()
    try:
        model = ManagedEngine(managed.process, target.name).resolve_model()
    except Exception:
        managed.stop()
        raise
    engine = ManagedEngine(managed.process, target.name, model)
    kind = ServerKind.LLAMA_SERVER
    return managed, engine, RemoteInfo(engine.base_url, model, kind, KIND_NOTES[kind], MANAGED_CONTEXT)
