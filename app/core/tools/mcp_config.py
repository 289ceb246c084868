"""MCP servers as configured in the usual ``mcp.json`` shape: typed records, and one-line errors for bad files.

The shape is the one Claude Desktop (``claude_desktop_config.json``) and LM
Studio (``mcp.json``) write::

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}}}}

Other top-level keys (Claude Desktop keeps its own settings next to
``mcpServers``) are ignored, so either program's file can be given as it is.
Only servers started as a local command (stdio) are supported: an entry with
a ``url`` instead is refused by name rather than skipped, so nothing in the
file is silently dropped.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core.errors import TandemError


class McpConfigError(TandemError):
    """A configuration file that is not the ``mcp.json`` shape; the message names the file and the entry."""


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One MCP server: the name it is configured under, and the command that starts it over stdio."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def command_line(self) -> str:
        """The command as the user is shown it before its first start (arguments quoted where needed)."""
        return shlex.join([self.command, *self.args])


def parse_mcp_config(text: str, source: str = "the MCP configuration") -> tuple[McpServerConfig, ...]:
    """The servers of an ``mcp.json`` text, in the file's order; :class:`McpConfigError` when it is not one."""
    try:
        raw: Any = json.loads(text)
    except ValueError as exc:
        raise McpConfigError(f"{source} is not JSON: {exc}") from exc
    if not isinstance(raw, dict) or "mcpServers" not in raw:
        raise McpConfigError(f'{source} has no "mcpServers" object (the mcp.json shape)')
    servers = raw["mcpServers"]
    if not isinstance(servers, dict):
        raise McpConfigError(f'{source}: "mcpServers" must be an object of servers by name')
    if not servers:
        raise McpConfigError(f'{source}: "mcpServers" configures no server')
    return tuple(_server(name, entry, source) for name, entry in servers.items())


def _server(name: str, entry: Any, source: str) -> McpServerConfig:
    where = f"{source}: server {name!r}"
    if not name.strip():
        raise McpConfigError(f"{source}: a server has an empty name")
    if not isinstance(entry, dict):
        raise McpConfigError(f'{where} must be an object with a "command"')
    command = entry.get("command")
    if command is None and "url" in entry:
        raise McpConfigError(f"{where} is a remote (url) server; only servers started by a command are supported")
    if not isinstance(command, str) or not command.strip():
        raise McpConfigError(f'{where} needs a "command" (the program that starts it)')
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise McpConfigError(f'{where}: "args" must be a list of strings')
    env = entry.get("env", {})
    if env is None:
        env = {}
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise McpConfigError(f'{where}: "env" must be an object of string values')
    if any("\0" in part for part in [command, *args, *env, *env.values()]):
        raise McpConfigError(f"{where}: the command, arguments and environment must not contain NUL characters")
    return McpServerConfig(name, command, tuple(args), dict(env))
