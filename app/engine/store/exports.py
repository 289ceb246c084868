"""A conversation written out (Tandem's JSON export, a Markdown transcript) and an export read in as a new chat.

The JSON format itself, and the checks an export passes before anything is
written, are :mod:`app.engine.store.exchange`'s; this module is the store's
side: every branch, token and setting out, and one transaction in.
"""

from __future__ import annotations

import json
import time
from typing import Any

from app.core import stored_json
from app.core.conversation.chat import MessageState, Role
from app.core.reply.record import ReplyRecord
from app.core.tools.turns import calls_of_meta
from app.engine.store.attachments import attachment_bytes, link_attachments
from app.engine.store.exchange import EXPORT_VERSION, FORMAT, parse_export
from app.engine.store.images import ImageSummary
from app.engine.store.steps import read_steps, write_steps
from app.engine.store.tokens import write_tokens
from app.engine.store.tree import MessageTree, StoredMessage

# How the Markdown transcript names each speaker (an unknown role is shown as it is written).
_SPEAKERS: dict[str, str] = {Role.USER: "You", Role.ASSISTANT: "Assistant", Role.SYSTEM: "System", Role.TOOL: "Tool"}


class Exports(MessageTree):
    """Export to JSON and Markdown, import from JSON."""

    def export_json(self, conversation_id: int) -> dict[str, Any]:
        """The whole conversation (every branch), tokens, origins, steps, settings, metadata and attachments: version 3.

        Each attached file is written once, in ``attachments``, however many
        messages link it; a message lists its links (name and hash).
        """
        row = self._conversation_row(conversation_id)
        messages = self.all_messages(conversation_id)
        files: dict[str, dict[str, Any]] = {}
        for message in messages:
            for attachment in message.attachments:
                files.setdefault(
                    attachment.sha256,
                    {
                        "sha256": attachment.sha256,
                        "kind": attachment.kind.value,
                        "size": attachment.size,
                        "text": attachment.text,
                        "meta": attachment.meta_json(),
                    },
                )
        return {
            "format": FORMAT,
            "version": EXPORT_VERSION,
            "title": str(row["title"]),
            "created": row["created"],
            "updated": row["updated"],
            "pinned": bool(row["pinned"]),
            "settings": stored_json.dict_of(row["settings"]),
            "active_leaf": self._leaf(conversation_id, row["active_leaf"]),
            "messages": [self._exported(m) for m in messages],
            "attachments": list(files.values()),
        }

    def _exported(self, message: StoredMessage) -> dict[str, Any]:
        """One message of the export: its own JSON, and its verify steps when it has any."""
        out = message.to_dict()
        steps, _skipped = read_steps(self._db, message.id)
        if steps:
            out["steps"] = [step.to_json() for step in steps]
        return out

    def import_json(self, data: object) -> int:
        """A new conversation from Tandem's own JSON export (version 1, 2 or 3); returns its id.

        Raises :class:`~app.engine.store.exchange.ImportFormatError` (one line)
        for anything else, before writing anything.
        """
        parsed = parse_export(data)
        now = time.time()
        new_ids: dict[int, int] = {}
        # Counted per link: an upper bound (a file linked twice is stored once) for the full-disk message.
        needed = sum(attachment_bytes(m.attachments) for m in parsed.messages)
        with self._transaction(needed):
            cursor = self._db.execute(
                "INSERT INTO conversations(title, created, updated, pinned, settings) VALUES (?, ?, ?, ?, ?)",
                (parsed.title, now, now, int(parsed.pinned), json.dumps(parsed.settings)),
            )
            conversation_id = int(cursor.lastrowid or 0)
            for message in parsed.messages:
                cursor = self._db.execute(
                    "INSERT INTO messages(conversation_id, role, content, state, created, meta, parent_id) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        conversation_id,
                        message.role,
                        message.content,
                        message.state,
                        message.created,
                        json.dumps(message.meta),
                        None if message.parent is None else new_ids[message.parent],
                    ),
                )
                new_ids[message.key] = int(cursor.lastrowid or 0)
                write_tokens(self._db, new_ids[message.key], 0, message.tokens)
                write_steps(self._db, new_ids[message.key], message.steps)
                link_attachments(self._db, new_ids[message.key], message.attachments, imported=True)
            if parsed.active_leaf is not None:
                self._activate(conversation_id, self._descend(new_ids[parsed.active_leaf]))
        return conversation_id

    def export_markdown(self, conversation_id: int) -> str:
        """A readable transcript; replies keep their text exactly, code fences included."""
        lines = [f"# {self._conversation_row(conversation_id)['title']}", ""]
        for message in self.messages(conversation_id, with_tokens=False):
            who = _SPEAKERS.get(message.role, message.role)
            note = "" if message.state == MessageState.DONE else f" _({message.state})_"
            lines += [f"### {who}{note}", ""]
            # A picture is named, never written out: its bytes stay in the store.
            lines += [ImageSummary.of(image).line() for image in message.images] + ([""] if message.images else [])
            lines += [message.content.rstrip(), ""] if message.content.strip() else []
            # A reply's tool calls, each as the model wrote it (its arguments are JSON text).
            calls = calls_of_meta(message.meta)
            lines += [f"> calls `{c.name}` with `{c.arguments}`" for c in calls] + ([""] if calls else [])
            record = ReplyRecord.from_meta(message.meta)
            if message.role == Role.ASSISTANT and record.stat("emitted"):
                lines += [_stats_line(record), ""]
        return "\n".join(lines).rstrip() + "\n"


def _stats_line(record: ReplyRecord) -> str:
    """A reply's numbers and what produced it, as the transcript's quoted line under it."""
    parts = [f"{int(record.stat('emitted'))} tokens", f"{record.stat('tokens_per_second'):.1f} tok/s"]
    produced = record.produced_by
    drafter = (produced.drafter if produced is not None else "") or record.drafter
    if drafter:
        policy = produced.draft_policy if produced is not None else ""
        parts.append(f"drafter {drafter}" + (f" ({policy})" if policy and policy != "none" else ""))
    if record.stat("drafted"):
        parts.append(f"acceptance {record.stat('acceptance_rate'):.0%}")
    if produced is not None and produced.target:
        parts.append(produced.target + (f" + {produced.draft}" if produced.draft else ""))
    if produced is not None and produced.sampling is not None:
        parts.append(f"temperature {produced.sampling.temperature}")
    if produced is not None and produced.seed is not None:
        parts.append(f"seed {produced.seed}")
    return "> " + " · ".join(parts)
