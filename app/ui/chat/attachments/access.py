"""The window's one door to the engine's attachments: reading a file, storing it with a message, reading it back.

Everything the chat window asks of the engine about attached files goes
through here, so the window's widgets depend on a handful of names:
:func:`read_path` and :func:`read_data` (run on a background thread: a big
PDF takes seconds), :func:`store_user_message` (the user's turn and its
attachments in one transaction), :func:`uses_of` (how a stored reply's
prompt used them) and the words on chips.

The readers are the engine's (:mod:`app.engine.attachments`); their
:class:`~app.engine.attachments.AttachmentError` is already the one line the
window shows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from app.core.attachments.record import Attachment, AttachmentUse, uses_from_json
from app.core.conversation.images import ImageInput
from app.core.display.units import format_bytes
from app.engine.attachments import AttachmentError, read_attachment, read_attachment_bytes
from app.engine.reply import ReplyPlan, ReplyRequest
from app.engine.store.conversations import ChatStore
from app.ui.i18n.words import number, say

# Characters per token when the engine has not counted an attachment yet (English prose and code
# average three to four with the SmolLM2 and Qwen tokenizers); shown with "≈".
CHARS_PER_TOKEN = 3.6
# Where a reply's metadata keeps the planner's notices ("report.pdf does not fit whole…").
NOTICES_KEY = "attachment_notices"
# The context planner's chunks are 300-500 tokens: the gauge's estimate of how many passages fit.
PASSAGE_TOKENS = 400


def read_path(path: Path) -> Attachment:
    """The attachment made from the file or folder at ``path``; :class:`AttachmentError` says why not."""
    try:
        return read_attachment(path)
    except AttachmentError:
        raise
    except OSError as exc:  # the reader's own checks come first; anything left is the file system's
        raise AttachmentError(path.name, str(exc.strerror or exc)) from exc


def read_data(name: str, data: bytes) -> Attachment:
    """The attachment made from pasted bytes named ``name``; :class:`AttachmentError` says why not."""
    return read_attachment_bytes(name, data)


def store_user_message(
    store: ChatStore,
    conversation_id: int,
    text: str,
    attachments: Sequence[Attachment],
    parent_id: int | None,
    images: Sequence[ImageInput] = (),
) -> int:
    """Store the user's turn with its attachments and images in one transaction; the store's errors pass through."""
    return store.add_message(
        conversation_id, "user", text, parent_id=parent_id, attachments=tuple(attachments), images=tuple(images)
    )


def with_whole_documents(request: ReplyRequest, on: bool) -> ReplyRequest:
    """``request`` asking for every attachment whole (the chips' "whole"): the context planner's ``whole_documents``."""
    return dataclasses.replace(request, whole_documents=True) if on else request


def plan_notices(plan: ReplyPlan) -> tuple[str, ...]:
    """The planner's one-line notices for the user ("report.pdf does not fit whole…"), in the window's language.

    A reply keeps them so (under :data:`NOTICES_KEY`): they are only ever shown, as they were when it ran.
    """
    return tuple(say(words) for words in plan.notice_words)


def stored_notices(meta: Mapping[str, Any]) -> tuple[str, ...]:
    """The planner's notices a stored reply kept (under :data:`NOTICES_KEY`)."""
    notices = meta.get(NOTICES_KEY, [])
    return tuple(n for n in notices if isinstance(n, str)) if isinstance(notices, list) else ()


def uses_of(meta: Mapping[str, Any]) -> tuple[AttachmentUse, ...]:
    """How a stored reply's prompt used the chat's attachments (its provenance's ``attachments``)."""
    produced = meta.get("produced_by")
    return uses_from_json(produced.get("attachments") if isinstance(produced, Mapping) else None)


def estimated_tokens(attachment: Attachment) -> int:
    """A quick estimate of an attachment's tokens, for before the engine has counted them."""
    return max(1, round(len(attachment.text) / CHARS_PER_TOKEN)) if attachment.text else 0


def chip_label(attachment: Attachment, tokens: int | None, longest: int = 0) -> str:
    """What a chip says: "report.pdf · 1.2 MB · 9,800 tokens" (≈ while only estimated).

    ``longest`` > 0 shortens a long name in the middle, where names differ least ("quarterly-…-2025.pdf").
    """
    words = QCoreApplication.translate("Attachments", "{count} tokens")
    count = (
        words.format(count=number(tokens, ","))
        if tokens is not None
        else "≈" + words.format(count=number(estimated_tokens(attachment), ","))
    )
    name = attachment.name
    if 0 < longest < len(name):
        keep = max(4, longest - 1)
        name = name[: (keep + 1) // 2] + "…" + name[len(name) - keep // 2 :]
    return f"{name} · {format_bytes(attachment.size)} · {count}"


def paperclip(has_glyph: Callable[[int], bool]) -> str:
    """The paperclip where the font can draw it ("📎"), else nothing; ``has_glyph`` asks the font."""
    return "📎" if has_glyph(0x1F4CE) else ""
