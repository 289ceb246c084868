"""The chat's two companions on screen: the context gauge and the "show speculation anyway" switch.

The gauge shows the tokens of the next prompt against the context size as
the user types (recounted on the engine thread after a short pause) and as
a reply streams, and names the oldest turn that would be left out. The demo
switch: where the adaptive controller kept the draft off, a footer link makes
the chat's next replies draft at a fixed length for a demonstration; the
choice is kept in each reply's metadata, so a reopened chat remembers it.

:class:`ChatExtras` is part of :class:`~app.ui.chat.controller.ChatController`
(mixed in, as :class:`~app.ui.chat.tree_actions.TreeActions` is); what it
uses of the controller is declared below for the type checker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QTimer, QUrl, SignalInstance
from PySide6.QtGui import QDesktopServices

from app.core.attachments.record import Attachment
from app.core.chat import Message
from app.core.chat_settings import ChatSettings
from app.core.reply.plan import DEMO_DRAFT_LENGTH
from app.core.reply.reasoning import history_without_reasoning
from app.core.reply.record import ReplyRecord
from app.engine.reply import ReplyRequest, reply_reserve
from app.engine.store.conversations import ChatStore, StoredMessage
from app.ui.chat.activity import Activity

if TYPE_CHECKING:
    from app.ui.chat.attachment_flow import AttachmentFlow
    from app.ui.chat.panel import ChatPanel
    from app.ui.threads.jobs import PairInfo, PromptInfo
    from app.ui.threads.worker import EngineHost

DEMO_ON = "tandem:speculation-demo-on"
DEMO_OFF = "tandem:speculation-demo-off"


class ChatExtras:
    """The context gauge and the demo switch, for the chat controller they are mixed into."""

    if TYPE_CHECKING:  # what they use of the controller
        store: ChatStore
        host: EngineHost
        panel: ChatPanel
        pair: PairInfo | None
        path: list[StoredMessage]
        editing: int | None
        activity: Activity
        conversation_id: int | None
        status: SignalInstance
        attachments: AttachmentFlow
        _closed: bool
        _count_timer: QTimer
        _demo: dict[int | None, bool]

        def chat_settings(self) -> ChatSettings: ...
        def _index(self, message_id: int) -> int | None: ...
        def _messages_of(self, stored: list[StoredMessage], settings: ChatSettings) -> tuple[Message, ...]: ...

    # -- the context gauge ----------------------------------------------------------------

    def context_messages(self) -> tuple[Message, ...]:
        """What the next reply's prompt would hold: the chat so far and the text in the prompt box."""
        typed = self.panel.prompt.toPlainText().strip()
        stored = self.path
        kept: tuple[Attachment, ...] = ()
        if self.editing is not None:  # the edited message's new text replaces it and what followed
            index = self._index(self.editing)
            stored = stored[:index] if index is not None else stored
            kept = next((m.attachments for m in self.path if m.id == self.editing), ())  # an edit keeps its files
        messages = self._messages_of(stored, self.chat_settings())
        pending = (*kept, *(a for a in self.attachments.attachments() if a not in kept))
        return (*messages, Message("user", typed, pending)) if typed or pending else messages

    def count_context(self) -> None:
        """Ask the engine thread for the size of the next prompt (only while it is free)."""
        self._count_timer.stop()
        if self._closed:  # the store is closed: a timer that fired late has nothing to count
            return
        if self.pair is None:
            self.panel.gauge.clear()
            return
        if self.activity is not Activity.IDLE:
            return
        # Counted as the prompt will be sent: earlier replies' thinking left out, as the planner does.
        messages = history_without_reasoning(self.context_messages())
        if not messages:
            self.panel.gauge.set_counts(0, self.pair.n_ctx)
            return
        # The planner fits it, attachments included, as it will for the reply.
        request = ReplyRequest(
            settings=self.chat_settings(),
            messages=messages,
            whole_documents=self.attachments.whole_documents,
            chunk_search=self.store.chunk_search_elsewhere(),
        )
        self.host.count_prompt(request)

    def _on_counted(self, info: PromptInfo) -> None:
        if self.activity is Activity.IDLE and not self._closed:
            self._show_gauge(info, streaming=False)

    def _show_gauge(self, info: PromptInfo, streaming: bool) -> None:
        first = ""
        if info.dropped_messages:
            turns = [m for m in self.context_messages() if m.role != "system"]
            if turns:
                first = " ".join(turns[0].content.split()[:6]) + ("…" if len(turns[0].content.split()) > 6 else "")
        # The attachments of the turns kept: those that fit go in whole, the gauge names the others.
        kept = [m for m in self.context_messages() if m.role != "system"][info.dropped_messages :]
        files = [a for m in kept for a in m.attachments]
        # The count holds the attachments as the planner put them in; the notes weigh them against the rest.
        without_files = info.n_tokens - info.attachment_tokens
        room = info.n_ctx - reply_reserve(self.chat_settings().max_tokens, info.n_ctx) - without_files
        _, notes = self.attachments.gauge_notes(files, room, info.n_ctx)
        self.panel.gauge.set_counts(info.n_tokens, info.n_ctx, info.dropped_messages, first, streaming)
        self.panel.gauge.set_attachment_notes(notes)

    # -- "show speculation anyway" -------------------------------------------------------

    @property
    def demo_speculation(self) -> bool:
        """Whether this chat's replies draft at :data:`DEMO_DRAFT_LENGTH` whatever the controller would say."""
        return self._demo.get(self.conversation_id, False)

    def set_demo_speculation(self, on: bool) -> None:
        """Turn the demonstration drafting on or off for this chat (from its next reply on)."""
        self._demo[self.conversation_id] = on
        if self.conversation_id is not None:
            self._offer_demo_links(self.store.messages(self.conversation_id, with_tokens=False))
        self.status.emit(
            QCoreApplication.translate(
                "ChatExtras", "this chat's next replies draft {n} tokens every step, to show speculation"
            ).format(n=DEMO_DRAFT_LENGTH)
            if on
            else QCoreApplication.translate(
                "ChatExtras", "this chat's replies let the adaptive controller choose the draft length again"
            )
        )

    def _demo_link(self, meta: dict[str, Any]) -> tuple[str, str] | None:
        record = ReplyRecord.from_meta(meta)
        if record.demo_length:
            return (
                (DEMO_OFF, QCoreApplication.translate("ChatExtras", "back to adaptive"))
                if self.demo_speculation
                else None
            )
        if record.offers_demo():
            if self.demo_speculation:
                return DEMO_OFF, QCoreApplication.translate("ChatExtras", "next reply drafts anyway (undo)")
            return DEMO_ON, QCoreApplication.translate("ChatExtras", "show speculation anyway")
        return None

    def _offer_demo_links(self, stored: list[StoredMessage]) -> None:
        """Put the demo link on the footers of the shown replies that qualify, as the chat's mode says."""
        view = self.panel.view
        assistant = [m for m in stored if m.role == "assistant"]
        shown = [m for m in view.messages if m.role == "assistant"]
        changed = False
        for message, shown_message in zip(assistant, shown, strict=False):
            link = self._demo_link(message.meta) if "stats" in message.meta else None
            if link != shown_message.footer_link:
                shown_message.footer_link = link
                changed = True
        if changed:
            view.refresh()

    def _on_link(self, url: QUrl) -> None:
        text = url.toString()
        if text == DEMO_ON:
            self.set_demo_speculation(True)
        elif text == DEMO_OFF:
            self.set_demo_speculation(False)
        elif url.scheme() in ("http", "https", "mailto"):
            # A link in a reply: open it outside, as chat apps do; Tandem itself never goes online.
            QDesktopServices.openUrl(url)
