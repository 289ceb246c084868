"""Text from outside Tandem made safe to write to a terminal: control characters shown, never obeyed.

A stored chat or a remote server's reply is data, but a terminal obeys some
of the characters in it: ESC starts CSI and OSC sequences (set the window
title, clear the screen, write the clipboard with OSC 52), BEL rings, a lone
carriage return or backspaces overwrite what was printed before, and a UTF-8
terminal may obey the C1 controls U+0080..U+009F (U+009B is a one-character
CSI). :func:`visible` rewrites each such character as the Python-style escape
that names it (``\\x1b``, ``\\x07``, ``\\x9b``): plain ASCII, unambiguous in any
font, and the same spelling a developer would search for. Newline and tab are
kept, and so is the carriage return of a CRLF line end, which only ends a line.
A lone UTF-16 surrogate (a remote server can send ``"\\ud800"`` in JSON) cannot be
encoded for the terminal at all, so it is shown as ``\\ud800``.

The escapes Tandem writes itself (its colours) are added after this, around
the text it has made visible, so they stay.
"""

from __future__ import annotations

import re

# C0 controls but tab (0x09) and newline (0x0a); a carriage return not followed by a newline; DEL; C1 controls.
# Each character is replaced on its own, so a sequence split across two streamed tokens is defused all the same.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)|[\ud800-\udfff]")
# In text json.dumps wrote (it escapes C0 itself): the characters it leaves raw that a terminal may obey.
_JSON_RAW = re.compile("[\x7f-\x9f\ud800-\udfff\u2028\u2029]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character a terminal would obey written as its escape (``\\x1b``)."""
    return _CONTROL.sub(_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def visible_json(dumped: str) -> str:
    """Text that ``json.dumps(..., ensure_ascii=False)`` made, with the raw controls it leaves as ``\\uXXXX``.

    These characters can only occur inside JSON strings, where ``\\uXXXX`` is
    the same character: a script reading the output gets the same values.
    """
    return _JSON_RAW.sub(_json_escape, dumped)
