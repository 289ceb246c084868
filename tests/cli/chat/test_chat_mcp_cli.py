"""`tandem chat --mcp CONFIG`: the real demo pair calls a tool of a real MCP server (the SDK-written test server).

Greedy sampling, so each run is the same. The weather tool's reading is
unusual (37 °C, purple hail), so an answer that states it can only have come
from the tool. Usage errors are one line before any model or server starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.conversation.chat_settings import ChatSettings
from app.core.tools.reader import call_attempt
from app.core.tools.turns import Approval, ToolNote, ToolOutcome
from app.engine.store.conversations import ChatStore
from tests.cli.helpers import ROOT, one_line_error, run_cli
from tests.engine.tools.hostile_http import HostileServer
from tests.engine.tools.processes import ended_within

SERVER = ROOT / "tests" / "engine" / "tools" / "mcp_test_server.py"
HOSTILE = SERVER.with_name("hostile_mcp_server.py")
ASK = "What is the weather in Paris right now?"


def write_config(tmp_path: Path) -> Path:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"test": {"command": sys.executable, "args": [str(SERVER)]}}}))
    return config


def pair_args(pair: tuple[Path, Path]) -> list[str]:
    return ["--target", str(pair[0]), "--draft", str(pair[1]), "--ctx", "2048", "--threads", "1"]


@pytest.mark.slow
def test_allowed_call_runs_its_result_goes_back_and_the_answer_uses_it(
    demo_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    config = write_config(tmp_path)
    args = [*pair_args(demo_pair), "--temperature", "0", "--max-tokens", "80", "--json"]
    result = run_cli("chat", *args, "--mcp", str(config), "--allow-tools", ASK)
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    (call,) = reply["tool_calls"]
    assert call["name"] == "weather" and json.loads(call["arguments"])["city"].lower().startswith("paris")
    assert call["allowed"] and not call["is_error"] and "purple hail" in call["result"]
    assert "37" in reply["text"]
    # Shown on stderr: the server's command before it starts, then the call with its arguments and its result.
    assert f"starting MCP server 'test': {sys.executable} {SERVER}" in result.stderr
    assert 'tool call: weather {"city": "Paris"}' in result.stderr
    assert "  result: " in result.stderr and "[y/N]" not in result.stderr  # --allow-tools: never asked


@pytest.mark.slow
def test_the_servers_environment_is_shown_masked_and_its_grandchild_ends_with_the_run(
    demo_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    secret = "sk-live-" + "7" * 40
    pid_file = tmp_path / "grandchild.pid"
    config = tmp_path / "mcp.json"
    env = {"API_KEY": secret, "TZ": "UTC", "TANDEM_TEST_PID_FILE": str(pid_file)}
    entry = {"command": sys.executable, "args": [str(HOSTILE), "fork"], "env": env}  # forks a sleeping grandchild
    config.write_text(json.dumps({"mcpServers": {"forks": entry}}))
    result = run_cli("chat", *pair_args(demo_pair), "--max-tokens", "1", "--mcp", str(config), "--allow-tools", "Hi")
    assert result.returncode == 0, result.stderr
    (shown,) = [line for line in result.stderr.splitlines() if line.startswith("starting MCP server 'forks': ")]
    assert " API_KEY=•••••••• " in shown and " TZ=UTC " in shown and "TANDEM_TEST_PID_FILE=" in shown
    assert shown.endswith(f" {sys.executable} {HOSTILE} fork")
    assert secret not in result.stderr + result.stdout
    assert ended_within(int(pid_file.read_text(encoding="utf-8")), 60)  # the run is over: so is the server's group


@pytest.mark.slow
def test_a_remote_server_is_shown_by_its_address_its_key_masked_and_sent(
    demo_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    token = "sk-remote-" + "6" * 30
    served = HostileServer("hang")  # speaks streamable HTTP on a thread of this test
    try:
        config = tmp_path / "mcp.json"
        entry = {"url": served.url, "headers": {"Authorization": f"Bearer {token}"}}
        config.write_text(json.dumps({"mcpServers": {"web": entry}}))
        args = [*pair_args(demo_pair), "--max-tokens", "1", "--mcp", str(config), "--allow-tools", "Hi"]
        result = run_cli("chat", *args)
    finally:
        served.close()
    assert result.returncode == 0, result.stderr
    assert f"connecting to MCP server 'web': {served.url} (Authorization: ••••••••)" in result.stderr.splitlines()
    assert token not in result.stderr + result.stdout
    assert served.seen and all(h.get("Authorization") == f"Bearer {token}" for h in served.seen)


@pytest.mark.slow
def test_a_call_the_user_denies_does_not_run_and_the_model_is_told(
    demo_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    config = write_config(tmp_path)
    args = [*pair_args(demo_pair), "--temperature", "0", "--max-tokens", "80", "--json", "--mcp", str(config)]
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "chat", *args, ASK],
        input="n\n" * 8,  # an answer for every call it may make (--max-tool-calls' default is 4)
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "run weather? [y/N]" in result.stderr
    reply = json.loads(result.stdout)
    calls = reply["tool_calls"]
    assert calls and calls[0]["name"] == "weather"
    # Denied, the model may try again in other words: each try is asked about, and none runs.
    assert result.stderr.count("[y/N]") == len(calls) <= 4
    assert all(not c["allowed"] and c["is_error"] and c["result"] == "the user did not allow this call" for c in calls)
    assert "purple hail" not in reply["text"] and "37" not in reply["text"]


@pytest.mark.slow
def test_with_chat_the_call_and_its_result_are_stored_in_that_chat(
    demo_pair: tuple[Path, Path], tmp_path: Path, data_dir: Path
) -> None:
    config = write_config(tmp_path)
    store = ChatStore(data_dir / "conversations.sqlite3")
    try:
        cid = store.create_conversation("Trip", ChatSettings(temperature=0.0, max_tokens=80).to_dict())
    finally:
        store.close()
    args = [*pair_args(demo_pair), "--json", "--mcp", str(config), "--allow-tools", "--chat", str(cid)]
    result = run_cli("chat", *args, ASK, data=data_dir)
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    (call,) = reply["tool_calls"]
    assert call["name"] == "weather" and "purple hail" in call["result"] and "37" in reply["text"]
    store = ChatStore(data_dir / "conversations.sqlite3", read_only=True)
    try:
        branch = store.messages(cid, with_tokens=False)
        assert [str(m.role) for m in branch] == ["user", "assistant", "tool", "assistant"]
        assert branch[0].id == reply["user_message_id"] and branch[-1].id == reply["reply_message_id"]
        (stored_call,) = branch[1].meta["tool_calls"]
        assert stored_call["function"]["name"] == "weather" and "produced_by" in branch[1].meta
        outcome = ToolOutcome.from_message(branch[2].content, branch[2].meta)
        assert outcome is not None and outcome.approval is Approval.ALLOW_ONCE and "purple hail" in branch[2].content
        assert outcome.call.id == stored_call["id"] and "37" in branch[3].content
        assert any(h.role == "tool" and h.conversation_id == cid for h in store.search("purple hail"))
    finally:
        store.close()
    shown = run_cli("chats", "show", str(cid), "--json", data=data_dir)
    listed = json.loads(shown.stdout)["messages"]
    assert listed[2]["role"] == "tool" and listed[2]["meta"]["tool_result"]["call"]["function"]["name"] == "weather"


HARBOUR = "What time is it in the harbour of Hamburg right now?"
REPEATED = "the model asked for harbour_clock again with the same arguments; not run twice, answered without tools"


def _answer_or_its_line(text: str, note: dict | None) -> None:
    """The final text is an answer from the tool's reading, or the line about a call not run; never a raw call."""
    assert not call_attempt(text) and '"name"' not in text, text
    if note is None:
        assert "04:17" in text, text
    else:
        said = ToolNote.from_meta({"tool_note": note})
        assert said is not None and text == str(said.words()) == REPEATED, (text, note)


