"""A reply's typed record: one serialisation each way, tolerant of what older files hold."""

from __future__ import annotations

import json

import pytest

from app.core.decoding.stats import GenerationStats
from app.core.reply.record import Provenance, ReplyRecord, SamplingRecord, stats_record

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
    from app.core.chat_settings import ChatSettings
    from app.core.decoding.sampling import SamplingParams

    params = SamplingParams(temperature=0.7, top_k=20, top_p=0.9, min_p=0.1, repeat_penalty=1.1, seed=5)
    assert SamplingRecord.of(params, 64) == SamplingRecord(0.7, 20, 0.9, 0.1, 1.1, 64)
    settings = ChatSettings.from_sampling(params, max_tokens=64)
    assert settings.sampling_params() == params and settings.max_tokens == 64
    assert ChatSettings.from_sampling(SamplingParams(seed=None)).seed == -1  # None: a fresh seed per reply
