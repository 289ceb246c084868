"""`tandem chats`: the saved conversations from the terminal, for people and scripts.

``list``, ``show``, ``search``, ``export`` and ``steps`` (a reply's verify
steps, :mod:`app.cli.chats_steps`) only read, without the writer
lock, so they work while the window is open (a database from an older
Tandem is read as it is, not migrated). ``import``, ``delete``, ``restore``
and ``fork`` (a branch copied into a new chat) write, so they take the lock like the window does: while another
Tandem writes the database they stop with one line. ``check`` and
``recover`` look after the file itself; ``recover`` reads a copy of a
damaged file into a new one and moves the original aside unchanged.

Every subcommand takes ``--json`` for scripts. An unusable database, an
unknown chat id or a file that is not an export is a
:class:`~app.core.errors.TandemError`: one line on stderr and exit code 2.

What a chat holds is data, never terminal commands: titles, messages and
snippets are printed through :func:`~app.core.display.terminal_text.visible` (an ESC
shows as ``\\x1b``), ``--json`` output has the raw controls JSON allows escaped
too, and ``export`` writes its stored text unchanged only to a file or a pipe.
``export --out`` never replaces a link, a folder or a device, and replaces an
existing file only with ``--force`` (:mod:`app.engine.safe_files`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.cli.chats_steps import add_steps_parser
from app.core.display.terminal_text import visible, visible_json
from app.core.errors import TandemError
from app.engine.safe_files import Refusal, UnsafeTargetError, write_text_safely
from app.engine.store.branches import TRASHED_FROM
from app.engine.store.conversations import ChatStore, ConversationSummary, default_path
from app.engine.store.database import Problem, StoreOpenError, check_file, check_folder
from app.engine.store.exchange import ImportFormatError, read_export_file
from app.engine.store.recovery import recover_in_place
from app.engine.store.search import snippet_parts

_BOLD, _RESET = "\x1b[1m", "\x1b[0m"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `chats` and its subcommands."""
    parser = subparsers.add_parser("chats", help="saved chats: list, show, search, export, import, delete; the file")
    sub = parser.add_subparsers(dest="chats_command", metavar="ACTION", required=True)

    def action(name: str, run: Any, help_text: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, help=help_text)
        command.add_argument("--json", action="store_true", help="print JSON for scripts")
        command.set_defaults(run=run)
        return command

    listing = action("list", _list, "saved conversations, pinned first, then most recent (read-only)")
    listing.add_argument("--trash", action="store_true", help="list the conversations in the trash instead")
    show = action("show", _show, "one conversation's active branch (read-only)")
    show.add_argument("id", metavar="ID")
    find = action("search", _search, "find messages in every chat; each word must appear (read-only)")
    find.add_argument("query", metavar="QUERY")
    find.add_argument("--limit", type=int, default=50, help="at most this many hits (default 50)")
    export = action("export", _export, "a conversation as Markdown (its active branch) or JSON (every branch)")
    export.add_argument("id", metavar="ID")
    export.add_argument("--format", choices=("md", "json"), default="md", help="md (default) or json")
    export.add_argument("--out", type=Path, default=None, metavar="FILE", help="write to FILE instead of stdout")
    export.add_argument("--force", action="store_true", help="replace FILE if it exists (never a link or a device)")
    importing = action("import", _import, "a conversation from a Tandem JSON export (a new chat)")
    importing.add_argument("file", type=Path, metavar="FILE")
    delete = action("delete", _delete, "move a conversation to the trash (kept a week; see restore)")
    delete.add_argument("id", metavar="ID")
    delete.add_argument("--permanent", action="store_true", help="delete it now, with no way back")
    restore = action("restore", _restore, "take a conversation back out of the trash")
    restore.add_argument("id", metavar="ID")
    fork = action("fork", _fork, "copy the branch from the first message to MESSAGE into a new chat")
    fork.add_argument("id", metavar="ID")
    fork.add_argument("message", metavar="MESSAGE", help="a message id, as `chats show ID --json` lists them")
    add_steps_parser(action)
    action("check", _check, "is the chat database sound? (exit 0 yes, 2 no, with what to do)")
    action("recover", _recover, "copy what can be read into a new database; keep the damaged one aside")


# -- reading ----------------------------------------------------------------------


@contextmanager
def reading() -> Iterator[ChatStore]:
    """The chat store opened read-only, the way `list` always did (damage is reported even so)."""
    path = default_path()
    if not path.parent.is_dir():  # data_dir() tried to make it: it cannot be made
        check_folder(path.parent)
    check_file(path)
    store = ChatStore(path, read_only=True)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def writing() -> Iterator[ChatStore]:
    """The chat store opened for writing (the writer lock: refused in one line while another Tandem writes)."""
    store = ChatStore(default_path())
    try:
        yield store
    finally:
        store.close()


