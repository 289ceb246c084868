"""Command-line entry: the GUI by default, headless subcommands otherwise.

Each subcommand lives in its own module with an ``add_parser`` function that
registers it and a ``run`` function that returns the process exit code.
Errors meant for the user (:class:`~app.core.errors.TandemError`) become one
line on stderr and exit code 2; nothing is printed to stdout in that case.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

import app
from app.cli.selftest import add_options as add_selftest_options
from app.core.errors import TandemError

# Subcommand modules, in the order `--help` lists them.
_COMMANDS = ("chat", "models", "memory", "bench", "preflight")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every available subcommand."""
    parser = argparse.ArgumentParser(
        prog="tandem",
        description="Tandem: offline chat with local GGUF models and visible speculative decoding.",
    )
    parser.add_argument("--version", action="version", version=f"{app.APP_NAME} {app.version()}")
    parser.add_argument("--selftest", action="store_true", help="load a model pair, check speculative output, exit")
    add_selftest_options(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        try:
            module = importlib.import_module(f"app.cli.{name}_command")
        except ModuleNotFoundError as exc:
            if exc.name == f"app.cli.{name}_command":
                continue  # not built yet
            raise
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(args_list)
    try:
        if args.selftest:
            from app.cli.selftest import run_selftest

            return run_selftest(args)
        if args.command is None:
            from app.ui.launch import run_gui

            return run_gui()
        return int(args.run(args))
    except TandemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
