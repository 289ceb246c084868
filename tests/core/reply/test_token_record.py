"""The one JSON spelling of a token, both ways, on hand-built tokens."""

from __future__ import annotations

import json
import math

import pytest

from app.core.decoding.events import EmittedToken, RejectedProposal, StepEvent, StepTimings, TokenOrigin
from app.core.reply.token_record import TokenRecord, step_records


def _step() -> StepEvent:
    tokens = (
        EmittedToken(11, "Hello", TokenOrigin.DRAFT, 0.9, 0.8, "model"),
        EmittedToken(12, " world", TokenOrigin.CORRECTED, 0.6, None),
    )
    rejected = RejectedProposal(id=13, text=" there", position=1, p_target=0.1, q_draft=0.7)
    return StepEvent(
        tokens=tokens, drafted=2, accepted=1, draft_length=2, rejected=rejected, timings=StepTimings(0.0, 0.0, 0.0)
    )


def test_a_step_round_trips_through_json_with_its_rejected_proposal():
    records = step_records(_step())
    assert records[0].rejected is None and records[1].rejected is not None
    wire = json.loads(json.dumps([r.to_json() for r in records]))
    assert wire[0] == {"id": 11, "text": "Hello", "origin": "draft", "p_target": 0.9, "q_draft": 0.8, "source": "model"}
    assert wire[1]["rejected"] == {"text": " there", "p_target": 0.1, "q_draft": 0.7}
    assert [TokenRecord.from_json(w) for w in wire] == records
    assert TokenRecord.from_json(wire[0]).emitted() == _step().tokens[0]


def test_an_unknown_p_target_is_null_on_the_wire_and_nan_in_memory():
    record = TokenRecord("x", TokenOrigin.TARGET)
    assert record.to_json()["p_target"] is None
    assert math.isnan(TokenRecord.from_json(record.to_json()).p_target)


def test_an_older_export_without_id_and_source_reads():
    old = {"text": "Hi", "origin": "bonus", "p_target": 0.5}
    record = TokenRecord.from_json(old)
    assert (record.id, record.source, record.origin) == (None, None, TokenOrigin.BONUS)
    assert record.emitted(unknown_id=-7).id == -7


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
    assert record.origin == "psychic" and record.emitted().origin is TokenOrigin.TARGET
