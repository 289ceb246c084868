"""A reply's reasoning block told apart from its answer, as the reply streams.

A reasoning model writes ``<think>…</think>`` (or its template's own pair of
markers) before the answer. :class:`ReasoningSplitter` takes the reply's text
pieces (one per token) in order and says, for every character, whether it is
thinking, a marker or answer. It copes with a marker split across tokens (text
that may still become a marker is held back until it is decided), with a
missing closing marker (everything after the opener stays thinking) and with
a reply that starts inside the thinking because the template opened the block
in the prompt (``inside=True``). The opening marker counts only at the reply's
start (after white space): a ``<think>`` the answer mentions later is text.

gpt-oss (the harmony format) writes its reasoning as a message on the
``analysis`` channel and its answer on the ``final`` channel:
``<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…``.
The same splitter reads that form too, whatever ``markers`` it was given: the
analysis messages are the block, the headers and ``<|end|>`` are markers, and
the final message is the answer. After an analysis message, any other header
(a ``commentary`` call) closes the block and stays answer text, where the call
reader finds it. A reply that starts on the final channel has an empty, closed block.

:func:`token_parts` gives each token one part (thinking when any of its
characters is thinking or a marker) for the view and the statistics, and
:func:`split_reasoning` a whole reply's two texts, the form ``serve``'s
``reasoning_content`` and the later prompts' history use.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.conversation.chat import Message


class Part(enum.StrEnum):
    """Which part of a reply a piece of text belongs to."""

    THINKING = "thinking"
    MARKER = "marker"  # the opening or closing marker itself: shown in neither text
    ANSWER = "answer"


@dataclass(frozen=True, slots=True)
class ReasoningMarkers:
    """The pair of markers around a reasoning block."""

    open: str = "<think>"
    close: str = "</think>"

    def __post_init__(self) -> None:
        if not self.open or not self.close:
            raise ValueError("reasoning markers must not be empty")


THINK = ReasoningMarkers()

# The harmony format's headers and message end, as llama.cpp spells gpt-oss's tokens.
HARMONY_ANALYSIS = "<|channel|>analysis<|message|>"
HARMONY_FINAL = "<|channel|>final<|message|>"
HARMONY_END = "<|end|>"
HARMONY_NEXT = "<|start|>assistant"  # the next message's start, before its channel
# What may follow an analysis message's end and keeps the reply thinking, or opens its answer.
_AFTER_END_THINKING = (HARMONY_NEXT + HARMONY_ANALYSIS, HARMONY_ANALYSIS)
_AFTER_END_ANSWER = (HARMONY_NEXT + HARMONY_FINAL, HARMONY_FINAL)


@dataclass(frozen=True, slots=True)
class Piece:
    """Some text of one token (``token`` is its index in the reply) and the part it belongs to."""

    token: int
    part: Part
    text: str


class _State(enum.Enum):
    START = enum.auto()  # nothing but white space yet: an opening marker may still come
    THINKING = enum.auto()
    AFTER_END = enum.auto()  # harmony: an analysis message ended; the next header says what follows
    ANSWER = enum.auto()


def _held_prefix(text: str, marker: str) -> int:
    """The length of the longest end of ``text`` that is a proper start of ``marker``."""
    for n in range(min(len(text), len(marker) - 1), 0, -1):
        if marker.startswith(text[-n:]):
            return n
    return 0


class ReasoningSplitter:
    """Streaming: feed each token's text, get back the pieces that are decided (see the module docstring)."""

    def __init__(self, markers: ReasoningMarkers = THINK, inside: bool = False) -> None:
        self.markers = markers
        self._state = _State.THINKING if inside else _State.START
        self._pending: list[tuple[int, str]] = []  # (token, character) not decided yet
        self._count = 0
        self._harmony = False  # the block is harmony's analysis channel (it ends at <|end|>)
        self.closed = False  # whether the closing marker has been seen

    @property
    def thinking(self) -> bool:
        """Whether the text now streaming is inside the reasoning block."""
        return self._state is _State.THINKING or self._state is _State.AFTER_END

    def feed(self, text: str) -> list[Piece]:
        """The pieces decided once this token's ``text`` is added (possibly of earlier tokens)."""
        token = self._count
        self._count += 1
        self._pending.extend((token, ch) for ch in text)
        return self._drain(final=False)

    def finish(self) -> list[Piece]:
        """Everything still held back, at the reply's end (an unclosed block stays thinking).

        A harmony reply that ends right after an analysis message's ``<|end|>`` (its call was
        taken out of the text by the call reader) closed its block there.
        """
        pieces = self._drain(final=True)
        if self._state is _State.AFTER_END and not pieces:
            self._state = _State.ANSWER
            self.closed = True
        return pieces

    def _drain(self, final: bool) -> list[Piece]:
        out: list[tuple[int, Part, str]] = []
        while self._pending:
            text = "".join(ch for _, ch in self._pending)
            if self._state is _State.START:
                stripped = len(text) - len(text.lstrip())
                rest = text[stripped:]
                opened = self._opener(rest)
                if opened is not None:
                    marker, state = opened
                    self._emit(out, stripped, Part.ANSWER)  # white space before the block: nobody reads it
                    self._emit(out, len(marker), Part.MARKER)
                    self._harmony = marker != self.markers.open
                    self._state = state
                    self.closed = state is _State.ANSWER
                    continue
                openers = (self.markers.open, HARMONY_ANALYSIS, HARMONY_FINAL)
                if not final and any(o.startswith(rest) for o in openers):
                    break  # white space, or an opener's start: wait for more
                self._state = _State.ANSWER
                continue
            if self._state is _State.ANSWER:
                self._emit(out, len(text), Part.ANSWER)
                break
            if self._state is _State.AFTER_END:
                if not self._after_end(out, text, final):
                    break
                continue
            close = HARMONY_END if self._harmony else self.markers.close
            at = text.find(close)
            if at >= 0:
                self._emit(out, at, Part.THINKING)
                self._emit(out, len(close), Part.MARKER)
                if self._harmony:
                    self._state = _State.AFTER_END
                    continue
                self._state = _State.ANSWER
                self.closed = True
                continue
            held = 0 if final else _held_prefix(text, close)
            self._emit(out, len(text) - held, Part.THINKING)
            break
        return [Piece(token, part, chunk) for token, part, chunk in out]

    def _opener(self, rest: str) -> tuple[str, _State] | None:
        """The block's opener ``rest`` starts with, and the state after it (None: it starts with none)."""
        if rest.startswith(self.markers.open):
            return self.markers.open, _State.THINKING
        if rest.startswith(HARMONY_ANALYSIS):
            return HARMONY_ANALYSIS, _State.THINKING
        if rest.startswith(HARMONY_FINAL):
            return HARMONY_FINAL, _State.ANSWER
        return None

    def _after_end(self, out: list[tuple[int, Part, str]], text: str, final: bool) -> bool:
        """Harmony, after an analysis message: another one, the final one, or anything else; False: wait."""
        for headers, state in ((_AFTER_END_THINKING, _State.THINKING), (_AFTER_END_ANSWER, _State.ANSWER)):
            header = next((h for h in headers if text.startswith(h)), None)
            if header is not None:
                self._emit(out, len(header), Part.MARKER)
                self._state = state
                self.closed = state is _State.ANSWER
                return True
        if any(h.startswith(text) for h in (*_AFTER_END_THINKING, *_AFTER_END_ANSWER)):
            if not final:
                return False
            self._emit(out, len(text), Part.MARKER)  # the reply ended inside the next header: the block stays open
            return True
        # Any other message (a commentary call) ends the reasoning and is the answer's, as written.
        self._state = _State.ANSWER
        self.closed = True
        return True

    def _emit(self, out: list[tuple[int, Part, str]], n: int, part: Part) -> None:
        """Move the first ``n`` pending characters to ``out``, one piece per token and part."""
        taken, self._pending = self._pending[:n], self._pending[n:]
        for token, ch in taken:
            if out and out[-1][0] == token and out[-1][1] is part:
                out[-1] = (token, part, out[-1][2] + ch)
            else:
                out.append((token, part, ch))


