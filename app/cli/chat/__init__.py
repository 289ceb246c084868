"""`tandem chat`: one reply in the terminal, from the local pair, a saved chat or a remote server.

:mod:`.options` reads the command line into a chat's settings, :mod:`.local`
answers one prompt, :mod:`.stored` continues a saved chat (``--chat ID``),
:mod:`.remote` asks a remote server (``--remote URL``), :mod:`.mcp_tools`
answers with MCP servers' tools (``--mcp CONFIG``, also
with ``--chat ID``); all print through
:mod:`.printing`. The local replies are planned by :mod:`app.engine.reply`,
as the window's are.
"""

from __future__ import annotations

import argparse

from app.cli.chat.options import add_parser as _add_parser
from app.cli.chat.options import fill_defaults
from app.core.errors import TandemError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `chat`."""
    _add_parser(subparsers, run)


def run(args: argparse.Namespace) -> int:
    """The reply the options ask for: a saved chat's next turn, a remote server's, the local pair's (with tools)."""
    if (args.json_schema is not None or args.json_object) and (args.chat is not None or args.remote or args.mcp):
        raise TandemError("--json-schema and --json-object work with a one-off prompt to the local pair, without --mcp")
    if args.mcp is not None and (args.remote or args.attach):
        raise TandemError("--mcp works with the local pair and a plain prompt; not with --remote or --attach")
    if args.allow_tools and args.mcp is None:
        raise TandemError("--allow-tools only means something with --mcp CONFIG")
    if args.chat is not None and args.mcp is not None:
        from app.cli.chat.stored import run_chat_with_tools

        return run_chat_with_tools(args)
    if args.chat is not None:
        from app.cli.chat.stored import run_chat

        return run_chat(args)
    fill_defaults(args)
    if args.remote and args.attach:
        raise TandemError("--attach works with the local pair; it cannot be combined with --remote")
    if args.mcp is not None:
        from app.cli.chat.mcp_tools import run_mcp

        return run_mcp(args)
    if args.remote:
        from app.cli.chat.remote import run_remote

        return run_remote(args)
    from app.cli.chat.local import run_local

    return run_local(args)
