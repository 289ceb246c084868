"""``/v1/responses`` and Anthropic's ``/v1/messages`` on a real ``serve`` of the small pair, by the official clients.

Text, streaming (typed by each client; Anthropic's stream helper assembles its events),
``count_tokens``, stop sequences, the API key as ``x-api-key`` and as a
Bearer token, and refusals in each API's error shape. Greedy sampling, so
each run is the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine

KEY = "sk-test-newer-apis"
# Anthropic's client has no temperature field any more; the server still reads one.
GREEDY: Any = {"temperature": 0}
ASK: Any = [{"role": "user", "content": "Name three colours of the rainbow."}]


@pytest.fixture(scope="module")
def server(small_pair: tuple[Path, Path]) -> Iterator[RunningServer]:
    target, draft = small_pair
    engine = ServerEngine(PairConfig(target, draft, DrafterKind.MODEL, n_ctx=1024, n_threads=1), draft_length=3)
    engine.start()
    running = RunningServer(engine, api_key=KEY).start()
    yield running
    running.stop()


@pytest.fixture
def oai(server: RunningServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key=KEY, max_retries=0, timeout=600)


@pytest.fixture
def claude(server: RunningServer) -> anthropic.Anthropic:
    # Anthropic's client adds /v1 itself; it sends the key as x-api-key.
    return anthropic.Anthropic(base_url=server.url.removesuffix("/v1"), api_key=KEY, max_retries=0, timeout=600)


# -- /v1/responses ----------------------------------------------------------------------------


def test_a_response_has_text_usage_and_every_token_in_tandem(oai: openai.OpenAI) -> None:
    reply = oai.responses.create(
        model="any", instructions="Answer briefly.", input=ASK, max_output_tokens=12, temperature=0
    )
    assert reply.object == "response" and reply.id.startswith("resp_")
    assert reply.output_text.strip()
    assert reply.usage is not None and reply.usage.output_tokens > 0 and reply.usage.input_tokens > 0
    extra = reply.model_extra or {}
    assert len(extra["tandem"]["tokens"]) == reply.usage.output_tokens
    assert "".join(t["text"] for t in extra["tandem"]["tokens"]).strip() == reply.output_text.strip()


def test_a_streamed_response_is_assembled_by_the_client_and_matches_the_whole_one(oai: openai.OpenAI) -> None:
    short = "Reply with one word: yes or no?"  # the small target's greedy answer ends well inside the limit
    whole = oai.responses.create(model="m", input=short, max_output_tokens=30, temperature=0)
    with oai.responses.stream(model="m", input=short, max_output_tokens=30, temperature=0) as stream:
        events = list(stream)
        final = stream.get_final_response()  # the client's own assembly of the events
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert "response.output_item.added" in kinds and "response.output_item.done" in kinds
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == final.output_text == whole.output_text != ""
    assert [e.sequence_number for e in events] == list(range(len(events)))


def test_a_response_cut_by_the_limit_is_incomplete(oai: openai.OpenAI) -> None:
    events = list(oai.responses.create(model="m", input="Say hello.", max_output_tokens=4, temperature=0, stream=True))
    last = events[-1]
    assert last.type == "response.incomplete"
    assert last.response.incomplete_details is not None
    assert last.response.incomplete_details.reason == "max_output_tokens"
    assert last.response.usage is not None and last.response.usage.output_tokens == 4
    # Read raw, the events keep the extension: each token once, on the event its step made (or a later one).
    carried = [t for e in events for t in (e.model_extra or {}).get("tandem", {}).get("tokens", [])]
    assert len(carried) == 4 and all(t["origin"] in ("draft", "corrected", "bonus", "target") for t in carried)


def test_response_logprobs_are_the_targets_own_whole_and_streamed(oai: openai.OpenAI) -> None:
    asked: Any = {"include": ["message.output_text.logprobs"], "top_logprobs": 2}
    short = "Reply with one word: yes or no?"
    whole = oai.responses.create(model="m", input=short, max_output_tokens=8, temperature=0, **asked)
    part = whole.output[0].content[0]  # type: ignore[union-attr]
    assert part.type == "output_text" and part.logprobs is not None
    assert whole.usage is not None and len(part.logprobs) == whole.usage.output_tokens
    assert "".join(e.token for e in part.logprobs) == whole.output_text
    assert all(e.logprob <= 0 and len(e.top_logprobs) == 2 for e in part.logprobs)
    # The same numbers chat completions gives for the same greedy reply: both read the target's distribution.
    chat = oai.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": short}],
        max_tokens=8,
        temperature=0,
        logprobs=True,
        top_logprobs=2,
    )
    chat_entries = chat.choices[0].logprobs.content  # type: ignore[union-attr]
    assert [(e.token, round(e.logprob, 4)) for e in chat_entries] == [  # type: ignore[union-attr]
        (e.token, round(e.logprob, 4)) for e in part.logprobs
    ]
    with oai.responses.stream(model="m", input=short, max_output_tokens=8, temperature=0, **asked) as stream:
        events = list(stream)
        final = stream.get_final_response()
    deltas = [e for e in events if e.type == "response.output_text.delta"]
    done = next(e for e in events if e.type == "response.output_text.done")
    sent = [(lp.token, lp.logprob) for d in deltas for lp in d.logprobs]
    assert sent == [(lp.token, lp.logprob) for lp in done.logprobs] == [(e.token, e.logprob) for e in part.logprobs]
    assert all("".join(lp.token for lp in d.logprobs) == d.delta for d in deltas)  # each delta's own tokens
    streamed_part = final.output[0].content[0]  # type: ignore[union-attr]
    assert [e.token for e in streamed_part.logprobs or []] == [e.token for e in part.logprobs]  # type: ignore[union-attr]
    # top_logprobs alone adds none, as OpenAI answers it; include is what asks.
    plain = oai.responses.create(model="m", input=short, max_output_tokens=8, temperature=0, top_logprobs=2)
    assert plain.output[0].content[0].logprobs == []  # type: ignore[union-attr]


def test_input_items_carry_the_conversation(oai: openai.OpenAI) -> None:
    reply = oai.responses.create(
        model="m",
        input=[
            {"role": "user", "content": [{"type": "input_text", "text": "My name is Ada."}]},
            {"role": "assistant", "content": [{"type": "output_text", "text": "Hello Ada!"}]},
            {"role": "user", "content": "What is my name?"},
        ],
        max_output_tokens=12,
        temperature=0,
    )
    assert reply.usage is not None and reply.usage.input_tokens > 20
    assert reply.output_text.strip()


def test_responses_refusals_name_what_is_unsupported(oai: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="previous_response_id"):
        oai.responses.create(model="m", input="hi", previous_response_id="resp_123")
    with pytest.raises(openai.BadRequestError, match="only function tools"):
        oai.responses.create(model="m", input="hi", tools=[{"type": "web_search"}])
    with pytest.raises(openai.BadRequestError, match="no tool format"):  # the small pair's template has none
        oai.responses.create(
            model="m", input="hi", tools=[{"type": "function", "name": "f", "parameters": {}, "strict": False}]
        )
    bad = openai.OpenAI(base_url=oai.base_url, api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.responses.create(model="m", input="hi")


# -- /v1/messages -----------------------------------------------------------------------------


def test_a_message_has_text_usage_and_tokens(claude: anthropic.Anthropic) -> None:
    reply = claude.messages.create(
        model="any", system="Answer briefly.", messages=ASK, max_tokens=12, extra_body=GREEDY
    )
    assert reply.type == "message" and reply.role == "assistant"
    assert [b.type for b in reply.content] == ["text"]
    assert reply.stop_reason in ("end_turn", "max_tokens")
    assert reply.usage.input_tokens > 0 and reply.usage.output_tokens > 0
    assert len((reply.model_extra or {})["tandem"]["tokens"]) == reply.usage.output_tokens


def test_a_streamed_message_is_assembled_by_the_client_and_matches_the_whole_one(claude: anthropic.Anthropic) -> None:
    ask: Any = [{"role": "user", "content": [{"type": "text", "text": "Say hello."}]}]
    whole = claude.messages.create(model="m", messages=ask, max_tokens=10, extra_body=GREEDY)
    with claude.messages.stream(model="m", messages=ask, max_tokens=10, extra_body=GREEDY) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == final.content[0].text == whole.content[0].text  # type: ignore[union-attr]
    assert final.stop_reason == whole.stop_reason
    assert final.usage.output_tokens == whole.usage.output_tokens


def test_a_stop_sequence_ends_the_message_and_is_named(claude: anthropic.Anthropic) -> None:
    free = claude.messages.create(model="m", messages=ASK, max_tokens=16, extra_body=GREEDY)
    text = free.content[0].text  # type: ignore[union-attr]
    word = text.split()[1]  # a word the greedy reply is known to write
    cut = claude.messages.create(model="m", messages=ASK, max_tokens=16, extra_body=GREEDY, stop_sequences=[word])
    assert cut.stop_reason == "stop_sequence" and cut.stop_sequence == word
    assert word not in cut.content[0].text  # type: ignore[union-attr]


def test_count_tokens_is_the_prompt_the_message_reads(claude: anthropic.Anthropic) -> None:
    counted = claude.messages.count_tokens(model="m", system="Answer briefly.", messages=ASK)
    reply = claude.messages.create(model="m", system="Answer briefly.", messages=ASK, max_tokens=1)
    assert counted.input_tokens == reply.usage.input_tokens > 0


def test_messages_refusals_come_in_anthropics_shape(claude: anthropic.Anthropic, server: RunningServer) -> None:
    with pytest.raises(anthropic.BadRequestError) as missing:
        claude.messages.create(model="m", messages=ASK, max_tokens=None)  # type: ignore[arg-type]
    body: Any = missing.value.body
    assert body == {"type": "error", "error": {"type": "invalid_request_error", "message": "'max_tokens' is required"}}
    with pytest.raises(anthropic.BadRequestError, match="no tool format"):
        claude.messages.create(
            model="m", messages=ASK, max_tokens=4, tools=[{"name": "f", "input_schema": {"type": "object"}}]
        )
    with pytest.raises(anthropic.BadRequestError, match="text only"):
        image: Any = {"type": "image", "source": {"type": "url", "url": "http://example.invalid/a.png"}}
        claude.messages.create(model="m", messages=[{"role": "user", "content": [image]}], max_tokens=4)
    wrong = anthropic.Anthropic(base_url=server.url.removesuffix("/v1"), api_key="wrong", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError) as refused:
        wrong.messages.create(model="m", messages=ASK, max_tokens=4)
    assert refused.value.body["error"]["type"] == "authentication_error"  # type: ignore[index]
