"""A reply's typed record: one serialisation each way, tolerant of what older files hold."""

from __future__ import annotations

import hashlib
import json

import pytest

from app.core.conversation.output_format import OutputFormat, OutputKind
from app.core.decoding.stats import GenerationStats
from app.core.reply.record import OutputRecord, Provenance, ReplyRecord, SamplingRecord, stats_record

PRODUCED = {
    "target": "t.gguf",
    "draft": "d.gguf",
    "drafter": "model",
    "draft_policy": "adaptive, up to 12",
    "sampling": {
        "temperature": 0.8,
        "top_k": 40,
        "top_p": 0.95,
        "min_p": 0.05,
        "repeat_penalty": 1.0,
        "max_tokens": 64,
    },
    "system_prompt": "Be brief.",
    "seed": 99,
}


def test_provenance_round_trips_through_its_stored_form():
    provenance = Provenance.from_dict(PRODUCED)
    assert provenance is not None
    assert provenance.sampling == SamplingRecord(0.8, 40, 0.95, 0.05, 1.0, 64) and provenance.seed == 99
    assert provenance.to_dict() == PRODUCED
    assert json.loads(json.dumps(provenance.to_dict())) == PRODUCED


def test_a_draft_that_did_not_take_part_is_not_named():
    lookup = Provenance("t", "d.gguf", "ngram", "fixed 4", None)
    assert lookup.draft is None and lookup.to_dict()["draft"] is None


@pytest.mark.parametrize("stored", [None, "text", 3, []])
def test_a_provenance_that_is_not_an_object_reads_as_none(stored):
    assert Provenance.from_dict(stored) is None


def test_mistyped_values_read_as_defaults_never_raise():
    damaged = {"target": 5, "seed": "x", "sampling": {"temperature": "hot", "top_k": True}, "draft_policy": None}
    provenance = Provenance.from_dict(damaged)
    assert provenance is not None
    assert (provenance.target, provenance.seed, provenance.draft_policy) == ("", None, "none")
    assert provenance.sampling == SamplingRecord()  # each bad number fell back to its default
    record = ReplyRecord.from_meta({"stats": "many", "adaptive": "yes", "continued": 2.5, "prompt_tokens": True})
    assert record.stats is None and not record.adaptive and record.continued == 0 and record.prompt_tokens is None


def test_reply_record_round_trips_and_keeps_keys_it_does_not_know():
    meta = {
        "pair": "t + d",
        "drafter": "hybrid",
        "produced_by": PRODUCED,
        "prompt_tokens": 40,
        "prompt_reused": 30,
        "draft_prompt_reused": 29,
        "dropped_messages": 2,
        "adaptive": True,
        "demo_length": 0,
        "continued": 1,
        "stats": {"emitted": 5, "steps": 4, "last_draft_length": 0},
        "finish_reason": "length",
        "continued_at_token": 12,  # the store's own
    }
    record = ReplyRecord.from_meta(meta)
    assert record.to_meta() == meta
    assert record.continuable and record.finished and record.offers_demo()
    assert record.extra == {"continued_at_token": 12}


def test_offers_demo_only_where_the_controller_kept_a_model_draft_off():
    off = {"drafter": "model", "adaptive": True, "stats": {"steps": 3, "last_draft_length": 0}}
    assert ReplyRecord.from_meta(off).offers_demo()
    assert not ReplyRecord.from_meta({**off, "drafter": "ngram"}).offers_demo()
    assert not ReplyRecord.from_meta({**off, "adaptive": False}).offers_demo()
    assert not ReplyRecord.from_meta({**off, "demo_length": 4}).offers_demo()
    assert not ReplyRecord.from_meta({**off, "stats": {"steps": 3, "last_draft_length": 2}}).offers_demo()


def test_stats_record_adds_the_last_draft_length():
    stats = GenerationStats()
    stored = stats_record(stats)
    assert stored["last_draft_length"] == stats.last_draft_length and "emitted" in stored


def test_the_sampling_record_of_a_run_and_settings_from_a_request_agree():
    from app.core.conversation.chat_settings import ChatSettings
    from app.core.decoding.sampling import SamplingParams

    params = SamplingParams(temperature=0.7, top_k=20, top_p=0.9, min_p=0.1, repeat_penalty=1.1, seed=5)
    assert SamplingRecord.of(params, 64) == SamplingRecord(0.7, 20, 0.9, 0.1, 1.1, 64)
    settings = ChatSettings.from_sampling(params, max_tokens=64)
    assert settings.sampling_params() == params and settings.max_tokens == 64
    assert ChatSettings.from_sampling(SamplingParams(seed=None)).seed == -1  # None: a fresh seed per reply


