"""Usage mistakes on the command line are one line, like every other error (not argparse's usage block)."""

from __future__ import annotations

import pytest

from tests.cli.helpers import one_line_error, run_cli


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("chat", "--bogus"), ("unrecognized arguments: --bogus", "--help")),
        (("chats", "frob"), ("tandem chats", "invalid choice: 'frob'", "tandem chats --help")),
        (("bench", "--repeats", "x"), ("tandem bench", "--repeats", "'x'")),
        (("serve", "--port"), ("tandem serve", "--port", "expected one argument")),
        (("bench", "--temperatures", "5"), ("--temperatures", "from 0 to 2", "5.0")),
        (("preflight", "--temperature", "-1"), ("temperature", "from 0 to 2")),
    ],
)
def test_a_usage_mistake_is_one_line_naming_it(args: tuple[str, ...], words: tuple[str, ...]) -> None:
    one_line_error(run_cli(*args, timeout=120), *words)
