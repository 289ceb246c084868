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

import hashlib
import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words
from app.core.errors import TandemError

# Said by the window's Tools tab when a chosen file is refused (app/ui/chat/tools/flow.py).
_NOT_JSON = QT_TRANSLATE_NOOP("McpConfig", "{source} is not JSON: {error}")
_NO_SERVERS_OBJECT = QT_TRANSLATE_NOOP("McpConfig", '{source} has no "mcpServers" object (the mcp.json shape)')
_SERVERS_NOT_OBJECT = QT_TRANSLATE_NOOP("McpConfig", '{source}: "mcpServers" must be an object of servers by name')
_NO_SERVER = QT_TRANSLATE_NOOP("McpConfig", '{source}: "mcpServers" configures no server')
_WHERE = QT_TRANSLATE_NOOP("McpConfig", "{source}: server {name}")
_EMPTY_NAME = QT_TRANSLATE_NOOP("McpConfig", "{source}: a server has an empty name")
_NOT_AN_OBJECT = QT_TRANSLATE_NOOP("McpConfig", '{where} must be an object with a "command"')
_URL_SERVER = QT_TRANSLATE_NOOP(
    "McpConfig", "{where} is a remote (url) server; only servers started by a command are supported"
)
_NO_COMMAND = QT_TRANSLATE_NOOP("McpConfig", '{where} needs a "command" (the program that starts it)')
_BAD_ARGS = QT_TRANSLATE_NOOP("McpConfig", '{where}: "args" must be a list of strings')
_BAD_ENV = QT_TRANSLATE_NOOP("McpConfig", '{where}: "env" must be an object of string values')
_NUL = QT_TRANSLATE_NOOP("McpConfig", "{where}: the command, arguments and environment must not contain NUL characters")
THE_CONFIGURATION = QT_TRANSLATE_NOOP("McpConfig", "the MCP configuration")

# An environment entry whose name holds one of these is shown by name only, its value masked.
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE")
MASK = "••••••••"  # what a secret value is shown as: there is one, never what it is
DIGEST_PREFIX = "sha256:"  # how a stored start key that is a digest begins
SHOWN_VALUE = 48  # characters of an environment value shown; a longer one keeps its start and end


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

    @property
    def shown_start(self) -> str:
        """What the user is shown before the first start: the command, each environment entry in front.

        Entries whose name looks like a secret are shown with their value
        masked; long values are elided in the middle (:func:`shown_value`).
        """
        if not self.env:
            return self.command_line
        entries = [shown_entry(key, value) for key, value in sorted(self.env.items())]
        return " ".join(["env", *entries, self.command_line])

    @property
    def start_key(self) -> str:
        """What a remembered start confirmation is stored as: :func:`start_digest` of :attr:`start_line`.

        A digest, never the line itself: the environment often holds an API
        key, and the settings file is no place for it in clear.
        """
        return start_digest(self.start_line)

    @property
    def start_line(self) -> str:
        """The confirmed start in full: the command line, its environment in front (``env K=V ...``), values in clear.

        Earlier versions stored this line itself as the start key; it is what
        the digest is taken over, so such a stored line reads as the same key.
        """
        if not self.env:
            return self.command_line
        return shlex.join(["env", *(f"{k}={v}" for k, v in sorted(self.env.items()))]) + " " + self.command_line


def start_digest(start_line: str) -> str:
    """A start line as it is stored: ``sha256:`` and the hex SHA-256 of its UTF-8 text."""
    # surrogatepass: a lone surrogate read from JSON ("\ud800") still hashes, to its own digest.
    return DIGEST_PREFIX + hashlib.sha256(start_line.encode("utf-8", "surrogatepass")).hexdigest()


def stored_start_key(stored: str) -> str:
    """A start key as read from the settings: a digest as it is, an earlier version's start line as its digest."""
    if stored.startswith(DIGEST_PREFIX):
        return stored
    return start_digest(stored)


def looks_secret(name: str) -> bool:
    """Whether an environment entry's name suggests a secret (an API key, a token, a password)."""
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


def shown_entry(name: str, value: str) -> str:
    """One environment entry as shown: ``NAME=value`` quoted as a shell would need, the value masked or elided."""
    if looks_secret(name):
        return f"{shlex.quote(name)}={MASK}"
    if len(value) > SHOWN_VALUE:
        half = (SHOWN_VALUE - 8) // 2
        value = f"{value[:half]}…{value[-half:]}"
    return shlex.quote(f"{name}={value}")


def parse_mcp_config(text: str, source: str | Phrase = THE_CONFIGURATION) -> tuple[McpServerConfig, ...]:
    """The servers of an ``mcp.json`` text, in the file's order; :class:`McpConfigError` when it is not one."""
    try:
        raw: Any = json.loads(text)
    except ValueError as exc:
        raise McpConfigError(_NOT_JSON.fill(source=source, error=str(exc))) from exc
    if not isinstance(raw, dict) or "mcpServers" not in raw:
        raise McpConfigError(_NO_SERVERS_OBJECT.fill(source=source))
    servers = raw["mcpServers"]
    if not isinstance(servers, dict):
        raise McpConfigError(_SERVERS_NOT_OBJECT.fill(source=source))
    if not servers:
        raise McpConfigError(_NO_SERVER.fill(source=source))
    return tuple(_server(name, entry, source) for name, entry in servers.items())


def _server(name: str, entry: Any, source: str | Phrase) -> McpServerConfig:
    where: Words = _WHERE.fill(source=source, name=repr(name))
    if not name.strip():
        raise McpConfigError(_EMPTY_NAME.fill(source=source))
    if not isinstance(entry, dict):
        raise McpConfigError(_NOT_AN_OBJECT.fill(where=where))
    command = entry.get("command")
    if command is None and "url" in entry:
        raise McpConfigError(_URL_SERVER.fill(where=where))
    if not isinstance(command, str) or not command.strip():
        raise McpConfigError(_NO_COMMAND.fill(where=where))
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise McpConfigError(_BAD_ARGS.fill(where=where))
    env = entry.get("env", {})
    if env is None:
        env = {}
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise McpConfigError(_BAD_ENV.fill(where=where))
    if any("\0" in part for part in [command, *args, *env, *env.values()]):
        raise McpConfigError(_NUL.fill(where=where))
    return McpServerConfig(name, command, tuple(args), dict(env))
