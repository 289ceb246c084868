"""Whether a tool may change things (write, move, delete): the server's own word where it gives one, else its name.

MCP servers may annotate a tool (``readOnlyHint``, ``destructiveHint``); the
official filesystem server marks ``read_file`` read-only and ``write_file``
destructive. A tool the server says nothing about is judged by the verbs in
its name (``write_file``, ``edit_file``, ``move_file``, ``delete_item``,
``createDirectory``). A tool that may change things is asked about before
every call: a user can allow it once, never for the rest of a chat.
"""

from __future__ import annotations

import re

# Verbs that change something outside the chat. Erring towards asking: a false mark costs a click.
WRITE_VERBS = frozenset(
    {
        "append", "commit", "create", "delete", "destroy", "drop", "edit", "erase", "exec", "execute",
        "insert", "kill", "mkdir", "modify", "move", "mv", "overwrite", "patch", "post", "push", "put",
        "remove", "rename", "replace", "reset", "rm", "rmdir", "run", "send", "set", "truncate", "unlink",
        "update", "upload", "write",
    }
)  # fmt: skip

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def name_words(name: str) -> tuple[str, ...]:
    """The words of a tool's name, lower case: ``write_file``, ``write-file`` and ``writeFile`` alike."""
    return tuple(w.lower() for w in _WORD.findall(name))


def tool_writes(name: str, *, read_only: bool | None = None, destructive: bool | None = None) -> bool:
    """True when the tool may change things: by the server's hints where given, else by a verb in its name."""
    if read_only is not None:
        return not read_only
    if destructive:
        return True
    return any(word in WRITE_VERBS for word in name_words(name))
