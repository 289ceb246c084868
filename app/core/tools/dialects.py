"""The call dialects besides ``<tool_call>``: Llama 3.x JSON, Mistral ``[TOOL_CALLS]`` and gpt-oss harmony.

Each is a :class:`~app.core.tools.call_stream.ToolDialect`; :func:`tool_format`
finds a template's dialect in its text and :func:`dialect_for` gives the
dialect object of a format (a setting or option may name one over the template's).

- Llama 3.1-3.3 ask for ``{"name": ..., "parameters": {...}}`` as the whole
  reply (read by :mod:`app.core.tools.reader` like any bare call), or after
  ``<|python_tag|>``, several calls then parted by ``;``.
- Mistral writes ``[TOOL_CALLS]`` and a JSON list of calls (v3 templates), or,
  from the v11 templates (Mistral Small 3.2, Devstral), ``[TOOL_CALLS]name[ARGS]{...}``
  once per call; calls run to the reply's end.
- gpt-oss (harmony) writes a message whose header names the recipient:
  ``<|channel|>commentary to=functions.name <|constrain|>json<|message|>{...}<|call|>``,
  or with ``to=`` right after ``<|start|>assistant``. A header without a
  recipient (``analysis``, ``final``) stays text. The ``openai-harmony`` package
  reads this format only on its own token ids and downloads its vocabulary on
  first use, so this reader works on the reply's text instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.tools.call_stream import Block, CallBody, ToolDialect, ToolFormat, call_body
from app.core.tools.hermes import HERMES, OPEN, XML, TaggedDialect
from app.core.tools.records import ToolSpec

PYTHON_TAG = "<|python_tag|>"
TOOL_CALLS = "[TOOL_CALLS]"
ARGS = "[ARGS]"
CALL_ID = "[CALL_ID]"
_DECODER = json.JSONDecoder()


def json_objects(text: str, separators: str = " \t\r\n;") -> list[Any] | None:
    """The JSON values ``text`` holds one after another, parted by ``separators``; None when it holds anything else."""
    values: list[Any] = []
    at = 0
    while True:
        while at < len(text) and text[at] in separators:
            at += 1
        if at == len(text):
            return values
        try:
            value, at = _DECODER.raw_decode(text, at)
        except ValueError:
            return None
        values.append(value)


def _named_call(value: Any) -> CallBody | None:
    if not isinstance(value, dict):
        return None
    return call_body(value.get("name"), value.get("parameters", value.get("arguments", {})))


def _all_calls(values: Sequence[Any] | None) -> tuple[CallBody, ...] | None:
    if not values:
        return None
    calls = [_named_call(v) for v in values]
    return None if any(c is None for c in calls) else tuple(c for c in calls if c is not None)


@dataclass(frozen=True)
class Llama3Dialect:
    """Llama 3.x: ``<|python_tag|>`` and JSON calls to the reply's end (bare JSON: see the module docstring)."""

    format: ToolFormat = ToolFormat.LLAMA3
    openers: tuple[str, ...] = (PYTHON_TAG,)
    markers: tuple[str, ...] = (PYTHON_TAG,)

    def read_block(self, text: str, at_end: bool) -> Block | None:
        """Everything after the tag, read when the reply ends."""
        if not at_end:
            return None
        return Block(len(text), _all_calls(json_objects(text[len(PYTHON_TAG) :])))

    def attempted(self, text: str) -> bool:
        """Whether ``text`` holds the dialect's call marker."""
        return PYTHON_TAG in text

    def steer(self, name: str | None) -> str:
        """A bare call's start (the form the template asks for)."""
        return '{"name": "' + name + '", "parameters":' if name else '{"name":'


def _mistral_calls(body: str) -> tuple[CallBody, ...] | None:
    if body.lstrip().startswith("["):
        values = json_objects(body, " \t\r\n")
        if values is None or len(values) != 1 or not isinstance(values[0], list):
            return None
        return _all_calls(values[0])
    calls: list[CallBody] = []
    for part in body.split(TOOL_CALLS):
        name, args, rest = part.partition(ARGS)
        if not args:
            return None
        name = name.split(CALL_ID, 1)[0].strip()
        values = json_objects(rest, " \t\r\n")
        call = call_body(name, values[0]) if values is not None and len(values) == 1 else None
        if call is None:
            return None
        calls.append(call)
    return tuple(calls)


