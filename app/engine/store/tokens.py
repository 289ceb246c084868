"""A reply's tokens as stored: the record, its rows, and the text of a reply cut short rebuilt from them.

Every token keeps its origin and probabilities (and the draft proposal the
target rejected at that point, if any), so a reloaded chat can be recoloured
exactly as it was shown live. A reply cut off before its text was written
(a crash while streaming, a continued reply that never finished) gets its
text back from these rows.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.core.chat import MessageState
from app.core.decoding.events import EmittedToken, RejectedProposal, StepEvent, TokenOrigin
from app.core.reply.token_record import RejectedRecord, TokenRecord
from app.engine.store.schema import UNKNOWN_P_STORED

# The columns of one token row after (message_id, idx), in StoredToken's field order.
_COLUMNS = "text, origin, p_target, q_draft, rejected_text, rejected_p, rejected_q, source, copied_from"
# Known origins by their stored text: a dict lookup per row is cheaper than an enum call that may raise.
_ORIGINS: dict[str, TokenOrigin] = {origin.value: origin for origin in TokenOrigin}


@dataclass(frozen=True, slots=True)
class StoredToken:
    """One token of a stored reply: its text, where it came from and the odds behind it.

    ``p_target`` is NaN where nobody knows it (a remote server's tokens); SQLite
    cannot hold NaN, so the column keeps :data:`UNKNOWN_P_STORED` instead.
    """

    text: str
    origin: TokenOrigin | str  # read back as a TokenOrigin; an origin this Tandem does not know stays text
    p_target: float
    q_draft: float | None = None
    rejected_text: str | None = None
    rejected_p: float | None = None
    rejected_q: float | None = None
    # Which drafter proposed an accepted draft token ("model", "lookup"), and for a token prompt
    # lookup copied, where from ("report.pdf, p. 3", "earlier in this chat"); None for older rows.
    source: str | None = None
    copied_from: str | None = None

    @staticmethod
    def from_emitted(token: EmittedToken, rejected: RejectedProposal | None = None) -> StoredToken:
        """A stored copy of ``token``; ``rejected`` is the proposal it replaced, if any."""
        return StoredToken(
            token.text,
            token.origin,
            float(token.p_target),
            None if token.q_draft is None else float(token.q_draft),
            rejected.text if rejected else None,
            float(rejected.p_target) if rejected else None,
            float(rejected.q_draft) if rejected else None,
            token.source,
            token.copied_from,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the token record every JSON format shares (:mod:`app.core.reply.token_record`)."""
        rejected = None
        if self.rejected_text is not None:
            rejected = RejectedRecord(self.rejected_text, self.rejected_p, self.rejected_q)
        return TokenRecord(
            self.text,
            self.origin,
            self.p_target,
            self.q_draft,
            source=self.source,
            rejected=rejected,
            copied_from=self.copied_from,
        ).to_json()


def tokens_of_step(event: StepEvent) -> list[StoredToken]:
    """The tokens of one verify step, the rejected proposal attached to the token that replaced it."""
    rejected = event.rejected
    return [
        StoredToken.from_emitted(token, rejected if rejected is not None and i == rejected.position else None)
        for i, token in enumerate(event.tokens)
    ]


class TokenRow(Protocol):
    """What a token row is written from: a :class:`StoredToken`, or an imported token (the same fields)."""

    @property
    def text(self) -> str: ...
    @property
    def origin(self) -> str: ...
    @property
    def p_target(self) -> float: ...  # NaN, or UNKNOWN_P_STORED already, where it is not known
    @property
    def q_draft(self) -> float | None: ...
    @property
    def rejected_text(self) -> str | None: ...
    @property
    def rejected_p(self) -> float | None: ...
    @property
    def rejected_q(self) -> float | None: ...
    @property
    def source(self) -> str | None: ...
    @property
    def copied_from(self) -> str | None: ...


def read_tokens(db: sqlite3.Connection, message_id: int) -> list[StoredToken]:
    """A reply's tokens in order."""
    rows = db.execute(f"SELECT {_COLUMNS} FROM tokens WHERE message_id=? ORDER BY idx", (message_id,)).fetchall()
    return [StoredToken(r[0], _ORIGINS.get(r[1], r[1]), math.nan if r[2] < 0 else r[2], *tuple(r)[3:]) for r in rows]


def write_tokens(db: sqlite3.Connection, message_id: int, start: int, tokens: Iterable[TokenRow]) -> None:
    """Insert ``tokens`` as the rows ``start``, ``start + 1``, ... of a reply (inside the caller's transaction)."""
    db.executemany(
        f"INSERT INTO tokens(message_id, idx, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                message_id,
                start + i,
                t.text,
                str(t.origin),
                UNKNOWN_P_STORED if math.isnan(t.p_target) else t.p_target,
                t.q_draft,
                t.rejected_text,
                t.rejected_p,
                t.rejected_q,
                t.source,
                t.copied_from,
            )
            for i, t in enumerate(tokens)
        ],
    )


def row_bytes(tokens: Sequence[StoredToken]) -> int:
    """Roughly what the rows take on disk, so a full disk can say how much room is missing."""
    return sum(len(t.text.encode()) + len(t.rejected_text or "") + 64 for t in tokens)


def is_partial(state: str, content: str, meta: dict[str, Any]) -> bool:
    """Whether a reply's text must be rebuilt from its tokens (cut off before it was finished)."""
    if state == MessageState.STREAMING:
        return not content or "continued_at_token" in meta
    return state == MessageState.INTERRUPTED and not content


def partial_text(content: str, meta: dict[str, Any], texts: list[str]) -> str:
    """A cut-off reply's text: its tokens, or for a continued reply its old text plus the tokens that followed."""
    at = meta.get("continued_at_token")
    if content and isinstance(at, int) and not isinstance(at, bool):
        return content + "".join(texts[at:])
    return "".join(texts)
