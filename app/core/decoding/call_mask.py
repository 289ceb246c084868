"""Tool calls held to their grammar while the rest of the reply stays free text.

:class:`CallMask` is a :class:`~app.core.decoding.constraint.TokenMask` over
a whole reply: outside a call it allows every token (the reply is the model's
own text, masked by nothing); the token that opens a call (the dialect's
opener, one vocabulary entry such as Qwen's ``<tool_call>``) starts a fresh
grammar of the call's body (:class:`CallGrammar`: the JSON of one offered
tool's name and its arguments' schema, then the closer), and every token
until the call closes is masked by it. A dialect whose calls run to the
reply's end has no closer: its grammar then holds the rest of the reply.

The mask is a function of the tokens consumed only, and rolls back through
call boundaries (a rejected draft may have opened or closed a call), so the
decoder masks ``q_draft`` and ``p_target`` alike and speculation stays exact
(:mod:`app.core.decoding.constraint`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Protocol

import numpy as np

from app.core.decoding.constraint import BoolArray


class CallGrammar(Protocol):
    """One call's grammar state: a token mask that says when the text so far is a whole call."""

    def allowed(self) -> BoolArray:
        """One flag per token id for the next position."""
        ...

    def consume(self, token: int) -> None:
        """Advance past ``token``."""
        ...

    def rollback(self, n_tokens: int) -> None:
        """Undo the last ``n_tokens`` consumed."""
        ...

    @property
    def accepting(self) -> bool:
        """Whether the text so far is a complete call."""
        ...


class _Step(enum.Enum):
    FREE = "free"  # consumed outside any call
    OPEN = "open"  # the opener: a call's grammar started
    BODY = "body"  # consumed by the open call's grammar
    CLOSE = "close"  # consumed by the call's grammar, and it ended the call


class CallMask:
    """Free text, and each call from its opener on held to a fresh :class:`CallGrammar` (see the module docstring)."""

    def __init__(
        self,
        n_vocab: int,
        openers: frozenset[int],
        start_call: Callable[[], CallGrammar],
        closes: bool,
        inside: CallGrammar | None = None,
    ) -> None:
        """``closes``: a call ends at its closer (else at the reply's end); ``inside``: the reply starts in a call."""
        self._free = np.ones(n_vocab, dtype=np.bool_)
        self._openers = openers
        self._start_call = start_call
        self._closes = closes
        self._calls: list[CallGrammar] = [] if inside is None else [inside]
        self._inside = inside is not None
        self._log: list[_Step] = []
        self.calls_opened = 0  # calls the reply opened so far (counts for tests)

    @property
    def inside(self) -> bool:
        """Whether the next token is inside a call."""
        return self._inside

    def allowed(self) -> BoolArray:
        """Every id outside a call; the call grammar's ids inside one."""
        return self._calls[-1].allowed() if self._inside else self._free

    def consume(self, token: int) -> None:
        """Advance past ``token``: into a call at its opener, out of it when its grammar is complete."""
        if self._inside:
            call = self._calls[-1]
            call.consume(token)
            if self._closes and call.accepting:
                self._inside = False
                self._log.append(_Step.CLOSE)
            else:
                self._log.append(_Step.BODY)
        elif token in self._openers:
            self._calls.append(self._start_call())
            self._inside = True
            self.calls_opened += 1
            self._log.append(_Step.OPEN)
        else:
            self._log.append(_Step.FREE)

    def rollback(self, n_tokens: int) -> None:
        """Undo the last ``n_tokens``, back into a call that one of them closed or out of one that one opened."""
        for _ in range(n_tokens):
            step = self._log.pop()
            if step is _Step.OPEN:
                self._calls.pop()
                self._inside = False
                self.calls_opened -= 1
            elif step in (_Step.BODY, _Step.CLOSE):
                self._calls[-1].rollback(1)
                self._inside = True
