"""What the user decided about tools beyond one chat: tools on in every new chat, server commands allowed to start.

Kept by the window's settings file as one JSON text (:meth:`ToolPrefs.to_json`);
:meth:`ToolPrefs.from_json` reads any text, dropping what does not read. A
confirmed server is kept as its start key, a digest of its command and
environment (:attr:`~app.core.tools.mcp_config.McpServerConfig.start_key`);
a start line an earlier version stored in clear reads as its digest, and is
written as one the next time the preferences are saved (the window saves
them as soon as it has read them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.core import stored_json
from app.core.tools.mcp_config import stored_start_key


@dataclass(frozen=True, slots=True)
class ToolPrefs:
    """Tools a new chat starts with (none by default), and the server commands confirmed once (their start keys)."""

    new_chats: frozenset[str] = frozenset()
    started: tuple[str, ...] = ()  # McpServerConfig.start_key (a digest) of each server let start, in order

    def allows(self, start_key: str) -> bool:
        """True when a server with this start key was confirmed before."""
        return start_key in self.started

    def with_started(self, start_key: str) -> ToolPrefs:
        """These preferences with one more command confirmed."""
        if start_key in self.started:
            return self
        return ToolPrefs(new_chats=self.new_chats, started=(*self.started, start_key))

    def without_started(self, start_key: str) -> ToolPrefs:
        """These preferences with a confirmation taken back (the server is asked about again)."""
        return ToolPrefs(new_chats=self.new_chats, started=tuple(k for k in self.started if k != start_key))

    def with_new_chat(self, name: str, on: bool) -> ToolPrefs:
        """These preferences with the tool ``name`` on (or off) in new chats."""
        names = self.new_chats | {name} if on else self.new_chats - {name}
        return ToolPrefs(new_chats=frozenset(names), started=self.started)

    def to_json(self) -> str:
        """The stored text."""
        return json.dumps({"new_chats": sorted(self.new_chats), "started": list(self.started)})

    @classmethod
    def from_json(cls, text: str) -> ToolPrefs:
        """Preferences from stored text; anything that does not read is left out."""
        raw: Any = stored_json.dict_of(text)

        def strings(key: str) -> list[str]:
            value = raw.get(key)
            return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

        started = (stored_start_key(key) for key in strings("started"))
        return cls(new_chats=frozenset(strings("new_chats")), started=tuple(dict.fromkeys(started)))
