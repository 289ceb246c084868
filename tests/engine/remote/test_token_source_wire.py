"""Which drafter proposed each token travels in the server's ``tandem`` extension and back."""

from __future__ import annotations

from dataclasses import replace

from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import RejectedProposal, TokenRecord
from app.engine.remote.steps import UNKNOWN_ID, tandem_step
from app.engine.server.protocol import token_origins


def test_the_source_goes_out_with_each_token_and_comes_back() -> None:
    tokens = [
        TokenRecord(id=1, text="a", origin=TokenOrigin.DRAFT, p_target=0.9, q_draft=1.0, source="lookup"),
        TokenRecord(id=2, text="b", origin=TokenOrigin.DRAFT, p_target=0.8, q_draft=0.6, source="model"),
        TokenRecord(
            id=3,
            text="c",
            origin=TokenOrigin.CORRECTED,
            p_target=0.7,
            rejected=RejectedProposal(id=4, text="d", p_target=0.1, q_draft=0.5),
        ),
    ]
    wire = token_origins(tokens)
    assert [t["source"] for t in wire] == ["lookup", "model", None]
    assert "rejected" not in wire[2]  # the stream carries what the reply is made of
    step = tandem_step({"tokens": wire, "drafted": 3, "accepted": 2})
    assert step.tokens == (*tokens[:2], replace(tokens[2], rejected=None))
    # An older Tandem sends no source and no ids: the tokens still arrive, with none and the unknown id.
    old = [{k: v for k, v in t.items() if k not in ("source", "id")} for t in wire]
    arrived = tandem_step({"tokens": old}).tokens
    assert [(t.source, t.id) for t in arrived] == [(None, UNKNOWN_ID)] * 3