@pytest.mark.slow
def test_a_call_repeated_after_its_result_ends_in_words_never_in_the_raw_call(
    demo_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    # Greedy, the demo pair answers the harbour clock's reading by calling it again (as the issue saw):
    # the loop says so once and the answer is that line, not the call's JSON.
    config = write_config(tmp_path)
    args = [*pair_args(demo_pair), "--temperature", "0", "--max-tokens", "60", "--json"]
    result = run_cli("chat", *args, "--mcp", str(config), "--allow-tools", HARBOUR)
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    calls = reply["tool_calls"]
    assert calls and calls[0]["name"] == "harbour_clock" and "04:17" in calls[0]["result"]
    _answer_or_its_line(reply["text"], reply.get("tool_note"))
    assert result.stderr.count("note: ") == (1 if "tool_note" in reply else 0), result.stderr


@pytest.mark.slow
def test_with_chat_the_line_is_the_printed_answer_and_kept_on_the_stored_reply(
    demo_pair: tuple[Path, Path], tmp_path: Path, data_dir: Path
) -> None:
    config = write_config(tmp_path)
    store = ChatStore(data_dir / "conversations.sqlite3")
    try:
        cid = store.create_conversation("Harbour", ChatSettings(temperature=0.0, max_tokens=60).to_dict())
    finally:
        store.close()
    args = [*pair_args(demo_pair), "--mcp", str(config), "--allow-tools", "--chat", str(cid)]
    result = run_cli("chat", *args, HARBOUR, data=data_dir)
    assert result.returncode == 0, result.stderr
    printed = result.stdout.split("\n\nlegend:")[0]  # the answer, before the legend and statistics
    store = ChatStore(data_dir / "conversations.sqlite3", read_only=True)
    try:
        final = store.messages(cid, with_tokens=False)[-1]
    finally:
        store.close()
    note = final.meta.get("tool_note")
    _answer_or_its_line(printed, note)
    if note is not None:
        assert call_attempt(final.content)  # stored as the model wrote it; the window shows the line in its place


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--allow-tools"], ("--allow-tools only means something with --mcp",)),
        (["--mcp", "{config}", "--remote", "http://127.0.0.1:9"], ("--mcp works with the local pair",)),
        (["--mcp", "{config}", "--chat", "1"], ("no chat with id 1",)),
        (["--mcp", "{missing}"], ("cannot read the MCP configuration",)),
        (["--mcp", "{bad}"], ('has no "mcpServers" object',)),
    ],
)
def test_usage_errors_are_one_line(tmp_path: Path, extra: list[str], words: tuple[str, ...]) -> None:
    config = write_config(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"servers": {}}')
    paths = {"{config}": str(config), "{missing}": str(tmp_path / "nope.json"), "{bad}": str(bad)}
    result = run_cli("chat", *[paths.get(a, a) for a in extra], "hi", data=tmp_path / "data")
    one_line_error(result, *words)
