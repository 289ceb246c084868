"""The records of a tool call request and reply, and their one mapping from and to OpenAI's JSON.

OpenAI's chat completions API offers functions as ``tools`` (a name, a
description and a JSON schema for the arguments), lets the client say whether
the model may, must or must not call one (``tool_choice``), and returns calls
with the arguments as JSON *text*: a model may write arguments that are not
valid JSON, and the client is the one to judge them. Names are held to
OpenAI's own rule (letters, digits, ``_`` and ``-``, at most 64), and call
ids to a similar one, which keeps both from carrying chat-template markers
into a prompt.
"""

from __future__ import annotations

import enum
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core import stored_json

NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
# Call ids: OpenAI's "call_..." and other servers' ids, but nothing a template could read as a marker
# (some templates write ids into the prompt as their own text).
ID_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


class ToolError(ValueError):
    """A tool field that does not follow OpenAI's shape, with the field's path (``tools[0].function.name``)."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


def check_name(name: Any, where: str) -> str:
    """``name`` when it is a valid function name; :class:`ToolError` otherwise."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ToolError(f"{where} must be 1 to 64 letters, digits, '_' or '-', not {name!r}"[:300], where)
    return name


def check_call_id(call_id: Any, where: str) -> str:
    """``call_id`` when it is a plain id (letters, digits, ``_.:-``, at most 128); :class:`ToolError` otherwise."""
    if not isinstance(call_id, str) or not ID_PATTERN.fullmatch(call_id):
        raise ToolError(f"{where} must be 1 to 128 letters, digits, '_', '.', ':' or '-'", where)
    return call_id


def new_call_id() -> str:
    """A fresh call id in OpenAI's style."""
    return f"call_{secrets.token_hex(12)}"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One function the model may call: its name, what it does, and the JSON schema of its arguments.

    ``writes`` marks a tool that may change things (:mod:`app.core.tools.writes`);
    it is the app's own judgement, never part of the OpenAI shape.
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)
    writes: bool = False

    @classmethod
    def from_openai(cls, raw: Any, where: str) -> ToolSpec:
        """One entry of ``tools`` (``{"type": "function", "function": {...}}``)."""
        if not isinstance(raw, Mapping) or raw.get("type") != "function":
            raise ToolError(f'{where} must be an object with "type": "function" (the only tool type)', where)
        function = raw.get("function")
        if not isinstance(function, Mapping):
            raise ToolError(f"{where}.function must be an object", f"{where}.function")
        name = check_name(function.get("name"), f"{where}.function.name")
        description = function.get("description", "")
        if not isinstance(description, str):
            raise ToolError(f"{where}.function.description must be a string", f"{where}.function.description")
        parameters = function.get("parameters", {})
        if not isinstance(parameters, Mapping):
            raise ToolError(f"{where}.function.parameters must be a JSON schema object", f"{where}.function.parameters")
        return cls(name=name, description=description, parameters=dict(parameters))

    def to_openai(self) -> dict[str, Any]:
        """The shape OpenAI clients send, which is also the shape chat templates render."""
        function: dict[str, Any] = {"name": self.name}
        if self.description:
            function["description"] = self.description
        function["parameters"] = self.parameters
        return {"type": "function", "function": function}


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call the model made (or made in an earlier turn): an id, the function, its arguments as JSON text."""

    id: str
    name: str
    arguments: str

    @classmethod
    def from_openai(cls, raw: Any, where: str) -> ToolCall:
        """One entry of an assistant message's ``tool_calls``; the arguments must be a JSON object's text."""
        if not isinstance(raw, Mapping) or raw.get("type", "function") != "function":
            raise ToolError(f'{where} must be an object with "type": "function"', where)
        call_id = check_call_id(raw.get("id"), f"{where}.id")
        function = raw.get("function")
        if not isinstance(function, Mapping):
            raise ToolError(f"{where}.function must be an object", f"{where}.function")
        name = check_name(function.get("name"), f"{where}.function.name")
        arguments = function.get("arguments")
        if not isinstance(arguments, str) or not isinstance(stored_json.parse(arguments).value, dict):
            at = f"{where}.function.arguments"
            raise ToolError(f"{at} must be a JSON object as a string", at)
        return cls(call_id, name, arguments)

    def to_openai(self) -> dict[str, Any]:
        """An entry of a response message's ``tool_calls``."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as an object (chat templates render them with their own ``tojson``); {} when not one."""
        return stored_json.dict_of(self.arguments)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What running one call gave: its text (a tool message's content) and whether it is an error's line.

    The text is data for the model, never instructions to the app: it goes into the
    prompt as a tool message's content, which the template writes as text.
    """

    call_id: str
    text: str
    is_error: bool = False


class ToolChoiceKind(enum.StrEnum):
    """Whether the model may call a tool (auto), must not (none), must call one (required) or a named one."""

    AUTO = "auto"
    NONE = "none"
    REQUIRED = "required"
    NAMED = "named"


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """``tool_choice``: its kind, and the function's name when it is a named one."""

    kind: ToolChoiceKind = ToolChoiceKind.AUTO
    name: str = ""

    @classmethod
    def from_openai(cls, raw: Any, where: str = "tool_choice") -> ToolChoice:
        """``"auto"``, ``"none"``, ``"required"`` or ``{"type": "function", "function": {"name": ...}}``."""
        if raw is None:
            return cls()
        if isinstance(raw, str) and raw in ("auto", "none", "required"):
            return cls(ToolChoiceKind(raw))
        if isinstance(raw, Mapping) and raw.get("type") == "function" and isinstance(raw.get("function"), Mapping):
            return cls(ToolChoiceKind.NAMED, check_name(raw["function"].get("name"), f"{where}.function.name"))
        raise ToolError(
            f'{where} must be "auto", "none", "required" or {{"type": "function", "function": {{"name": ...}}}}',
            where,
        )

    def to_openai(self) -> str | dict[str, Any]:
        """The value a client sends for this choice."""
        if self.kind is ToolChoiceKind.NAMED:
            return {"type": "function", "function": {"name": self.name}}
        return self.kind.value

    @property
    def forces_call(self) -> bool:
        """True when the reply must be a call (required, or a named function)."""
        return self.kind in (ToolChoiceKind.REQUIRED, ToolChoiceKind.NAMED)
