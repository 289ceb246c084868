"""ChatSettings: a round trip through its dict, tolerant reading of anything stored, and a reply's provenance."""

from __future__ import annotations

import json
import math

import pytest

from app.core.conversation.chat_settings import SAMPLING_FIELDS, ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.sampling import SamplingParams


def test_round_trip_through_json_keeps_every_field():
    settings = ChatSettings(
        system_prompt="Réponds en français 🎉",
        temperature=0.7,
        top_k=20,
        top_p=0.9,
        min_p=0.0,
        repeat_penalty=1.1,
        seed=1234,
        max_tokens=64,
        drafter=DrafterKind.NGRAM,
        draft_length=6,
        adaptive=False,
    )
    assert ChatSettings.from_dict(json.loads(json.dumps(settings.to_dict()))) == settings
    assert set(settings.to_dict()) == {f for f in ChatSettings.__dataclass_fields__}


@pytest.mark.parametrize(
    ("stored", "field", "expected"),
    [
        ({"temperature": -1.0}, "temperature", 0.8),
        ({"temperature": math.nan}, "temperature", 0.8),
        ({"temperature": "hot"}, "temperature", 0.8),
        ({"temperature": 1}, "temperature", 1.0),  # an int is a fine float
        ({"top_k": 2.5}, "top_k", 40),
        ({"top_k": True}, "top_k", 40),  # a bool is not a count
        ({"temperature": 2.5}, "temperature", 0.8),  # above the one range (0..2): an old Tandem allowed 100
        ({"top_p": -0.5}, "top_p", 0.95),
        ({"top_p": 0.0}, "top_p", 0.0),  # the closed end: only the best token
        ({"min_p": 1.5}, "min_p", 0.05),
        ({"repeat_penalty": 0}, "repeat_penalty", 1.0),
        ({"repeat_penalty": 50.0}, "repeat_penalty", 1.0),
        ({"seed": -2}, "seed", -1),
        ({"seed": 2**63}, "seed", -1),
        ({"max_tokens": 0}, "max_tokens", 512),
        ({"max_tokens": 10**7}, "max_tokens", 512),
        ({"max_tokens": 99.0}, "max_tokens", 512),  # a float is not a count
        ({"drafter": "speculative"}, "drafter", DrafterKind.HYBRID),
        ({"drafter": ["ngram"]}, "drafter", DrafterKind.HYBRID),
        ({"draft_length": 0}, "draft_length", 4),
        ({"draft_length": 1000}, "draft_length", 4),
        ({"adaptive": "yes"}, "adaptive", True),
        ({"system_prompt": None}, "system_prompt", ""),
        ({"system_prompt": ["x"]}, "system_prompt", ""),
    ],
)
def test_bad_stored_values_fall_back_to_defaults_one_by_one(stored, field, expected):
    settings = ChatSettings.from_dict({"max_tokens": 99, **stored, "unknown_key": object()})
    assert getattr(settings, field) == expected
    if field != "max_tokens":
        assert settings.max_tokens == 99  # the good value beside it is kept


def test_the_drafter_is_a_kind_stored_as_its_name():
    settings = ChatSettings.from_dict({"drafter": "ngram"})  # as every Tandem has written it
    assert settings.drafter is DrafterKind.NGRAM
    stored = settings.to_dict()["drafter"]
    assert type(stored) is str and stored == "ngram"
    assert json.dumps(settings.to_dict()).count('"drafter": "ngram"') == 1
    with pytest.raises(ValueError, match="drafter"):
        ChatSettings(drafter="ngram")  # the text is read by from_dict, not taken as it is


@pytest.mark.parametrize("stored", [None, [], "text", 3, {}])
def test_anything_that_is_not_a_dict_reads_as_defaults(stored):
    assert ChatSettings.from_dict(stored) == ChatSettings()


def test_defaults_and_ranges_are_the_sampling_fields():
    defaults = ChatSettings()
    for spec in SAMPLING_FIELDS:
        assert getattr(defaults, spec.name) == spec.default
        for edge in (spec.minimum, spec.maximum):
            assert getattr(ChatSettings.from_dict({spec.name: edge}), spec.name) == edge
            ChatSettings(**{spec.name: edge})
        step = 1 if spec.kind == "int" else 0.001
        assert getattr(ChatSettings.from_dict({spec.name: spec.maximum + step}), spec.name) == spec.default
        with pytest.raises(ValueError, match=f"^{spec.name} must be"):
            ChatSettings(**{spec.name: spec.maximum + step})


def test_an_old_database_row_with_every_field_out_of_range_still_opens():
    stored = {"temperature": 50.0, "top_k": -3, "top_p": 7, "min_p": -1, "repeat_penalty": 99.0, "seed": "x"}
    assert ChatSettings.from_dict({**stored, "max_tokens": 2**70, "draft_length": 4}) == ChatSettings()


def test_constructor_refuses_what_from_dict_repairs():
    with pytest.raises(ValueError, match="top_p"):
        ChatSettings(top_p=2.0)
    with pytest.raises(ValueError, match="drafter"):
        ChatSettings().with_changes(drafter="psychic")


def test_sampling_params_and_seed():
    assert ChatSettings(temperature=0.5, top_k=7, seed=-1).sampling_params() == SamplingParams(0.5, 7, 0.95, 0.05)
    assert ChatSettings(seed=42).sampling_params().seed == 42
