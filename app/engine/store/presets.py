"""Named chat settings kept in the chat database, and the one new chats start from.

A preset is a settings dict under a name (spaces folded, never empty); the
default preset is a row of ``preferences`` that follows a rename and goes
away with a delete. Chats keep their own copy of the settings they started
from, so changing or deleting a preset never changes a chat.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from app.core import stored_json
from app.engine.store.connection import StoreConnection


class Presets(StoreConnection):
    """The named presets and the default one."""

    def presets(self) -> dict[str, dict[str, Any]]:
        """Named settings, name -> settings dict, sorted by name."""
        rows = self._db.execute("SELECT name, settings FROM presets ORDER BY name COLLATE NOCASE, name").fetchall()
        return {str(r["name"]): stored_json.dict_of(r["settings"]) for r in rows}

    def save_preset(self, name: str, settings: dict[str, Any]) -> None:
        """Create the preset ``name``, or overwrite its settings."""
        name = _preset_name(name)
        with self._transaction():
            self._db.execute(
                "INSERT INTO presets(name, settings, created) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET settings=excluded.settings",
                (name, json.dumps(settings), time.time()),
            )

    def rename_preset(self, old: str, new: str) -> None:
        """Rename a preset (the default follows it); KeyError if ``old`` is unknown, ValueError if ``new`` exists."""
        new = _preset_name(new)
        if old not in self.presets():
            raise KeyError(old)
        if new == old:
            return
        if new in self.presets():
            raise ValueError(f"a preset named {new!r} exists already")
        with self._transaction():
            self._db.execute("UPDATE presets SET name=? WHERE name=?", (new, old))
            self._db.execute("UPDATE preferences SET value=? WHERE key='default_preset' AND value=?", (new, old))

    def delete_preset(self, name: str) -> None:
        """Delete a preset (no default any more if it was the default); chats keep their own copies."""
        with self._transaction():
            self._db.execute("DELETE FROM presets WHERE name=?", (name,))
            self._db.execute("DELETE FROM preferences WHERE key='default_preset' AND value=?", (name,))

    def default_preset(self) -> tuple[str, dict[str, Any]] | None:
        """The preset new chats start from, as (name, settings), or None."""
        return read_default_preset(self._db)

    def set_default_preset(self, name: str | None) -> None:
        """Make ``name`` the preset new chats start from (None: ChatSettings' defaults); KeyError if unknown."""
        if name is not None and name not in self.presets():
            raise KeyError(name)
        with self._transaction():
            if name is None:
                self._db.execute("DELETE FROM preferences WHERE key='default_preset'")
            else:
                self._db.execute(
                    "INSERT INTO preferences(key, value) VALUES ('default_preset', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (name,),
                )


def read_default_preset(db: sqlite3.Connection) -> tuple[str, dict[str, Any]] | None:
    """The default preset as (name, settings), or None (also what a new conversation starts from)."""
    row = db.execute(
        "SELECT p.name, p.settings FROM preferences d JOIN presets p ON p.name = d.value WHERE d.key='default_preset'"
    ).fetchone()
    return None if row is None else (str(row["name"]), stored_json.dict_of(row["settings"]))


def _preset_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ValueError("a preset needs a name")
    return cleaned