def split_pieces(texts: Iterable[str], markers: ReasoningMarkers = THINK, inside: bool = False) -> list[Piece]:
    """Every piece of a whole reply, in order."""
    splitter = ReasoningSplitter(markers, inside)
    pieces: list[Piece] = []
    for text in texts:
        pieces.extend(splitter.feed(text))
    pieces.extend(splitter.finish())
    return pieces


def token_parts(texts: Sequence[str], markers: ReasoningMarkers = THINK, inside: bool = False) -> list[Part]:
    """One part per token: thinking where any of its characters is thinking or a marker, else answer.

    A token with no text belongs where the reply stood when it came.
    """
    splitter = ReasoningSplitter(markers, inside)
    parts = [Part.ANSWER] * len(texts)
    pieces: list[Piece] = []
    for index, text in enumerate(texts):
        if not text and splitter.thinking:
            parts[index] = Part.THINKING
        pieces.extend(splitter.feed(text))
    pieces.extend(splitter.finish())
    for piece in pieces:
        if piece.part is not Part.ANSWER:
            parts[piece.token] = Part.THINKING
    return parts


@dataclass(frozen=True, slots=True)
class SplitReply:
    """A whole reply's reasoning and answer texts; ``reasoning`` is None where it had no block."""

    reasoning: str | None
    answer: str
    closed: bool  # whether the block was closed (an unfinished one leaves no answer)


