"""A reply's attachments against a loaded pair: counted, planned into the prompt, indexed for prompt lookup.

The decisions are pure (:mod:`app.core.attachments.context`); what needs the
target's tokenizer is here:

* each attachment's whole text is tokenised **once** per target and kept by
  its SHA-256 (:class:`AttachmentTokens`), giving both its token count for
  the planner and its :class:`~app.core.decoding.lookup.LookupSource` for
  prompt lookup (the tokens, each token's character offset for citations,
  the n-gram index), so a follow-up question about the same file tokenises
  nothing again;
* a document longer than the context is also cut into its retrieval chunks,
  each chunk's prompt cost counted and the chunks indexed for search, once,
  where it is prepared (:meth:`AttachmentTokens.prepare`: ``serve`` does it
  on its preparation pool), so the planner on the engine thread only looks
  them up; a shorter one is chunked when planned, work bounded by the
  context's size;
* :func:`plan_attachments` is the planner with the pair's numbers (also what
  the window's context gauge calls for "what the attachments take and what
  would be left out").
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from app.core.attachments.chunks import Chunk, chunk_attachment
from app.core.attachments.context import AttachmentContext, ChunkSearch, chunk_cost, plan_context
from app.core.attachments.record import Attachment
from app.core.conversation.chat import Message
from app.core.decoding.lookup import LookupSource
from app.engine.llama.session import LOOKUP_MIN_NGRAM, LoadedPair
from app.engine.store.attachment_search import MemoryChunkSearch

# Attachments kept tokenised per pair: a chat rarely has more, and each is its text's size again in tokens.
_KEEP = 16

# The search for attachments that live in no store (serve's, chat's one-off prompts).
MEMORY_SEARCH = MemoryChunkSearch()


class AttachmentTokens:
    """Each attachment tokenised once by the target (kept by SHA-256, the most recent few)."""

    def __init__(self, pair: LoadedPair, keep: int = _KEEP) -> None:
        self._pair = pair
        self._keep = keep
        self._sources: OrderedDict[str, LookupSource] = OrderedDict()
        # Chunks of the documents prepared as too long for the context, with each chunk's prompt cost.
        self._chunked: OrderedDict[str, list[Chunk]] = OrderedDict()
        self._costs: dict[tuple[str, int], int] = {}  # (sha256, start) -> chunk_cost
        self._lock = threading.Lock()
        self.tokenised = 0  # how many times a text was tokenised (what the cache saves is visible in tests)

    def source(self, attachment: Attachment) -> LookupSource:
        """The attachment as prompt lookup copies from it (made the first time it is asked for)."""
        with self._lock:
            found = self._sources.pop(attachment.sha256, None)
            if found is None:
                found = self._make(attachment)
            self._sources[attachment.sha256] = found
            while len(self._sources) > self._keep:
                self._sources.popitem(last=False)
            return found

    def count(self, attachment: Attachment) -> int:
        """Tokens of the attachment's whole text."""
        return len(self.source(attachment))

    def prepare(self, attachment: Attachment, search: MemoryChunkSearch | None = None) -> None:
        """Tokenise the attachment; one longer than the context is also chunked, costed and indexed in ``search``.

        What the planner needs of it later is then looked up, not computed
        (:meth:`chunks`, :meth:`chunk_cost`), wherever it runs.
        """
        if not attachment.text or self.count(attachment) <= self._pair.target.n_ctx:
            return
        with self._lock:
            if attachment.sha256 in self._chunked:
                return
        chunks = chunk_attachment(attachment)
        counted = {(c.sha256, c.start): chunk_cost(c, self._count_text) for c in chunks}
        if search is not None:
            search.index(chunks)
        with self._lock:
            self._chunked[attachment.sha256] = chunks
            self._costs.update(counted)
            while len(self._chunked) > self._keep:
                _, old = self._chunked.popitem(last=False)
                for chunk in old:
                    self._costs.pop((chunk.sha256, chunk.start), None)

    def chunks(self, attachment: Attachment) -> list[Chunk]:
        """The attachment's retrieval chunks: as prepared, or cut now."""
        with self._lock:
            found = self._chunked.get(attachment.sha256)
        return list(found) if found is not None else chunk_attachment(attachment)

    def chunk_cost(self, chunk: Chunk) -> int:
        """The tokens ``chunk`` takes in the prompt: as prepared, or counted now."""
        with self._lock:
            found = self._costs.get((chunk.sha256, chunk.start))
        return found if found is not None else chunk_cost(chunk, self._count_text)

    def _count_text(self, text: str) -> int:
        return len(self._pair.template.plain_tokens(text))

    def _make(self, attachment: Attachment) -> LookupSource:
        target = self._pair.target
        # Spelt as the prompt spells it (no marker token can arise), so lookup matches the prompt's copy.
        tokens = self._pair.template.plain_tokens(attachment.text)
        self.tokenised += 1
        encoded = attachment.text.encode("utf-8")
        # The character that each byte belongs to: a byte that does not continue a UTF-8 sequence starts one.
        starts_char = (np.frombuffer(encoded, dtype=np.uint8) & 0xC0) != 0x80
        char_of_byte = np.cumsum(starts_char) - 1
        lengths = np.fromiter((len(target.token_bytes(t)) for t in tokens), dtype=np.int64, count=len(tokens))
        byte_starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if tokens else np.zeros(0, dtype=np.int64)
        # A tokenizer that adds a leading space makes pieces one byte longer than the text: clamp to the end.
        clamped = np.minimum(byte_starts, max(0, len(encoded) - 1))
        offsets = char_of_byte[clamped] if len(encoded) else np.zeros(len(tokens), dtype=np.int64)
        return LookupSource(attachment.name, tokens, offsets, attachment.cite, LOOKUP_MIN_NGRAM)


