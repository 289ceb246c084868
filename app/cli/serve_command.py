"""`tandem serve`: the loaded pair behind an OpenAI-compatible HTTP API on this machine."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from functools import partial
from pathlib import Path
from types import FrameType

from app.cli.chat.options import drafter_kind, use_disk_stores
from app.cli.common import add_model_options, add_tool_format_option, resolve_pair
from app.core.errors import TandemError
from app.core.tools.call_stream import ToolFormat
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.server.edge import EdgeLimits, parse_origins
from app.engine.server.http import RunningServer, check_binding
from app.engine.server.scheduler import DEFAULT_QUEUE_LIMIT, ServerEngine


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `serve`."""
    parser = subparsers.add_parser("serve", help="serve the pair over an OpenAI-compatible HTTP API")
    add_model_options(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    parser.add_argument(
        "--draft-max", type=int, default=None, metavar="K", help="draft exactly K tokens per step (default: adaptive)"
    )
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument(
        "--api-key",
        default=None,
        metavar="KEY",
        help="require 'Authorization: Bearer KEY' (other users see it in ps: prefer --api-key-file or TANDEM_API_KEY)",
    )
    keys.add_argument(
        "--api-key-file", type=Path, default=None, metavar="FILE", help="read the key from FILE (its first line)"
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let web pages from ORIGIN (e.g. http://localhost:3000) call the API; repeatable (default: none)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=EdgeLimits().max_connections,
        metavar="N",
        help=f"connections served at once; more get HTTP 503 (default {EdgeLimits().max_connections})",
    )
    parser.add_argument("--quiet", action="store_true", help="no log line per request on standard error")
    parser.add_argument(
        "--prefix-cache",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="reuse the KV state of a long prompt prefix (a client's system prompt, a document) saved on disk by an "
        "earlier reply or run, and save each reply's (default: on; the folder is Tandem's data folder's "
        "prefix-cache, under the limit set in the window's Settings, 4 GiB unless changed)",
    )
    parser.add_argument(
        "--queue-limit",
        type=int,
        default=DEFAULT_QUEUE_LIMIT,
        metavar="N",
        help=f"requests that may wait behind the one generating; more get HTTP 429 (default {DEFAULT_QUEUE_LIMIT})",
    )
    parser.add_argument(
        "--mmproj",
        type=Path,
        default=None,
        metavar="GGUF",
        help="the target's vision projector, for image_url parts (default: an mmproj*.gguf beside the target)",
    )
    add_tool_format_option(parser, "for requests with tools")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load the pair, listen, serve until interrupted."""
    if not 0 <= args.port <= 65535:
        raise TandemError("--port must be from 0 to 65535")
    if args.queue_limit < 0 or (args.draft_max is not None and args.draft_max < 0) or args.ctx < 16:
        raise TandemError("--queue-limit and --draft-max must be >= 0 and --ctx >= 16")
    if args.max_connections < 1:
        raise TandemError("--max-connections must be >= 1")
    if args.mmproj is not None and not args.mmproj.expanduser().is_file():
        raise TandemError(f"--mmproj: {args.mmproj} is not a file")
    api_key = api_key_of(args)
    try:
        origins = parse_origins(args.cors_origin)
    except ValueError as exc:
        raise TandemError(f"--cors-origin: {exc}") from None
    check_binding(args.host, api_key)  # before minutes of loading, not after
    target, draft = resolve_pair(args)
    kind = drafter_kind(args, draft)
    config = PairConfig(
        target,
        draft if kind.uses_draft_model else None,
        kind,
        args.ctx,
        args.threads,
        args.ngl,
        args.ngld,
        projector=args.mmproj,
    )
    # Like `chat`: the prefix cache (unless --no-prefix-cache) and the costs learned in earlier runs.
    engine = ServerEngine(config, args.draft_max, args.queue_limit, on_load=partial(_on_load, args=args))
    engine.start()
    try:
        server = RunningServer(
            engine,
            args.host,
            args.port,
            api_key,
            cors_origins=origins,
            limits=EdgeLimits(max_connections=args.max_connections),
            log=None if args.quiet else _log,
        )
    except OSError as exc:
        engine.close()
        raise TandemError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    policy = f"K={args.draft_max}" if args.draft_max is not None else "adaptive"
    print(f"serving {engine.model_name} ({kind.value} drafter, {policy}) at {server.url}", flush=True)
    print("OpenAI clients: base_url=" + server.url + (" with the API key" if api_key else ""), flush=True)
    if origins:
        print("web pages allowed from: " + ", ".join(origins), flush=True)
    _stop_on_sigterm()
    with server:
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print(f"\nstopped after {server.httpd.requests_served} requests", file=sys.stderr)
    return 0


def _on_load(pair: LoadedPair, args: argparse.Namespace) -> None:
    """Like ``chat``: the disk stores; and the call dialect ``--tool-format`` names over the template's."""
    use_disk_stores(pair, args=args)
    if args.tool_format is not None:
        pair.template.tool_format = ToolFormat(args.tool_format)


def _stop_on_sigterm() -> None:
    """A service manager's stop (SIGTERM) ends the server as Ctrl+C does.

    The reply in progress finishes and the prefix cache and learned costs it
    saves after its last token are written, where the default action would
    kill the process halfway through (the files stay whole either way: they
    are written to a temporary name and renamed).
    """

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def api_key_of(args: argparse.Namespace) -> str | None:
    """The key from --api-key, else --api-key-file, else $TANDEM_API_KEY (None: no key)."""
    if args.api_key is not None:
        key = args.api_key.strip()
        if not key:
            raise TandemError("--api-key is empty")
        return key
    if args.api_key_file is not None:
        try:
            lines = args.api_key_file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise TandemError(f"cannot read --api-key-file {args.api_key_file}: {exc}") from None
        key = lines[0].strip() if lines else ""
        if not key:
            raise TandemError(f"--api-key-file {args.api_key_file} is empty")
        return key
    return os.environ.get("TANDEM_API_KEY", "").strip() or None


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