def split_reasoning(text: str, markers: ReasoningMarkers = THINK, inside: bool = False) -> SplitReply:
    """A finished reply (or its text so far) split into reasoning and answer."""
    splitter = ReasoningSplitter(markers, inside)
    pieces = [*splitter.feed(text), *splitter.finish()]
    has_block = inside or any(p.part is Part.MARKER for p in pieces)
    thinking = "".join(p.text for p in pieces if p.part is Part.THINKING)
    answer = "".join(p.text for p in pieces if p.part is Part.ANSWER)
    if has_block:
        # The white space between the block and the answer is layout, not answer.
        return SplitReply(thinking.strip(), answer.lstrip(), splitter.closed)
    return SplitReply(None, answer, False)


def strip_reasoning(text: str, markers: ReasoningMarkers = THINK) -> str:
    """An earlier assistant turn as later prompts carry it: its answer only (the block left out)."""
    return split_reasoning(text, markers).answer


@dataclass(frozen=True, slots=True)
class PartAcceptance:
    """How one part of a reply was produced: its tokens, those the draft gave, the drafts turned down.

    Only the tokens are counted (the drafts thrown away after a rejection are no part of the
    reply), so ``from_draft_share`` is the share of the part's tokens that came from the draft.
    """

    tokens: int = 0
    from_draft: int = 0  # accepted draft tokens
    rejections: int = 0  # corrected tokens: a draft turned down there

    @property
    def from_draft_share(self) -> float:
        """Accepted draft tokens per token of this part (0 for an empty part)."""
        return self.from_draft / self.tokens if self.tokens else 0.0

    @property
    def acceptance_rate(self) -> float:
        """Accepted draft tokens per verdict the target gave on a draft here (each rejection is one)."""
        judged = self.from_draft + self.rejections
        return self.from_draft / judged if judged else 0.0

    def to_json(self) -> dict[str, Any]:
        """The JSON form (``chat --json``)."""
        return {
            "tokens": self.tokens,
            "from_draft": self.from_draft,
            "rejections": self.rejections,
            "acceptance_rate": self.acceptance_rate,
        }


def acceptance_by_part(origins: Sequence[str], parts: Sequence[Part]) -> dict[Part, PartAcceptance]:
    """Thinking and answer apart, from each token's origin (``TokenOrigin`` values) and part."""
    if len(origins) != len(parts):
        raise ValueError(f"{len(origins)} origins for {len(parts)} parts")
    counts = {Part.THINKING: [0, 0, 0], Part.ANSWER: [0, 0, 0]}
    for origin, part in zip(origins, parts, strict=True):
        row = counts[Part.THINKING if part is not Part.ANSWER else Part.ANSWER]
        row[0] += 1
        row[1] += origin == "draft"
        row[2] += origin == "corrected"
    return {part: PartAcceptance(*row) for part, row in counts.items()}


