"""Command-line entry: the GUI by default, headless subcommands otherwise.

Each subcommand lives in its own module (a family in a sub-package: ``chat/``,
``bench/``) with an ``add_parser`` function that registers it and a ``run``
function that returns the process exit code.
Errors meant for the user (:class:`~app.core.errors.TandemError`) become one
line on stderr and exit code 2; nothing is printed to stdout in that case.
An installation that cannot import one of its libraries (a frozen bundle
that left one out) fails the same way, before any subcommand is imported, so
that ``--selftest`` can say what is missing instead of printing a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import app

# Subcommand modules (under app.cli), in the order `--help` lists them.
_COMMANDS = (
    "chat",
    "chats_command",
    "models_command",
    "memory_command",
    "cache_command",
    "bench.benchmark",
    "bench.threads",
    "bench.preflight",
    "serve_command",
)


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are one line on stderr (exit 2), like every other error of the CLI.

    argparse's own error prints the whole usage block before its message; a
    person (or a script reading stderr) gets the message and where the help is.
    """

    def error(self, message: str) -> NoReturn:
        """Print ``error: <prog>: <message> (see <prog> --help)`` and exit with code 2."""
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every available subcommand."""
    from app.cli.selftest import add_options as add_selftest_options

    parser = OneLineParser(
        prog="tandem",
        description="Tandem: offline chat with local GGUF models and visible speculative decoding.",
    )
    parser.add_argument("--version", action="version", version=f"{app.APP_NAME} {app.version()}")
    parser.add_argument("--selftest", action="store_true", help="load a model pair, check speculative output, exit")
    add_selftest_options(parser)
    # The self-test's check that the GUI platform starts, in a child process (Qt aborts when it cannot).
    parser.add_argument("--probe-gui", action="store_true", help=argparse.SUPPRESS)
    # Subcommands (and theirs) are built with the parser's own class, so their errors are one line too.
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(f"app.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
    except ImportError as exc:
        return _incomplete_install(exc, "selftest failed" if "--selftest" in args_list else "error")
    from app.core.display.terminal_text import visible
    from app.core.errors import ContextSettingError, TandemError

    args = parser.parse_args(args_list)
    try:
        if not args.probe_gui:  # a child of a start that moved them already
            _relocate_old_layout()
        if args.selftest:
            from app.cli.selftest import run_selftest

            return run_selftest(args)
        if args.probe_gui:
            from app.ui.start.launch import probe_platform

            return probe_platform()
        if args.command is None:
            # Before Qt is imported: without a display or its X11 libraries Qt aborts with a misleading message.
            from app.ui.start.desktop_check import desktop_problem

            problem = desktop_problem()
            if problem is not None:
                print(f"error: {problem}", file=sys.stderr)
                return 2
            try:
                from app.ui.start.launch import run_gui
            except ImportError as exc:
                return _incomplete_install(exc, "error")
            return run_gui()
        return int(args.run(args))
    except ContextSettingError as exc:
        print(f"error: {exc.worded('--ctx')}", file=sys.stderr)
        return 2
    except TandemError as exc:
        print(f"error: {visible(str(exc))}", file=sys.stderr)  # it may quote a server's or a file's text
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`tandem chats show 1 | head`): nothing more to say, as a Unix tool
        # would not. Python would complain again when it flushes stdout at exit, so point it elsewhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _relocate_old_layout() -> None:
    """Move the settings and cache out of the data folder, once (:mod:`app.engine.relocation`); notes on stderr."""
    from app.core.display.terminal_text import visible
    from app.engine.relocation import relocate

    for note in relocate().notes:
        print(f"note: {visible(note)}", file=sys.stderr)  # paths are the user's own text


def _incomplete_install(exc: ImportError, prefix: str) -> int:
    """One line naming the library this installation lacks; exit code 2."""
    missing = exc.name or str(exc)
    print(f"{prefix}: this installation is incomplete: cannot import {missing} ({exc})", file=sys.stderr)
    return 2
