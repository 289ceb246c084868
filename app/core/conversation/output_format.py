"""What shape a reply must have: free text, any JSON object, or JSON matching a schema.

:class:`OutputFormat` is the one record every front end fills (``serve``'s
``response_format``, ``chat --json-schema FILE``, the window) and the reply
planner turns into a grammar (``app.engine.llama.grammar``). ``strict`` is
OpenAI's switch: a strict schema is enforced in full or refused when it uses
a keyword the grammar engine cannot enforce; a non-strict one has such
keywords ignored. :meth:`OutputFormat.schema_sha256` names a schema by the
SHA-256 of its canonical JSON, so a reply's provenance says which schema held
it without storing the schema itself.
"""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from app.core.errors import TandemError


class OutputFormatError(TandemError):
    """A response format or schema that cannot be used, in one line."""


class OutputKind(enum.StrEnum):
    """OpenAI's ``response_format.type`` values."""

    TEXT = "text"
    JSON_OBJECT = "json_object"
    JSON_SCHEMA = "json_schema"


@dataclass(frozen=True, slots=True)
class OutputFormat:
    """A reply's required shape; ``schema`` only for :attr:`OutputKind.JSON_SCHEMA`."""

    kind: OutputKind = OutputKind.TEXT
    schema: dict[str, Any] | None = field(default=None, hash=False, compare=True)
    strict: bool = False
    name: str = ""  # the schema's name, as OpenAI's json_schema.name

    def __post_init__(self) -> None:
        if (self.kind is OutputKind.JSON_SCHEMA) != (self.schema is not None):
            raise OutputFormatError("a JSON schema goes with the json_schema format, and only with it")

    @property
    def constrained(self) -> bool:
        """Whether the reply runs under a grammar."""
        return self.kind is not OutputKind.TEXT

    def schema_for_grammar(self) -> dict[str, Any]:
        """The schema the grammar enforces: ``{"type": "object"}`` for JSON mode."""
        if self.schema is not None:
            return self.schema
        if self.kind is OutputKind.JSON_OBJECT:
            return {"type": "object"}
        raise OutputFormatError("free text has no schema")

    def schema_sha256(self) -> str:
        """The SHA-256 (hex) of the schema's canonical JSON; empty for a format without a schema."""
        if self.schema is None:
            return ""
        return hashlib.sha256(canonical_json(self.schema).encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    """One spelling of a JSON value: keys sorted, no spaces, text kept as UTF-8 (the same schema, the same hash)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chat_output_format(json_schema: str) -> OutputFormat | None:
    """A chat's schema setting (its text; empty: free text) as a strict format; one line when it is not JSON."""
    if not json_schema.strip():
        return None
    return OutputFormat(OutputKind.JSON_SCHEMA, schema_from_text(json_schema, "the chat's JSON schema"), strict=True)


def schema_from_text(text: str, where: str = "the schema") -> dict[str, Any]:
    """A JSON schema read from ``text``; a one-line :class:`OutputFormatError` when it is not a JSON object."""
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OutputFormatError(f"{where} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:  # the reader recurses per level; a schema is a few levels deep
        raise OutputFormatError(f"{where} nests its JSON too deep to read (hundreds of levels)") from None
    if not isinstance(schema, dict):
        raise OutputFormatError(f"{where} must be a JSON object (a JSON schema), not {type(schema).__name__}")
    return schema