SCHEMA = {"type": "object", "properties": {"naïve": {"type": "string"}, "a": {"type": "integer"}}}
# The SHA-256 of SCHEMA's canonical JSON, spelled out here so that a change to the canonical form fails this test.
SCHEMA_CANONICAL = '{"properties":{"a":{"type":"integer"},"naïve":{"type":"string"}},"type":"object"}'


def test_a_schema_is_recorded_by_name_and_the_sha256_of_its_canonical_json():
    expected = hashlib.sha256(SCHEMA_CANONICAL.encode("utf-8")).hexdigest()
    reordered = {"properties": {"a": {"type": "integer"}, "naïve": {"type": "string"}}, "type": "object"}
    for schema in (SCHEMA, reordered):  # the same schema in another key order is the same schema
        record = OutputRecord.of(OutputFormat(OutputKind.JSON_SCHEMA, schema, strict=True, name="thing"))
        assert record == OutputRecord(OutputKind.JSON_SCHEMA, "thing", expected, True)
    other = OutputRecord.of(OutputFormat(OutputKind.JSON_SCHEMA, {**SCHEMA, "required": ["a"]}, name="thing"))
    assert other is not None and other.sha256 != expected and not other.strict
    assert OutputRecord.of(OutputFormat(OutputKind.JSON_OBJECT)) == OutputRecord(OutputKind.JSON_OBJECT)
    assert OutputRecord.of(OutputFormat()) is None


def test_the_output_format_round_trips_in_the_provenance_and_older_rows_read_as_free_text():
    sha = "ab" * 32
    schema_stored = {"kind": "json_schema", "name": "thing", "sha256": sha, "strict": True}
    for record, stored in (
        (OutputRecord(OutputKind.JSON_SCHEMA, "thing", sha, True), schema_stored),
        (OutputRecord(OutputKind.JSON_OBJECT), {"kind": "json_object"}),
    ):
        provenance = Provenance("t", None, "none", "none", None, output_format=record)
        data = json.loads(json.dumps(provenance.to_dict()))
        assert data["output_format"] == stored
        assert Provenance.from_dict(data) == provenance
        meta = ReplyRecord(produced_by=provenance).to_meta()
        assert ReplyRecord.from_meta(json.loads(json.dumps(meta))).produced_by == provenance
    older = Provenance.from_dict(PRODUCED)  # a row from before the format was recorded
    assert older is not None and older.output_format is None and "output_format" not in older.to_dict()


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("json_object", None),
        ({"kind": "text"}, None),
        ({"kind": "yaml"}, None),
        (
            {"kind": "json_schema", "name": 3, "sha256": "not-a-hash", "strict": "yes"},
            OutputRecord(OutputKind.JSON_SCHEMA),
        ),
        ({"kind": "json_schema", "sha256": "AB" * 32}, OutputRecord(OutputKind.JSON_SCHEMA)),
    ],
)
def test_a_damaged_output_format_reads_tolerantly(stored: object, expected: OutputRecord | None):
    provenance = Provenance.from_dict({**PRODUCED, "output_format": stored})
    assert provenance is not None and provenance.output_format == expected


def test_the_output_format_in_words():
    sha = "0123456789abcdef" * 4
    assert OutputRecord(OutputKind.JSON_OBJECT).words() == "JSON object (JSON mode)"
    named = OutputRecord(OutputKind.JSON_SCHEMA, "thing", sha, True).words()
    assert named == "JSON schema “thing”, strict, SHA-256 0123456789abcdef…"
    assert OutputRecord(OutputKind.JSON_SCHEMA).words() == "JSON schema (unnamed), SHA-256 not recorded"


def test_a_reasoning_reply_keeps_where_its_block_opened_and_how_long_it_took():
    record = ReplyRecord(pair="t", reasoning_inside=True, thinking_seconds=3.5)
    meta = json.loads(json.dumps(record.to_meta()))  # as the store keeps it
    assert meta["reasoning_inside"] is True and meta["thinking_seconds"] == 3.5
    assert ReplyRecord.from_meta(meta) == record
    plain = ReplyRecord(pair="t").to_meta()
    assert "reasoning_inside" not in plain and "thinking_seconds" not in plain  # stored as before
    older = ReplyRecord.from_meta({"pair": "t"})
    assert not older.reasoning_inside and older.thinking_seconds is None
    for bad in ("3", -1, float("nan"), True, None, [2]):
        odd = ReplyRecord.from_meta({"reasoning_inside": "yes", "thinking_seconds": bad})
        assert odd.thinking_seconds is None and not odd.reasoning_inside
        assert "thinking_seconds" not in odd.extra
