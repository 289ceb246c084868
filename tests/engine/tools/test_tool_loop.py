"""The shared tool loop against the real SDK-written test server; the model's replies are scripted.

The loop's policy is what is under test (asking, "always in this chat",
refusals, the call limit, repeated calls, a failing server ending one call),
so each reply the model would write is given as text; the real model's run
through the same loop is the CLI's test (``tests/cli/chat/test_chat_mcp_cli.py``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.chat import Message, Role
from app.core.tools.mcp_config import McpServerConfig
from app.core.tools.records import ToolCall, ToolSpec
from app.core.tools.turns import DENIED_TEXT, Approval, ToolOutcome
from app.engine.tools.mcp_client import McpClient
from app.engine.tools.tool_loop import ToolLoop, enabled_tools

SERVER = Path(__file__).with_name("mcp_test_server.py")


def call_text(name: str, **arguments: object) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


class Script:
    """The model's replies in order; what each reply was given is kept."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.seen: list[tuple[tuple[Message, ...], tuple[ToolSpec, ...]]] = []

    def __call__(self, messages: tuple[Message, ...], tools: tuple[ToolSpec, ...]) -> str:
        self.seen.append((messages, tools))
        return self.replies.pop(0)


@pytest.fixture(scope="module")
def client() -> Iterator[McpClient]:
    with McpClient([McpServerConfig("test", sys.executable, (str(SERVER),))], call_timeout=3) as running:
        yield running


@pytest.fixture(scope="module")
def tools(client: McpClient) -> tuple[ToolSpec, ...]:
    return client.list_tools()


def asking(*answers: Approval) -> tuple[list[ToolCall], object]:
    asked: list[ToolCall] = []
    queue = list(answers)

    def approve(call: ToolCall) -> Approval:
        asked.append(call)
        return queue.pop(0)

    return asked, approve


def test_an_allowed_call_runs_and_its_result_goes_back_to_the_model(client, tools) -> None:
    asked, approve = asking(Approval.ALLOW_ONCE)
    calls, outcomes = [], []
    loop = ToolLoop(client, tools, approve, on_calls=lambda t, c: calls.append(c), on_outcome=outcomes.append)
    script = Script(call_text("add", a=2, b=40), "The sum is 42.")
    end = loop.run([Message(Role.USER, "2 + 40?")], script)
    assert end.text == "The sum is 42." and [c.name for c in asked] == ["add"]
    (outcome,) = end.outcomes
    assert outcome.approval is Approval.ALLOW_ONCE and outcome.result.text == "42" and not outcome.result.is_error
    assert outcomes == [outcome] and calls == [(outcome.call,)]
    second_prompt = script.seen[1][0]
    assert [m.role for m in second_prompt] == ["user", "assistant", "tool"]
    assert second_prompt[1].tool_calls == (outcome.call,)
    assert (second_prompt[2].content, second_prompt[2].tool_call_id) == ("42", outcome.call.id)


def test_always_in_this_chat_asks_once_and_a_denied_call_never_runs(client, tools) -> None:
    asked, approve = asking(Approval.ALWAYS_IN_CHAT, Approval.DENY)
    loop = ToolLoop(client, tools, approve, max_calls=8)
    script = Script(call_text("add", a=1, b=1), call_text("add", a=2, b=2), call_text("crash"), "done")
    end = loop.run([Message(Role.USER, "go")], script)
    assert [c.name for c in asked] == ["add", "crash"]  # the second add was not asked about
    assert [(o.approval, o.result.text) for o in end.outcomes] == [
        (Approval.ALWAYS_IN_CHAT, "2"),
        (Approval.ALWAYS_IN_CHAT, "4"),
        (Approval.DENY, DENIED_TEXT),
    ]
    assert end.outcomes[2].result.is_error and loop.always == {"add"}
    assert client.call(ToolCall("c", "add", '{"a": 5, "b": 5}')).text == "10"  # crash did not run


def test_after_max_calls_and_on_a_repeated_call_the_model_must_answer(client, tools) -> None:
    loop = ToolLoop(client, tools, lambda _c: Approval.ALLOW_ONCE, max_calls=1)
    script = Script(call_text("add", a=1, b=2), "three")
    assert loop.run([Message(Role.USER, "1+2")], script).text == "three"
    assert script.seen[0][1] == tools and script.seen[1][1] == ()
    again = ToolLoop(client, tools, lambda _c: Approval.ALLOW_ONCE, max_calls=5)
    repeat = Script(call_text("add", a=1, b=2), call_text("add", b=2, a=1), "three")
    end = again.run([Message(Role.USER, "1+2")], repeat)
    assert len(end.outcomes) == 1 and repeat.seen[2][1] == ()  # the repeat (keys swapped) was not run again


def test_a_hanging_server_ends_that_call_with_a_line_and_the_reply_goes_on(client, tools) -> None:
    loop = ToolLoop(client, tools, lambda _c: Approval.ALLOW_ONCE)
    end = loop.run([Message(Role.USER, "hang")], Script(call_text("hang"), "it did not answer"))
    (outcome,) = end.outcomes
    assert (
        outcome.result.is_error and outcome.result.text == "MCP tool 'hang' (server 'test') did not answer within 3 s"
    )
    assert end.text == "it did not answer"


def test_tools_a_chat_switched_off_are_not_offered(tools) -> None:
    kept = enabled_tools(tools, {"hang", "crash"})
    assert {"hang", "crash"}.isdisjoint(t.name for t in kept) and len(kept) == len(tools) - 2


def test_an_outcome_reads_back_from_its_stored_meta() -> None:
    from app.core.tools.records import ToolResult

    outcome = ToolOutcome(ToolCall("call_9", "echo", '{"text": "x"}'), Approval.DENY, ToolResult("call_9", "no", True))
    assert ToolOutcome.from_message("no", json.loads(json.dumps(outcome.to_meta()))) == outcome
