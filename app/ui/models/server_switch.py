"""The "Local server" switch: the loaded pair behind an OpenAI-compatible API on this machine, from the window.

The HTTP side is ``tandem serve``'s own (:class:`~app.engine.server.http.RunningServer`).
The models are not loaded twice: :class:`SharedServerEngine` queues each
request, like ``serve``'s engine, but runs it on the window's engine thread
with the pair the chat uses, in arrival order with the chat's replies. A
request waits while the chat writes a reply and a reply waits while a request
is served; both see the same adaptive controller. Loading another pair (or
choosing a server) switches the local server off, since what it announced in
``/v1/models`` no longer holds; so does closing the window.

Web pages may not call it (their requests carry an ``Origin``) unless the
user lists their origin in the switch's field, as ``serve --cors-origin``
does; a log line per request goes to standard error only when asked for.
"""

from __future__ import annotations

import sys
import threading

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QSpinBox, QToolButton, QVBoxLayout, QWidget

from app.core.errors import TandemError
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.server.edge import parse_origins
from app.engine.server.http import RunningServer
from app.engine.server.protocol import CompletionRequest, RequestError
from app.engine.server.scheduler import DEFAULT_QUEUE_LIMIT, RequestQueue, ServedRecord, Ticket, serve_ticket
from app.ui.i18n.words import say_error
from app.ui.layout_fit import ElidedLabel
from app.ui.settings.store import AppSettings, LocalServerChoice
from app.ui.threads.worker import EngineHost

DEFAULT_PORT = LocalServerChoice().port  # serve's default, so a client set up for the CLI finds the window too
SWITCH_TIP = str(
    QT_TRANSLATE_NOOP(
        "ServerSwitch",
        "an OpenAI-compatible API on this machine only (127.0.0.1), for editors and scripts; "
        "it shares the loaded models with the chat, one request or reply at a time",
    )
)
ORIGINS_TIP = str(
    QT_TRANSLATE_NOOP(
        "ServerSwitch",
        "web pages are refused unless their origin is listed here (commas between them), "
        "e.g. http://localhost:3000 for a chat page you run yourself; leave empty for editors and scripts",
    )
)
_REFRESH_MS = 500
KEEP_SERVING = "keep_serving"  # the settings flag of the "Keep serving when the window closes" box


def _log_to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class SharedServerEngine:
    """``serve``'s queue in front of the window's engine thread and its loaded pair (no second copy).

    It composes the same :class:`RequestQueue` and answers each ticket with the
    same :func:`serve_ticket` as ``serve``'s own engine; only the thread differs.
    """

    def __init__(
        self,
        host: EngineHost,
        config: PairConfig,
        draft_length: int | None = None,
        queue_limit: int = DEFAULT_QUEUE_LIMIT,
    ) -> None:
        self.config = config
        self.draft_length = draft_length  # None: adaptive drafting
        self.requests = RequestQueue(queue_limit)
        self._host = host
        self._current: Ticket | None = None

    @property
    def model_name(self) -> str:
        """The name clients see in ``/v1/models``: the target file's stem."""
        return self.config.target.stem

    @property
    def served(self) -> list[ServedRecord]:
        """What each finished request did."""
        return self.requests.served

    @property
    def waiting(self) -> int:
        """Requests queued behind the one being generated."""
        return max(0, self.requests.pending - 1)

    def start(self) -> None:
        """Nothing to load: the window's engine thread holds the pair already."""

    def submit(self, request: CompletionRequest) -> Ticket:
        """Queue ``request`` (429 past the limit) and ask the engine thread to serve the next one in line."""
        ticket = self.requests.submit(request)
        self._host.run_on_engine(self._serve_next)
        return ticket

    def prepare(self, request: CompletionRequest, cancel: threading.Event) -> None:
        """Nothing ahead of the engine thread: the window's pair is its engine thread's alone."""

    @property
    def queued(self) -> int:
        """Requests waiting for the engine thread (for the chat or for an earlier request)."""
        return max(0, self.requests.pending - (1 if self._current is not None else 0))

    def close(self) -> None:
        """Stop the request being generated at its next verify step, refuse those waiting."""
        current = self._current
        if current is not None:
            current.cancel.set()
        self.requests.close()

    def _serve_next(self, pair: LoadedPair | None) -> None:
        """On the engine thread: the oldest waiting request, with the pair the chat uses."""
        job = self.requests.take(block=False)
        if job is None:  # close() took it back and answered it
            return
        try:
            if pair is None or pair.config != self.config:
                job.items.put(RequestError("the window no longer has this pair loaded", 503, kind="server_error"))
            else:
                self._current = job
                serve_ticket(pair, job, self.draft_length, self.requests)
        finally:
            self._current = None
            self.requests.done()


