"""`tandem serve`: the loaded pair behind an OpenAI-compatible HTTP API on this machine."""

from __future__ import annotations

import argparse
import sys
import time

from app.cli.chat_command import drafter_kind
from app.cli.common import add_model_options, resolve_pair
from app.core.errors import TandemError
from app.engine.llama.session import PairConfig
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
    parser.add_argument("--api-key", default=None, metavar="KEY", help="require 'Authorization: Bearer KEY'")
    parser.add_argument(
        "--queue-limit",
        type=int,
        default=DEFAULT_QUEUE_LIMIT,
        metavar="N",
        help=f"requests that may wait behind the one generating; more get HTTP 429 (default {DEFAULT_QUEUE_LIMIT})",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load the pair, listen, serve until interrupted."""
    if not 0 <= args.port <= 65535:
        raise TandemError("--port must be from 0 to 65535")
    if args.queue_limit < 0 or (args.draft_max is not None and args.draft_max < 0) or args.ctx < 16:
        raise TandemError("--queue-limit and --draft-max must be >= 0 and --ctx >= 16")
    check_binding(args.host, args.api_key)  # before minutes of loading, not after
    target, draft = resolve_pair(args)
    kind = drafter_kind(args, draft)
    config = PairConfig(
        target, draft if kind.uses_draft_model else None, kind, args.ctx, args.threads, args.ngl, args.ngld
    )
    engine = ServerEngine(config, args.draft_max, args.queue_limit)
    engine.start()
    try:
        server = RunningServer(engine, args.host, args.port, args.api_key)
    except OSError as exc:
        engine.close()
        raise TandemError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    policy = f"K={args.draft_max}" if args.draft_max is not None else "adaptive"
    print(f"serving {engine.model_name} ({kind.value} drafter, {policy}) at {server.url}", flush=True)
    print("OpenAI clients: base_url=" + server.url + (" with the API key" if args.api_key else ""), flush=True)
    with server:
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print(f"\nstopped after {server.httpd.requests_served} requests", file=sys.stderr)
    return 0
