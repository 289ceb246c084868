"""MCP tools in the window: the servers started (their commands confirmed once), each call asked about and stored.

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

On screen a reply's calls are named in its footer (its text is what it said
beside them, never the call's JSON), and each result is folded
to its first line under the call, "show all" unfolding it. A call the loop did
not run (a repeat, a call after the tools ended, a broken call) is said in
words on its reply (:class:`~app.core.tools.turns.ToolNote`), never shown as
raw JSON. Which tools a chat offers and which it allows always are kept in
the chat's settings (:class:`~app.core.tools.turns.ChatTools`); a new chat
offers only the tools the user marked for new chats (none at first).

A server command the user has not confirmed waits in a bar above the chat
(:class:`~app.ui.chat.tools.start_bar.StartBar`), asked after the window is
shown, never in a modal before it; a confirmation is remembered in the
user's tool preferences (Settings lists them, and Remove takes one back).
A remote server's key typed in that bar goes to the key store the remote
engines' keys use (:class:`~app.engine.remote.credentials.CredentialStore`),
filed under the server's address, and is sent where the configuration gives
no ``Authorization`` header.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QObject, QUrl, QUrlQuery, Signal
from PySide6.QtWidgets import QBoxLayout, QWidget

from app.core.conversation.chat import MessageState, Role
from app.core.errors import TandemError
from app.core.reply.end import EndKind, ReplyEnd
from app.core.tools.call_stream import ToolDialect
from app.core.tools.dialects import for_tools
from app.core.tools.hermes import HERMES
from app.core.tools.mcp_config import DIGEST_PREFIX, McpServerConfig, shown_url
from app.core.tools.prefs import ToolPrefs
from app.core.tools.reader import CallReader, ShownTokens, call_attempt
from app.core.tools.records import ToolCall, ToolResult, ToolSpec
from app.core.tools.turns import (
    CHAT_TOOLS_KEY,
    Approval,
    ChatTools,
    ToolNote,
    ToolOutcome,
    calls_meta,
    calls_of_meta,
)
from app.engine.remote.credentials import CredentialStore
from app.engine.store.conversations import ChatStore, StoredMessage
from app.engine.store.database import StoreWriteError
from app.engine.tools.mcp_client import DEFAULT_CALL_TIMEOUT, McpClient
from app.engine.tools.mcp_file import read_mcp_file
from app.engine.tools.tool_loop import DEFAULT_MAX_TOOL_CALLS, ToolLoop, enabled_tools
from app.ui.chat.panel import ChatPanel
from app.ui.chat.tools.dialogs import ask_call
from app.ui.chat.tools.start_bar import StartBar
from app.ui.chat.tools.tool_list import ToolListBox
from app.ui.chat.view.chat_view import ViewMessage
from app.ui.i18n.words import say, say_error
from app.ui.settings.mcp_box import AllowedStart, McpBox
from app.ui.threads.background import Background

TOGGLE = "tandem-tool:toggle"  # a result's "show all" / "fold" link
_FOLDED = 120  # characters of a result's first line shown while folded


class PrefsKeeper(Protocol):
    """Where the user's tool preferences are kept (the window's settings file)."""

    def tool_prefs(self) -> ToolPrefs:
        """The preferences as stored."""
        ...

    def set_tool_prefs(self, prefs: ToolPrefs) -> None:
        """Store the preferences."""
        ...


class _InMemory:
    """Preferences kept for this session only (until the window attaches its settings file)."""

    def __init__(self) -> None:
        self.prefs = ToolPrefs()

    def tool_prefs(self) -> ToolPrefs:
        return self.prefs

    def set_tool_prefs(self, prefs: ToolPrefs) -> None:
        self.prefs = prefs


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
    dialect: Callable[[], ToolDialect | None] = lambda: None  # how the loaded target writes calls (None: unknown)


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
        self.mcp: McpBox | None = None
        self.keeper: PrefsKeeper = _InMemory()
        self.credentials: CredentialStore | None = None  # remote servers' keys (the system keyring or a 0600 file)
        self._key_note = ""  # said first once the servers have started: a key not kept, or one forgotten
        self.path = ""  # the MCP configuration in use
        self.configs: tuple[McpServerConfig, ...] = ()  # its servers (none while it does not read)
        self._not_now: set[str] = set()  # start lines the user said "Not now" to (kept in memory only)
        # Servers not confirmed before wait here, above the chat (asked once the window is shown, never modal).
        self.start_bar = StartBar()
        layout = panel.layout()
        if isinstance(layout, QBoxLayout):
            layout.insertWidget(1, self.start_bar)  # under the error banner, above the transcript
        self.start_bar.answered.connect(self._start_answered)
        # The question each call asks; the tests answer it for the user.
        self.ask: Callable[[ToolCall], Approval] = lambda c: ask_call(self._window(), c, self._writes(c.name))
        self.call_timeout = DEFAULT_CALL_TIMEOUT
        self.max_calls = DEFAULT_MAX_TOOL_CALLS
        self._loop: ToolLoop | None = None
        self._chain = False  # the next reply goes on with the loop (after the results were stored)
        self._chat: int | None = None  # the conversation the loop runs in
        self._queue: list[ToolCall] = []
        self._pending: ChatTools | None = None  # the choices of a chat not created yet (None: the new-chat ones)
        self._repeat_note: ToolNote | None = None  # the reply on its way answers in place of a reply of repeats
        self._expanded: set[int] = set()  # tool messages unfolded
        panel.view.anchorClicked.connect(self._on_link)

    # -- the servers ---------------------------------------------------------------------

    def attach(
        self, box: ToolListBox, mcp: McpBox, saved: str, save: Callable[[str], None], keeper: PrefsKeeper
    ) -> None:
        """Show the tools, and take the chat's on/off choices, in ``box``; the file from ``mcp`` (``saved`` at first).

        ``save`` keeps a newly chosen file's path, ``keeper`` the tool preferences (the window's settings file).
        """
        self.box, self.mcp, self.keeper = box, mcp, keeper
        box.changed.connect(self._set_on)
        box.new_chat_changed.connect(self._set_new_chat)
        self.tools_changed.connect(lambda: mcp.set_status(self.status_line))
        mcp.revoked.connect(self._revoke)
        mcp.key_forgotten.connect(self._forget_key)
        prefs = keeper.tool_prefs()
        # Written back at once: the salt made on the first read stays, and a confirmation an
        # earlier version stored otherwise (its start line, an API key in clear) leaves the file.
        keeper.set_tool_prefs(prefs)
        self._show_allowed(prefs)

        def chosen(path: str) -> None:
            save(path)
            self._not_now.clear()  # chosen again: every server not confirmed is asked about again
            self.set_config(path)

        mcp.chosen.connect(chosen)
        mcp.set_path(saved)
        if saved:
            self.set_config(saved)
        self._show_list()

    def keys(self) -> CredentialStore:
        """Where a remote server's key is kept: the remote servers' key store (made on first use)."""
        if self.credentials is None:
            self.credentials = CredentialStore()
        return self.credentials

    def prefs(self) -> ToolPrefs:
        """The user's tool preferences."""
        return self.keeper.tool_prefs()

    def _save_prefs(self, prefs: ToolPrefs) -> None:
        self.keeper.set_tool_prefs(prefs)
        self._show_allowed(prefs)

    def _show_allowed(self, prefs: ToolPrefs) -> None:
        """Settings' list of confirmed servers, each shown from the configuration (the stored key is a digest)."""
        if self.mcp is None:
            return
        configs = {prefs.key_of(config): config for config in self.configs}
        entries = []
        for key in prefs.started:
            config = configs.get(key)
            shown = config.shown_start if config is not None else _elsewhere(key)
            # A key typed in the bar is kept only for a remote server whose file gives no Authorization.
            address = config.url if config is not None and config.needs_key else ""
            entries.append(AllowedStart(key=key, shown=shown, address=address))
        self.mcp.set_allowed(entries)

    def set_config(self, path: str) -> None:
        """Use the MCP servers of the file at ``path`` ("" for none): those confirmed before start, the others wait.

        A server not confirmed before is asked about in the bar above the chat;
        allowed, it is remembered and the servers are started again with it.
        """
        self._close_client()
        self.tools = ()
        self.path = path
        self.configs = ()
        self.start_bar.ask([])
        prefs = self.prefs()
        if not path:
            self._show_allowed(prefs)
            self._set_status("")
            return
        try:
            configs = read_mcp_file(Path(path))
        except TandemError as exc:
            self._show_allowed(prefs)
            self._set_status(say_error(exc))
            return
        self.configs = configs
        self._show_allowed(prefs)
        confirmed = {c.name for c in configs if prefs.allows(c)}
        waiting = [c for c in configs if c.name not in confirmed and c.start_line not in self._not_now]
        declined = [c.name for c in configs if c.start_line in self._not_now]
        self.start_bar.ask(waiting)
        client = McpClient(
            configs,
            call_timeout=self.call_timeout,
            before_start=lambda c: c.name in confirmed,
            saved_key=lambda url: self.keys().load(url),
        )
        self.client = client
        self._set_status(QCoreApplication.translate("ToolFlow", "Starting the MCP servers…"))

        def listed(tools: tuple[ToolSpec, ...]) -> None:
            if client is not self.client:
                return  # another file was chosen meanwhile
            self.tools = tools
            lines = [self._key_note] if self._key_note else []
            self._key_note = ""
            lines += [say(notice) for notice in client.notice_words]
            lines += [
                QCoreApplication.translate(
                    "ToolFlow", "MCP server {name} waits for your answer above the chat."
                ).format(name=repr(c.name))
                for c in waiting
            ]
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

    def _start_answered(self, server: McpServerConfig, allowed: bool, key: str) -> None:
        """The user answered the bar: an allowed command is remembered and the servers start again with it.

        A key typed for a remote server is kept in the key store under its address (never in the settings).
        """
        if allowed and key:
            try:
                self.keys().save(server.url, key)
            except TandemError as exc:
                self._key_note = say_error(exc)  # said with the servers' status once they have started
        if allowed:
            self._save_prefs(self.prefs().with_started(server))
        else:
            self._not_now.add(server.start_line)
        if not self.start_bar.queue:  # restarted once every waiting server is answered
            self.set_config(self.path)

    def _revoke(self, start_key: str) -> None:
        """Settings' Remove: the command is asked about again before it next starts (now, if it is configured)."""
        self._save_prefs(self.prefs().without_started(start_key))
        if self.path:
            self.set_config(self.path)

    def _forget_key(self, address: str) -> None:
        """Settings' Forget saved key: the key goes, and the server is asked about again (its bar takes a new one)."""
        try:
            self.keys().forget(address)
        except TandemError as exc:
            self._set_status(say_error(exc))
            return
        prefs = self.prefs()
        for config in self.configs:
            if config.url == address:
                prefs = prefs.without_started(prefs.key_of(config))
        self._save_prefs(prefs)
        self._key_note = QCoreApplication.translate("ToolFlow", "The key saved for {address} is forgotten.").format(
            address=shown_url(address)
        )
        if self.path:
            self.set_config(self.path)

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
        new_chat = ChatTools(on=self.prefs().new_chats)
        cid = self.chat.conversation()
        if cid is None:
            return self._pending if self._pending is not None else new_chat
        store = self.chat.store()
        try:
            settings = store.conversation_settings(cid)
            # A chat just created (its first message only) keeps what was chosen before it existed, or the
            # new-chat tools of that moment (a later change of those does not reach back into it).
            if CHAT_TOOLS_KEY not in settings and len(store.messages(cid, with_tokens=False)) <= 1:
                self._save_chat_tools(self._pending if self._pending is not None else new_chat, cid)
                settings = store.conversation_settings(cid)
            self._pending = None
            return ChatTools.from_settings(settings, new_chat.on or frozenset())
        except KeyError:
            return new_chat

    def new_chat(self) -> None:
        """A new chat starts: it offers the tools marked for new chats, whatever an unsent chat was given."""
        self._pending = None
        self._show_list()

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

    def _set_on(self, on: frozenset[str]) -> None:
        self._save_chat_tools(self.chat_tools().with_on(on), self.chat.conversation())
        self.tools_changed.emit()  # the gauge counts the tools the next prompt carries

    def _set_new_chat(self, name: str, on: bool) -> None:
        self._save_prefs(self.prefs().with_new_chat(name, on))

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
                choices = self.chat_tools()
                on = {t.name for t in self.tools if choices.offers(t.name)}
                self.box.set_tools(self.tools, on, self.prefs().new_chats, self.status_line)

    def _writes(self, name: str) -> bool:
        return any(t.writes for t in self.tools if t.name == name)

    # -- the loop ------------------------------------------------------------------------

    def next_tools(self) -> tuple[ToolSpec, ...]:
        """The tools the next reply in the open chat would carry (the context gauge counts them); changes nothing."""
        if self.client is None or not self.tools or self.chat.remote():
            return ()
        loop = self._loop
        if self._chain and loop is not None and self._chat == self.chat.conversation():
            return loop.offered()
        return enabled_tools(self.tools, self.chat_tools())

    def offered(self) -> tuple[ToolSpec, ...]:
        """The tools the reply about to start is given (the controller asks as it starts each reply)."""
        cid = self.chat.conversation()
        if self.client is None or not self.tools or cid is None or self.chat.remote():
            self._loop, self._chain = None, False
            return ()
        if not self._chain or self._loop is None or self._chat != cid:
            self._repeat_note = None  # a new loop: nothing of an earlier one is said on its replies
            choices = self.chat_tools()
            tools = enabled_tools(self.tools, choices)
            self._loop = ToolLoop(
                self.client, tools, max_calls=self.max_calls, always=set(choices.always), dialect=self._dialect()
            )
            self._chat = cid
        self._chain = False
        return self._loop.offered()

    def shown_tokens(self, tools: Sequence[ToolSpec]) -> ShownTokens | None:
        """What keeps a streamed reply's calls out of the view (None: the reply was offered no tools)."""
        if not tools:
            return None
        dialect = for_tools(self._dialect(), tools)
        return ShownTokens(CallReader(frozenset(t.name for t in tools), dialect=dialect))

    def _dialect(self) -> ToolDialect:
        """The loaded target's call dialect (Hermes until one is known)."""
        return self.chat.dialect() or HERMES

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
        path = chat.path()
        reply = path[-1] if path else None
        if reply is not None and reply.role != Role.ASSISTANT:
            reply = None
        if asked is None:
            self._loop = None  # the answer
            note = loop.note_on(end.text) or self._repeat_note
            self._repeat_note = None
            if note is not None and reply is not None:
                self._note(reply, note)
            return
        if not asked.calls:
            # Only repeats of answered calls: said on the repeat, and the model answers without tools beside it,
            # the answer saying why it stands in the repeat's place.
            if reply is not None and asked.note is not None:
                self._note(reply, asked.note)
            self._repeat_note = asked.note
            self._continue(instead_of_last=True)
            return
        if reply is None:
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

    def _note(self, reply: StoredMessage, note: ToolNote) -> None:
        """Keep ``note`` on the stored reply (its text and tokens stay as written) and show it."""
        try:
            store = self.chat.store()
            stored = store.message(reply.id, with_tokens=False)  # as stored now, not as the branch was drawn
            store.finish_reply(stored.id, stored.content, stored.state, note.to_meta())
        except (KeyError, StoreWriteError) as exc:
            self.panel.banner.show_message(say_error(exc))
            return
        self.chat.reload()

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
        if approval is Approval.ALWAYS_IN_CHAT and call.name not in loop.always and not loop.writes(call.name):
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
            note = ToolNote.from_meta(message.meta)
            if note is not None:
                said = say(note.words())
                if call_attempt(message.content, self._dialect()):  # the broken call gives way to the line about it
                    one.text, one.tokens = plain(said), []
                else:
                    one.footer = "  ·  ".join([said, *([one.footer] if one.footer else [])])
            calls = calls_of_meta(message.meta)
            if calls:
                # Its tokens spell the calls as the model wrote them (tags, bare or fenced JSON): what it said
                # beside them is its stored content, and the calls are said in words below.
                one.text, one.tokens = message.content.strip(), []
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


def plain(text: str) -> str:
    """``text`` as Markdown that shows it as written (every ASCII punctuation mark backslash-escaped)."""
    return "".join("\\" + c if c.isascii() and not c.isalnum() and not c.isspace() else c for c in text)


def _elsewhere(start_key: str) -> str:
    """Settings' line for a confirmed server the current configuration does not hold: its digest's start only."""
    short = start_key.removeprefix(DIGEST_PREFIX)[:12]
    return QCoreApplication.translate("ToolFlow", "A server not in the current MCP file (confirmed as {key}…)").format(
        key=short
    )
