"""``reasoning_content``: a reply's reasoning block apart from its answer, as llama-server sends it.

llama-server with ``--reasoning-format deepseek`` moves the text between
``<think>`` and ``</think>`` out of ``message.content`` into
``message.reasoning_content``, and streams it as ``delta.reasoning_content``;
clients that know the field show it as thinking, and the rest see a clean
answer. Tandem does the same by default; a request's ``reasoning_format``
may say ``"none"`` to keep the block in ``content`` as the model wrote it.
The splitting itself is :mod:`app.core.reply.reasoning`'s; this module is the
wire's side of it (and the one-line refusal of a format it does not know).
"""

from __future__ import annotations

from typing import Any

from app.core.decoding.events import StepEvent
from app.core.reply.reasoning import Part, Piece, ReasoningSplitter, split_reasoning

FORMATS = ("deepseek", "auto", "none")  # llama-server's names; "auto" splits as "deepseek" does


def wants_split(value: object) -> bool:
    """Whether ``reasoning_format`` asks for ``reasoning_content`` (absent, it does); ValueError if unknown."""
    if value is None:
        return True
    if not isinstance(value, str) or value not in FORMATS:
        raise ValueError(f"'reasoning_format' must be one of {', '.join(FORMATS)}")
    return value != "none"


def _delta(pieces: list[Piece]) -> dict[str, Any]:
    content = "".join(p.text for p in pieces if p.part is Part.ANSWER)
    thinking = "".join(p.text for p in pieces if p.part is Part.THINKING)
    out: dict[str, Any] = {"content": content}
    if thinking:
        out["reasoning_content"] = thinking
    return out


class ReasoningStream:
    """One streamed reply's deltas: each step's answer text as ``content``, its thinking as ``reasoning_content``.

    Text that may still turn out to be a marker is held back a step or two and
    sent when decided (at the latest by :meth:`flush`, in the final chunk).
    """

    def __init__(self, inside: bool = False) -> None:
        self.inside = inside
        self._splitter = ReasoningSplitter(inside=inside)
        self._block = inside  # a reasoning block has been seen
        self._answering = False  # the answer's first visible character has been sent

    def delta(self, step: StepEvent) -> dict[str, Any]:
        """The delta for one verify step's tokens."""
        pieces = [piece for token in step.tokens for piece in self._splitter.feed(token.text)]
        self._block = self._block or any(p.part is Part.MARKER for p in pieces)
        return _delta([self._trimmed(p) for p in pieces])

    def _trimmed(self, piece: Piece) -> Piece:
        """The white space around a block is layout, not answer: left out before the answer's first character."""
        if piece.part is not Part.ANSWER or self._answering:
            return piece
        text = piece.text.lstrip() if self._block else piece.text
        self._answering = bool(text)
        return Piece(piece.token, piece.part, text)

    def flush(self) -> dict[str, Any]:
        """Whatever was held back, for the final chunk's delta (empty when nothing was)."""
        pieces = [self._trimmed(p) for p in self._splitter.finish()]
        return _delta(pieces) if any(p.text for p in pieces) else {}


def message_fields(text: str, inside: bool = False) -> dict[str, Any]:
    """A finished reply's ``content`` (its answer) and ``reasoning_content`` (only where it has a block)."""
    reply = split_reasoning(text, inside=inside)
    if reply.reasoning is None:
        return {"content": reply.answer}
    return {"content": reply.answer, "reasoning_content": reply.reasoning}
