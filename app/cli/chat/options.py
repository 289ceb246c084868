"""`tandem chat`'s options: the parser, the prompt, the drafter they choose, and the settings they give.

The options are read into a :class:`~app.core.conversation.chat_settings.ChatSettings`
(:func:`settings_from_options`), so a one-off prompt, a stored chat
continued with ``--chat`` and the window all hand the reply planner
(:mod:`app.engine.reply`) the same kind of record. Files given with
``--attach`` are read by :func:`read_attached` before any model loads, so a
file that cannot be attached is one line and exit 2 at once.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.chat.output import add_output_options
from app.cli.chat.remote import add_options as add_remote_options
from app.cli.common import (
    add_model_options,
    add_sampling_options,
    add_tool_format_option,
    option_help,
    option_type,
)
from app.core.attachments.record import Attachment
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.sampling import MAX_TOKENS
from app.core.errors import TandemError
from app.core.reply.plan import effective_drafter
from app.engine.models.library import own_drafter

if TYPE_CHECKING:
    from app.engine.llama.session import LoadedPair

_MAX_TOKENS = MAX_TOKENS.default  # without --chat (a stored chat has its own limit): the same default everywhere
# Sampling options that, given with --chat, override the chat's stored setting of the same name.
SAMPLING_OPTIONS = ("temperature", "top_k", "top_p", "min_p", "repeat_penalty", "seed")


def add_parser(subparsers: argparse._SubParsersAction, run: Callable[[argparse.Namespace], int]) -> None:
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
        "--prefix-cache",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="reuse the KV state of a long prompt prefix saved on disk by an earlier reply, and save this one's "
        "(default: on; the folder is Tandem's data folder's prefix-cache, under the limit set in the window's "
        "Settings, 4 GiB unless changed)",
    )
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
    parser.add_argument(
        "--attach",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="attach a file or folder to the message (repeatable): text, Markdown, code in any encoding, PDF "
        "(its text layer), HTML, or a folder of code (its .gitignore respected); with --chat it is saved "
        "with the message",
    )
    parser.add_argument(
        "--mcp",
        type=Path,
        default=None,
        metavar="CONFIG",
        help="offer the tools of the MCP servers in CONFIG (the mcp.json shape of Claude Desktop and LM Studio); "
        "each call is shown and asked about first",
    )
    parser.add_argument("--allow-tools", action="store_true", help="with --mcp: run every call without asking")
    parser.add_argument(
        "--max-tool-calls",
        type=int,
        default=4,
        metavar="N",
        help="with --mcp: after N calls the model must answer (default 4)",
    )
    add_tool_format_option(parser, "with --mcp")
    parser.add_argument("prompt", nargs="?", help="the user message (- reads it from standard input)")
    add_output_options(parser)
    add_remote_options(parser)
    # Sampling options default to "not given", so --chat can tell them from the chat's own settings.
    parser.set_defaults(run=run, **dict.fromkeys(SAMPLING_OPTIONS))


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


def stored_chat_drafter(
    args: argparse.Namespace, settings: ChatSettings, draft: object, target: Path | None = None
) -> DrafterKind:
    """The drafter a ``--chat`` reply loads: ``settings``' (options already laid over), as the pair allows.

    A chat stored with a draft-model drafter still answers without a draft
    file (prompt lookup stands in, as for ``chat``), and one stored with the
    MTP layers on a ``target`` without them; a draft-model drafter asked for on
    this command line without one is refused, as without ``--chat``, and
    ``--drafter mtp`` on a target without MTP layers is refused when it loads.
    """
    chosen = getattr(args, "drafter", None)
    if chosen is not None and DrafterKind(chosen).uses_draft_model and draft is None and not args.no_draft:
        raise TandemError(f"--drafter {chosen} needs a draft model (give --draft, or choose ngram or none)")
    own_layers = settings.drafter.uses_own_layers and (
        (chosen is not None and DrafterKind(chosen).uses_own_layers) or _has_own_layers(target)
    )
    return effective_drafter(settings.drafter, draft is not None, DrafterKind.NGRAM, own_layers_loaded=own_layers)


def _has_own_layers(target: Path | None) -> bool:
    """Whether ``target``'s header says it carries MTP layers Tandem drafts with (False when it cannot be read:
    loading it then says why)."""
    if target is None:
        return False
    try:
        own = own_drafter(target)
    except (OSError, TandemError, ValueError):
        return False
    return own is not None and own.runs_in_process


def settings_from_options(args: argparse.Namespace, base: ChatSettings) -> ChatSettings:
    """``base`` with whatever the command line gave explicitly laid over it (for ``--chat``: this reply only)."""
    given = {name: getattr(args, name) for name in SAMPLING_OPTIONS}
    changes: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    if args.max_tokens is not None:
        changes["max_tokens"] = args.max_tokens
    if args.system is not None:
        changes["system_prompt"] = args.system
    # The same precedence as drafter_kind: --no-draft, then --drafter, then --ngram.
    chosen = getattr(args, "drafter", None)
    if args.no_draft:
        changes["drafter"] = DrafterKind.NONE
    elif chosen is not None:
        changes["drafter"] = DrafterKind(chosen)
    elif args.ngram:
        changes["drafter"] = DrafterKind.NGRAM
    if args.draft_max is not None:
        if args.draft_max == 0:
            changes["drafter"] = DrafterKind.NONE
        else:
            changes.update(adaptive=False, draft_length=args.draft_max)
    try:
        return base.with_changes(**changes)
    except ValueError as exc:
        raise TandemError(f"{exc} (from the command line)") from exc


def read_attached(args: argparse.Namespace) -> tuple[Attachment, ...]:
    """The files of ``--attach``, read in order; the first that cannot be attached raises its one-line error."""
    if not args.attach:
        return ()
    from app.engine.attachments import read_attachment  # only when asked: the PDF and HTML readers load on use

    return tuple(read_attachment(path) for path in args.attach)


def attachments_json(attachments: tuple[Attachment, ...]) -> dict[str, Any]:
    """`chat --json`'s ``attachments``: each file's name, kind, size, hash, sections and notes, in order."""
    from app.engine.store.attachments import AttachmentSummary

    return {"attachments": [AttachmentSummary.of(a).to_json() for a in attachments]}


def use_disk_stores(pair: LoadedPair, args: argparse.Namespace) -> None:
    """Attach the on-disk prefix cache to ``pair`` unless ``--no-prefix-cache`` was given, and its learned costs.

    Every ``chat`` is a new process: what the adaptive controller learned in
    the last one (the pair's costs and acceptance on this machine) is where
    this one starts.
    """
    # Imported here: the parser is built without llama.cpp.
    from app.engine.llama.profile_store import open_profile_store

    if getattr(args, "prefix_cache", True):
        from app.engine.llama.prefix_cache import open_prefix_cache

        pair.prefix_cache = open_prefix_cache()
    pair.attach_profile_store(open_profile_store())


def fill_defaults(args: argparse.Namespace) -> None:
    """Options not given take their usual defaults (they are None only so that --chat can tell)."""
    defaults = argparse.ArgumentParser()
    add_sampling_options(defaults)
    for name, value in vars(defaults.parse_args([])).items():
        if getattr(args, name, None) is None:
            setattr(args, name, value)
    if args.max_tokens is None:
        args.max_tokens = _MAX_TOKENS