def history_without_reasoning(
    messages: Sequence[Message], markers: ReasoningMarkers = THINK, keep_last: bool = False
) -> tuple[Message, ...]:
    """The prompt's turns with every earlier reply's reasoning left out, as reasoning templates do.

    Reasoning templates (Qwen3's, DeepSeek-R1's) render an earlier assistant turn as its
    answer only; doing it here gives the same prompt with every template, and the fitter
    counts the tokens the prompt really has. ``keep_last`` keeps the last message whole:
    an unfinished reply being continued goes on inside its own thinking.
    """
    out: list[Message] = []
    for index, message in enumerate(messages):
        last = index == len(messages) - 1
        if message.role == "assistant" and not (keep_last and last):
            answer = strip_reasoning(message.content, markers)
            if answer != message.content:
                message = dataclasses.replace(message, content=answer)
        out.append(message)
    return tuple(out)


def reasoning_json(texts: Sequence[str], origins: Sequence[str], inside: bool = False) -> dict[str, Any] | None:
    """A reply's thinking apart, as ``chat --json`` carries it; None where the reply has no reasoning block.

    ``{"text", "answer", "closed", "thinking": {tokens, from_draft, ...}, "answer_part": {...}}``.
    """
    reply = split_reasoning("".join(texts), inside=inside)
    if reply.reasoning is None:
        return None
    split = acceptance_by_part(origins, token_parts(texts, inside=inside))
    return {
        "text": reply.reasoning,
        "answer": reply.answer,
        "closed": reply.closed,
        "thinking": split[Part.THINKING].to_json(),
        "answer_part": split[Part.ANSWER].to_json(),
    }


class ReasoningTally:
    """Acceptance in thinking and in the answer, counted as a reply streams (each token once, when its part is known).

    The window feeds every token as it arrives; a token whose text is still held back (a possible
    marker) is counted when the splitter decides it, so the running counts cost O(1) per token.
    """

    def __init__(self, markers: ReasoningMarkers = THINK, inside: bool = False) -> None:
        self._splitter = ReasoningSplitter(markers, inside)
        self._origins: list[str] = []
        self._left: list[int] = []  # characters of each token not decided yet
        self._thinking: list[bool] = []
        self._counts = {Part.THINKING: [0, 0, 0], Part.ANSWER: [0, 0, 0]}
        self.has_block = inside  # a reasoning block has been seen

    def add(self, text: str, origin: str) -> None:
        """One more token of the reply."""
        index = len(self._origins)
        self._origins.append(origin)
        self._left.append(len(text))
        self._thinking.append(not text and self._splitter.thinking)  # set by the pieces below otherwise
        if not text:  # an empty piece belongs where the reply stands
            self._count(index)
        self._take(self._splitter.feed(text))

    def finish(self) -> None:
        """The reply ended: count what was held back."""
        self._take(self._splitter.finish())

    def split(self) -> dict[Part, PartAcceptance]:
        """The counts so far, per part."""
        return {part: PartAcceptance(*row) for part, row in self._counts.items()}

    def _take(self, pieces: list[Piece]) -> None:
        for piece in pieces:
            if piece.part is not Part.ANSWER:
                self._thinking[piece.token] = True
                self.has_block = True
            self._left[piece.token] -= len(piece.text)
            if self._left[piece.token] == 0 and piece.text:
                self._count(piece.token)

    def _count(self, index: int) -> None:
        row = self._counts[Part.THINKING if self._thinking[index] else Part.ANSWER]
        row[0] += 1
        row[1] += self._origins[index] == "draft"
        row[2] += self._origins[index] == "corrected"


# The soft switches Qwen3-style models document for the system prompt or a user turn.
_THINK_ON = "/think"
_THINK_OFF = "/no_think"


def thinking_asked(messages: Sequence[Message]) -> bool | None:
    """Whether the conversation asks for reasoning: True for "/think", False for "/no_think", None when silent.

    The system prompt sets it for the chat and a user turn for itself on; the
    latest switch wins, as the models that document these switches read them.
    A switch counts as a word of its own (``/thinking`` is not one).
    """
    asked: bool | None = None
    for message in messages:
        if message.role not in ("system", "user"):
            continue
        for word in message.content.split():
            if word == _THINK_ON:
                asked = True
            elif word == _THINK_OFF:
                asked = False
    return asked
