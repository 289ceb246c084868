"""Attaching files in the window: picking, dropping and pasting them, reading them off the GUI thread, the chips.

Files come in three ways: the paperclip (a file dialog for several files, or
"Folder…"), a drop of files or folders onto the chat view or the prompt box,
and a paste of files (the clipboard's URLs, or file data with a name) into
the prompt box. Each batch is read on a :class:`~app.ui.threads.background.Background`
thread, so a big PDF never freezes the window; a batch where one file fails
attaches nothing, and the reader's one-line reason goes to the chat's error
banner. What was read waits as chips above the prompt until Send stores it
with the user's message (:func:`app.ui.chat.attachments.access.store_user_message`).

The engine thread counts each attachment's tokens with the loaded target's
tokenizer (an estimate is shown until then, and stays for a remote server);
the context gauge uses the counts to say which attachments fit whole and
which will have passages retrieved per question. Chips on stored messages and
the citations under replies open the same dialog with the extracted text
(:mod:`app.ui.chat.attachments.dialog`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject, QUrl, QUrlQuery, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget

from app.core.attachments.record import Attachment
from app.core.conversation.images import ImageInput
from app.core.reply.record import ReplyRecord
from app.engine.attachments import AttachmentError
from app.engine.llama.session import LoadedPair
from app.engine.reply import ReplyPlan
from app.engine.store.conversations import StoredMessage
from app.ui.chat.attachments.access import (
    NOTICES_KEY,
    PASSAGE_TOKENS,
    estimated_tokens,
    plan_notices,
    read_data,
    read_path,
    stored_notices,
    uses_of,
)
from app.ui.chat.attachments.bar import AttachmentChip, AttachmentRow, PaperclipButton, PendingAttachment
from app.ui.chat.attachments.dialog import AttachmentDialog
from app.ui.chat.attachments.images import PendingImages, is_image_path, read_image
from app.ui.chat.attachments.lines import OPEN_ATTACHMENT, OPEN_CITATION
from app.ui.chat.panel import ChatPanel
from app.ui.chat.view.chat_view import ViewMessage
from app.ui.i18n.words import number, say_error
from app.ui.settings.folders import FolderKind, LastFolders
from app.ui.threads.background import Background
from app.ui.threads.worker import EngineHost


class AttachmentFlow(QObject):
    """The pending attachments of the prompt, the ways they arrive, and the dialogs that show any attachment."""

    changed = Signal()  # the pending list (or a count) changed: the context gauge recounts

    def __init__(
        self,
        panel: ChatPanel,
        host: EngineHost,
        row: AttachmentRow,
        paperclip: PaperclipButton,
        background: Background | None = None,
    ) -> None:
        super().__init__(panel)
        self.panel = panel
        self.host = host
        self.folders = LastFolders()  # where the dialogs open (the window gives the one its settings keep)
        self.row = row
        self.paperclip = paperclip
        self._own_background = background is None
        self.background = background if background is not None else Background(self, workers=1)
        self.pending: list[PendingAttachment] = []
        self.images = PendingImages(panel, row)  # pictures go beside the files, not through them
        self.images.changed.connect(self.changed)
        self._sent_whole = False  # the message just stored asked for whole documents (its reply's request says so)
        self.counts: dict[str, int] = {}  # sha256 -> tokens, as the loaded target counted them
        panel.view.attachment_tokens = self.counts  # one table: the chips under messages read it too
        self.reading = 0  # batches being read now
        self.dialog: AttachmentDialog | None = None  # the last dialog opened (the tests read it)
        paperclip.files_requested.connect(self.pick_files)
        paperclip.folder_requested.connect(self.pick_folder)
        for target in (panel.view.viewport(), panel.prompt.viewport()):
            target.setAcceptDrops(True)
            target.installEventFilter(self)
        panel.view.setAcceptDrops(True)
        panel.prompt.installEventFilter(self)
        panel.view.anchorClicked.connect(self._on_link)

    def shutdown(self) -> None:
        """The window is closing: a file still being read is dropped (its result has nowhere to go)."""
        if self._own_background:
            self.background.shutdown()

    # -- what arrives -----------------------------------------------------------------------

    def pick_files(self) -> None:
        """The file dialog (several files at once)."""
        names, _filter = QFileDialog.getOpenFileNames(
            self.panel,
            self.tr("Attach files"),
            self.folders.start(FolderKind.ATTACHMENTS),
            self.tr("Documents, code and images (*);;Text (*.txt *.md);;PDF (*.pdf);;Images (*.png *.jpg *.jpeg)"),
        )
        if names:
            self.folders.remember(FolderKind.ATTACHMENTS, names[0])
            self.attach_paths([Path(name) for name in names])

    def pick_folder(self) -> None:
        """The folder dialog ("Folder…": a folder of code, its .gitignore respected)."""
        folder = QFileDialog.getExistingDirectory(
            self.panel, self.tr("Attach a folder"), self.folders.start(FolderKind.ATTACHMENTS)
        )
        if folder:
            self.folders.remember(FolderKind.ATTACHMENTS, Path(folder).parent)  # the next one opens beside it
            self.attach_paths([Path(folder)])

    def attach_paths(self, paths: Sequence[Path]) -> None:
        """Read ``paths`` off the GUI thread; all of them become chips, or none (the banner says why).

        PNG and JPEG files are images for the target's projector: they go to :attr:`images`.
        """
        pictures = [p for p in paths if p.is_file() and is_image_path(p)]
        if pictures and not self.images.refused():
            self.reading += 1
            self.background.submit(lambda: [read_image(p) for p in pictures], self._images_read, self._images_failed)
        paths = [p for p in paths if p not in pictures]
        if not paths:
            return
        self.reading += 1
        names = ", ".join(p.name for p in paths[:3]) + ("…" if len(paths) > 3 else "")
        self.row.set_status(self.tr("reading {names}…").format(names=names))
        self.background.submit(lambda: [read_path(p) for p in paths], self._read, self._failed)

    def attach_data(self, name: str, data: bytes) -> None:
        """Read pasted file data named ``name`` off the GUI thread."""
        self.reading += 1
        self.row.set_status(self.tr("reading {names}…").format(names=name))
        self.background.submit(lambda: [read_data(name, data)], self._read, self._failed)

    def attach_mime(self, mime: QMimeData) -> bool:
        """Attach the files a drop or a paste carries; False when it carries none (the text is pasted as text)."""
        paths = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
        if paths:
            self.attach_paths(paths)
            return True
        if mime.hasImage():  # a picture copied from a browser or a screenshot: no file behind it
            image = mime.imageData()
            if isinstance(image, QImage) and not image.isNull():
                self.images.attach_pasted(image)
                return True
        for fmt in mime.formats():
            # File data with a name (a file copied from some file managers or a browser): not text to paste.
            if fmt.startswith("application/") and fmt not in ("application/x-qt-richtext",):
                data = bytes(mime.data(fmt).data())
                if data:
                    extension = {"application/pdf": ".pdf", "application/json": ".json"}.get(fmt, ".txt")
                    self.attach_data("pasted" + extension, data)
                    return True
        return False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Drops of files on the view or the prompt box; Ctrl+V of files in the prompt box."""
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and isinstance(event, QDragEnterEvent | QDropEvent):
            if event.mimeData().hasUrls():
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            if event.mimeData().hasUrls() and self.attach_mime(event.mimeData()):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.KeyPress and watched is self.panel.prompt and isinstance(event, QKeyEvent):
            # Files and pictures on the clipboard are attached; text is pasted as text.
            mime = QApplication.clipboard().mimeData() if event.matches(QKeySequence.StandardKey.Paste) else None
            if mime is not None and self.attach_mime(mime):
                return True
        return super().eventFilter(watched, event)

    def _read(self, attachments: list[Attachment]) -> None:
        self.reading -= 1
        self.row.set_status(self.tr("reading…") if self.reading else "")
        known = {p.attachment.sha256 for p in self.pending}
        for attachment in attachments:
            if attachment.sha256 in known:
                continue  # the same content twice: once is enough
            known.add(attachment.sha256)
            pending = PendingAttachment(attachment, self.counts.get(attachment.sha256))
            self.pending.append(pending)
            chip = AttachmentChip(pending)
            chip.removed.connect(self._remove)
            chip.opened.connect(lambda c: self.open_attachment(c.pending.attachment))
            chip.whole_toggled.connect(self._whole)
            self.row.add_chip(chip)
        self.count_tokens([a for a in attachments if a.sha256 not in self.counts])
        self.changed.emit()

    def _images_read(self, images: list[ImageInput]) -> None:
        self.reading -= 1
        self.row.set_status(self.tr("reading…") if self.reading else "")
        self.images.add(images)

    def _images_failed(self, error: Exception) -> None:
        self.reading -= 1
        self.row.set_status(self.tr("reading…") if self.reading else "")
        self.images.failed(error)

    def _failed(self, error: Exception) -> None:
        self.reading -= 1
        self.row.set_status(self.tr("reading…") if self.reading else "")
        if isinstance(error, AttachmentError):
            message = say_error(error)
        elif isinstance(error, OSError):
            message = self.tr("could not read the file: {error}").format(error=error.strerror or error)
        else:
            message = self.tr("could not attach the file: {error}").format(error=say_error(error))
        self.panel.banner.show_message(message)

    def _remove(self, chip: AttachmentChip) -> None:
        if chip.pending in self.pending:
            self.pending.remove(chip.pending)
        self.row.remove_chip(chip)
        self.changed.emit()

    def _whole(self, _chip: AttachmentChip, on: bool) -> None:
        # "Whole document" is the reply's choice (the context planner's ``whole_documents``): every chip follows.
        for chip in self.row.chips:
            chip.pending.whole = on
            chip.update_text()
        self.changed.emit()

    # -- sending ------------------------------------------------------------------------------

    def attachments(self) -> tuple[Attachment, ...]:
        """What the next message carries."""
        return tuple(p.attachment for p in self.pending)

    def for_message(self, editing: StoredMessage | None) -> tuple[Attachment, ...]:
        """The files the message being sent carries: an edited message's own (linked again), then the chips'."""
        kept = editing.attachments if editing is not None else ()
        return (*kept, *(a for a in self.attachments() if a.sha256 not in {k.sha256 for k in kept}))

    @staticmethod
    def keep_notices(record: ReplyRecord, plan: ReplyPlan) -> ReplyRecord:
        """``record`` with the planner's notices kept in its metadata (under :data:`NOTICES_KEY`)."""
        notices = plan_notices(plan)
        return replace(record, extra={**record.extra, NOTICES_KEY: list(notices)}) if notices else record

    @staticmethod
    def shown(one: ViewMessage, message: StoredMessage) -> ViewMessage:
        """A stored message as the view shows it, with its files' chips, its citations and the planner's notices."""
        one.attachments, one.attachment_uses = message.attachments, uses_of(message.meta)
        one.images = message.images
        one.notice = " ".join((*stored_notices(message.meta), one.notice)).strip()
        return one

    @property
    def whole_documents(self) -> bool:
        """The user asked for the attachments whole, not passages (the "whole" switch on the chips)."""
        return any(p.whole for p in self.pending)

    def take_whole(self) -> bool:
        """Whether the message just sent asked for whole documents (asked once: a regenerate does not)."""
        whole, self._sent_whole = self._sent_whole, False
        return whole

    def clear(self) -> None:
        """The message was stored: the chips go (their "whole" goes with the reply about to start)."""
        self._sent_whole = self.whole_documents
        for chip in list(self.row.chips):
            self.row.remove_chip(chip)
        self.pending.clear()
        self.images.clear()
        self.changed.emit()

    # -- tokens and the gauge -------------------------------------------------------------------

    def tokens_of(self, attachment: Attachment) -> int:
        """The counted tokens of ``attachment`` (an estimate until the engine has counted them)."""
        return self.counts.get(attachment.sha256, estimated_tokens(attachment))

    def count_tokens(self, attachments: Sequence[Attachment]) -> None:
        """Have the engine thread count ``attachments`` with the loaded target's tokenizer (quiet without one)."""
        todo = [(a.sha256, a.text) for a in attachments if a.sha256 not in self.counts]
        if not todo:
            return

        def count(pair: LoadedPair | None) -> None:
            if pair is None:
                return
            tokenize = pair.target.tokenize
            counted = {sha: len(tokenize(text, add_special=False, parse_special=False)) for sha, text in todo}
            self.background.post(self._counted, counted)

        self.host.run_on_engine(count)

    def _counted(self, counted: dict[str, int]) -> None:
        self.counts.update(counted)
        for chip in self.row.chips:
            if chip.pending.attachment.sha256 in counted:
                chip.pending.tokens = counted[chip.pending.attachment.sha256]
                chip.update_text()
        view = self.panel.view
        if any(a.sha256 in counted for m in view.messages for a in m.attachments):
            view.refresh()
        self.changed.emit()

    def gauge_notes(self, context: Sequence[Attachment], room: int, n_ctx: int) -> list[str]:
        """A line for each of ``context``'s attachments that does not fit whole (its chip says so too).

        ``room`` is what the context has left beside the chat's turns and the
        reply's reserve. The newest attachments are placed first: they are the
        ones the next question is most likely about.
        """
        used = 0
        notes: list[str] = []
        fits: dict[str, bool] = {}
        seen: set[str] = set()
        for attachment in reversed(context):
            if attachment.sha256 in seen:
                continue  # the same file attached twice goes in once, at its newest message
            seen.add(attachment.sha256)
            tokens = self.tokens_of(attachment)
            if used + tokens <= room:
                used += tokens
                fits[attachment.sha256] = True
                continue
            fits[attachment.sha256] = False
            passages = (room - used) // PASSAGE_TOKENS
            if passages < 1:
                notes.append(
                    self.tr(
                        "{name}: {tokens} tokens, does not fit, and the {left} tokens left may hold no passage of it"
                    ).format(name=attachment.name, tokens=number(tokens, ","), left=number(max(0, room - used), ","))
                )
            elif self.whole_documents:
                notes.append(
                    self.tr(
                        "⚠ {name}: {tokens} tokens, does not fit whole in the {n_ctx}-token context: "
                        "the passages that best answer will be used instead"
                    ).format(name=attachment.name, tokens=number(tokens, ","), n_ctx=number(n_ctx, ","))
                )
            else:
                notes.append(
                    self.tr(
                        "{name}: {tokens} tokens, does not fit: %n passage(s) will be retrieved per question",
                        "",
                        passages,
                    ).format(name=attachment.name, tokens=number(tokens, ","))
                )
        for chip in self.row.chips:
            fitted = fits.get(chip.pending.attachment.sha256, True)
            if chip.pending.fits != fitted or not fitted:
                chip.pending.fits = fitted
                chip.update_text()
        return list(reversed(notes))

    # -- showing an attachment --------------------------------------------------------------------

    def open_attachment(self, attachment: Attachment, citation: str = "") -> AttachmentDialog:
        """The dialog with ``attachment``'s text (scrolled to ``citation``'s passage when one is given)."""
        if self.dialog is not None:
            self.dialog.close()
        dialog = AttachmentDialog(attachment, self.panel.window() if isinstance(self.panel.window(), QWidget) else None)
        if citation:
            dialog.show_citation(citation)
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        self.dialog = dialog
        return dialog

    def _on_link(self, url: QUrl) -> None:
        base = url.toString().split("?")[0]
        if base not in (OPEN_ATTACHMENT, OPEN_CITATION):
            return
        query = QUrlQuery(url)
        view = self.panel.view
        index = int(query.queryItemValue("message"))
        if not 0 <= index < len(view.messages):
            return
        message = view.messages[index]
        if base == OPEN_ATTACHMENT:
            position = int(query.queryItemValue("n"))
            if 0 <= position < len(message.attachments):
                self.open_attachment(message.attachments[position])
            return
        use_number, chunk_number = int(query.queryItemValue("use")), int(query.queryItemValue("chunk"))
        if not 0 <= use_number < len(message.attachment_uses):
            return
        use = message.attachment_uses[use_number]
        attachment = next((a for m in view.messages for a in m.attachments if a.sha256 == use.sha256), None)
        if attachment is not None and 0 <= chunk_number < len(use.chunks):
            self.open_attachment(attachment, use.chunks[chunk_number])
