"""How a conversation's attachments enter the prompt: whole where they fit, else the passages that answer.

:func:`plan_context` decides per attachment, given what the conversation
itself takes (``base_tokens``), the context size and the reply's reserve:

1. Attachments are considered newest message first (a file attached to the
   question being asked matters more than one from ten turns ago); a file
   attached twice counts once, at its newest message.
2. Each goes in **whole** while it fits in what is left.
3. The rest are **chunked** (:mod:`app.core.attachments.chunks`) and the
   chunks that best answer the user's newest message are taken, BM25 best
   first (the ``search``: FTS5 in the engine), then the others in text order,
   as long as each fits, until the budget is used. One of which no chunk fits
   is **left out**, and said to be.
4. ``whole_documents`` (the user's "whole document") forces step 2 for every
   attachment; one that cannot fit whole gets a one-line notice saying so and
   is chunked as in step 3, so the chat still answers.

The result renders each attachment as a plain text block inside the content
of the message that carried it (its name, each chunk's citation, the text).
It is message content, so :mod:`app.core.conversation.prompt_segments` tokenises it as
text: a chat-template marker inside a document never becomes a special token.
The :class:`~app.core.attachments.record.AttachmentUse` of each attachment is
what the reply records and the context gauge shows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from app.core.attachments.chunks import Chunk, TokenCount, chunk_attachment
from app.core.attachments.query import fts_query
from app.core.attachments.record import Attachment, AttachmentUse
from app.core.conversation.chat import Message, Role
from app.core.display.wording import QT_TRANSLATE_NOOP, Words

# The notice for a "whole document" that cannot fit, in the window's language there (English in the CLI).
_NOT_WHOLE = QT_TRANSLATE_NOOP(
    "AttachmentContext",
    "{name} does not fit whole ({tokens:,} tokens, {free:,} free in the context): "
    "the passages that best answer were used instead",
)


def _count(n: int) -> str:
    return f"{n:,}"


# Below this many free tokens no chunk (300-500 tokens) can fit: stop looking.
_MIN_USEFUL_TOKENS = 16


class ChunkSearch(Protocol):
    """BM25 retrieval over chunks: the indices of the chunks that match ``query``, best first."""

    def rank(self, query: str, chunks: Sequence[Chunk]) -> list[int]:
        """Indices into ``chunks`` of those matching ``query`` (an FTS5 expression), best first."""
        ...


@dataclass(frozen=True, slots=True)
class AttachmentContext:
    """The messages with their attachments rendered in, and how each attachment was used."""

    messages: tuple[Message, ...]
    uses: tuple[AttachmentUse, ...]  # in the conversation's order
    chunks: tuple[Chunk, ...]  # the chunks put in (of the attachments not whole), in text order
    notice_words: tuple[Words, ...]  # one line each: a "whole document" that did not fit (translatable)
    budget: int  # tokens the attachments could take beside the conversation and the reply's reserve
    used: int  # tokens they take

    @property
    def notices(self) -> tuple[str, ...]:
        """The notices in English (the CLI, ``chat --json``); the window renders :attr:`notice_words`."""
        return tuple(str(words) for words in self.notice_words)

    @property
    def left(self) -> int:
        """Tokens of the budget left unused."""
        return max(0, self.budget - self.used)

    def gauge_lines(self) -> list[str]:
        """One line per attachment for the context gauge: what it takes and what is left out."""
        lines = []
        for use in self.uses:
            tokens = _count(use.tokens)
            if use.left_out:
                lines.append(f"{use.name}: left out (no passage fits in what the context has left)")
            elif use.whole:
                lines.append(f"{use.name}: whole, {tokens} tokens")
            else:
                lines.append(f"{use.name}: {len(use.chunks)} passages ({', '.join(use.chunks)}), {tokens} tokens")
        return lines


def header(name: str, whole: bool) -> str:
    """The line that opens an attachment's block in the prompt."""
    how = "attached" if whole else "attached; only the passages chosen for this question"
    return f"--- {name} ({how}) ---\n"


def footer(name: str) -> str:
    """The line that closes an attachment's block."""
    return f"\n--- end of {name} ---"


def render_whole(attachment: Attachment) -> str:
    """An attachment's block with its whole text."""
    return header(attachment.name, True) + attachment.text + footer(attachment.name)


def render_chunks(attachment: Attachment, chunks: Sequence[Chunk]) -> str:
    """An attachment's block with the given chunks, each under its citation, in text order."""
    body = "\n\n".join(f"[{chunk.citation}]\n{chunk.text.strip()}" for chunk in sorted(chunks, key=lambda c: c.start))
    return header(attachment.name, False) + body + footer(attachment.name)


def with_blocks(content: str, blocks: Sequence[str]) -> str:
    """A message's content with its attachments' blocks before the user's own words."""
    return "\n\n".join([*blocks, content]) if blocks else content


