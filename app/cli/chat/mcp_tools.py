"""`tandem chat --mcp CONFIG [--allow-tools]`: one prompt answered by the local pair with MCP servers' tools.

The tools go to the model through its chat template, as ``serve``'s do
(:class:`~app.engine.reply.ReplyRequest`'s ``tools``), and its reply is read
for calls by the same reader (:func:`app.core.tools.reader.read_reply`). Each
call is printed with its name and arguments on standard error and, unless
``--allow-tools`` was given, asked about (y/N) on the terminal; its result
(or the user's refusal, or the failure's one line) goes back to the model as
a tool message, and the model replies again. The loop ends on a reply with no
call; after ``--max-tool-calls`` calls, or when the model only repeats calls
already answered, the next turn is rendered without tools, so it must answer.
Standard output holds only the answer (or ``--json``'s one object).

A server's command is printed before its first start. Text from the model
and the tools is printed with control characters made visible.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from app.cli.chat.options import drafter_kind, settings_from_options, use_prefix_cache
from app.cli.chat.printing import run_json, run_stream
from app.cli.chat.prompt import read_prompt
from app.cli.common import resolve_pair, sampling_params
from app.core.chat import Message
from app.core.chat_settings import ChatSettings
from app.core.decoding.events import FinishedEvent
from app.core.errors import TandemError
from app.core.reply.plan import PromptPolicy
from app.core.terminal_text import visible
from app.core.tools.mcp_config import McpServerConfig, parse_mcp_config
from app.core.tools.reader import read_reply
from app.core.tools.records import ToolCall, ToolResult
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.reply import ReplyRequest, chat_messages, plan_reply, run_reply
from app.engine.tools.mcp_client import McpClient

DEFAULT_MAX_TOOL_CALLS = 4
_FOLD = 300  # characters of a result shown under its call


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One call as ``--json`` reports it: what the model asked, whether the user allowed it, what came back."""

    call: ToolCall
    allowed: bool
    result: ToolResult

    def to_json(self) -> dict[str, Any]:
        """The entry of ``--json``'s ``tool_calls``."""
        return {
            "id": self.call.id,
            "name": self.call.name,
            "arguments": self.call.arguments,
            "allowed": self.allowed,
            "result": self.result.text,
            "is_error": self.result.is_error,
        }


def read_config(path: Path) -> tuple[McpServerConfig, ...]:
    """The servers of the ``--mcp`` file; one line when it cannot be read or is not the mcp.json shape."""
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise TandemError(f"cannot read the MCP configuration {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise TandemError(f"the MCP configuration {path} is not UTF-8 text (byte {exc.start})") from exc
    return parse_mcp_config(text, str(path))


class Asker:
    """Asks y/N about each call on the terminal (standard input, or the terminal itself when the prompt came on it)."""

    def __init__(self, allow_all: bool, prompt_on_stdin: bool, err: TextIO) -> None:
        self.allow_all = allow_all
        self.prompt_on_stdin = prompt_on_stdin
        self.err = err

    def allows(self, call: ToolCall) -> bool:
        """True when the call may run: ``--allow-tools``, or the user's "y"."""
        if self.allow_all:
            return True
        self.err.write(f"run {call.name}? [y/N] ")
        self.err.flush()
        answer = self._answer()
        if answer is None:
            self.err.write("\nno terminal to ask on: denied (give --allow-tools to allow calls)\n")
            return False
        return answer.strip().lower() in ("y", "yes")

    def _answer(self) -> str | None:
        if not self.prompt_on_stdin:
            line = sys.stdin.readline()
            return line if line else None
        try:
            with open("/dev/tty", encoding="utf-8") as tty:
                return tty.readline()
        except OSError:
            return None


def run_mcp(args: argparse.Namespace) -> int:
    """Load the pair, offer the servers' tools, run the calls the user allows, print the answer."""
    if args.max_tokens < 1 or args.ctx < 16 or args.max_tool_calls < 0:
        raise TandemError("--max-tokens must be >= 1, --ctx >= 16 and --max-tool-calls >= 0")
    sampling_params(args)
    prompt_text = read_prompt(args)
    configs = read_config(args.mcp)
    target, draft = resolve_pair(args)
    kind = drafter_kind(args, draft)
    settings = settings_from_options(args, ChatSettings(drafter=kind.value))
    config = PairConfig(
        target, draft if kind.uses_draft_model else None, kind, args.ctx, args.threads, args.ngl, args.ngld
    )
    err = sys.stderr
    asker = Asker(args.allow_tools, args.prompt == "-" or str(args.prompt_file) == "-", err)

    def show_command(server: McpServerConfig) -> bool:
        err.write(f"starting MCP server {server.name!r}: {visible(server.command_line)}\n")
        return True

    with LoadedPair(config) as pair, McpClient(configs, before_start=show_command) as client:
        use_prefix_cache(pair, args)
        if pair.template.tool_format is None:
            raise TandemError("this model's chat template has no tool format, so it cannot be given tools")
        tools = client.list_tools()
        for notice in client.notices:
            err.write(f"note: {visible(notice)}\n")
        names = frozenset(t.name for t in tools)
        messages = list(chat_messages(settings, [Message("user", prompt_text)]))
        records: list[CallRecord] = []
        answered: set[tuple[str, str]] = set()
        offer = bool(tools) and args.max_tool_calls > 0
        while True:
            request = ReplyRequest(
                settings, tuple(messages), PromptPolicy.REFUSE, stop=tuple(args.stop), tools=tools if offer else ()
            )
            plan = plan_reply(pair, request)
            events = list(run_reply(pair, plan))  # held whole: a reply that is a call is not shown as text
            finished = next((e for e in events if isinstance(e, FinishedEvent)), None)
            text = finished.text if finished is not None else ""
            reply = read_reply(text, names if offer else ()) if offer else None
            if reply is None or not reply.calls:
                return _print_answer(args, events, plan, records)
            fresh = [c for c in reply.calls if (c.name, _canonical(c.arguments)) not in answered]
            if not fresh:  # only calls already answered: the model has what it asked for
                offer = False
                continue
            messages.append(Message("assistant", reply.content, tool_calls=reply.calls))
            for call in reply.calls:
                record = _run_call(call, client, asker, err)
                records.append(record)
                answered.add((call.name, _canonical(call.arguments)))
                messages.append(Message("tool", record.result.text, tool_call_id=call.id))
            if len(records) >= args.max_tool_calls:
                offer = False


def _run_call(call: ToolCall, client: McpClient, asker: Asker, err: TextIO) -> CallRecord:
    err.write(f"tool call: {visible(call.name)} {visible(call.arguments)}\n")
    allowed = asker.allows(call)
    denied = ToolResult(call.id, "the user did not allow this call", is_error=True)
    result = client.call(call) if allowed else denied
    shown = " ".join(result.text.split())
    folded = shown if len(shown) <= _FOLD else shown[:_FOLD] + " …"
    err.write(f"  {'error' if result.is_error else 'result'}: {visible(folded)}\n")
    return CallRecord(call, allowed, result)


def _print_answer(args: argparse.Namespace, events: list[Any], plan: Any, records: list[CallRecord]) -> int:
    if args.json:
        return run_json(iter(events), plan, sys.stdout, extra={"tool_calls": [r.to_json() for r in records]})
    return run_stream(iter(events), plan.drafter, sys.stdout)


def _canonical(arguments: str) -> str:
    """The arguments in one spelling, so a repeated call is known whatever its spacing or key order."""
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except ValueError:
        return arguments
