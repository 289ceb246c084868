"""What a reply records of its attachments and copied tokens: provenance uses and the token's copied_from."""

from __future__ import annotations

import pytest

from app.core.attachments.record import AttachmentUse
from app.core.decoding.events import TokenOrigin
from app.core.reply.record import Provenance, ReplyRecord
from app.core.reply.token_record import TokenRecord


def _provenance(*uses: AttachmentUse) -> Provenance:
    return Provenance("t.gguf", None, "ngram", "fixed 4", None, attachments=uses)


def test_attachment_uses_survive_the_stored_form() -> None:
    uses = (
        AttachmentUse("notes.txt", "a" * 64, True, (), 120),
        AttachmentUse("report.pdf", "b" * 64, False, ("report.pdf, p. 3", "report.pdf, p. 7"), 900),
        AttachmentUse("big.txt", "c" * 64, False, (), 0, left_out=True),
    )
    record = ReplyRecord(produced_by=_provenance(*uses))
    again = ReplyRecord.from_meta(record.to_meta())
    assert again.produced_by is not None
    assert again.produced_by.attachments == uses
    assert record.to_meta()["produced_by"]["attachments"][1]["chunks"] == ["report.pdf, p. 3", "report.pdf, p. 7"]


@pytest.mark.parametrize("raw", [None, "x", 3, [1, "a", {"whole": True}], [{"name": 5}]])
def test_older_or_damaged_metas_read_as_no_attachments(raw: object) -> None:
    meta = {"produced_by": {"target": "t.gguf", "drafter": "none", **({"attachments": raw} if raw else {})}}
    provenance = ReplyRecord.from_meta(meta).produced_by
    assert provenance is not None and provenance.attachments == ()


def test_a_partly_typed_use_keeps_what_it_can() -> None:
    meta = {"produced_by": {"attachments": [{"name": "a.txt", "whole": "yes", "chunks": ["p. 1", 2], "tokens": "x"}]}}
    (use,) = ReplyRecord.from_meta(meta).produced_by.attachments  # type: ignore[union-attr]
    assert use == AttachmentUse("a.txt", "", False, ("p. 1",), 0)


def test_a_copied_token_says_where_from_in_json_and_back() -> None:
    record = TokenRecord(
        id=7,
        text="rate",
        origin=TokenOrigin.DRAFT,
        p_target=0.9,
        q_draft=1.0,
        source="lookup",
        copied_from="report.pdf, p. 3",
    )
    data = record.to_json()
    assert data["copied_from"] == "report.pdf, p. 3"
    back = TokenRecord.from_json(data)
    assert back == record and back.copied_from == "report.pdf, p. 3"
    assert TokenRecord.from_json({"text": "x"}).copied_from is None  # an older file
    with pytest.raises(ValueError, match="copied_from"):
        TokenRecord.from_json({"text": "x", "copied_from": 3})
