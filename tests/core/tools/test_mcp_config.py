"""The mcp.json shape read into server records, and its bad files refused with one line naming the entry."""

from __future__ import annotations

import json

import pytest

from app.core.tools.mcp_config import McpConfigError, McpServerConfig, parse_mcp_config


def test_claude_desktop_file_is_read_with_its_other_settings_ignored() -> None:
    text = json.dumps(
        {
            "globalShortcut": "Ctrl+Space",
            "mcpServers": {
                "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=UTC"]},
                "files": {"command": "npx", "args": ["-y", "@x/server fs", "/tmp"], "env": {"DEBUG": "1"}},
            },
        }
    )
    servers = parse_mcp_config(text, "claude_desktop_config.json")
    assert servers == (
        McpServerConfig("time", "uvx", ("mcp-server-time", "--local-timezone=UTC"), {}),
        McpServerConfig("files", "npx", ("-y", "@x/server fs", "/tmp"), {"DEBUG": "1"}),
    )
    assert servers[1].command_line == "npx -y '@x/server fs' /tmp"


def test_env_null_and_missing_args_are_empty() -> None:
    (server,) = parse_mcp_config('{"mcpServers": {"a": {"command": "run", "env": null}}}')
    assert server.args == () and dict(server.env) == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "mcp.json is not JSON"),
        ("[]", 'mcp.json has no "mcpServers" object'),
        ('{"servers": {}}', 'mcp.json has no "mcpServers" object'),
        ('{"mcpServers": []}', '"mcpServers" must be an object'),
        ('{"mcpServers": {}}', "configures no server"),
        ('{"mcpServers": {"a": "run"}}', "server 'a' must be an object"),
        ('{"mcpServers": {"a": {"args": []}}}', "server 'a' needs a \"command\""),
        ('{"mcpServers": {"a": {"command": " "}}}', "server 'a' needs a \"command\""),
        ('{"mcpServers": {"w": {"url": "https://x"}}}', "server 'w' is a remote (url) server"),
        ('{"mcpServers": {"a": {"command": "r", "args": "x"}}}', '"args" must be a list of strings'),
        ('{"mcpServers": {"a": {"command": "r", "args": [1]}}}', '"args" must be a list of strings'),
        ('{"mcpServers": {"a": {"command": "r", "env": {"K": 1}}}}', '"env" must be an object of string values'),
        ('{"mcpServers": {"a": {"command": "r\\u0000"}}}', "must not contain NUL"),
    ],
)
def test_bad_files_are_one_line_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(McpConfigError) as caught:
        parse_mcp_config(text, "mcp.json")
    assert message in str(caught.value) and "\n" not in str(caught.value)
