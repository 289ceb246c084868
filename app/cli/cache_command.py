"""`tandem cache`: what Tandem keeps on this machine to make replies fast, and how to clear it.

Two stores, both in the cache folder (:func:`app.engine.paths.cache_dir`) and both shown in the window's Settings
("Prefix cache"): the prefix cache (saved KV states of long prompts, see
:mod:`app.engine.llama.prefix_cache`) and the adaptive controller's learned
costs per model pair (:mod:`app.engine.llama.profile_store`). Clearing either
loses no chat: the next reply reads its prompt again, or measures its pair
again.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from app.core.display.units import format_bytes

if TYPE_CHECKING:  # imported where used: --help and the parser stay free of llama.cpp
    from app.engine.llama.prefix_cache import PrefixCache
    from app.engine.llama.profile_store import ProfileStore


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `cache` and its `show` and `clear`."""
    parser = subparsers.add_parser(
        "cache", help="show or clear the saved prompt states and learned speeds kept on this machine"
    )
    sub = parser.add_subparsers(dest="cache_command", metavar="ACTION")
    show = sub.add_parser("show", help="what is kept, where, and how big (the default action)")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(run=_show)
    clear = sub.add_parser("clear", help="remove the saved prompt states and the learned speeds (or one of them)")
    which = clear.add_mutually_exclusive_group()
    which.add_argument("--prefixes", action="store_true", help="only the saved prompt states (the prefix cache)")
    which.add_argument("--speeds", action="store_true", help="only the learned speeds (every pair measures again)")
    clear.set_defaults(run=_clear)
    parser.set_defaults(run=_show, json=False)


def _show(args: argparse.Namespace) -> int:
    from app.engine.llama.prefix_cache import open_prefix_cache
    from app.engine.llama.profile_store import open_profile_store

    usage = _usage(open_prefix_cache(), open_profile_store())
    if args.json:
        print(json.dumps(usage, indent=2))
        return 0
    prefixes = usage["prefix_cache"]
    print(f"prefix cache: {prefixes['folder']}")
    print(f"  {format_bytes(prefixes['bytes'])} in {_count(prefixes['entries'], 'saved state')}", end="")
    if prefixes["entries"]:
        print(f", the longest {prefixes['longest_tokens']} tokens", end="")
    limit = prefixes["limit_bytes"]
    print(f" (limit {format_bytes(limit)})" if limit else " (off: nothing is saved)")
    speeds = usage["learned_speeds"]
    print(f"learned speeds: {speeds['file']}")
    print(f"  {_count(speeds['pairs'], 'model pair')}")
    return 0


def _clear(args: argparse.Namespace) -> int:
    # Imported here: --help and the parser stay free of llama.cpp.
    from app.engine.llama.prefix_cache import open_prefix_cache
    from app.engine.llama.profile_store import open_profile_store

    # Each store opened once: a note about its folder (a link refused, a file skipped) is printed once.
    cache, profiles = open_prefix_cache(), open_profile_store()
    before = _usage(cache, profiles)
    if not args.speeds:
        cache.clear()
        cleared = before["prefix_cache"]
        print(f"removed {_count(cleared['entries'], 'saved state')} ({format_bytes(cleared['bytes'])})")
    if not args.prefixes:
        profiles.clear()
        print(f"forgot the learned speeds of {_count(before['learned_speeds']['pairs'], 'model pair')}")
    return 0


def _usage(cache: PrefixCache, profiles: ProfileStore) -> dict[str, Any]:
    """Both stores as ``cache show --json`` prints them."""
    entries = cache.entries
    return {
        "prefix_cache": {
            "folder": str(cache.folder),
            "entries": len(entries),
            "bytes": cache.size_bytes(),
            "longest_tokens": max((len(e.tokens) for e in entries), default=0),
            "limit_bytes": cache.budget_bytes,  # set in the window's Settings; 0: off
        },
        "learned_speeds": {"file": str(profiles.path), "pairs": len(profiles)},
    }


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
