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

from app.core.conversation.chat import Message, Role
from app.core.tools.call_stream import ToolFormat
from app.core.tools.dialects import dialect_for
from app.core.tools.mcp_config import McpServerConfig
from app.core.tools.records import ToolCall, ToolSpec
from app.core.tools.turns import DENIED_TEXT, Approval, ChatTools, NoteKind, ToolNote, ToolOutcome
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
    notes: list[ToolNote] = []
    again.on_note = notes.append
    end = again.run([Message(Role.USER, "1+2")], repeat)
    assert len(end.outcomes) == 1 and repeat.seen[2][1] == ()  # the repeat (keys swapped) was not run again
    (note,) = notes  # said in words, not a silent second reply
    assert str(note.words()) == (
        "the model asked for add again with the same arguments; not run twice, answered without tools"
    )


def test_a_repeat_written_again_without_tools_is_said_once(client, tools) -> None:
    # What the demo pair does after harbour_clock's result: the call again, then, given no tools, its JSON as text.
    loop = ToolLoop(client, tools, lambda _c: Approval.ALLOW_ONCE)
    notes: list[ToolNote] = []
    loop.on_note = notes.append
    bare = json.dumps({"name": "harbour_clock", "arguments": {"port": "Hamburg"}})
    script = Script(call_text("harbour_clock", port="Hamburg"), call_text("harbour_clock", port="Hamburg"), bare)
    end = loop.run([Message(Role.USER, "What time is it in the harbour of Hamburg?")], script)
    assert len(end.outcomes) == 1 and "04:17" in end.outcomes[0].result.text and script.seen[2][1] == ()
    repeated = ToolNote(kind=NoteKind.REPEATED, names=("harbour_clock",))
    assert notes == [repeated] and end.note == repeated  # said once, though the last reply repeats it too


def test_a_broken_call_after_a_result_ends_in_a_readable_line(client, tools) -> None:
    loop = ToolLoop(client, tools, lambda _c: Approval.ALLOW_ONCE)
    broken = '{{"name": "add", "arguments": {"a": 1, "b": 2}'  # the doubled form, cut short
    end = loop.run([Message(Role.USER, "1+2")], Script(call_text("add", a=1, b=2), broken))
    assert len(end.outcomes) == 1 and end.note is not None
    assert str(end.note.words()) == f"the model answered with a malformed call: {broken}"
    assert ToolNote.from_meta(json.loads(json.dumps(end.note.to_meta()))) == end.note
    plain = ToolLoop(client, tools, lambda _c: Approval.ALLOW_ONCE).run([Message(Role.USER, "hi")], Script("Hello."))
    assert plain.note is None  # a plain answer says nothing more


def test_a_doubled_brace_call_runs(client, tools) -> None:
    loop = ToolLoop(client, tools, lambda _c: Approval.ALLOW_ONCE)
    doubled = '<tool_call>\n{{"name": "add", "arguments": {"a": 20, "b": 22}}}\n</tool_call>'
    end = loop.run([Message(Role.USER, "20+22")], Script(doubled, "42"))
    (outcome,) = end.outcomes
    assert outcome.result.text == "42" and end.text == "42" and end.note is None


def test_a_tool_that_changes_things_is_asked_about_every_time(client, tools) -> None:
    asked, approve = asking(Approval.ALWAYS_IN_CHAT, Approval.ALLOW_ONCE)
    loop = ToolLoop(client, tools, approve)  # type: ignore[arg-type]
    script = Script(call_text("write_note", text="a"), call_text("write_note", text="b"), "written")
    end = loop.run([Message(Role.USER, "note a and b")], script)
    assert [c.name for c in asked] == ["write_note", "write_note"]  # "always" did not stick
    assert [o.approval for o in end.outcomes] == [Approval.ALLOW_ONCE, Approval.ALLOW_ONCE]
    assert "write_note" not in loop.always


def test_a_hanging_server_ends_that_call_with_a_line_and_the_reply_goes_on(client, tools) -> None:
    loop = ToolLoop(client, tools, lambda _c: Approval.ALLOW_ONCE)
    end = loop.run([Message(Role.USER, "hang")], Script(call_text("hang"), "it did not answer"))
    (outcome,) = end.outcomes
    assert (
        outcome.result.is_error and outcome.result.text == "MCP tool 'hang' (server 'test') did not answer within 3 s"
    )
    assert end.text == "it did not answer"


def test_tools_a_chat_switched_off_are_not_offered(tools) -> None:
    older = enabled_tools(tools, ChatTools(on=None, off=frozenset({"hang", "crash"})))  # a chat stored before "on"
    assert {"hang", "crash"}.isdisjoint(t.name for t in older) and len(older) == len(tools) - 2
    assert enabled_tools(tools, ChatTools()) == ()  # a new chat offers nothing unless the user says so
    assert [t.name for t in enabled_tools(tools, ChatTools(on=frozenset({"add"})))] == ["add"]


def test_an_outcome_reads_back_from_its_stored_meta() -> None:
    from app.core.tools.records import ToolResult

    outcome = ToolOutcome(ToolCall("call_9", "echo", '{"text": "x"}'), Approval.DENY, ToolResult("call_9", "no", True))
    assert ToolOutcome.from_message("no", json.loads(json.dumps(outcome.to_meta()))) == outcome


@pytest.mark.parametrize(
    ("fmt", "reply"),
    [
        (
            ToolFormat.XML,
            "<tool_call>\n<function=add>\n<parameter=a>\n20\n</parameter>\n<parameter=b>\n22\n</parameter>\n"
            "</function>\n</tool_call>",
        ),
        (ToolFormat.HARMONY, '<|channel|>commentary to=functions.add <|constrain|>json<|message|>{"a": 20, "b": 22}'),
        (ToolFormat.MISTRAL, '[TOOL_CALLS][{"name": "add", "arguments": {"a": 20, "b": 22}}]'),
        (ToolFormat.LLAMA3, '<|python_tag|>{"name": "add", "parameters": {"a": 20, "b": 22}}'),
    ],
)
def test_a_call_in_the_models_own_dialect_runs(client, tools, fmt: ToolFormat, reply: str) -> None:
    loop = ToolLoop(client, tools, lambda _c: Approval.ALLOW_ONCE, dialect=dialect_for(fmt))
    end = loop.run([Message(Role.USER, "20+22")], Script(reply, "42"))
    (outcome,) = end.outcomes
    assert json.loads(outcome.call.arguments) == {"a": 20, "b": 22}
    assert outcome.result.text == "42" and end.text == "42" and end.note is None
