"""`tandem chat`: one reply, streamed with colours by token origin, or as JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from app.cli.common import (
    add_model_options,
    add_sampling_options,
    option_help,
    option_type,
    resolve_pair,
    sampling_params,
)
from app.cli.remote_chat import add_options as add_remote_options
from app.cli.remote_chat import run_remote
from app.core.chat import Message
from app.core.chat_settings import ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.events import FinishedEvent, StepEvent, TokenOrigin
from app.core.decoding.sampling import MAX_TOKENS
from app.core.errors import TandemError
from app.core.reply.plan import PromptPolicy
from app.core.reply.token_record import step_records
from app.core.terminal_text import visible
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.reply import ReplyPlan, ReplyRequest, chat_messages, plan_reply, run_reply

# ANSI styles per origin; the CLI is a view, so it owns its colours.
_STYLE = {
    TokenOrigin.DRAFT: "\x1b[32m",  # green: the draft guessed right
    TokenOrigin.CORRECTED: "\x1b[31m",  # red: the target overruled the draft
    TokenOrigin.BONUS: "\x1b[34m",  # blue: free token after a fully accepted draft
    TokenOrigin.TARGET: "",  # plain: target-only step
}
_RESET = "\x1b[0m"
_MAX_TOKENS = MAX_TOKENS.default  # without --chat (a stored chat has its own limit): the same default everywhere
# Sampling options that, given with --chat, override the chat's stored setting of the same name.
SAMPLING_OPTIONS = ("temperature", "top_k", "top_p", "min_p", "repeat_penalty", "seed")
_LEGEND = {
    TokenOrigin.DRAFT: "drafted and accepted",
    TokenOrigin.CORRECTED: "corrected by the target",
    TokenOrigin.BONUS: "target bonus token",
    TokenOrigin.TARGET: "target only",
}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `chat`."""
    parser = subparsers.add_parser("chat", help="generate one reply in the terminal")
    add_model_options(parser)
    add_sampling_options(parser)
    parser.add_argument("--max-tokens", type=option_type(MAX_TOKENS), default=None, help=option_help(MAX_TOKENS))
    parser.add_argument(
        "--draft-max",
        type=int,
        default=None,
        metavar="K",
        help="draft exactly K tokens per step (default: adaptive, chosen each step from measured costs)",
    )
    parser.add_argument("--system", default=None, help="system prompt")
    parser.add_argument("--stop", action="append", default=[], help="stop string (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of streaming")
    parser.add_argument(
        "--prompt-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="read the user message from FILE (UTF-8; - for standard input), for prompts too long for the command line",
    )
    parser.add_argument(
        "--chat",
        default=None,
        metavar="ID",
        help="continue saved chat ID on its active branch, with its system prompt and settings (options given "
        "here override them for this reply); both messages are saved",
    )
    parser.add_argument("prompt", nargs="?", help="the user message (- reads it from standard input)")
    add_remote_options(parser)
    # Sampling options default to "not given", so --chat can tell them from the chat's own settings.
    parser.set_defaults(run=run, **dict.fromkeys(SAMPLING_OPTIONS))


