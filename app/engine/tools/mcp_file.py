"""An MCP configuration file read from disk (the ``mcp.json`` shape of Claude Desktop and LM Studio).

The shape itself is read by :func:`app.core.tools.mcp_config.parse_mcp_config`;
this is the file around it, for ``chat --mcp`` and the window's Settings:
a file that cannot be read, or is not UTF-8 text, is one line.
"""

from __future__ import annotations

from pathlib import Path

from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.errors import TandemError
from app.core.tools.mcp_config import McpServerConfig, parse_mcp_config

# Said by the window's Tools tab when the chosen file cannot be read (app/ui/chat/tools/flow.py).
_UNREADABLE = QT_TRANSLATE_NOOP("McpConfig", "cannot read the MCP configuration {path}: {error}")
_NOT_UTF8 = QT_TRANSLATE_NOOP("McpConfig", "the MCP configuration {path} is not UTF-8 text (byte {byte})")


def read_mcp_file(path: Path) -> tuple[McpServerConfig, ...]:
    """The servers of an MCP configuration file; one line when it cannot be read or is not the mcp.json shape."""
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise TandemError(_UNREADABLE.fill(path=str(path), error=str(exc.strerror or exc))) from exc
    except UnicodeDecodeError as exc:
        raise TandemError(_NOT_UTF8.fill(path=str(path), byte=exc.start)) from exc
    return parse_mcp_config(text, str(path))