class ServerSwitch(QWidget):
    """A switch, the port, the URL with a copy button, and how many requests were served and are waiting."""

    running_changed = Signal(bool)

    def __init__(self, host: EngineHost, settings: AppSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._host = host
        self._settings = settings  # where the port, the allowed pages and the log choice are kept
        self._config: PairConfig | None = None
        self.server: RunningServer | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        row = QHBoxLayout()
        self.toggle = QCheckBox(self.tr("Serve on port"))
        self.toggle.setToolTip(self.tr(SWITCH_TIP))
        self.toggle.toggled.connect(self._toggled)
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.port.setValue(DEFAULT_PORT)
        self.port.setToolTip(self.tr("0 picks a free port"))
        row.addWidget(self.toggle)
        row.addWidget(self.port)
        row.addStretch(1)
        layout.addLayout(row)
        # Label above field, short check box text: the side panel may be narrow.
        origins_label = QLabel(self.tr("Web pages allowed from"))
        layout.addWidget(origins_label)
        self.origins = QLineEdit()
        self.origins.setPlaceholderText(self.tr("none"))
        self.origins.setToolTip(self.tr(ORIGINS_TIP))
        origins_label.setBuddy(self.origins)
        layout.addWidget(self.origins)
        self.log_requests = QCheckBox(self.tr("Log each request"))
        self.log_requests.setToolTip(
            self.tr("one line per request to standard error: method, path, status, tokens, milliseconds")
        )
        layout.addWidget(self.log_requests)
        self.keep_serving = QCheckBox(self.tr("Keep serving when the window closes"))
        self.keep_serving.setToolTip(
            self.tr(
                "closing the window leaves the server running (a tray icon, or the task bar, brings it back); "
                "File → Quit stops it"
            )
        )
        layout.addWidget(self.keep_serving)
        url_row = QHBoxLayout()
        self.url = ElidedLabel("", mode=Qt.TextElideMode.ElideMiddle)
        self.url.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_button = QToolButton()
        self.copy_button.setText(self.tr("Copy"))
        self.copy_button.setToolTip(self.tr("copy the base URL"))
        self.copy_button.clicked.connect(self.copy_url)
        url_row.addWidget(self.url, 1)
        url_row.addWidget(self.copy_button)
        layout.addLayout(url_row)
        self.counts = QLabel("")
        self.counts.setWordWrap(True)
        layout.addWidget(self.counts)
        self._timer = QTimer(self)
        self._timer.setInterval(_REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        if settings is not None:
            kept = settings.local_server()
            self.port.setValue(kept.port)
            self.origins.setText(kept.origins)
            self.log_requests.setChecked(kept.log)
            self.keep_serving.setChecked(settings.flag(KEEP_SERVING, False))
        self.keep_serving.toggled.connect(self._keep_serving_toggled)
        self.set_pair(None)

    # -- public API ---------------------------------------------------------------------

    @property
    def engine(self) -> SharedServerEngine | None:
        """The running server's engine."""
        engine = self.server.engine if self.server is not None else None
        return engine if isinstance(engine, SharedServerEngine) else None

    def set_pair(self, config: PairConfig | None, why_not: str | None = None) -> None:
        """The pair the window has loaded (None: nothing to serve); a different pair stops the server."""
        if why_not is None:
            why_not = self.tr("load a local pair to serve it")
        if self.server is not None and config != self._config:
            self.stop(
                self.tr("stopped: the window loaded another pair")
                if config
                else self.tr("stopped: {why}").format(why=why_not)
            )
        self._config = config
        self.toggle.setEnabled(config is not None)
        self.toggle.setToolTip(self.tr(SWITCH_TIP) if config is not None else why_not)
        if self.server is None and config is None:
            self.counts.setText(why_not)
        elif self.server is None:
            self.counts.setText("")

    def stop(self, message: str = "") -> None:
        """Switch the server off (waiting requests get 503; the one generating stops at its next step)."""
        server, self.server = self.server, None
        self._timer.stop()
        if server is not None:
            server.stop()
        self.url.setText("")
        self.copy_button.setEnabled(False)
        for widget in (self.port, self.origins, self.log_requests):
            widget.setEnabled(True)
        if message:
            self.counts.setText(message)
        self.toggle.blockSignals(True)
        self.toggle.setChecked(False)
        self.toggle.blockSignals(False)
        if server is not None:
            self.running_changed.emit(False)

    def copy_url(self) -> None:
        """Put the base URL on the clipboard."""
        if self.server is not None:
            QGuiApplication.clipboard().setText(self.server.url)

    def refresh(self) -> None:
        """Show the counts (a timer calls this while the server runs)."""
        server = self.server
        if server is None:
            return
        engine = server.engine
        served = server.httpd.requests_served
        waiting = engine.queued if isinstance(engine, SharedServerEngine) else engine.waiting
        # The counter is written by the connection threads; an int read is atomic enough for a label.
        if served == 1:
            self.counts.setText(self.tr("1 request served · {waiting} waiting").format(waiting=waiting))
        else:
            self.counts.setText(
                self.tr("{served} requests served · {waiting} waiting").format(served=served, waiting=waiting)
            )

    @property
    def serving_url(self) -> str | None:
        """The running server's base URL (None: off)."""
        return self.server.url if self.server is not None else None

    @property
    def serves_on_close(self) -> bool:
        """Closing the window should leave this server running."""
        return self.server is not None and self.keep_serving.isChecked()

    # -- internals --------------------------------------------------------------------------

    def _keep_serving_toggled(self, on: bool) -> None:
        if self._settings is not None:
            self._settings.set_flag(KEEP_SERVING, on)

    def _toggled(self, on: bool) -> None:
        if not on:
            self.stop(self.tr("stopped"))
            return
        if self._config is None:
            self.stop(self.tr("load a local pair to serve it"))
            return
        try:
            origins = parse_origins([self.origins.text()])
        except ValueError as exc:
            self.stop(self.tr("not started: {error}").format(error=exc))
            return
        engine = SharedServerEngine(self._host, self._config)
        log = _log_to_stderr if self.log_requests.isChecked() else None
        try:
            server = RunningServer(engine, "127.0.0.1", self.port.value(), cors_origins=origins, log=log).start()
        except (OSError, TandemError) as exc:
            text = exc.strerror if isinstance(exc, OSError) and exc.strerror else say_error(exc)
            self.stop(
                self.tr("cannot listen on port {port}: {error} (choose another, or 0 for any free one)").format(
                    port=self.port.value(), error=text
                )
            )
            return
        if self._settings is not None:  # what started a server is what the next launch offers
            self._settings.set_local_server(LocalServerChoice(self.port.value(), self.origins.text(), log is not None))
        self.server = server
        self.url.setText(server.url)
        self.copy_button.setEnabled(True)
        for widget in (self.port, self.origins, self.log_requests):
            widget.setEnabled(False)  # they take effect at the next start
        self._timer.start()
        self.refresh()
        self.running_changed.emit(True)
