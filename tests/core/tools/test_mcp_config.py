"""The mcp.json shape read into server records, and its bad files refused with one line naming the entry."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from app.core.tools.mcp_config import McpConfigError, McpServerConfig, masked, parse_mcp_config

SALT = bytes(range(32))


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
        ('{"mcpServers": {"w": {"url": "ftp://x/mcp"}}}', "server 'w': \"url\" must be an http:// or https:// address"),
        ('{"mcpServers": {"w": {"url": "https://"}}}', "server 'w': \"url\" must be an http:// or https:// address"),
        ('{"mcpServers": {"w": {"url": 7}}}', "server 'w': \"url\" must be an http:// or https:// address"),
        ('{"mcpServers": {"w": {"url": "http://x:port/"}}}', '"url" must be an http:// or https:// address'),
        ('{"mcpServers": {"w": {"url": "https://x", "command": "r"}}}', 'has both a "command" and a "url"'),
        ('{"mcpServers": {"w": {"url": "https://x", "headers": []}}}', '"headers" must be an object of string'),
        ('{"mcpServers": {"w": {"url": "https://x", "headers": {"A": 1}}}}', '"headers" must be an object'),
        ('{"mcpServers": {"w": {"url": "https://x", "headers": {"A": "b\\r\\nX: y"}}}}', "without line breaks"),
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


SECRET = "sk-live-" + "7" * 40
LONG_PATH = "/opt/" + "deep/" * 30 + "lib"


def test_the_command_is_shown_with_its_environment_secrets_masked_and_long_values_elided() -> None:
    env = {"API_KEY": SECRET, "GitHub_Token": "ghp_x", "DB_PASSWORD": "hunter2", "LIBRARY": LONG_PATH, "TZ": "UTC"}
    server = McpServerConfig("files", "npx", ("-y", "@x/server fs"), env)
    shown = server.shown_start
    assert shown.endswith(" npx -y '@x/server fs'") and shown.startswith("env ")
    # Every entry is there by name; the secret-looking ones without their values.
    for key in env:
        assert f"{key}=" in shown
    assert "API_KEY=•••••••• " in shown and "GitHub_Token=•••••••• " in shown and "DB_PASSWORD=•••••••• " in shown
    assert SECRET not in shown and "ghp_x" not in shown and "hunter2" not in shown
    # A long value keeps its start and its end, elided in the middle (quoted: the ellipsis is no shell word).
    assert LONG_PATH not in shown and f"'LIBRARY={LONG_PATH[:20]}…{LONG_PATH[-20:]}' " in shown
    assert "TZ=UTC " in shown
    assert McpServerConfig("time", "uvx", ("mcp-server-time",)).shown_start == "uvx mcp-server-time"


def test_a_changed_environment_is_a_different_start_key() -> None:
    first = McpServerConfig("files", "npx", (), {"API_KEY": SECRET})
    assert first.start_key(SALT) != McpServerConfig("files", "npx", (), {"API_KEY": SECRET + "8"}).start_key(SALT)
    assert first.start_key(SALT) != McpServerConfig("files", "npx", (), {"API_KEY": SECRET, "EXTRA": "1"}).start_key(
        SALT
    )


def test_the_start_key_is_a_digest_that_changes_with_every_part_and_holds_no_value() -> None:
    env = {"API_KEY": "sk-live-123", "TZ": "UTC"}
    server = McpServerConfig("files", "npx", ("-y", "fs"), env)
    line = "env API_KEY=sk-live-123 TZ=UTC npx -y fs"
    assert server.start_line == line
    assert server.start_key(SALT) == "hmac-sha256:" + hmac.new(SALT, line.encode(), hashlib.sha256).hexdigest()
    assert server.start_key(SALT) != server.start_key(bytes(32))  # another install's salt, another key
    assert "sk-live-123" not in server.start_key(SALT) and "npx" not in server.start_key(SALT)
    # The name is not part of it (a renamed entry is the same start); the command, each argument and value are.
    assert McpServerConfig("renamed", "npx", ("-y", "fs"), env).start_key(SALT) == server.start_key(SALT)
    changed = [
        McpServerConfig("files", "npx2", ("-y", "fs"), env),
        McpServerConfig("files", "npx", ("-y", "fs2"), env),
        McpServerConfig("files", "npx", ("-y",), env),
        McpServerConfig("files", "npx", ("-y", "fs"), {**env, "API_KEY": "sk-live-124"}),
        McpServerConfig("files", "npx", ("-y", "fs"), {**env, "TZ": "CET"}),
        McpServerConfig("files", "npx", ("-y", "fs"), {"API_KEY": "sk-live-123"}),
    ]
    assert len({server.start_key(SALT), *(c.start_key(SALT) for c in changed)}) == len(changed) + 1
    # A lone surrogate (JSON lets one through) still hashes.
    assert McpServerConfig("odd", "npx", (), {"A": "\ud800"}).start_key(SALT).startswith("hmac-sha256:")


def test_a_url_server_is_read_with_its_headers_and_shown_with_its_secrets_masked() -> None:
    entry = {
        "url": "https://mcp.example.com/mcp?tenant=7&api_key=" + SECRET,
        "headers": {"Authorization": "Bearer " + SECRET, "X-Trace": "on"},
    }
    (server,) = parse_mcp_config(json.dumps({"mcpServers": {"docs": entry}}), "mcp.json")
    assert server.remote and server.command == ""
    assert server.url == entry["url"] and dict(server.headers) == entry["headers"]
    assert server.shown_start == (
        "https://mcp.example.com/mcp?tenant=7&api_key=•••••••• (Authorization: ••••••••; X-Trace: on)"
    )
    assert SECRET not in server.command_line
    (plain,) = parse_mcp_config('{"mcpServers": {"w": {"url": "http://127.0.0.1:8000/mcp", "headers": null}}}')
    assert plain.shown_start == "http://127.0.0.1:8000/mcp" and dict(plain.headers) == {}
    user = McpServerConfig("u", url="https://me:hunter22@example.com/mcp")
    assert user.shown_start == "https://me:••••••••@example.com/mcp"


def test_a_url_server_start_key_is_a_digest_of_its_address_and_headers() -> None:
    server = McpServerConfig("docs", url="https://mcp.example.com/mcp", headers={"Authorization": "Bearer " + SECRET})
    assert server.start_key(SALT).startswith("hmac-sha256:") and SECRET not in server.start_key(SALT)
    # The name is not part of it; the address and every header are.
    assert McpServerConfig("other", url=server.url, headers=server.headers).start_key(SALT) == server.start_key(SALT)
    changed = [
        McpServerConfig("docs", url="https://mcp.example.com/mcp2", headers=server.headers),
        McpServerConfig("docs", url=server.url, headers={"Authorization": "Bearer " + SECRET + "8"}),
        McpServerConfig("docs", url=server.url),
        McpServerConfig("docs", command=server.url),  # a command that looks like the address is another start
    ]
    assert len({server.start_key(SALT), *(c.start_key(SALT) for c in changed)}) == len(changed) + 1


def test_secrets_are_masked_in_a_line_that_quotes_them() -> None:
    server = McpServerConfig(
        "docs", url="https://mcp.example.com/mcp?token=" + SECRET + "9", headers={"Authorization": "Bearer " + SECRET}
    )
    line = f"refused Bearer {SECRET} at https://mcp.example.com/mcp?token={SECRET}9 and {SECRET}"
    assert masked(line, server) == "refused •••••••• at https://mcp.example.com/mcp?token=•••••••• and ••••••••"
    local = McpServerConfig("files", "npx", (), {"API_KEY": SECRET, "TZ": "UTC"})
    assert masked(f"bad key {SECRET} in UTC", local) == "bad key •••••••• in UTC"


def test_a_saved_key_is_sent_only_where_the_configuration_gives_no_authorization() -> None:
    bare = McpServerConfig("docs", url="https://mcp.example.com/mcp", headers={"X-Trace": "on"})
    assert bare.needs_key
    keyed = bare.with_key(" " + SECRET + " ")
    assert dict(keyed.headers) == {"X-Trace": "on", "Authorization": "Bearer " + SECRET}
    assert keyed.start_key(SALT) != bare.start_key(SALT) and SECRET in keyed.secrets  # masked wherever a line quotes it
    assert dict(bare.with_key("Basic dXNlcjpwYXNz").headers)["Authorization"] == "Basic dXNlcjpwYXNz"
    assert bare.with_key("") is bare
    given = McpServerConfig("docs", url=bare.url, headers={"authorization": "Token mine"})
    assert not given.needs_key and given.with_key(SECRET) is given
    local = McpServerConfig("files", "npx")
    assert not local.needs_key and local.with_key(SECRET) is local
