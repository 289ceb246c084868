"""`tandem chats`: the saved conversations from the terminal: list them, check the database, recover it.

Every subcommand opens the chat store the way the window does, so an
unusable database (damaged, read-only, a folder in its place, another Tandem
writing to it) is a :class:`~app.core.errors.TandemError`: one line on stderr
and exit code 2. ``list`` reads without the writer lock, so it works while
the window is open; ``recover`` reads a copy of the damaged file into a new
one and moves the original aside unchanged.
"""

from __future__ import annotations

import argparse
import time

from app.engine.store.conversations import ChatStore, default_path
from app.engine.store.database import Problem, StoreOpenError, check_file, check_folder
from app.engine.store.recovery import recover_in_place


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `chats` and its subcommands."""
    parser = subparsers.add_parser("chats", help="list saved chats, check or recover the chat database")
    sub = parser.add_subparsers(dest="chats_command", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="saved conversations, most recent first (read-only)")
    listing.set_defaults(run=_list)
    check = sub.add_parser("check", help="is the chat database sound? (exit 0 yes, 2 no, with what to do)")
    check.set_defaults(run=_check)
    recover = sub.add_parser("recover", help="copy what can be read into a new database; keep the damaged one aside")
    recover.set_defaults(run=_recover)


def _list(args: argparse.Namespace) -> int:
    path = default_path()
    if not path.parent.is_dir():  # data_dir() tried to make it: it cannot be made
        check_folder(path.parent)
    check_file(path)  # damage is reported even though listing only reads
    store = ChatStore(path, read_only=True)
    try:
        conversations = store.list_conversations()
    finally:
        store.close()
    if not conversations:
        print("no saved chats")
    for c in conversations:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.updated))
        print(f"{c.id:5d}  {when}  {c.message_count:4d} messages  {c.title}")
    return 0


def _check(args: argparse.Namespace) -> int:
    path = default_path()
    try:
        ChatStore(path).close()
    except StoreOpenError as exc:
        if exc.problem is Problem.DAMAGED:
            raise StoreOpenError(exc.problem, exc.path, exc.detail + "; run `tandem chats recover`") from exc
        raise
    print(f"ok: {path}")
    return 0


def _recover(args: argparse.Namespace) -> int:
    path = default_path()
    try:
        ChatStore(path).close()
    except StoreOpenError as exc:
        if exc.problem is not Problem.DAMAGED:
            raise
    else:
        print(f"nothing to recover: {path} is sound")
        return 0
    report = recover_in_place(path)
    ChatStore(path).close()  # the recovered file opens like any other
    print(report.summary())
    return 0
