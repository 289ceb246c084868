"""Structured output on the real small pair: JSON schema and JSON mode at T=0.8 with drafting on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.conversation.output_format import OutputFormat, OutputFormatError, OutputKind
from app.core.decoding.constraint import ConstraintError
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.engine.llama.grammar import compile_grammar, grammar_mask
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.reply import ReplyRequest, plan_reply, run_reply

PERSON: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 24},
        "age": {"type": "integer", "minimum": 0, "maximum": 130},
        "city": {"type": "string", "enum": ["Paris", "Lima", "Oslo"]},
    },
    "required": ["name", "age", "city"],
    "additionalProperties": False,
}


def _reply(
    pair: LoadedPair, output: OutputFormat, seed: int, drafter: DrafterKind = DrafterKind.HYBRID
) -> tuple[str, int, FinishReason]:
    settings = ChatSettings(temperature=0.8, seed=seed, max_tokens=96, drafter=drafter, draft_length=4, adaptive=False)
    messages = (Message("user", "Describe a person as JSON: name, age and city."),)
    plan = plan_reply(pair, ReplyRequest(settings, messages, output_format=output))
    events = list(run_reply(pair, plan))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    drafted = sum(e.drafted for e in events if isinstance(e, StepEvent))
    return finished.text, drafted, finished.reason


@pytest.fixture(scope="module")
def pair(small_pair: tuple[Path, Path]) -> Any:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=512, n_threads=1)) as loaded:
        yield loaded


def test_ten_replies_at_t08_with_drafting_all_validate_against_the_schema(pair: LoadedPair) -> None:
    output = OutputFormat(OutputKind.JSON_SCHEMA, PERSON, strict=True)
    drafted = 0
    for seed in range(10):
        text, n_drafted, reason = _reply(pair, output, seed)
        assert reason is FinishReason.EOG, (reason, text)  # the grammar ended the reply, not a limit
        jsonschema.validate(json.loads(text), PERSON)
        drafted += n_drafted
    assert drafted > 0  # the draft model (and lookup) proposed under the grammar


def test_json_mode_gives_an_object(pair: LoadedPair) -> None:
    for seed in range(3):
        text, _, reason = _reply(pair, OutputFormat(OutputKind.JSON_OBJECT), seed, drafter=DrafterKind.MODEL)
        if reason is FinishReason.EOG:
            assert isinstance(json.loads(text), dict)
        else:  # an object may be longer than the limit; what there is still starts as one
            assert text.lstrip().startswith("{")


def test_free_text_is_not_constrained(pair: LoadedPair) -> None:
    settings = ChatSettings(temperature=0, max_tokens=8)
    plan = plan_reply(pair, ReplyRequest(settings, (Message("user", "Say hello."),)))
    assert plan.constraints.grammar is None


def test_a_strict_schema_with_an_unknown_keyword_is_refused_in_one_line(pair: LoadedPair) -> None:
    bad = OutputFormat(OutputKind.JSON_SCHEMA, {"type": "string", "format": "no-such-format"}, strict=True)
    settings = ChatSettings(temperature=0.8, max_tokens=8)
    with pytest.raises(OutputFormatError) as caught:
        plan_reply(pair, ReplyRequest(settings, (Message("user", "x"),), output_format=bad))
    message = str(caught.value)
    assert message.startswith("the JSON schema cannot be used:") and "\n" not in message


def test_rolling_back_past_the_end_of_the_grammar_restores_each_state(pair: LoadedPair) -> None:
    """llguidance keeps no token for the EOS that stops it; the mask keeps the end itself, so rollback stays exact."""
    grammar = compile_grammar(OutputFormat(OutputKind.JSON_OBJECT))
    mask = grammar_mask(pair.target, grammar)
    ids = pair.target.tokenize('{"a": 1}', parse_special=False)
    states = []
    for token in ids:
        states.append(mask.allowed().copy())
        assert states[-1][token]
        mask.consume(token)
    end = mask.allowed().copy()
    eog = int(next(iter(np.flatnonzero(end))))
    assert pair.target.is_eog(eog) and all(pair.target.is_eog(int(t)) for t in np.flatnonzero(end))
    mask.consume(eog)
    mask.consume(eog)  # a draft may run on past its end
    mask.rollback(2)
    assert (mask.allowed() == end).all()
    mask.rollback(1)
    assert (mask.allowed() == states[-1]).all()
    with pytest.raises(ConstraintError):
        mask.consume(ids[0])  # '{"' cannot follow '{"a": 1'


def test_whitespace_between_json_tokens_is_bounded(pair: LoadedPair) -> None:
    """A sampled reply cannot fill its budget with blanks: after a line break and 40 spaces no more are allowed."""
    mask = grammar_mask(pair.target, compile_grammar(OutputFormat(OutputKind.JSON_OBJECT)))
    (brace,) = pair.target.tokenize("{", parse_special=False)
    (newline,) = pair.target.tokenize("\n", parse_special=False)
    (space,) = pair.target.tokenize(" ", parse_special=False)
    mask.consume(brace)
    assert mask.allowed()[newline]
    mask.consume(newline)
    spaces = 0
    while mask.allowed()[space] and spaces < 100:
        mask.consume(space)
        spaces += 1
    assert spaces == 40
    assert not mask.allowed()[newline]  # nor a second line break: one blank run between two tokens
    (quote,) = pair.target.tokenize('"', parse_special=False)
    assert mask.allowed()[quote]  # the object goes on
