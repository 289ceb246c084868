"""`tandem chat --mcp CONFIG [--allow-tools] [--chat ID]`: the local pair answers with MCP servers' tools.

The loop is the engine's (:class:`~app.engine.tools.tool_loop.ToolLoop`, the
window's too); this module is its terminal side. Each call is printed with
its name and arguments on standard error and, unless ``--allow-tools`` was
given, asked about (y/N) on the terminal; its result (or the user's refusal,
or the failure's one line) is printed folded under it. Standard output holds
only the answer (or ``--json``'s one object): a final reply that is only a
call the loop did not run (a repeat, or a broken call) reads as the line about
it, as the window shows it, never as the call's raw JSON; ``--json`` gives
the note under ``tool_note`` too. With ``--chat ID`` the turn is
a saved chat's next one: the user's message, each reply (a reply that called
tools with its calls), each call's result as a ``tool`` message, and the
answer are stored in that chat as they happen, as the window stores them.

A server's command is printed before its first start, its environment in
front with secret-looking values masked (a remote server's address and
headers, an ``Authorization`` value masked, before it is first reached); one
whose headers give no ``Authorization`` is sent the key the window saved for
its address, if there is one. Text from the model
and the tools is printed with control characters made visible.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from app.cli.chat.options import drafter_kind, settings_from_options, stored_chat_drafter, use_disk_stores
from app.cli.chat.printing import run_json, run_stream
from app.cli.chat.prompt import read_prompt
from app.cli.common import resolve_pair, sampling_params
from app.core.conversation.chat import Message, MessageState, Role
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.display.terminal_text import visible
from app.core.errors import TandemError
from app.core.reply.plan import PromptPolicy
from app.core.tools.call_stream import ToolFormat
from app.core.tools.mcp_config import McpServerConfig
from app.core.tools.reader import call_attempt
from app.core.tools.records import ToolCall, ToolSpec
from app.core.tools.turns import Approval, ToolNote, ToolOutcome, calls_meta, prompt_message
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.memory.placement import pair_placement_json
from app.engine.remote.credentials import CredentialStore
from app.engine.reply import (
    ReplyEvent,
    ReplyPlan,
    ReplyRequest,
    chat_messages,
    pair_label,
    plan_reply,
    record_start,
    run_reply,
    saving,
)
from app.engine.store.conversations import ACTIVE_LEAF, ChatStore
from app.engine.tools.mcp_client import McpClient
from app.engine.tools.mcp_file import read_mcp_file
from app.engine.tools.tool_loop import ToolLoop

_FOLD = 300  # characters of a result shown under its call


class Asker:
    """Asks y/N about each call on the terminal (standard input, or the terminal itself when the prompt came on it)."""

    def __init__(self, allow_all: bool, prompt_on_stdin: bool, err: TextIO) -> None:
        self.allow_all = allow_all
        self.prompt_on_stdin = prompt_on_stdin
        self.err = err

    def approve(self, call: ToolCall) -> Approval:
        """The call shown, then ``--allow-tools``' allow or the user's y/N (no terminal to ask on: denied)."""
        self.err.write(f"tool call: {visible(call.name)} {visible(call.arguments)}\n")
        if self.allow_all:
            return Approval.ALLOW_ONCE
        self.err.write(f"run {visible(call.name)}? [y/N] ")
        self.err.flush()
        answer = self._answer()
        if answer is None:
            self.err.write("\nno terminal to ask on: denied (give --allow-tools to allow calls)\n")
            return Approval.DENY
        return Approval.ALLOW_ONCE if answer.strip().lower() in ("y", "yes") else Approval.DENY

    def _answer(self) -> str | None:
        if not self.prompt_on_stdin:
            line = sys.stdin.readline()
            return line if line else None
        try:
            with open("/dev/tty", encoding="utf-8") as tty:
                return tty.readline()
        except OSError:
            return None


@dataclass
class _Turns:
    """The replies of one run as they are made, and, with ``--chat``, where they are stored."""

    pair: LoadedPair
    settings: ChatSettings
    stop: tuple[str, ...]
    store: ChatStore | None = None
    conversation_id: int = 0
    user_text: str = ""
    label: str = ""
    user_id: int | None = None
    reply_id: int | None = None
    called: bool = False  # the last reply's calls were taken (False after a reply of repeats)
    events: list[ReplyEvent] = field(default_factory=list)
    plan: ReplyPlan | None = None

    def generate(self, messages: tuple[Message, ...], tools: tuple[ToolSpec, ...]) -> str:
        """One reply, held whole (a reply that is a call is not shown as text); stored as it runs with ``--chat``."""
        if self.store is None:
            request = ReplyRequest(self.settings, messages, PromptPolicy.REFUSE, stop=self.stop, tools=tools)
            self.plan = plan_reply(self.pair, request)
            self.events = list(run_reply(self.pair, self.plan))
        else:
            request = ReplyRequest(self.settings, messages, stop=self.stop, tools=tools, trace=True)
            self.plan = plan_reply(self.pair, request)
            if self.user_id is None:  # saved once the first reply is planned: a refused prompt stores nothing
                self.user_id = self.store.add_message(self.conversation_id, Role.USER, self.user_text)
            record = record_start(self.plan, self.label)
            parent: int | None = ACTIVE_LEAF
            if self.reply_id is not None and not self.called:
                # The reply before only repeated answered calls: this one answers beside it, as a regenerated reply.
                parent = self.store.message(self.reply_id, with_tokens=False).parent_id
            self.called = False
            self.reply_id = self.store.begin_reply(self.conversation_id, record.to_meta(), parent)
            run = run_reply(self.pair, self.plan)
            self.events = list(saving(run, self.store, self.reply_id, self.plan.prompt.reasoning_inside))
        finished = self.events[-1] if self.events else None
        return finished.text if isinstance(finished, FinishedEvent) else ""

    def calls(self, content: str, calls: tuple[ToolCall, ...]) -> None:
        """A reply that called tools: stored as its text outside the calls, with the calls in its meta."""
        self.called = True
        if self.store is not None and self.reply_id is not None:
            self.store.finish_reply(self.reply_id, content, MessageState.DONE, calls_meta(calls))

    def note(self, note: ToolNote) -> None:
        """A call the loop did not run, kept on the reply that made it with ``--chat`` (the window says it there)."""
        if self.store is not None and self.reply_id is not None:
            stored = self.store.message(self.reply_id, with_tokens=False)
            self.store.finish_reply(stored.id, stored.content, stored.state, note.to_meta())

    def outcome(self, outcome: ToolOutcome, err: TextIO) -> None:
        """A call's end: printed folded under it, and stored as a ``tool`` message with ``--chat``."""
        shown = " ".join(outcome.result.text.split())
        folded = shown if len(shown) <= _FOLD else shown[:_FOLD] + " …"
        err.write(f"  {'error' if outcome.result.is_error else 'result'}: {visible(folded)}\n")
        if self.store is not None:
            self.store.add_message(self.conversation_id, Role.TOOL, outcome.result.text, meta=outcome.to_meta())


