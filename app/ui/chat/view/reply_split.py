"""A reply's tokens told apart as they stream: the ones its "Thinking" section draws and the answer's.

The splitting is :mod:`app.core.reply.reasoning`'s (:class:`ReasoningSplitter`);
this module keeps, for the view, two growing lists of the reply's tokens, each
token with only its own characters of that part: the section's (the block's
text, markers and the white space around it left out) and the answer's (from
the token that closed the block on). A token joins a list only once all its
characters are decided (text that may still be a marker is held back), so both
lists only ever grow while the reply streams and the view can draw them
incrementally; the shape changes (a block appears, it closes) are reported so
the view lays the reply out again once.

The block's duration is :class:`~app.core.reply.thinking.ThinkingClock`'s, fed
each step's draft + verify milliseconds as the reply passes them (the step
records'; the tokens carry no timing of their own), the same clock that gives
the stored ``thinking_seconds``. Qt-free: tested without a display.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from app.core.reply.reasoning import THINK, Part, Piece, ReasoningSplitter
from app.core.reply.thinking import ThinkingClock
from app.core.reply.token_record import TokenRecord


class ReplySplit:
    """The section's tokens (:attr:`thinking`, from index 0) and the answer's (from :attr:`answer_base`)."""

    def __init__(self, inside: bool = False) -> None:
        self._splitter = ReasoningSplitter(THINK, inside)
        self.inside = inside
        self._tokens: list[TokenRecord] = []
        self._think: list[str] = []  # each token's thinking characters
        self._answer: list[str] = []  # each token's answer characters
        self._left: list[int] = []  # each token's characters not decided yet
        self._decided = 0  # tokens before this one are wholly decided (pending text is always a suffix)
        self.has_block = inside
        self.plain = False  # decided: the reply has no reasoning block (nothing more to watch)
        self.close_token: int | None = None  # the token that wrote the closing marker's end
        self.first_thinking: int | None = 0 if inside else None
        self.finished = False
        self.thinking: list[TokenRecord] = []
        self.answer: list[TokenRecord] = []
        self.thinking_text = ""
        self.answer_text = ""
        self._clock = ThinkingClock(THINK, inside)
        self.seconds: float | None = None  # the block's duration once closed (None: no step times)
        self._whole = False  # the closed block was trimmed and timed

    @classmethod
    def of(cls, tokens: Sequence[TokenRecord], inside: bool = False, final: bool = True) -> ReplySplit:
        """A whole reply (``final``: it ended, so text held back as a possible marker is decided)."""
        split = cls(inside)
        split.add(tokens)
        if final:
            split.finish()
        return split

    @property
    def count(self) -> int:
        """How many of the reply's tokens were added."""
        return len(self._tokens)

    @property
    def closed(self) -> bool:
        """Whether the block's closing marker came."""
        return self.close_token is not None

    @property
    def answer_base(self) -> int:
        """The reply index of :attr:`answer`'s first token."""
        return self.close_token if self.close_token is not None else 0

    def shape(self) -> tuple[bool, bool]:
        """What the view's layout depends on: a block seen, the block closed."""
        return self.has_block, self.closed

    def add(self, tokens: Iterable[TokenRecord], step_ms: float | None = None) -> bool:
        """More of the reply (one verify step's tokens and its time); True when :meth:`shape` changed."""
        before = self.shape()
        added = list(tokens)
        for token in added:
            self._tokens.append(token)
            self._think.append("")
            self._answer.append("")
            self._left.append(len(token.text))
            self._take(self._splitter.feed(token.text))
        self._clock.add([token.text for token in added], step_ms)
        self._advance()
        return self.shape() != before

    def finish(self) -> bool:
        """The reply ended: what was held back is decided (an unclosed block stays thinking)."""
        before = self.shape()
        self.finished = True
        self._take(self._splitter.finish())
        self._advance()
        return self.shape() != before

    def _take(self, pieces: list[Piece]) -> None:
        last_marker: int | None = None
        for piece in pieces:
            index = piece.token
            self._left[index] -= len(piece.text)
            if piece.part is Part.ANSWER:
                self._answer[index] += piece.text
                if not self.has_block and piece.text.strip():
                    self.plain = True
                continue
            if self.first_thinking is None:
                self.first_thinking = index
            self.has_block = True
            if piece.part is Part.THINKING:
                self._think[index] += piece.text
            else:
                last_marker = index
        if self.close_token is None and self._splitter.closed:
            # The batch that closed the block ends with its closing marker (nothing but answer follows).
            self.close_token = last_marker if last_marker is not None else len(self._tokens) - 1

    def _advance(self) -> None:
        """Move the wholly decided tokens into the lists."""
        while self._decided < len(self._tokens) and self._left[self._decided] == 0:
            index = self._decided
            self._decided += 1
            token = self._tokens[index]
            if not self.has_block:
                self.answer.append(token)
                self.answer_text += token.text
                continue
            if self.close_token is None or index <= self.close_token:
                text = self._think[index] if self.thinking_text.strip() else self._think[index].lstrip()
                self.thinking.append(_with_text(token, text))
                self.thinking_text += text
            if self.close_token is not None and index >= self.close_token:
                text = self._answer[index] if self.answer_text else self._answer[index].lstrip()
                self.answer.append(_with_text(token, text))
                self.answer_text += text
        if self.close_token is not None and self._decided > self.close_token and not self._whole:
            self._closed_now()

    def _closed_now(self) -> None:
        """The block is whole: its trailing white space goes, and its duration is summed."""
        self._whole = True
        for position in range(len(self.thinking) - 1, -1, -1):
            token = self.thinking[position]
            trimmed = token.text.rstrip()
            self.thinking[position] = _with_text(token, trimmed)
            if trimmed:
                break
        self.thinking_text = self.thinking_text.rstrip()
        self.seconds = self._clock.seconds


def _with_text(token: TokenRecord, text: str) -> TokenRecord:
    return token if text == token.text else dataclasses.replace(token, text=text)


def duration_words(seconds: float) -> str:
    """A block's duration as its header says it: tenths under ten seconds, whole seconds after."""
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
