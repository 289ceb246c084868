"""MCP tools in the window: the SDK-written test server, the Qwen demo pair, the dialogs answered through qtbot.

The real model calls the weather tool (greedy, as the CLI's test does); the
call is asked about, run on a pool thread, stored as a ``tool`` message under
the reply that called, and the model answers from it. A server that hangs
ends that call with its one line and the reply still comes. The start bar,
the dialogs, the folded result, a call not run said in words, and the
chat's on/off choices are tested without a model.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.conversation.chat import MessageState
from app.core.reply.end import ReplyEnd
from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import ToolFormat
from app.core.tools.reader import call_attempt
from app.core.tools.records import ToolCall, ToolResult
from app.core.tools.turns import Approval, ChatTools, NoteKind, ToolNote, ToolOutcome, calls_meta
from app.engine.llama.session import DrafterKind
from app.engine.remote.credentials import CredentialStore
from app.engine.tools.mcp_file import read_mcp_file
from app.ui.chat.controller import Activity
from app.ui.chat.tools.dialogs import ToolCallDialog
from app.ui.chat.tools.flow import TOGGLE
from app.ui.settings.store import TOOL_FORMAT_SETTING, AppSettings
from tests.engine.tools.hostile_http import HostileServer
from tests.ui.chat.mcp_steps import SERVER, choose_config
from tests.ui.helpers import REPLY_TIMEOUT_MS, click_href, load, pair_choice

ASK = "What is the weather in Paris right now?"


def write_config(tmp_path: Path, env: dict[str, str] | None = None) -> Path:
    config = tmp_path / "mcp.json"
    entry: dict[str, object] = {"command": sys.executable, "args": [str(SERVER)]}
    if env:
        entry["env"] = env
    config.write_text(json.dumps({"mcpServers": {"test": entry}}))
    return config


COMMAND = f"{sys.executable} {SERVER}"


def start_allowed(qtbot: QtBot, window, tmp_path: Path) -> None:
    """The test server, its start allowed earlier (as Settings remembers it), configured and its tools listed."""
    flow = window.controller.tool_flow
    config = write_config(tmp_path)
    (server,) = read_mcp_file(config)
    window.app_settings.set_tool_prefs(window.app_settings.tool_prefs().with_started(server))
    flow.set_config(str(config))
    qtbot.waitUntil(lambda: bool(flow.tools), timeout=60_000)


def ask_and_wait(qtbot: QtBot, window, text: str) -> list:
    """Send ``text`` and wait until the tool loop has given its final answer; the branch as stored."""
    controller = window.controller
    window.chat.prompt.setPlainText(text)
    QTest.keyClick(window.chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    def answered() -> bool:
        banner = window.chat.banner
        if banner.isVisible() and banner.text.text():
            # pytest.fail, not assert: waitUntil would take an AssertionError for "not yet" and keep waiting.
            pytest.fail(banner.text.text())
        path = controller.path
        return (
            controller.activity is Activity.IDLE
            and controller.tool_flow._loop is None
            and len(path) >= 4
            and path[-1].role == "assistant"
        )

    qtbot.waitUntil(answered, timeout=REPLY_TIMEOUT_MS * 3)
    return controller.store.messages(controller.conversation_id, with_tokens=False)


def _window_with_tools(qtbot: QtBot, make_window, demo_pair, config: Path, timeout: float = 60.0, max_tokens: int = 80):
    window = make_window()
    panel = window.settings_panel
    panel.temperature.setValue(0.0)
    panel.max_tokens.setValue(max_tokens)
    panel.n_ctx.setValue(2048)
    window.controller.tool_flow.call_timeout = timeout
    load(qtbot, window, pair_choice(demo_pair, DrafterKind.MODEL))
    asked = choose_config(qtbot, window, config)
    return window, asked


def test_a_call_is_asked_about_run_stored_and_answered_from(make_window, demo_pair, tmp_path, qtbot):
    config = write_config(tmp_path)
    window, asked_start = _window_with_tools(qtbot, make_window, demo_pair, config)
    assert COMMAND in asked_start  # the command was shown before the first start, and is remembered
    prefs = window.app_settings.tool_prefs()
    assert prefs.started == (prefs.key_of(read_mcp_file(config)[0]),)
    tool_list = window.settings_panel.chat_tools
    boxes = tool_list.boxes
    assert {"weather", "add", "hang"} <= set(boxes)
    assert not any(box.isChecked() for box in boxes.values())  # a new chat offers no tool
    assert boxes["write_note"].text() == "write_note (writes)" and boxes["weather"].text() == "weather"
    # The gauge counts the tool definitions the prompt will carry: more once the tools are on.
    gauge = window.chat.gauge
    window.chat.prompt.setPlainText(ASK)
    qtbot.waitUntil(lambda: gauge.used > 0, timeout=REPLY_TIMEOUT_MS)
    without_tools = gauge.used
    qtbot.mouseClick(tool_list.all_button, Qt.MouseButton.LeftButton)
    assert all(box.isChecked() for box in boxes.values())
    qtbot.waitUntil(lambda: gauge.used > without_tools + 200, timeout=REPLY_TIMEOUT_MS)
    window.chat.prompt.clear()
    boxes["hang"].click()  # off in this chat
    asked: list[ToolCall] = []
    window.controller.tool_flow.ask = lambda call: asked.append(call) or Approval.ALWAYS_IN_CHAT
    streamed: list[str] = []  # the reply as the view showed it after each step (connected after the controller)
    view = window.chat.view
    window.host.worker.step.connect(lambda _event: streamed.append(view.messages[-1].text if view.messages else ""))
    stored = ask_and_wait(qtbot, window, ASK)
    assert [str(m.role) for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert streamed and not any(call_attempt(text) for text in streamed)  # the call never showed, even streaming
    (call,) = asked
    assert call.name == "weather" and json.loads(call.arguments)["city"].lower().startswith("paris")
    assert stored[1].meta["tool_calls"] == [call.to_openai()]
    outcome = ToolOutcome.from_message(stored[2].content, stored[2].meta)
    assert outcome is not None and outcome.approval is Approval.ALWAYS_IN_CHAT and "purple hail" in outcome.result.text
    assert "37" in stored[3].content
    choices = ChatTools.from_settings(window.controller.store.conversation_settings(window.controller.conversation_id))
    assert choices == ChatTools(on=frozenset(boxes) - {"hang"}, always=frozenset({"weather"}))
    shown = window.chat.view.messages
    assert "called weather" in shown[1].footer and shown[2].header == "weather · result"
    assert "purple hail" in shown[2].text


HARBOUR = "What time is it in the harbour of Hamburg right now?"
REPEATED = "the model asked for harbour_clock again with the same arguments; not run twice, answered without tools"


def test_a_repeated_call_is_said_in_words_and_no_reply_shows_a_raw_call(make_window, demo_pair, tmp_path, qtbot):
    # Greedy, the demo pair answers the harbour clock's reading by calling it again, and, given no tools, by
    # writing the call as text (as the issue saw): each reply reads as an answer or a line, never as call JSON.
    window, _ = _window_with_tools(qtbot, make_window, demo_pair, write_config(tmp_path), max_tokens=60)
    qtbot.mouseClick(window.settings_panel.chat_tools.all_button, Qt.MouseButton.LeftButton)  # as `chat --mcp` offers
    window.controller.tool_flow.ask = lambda call: Approval.ALLOW_ONCE
    stored = ask_and_wait(qtbot, window, HARBOUR)
    assert stored[1].meta["tool_calls"][0]["function"]["name"] == "harbour_clock"
    assert stored[2].role == "tool" and "04:17" in stored[2].content
    shown = window.chat.view.messages
    branch = [(m.id, m.content[:30], m.meta.get("tool_note")) for m in stored]
    branch.append([(v.text[:30], v.footer[:50]) for v in shown])
    branch.append([m.id for m in window.controller.path])
    for message in (m for m in shown if m.role == "assistant"):
        assert not call_attempt(message.text) and '"name"' not in message.text, (message.text, branch)
    notes = {m.id: ToolNote.from_meta(m.meta) for m in stored if m.role == "assistant"}
    repeats = [i for i, m in enumerate(stored) if notes.get(m.id) is not None]
    assert repeats, "the demo pair no longer repeats its call here: nothing was said in words"
    for index in repeats:
        words = shown[index].text + " " + shown[index].footer
        assert REPEATED in words.replace("\\", ""), words
    final = shown[-1].text.replace("\\", "")
    assert final == REPEATED or "04:17" in final, final


def test_a_hanging_server_ends_the_call_with_one_line_and_the_reply_goes_on(make_window, demo_pair, tmp_path, qtbot):
    config = write_config(tmp_path, {"TANDEM_TEST_WEATHER": "hang"})
    # 40 tokens: room for the call (about 25), and what the model says after the error line is not checked.
    window, _ = _window_with_tools(qtbot, make_window, demo_pair, config, timeout=3.0, max_tokens=40)
    window.settings_panel.chat_tools.boxes["weather"].click()  # a new chat offers no tool until one is ticked
    window.controller.tool_flow.ask = lambda call: Approval.ALLOW_ONCE
    stored = ask_and_wait(qtbot, window, ASK)
    assert [str(m.role) for m in stored][:3] == ["user", "assistant", "tool"]
    line = "MCP tool 'weather' (server 'test') did not answer within 3 s"
    assert stored[2].content == line and stored[2].meta["tool_result"]["is_error"]
    # The loop went on to a finished reply (what the small model says then varies: it may even say nothing).
    assert stored[-1].role == "assistant" and stored[-1].state == "done" and "tool_calls" not in stored[-1].meta
    assert window.chat.view.messages[2].header == "weather · error"


def test_a_tool_that_changes_things_offers_no_always(qtbot):
    dialog = ToolCallDialog(ToolCall("call_1", "write_note", '{"text": "x"}'), writes=True)
    qtbot.addWidget(dialog)
    dialog.show()
    assert not dialog.always.isVisible() and dialog.allow_once.isVisible()


def test_the_call_dialog_answers_with_the_button_clicked(qtbot):
    call = ToolCall("call_1", "weather", '{"city": "<|im_end|>Paris"}')
    for button, expected in (("allow_once", Approval.ALLOW_ONCE), ("always", Approval.ALWAYS_IN_CHAT)):
        dialog = ToolCallDialog(call)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.mouseClick(getattr(dialog, button), Qt.MouseButton.LeftButton)
        assert dialog.answer is expected
    dialog = ToolCallDialog(call)
    qtbot.addWidget(dialog)
    assert '"city": "<|im_end|>Paris"' in dialog.arguments.toPlainText()  # the arguments shown as written
    dialog.show()
    dialog.reject()  # closed: denied
    assert dialog.answer is Approval.DENY


def test_a_long_result_is_folded_under_its_call_and_unfolds_on_click(make_window, qtbot):
    window = make_window()
    store = window.controller.store
    cid = store.create_conversation("folded")
    store.add_message(cid, "user", "list it")
    call = ToolCall("call_1", "echo", '{"text": "x"}')
    store.add_message(cid, "assistant", "", meta=calls_meta([call]))
    text = "first line of the result\n" + "\n".join(f"line {n}" for n in range(40))
    outcome = ToolOutcome(call, Approval.ALLOW_ONCE, ToolResult("call_1", text))
    result_id = store.add_message(cid, "tool", text, meta=outcome.to_meta())
    window.controller.open_conversation(cid)
    shown = window.chat.view.messages[2]
    assert "first line of the result" in shown.text and "line 39" not in shown.text
    click_href(window, f"{TOGGLE}?message={result_id}")
    qtbot.waitUntil(lambda: "line 39" in window.chat.view.messages[2].text, timeout=10_000)


def test_a_call_not_run_is_said_in_words_on_its_reply(make_window):
    window = make_window()
    store = window.controller.store
    cid = store.create_conversation("notes")
    store.add_message(cid, "user", "what time is it in the harbour?")
    broken = '{{"name": "harbour_clock", "arguments": {"port": '
    store.add_message(cid, "assistant", broken, meta=ToolNote(kind=NoteKind.MALFORMED, excerpt=broken).to_meta())
    repeat = ToolNote(kind=NoteKind.REPEATED, names=("harbour_clock",))
    store.add_message(cid, "assistant", "It is noon.", meta=repeat.to_meta())
    window.controller.open_conversation(cid)
    shown = window.chat.view.messages
    assert shown[1].text.replace("\\", "") == f"the model answered with a malformed call: {broken}"
    assert shown[1].tokens == []
    assert shown[2].text == "It is noon." and shown[2].footer.startswith(
        "the model asked for harbour_clock again with the same arguments; not run twice"
    )


def test_a_reply_that_called_shows_what_it_said_beside_its_calls_never_their_json(make_window):
    window = make_window()
    store = window.controller.store
    cid = store.create_conversation("called")
    store.add_message(cid, "user", "what time is it in the harbour?")
    call = ToolCall("call_1", "harbour_clock", '{"port": "Hamburg"}')
    for said, written in (
        ("", '```json\n{"name": "harbour_clock", "arguments": {"port": "Hamburg"}}\n```'),
        ("Let me look.", 'Let me look.\n<tool_call>\n{"name": "harbour_clock"}\n</tool_call>'),
    ):
        reply = store.begin_reply(cid, {})
        store.append_tokens(reply, [TokenRecord(text=written, origin="target", p_target=1.0)])
        store.finish_reply(reply, said, MessageState.DONE, calls_meta([call]))  # as the flow stores a reply that called
    window.controller.open_conversation(cid)
    shown = window.chat.view.messages
    assert [(m.text, m.tokens) for m in shown[1:]] == [("", []), ("Let me look.", [])]
    assert all(m.footer.startswith('called harbour_clock {"port": "Hamburg"}') for m in shown[1:])


def test_a_broken_call_after_a_result_ends_in_a_readable_line_on_the_reply(make_window, tmp_path, qtbot):
    window = make_window()
    flow = window.controller.tool_flow
    start_allowed(qtbot, window, tmp_path)
    store = window.controller.store
    cid = store.create_conversation("broken")
    store.add_message(cid, "user", "What is 2 + 40?")
    window.controller.open_conversation(cid)
    qtbot.mouseClick(window.settings_panel.chat_tools.all_button, Qt.MouseButton.LeftButton)
    assert [t.name for t in flow.offered()][:2] == ["add", "weather"]  # the reply about to start is given them
    # The model's reply (as the demo pair writes it after a result): the doubled form, cut short.
    broken = '{{"name": "add", "arguments": {"a": 2, "b": 40}'
    store.add_message(cid, "assistant", broken)
    window.controller.reload()
    flow.reply_finished(ReplyEnd(state=MessageState.DONE, text=broken, finish_reason="stop"))
    line = f"the model answered with a malformed call: {broken}"
    qtbot.waitUntil(lambda: window.chat.view.messages[-1].text.replace("\\", "") == line, timeout=10_000)
    stored = store.messages(cid, with_tokens=False)[-1]
    assert stored.content == broken and ToolNote.from_meta(stored.meta) == ToolNote(
        kind=NoteKind.MALFORMED, excerpt=broken
    )


def test_a_saved_configuration_is_asked_about_inside_the_shown_window_and_remembered(make_window, tmp_path, qtbot):
    # The window starts with a configuration whose server was never confirmed: no modal before it is drawn.
    AppSettings().set_text("mcp_config", str(write_config(tmp_path)))
    window = make_window()
    flow = window.controller.tool_flow
    assert QApplication.activeModalWidget() is None and window.isVisible()
    bar = flow.start_bar
    assert bar.isVisible() and COMMAND in bar.text.text() and flow.tools == ()
    qtbot.mouseClick(bar.deny, Qt.MouseButton.LeftButton)  # Not now
    qtbot.waitUntil(lambda: "not started" in flow.status_line, timeout=60_000)
    assert flow.tools == () and not bar.isVisible() and "not started" in window.settings_panel.mcp.status.text()
    # Chosen again, it is asked again; allowed, it starts and is listed in Settings.
    QTest.keyClick(window.settings_panel.mcp.path, Qt.Key.Key_Return)
    qtbot.waitUntil(bar.isVisible, timeout=10_000)
    qtbot.mouseClick(bar.allow, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(flow.tools), timeout=60_000)
    allowed = window.settings_panel.mcp.allowed
    assert [allowed.item(n).text() for n in range(allowed.count())] == [COMMAND]
    # Remembered: a later window starts it without asking.
    second = make_window()
    assert not second.controller.tool_flow.start_bar.isVisible()
    qtbot.waitUntil(lambda: bool(second.controller.tool_flow.tools), timeout=60_000)
    # Remove in Settings takes it back: the server is asked about again.
    box = second.settings_panel.mcp
    box.allowed.setCurrentRow(0)
    qtbot.mouseClick(box.remove, Qt.MouseButton.LeftButton)
    assert second.app_settings.tool_prefs().started == () and box.allowed.count() == 0
    qtbot.waitUntil(second.controller.tool_flow.start_bar.isVisible, timeout=10_000)


def test_the_start_bar_shows_the_environment_masked_and_a_changed_environment_asks_again(make_window, tmp_path, qtbot):
    secret = "sk-live-" + "7" * 40
    long_path = "/opt/" + "deep/" * 30 + "lib"
    config = write_config(tmp_path, env={"API_KEY": secret, "LIBRARY": long_path, "TZ": "UTC"})
    window = make_window()
    asked = choose_config(qtbot, window, config)  # read from the bar before Allow is clicked
    assert COMMAND in asked and "TZ=UTC" in asked and "API_KEY=" in asked and "LIBRARY=" in asked
    assert secret not in asked and long_path not in asked and "…" in asked
    allowed = window.settings_panel.mcp.allowed
    (listed,) = [allowed.item(n).text() for n in range(allowed.count())]
    assert "API_KEY=" in listed and secret not in listed  # Settings' list of allowed commands masks it too
    # The allowance was for this command with this environment: a new key value is asked about again.
    write_config(tmp_path, env={"API_KEY": secret + "8", "LIBRARY": long_path, "TZ": "UTC"})
    flow = window.controller.tool_flow
    QTest.keyClick(window.settings_panel.mcp.path, Qt.Key.Key_Return)
    qtbot.waitUntil(flow.start_bar.isVisible, timeout=10_000)
    assert secret not in flow.start_bar.text.text() and "API_KEY=" in flow.start_bar.text.text()


def allowed_lines(window) -> list[str]:
    allowed = window.settings_panel.mcp.allowed
    return [allowed.item(n).text() for n in range(allowed.count())]


def test_an_allowed_servers_api_key_never_reaches_the_settings_file(make_window, tmp_path, qtbot):
    config = write_config(tmp_path, env={"API_KEY": "sk-live-123", "TZ": "UTC"})
    (server,) = read_mcp_file(config)
    window = make_window()
    choose_config(qtbot, window, config)  # Allow clicked in the bar: the confirmation is stored
    stored = window.app_settings.path.read_text(encoding="utf-8", errors="replace")
    key = window.app_settings.tool_prefs().key_of(server)  # keyed by this install's salt, kept in the same file
    assert key in stored and "sk-live-123" not in stored
    # Settings lists it from the configuration, masked as in the bar.
    assert allowed_lines(window) == [server.shown_start] and "sk-live-123" not in server.shown_start
    # The stored digest is the confirmation: a later window starts the server without asking.
    second = make_window()
    assert not second.controller.tool_flow.start_bar.isVisible()
    qtbot.waitUntil(lambda: bool(second.controller.tool_flow.tools), timeout=60_000)
    # With a file that does not hold it, the entry is still listed (and can be removed), by its digest only.
    second.controller.tool_flow.set_config("")
    (line,) = allowed_lines(second)
    assert key.removeprefix("hmac-sha256:")[:12] in line and "sk-live-123" not in line


def test_a_remote_server_is_asked_about_by_its_address_with_its_key_masked_and_never_stored(
    make_window, tmp_path, qtbot
):
    served = HostileServer("hang")  # answers the handshake and the listing over HTTP, on a thread of this test
    token = "sk-remote-" + "3" * 30
    try:
        config = tmp_path / "mcp.json"
        entry = {"url": served.url, "headers": {"Authorization": f"Bearer {token}"}}
        config.write_text(json.dumps({"mcpServers": {"web": entry}}))
        window = make_window()
        asked = choose_config(qtbot, window, config)  # Allow clicked in the bar; the tools are listed
        assert (
            asked
            == f"Connect to the MCP server 'web'? Its tools run at this address: {served.url} (Authorization: ••••••••)"
        )
        assert sorted(t.name for t in window.controller.tool_flow.tools) == ["add", "bad"]
        assert served.seen and all(h.get("Authorization") == f"Bearer {token}" for h in served.seen)
        stored = window.app_settings.path.read_text(encoding="utf-8", errors="replace")
        assert token not in stored and window.app_settings.tool_prefs().key_of(read_mcp_file(config)[0]) in stored
        assert allowed_lines(window) == [f"{served.url} (Authorization: ••••••••)"]
        # Remove in Settings takes it back: it is asked about again (no key field: the file gives Authorization).
        box = window.settings_panel.mcp
        box.allowed.setCurrentRow(0)
        qtbot.mouseClick(box.remove, Qt.MouseButton.LeftButton)
        bar = window.controller.tool_flow.start_bar
        qtbot.waitUntil(bar.isVisible, timeout=10_000)
        assert bar.text.text() == asked and bar.key.isHidden()
    finally:
        served.close()


def test_a_key_typed_for_a_remote_server_is_kept_in_the_key_store_and_sent(make_window, tmp_path, qtbot):
    served = HostileServer("hang")
    token = "sk-typed-" + "4" * 30
    try:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"web": {"url": served.url}}}))
        window = make_window()
        flow = window.controller.tool_flow
        flow.credentials = CredentialStore(tmp_path / "keys", system=False)  # a file of this test's, never a keyring
        box = window.settings_panel.mcp
        box.path.setFocus()
        QTest.keyClicks(box.path, str(config))
        QTest.keyClick(box.path, Qt.Key.Key_Return)
        bar = flow.start_bar
        qtbot.waitUntil(bar.isVisible, timeout=10_000)
        assert bar.key.isVisible()  # its headers give no Authorization: a key may be typed
        bar.key.setFocus()
        QTest.keyClicks(bar.key, token)
        assert token not in bar.key.displayText()  # a password field
        QTest.keyClick(bar.key, Qt.Key.Key_Return)  # Enter allows, as the Allow button does
        qtbot.waitUntil(lambda: bool(flow.tools), timeout=60_000)
        assert flow.credentials.load(served.url) == token
        assert served.seen and all(h.get("Authorization") == f"Bearer {token}" for h in served.seen)
        stored = window.app_settings.path.read_text(encoding="utf-8", errors="replace")
        assert token not in stored and token not in flow.status_line
    finally:
        served.close()


def test_a_saved_key_is_forgotten_from_settings_and_the_server_asked_about_again(make_window, tmp_path, qtbot):
    served = HostileServer("hang")
    token = "sk-forget-" + "5" * 30
    try:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"web": {"url": served.url}}}))
        window = make_window()
        flow = window.controller.tool_flow
        flow.credentials = CredentialStore(tmp_path / "keys", system=False)  # a file of this test's, never a keyring
        flow.credentials.save(served.url, token)  # typed in the bar earlier
        window.app_settings.set_tool_prefs(window.app_settings.tool_prefs().with_started(read_mcp_file(config)[0]))
        box = window.settings_panel.mcp
        box.path.setFocus()
        QTest.keyClicks(box.path, str(config))
        QTest.keyClick(box.path, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: bool(flow.tools), timeout=60_000)
        assert served.seen and served.seen[-1].get("Authorization") == f"Bearer {token}"
        assert not box.forget_key.isHidden() and not box.forget_key.isEnabled()  # nothing selected yet
        box.allowed.setCurrentRow(0)
        assert box.forget_key.isEnabled()
        qtbot.mouseClick(box.forget_key, Qt.MouseButton.LeftButton)
        assert flow.credentials.load(served.url) is None
        bar = flow.start_bar
        qtbot.waitUntil(bar.isVisible, timeout=10_000)  # asked about again, with a field for a new key
        assert bar.key.isVisible() and allowed_lines(window) == []
        qtbot.waitUntil(lambda: "is forgotten" in flow.status_line, timeout=60_000)
        assert token not in flow.status_line
    finally:
        served.close()


def test_a_confirmation_stored_in_clear_by_an_earlier_version_is_asked_again_and_leaves_the_file(
    make_window, tmp_path, qtbot
):
    config = write_config(tmp_path, env={"API_KEY": "sk-live-123"})
    (server,) = read_mcp_file(config)
    older = AppSettings()
    older.set_text("tools/prefs", json.dumps({"new_chats": [], "started": [server.start_line]}))  # as written before
    older.set_text("mcp_config", str(config))
    del older  # written out
    assert "sk-live-123" in AppSettings().path.read_text(encoding="utf-8", errors="replace")
    window = make_window()
    flow = window.controller.tool_flow
    # Not keyed by this install's salt, so no longer a confirmation: asked about again, never a crash.
    qtbot.waitUntil(flow.start_bar.isVisible, timeout=10_000)
    assert not flow.tools and allowed_lines(window) == []
    stored = window.app_settings.path.read_text(encoding="utf-8", errors="replace")
    assert "sk-live-123" not in stored


def test_what_a_server_says_is_shown_as_text_never_as_markup(make_window, tmp_path, qtbot):
    markup = "<b>bold</b> <a href='https://example.invalid/'>fix it here</a>"
    hostile = str(SERVER.with_name("hostile_mcp_server.py"))
    servers = {
        "says": {"command": sys.executable, "args": [hostile, "endless"], "env": {"TANDEM_TEST_DESCRIPTION": markup}},
        "dies": {"command": sys.executable, "args": ["-c", f"import sys; sys.exit({markup!r})"]},
    }
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    window = make_window()
    flow = window.controller.tool_flow
    prefs = window.app_settings.tool_prefs()
    for server in read_mcp_file(config):
        prefs = prefs.with_started(server)
    window.app_settings.set_tool_prefs(prefs)
    flow.set_config(str(config))
    qtbot.waitUntil(lambda: bool(flow.tools) and "could not start" in flow.status_line, timeout=60_000)
    # The dying server's last words and the other's tool description are data: shown as written, never rendered.
    for label in (window.settings_panel.mcp.status, window.settings_panel.chat_tools.status):
        assert markup in label.text() and label.textFormat() == Qt.TextFormat.PlainText
    tip = window.settings_panel.chat_tools.boxes["add"].toolTip()
    assert "<b>" not in tip and "&lt;b&gt;bold&lt;/b&gt; &lt;a href=&#x27;https://example.invalid/&#x27;&gt;" in tip


def test_none_all_and_new_chat_switches(make_window, tmp_path, qtbot):
    window = make_window()
    flow = window.controller.tool_flow
    start_allowed(qtbot, window, tmp_path)
    tool_list = window.settings_panel.chat_tools
    qtbot.mouseClick(tool_list.all_button, Qt.MouseButton.LeftButton)
    assert flow.chat_tools().offers("add") and flow.chat_tools().offers("write_note")
    qtbot.mouseClick(tool_list.none_button, Qt.MouseButton.LeftButton)
    assert not any(box.isChecked() for box in tool_list.boxes.values())
    assert not any(flow.chat_tools().offers(name) for name in tool_list.boxes)
    tool_list.new_chat_boxes["add"].click()  # on in every new chat
    assert window.app_settings.tool_prefs().new_chats == {"add"}
    window.controller.new_conversation()
    assert tool_list.boxes["add"].isChecked() and not tool_list.boxes["weather"].isChecked()
    tool_list.new_chat_boxes["add"].click()
    assert window.app_settings.tool_prefs().new_chats == frozenset()


def test_a_file_that_is_not_an_mcp_config_is_one_line(make_window, tmp_path):
    window = make_window()
    bad = tmp_path / "bad.json"
    bad.write_text('{"servers": {}}')
    window.controller.tool_flow.set_config(str(bad))
    line = window.settings_panel.mcp.status.text()
    assert 'has no "mcpServers" object' in line and "\n" not in line


def test_a_tool_call_format_chosen_in_settings_is_kept_for_the_next_load(make_window, qtbot):
    AppSettings().set_text(TOOL_FORMAT_SETTING, "klingon")  # a name this version does not know: the template's
    window = make_window()
    box = window.settings_panel.mcp.format
    assert box.currentData() == "" and window.host.worker.tool_format is None
    box.setFocus()
    QTest.keyClick(box, Qt.Key.Key_Down)  # Hermes JSON
    QTest.keyClick(box, Qt.Key.Key_Down)  # XML parameters (Qwen3-Coder)
    assert box.currentData() == "xml" and window.host.worker.tool_format is ToolFormat.XML
    assert AppSettings().text(TOOL_FORMAT_SETTING) == "xml"
    second = make_window()  # a later start reads it back, for the pair it loads
    assert second.settings_panel.mcp.format.currentData() == "xml"
    assert second.host.worker.tool_format is ToolFormat.XML
