"""The ``<tool_call>`` dialects: Hermes JSON (Qwen 2.5, Qwen3, Hermes 2/3) and XML parameters (Qwen3-Coder).

Hermes templates tell the model to answer a call as
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (Qwen 2.5 writes
newlines inside the tags). Qwen3-Coder's template asks for
``<tool_call><function=name><parameter=x>value</parameter></function></tool_call>``,
each value on lines of its own. Both read a block's body in either spelling:
a model that was shown one sometimes writes the other, and the body alone
tells them apart.

Decided here, on purpose:

- A JSON body in the doubled-brace form (``{{"name": ...}}}``, which Qwen 2.5
  copies from its own template) is read as the object it means.
- A block whose body is not a call (not a JSON object with a valid ``name``
  and an object of ``arguments``, nor a ``<function=...>`` element) stays in
  the reply as plain content, tags included.
- A block the reply ends inside (no closing tag) is a call when its body is
  complete, and plain text otherwise.
- An XML parameter's value is JSON when it reads as a JSON number, ``true``,
  ``false``, ``null``, object or array, and text otherwise; a value whose
  tool schema says ``string`` stays text (``schemas``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core.tools.call_stream import Block, CallBody, ToolFormat, call_body

OPEN = "<tool_call>"
CLOSE = "</tool_call>"

_FUNCTION = re.compile(r"\A\s*<function=([^>\n]+)>(.*?)</function>\s*\Z", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([^>\n]+)>(.*?)</parameter>", re.DOTALL)


def call_object(body: str) -> dict[str, Any] | None:
    """The JSON object ``body`` spells, read also in the doubled-brace form; None when it spells none.

    Qwen 2.5's template shows the call format with Jinja's doubled braces, and the
    model imitates them: ``{{"name": ..., "arguments": {...}}}`` (the outer pair
    doubled) or every brace doubled. Both are read as the object they mean; the
    plain form is tried first, so a valid object is never re-read.
    """
    text = body.strip()
    spellings = [text]
    if text.startswith("{{") and text.endswith("}}"):
        spellings += [text[1:-1], text.replace("{{", "{").replace("}}", "}")]
    for spelling in spellings:
        try:
            value: Any = json.loads(spelling)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def json_call(body: str) -> CallBody | None:
    """The call a JSON body spells (``{"name": ..., "arguments": {...}}``), or None."""
    value = call_object(body)
    if value is None:
        return None
    return call_body(value.get("name"), value.get("arguments", {}))


def _parameter_value(raw: str, declared: str | None) -> Any:
    # The template writes each value between line breaks of its own; those are not part of it.
    text = raw.removeprefix("\n").removesuffix("\n")
    if declared == "string":
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return text if isinstance(value, str) and declared is None else value


def xml_call(body: str, schemas: Mapping[str, Mapping[str, Any]]) -> CallBody | None:
    """The call an XML-parameter body spells (``<function=name><parameter=x>v</parameter></function>``), or None."""
    found = _FUNCTION.match(body)
    if found is None:
        return None
    name, inner = found.group(1).strip(), found.group(2)
    if _PARAMETER.sub("", inner).strip():
        return None  # something besides parameters inside the function: not a call
    schema = schemas.get(name, {})
    properties = schema.get("properties", {})
    arguments: dict[str, Any] = {}
    for parameter in _PARAMETER.finditer(inner):
        key = parameter.group(1).strip()
        if key in arguments:
            return None  # a parameter written twice: which one was meant is unknown
        spec = properties.get(key) if isinstance(properties, Mapping) else None
        declared = spec.get("type") if isinstance(spec, Mapping) else None
        arguments[key] = _parameter_value(parameter.group(2), declared if isinstance(declared, str) else None)
    required = schema.get("required", [])
    if isinstance(required, list) and any(isinstance(k, str) and k not in arguments for k in required):
        return None  # the grammar holds this only for schemas of a few properties (app.engine.llama.tool_grammar)
    return call_body(name, arguments)


@dataclass(frozen=True)
class TaggedDialect:
    """Calls inside ``<tool_call>`` tags, the body JSON (Hermes) or XML parameters (Qwen3-Coder)."""

    format: ToolFormat = ToolFormat.HERMES
    schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # tool name: its parameters' schema
    openers: tuple[str, ...] = (OPEN,)
    markers: tuple[str, ...] = (OPEN, CLOSE)

    def read_block(self, text: str, at_end: bool) -> Block | None:
        """A ``<tool_call>`` block: up to its closing tag, or to the reply's end."""
        end = text.find(CLOSE, len(OPEN))
        if end < 0 and not at_end:
            return None
        size = len(text) if end < 0 else end + len(CLOSE)
        body = text[len(OPEN) : end if end >= 0 else len(text)]
        call = json_call(body) or xml_call(body, self.schemas)
        return Block(size, None if call is None else (call,))

    def attempted(self, text: str) -> bool:
        """Whether ``text`` holds a ``<tool_call>`` tag."""
        return OPEN in text

    def steer(self, name: str | None) -> str:
        """Into the call itself: the demo pair's 1.5B target, given only the opener, ends its turn at once."""
        # Each prefix ends where the tokenizer would end a token: a trailing space would force a split the
        # model never saw (' "' and ' {' are single tokens).
        if self.format is ToolFormat.XML:
            return OPEN + "\n<function=" + (name + ">\n" if name else "")
        if name:
            return OPEN + '\n{"name": "' + name + '", "arguments":'
        return OPEN + '\n{"name":'


HERMES = TaggedDialect()
XML = TaggedDialect(ToolFormat.XML)
