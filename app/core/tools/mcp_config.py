"""MCP servers as configured in the usual ``mcp.json`` shape: typed records, and one-line errors for bad files.

The shape is the one Claude Desktop (``claude_desktop_config.json``) and LM
Studio (``mcp.json``) write::

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}}}}

Other top-level keys (Claude Desktop keeps its own settings next to
``mcpServers``) are ignored, so either program's file can be given as it is.
A server is either started as a local command (stdio) or reached at a
``url`` (streamable HTTP, or SSE where the server offers only that), with
optional ``headers`` such as ``Authorization``::

    {"mcpServers": {"docs": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ..."}}}}

Secret-looking environment values and header values are never shown, and a
confirmation is stored only as a keyed digest (:meth:`McpServerConfig.start_key`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import shlex
import urllib.parse
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
_BOTH = QT_TRANSLATE_NOOP("McpConfig", '{where} has both a "command" and a "url": give one of them')
_BAD_URL = QT_TRANSLATE_NOOP("McpConfig", '{where}: "url" must be an http:// or https:// address')
_BAD_HEADERS = QT_TRANSLATE_NOOP(
    "McpConfig", '{where}: "headers" must be an object of string values without line breaks'
)
_NO_COMMAND = QT_TRANSLATE_NOOP(
    "McpConfig", '{where} needs a "command" (the program that starts it) or a "url" (a remote server)'
)
_BAD_ARGS = QT_TRANSLATE_NOOP("McpConfig", '{where}: "args" must be a list of strings')
_BAD_ENV = QT_TRANSLATE_NOOP("McpConfig", '{where}: "env" must be an object of string values')
_NUL = QT_TRANSLATE_NOOP("McpConfig", "{where}: the command, arguments and environment must not contain NUL characters")
THE_CONFIGURATION = QT_TRANSLATE_NOOP("McpConfig", "the MCP configuration")

# An environment entry whose name holds one of these is shown by name only, its value masked.
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE")
MASK = "••••••••"  # what a secret value is shown as: there is one, never what it is
DIGEST_PREFIX = "hmac-sha256:"  # how a stored start key begins (a digest keyed by the install's own salt)
SHOWN_VALUE = 48  # characters of an environment value shown; a longer one keeps its start and end


class McpConfigError(TandemError):
    """A configuration file that is not the ``mcp.json`` shape; the message names the file and the entry."""


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One MCP server: its name, and either the command that starts it over stdio or the ``url`` it answers at.

    A remote server (:attr:`remote`) has a ``url`` and the ``headers`` sent
    with each request; a local one has a ``command``, its ``args`` and ``env``.
    """

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def remote(self) -> bool:
        """Whether the server is reached over HTTP at :attr:`url` (else started by :attr:`command`)."""
        return bool(self.url)

    @property
    def command_line(self) -> str:
        """The command as the user is shown it (arguments quoted where needed); a remote server's address, masked."""
        if self.remote:
            return shown_url(self.url)
        return shlex.join([self.command, *self.args])

    @property
    def shown_start(self) -> str:
        """What the user is shown before the first start: the command, each environment entry in front.

        Entries whose name looks like a secret are shown with their value
        masked; long values are elided in the middle (:func:`shown_value`).
        A remote server shows its address and each header (``Name: value``)
        the same way.
        """
        if self.remote:
            if not self.headers:
                return self.command_line
            entries = [shown_header(key, value) for key, value in sorted(self.headers.items())]
            return f"{self.command_line} ({'; '.join(entries)})"
        if not self.env:
            return self.command_line
        entries = [shown_entry(key, value) for key, value in sorted(self.env.items())]
        return " ".join(["env", *entries, self.command_line])

    def start_key(self, salt: bytes) -> str:
        """What a remembered start confirmation is stored as: :func:`start_digest` of :attr:`start_line` under ``salt``.

        A keyed digest, never the line itself: the environment often holds an
        API key, and the settings file is no place for it in clear. Keyed by a
        random salt of this install, so a digest copied elsewhere cannot be
        checked against guesses of a secret without that salt, and the same
        start gives different keys on different installs.
        """
        return start_digest(self.start_line, salt)

    @property
    def start_line(self) -> str:
        """The confirmed start in full: the command line, its environment in front (``env K=V ...``), values in clear.

        A remote server's is the JSON of its address and headers (it begins
        with ``{``, which no quoted command line does).
        """
        if self.remote:
            return json.dumps({"url": self.url, "headers": dict(self.headers)}, sort_keys=True, ensure_ascii=False)
        if not self.env:
            return self.command_line
        return shlex.join(["env", *(f"{k}={v}" for k, v in sorted(self.env.items()))]) + " " + self.command_line

    @property
    def needs_key(self) -> bool:
        """Whether a saved key may be sent: a remote server whose ``headers`` give no ``Authorization``."""
        return self.remote and not any(name.lower() == "authorization" for name in self.headers)

    def with_key(self, key: str) -> McpServerConfig:
        """This server with ``key`` sent as ``Authorization: Bearer key`` (as it is when it names its scheme).

        Only where :attr:`needs_key`: a header the configuration gives is kept as it is.
        """
        key = key.strip()
        if not key or not self.needs_key:
            return self
        value = key if key.lower().startswith(("bearer ", "basic ")) else f"Bearer {key}"
        return dataclasses.replace(self, headers={**self.headers, "Authorization": value})

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values never shown: secret-looking environment and header values, a URL's password and secret query.

        An error line that quotes one of them (a server echoing its request,
        an HTTP error naming the address) has it masked (:func:`masked`).
        """
        values = [v for k, v in self.env.items() if looks_secret(k)]
        for key, value in self.headers.items():
            if looks_secret(key):
                values += [value, value.partition(" ")[2]]  # "Bearer TOKEN": the token alone too
        if self.url:
            parts = urllib.parse.urlsplit(self.url)
            values.append(parts.password or "")
            values += [v for k, v in urllib.parse.parse_qsl(parts.query) if looks_secret(k)]
        # Longest first, so a value that holds another is masked whole; very short ones would mask ordinary words.
        return tuple(sorted({v for v in values if len(v) >= 4}, key=len, reverse=True))


def masked(text: str, config: McpServerConfig) -> str:
    """``text`` with every one of the server's :attr:`~McpServerConfig.secrets` replaced by the mask."""
    for secret in config.secrets:
        text = text.replace(secret, MASK)
    return text


