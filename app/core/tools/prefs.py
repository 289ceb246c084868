"""What the user decided about tools beyond one chat: tools on in every new chat, server commands allowed to start.

Kept by the window's settings file as one JSON text (:meth:`ToolPrefs.to_json`);
:meth:`ToolPrefs.from_json` reads any text, dropping what does not read. A
confirmed server is kept as its start key, a digest of its command and
environment keyed by this install's random ``salt``
(:meth:`~app.core.tools.mcp_config.McpServerConfig.start_key`), kept in the
same text. The salt is made the first time the preferences are read without
one; a confirmation stored any other way (an earlier version's unkeyed digest
or its start line in clear) is dropped, so that server is asked about again,
and is gone from the file the next time the preferences are saved (the
window saves them as soon as it has read them).
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from app.core import stored_json
from app.core.tools.mcp_config import DIGEST_PREFIX, McpServerConfig

SALT_BYTES = 32


def new_salt() -> str:
    """A fresh random salt, as hex."""
    return secrets.token_hex(SALT_BYTES)


def _is_salt(value: Any) -> bool:
    if not isinstance(value, str) or len(value) != 2 * SALT_BYTES:
        return False
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class ToolPrefs:
    """Tools a new chat starts with (none by default), and the server commands confirmed once (their start keys)."""

    new_chats: frozenset[str] = frozenset()
    started: tuple[str, ...] = ()  # McpServerConfig.start_key (a keyed digest) of each server let start, in order
    salt: str = field(default_factory=new_salt)  # hex: the key of every start key here

    def key_of(self, server: McpServerConfig) -> str:
        """``server``'s start key under these preferences' salt."""
        return server.start_key(bytes.fromhex(self.salt))

    def allows(self, server: McpServerConfig) -> bool:
        """True when ``server``'s start was confirmed before."""
        return self.key_of(server) in self.started

    def with_started(self, server: McpServerConfig) -> ToolPrefs:
        """These preferences with ``server``'s start confirmed."""
        key = self.key_of(server)
        if key in self.started:
            return self
        return dataclasses.replace(self, started=(*self.started, key))

    def without_started(self, start_key: str) -> ToolPrefs:
        """These preferences with a confirmation taken back (the server is asked about again)."""
        return dataclasses.replace(self, started=tuple(k for k in self.started if k != start_key))

    def with_new_chat(self, name: str, on: bool) -> ToolPrefs:
        """These preferences with the tool ``name`` on (or off) in new chats."""
        names = self.new_chats | {name} if on else self.new_chats - {name}
        return dataclasses.replace(self, new_chats=frozenset(names))

    def to_json(self) -> str:
        """The stored text."""
        return json.dumps({"new_chats": sorted(self.new_chats), "started": list(self.started), "salt": self.salt})

    @classmethod
    def from_json(cls, text: str) -> ToolPrefs:
        """Preferences from stored text; anything that does not read is left out (a salt missing is made anew)."""
        raw: Any = stored_json.dict_of(text)

        def strings(key: str) -> list[str]:
            value = raw.get(key)
            return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

        salt = raw.get("salt")
        if not _is_salt(salt):
            # Keys made under another salt (or none) can never match again.
            return cls(new_chats=frozenset(strings("new_chats")))
        started = (key for key in strings("started") if key.startswith(DIGEST_PREFIX))
        return cls(new_chats=frozenset(strings("new_chats")), started=tuple(dict.fromkeys(started)), salt=salt)