def chat_id(text: str, store: ChatStore, trashed_ok: bool = False) -> ConversationSummary:
    """The conversation named by ``text`` on the command line, or a one-line error."""
    try:
        number = int(text)
    except ValueError:
        raise TandemError(f"{text!r} is not a chat id: `tandem chats list` shows them") from None
    try:
        summary = store.conversation(number)
    except KeyError:
        raise TandemError(f"no chat with id {number}: `tandem chats list` shows them") from None
    if summary.deleted is not None and not trashed_ok:
        raise TandemError(f"chat {number} is in the trash: `tandem chats restore {number}` brings it back")
    return summary


def _summary_json(c: ConversationSummary) -> dict[str, Any]:
    out = {
        "id": c.id,
        "title": c.title,
        "created": c.created,
        "updated": c.updated,
        "messages": c.message_count,
        "pinned": c.pinned,
    }
    if c.deleted is not None:
        out["deleted"] = c.deleted
    return out


def _print_json(value: object) -> None:
    sys.stdout.write(visible_json(json.dumps(value, ensure_ascii=False)) + "\n")


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def _list(args: argparse.Namespace) -> int:
    with reading() as store:
        conversations = store.trashed_conversations() if args.trash else store.list_conversations()
    if args.json:
        _print_json([_summary_json(c) for c in conversations])
        return 0
    if not conversations:
        print("the trash is empty" if args.trash else "no saved chats")
    for c in conversations:
        pin = "*" if c.pinned else " "
        print(f"{c.id:5d}{pin} {_when(c.updated)}  {c.message_count:4d} messages  {visible(c.title)}")
    return 0


def _show(args: argparse.Namespace) -> int:
    with reading() as store:
        summary = chat_id(args.id, store, trashed_ok=True)
        messages = store.messages(summary.id, with_tokens=False)
        branches = [len(store.siblings(m.id)) for m in messages]
        positions = [store.siblings(m.id).index(m.id) + 1 for m in messages]
        settings = store.conversation_settings(summary.id)
    if args.json:
        listed = []
        for message, count, position in zip(messages, branches, positions, strict=True):
            entry = message.to_dict()
            entry["branch"] = {"position": position, "of": count}
            listed.append(entry)
        _print_json({**_summary_json(summary), "settings": settings, "messages": listed})
        return 0
    print(f"# {visible(summary.title)}  (chat {summary.id}, {len(messages)} messages on this branch)")
    for message, count, position in zip(messages, branches, positions, strict=True):
        speakers = {"user": "You", "assistant": "Assistant", "system": "System", "tool": "Tool"}
        who = speakers.get(message.role, message.role)
        notes = [f"‹ {position}/{count} ›"] if count > 1 else []
        if message.state != "done":
            notes.append(message.state)
        print(visible(f"\n## {who} [{message.id}]" + (f"  ({', '.join(notes)})" if notes else "")))
        print(visible(message.content.rstrip()))
    return 0


def _search(args: argparse.Namespace) -> int:
    if not args.query.strip():
        raise TandemError("the search is empty: give a word to look for")
    if args.limit < 1:
        raise TandemError("--limit must be at least 1")
    with reading() as store:
        hits = store.search(args.query, limit=args.limit)
    if args.json:
        out = []
        for hit in hits:
            text, spans, at = "", [], 0
            for piece, matched in snippet_parts(hit.snippet):
                if matched:
                    spans.append([at, at + len(piece)])
                text += piece
                at += len(piece)
            out.append(
                {
                    "conversation_id": hit.conversation_id,
                    "message_id": hit.message_id,
                    "title": hit.title,
                    "role": hit.role,
                    "created": hit.created,
                    "snippet": text,
                    "matches": spans,
                }
            )
        _print_json(out)
        return 0
    if not hits:
        print("no messages match")
    bold = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    start, end = (_BOLD, _RESET) if bold else ("[", "]")
    for hit in hits:
        # The markers are control characters themselves: the text between them is made visible, then marked.
        shown = "".join(
            f"{start}{visible(piece)}{end}" if matched else visible(piece)
            for piece, matched in snippet_parts(hit.snippet)
        )
        where = visible(f"{hit.title} · {hit.role}")
        print(f"{hit.conversation_id:5d} {hit.message_id:6d}  {_when(hit.created)}  {where}: {shown}")
    return 0


