"""The "show speculation anyway" switch: each chat's choice, and the link a reply's footer offers for it.

Where the adaptive controller kept the draft off, a footer link makes the
chat's next replies draft at a fixed length for a demonstration; the choice is
kept in each reply's metadata, so a reopened chat remembers it. A chat not
created yet has its choice under None until its first message creates it.
:class:`DemoSwitch` is a component of the chat controller, handed the store,
the view and the chat shown when it is made. Its words are in the translation
context they were first written in ("ChatExtras"), where the catalogue has them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from app.core.reply.plan import DEMO_DRAFT_LENGTH
from app.core.reply.record import ReplyRecord
from app.engine.store.conversations import ChatStore, StoredMessage
from app.ui.chat.view.chat_view import ChatView

DEMO_ON = "tandem:speculation-demo-on"
DEMO_OFF = "tandem:speculation-demo-off"


class DemoSwitch(QObject):
    """Per chat: whether its replies draft at :data:`DEMO_DRAFT_LENGTH` whatever the controller would say."""

    status = Signal(str)

    def __init__(
        self,
        *,
        store: Callable[[], ChatStore],
        view: ChatView,
        conversation: Callable[[], int | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store  # a getter: the store guard may swap the store
        self._view = view
        self._conversation = conversation  # the chat shown (None: one not created yet)
        self._on: dict[int | None, bool] = {}

    @property
    def on(self) -> bool:
        """Whether the chat shown drafts for the demonstration."""
        return self._on.get(self._conversation(), False)

    def set_on(self, on: bool) -> None:
        """Turn the demonstration drafting on or off for the chat shown (from its next reply on)."""
        conversation_id = self._conversation()
        self._on[conversation_id] = on
        if conversation_id is not None:
            self.offer_links(self._store().messages(conversation_id, with_tokens=False))
        self.status.emit(
            QCoreApplication.translate(
                "ChatExtras", "this chat's next replies draft {n} tokens every step, to show speculation"
            ).format(n=DEMO_DRAFT_LENGTH)
            if on
            else QCoreApplication.translate(
                "ChatExtras", "this chat's replies let the adaptive controller choose the draft length again"
            )
        )

    def follow(self, url: str) -> bool:
        """A footer's link: switch when it is one of the switch's (True), else leave it to others (False)."""
        if url not in (DEMO_ON, DEMO_OFF):
            return False
        self.set_on(url == DEMO_ON)
        return True

    def forget_new(self) -> None:
        """A new chat starts with the adaptive controller."""
        self._on.pop(None, None)

    def created(self, conversation_id: int) -> None:
        """The chat not created yet now is ``conversation_id``: it keeps its choice."""
        self._on[conversation_id] = self._on.pop(None, False)

    def opened(self, conversation_id: int, stored: list[StoredMessage]) -> None:
        """A chat was opened: its choice, unless made in this session, is what its last reply ran with."""
        replies = [m for m in stored if m.role == "assistant" and "stats" in m.meta]
        if conversation_id not in self._on and replies:
            self._on[conversation_id] = bool(ReplyRecord.from_meta(replies[-1].meta).demo_length)
            self.offer_links(stored)

    def link(self, meta: Mapping[str, Any]) -> tuple[str, str] | None:
        """The link a reply with ``meta`` offers after its footer (None: none)."""
        record = ReplyRecord.from_meta(meta)
        if record.demo_length:
            return (DEMO_OFF, QCoreApplication.translate("ChatExtras", "back to adaptive")) if self.on else None
        if record.offers_demo():
            if self.on:
                return DEMO_OFF, QCoreApplication.translate("ChatExtras", "next reply drafts anyway (undo)")
            return DEMO_ON, QCoreApplication.translate("ChatExtras", "show speculation anyway")
        return None

    def offer_links(self, stored: list[StoredMessage]) -> None:
        """Put the link on the footer of the branch's last reply when it qualifies, as the chat's choice says.

        The link speaks of the next reply ("next reply drafts anyway (undo)"): once that reply exists,
        the earlier one's link would describe what has already happened, so only the last reply offers one.
        """
        assistant = [m for m in stored if m.role == "assistant"]
        shown = [m for m in self._view.messages if m.role == "assistant"]
        changed = False
        last = len(assistant) - 1
        for position, (message, shown_message) in enumerate(zip(assistant, shown, strict=False)):
            link = self.link(message.meta) if "stats" in message.meta and position == last else None
            if link != shown_message.footer_link:
                shown_message.footer_link = link
                changed = True
        if changed:
            self._view.refresh()
