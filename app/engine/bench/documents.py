"""The benchmark's "documents" prompts: their attached files, put into the prompt by the reply's own planner.

A suite prompt may name files (``"attach": ["bench_documents/harbour_notes.md"]``,
relative to the suite file). Each is read into an
:class:`~app.core.attachments.record.Attachment` and the prompt is planned
exactly as a chat reply would be (:func:`app.engine.reply.plan_reply`, one-off
prompt policy): the context planner puts each file in whole or as the chunks
that answer, and the plan's lookup sources (each file's tokens) go to prompt
lookup. Every configuration, and llama-server, gets the same prompt tokens.

The files (UTF-8 text, code and one PDF made by ``scripts/make_bench_pdf.py``)
are read by :func:`app.engine.attachments.read_attachment`, as the window's
and ``chat --attach``'s are, so the bench measures what users get.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.core.attachments.record import Attachment, AttachmentUse
from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.lookup import LookupSource
from app.core.reply.plan import PromptPolicy
from app.engine.attachments import read_attachment
from app.engine.llama.session import LoadedPair
from app.engine.reply import ReplyRequest, plan_reply


@dataclass(frozen=True, slots=True)
class PreparedPrompt:
    """A suite prompt ready to run: its prompt tokens, prompt lookup's extra sources, how its files were used."""

    tokens: list[int]
    sources: tuple[LookupSource, ...] = ()
    uses: tuple[AttachmentUse, ...] = ()


@functools.lru_cache(maxsize=32)
def read_document(path: Path) -> Attachment:
    """One of the bench's files as an attachment (read once per run), by the reader every front end uses."""
    return read_attachment(path)


def prompt_messages(
    text: str,
    system: str | None,
    attachments: Sequence[Attachment] = (),
    history: Sequence[tuple[str, str]] = (),
) -> list[Message]:
    """The prompt's messages: its system prompt, if any, the chat's earlier turns, the user's turn with the files."""
    messages = [Message("system", system)] if system else []
    messages += [Message(role, content) for role, content in history]
    return [*messages, Message("user", text, tuple(attachments))]


def prepare(
    pair: LoadedPair,
    text: str,
    system: str | None,
    files: Sequence[Path],
    max_tokens: int,
    history: Sequence[tuple[str, str]] = (),
) -> PreparedPrompt:
    """The prompt's tokens as a one-off chat reply would have them (files planned in), and its lookup sources."""
    messages = prompt_messages(text, system, [read_document(path) for path in files], history)
    if not files:
        return PreparedPrompt(pair.template.render(messages))
    settings = ChatSettings(max_tokens=max_tokens, drafter=DrafterKind.NGRAM, temperature=0)
    plan = plan_reply(pair, ReplyRequest(settings, tuple(messages), prompt_policy=PromptPolicy.REFUSE))
    return PreparedPrompt(plan.prompt.tokens, plan.draft.lookup_sources, plan.provenance.attachments)