def _export(args: argparse.Namespace) -> int:
    with reading() as store:
        summary = chat_id(args.id, store, trashed_ok=True)
        if args.format == "json":
            text = json.dumps(store.export_json(summary.id), ensure_ascii=False, indent=2) + "\n"
        else:
            text = store.export_markdown(summary.id)
    if args.out is None:
        if args.json and args.format == "md":
            _print_json({"id": summary.id, "format": "md", "markdown": text})
        elif args.format == "json":
            sys.stdout.write(visible_json(text))
        else:  # the export itself, unchanged for a file or a pipe; a terminal shows its controls
            sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
        return 0
    try:
        size = write_text_safely(args.out, text, overwrite=args.force)
    except UnsafeTargetError as exc:
        if exc.refusal is Refusal.EXISTS:
            raise TandemError(f"{args.out} already exists: add --force to replace it") from exc
        raise
    if args.json:
        _print_json({"id": summary.id, "format": args.format, "path": str(args.out), "bytes": size})
    else:
        print(f"exported chat {summary.id} to {args.out} ({args.format}, {size} bytes)")
    return 0


# -- writing ----------------------------------------------------------------------


def _import(args: argparse.Namespace) -> int:
    try:
        data = read_export_file(args.file)
    except ImportFormatError as exc:
        raise TandemError(f"{args.file} is {exc}") from exc
    with writing() as store:
        try:
            new_id = store.import_json(data)
        except ImportFormatError as exc:
            raise TandemError(f"{args.file} is {exc}") from exc
        except TandemError as exc:
            raise TandemError(f"{args.file}: {exc}") from exc
        summary = store.conversation(new_id)
    if args.json:
        _print_json(_summary_json(summary))
    else:
        print(f"imported chat {summary.id}: {visible(summary.title)} ({summary.message_count} messages)")
    return 0


def _delete(args: argparse.Namespace) -> int:
    with writing() as store:
        summary = chat_id(args.id, store, trashed_ok=args.permanent)
        store.delete_conversation(summary.id, permanent=args.permanent)
    if args.json:
        _print_json({"id": summary.id, "title": summary.title, "deleted": "permanently" if args.permanent else "trash"})
    elif args.permanent:
        print(f"deleted chat {summary.id} for good: {visible(summary.title)}")
    else:
        print(
            f"moved chat {summary.id} to the trash: {visible(summary.title)} "
            f"(`tandem chats restore {summary.id}` brings it back; the trash is emptied after a week)"
        )
    return 0


def _restore(args: argparse.Namespace) -> int:
    with writing() as store:
        summary = chat_id(args.id, store, trashed_ok=True)
        if summary.deleted is None:
            raise TandemError(f"chat {summary.id} is not in the trash")
        # A deleted message waits in a chat of its own: restoring that chat puts the message back in its place.
        trashed = [m.id for m in store.all_messages(summary.id, with_tokens=False) if TRASHED_FROM in m.meta]
        for message_id in trashed:
            store.restore_message(message_id)
        if not trashed:
            store.restore_conversation(summary.id)
    if args.json:
        _print_json({"id": summary.id, "title": summary.title, "restored": True})
    else:
        print(f"restored chat {summary.id}: {visible(summary.title)}")
    return 0


def _fork(args: argparse.Namespace) -> int:
    with writing() as store:
        summary = chat_id(args.id, store)
        try:
            message_id = int(args.message)
            in_chat = store.message(message_id, with_tokens=False).conversation_id == summary.id
        except (ValueError, KeyError):
            in_chat = False
        if not in_chat:
            raise TandemError(
                f"{args.message!r} is not a message of chat {summary.id}: "
                f"`tandem chats show {summary.id} --json` lists them"
            )
        fork_id = store.fork_branch(message_id)
        fork = store.conversation(fork_id)
    if args.json:
        _print_json(_summary_json(fork))
    else:
        print(f"forked chat {summary.id} at message {message_id} into chat {fork.id}: {visible(fork.title)}")
    return 0


# -- the database itself ------------------------------------------------------------


def _check(args: argparse.Namespace) -> int:
    path = default_path()
    try:
        ChatStore(path).close()
    except StoreOpenError as exc:
        if exc.problem is Problem.DAMAGED:
            raise StoreOpenError(exc.problem, exc.path, f"{exc.detail}; run `tandem chats recover`") from exc
        raise
    if args.json:
        _print_json({"ok": True, "path": str(path)})
    else:
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
        if args.json:
            _print_json({"recovered": False, "path": str(path)})
        else:
            print(f"nothing to recover: {path} is sound")
        return 0
    report = recover_in_place(path)
    ChatStore(path).close()  # the recovered file opens like any other
    if args.json:
        _print_json(
            {
                "recovered": True,
                "path": str(path),
                "conversations": report.conversations,
                "messages": report.messages,
                "tokens": report.tokens,
                "unreadable": report.unreadable,
                "damaged_copy": None if report.damaged_copy is None else str(report.damaged_copy),
            }
        )
    else:
        print(report.summary())
    return 0