_CACHES: weakref.WeakKeyDictionary[LoadedPair, AttachmentTokens] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def attachment_tokens(pair: LoadedPair) -> AttachmentTokens:
    """The pair's attachment cache (one per loaded pair: token ids belong to its target)."""
    with _CACHES_LOCK:
        cache = _CACHES.get(pair)
        if cache is None:
            cache = _CACHES[pair] = AttachmentTokens(pair)
        return cache


def distinct_attachments(messages: Sequence[Message]) -> list[Attachment]:
    """Every attachment of the conversation once, newest message first."""
    seen: dict[str, Attachment] = {}
    for message in reversed(messages):
        for attachment in message.attachments:
            seen.setdefault(attachment.sha256, attachment)
    return list(seen.values())


def plan_attachments(
    pair: LoadedPair,
    messages: Sequence[Message],
    reserve: int,
    *,
    whole_documents: bool = False,
    search: ChunkSearch | None = None,
    continue_reply: bool = False,
) -> AttachmentContext:
    """How the conversation's attachments enter the prompt with this pair (the gauge's numbers too).

    ``reserve`` is kept for the reply; the conversation's own tokens (rendered
    without attachments) are counted first, the attachments share the rest.
    """
    bare = [replace(m, attachments=()) for m in messages]
    base = len(pair.template.render(bare, continue_reply=continue_reply))
    cache = attachment_tokens(pair)
    target = pair.target
    return plan_context(
        messages,
        attachment_tokens=cache.count,
        count=lambda text: len(pair.template.plain_tokens(text)),
        n_ctx=target.n_ctx,
        reserve=reserve,
        base_tokens=base,
        search=search or MEMORY_SEARCH,
        whole_documents=whole_documents,
        chunker=cache.chunks,
        cost_of=cache.chunk_cost,
    )


def lookup_sources(pair: LoadedPair, messages: Sequence[Message]) -> tuple[LookupSource, ...]:
    """The conversation's attachments as prompt lookup's extra sources (tokenised once each per pair)."""
    cache = attachment_tokens(pair)
    return tuple(cache.source(a) for a in distinct_attachments(messages) if a.text)
