"""A reply's tokens as stored: rows read as token records and written from them, and a cut-off reply's text.

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
from typing import Any

from app.core.conversation.chat import MessageState
from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import RejectedProposal, TokenRecord
from app.engine.store.schema import UNKNOWN_P_STORED

# The columns of one token row after (message_id, idx).
_COLUMNS = "text, origin, p_target, q_draft, rejected_text, rejected_p, rejected_q, source, copied_from"
# Known origins by their stored text: a dict lookup per row is cheaper than an enum call that may raise.
_ORIGINS: dict[str, TokenOrigin] = {origin.value: origin for origin in TokenOrigin}


def token_of_row(row: Sequence[Any]) -> TokenRecord:
    """The record of one row of :data:`_COLUMNS` (the store keeps no token ids).

    An origin this Tandem does not know stays text; a negative ``p_target`` is
    :data:`UNKNOWN_P_STORED`, read back as NaN (SQLite cannot hold NaN).
    """
    text, origin, p, q, rejected_text, rejected_p, rejected_q, source, copied_from = row
    rejected = None
    if rejected_text is not None:
        rejected = RejectedProposal(text=rejected_text, p_target=rejected_p, q_draft=rejected_q)
    return TokenRecord(
        text=text,
        origin=_ORIGINS.get(origin, origin),
        p_target=math.nan if p < 0 else p,
        q_draft=q,
        source=source,
        copied_from=copied_from,
        rejected=rejected,
    )


def row_of_token(token: TokenRecord) -> tuple[Any, ...]:
    """The values of :data:`_COLUMNS` for ``token``: an unknown ``p_target`` (NaN) as :data:`UNKNOWN_P_STORED`."""
    rejected = token.rejected
    return (
        token.text,
        str(token.origin),
        UNKNOWN_P_STORED if math.isnan(token.p_target) else float(token.p_target),
        None if token.q_draft is None else float(token.q_draft),
        None if rejected is None else rejected.text,
        None if rejected is None or rejected.p_target is None else float(rejected.p_target),
        None if rejected is None or rejected.q_draft is None else float(rejected.q_draft),
        token.source,
        token.copied_from,
    )


def read_tokens(db: sqlite3.Connection, message_id: int) -> list[TokenRecord]:
    """A reply's tokens in order."""
    rows = db.execute(f"SELECT {_COLUMNS} FROM tokens WHERE message_id=? ORDER BY idx", (message_id,)).fetchall()
    return [token_of_row(row) for row in rows]


def write_tokens(db: sqlite3.Connection, message_id: int, start: int, tokens: Iterable[TokenRecord]) -> None:
    """Insert ``tokens`` as the rows ``start``, ``start + 1``, ... of a reply (inside the caller's transaction)."""
    db.executemany(
        f"INSERT INTO tokens(message_id, idx, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(message_id, start + i, *row_of_token(t)) for i, t in enumerate(tokens)],
    )


def row_bytes(tokens: Sequence[TokenRecord]) -> int:
    """Roughly what the rows take on disk, so a full disk can say how much room is missing."""
    return sum(len(t.text.encode()) + (len(t.rejected.text) if t.rejected else 0) + 64 for t in tokens)


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
