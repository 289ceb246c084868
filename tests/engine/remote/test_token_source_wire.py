"""Which drafter proposed each token travels in the server's ``tandem`` extension and back."""

from __future__ import annotations

from app.core.decoding.events import EmittedToken, TokenOrigin
from app.engine.remote.steps import tandem_step
from app.engine.server.protocol import token_origins


def test_the_source_goes_out_with_each_token_and_comes_back() -> None:
    tokens = [
        EmittedToken(1, "a", TokenOrigin.DRAFT, 0.9, 1.0, "lookup"),
        EmittedToken(2, "b", TokenOrigin.DRAFT, 0.8, 0.6, "model"),
        EmittedToken(3, "c", TokenOrigin.CORRECTED, 0.7),
    ]
    wire = token_origins(tokens)
    assert [t["source"] for t in wire] == ["lookup", "model", None]
    step = tandem_step({"tokens": wire, "drafted": 3, "accepted": 2})
    assert [t.source for t in step.tokens] == ["lookup", "model", None]
    # An older Tandem sends no source: the tokens still arrive, with none.
    old = [{k: v for k, v in t.items() if k != "source"} for t in wire]
    assert [t.source for t in tandem_step({"tokens": old}).tokens] == [None, None, None]