def shown_url(url: str) -> str:
    """An address as shown: a password in it and the values of secret-looking query parameters masked."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = f"{parts.username or ''}:{MASK}@{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
    query = "&".join(
        f"{k}={MASK if looks_secret(k) else v}" for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    )
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def shown_header(name: str, value: str) -> str:
    """One header as shown: ``Name: value``, the value masked when the name looks secret, else elided when long."""
    if looks_secret(name):
        return f"{name}: {MASK}"
    if len(value) > SHOWN_VALUE:
        half = (SHOWN_VALUE - 8) // 2
        value = f"{value[:half]}…{value[-half:]}"
    return f"{name}: {value}"


def start_digest(start_line: str, salt: bytes) -> str:
    """A start line as it is stored: ``hmac-sha256:`` and the hex HMAC-SHA-256 of its UTF-8 text keyed by ``salt``."""
    # surrogatepass: a lone surrogate read from JSON ("\ud800") still hashes, to its own digest.
    text = start_line.encode("utf-8", "surrogatepass")
    return DIGEST_PREFIX + hmac.new(salt, text, hashlib.sha256).hexdigest()


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
    if "url" in entry:
        if command is not None:
            raise McpConfigError(_BOTH.fill(where=where))
        return _remote(name, entry, where)
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


def _remote(name: str, entry: dict[str, Any], where: Words) -> McpServerConfig:
    url = entry["url"]
    if not isinstance(url, str) or not _is_http_address(url):
        raise McpConfigError(_BAD_URL.fill(where=where))
    headers = entry.get("headers", {})
    if headers is None:
        headers = {}
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k.strip() and not _BREAKS.intersection(k + v)
        for k, v in headers.items()
    ):
        raise McpConfigError(_BAD_HEADERS.fill(where=where))
    return McpServerConfig(name, url=url, headers=dict(headers))


_BREAKS = frozenset("\r\n\0")  # a header with one of these could smuggle a second header or request


def _is_http_address(url: str) -> bool:
    if _BREAKS.intersection(url) or any(c.isspace() for c in url):
        return False
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018  # a port that is not a number raises here
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)
