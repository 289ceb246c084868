"""The store guard: the window keeps working whatever the chat database does.

It opens the chat database for the window without letting a bad file stop
the window from opening: a file it cannot use is replaced by a store in
memory, and the notice at the top says why in plain words with the ways out
(recover what can be read, move it aside and start fresh, open it
read-only); a second instance opens the history read-only and brings the
first one forward. When a way out is chosen the guard swaps the store under
the controller. When a write fails later, the notice offers Retry and
Export, and the reply the store could not take can be written to a Markdown
file, at quit too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from app.core.errors import TandemError
from app.engine.safe_files import write_text_safely
from app.engine.store.conversations import ChatStore, default_path
from app.engine.store.database import Problem, StoreOpenError, StoreWriteError
from app.engine.store.recovery import move_aside, recover_in_place
from app.ui.chat.controller import Activity, ChatController
from app.ui.chat.store_notice import StoreNotice
from app.ui.i18n.words import say, say_error
from app.ui.settings.folders import FolderKind, LastFolders
from app.ui.start.single_instance import InstanceBeacon


class StoreGuard(QObject):
    """Owns the window's :class:`ChatStore`: opens it, offers the ways out of a bad one, swaps it.

    Built before the chat controller (the controller needs the store); :meth:`attach`
    hands it the controller and what to redraw once a new store is in place.
    """

    def __init__(
        self,
        window: QMainWindow,
        notice: StoreNotice,
        beacon: InstanceBeacon,
        store: ChatStore | None = None,
        folders: LastFolders | None = None,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._folders = folders or LastFolders()  # where the unsaved reply's export dialog opens
        self._notice = notice
        self._beacon = beacon
        self._controller: ChatController | None = None
        self._swapped: Callable[[], None] = lambda: None
        self.store = store if store is not None else self._open()

    def attach(self, controller: ChatController, swapped: Callable[[], None]) -> None:
        """Use ``controller`` for swaps and write failures; ``swapped()`` runs after a new store is in place."""
        self._controller = controller
        self._swapped = swapped
        controller.store_failed.connect(self._write_failed)
        controller.store_recovered.connect(self._notice.hide)

    @property
    def controller(self) -> ChatController:
        """The chat controller (set by :meth:`attach`)."""
        if self._controller is None:
            raise RuntimeError("StoreGuard used before attach()")
        return self._controller

    def _status(self, text: str, timeout: int) -> None:
        self._window.statusBar().showMessage(text, timeout)

    # -- opening -------------------------------------------------------------------------------

    def _open(self) -> ChatStore:
        """The store on the data folder's file, or (with a notice saying why) a read-only or in-memory one."""
        try:
            store = ChatStore()
        except StoreOpenError as exc:
            return self._unusable(exc)
        self._beacon.listen()
        return store

    def _unusable(self, exc: StoreOpenError) -> ChatStore:
        path = default_path()
        if exc.problem is Problem.IN_USE:
            reached = self._beacon.call_first()
            try:
                store = ChatStore(read_only=True)
            except StoreOpenError:
                store = ChatStore.scratch()
            self._notice.show_notice(
                (
                    self.tr(
                        "Tandem is already open on this data folder ({folder}): that window was brought to the front."
                    )
                    if reached
                    else self.tr("Tandem is already open on this data folder ({folder}).")
                ).format(folder=path.parent)
                + " "
                + self.tr("This window shows your chats read-only; nothing new is saved here."),
                [(self.tr("Close this window"), self._window.close)],
            )
            return store
        kept = self.tr("Until you choose, chats in this window are not kept.")
        actions: list[tuple[str, Any]] = []
        if exc.problem is Problem.DAMAGED:
            advice = self.tr(
                "Tandem has not changed it. You can recover what can still be read into a new file "
                "(the damaged one is kept beside it), move it aside and start with an empty history, "
                "or open it read-only to look."
            )
            actions = [
                (self.tr("Recover what can be read"), self.recover),
                (self.tr("Move it aside and start fresh"), self.start_fresh),
                (self.tr("Open read-only"), self.open_read_only),
            ]
        elif exc.problem is Problem.NOT_A_FILE:
            advice = self.tr("You can move it aside (nothing in it is deleted) and start with an empty history.")
            actions = [(self.tr("Move it aside and start fresh"), self.start_fresh)]
        elif exc.problem is Problem.READ_ONLY:
            advice = self.tr("You can open your chats read-only, or make the file and its folder writable and restart.")
            if path.is_file():
                actions = [(self.tr("Open read-only"), self.open_read_only)]
        else:
            advice = self.tr("Set TANDEM_DATA_DIR to a folder you can write (or unset it) and restart.")
        self._notice.show_notice(
            self.tr("Your chats could not be opened: {error}.").format(error=say_error(exc)) + f" {advice} {kept}",
            actions,
        )
        return ChatStore.scratch()

    # -- the ways out --------------------------------------------------------------------------

    def recover(self) -> None:
        """Read what can be read from the damaged file into a new one, which takes its place."""
        if not self._can_swap():
            return
        path = default_path()
        self.store.close()  # a scratch store: nothing to keep
        try:
            report = recover_in_place(path)
            store = ChatStore(path)
        except TandemError as exc:
            self._use(ChatStore.scratch())
            self._notice.show_notice(
                self.tr("Recovery did not work: {error}. The original file was not changed.").format(
                    error=say_error(exc)
                ),
                [
                    (self.tr("Move it aside and start fresh"), self.start_fresh),
                    (self.tr("Open read-only"), self.open_read_only),
                ],
            )
            return
        self._use(store)
        self._beacon.listen()
        self._notice.show_notice(
            self.tr("Your chats were recovered: {summary}.").format(summary=say(report.words())),
            [(self.tr("OK"), self._notice.hide)],
        )

    def start_fresh(self) -> None:
        """Move the unusable file (or folder) aside, unchanged, and start an empty history."""
        if not self._can_swap():
            return
        path = default_path()
        try:
            aside = move_aside(path)
            store = ChatStore(path)
        except TandemError as exc:
            self._notice.show_notice(
                self.tr("Could not start fresh: {error}.").format(error=say_error(exc)),
                [(self.tr("Open read-only"), self.open_read_only)],
            )
            return
        self.store.close()
        self._use(store)
        self._beacon.listen()
        where = " " + self.tr("The old one is kept as {path}.").format(path=aside) if aside is not None else ""
        self._notice.show_notice(
            self.tr("Started with an empty history.") + where, [(self.tr("OK"), self._notice.hide)]
        )

    def open_read_only(self) -> None:
        """Show the chats in the file without ever writing to it."""
        if not self._can_swap():
            return
        try:
            store = ChatStore(default_path(), read_only=True)
        except StoreOpenError as exc:
            self._notice.show_notice(
                self.tr("It cannot be opened read-only either: {error}.").format(error=say_error(exc)),
                [
                    (self.tr("Recover what can be read"), self.recover),
                    (self.tr("Move it aside and start fresh"), self.start_fresh),
                ],
            )
            return
        self.store.close()
        self._use(store)
        self._notice.show_notice(
            self.tr(
                "Your chats are shown read-only: nothing new is saved. "
                "Restart Tandem to repair the file or start fresh."
            ),
            [(self.tr("OK"), self._notice.hide)],
        )

    def _can_swap(self) -> bool:
        if self.controller.activity is not Activity.IDLE:
            self._status(self.tr("wait for the reply to finish first"), 5000)
            return False
        return True

    def _use(self, store: ChatStore) -> None:
        self.store = store
        self.controller.set_store(store)
        self._swapped()

    # -- a write that failed -------------------------------------------------------------------

    def _write_failed(self, error: StoreWriteError) -> None:
        self._notice.show_notice(
            say_error(error),
            [
                (self.tr("Retry saving"), self.controller.retry_save),
                (self.tr("Export the reply…"), lambda: self.export_unsaved()),
            ],
        )

    def export_unsaved(self, path: Path | None = None) -> Path | None:
        """Write the reply the store could not take to a Markdown file (asks where unless ``path`` is given)."""
        text = self.controller.unsaved_markdown()
        if not text:
            self._status(self.tr("nothing is waiting to be saved"), 4000)
            return None
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(
                self._window, self.tr("Export the unsaved reply"), self._folders.start(FolderKind.EXPORTS, "reply.md")
            )
            if not chosen:
                return None
            self._folders.remember(FolderKind.EXPORTS, chosen)
            path = Path(chosen)
        try:
            write_text_safely(path, text, overwrite=True)
        except TandemError as exc:
            self._status(self.tr("not exported: {error}").format(error=say_error(exc)), 8000)
            return None
        self._status(self.tr("exported to {path}").format(path=path), 6000)
        return path

    def offer_unsaved_export(self) -> None:
        """At quit, with a reply the store never took: ask whether to export it first."""
        answer = QMessageBox.question(
            self._window,
            self.tr("A reply was not saved"),
            (str(self.controller.store_error or "") or self.tr("The chat could not be saved."))
            + "\n\n"
            + self.tr("Export the reply before quitting?"),
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.export_unsaved()