@dataclass(frozen=True)
class MistralDialect:
    """Mistral: ``[TOOL_CALLS]`` then a JSON list, or ``name[ARGS]{...}`` per call (``named``), to the reply's end."""

    named: bool = False  # the v11 form: [TOOL_CALLS]name[ARGS]{...}
    format: ToolFormat = ToolFormat.MISTRAL
    openers: tuple[str, ...] = (TOOL_CALLS,)
    markers: tuple[str, ...] = (TOOL_CALLS, ARGS, CALL_ID)

    def read_block(self, text: str, at_end: bool) -> Block | None:
        """Everything from the first ``[TOOL_CALLS]``, read when the reply ends."""
        if not at_end:
            return None
        return Block(len(text), _mistral_calls(text[len(TOOL_CALLS) :]))

    def attempted(self, text: str) -> bool:
        """Whether ``text`` holds the dialect's call marker."""
        return TOOL_CALLS in text

    def steer(self, name: str | None) -> str:
        """The opener and, for a named tool, its name."""
        if self.named:
            return TOOL_CALLS + (name + ARGS if name else "")
        return TOOL_CALLS + '[{"name": "' + name + '", "arguments":' if name else TOOL_CALLS + '[{"name":'


H_START = "<|start|>"
H_ROLE = "assistant"  # the role after <|start|> in a reply's messages
H_CHANNEL = "<|channel|>"
H_MESSAGE = "<|message|>"
H_CALL = "<|call|>"
H_END = "<|end|>"
H_CONSTRAIN = "<|constrain|>"
_RECIPIENT = "to=functions."
_NAME = re.compile(r"to=functions\.([A-Za-z0-9_.-]+)")


@dataclass(frozen=True)
class HarmonyDialect:
    """gpt-oss: a message header naming ``functions.name`` as its recipient, the JSON arguments, ``<|call|>``."""

    format: ToolFormat = ToolFormat.HARMONY
    openers: tuple[str, ...] = (H_START, H_CHANNEL, _RECIPIENT)
    # gpt-oss's <|call|> ends generation, so there it never reaches the text (the engine shows no such token).
    markers: tuple[str, ...] = (H_START, H_CHANNEL, H_MESSAGE, H_CONSTRAIN, H_END, H_CALL)

    def read_block(self, text: str, at_end: bool) -> Block | None:
        """A header: with a recipient, the call to ``<|call|>``; without, the header alone as text."""
        head_end = text.find(H_MESSAGE)
        if head_end < 0:
            return Block(len(text), None) if at_end else None
        header = text[:head_end]
        named = _NAME.search(header)
        if named is None or H_CALL in header or H_END in header:
            # Not a call's header: only its first marker stays text, so a call header after it is still found.
            opener = next(o for o in self.openers if text.startswith(o))
            return Block(len(opener), None)
        body_at = head_end + len(H_MESSAGE)
        end = text.find(H_CALL, body_at)
        if end < 0 and not at_end:
            return None
        size = len(text) if end < 0 else end + len(H_CALL)
        values = json_objects(text[body_at : end if end >= 0 else len(text)], " \t\r\n")
        call = call_body(named.group(1), values[0]) if values is not None and len(values) == 1 else None
        return Block(size, None if call is None else (call,))

    def attempted(self, text: str) -> bool:
        """Whether ``text`` holds the dialect's call marker."""
        return _RECIPIENT in text

    def steer(self, name: str | None) -> str:
        """A commentary message to the tool (named or not yet)."""
        head = H_CHANNEL + "commentary " + _RECIPIENT
        return head + name + " " + H_CONSTRAIN + "json" + H_MESSAGE if name else head


def tool_format(template: str | None) -> ToolFormat | None:
    """The dialect ``template``'s text describes, or None when it has none (it never renders ``tools``)."""
    if not template or "tools" not in template:
        return None
    if OPEN in template:
        return ToolFormat.XML if "<function=" in template else ToolFormat.HERMES
    if TOOL_CALLS in template:
        return ToolFormat.MISTRAL
    if "to=functions." in template or ("<|channel|>" in template and "functions" in template):
        return ToolFormat.HARMONY
    if PYTHON_TAG in template or '"parameters"' in template or "<|eom_id|>" in template:
        return ToolFormat.LLAMA3
    return None


def for_tools(dialect: ToolDialect, tools: Sequence[ToolSpec]) -> ToolDialect:
    """``dialect`` knowing the schemas of the ``tools`` on offer (the XML dialect reads values by them)."""
    if isinstance(dialect, TaggedDialect) and dialect.format is ToolFormat.XML and tools:
        schemas: Mapping[str, Mapping[str, Any]] = {t.name: t.parameters for t in tools}
        return TaggedDialect(ToolFormat.XML, schemas)
    return dialect


def dialect_for(fmt: ToolFormat, tools: Sequence[ToolSpec] = (), template: str | None = None) -> ToolDialect:
    """The dialect object of ``fmt``, knowing the ``tools`` on offer (their schemas) and the template's text."""
    return for_tools(_dialect(fmt, template), tools)


def _dialect(fmt: ToolFormat, template: str | None) -> ToolDialect:
    if fmt is ToolFormat.XML:
        return XML
    if fmt is ToolFormat.LLAMA3:
        return Llama3Dialect()
    if fmt is ToolFormat.MISTRAL:
        return MistralDialect(named=template is not None and ARGS in template)
    if fmt is ToolFormat.HARMONY:
        return HarmonyDialect()
    return HERMES
