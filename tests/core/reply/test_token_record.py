"""The one token record's JSON spelling, both ways, on hand-built tokens."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from app.core.decoding.events import TokenOrigin
from app.core.reply.token_record import RejectedProposal, TokenRecord

_PROPOSAL = RejectedProposal(id=13, text=" there", p_target=0.1, q_draft=0.7)
_TOKENS = (
    TokenRecord(id=11, text="Hello", origin=TokenOrigin.DRAFT, p_target=0.9, q_draft=0.8, source="model"),
    TokenRecord(id=12, text=" world", origin=TokenOrigin.CORRECTED, p_target=0.6, rejected=_PROPOSAL),
)


def test_a_token_round_trips_through_json_with_its_rejected_proposal():
    wire = json.loads(json.dumps([t.to_json() for t in _TOKENS]))
    assert wire[0] == {"id": 11, "text": "Hello", "origin": "draft", "p_target": 0.9, "q_draft": 0.8, "source": "model"}
    assert wire[1]["rejected"] == {"text": " there", "p_target": 0.1, "q_draft": 0.7}  # the proposal's id stays home
    back = [TokenRecord.from_json(w) for w in wire]
    assert back == [_TOKENS[0], replace(_TOKENS[1], rejected=replace(_PROPOSAL, id=None))]


def test_serve_leaves_the_rejected_proposal_out():
    assert "rejected" not in _TOKENS[1].to_json(with_rejected=False)
    assert _TOKENS[1].to_json(with_rejected=False) == {k: v for k, v in _TOKENS[1].to_json().items() if k != "rejected"}


def test_an_unknown_p_target_is_null_on_the_wire_and_nan_in_memory():
    record = TokenRecord(text="x", origin=TokenOrigin.TARGET)
    assert record.to_json()["p_target"] is None
    assert math.isnan(TokenRecord.from_json(record.to_json()).p_target)


def test_an_older_export_without_id_and_source_reads():
    old = {"text": "Hi", "origin": "bonus", "p_target": 0.5}
    record = TokenRecord.from_json(old)
    assert (record.id, record.source, record.copied_from, record.rejected) == (None, None, None, None)
    assert (record.origin, record.p_target) == (TokenOrigin.BONUS, 0.5)


def test_a_proposal_without_its_probabilities_reads_with_none():
    record = TokenRecord.from_json({"text": "a", "origin": "corrected", "rejected": {"text": "b"}})
    assert record.rejected == RejectedProposal(text="b", p_target=None, q_draft=None)


@pytest.mark.parametrize(
    ("raw", "complaint"),
    [
        ("text", "not an object"),
        ({"origin": "draft"}, "lacks its text"),
        ({"text": 5}, "lacks its text"),
        ({"text": "a", "origin": 3}, "origin that is not text"),
        ({"text": "a", "origin": "psychic"}, "not one of"),
        ({"text": "a", "p_target": "high"}, "p_target that is not a number"),
        ({"text": "a", "p_target": True}, "p_target that is not a number"),
        ({"text": "a", "q_draft": float("inf")}, "q_draft that is not a number"),
        ({"text": "a", "id": "7"}, "id that is not a whole number"),
        ({"text": "a", "source": ["model"]}, "source that is not text"),
        ({"text": "a", "rejected": {"p_target": 0.1}}, "rejected proposal without text"),
        ({"text": "a", "rejected": {"text": "b", "q_draft": "x"}}, "rejected proposal of token 3"),
    ],
)
def test_anything_else_is_refused_in_one_line_naming_the_token(raw, complaint):
    with pytest.raises(ValueError, match=complaint):
        TokenRecord.from_json(raw, "token 3")


def test_an_unknown_origin_can_be_kept_as_text():
    record = TokenRecord.from_json({"text": "a", "origin": "psychic"}, known_origins_only=False)
    assert record.origin == "psychic" and not isinstance(record.origin, TokenOrigin)
    assert record.to_json()["origin"] == "psychic"
