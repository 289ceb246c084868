"""Counting the next prompt for the context gauge, as the user types and as a reply streams.

The gauge shows the tokens of the next prompt against the context size: the
chat so far and the text in the prompt box, recounted on the engine thread
after a short pause in typing (or a change of the attached files), and the
prompt of a reply as it streams; it names the oldest turn that would be left
out. The tool definitions the next reply would carry are counted too (the
template writes them into the prompt), so a chat with tools on shows their
cost. :class:`ContextCount` is a component of the chat controller, handed the
gauge, the engine host, the attachments and what it asks of the chat (what the
next prompt would hold, its token limit, the pair, whether the engine thread is
free) when it is made.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from app.core.attachments.context import ChunkSearch
from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.reply.reasoning import history_without_reasoning
from app.core.tools.records import ToolSpec
from app.engine.reply import ReplyRequest, reply_reserve
from app.ui.chat.attachments.flow import AttachmentFlow
from app.ui.chat.panel import ChatPanel
from app.ui.threads.jobs import PairInfo, PromptInfo
from app.ui.threads.worker import EngineHost

_COUNT_MS = 250  # typing pause before the context gauge recounts


class ContextCount(QObject):
    """Asks the engine thread for the next prompt's size and shows it on the panel's gauge."""

    def __init__(
        self,
        *,
        panel: ChatPanel,
        host: EngineHost,
        attachments: AttachmentFlow,
        messages: Callable[[], tuple[Message, ...]],
        settings: Callable[[], ChatSettings],
        chunk_search: Callable[[], ChunkSearch | None],
        pair: Callable[[], PairInfo | None],
        idle: Callable[[], bool],
        tools: Callable[[], tuple[ToolSpec, ...]] = tuple,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._panel = panel
        self._host = host
        self._attachments = attachments
        self._messages = messages  # what the next reply's prompt would hold (the chat and the prompt box)
        self._settings = settings  # the chat's settings: its token limit is the room kept for the reply
        self._chunk_search = chunk_search  # the chat database's passage search, as the reply gets it
        self._pair = pair
        self._idle = idle  # nothing runs on the engine thread: a count would wait behind it
        self._tools = tools  # the tools the next reply would be offered (their definitions are in its prompt)
        self._closed = False  # the store is closed: a timer that fires late has nothing to count
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(_COUNT_MS)
        self._timer.timeout.connect(self.count)
        panel.prompt.textChanged.connect(self._timer.start)
        # The files the next message carries change the count as typing does.
        attachments.changed.connect(self._timer.start)
        host.worker.prompt_counted.connect(self._on_counted)

    def count(self) -> None:
        """Ask the engine thread for the size of the next prompt (only while it is free)."""
        self._timer.stop()
        if self._closed:
            return
        pair = self._pair()
        if pair is None:
            self._panel.gauge.clear()
            return
        if not self._idle():
            return
        # Counted as the prompt will be sent: earlier replies' thinking left out, as the planner does.
        messages = history_without_reasoning(self._messages())
        if not messages:
            self._panel.gauge.set_counts(0, pair.n_ctx)
            return
        # The planner fits it, attachments included, as it will for the reply.
        request = ReplyRequest(
            settings=self._settings(),
            messages=messages,
            whole_documents=self._attachments.whole_documents,
            chunk_search=self._chunk_search(),
            tools=self._tools(),
        )
        self._host.count_prompt(request)

    def recount_soon(self) -> None:
        """Count again after the usual pause (something the prompt holds changed: the tools on offer)."""
        self._timer.start()

    def show(self, info: PromptInfo, streaming: bool) -> None:
        """Show ``info``'s count on the gauge (``streaming``: the prompt of a reply on its way)."""
        first = ""
        turns = [m for m in self._messages() if m.role != "system"]
        if info.dropped_messages and turns:
            words = turns[0].content.split()
            first = " ".join(words[:6]) + ("…" if len(words) > 6 else "")
        # The attachments of the turns kept: the count holds them as the planner put them in; the notes weigh
        # them against the rest.
        files = [a for m in turns[info.dropped_messages :] for a in m.attachments]
        without_files = info.n_tokens - info.attachment_tokens
        room = info.n_ctx - reply_reserve(self._settings().max_tokens, info.n_ctx) - without_files
        notes = self._attachments.gauge_notes(files, room, info.n_ctx)
        self._panel.gauge.set_counts(info.n_tokens, info.n_ctx, info.dropped_messages, first, streaming)
        self._panel.gauge.set_attachment_notes(notes)

    def shutdown(self) -> None:
        """The window is closing: no more counts."""
        self._closed = True
        self._timer.stop()

    def _on_counted(self, info: PromptInfo) -> None:
        if self._idle() and not self._closed:
            self.show(info, streaming=False)