def run_mcp(args: argparse.Namespace, store: ChatStore | None = None, conversation_id: int = 0) -> int:
    """Load the pair, offer the servers' tools, run the calls the user allows, print (and with ``--chat`` store)."""
    if (args.max_tokens is not None and args.max_tokens < 1) or args.ctx < 16 or args.max_tool_calls < 0:
        raise TandemError("--max-tokens must be >= 1, --ctx >= 16 and --max-tool-calls >= 0")
    if store is None:
        sampling_params(args)  # a bad value is reported before anything loads (--chat: the chat's own, checked)
    prompt_text = read_prompt(args)
    configs = read_mcp_file(args.mcp)
    target, draft = resolve_pair(args)
    history: list[Message] = []
    if store is None:
        kind = drafter_kind(args, draft)
        settings = settings_from_options(args, ChatSettings(drafter=kind))
    else:
        settings = settings_from_options(args, ChatSettings.from_dict(store.conversation_settings(conversation_id)))
        kind = stored_chat_drafter(args, settings, draft, target)
        stored = store.messages(conversation_id, with_tokens=False)
        history = [prompt_message(m.role, m.content, m.meta, m.attachments, m.images) for m in stored]
    config = PairConfig(
        target, draft if kind.uses_draft_model else None, kind, args.ctx, args.threads, args.ngl, args.ngld
    )
    err = sys.stderr
    asker = Asker(args.allow_tools, args.prompt == "-" or str(args.prompt_file) == "-", err)

    def show_command(server: McpServerConfig) -> bool:
        doing = "connecting to" if server.remote else "starting"
        err.write(f"{doing} MCP server {server.name!r}: {visible(server.shown_start)}\n")
        return True

    with (
        LoadedPair(config) as pair,
        McpClient(configs, before_start=show_command, saved_key=CredentialStore().load) as client,
    ):
        use_disk_stores(pair, args)
        if args.tool_format is not None:
            pair.template.tool_format = ToolFormat(args.tool_format)
        dialect = pair.template.tool_dialect()
        if dialect is None:
            raise TandemError(
                "this model's chat template has no tool format, so it cannot be given tools (--tool-format names one)"
            )
        tools = client.list_tools()
        for notice in client.notices:
            err.write(f"note: {visible(notice)}\n")
        turns = _Turns(pair, settings, tuple(args.stop), store, conversation_id, prompt_text, pair_label(config, kind))
        loop = ToolLoop(
            client,
            tools,
            asker.approve,
            args.max_tool_calls,
            on_calls=turns.calls,
            on_outcome=lambda outcome: turns.outcome(outcome, err),
            on_note=lambda note: _said(note, turns, err),
            dialect=dialect,
        )
        end = loop.run(chat_messages(settings, [*history, Message(Role.USER, prompt_text)]), turns.generate)
        assert turns.plan is not None  # the loop made at least one reply
        extra: dict[str, Any] = {"tool_calls": [o.to_json() for o in end.outcomes]}
        if store is not None:
            ids = {"conversation_id": conversation_id, "user_message_id": turns.user_id}
            extra.update(ids, reply_message_id=turns.reply_id)
        events = turns.events
        if end.note is not None:
            turns.note(end.note)
            extra.update(end.note.to_meta())
            if call_attempt(end.text, loop.dialect):
                # The final reply is only a call the loop did not run: its line is the answer, as in the window
                # (the tokens stay as the model wrote them in --json's "tokens").
                line = str(end.note.words())
                extra["text"] = line
                if not args.json:
                    sys.stdout.write(visible(line))
                    events = [e for e in events if not isinstance(e, StepEvent)]
        if args.json:
            extra["placement"] = pair_placement_json(pair)
            return run_json(iter(events), turns.plan, sys.stdout, extra=extra)
        return run_stream(iter(events), turns.plan.draft.drafter, sys.stdout)


def _said(note: ToolNote, turns: _Turns, err: TextIO) -> None:
    """A call the loop did not run: said on standard error, and kept on its reply with ``--chat``."""
    print(f"note: {visible(str(note.words()))}", file=err)
    turns.note(note)