def rendered_whole(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The messages with every attachment's whole text in its content: for a server that fits the prompt itself.

    A remote server has no tokenizer of ours to plan chunks with, so each file
    goes in whole (each only once, at its newest message, as the planner does);
    a prompt the server cannot hold is its refusal to make, in its own words.
    """
    newest: dict[str, int] = {}
    for index, message in enumerate(messages):
        for attachment in message.attachments:
            newest[attachment.sha256] = index
    out = []
    for index, message in enumerate(messages):
        blocks = [render_whole(a) for a in message.attachments if newest[a.sha256] == index]
        out.append(Message(message.role, with_blocks(message.content, blocks)))
    return tuple(out)


@dataclass(slots=True)
class _Entry:
    """One distinct attachment being planned: where it is rendered and what was decided."""

    message: int
    position: int
    attachment: Attachment
    whole: bool = False
    chunks: list[Chunk] | None = None
    tokens: int = 0


def _distinct(messages: Sequence[Message]) -> list[_Entry]:
    """Each attachment once, at its newest message, newest message first."""
    seen: set[str] = set()
    entries = []
    for index in range(len(messages) - 1, -1, -1):
        for position, attachment in enumerate(messages[index].attachments):
            if attachment.sha256 not in seen:
                seen.add(attachment.sha256)
                entries.append(_Entry(index, position, attachment))
    return entries


def chunk_cost(chunk: Chunk, count: TokenCount) -> int:
    """The tokens ``chunk`` takes in the prompt (its citation line, its text, the lines around it)."""
    return count(f"[{chunk.citation}]\n{chunk.text.strip()}") + 2


def question_of(messages: Sequence[Message]) -> str:
    """The text retrieval answers: the newest user message's words (all the user's, when that one is empty)."""
    users = [m.content for m in messages if m.role == Role.USER]
    newest = users[-1].strip() if users else ""
    return newest or " ".join(users)


def plan_context(
    messages: Sequence[Message],
    *,
    attachment_tokens: Callable[[Attachment], int],
    count: TokenCount,
    n_ctx: int,
    reserve: int,
    base_tokens: int,
    search: ChunkSearch,
    whole_documents: bool = False,
    chunker: Callable[[Attachment], list[Chunk]] = chunk_attachment,
    cost_of: Callable[[Chunk], int] | None = None,
) -> AttachmentContext:
    """Decide how each attachment enters the prompt (see the module's docstring).

    ``attachment_tokens``: the tokens of an attachment's whole text (the engine
    counts each once per file); ``count``: the tokens of any other text (a
    block's lines, a chunk); ``base_tokens``: the rendered conversation without
    its attachments. ``chunker`` and ``cost_of`` (by default :func:`chunk_cost`
    with ``count``) may answer from work done earlier, elsewhere; they must
    give what those defaults give.
    """
    budget = max(0, n_ctx - max(1, reserve) - base_tokens)
    remaining = budget
    entries = _distinct(messages)
    notices: list[Words] = []
    frame = {
        e.attachment.sha256: count(header(e.attachment.name, True) + footer(e.attachment.name)) + 2 for e in entries
    }
    pending: list[_Entry] = []
    for entry in entries:
        cost = attachment_tokens(entry.attachment) + frame[entry.attachment.sha256]
        if cost <= remaining:
            entry.whole, entry.tokens = True, cost
            remaining -= cost
            continue
        if whole_documents:
            notices.append(_NOT_WHOLE.fill(name=entry.attachment.name, tokens=cost, free=remaining))
        pending.append(entry)
    costs = cost_of if cost_of is not None else (lambda chunk: chunk_cost(chunk, count))
    chosen = _retrieve(pending, messages, costs, search, remaining, frame, chunker)
    used = sum(e.tokens for e in entries)
    rendered = _render(messages, entries)
    uses = tuple(_use(e) for e in sorted(entries, key=lambda e: (e.message, e.position)))
    return AttachmentContext(
        rendered, uses, tuple(sorted(chosen, key=lambda c: (c.sha256, c.start))), tuple(notices), budget, used
    )


def _retrieve(
    pending: list[_Entry],
    messages: Sequence[Message],
    cost_of: Callable[[Chunk], int],
    search: ChunkSearch,
    remaining: int,
    frame: dict[str, int],
    chunker: Callable[[Attachment], list[Chunk]],
) -> list[Chunk]:
    """Fill what is left with the best chunks of the attachments that did not fit whole."""
    if not pending:
        return []
    candidates: list[tuple[_Entry, Chunk]] = []
    for entry in pending:
        entry.chunks = []
        candidates.extend((entry, chunk) for chunk in chunker(entry.attachment))
    query = fts_query(question_of(messages))
    ranked = search.rank(query, [c for _, c in candidates]) if query is not None else []
    order = list(dict.fromkeys([i for i in ranked if 0 <= i < len(candidates)] + list(range(len(candidates)))))
    chosen: list[Chunk] = []
    for index in order:
        if remaining < _MIN_USEFUL_TOKENS:
            break
        entry, chunk = candidates[index]
        assert entry.chunks is not None
        opening = 0 if entry.chunks else frame[entry.attachment.sha256]
        cost = cost_of(chunk) + opening
        if cost > remaining:
            continue
        entry.chunks.append(chunk)
        entry.tokens += cost
        remaining -= cost
        chosen.append(chunk)
    return chosen


def _render(messages: Sequence[Message], entries: Sequence[_Entry]) -> tuple[Message, ...]:
    blocks: dict[int, list[tuple[int, str]]] = {}
    for entry in entries:
        if entry.whole:
            block = render_whole(entry.attachment)
        elif entry.chunks:
            block = render_chunks(entry.attachment, entry.chunks)
        else:
            continue
        blocks.setdefault(entry.message, []).append((entry.position, block))
    out = []
    for index, message in enumerate(messages):
        own = [block for _, block in sorted(blocks.get(index, []))]
        out.append(replace(message, content=with_blocks(message.content, own)) if own else message)
    return tuple(out)


def _use(entry: _Entry) -> AttachmentUse:
    attachment = entry.attachment
    if entry.whole:
        return AttachmentUse(attachment.name, attachment.sha256, True, (), entry.tokens)
    chunks = sorted(entry.chunks or [], key=lambda c: c.start)
    citations = tuple(dict.fromkeys(c.citation for c in chunks))
    return AttachmentUse(attachment.name, attachment.sha256, False, citations, entry.tokens, left_out=not chunks)
