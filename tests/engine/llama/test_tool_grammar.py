"""Tool calls held to their schema on the real demo pair (Qwen2.5, Hermes): the mask, and replies drafted under it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.reply.plan import PromptPolicy
from app.core.tools.call_stream import ToolFormat
from app.core.tools.hermes import CLOSE, HERMES, OPEN
from app.core.tools.reader import read_reply
from app.core.tools.records import ToolSpec
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.llama.tool_grammar import ToolGrammar, call_mask, plan_tool_grammar
from app.engine.reply import ReplyRequest, plan_reply, run_reply

pytestmark = pytest.mark.model

FORECAST: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "enum": ["Oslo", "Lima", "Perth"]},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}
TOOLS = (
    ToolSpec(name="get_forecast", description="The weather forecast for a city", parameters=FORECAST),
    ToolSpec(name="harbour_clock", description="The time in a port", parameters={"type": "object"}),
)


@pytest.fixture(scope="module")
def pair(demo_pair: tuple[Path, Path]) -> Iterator[LoadedPair]:
    target, draft = demo_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=1024, n_threads=2)) as loaded:
        yield loaded


def _specials(pair: LoadedPair) -> list[tuple[str, int]]:
    return [*pair.template.specials(), *pair.template.guarded()]


@pytest.fixture(scope="module")
def plan(pair: LoadedPair) -> ToolGrammar:
    planned = plan_tool_grammar(pair.target, HERMES, TOOLS, _specials(pair))
    assert planned is not None
    return planned


def _allowed_through(pair: LoadedPair, plan: ToolGrammar, tokens: list[int]) -> int:
    """How many of ``tokens`` the reply's call mask takes in a row."""
    mask = call_mask(pair.target, plan)
    assert mask is not None
    for n, token in enumerate(tokens):
        if not mask.allowed()[token]:
            return n
        mask.consume(token)
    return len(tokens)


def _ids(pair: LoadedPair, text: str) -> int:
    return dict(_specials(pair))[text]


def test_the_template_is_hermes_and_a_call_is_held_from_its_opener_to_its_closer(
    pair: LoadedPair, plan: ToolGrammar
) -> None:
    assert pair.template.tool_format is ToolFormat.HERMES
    opener, closer = _ids(pair, OPEN), _ids(pair, CLOSE)
    body = pair.template.plain_tokens('\n{"name": "get_forecast", "arguments": {"city": "Oslo", "days": 3}}\n')
    text = pair.template.plain_tokens("Let me check. ")
    call = [opener, *body, closer]
    assert _allowed_through(pair, plan, text + call + text) == len(text + call + text)  # free text after it again
    for wrong in (
        '\n{"name": "delete_everything", "arguments": {}}\n',  # not an offered tool
        '\n{"name": "get_forecast", "arguments": {"city": "Paris", "days": 3}}\n',  # not in the enum
        '\n{"name": "get_forecast", "arguments": {"city": "Oslo", "days": "3"}}\n',  # not an integer
    ):
        tokens = [opener, *pair.template.plain_tokens(wrong), closer]
        assert _allowed_through(pair, plan, tokens) < len(tokens), wrong
    assert not np.all(_mask_after(pair, plan, [opener]))  # inside a call, not every token is allowed


def _mask_after(pair: LoadedPair, plan: ToolGrammar, tokens: list[int]) -> Any:
    mask = call_mask(pair.target, plan)
    assert mask is not None
    for token in tokens:
        mask.consume(token)
    return mask.allowed()


def test_required_calls_drafted_at_t08_all_keep_to_the_tools_schema(pair: LoadedPair) -> None:
    messages = (Message("user", "What will the weather be in Lima over the next few days?"),)
    prefix = HERMES.steer(None)
    drafted = 0
    for seed in range(2):
        settings = ChatSettings(
            temperature=0.8, seed=seed, max_tokens=48, drafter=DrafterKind.HYBRID, draft_length=4, adaptive=False
        )
        request = ReplyRequest(settings, messages, PromptPolicy.REFUSE, tools=TOOLS, reply_prefix=prefix)
        plan = plan_reply(pair, request)
        assert plan.constraints.tool_calls is not None and plan.constraints.tool_calls.inside
        events = list(run_reply(pair, plan))
        finished = events[-1]
        assert isinstance(finished, FinishedEvent)
        drafted += sum(e.drafted for e in events if isinstance(e, StepEvent))
        (call,) = read_reply(prefix + finished.text, dialect=HERMES).calls[:1] or [None]
        assert call is not None, finished.text
        spec = next(t for t in TOOLS if t.name == call.name)
        jsonschema.validate(json.loads(call.arguments), spec.parameters)
    assert drafted > 0  # the draft model proposed under the call's grammar
