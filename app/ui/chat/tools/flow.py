"""MCP tools in the window: the servers started (their commands confirmed first), each call asked about and stored.

The policy is the engine's :class:`~app.engine.tools.tool_loop.ToolLoop`, the
one ``chat --mcp`` runs; the window drives its steps without blocking the GUI
thread. Each reply is an ordinary reply (planned and streamed on the engine
thread, stored by the controller) given :meth:`ToolFlow.offered`'s tools.
When it ends, :meth:`ToolFlow.reply_finished` reads it for calls: the
reply is stored with its calls (its text outside them as its content), each
call is shown in the Allow once / Always in this chat / Deny dialog (unless
this chat allowed its tool always), run on a pool thread (the MCP client
bounds it by its time-out), and its result stored as a ``tool`` message; then
the next reply starts, until one has no call. A failing server (crash, hang,
malformed result) ends that call with its one line as the result, and the
reply goes on.

On screen a reply's calls are named in its footer, and each result is folded
to its first line under the call, "show all" unfolding it. Which tools a chat
offers (on/off) and which it allows always are kept in the chat's settings
(:class:`~app.core.tools.turns.ChatTools`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QUrl, QUrlQuery, Signal
from PySide6.QtWidgets import QWidget

from app.core.chat import MessageState, Role
from app.core.errors import TandemError
from app.core.reply.end import EndKind, ReplyEnd
from app.core.tools.mcp_config import McpServerConfig
from app.core.tools.records import ToolCall, ToolResult, ToolSpec
from app.core.tools.turns import CHAT_TOOLS_KEY, Approval, ChatTools, ToolOutcome, calls_meta, calls_of_meta
from app.engine.store.conversations import ChatStore, StoredMessage
from app.engine.store.database import StoreWriteError
from app.engine.tools.mcp_client import DEFAULT_CALL_TIMEOUT, McpClient
from app.engine.tools.mcp_file import read_mcp_file
from app.engine.tools.tool_loop import DEFAULT_MAX_TOOL_CALLS, ToolLoop, enabled_tools
from app.ui.chat.panel import ChatPanel
from app.ui.chat.tools.dialogs import ask_call, confirm_server_start
from app.ui.chat.tools.tool_list import ToolListBox
from app.ui.chat.view.chat_view import ViewMessage
from app.ui.i18n.words import say, say_error
from app.ui.settings.mcp_box import McpBox
from app.ui.threads.background import Background

TOGGLE = "tandem-tool:toggle"  # a result's "show all" / "fold" link
_FOLDED = 120  # characters of a result's first line shown while folded


@dataclass(frozen=True, kw_only=True)
class ToolChat:
    """What the tool loop asks of the open chat and does to it (the chat controller's part)."""

    store: Callable[[], ChatStore]
    conversation: Callable[[], int | None]  # the open chat (None: not created yet)
    path: Callable[[], list[StoredMessage]]  # the open branch as shown
    remote: Callable[[], bool]  # replies come from a server: no tools are offered
    unsaved: Callable[[], bool]  # the last reply waits to be stored: its calls do not run
    quiet: Callable[[], bool]  # no reply streams: the chat may be redrawn
    reload: Callable[[], None]  # redraw the open branch from the store
    tools_running: Callable[[bool], None]  # calls are being asked about or run (the window's activity)
    reply_to_branch: Callable[[bool], bool]  # start the next reply (True: in place of the last); False if it cannot


class ToolFlow(QObject):
    """The window's side of the tool loop: servers, the chat's tool choices, calls asked, run and stored.

    The chat controller hands it the panel and a :class:`ToolChat`, and calls
    :meth:`reply_finished` with each reply's end and :meth:`settings_changed`
    when the open chat's settings change.
    """

    tools_changed = Signal()  # the tools on offer (or the status line) changed
    status = Signal(str)  # a line for the status bar

    def __init__(self, *, panel: ChatPanel, chat: ToolChat, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.panel = panel
        self.chat = chat
        self.background = Background(self, workers=1)  # one call at a time, in order
        self.client: McpClient | None = None
        self.tools: tuple[ToolSpec, ...] = ()
        self.status_line = ""
        self.box: ToolListBox | None = None
        # The two questions; the tests answer them for the user.
        self.confirm_start: Callable[[McpServerConfig], bool] = lambda s: confirm_server_start(self._window(), s)
        self.ask: Callable[[ToolCall], Approval] = lambda c: ask_call(self._window(), c)
        self.call_timeout = DEFAULT_CALL_TIMEOUT
        self.max_calls = DEFAULT_MAX_TOOL_CALLS
        self._loop: ToolLoop | None = None
        self._chain = False  # the next reply goes on with the loop (after the results were stored)
        self._chat: int | None = None  # the conversation the loop runs in
        self._queue: list[ToolCall] = []
        self._pending = ChatTools()  # the choices of a chat not created yet
        self._expanded: set[int] = set()  # tool messages unfolded
        panel.view.anchorClicked.connect(self._on_link)

    # -- the servers ---------------------------------------------------------------------

    def attach(self, box: ToolListBox, mcp: McpBox, saved: str, save: Callable[[str], None]) -> None:
        """Show the tools, and take the chat's on/off choices, in ``box``; the file from ``mcp`` (``saved`` at first).

        ``save`` keeps a newly chosen file's path (the window's settings file).
        """
        self.box = box
        box.changed.connect(self._set_off)
        self.tools_changed.connect(lambda: mcp.set_status(self.status_line))

        def chosen(path: str) -> None:
            save(path)
            self.set_config(path)

        mcp.chosen.connect(chosen)
        mcp.set_path(saved)
        if saved:
            self.set_config(saved)
        self._show_list()

    def set_config(self, path: str) -> None:
        """Use the MCP servers of the file at ``path`` ("" for none): each command confirmed, then started, listed."""
        self._close_client()
        self.tools = ()
        if not path:
            self._set_status("")
            return
        try:
            configs = read_mcp_file(Path(path))
        except TandemError as exc:
            self._set_status(say_error(exc))
            return
        confirmed = {c.name for c in configs if self.confirm_start(c)}
        declined = [c.name for c in configs if c.name not in confirmed]
        client = McpClient(configs, call_timeout=self.call_timeout, before_start=lambda c: c.name in confirmed)
        self.client = client
        self._set_status(QCoreApplication.translate("ToolFlow", "Starting the MCP servers…"))

        def listed(tools: tuple[ToolSpec, ...]) -> None:
            if client is not self.client:
                return  # another file was chosen meanwhile
            self.tools = tools
            lines = [say(notice) for notice in client.notice_words]
            lines += [
                QCoreApplication.translate("ToolFlow", "MCP server {name} was not started (not confirmed).").format(
                    name=repr(n)
                )
                for n in declined
            ]
            if not tools and not lines:
                lines.append(QCoreApplication.translate("ToolFlow", "The MCP servers offer no tools."))
            self._set_status(" ".join(lines))

        self.background.submit(client.list_tools, listed, lambda exc: self._set_status(say_error(exc)))

    def shutdown(self) -> None:
        """Stop the servers and the pool thread (the window is closing)."""
        self.background.shutdown()
        self._close_client()

    def _close_client(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        self._loop = None

    def _set_status(self, line: str) -> None:
        self.status_line = line
        self._show_list()
        self.tools_changed.emit()

    # -- the chat's choices --------------------------------------------------------------

    def chat_tools(self) -> ChatTools:
        """The open chat's choices (a chat not created yet: those it will start with)."""
        cid = self.chat.conversation()
        if cid is None:
            return self._pending
        store = self.chat.store()
        try:
            settings = store.conversation_settings(cid)
            fresh = self._pending != ChatTools() and CHAT_TOOLS_KEY not in settings
            # A chat just created (its first message only) keeps what was chosen before it existed.
            if fresh and len(store.messages(cid, with_tokens=False)) <= 1:
                self._save_chat_tools(self._pending, cid)
                self._pending = ChatTools()
                settings = store.conversation_settings(cid)
            return ChatTools.from_settings(settings)
        except KeyError:
            return ChatTools()

    def _save_chat_tools(self, tools: ChatTools, cid: int | None) -> None:
        if cid is None:
            self._pending = tools
            return
        try:
            store = self.chat.store()
            settings = dict(store.conversation_settings(cid))
            settings[CHAT_TOOLS_KEY] = tools.to_dict()
            store.set_conversation_settings(cid, settings)
        except (KeyError, StoreWriteError) as exc:
            self.panel.banner.show_message(say_error(exc))

    def _set_off(self, off: frozenset[str]) -> None:
        self._save_chat_tools(dataclasses.replace(self.chat_tools(), off=off), self.chat.conversation())

    def settings_changed(self) -> None:
        """The open chat (or its settings) changed: its tool choices are shown."""
        self._show_list()

    def _show_list(self) -> None:
        if self.box is not None:
            if self.client is None and not self.status_line:
                self.box.set_tools(
                    (),
                    (),
                    QCoreApplication.translate(
                        "ToolFlow", "No MCP configuration: choose one under MCP servers in Settings."
                    ),
                )
            else:
                self.box.set_tools(self.tools, self.chat_tools().off, self.status_line)

    # -- the loop ------------------------------------------------------------------------

    def offered(self) -> tuple[ToolSpec, ...]:
        """The tools the reply about to start is given (the controller asks as it starts each reply)."""
        cid = self.chat.conversation()
        if self.client is None or not self.tools or cid is None or self.chat.remote():
            self._loop, self._chain = None, False
            return ()
        if not self._chain or self._loop is None or self._chat != cid:
            choices = self.chat_tools()
            tools = enabled_tools(self.tools, choices.off)
            self._loop = ToolLoop(self.client, tools, max_calls=self.max_calls, always=set(choices.always))
            self._chat = cid
        self._chain = False
        return self._loop.offered()

    @property
    def running(self) -> bool:
        """True while calls of a reply are being asked about or run."""
        return bool(self._queue) or self._chain

    def reply_finished(self, end: ReplyEnd) -> None:
        """A reply ended: its calls, if any, are stored with it, asked about and run, then the next reply starts."""
        loop, chat = self._loop, self.chat
        if loop is None or self._chat != chat.conversation():
            return
        if end.kind is EndKind.CANCELLED or chat.unsaved():
            self._loop = None  # stopped, or not saved: no call runs
            return
        asked = loop.calls_in(end.text)
        if asked is None:
            self._loop = None  # the answer
            return
        if not asked.calls:
            # Only repeats of answered calls: the model answers without tools, the answer beside the repeat.
            self._continue(instead_of_last=True)
            return
        path = chat.path()
        reply = path[-1] if path else None
        if reply is None or reply.role != Role.ASSISTANT:
            self._loop = None
            return
        try:
            chat.store().finish_reply(reply.id, asked.content, MessageState.DONE, calls_meta(asked.calls))
        except StoreWriteError as exc:
            self.panel.banner.show_message(say_error(exc))
            self._loop = None
            return
        self._queue = list(asked.calls)
        chat.tools_running(True)
        chat.reload()
        self._next_call()

    def _next_call(self) -> None:
        loop, cid = self._loop, self._chat
        if loop is None or cid is None:
            self._queue = []
            self.chat.tools_running(False)
            return
        if not self._queue:
            self.chat.tools_running(False)
            self._continue()
            return
        call = self._queue.pop(0)
        approval = loop.preset(call) or self.ask(call)
        if approval is Approval.ALWAYS_IN_CHAT and call.name not in loop.always:
            choices = self.chat_tools()
            self._save_chat_tools(dataclasses.replace(choices, always=choices.always | {call.name}), cid)
        self.status.emit(QCoreApplication.translate("ToolFlow", "running the tool {name}…").format(name=call.name))

        def failed(exc: Exception) -> None:  # the client turns its failures into results; this is a backstop
            line = QCoreApplication.translate("ToolFlow", "the call to {name} failed: {why}").format(
                name=call.name, why=exc
            )
            self._stored(ToolOutcome(call, approval, ToolResult(call.id, line, is_error=True)))

        self.background.submit(lambda: loop.outcome(call, approval), self._stored, failed)

    def _stored(self, outcome: ToolOutcome) -> None:
        cid = self._chat
        if cid is None:
            return
        try:
            self.chat.store().add_message(cid, Role.TOOL, outcome.result.text, meta=outcome.to_meta())
        except StoreWriteError as exc:
            self.panel.banner.show_message(say_error(exc))
            self._queue, self._loop = [], None
            self.chat.tools_running(False)
            return
        if self.chat.conversation() == cid:
            self.chat.reload()
        self._next_call()

    def _continue(self, instead_of_last: bool = False) -> None:
        if self.chat.conversation() != self._chat:
            self._loop = None  # the user went to another chat: the loop ends here, its turns stored
            return
        self._chain = True
        if not self.chat.reply_to_branch(instead_of_last):
            self._chain, self._loop = False, None

    # -- on screen -----------------------------------------------------------------------

    def shown(self, one: ViewMessage, message: StoredMessage) -> ViewMessage:
        """A stored turn as the view shows it: a reply's calls named in its footer, a result folded under them."""
        if message.role == Role.ASSISTANT:
            calls = calls_of_meta(message.meta)
            if calls:
                words = [
                    QCoreApplication.translate("ToolFlow", "called {name} {arguments}").format(
                        name=c.name, arguments=c.arguments
                    )
                    for c in calls
                ]
                one.footer = "  ·  ".join([*words, *([one.footer] if one.footer else [])])
            return one
        if message.role != Role.TOOL:
            return one
        outcome = ToolOutcome.from_message(message.content, message.meta)
        name = outcome.call.name if outcome is not None else QCoreApplication.translate("ToolFlow", "tool")
        if outcome is not None and not outcome.allowed:
            label = QCoreApplication.translate("ToolFlow", "denied")
        elif outcome is not None and outcome.result.is_error:
            label = QCoreApplication.translate("ToolFlow", "error")
        else:
            label = QCoreApplication.translate("ToolFlow", "result")
        one.header = f"{name} · {label}"
        text = message.content
        first = text.strip().splitlines()[0] if text.strip() else ""
        folded = first if len(first) <= _FOLDED else first[:_FOLDED] + "…"
        foldable = folded != text.strip()
        expanded = message.id in self._expanded or not foldable
        one.text = fenced(text if expanded else folded + (" …" if foldable and folded == first else ""))
        one.tokens = []
        one.footer = QCoreApplication.translate("ToolFlow", "{count} characters").format(count=len(text))
        if foldable:
            one.footer_link = (
                f"{TOGGLE}?message={message.id}",
                QCoreApplication.translate("ToolFlow", "fold")
                if expanded
                else QCoreApplication.translate("ToolFlow", "show all"),
            )
        return one

    def _on_link(self, url: QUrl) -> None:
        if url.toString().split("?")[0] != TOGGLE:
            return
        try:
            message_id = int(QUrlQuery(url).queryItemValue("message"))
        except ValueError:
            return
        self._expanded ^= {message_id}
        if self.chat.quiet():
            self.chat.reload()

    def _window(self) -> QWidget | None:
        return self.panel.window()


def fenced(text: str) -> str:
    """``text`` as a Markdown code block, its fence longer than any backtick run inside, so it shows as written."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"
