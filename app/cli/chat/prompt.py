"""The user's message for `tandem chat`: from the argument, a file or standard input; never blank."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.core.errors import TandemError


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