def read_prompt(args: argparse.Namespace) -> str:
    """The user message from the argument, a file or standard input; refused when blank."""
    if (args.prompt is None) == (args.prompt_file is None):
        raise TandemError("give the prompt either as an argument or with --prompt-file, not both or neither")
    source = args.prompt_file if args.prompt_file is not None else ("-" if args.prompt == "-" else None)
    if source is None:
        text = str(args.prompt)
    elif str(source) == "-":
        text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    else:
        try:
            text = Path(source).read_bytes().decode("utf-8")
        except OSError as exc:
            raise TandemError(f"cannot read the prompt file {source}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise TandemError(f"the prompt file {source} is not UTF-8 text (byte {exc.start})") from exc
    if not text.strip():
        raise TandemError("the prompt is empty: give a message to reply to")
    return text


def drafter_kind(args: argparse.Namespace, draft: object) -> DrafterKind:
    """Which drafter the options select: hybrid with a draft model, n-gram lookup without one."""
    if args.no_draft:
        return DrafterKind.NONE
    chosen = getattr(args, "drafter", None)
    if chosen is not None:
        kind = DrafterKind(chosen)
        if kind.uses_draft_model and draft is None:
            raise TandemError(f"--drafter {chosen} needs a draft model (give --draft, or choose ngram or none)")
        return kind
    if args.ngram or draft is None:
        return DrafterKind.NGRAM
    return DrafterKind.HYBRID


def run(args: argparse.Namespace) -> int:
    """Load the pair, generate, print."""
    if args.chat is not None:
        return _run_chat(args)
    _fill_defaults(args)
    if args.remote:
        return run_remote(args)
    if args.max_tokens < 1 or (args.draft_max is not None and args.draft_max < 0) or args.ctx < 16:
        raise TandemError("--max-tokens must be >= 1, --draft-max >= 0 and --ctx >= 16")
    sampling_params(args)  # a bad value is reported before anything loads
    prompt_text = read_prompt(args)
    target, draft = resolve_pair(args)
    kind = drafter_kind(args, draft)
    settings = settings_from_options(args, ChatSettings(drafter=kind.value))
    config = PairConfig(
        target, draft if kind.uses_draft_model else None, kind, args.ctx, args.threads, args.ngl, args.ngld
    )
    # One prompt, not a chat: an oversized one is refused rather than cut.
    request = ReplyRequest(
        settings,
        chat_messages(settings, [Message("user", prompt_text)]),
        PromptPolicy.REFUSE,
        stop=tuple(args.stop),
    )
    with LoadedPair(config) as pair:
        plan = plan_reply(pair, request)
        events = run_reply(pair, plan)
        if args.json:
            return _run_json(events, plan, sys.stdout)
        return _run_stream(events, plan.drafter, sys.stdout)


def settings_from_options(args: argparse.Namespace, base: ChatSettings) -> ChatSettings:
    """``base`` with whatever the command line gave explicitly laid over it (for ``--chat``: this reply only)."""
    given = {name: getattr(args, name) for name in SAMPLING_OPTIONS}
    changes: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    if args.max_tokens is not None:
        changes["max_tokens"] = args.max_tokens
    if args.system is not None:
        changes["system_prompt"] = args.system
    if args.no_draft:
        changes["drafter"] = DrafterKind.NONE.value
    elif args.ngram:
        changes["drafter"] = DrafterKind.NGRAM.value
    if args.draft_max is not None:
        if args.draft_max == 0:
            changes["drafter"] = DrafterKind.NONE.value
        else:
            changes.update(adaptive=False, draft_length=args.draft_max)
    try:
        return base.with_changes(**changes)
    except ValueError as exc:
        raise TandemError(f"{exc} (from the command line)") from exc


def _fill_defaults(args: argparse.Namespace) -> None:
    """Options not given take their usual defaults (they are None only so that --chat can tell)."""
    defaults = argparse.ArgumentParser()
    add_sampling_options(defaults)
    for name, value in vars(defaults.parse_args([])).items():
        if getattr(args, name, None) is None:
            setattr(args, name, value)
    if args.max_tokens is None:
        args.max_tokens = _MAX_TOKENS


def _run_chat(args: argparse.Namespace) -> int:
    """`chat --chat ID`: the next turn of a saved conversation (see :mod:`app.cli.stored_chat`)."""
    from app.cli.chats_command import chat_id, writing
    from app.cli.stored_chat import run_stored_chat

    if args.remote:
        raise TandemError("--chat continues a saved chat with the local pair; it cannot be combined with --remote")
    if (args.max_tokens is not None and args.max_tokens < 1) or (args.draft_max is not None and args.draft_max < 0):
        raise TandemError("--max-tokens must be >= 1 and --draft-max >= 0")
    if args.ctx < 16:
        raise TandemError("--ctx must be >= 16")
    prompt_text = read_prompt(args)
    with writing() as store:
        conversation = chat_id(args.chat, store)
        return run_stored_chat(args, store, conversation.id, prompt_text)


def token_json(event: StepEvent) -> list[dict[str, Any]]:
    """A step's tokens as `chat --json` lists them (the token record every JSON format shares)."""
    return [record.to_json() for record in step_records(event)]


def reply_json(
    text: str, tokens: list[dict[str, Any]], reason: str, drafter: str, stats: dict[str, Any]
) -> dict[str, Any]:
    """The object `chat --json` prints, for a local pair and a remote server alike."""
    return {"text": text, "tokens": tokens, "finish_reason": reason, "drafter": drafter, "stats": stats}


def _run_json(events: Any, plan: ReplyPlan, out: TextIO, extra: dict[str, Any] | None = None) -> int:
    """Print the reply as one JSON object (``extra`` keys added) once it is finished."""
    tokens: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, StepEvent):
            tokens.extend(token_json(event))
        elif isinstance(event, FinishedEvent):
            payload = reply_json(event.text, tokens, event.reason.value, plan.drafter.value, event.stats.to_dict())
            payload["prompt_tokens"] = plan.prompt.tokens
            payload["produced_by"] = plan.provenance.to_dict()
            payload.update(extra or {})
            json.dump(payload, out, ensure_ascii=False)
            out.write("\n")
    return 0


def _colour_enabled(out: TextIO) -> bool:
    return (out.isatty() and "NO_COLOR" not in os.environ) or os.environ.get("FORCE_COLOR") == "1"


def _run_stream(events: Any, kind: DrafterKind, out: TextIO) -> int:
    """Print the reply token by token, coloured by origin, then the legend and the statistics."""
    colour = _colour_enabled(out)
    for event in events:
        if isinstance(event, StepEvent):
            for token in event.tokens:
                style = _STYLE[token.origin] if colour else ""
                out.write(f"{style}{visible(token.text)}{_RESET if style else ''}")  # its controls shown, not obeyed
            out.flush()
        elif isinstance(event, FinishedEvent):
            stats = event.stats
            out.write("\n\n")
            shown = [TokenOrigin.TARGET] if kind is DrafterKind.NONE else list(_LEGEND)
            legend = "  ".join(
                f"{_STYLE[o] if colour else ''}{_LEGEND[o]}{_RESET if colour and _STYLE[o] else ''}" for o in shown
            )
            out.write(f"legend: {legend}\n")
            out.write(
                f"{stats.emitted} tokens in {stats.total_s:.2f} s = {stats.tokens_per_second:.1f} tok/s | "
                f"drafter {kind.value} | acceptance {stats.acceptance_rate:.0%} ({stats.accepted}/{stats.drafted}) | "
                f"mean accepted length {stats.mean_accepted_length:.2f} | {stats.steps} target passes | "
                f"finish: {event.reason.value}\n"
            )
    return 0
