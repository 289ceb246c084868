"""OpenAI's ``response_format`` read into an :class:`~app.core.conversation.output_format.OutputFormat`.

``{"type": "text"}`` (or no field) is free text; ``{"type": "json_object"}``
is JSON mode; ``{"type": "json_schema", "json_schema": {"name", "schema",
"strict"}}`` a schema, compiled here once so that a schema the grammar
engine cannot use is refused before the request queues: every problem is
an :class:`~app.core.conversation.output_format.OutputFormatError` in one line, which
:mod:`app.engine.server.protocol` answers as a 400 naming ``response_format``.
The grammar then masks the draft and the target alike (:mod:`app.core.decoding.constraint`).
"""

from __future__ import annotations

from typing import Any

from app.core.conversation.output_format import OutputFormat, OutputFormatError, OutputKind
from app.engine.llama.grammar import compile_grammar


def parse_response_format(value: Any) -> OutputFormat | None:
    """The request's output format (None: free text); an :class:`OutputFormatError` for anything malformed."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise OutputFormatError("'response_format' must be an object")
    kind = value.get("type")
    if kind == OutputKind.TEXT.value:
        return None
    if kind == OutputKind.JSON_OBJECT.value:
        output = OutputFormat(OutputKind.JSON_OBJECT)
    elif kind == OutputKind.JSON_SCHEMA.value:
        output = _schema_format(value.get("json_schema"))
    else:
        raise OutputFormatError(
            f"'response_format.type' must be text, json_object or json_schema, not {str(kind)[:40]!r}"
        )
    compile_grammar(output)  # raises for a schema the grammar engine cannot use
    return output


def _schema_format(spec: Any) -> OutputFormat:
    if not isinstance(spec, dict):
        raise OutputFormatError("'response_format.json_schema' must be an object with a 'schema'")
    schema = spec.get("schema")
    if not isinstance(schema, dict):
        raise OutputFormatError("'response_format.json_schema.schema' must be a JSON schema object")
    strict = spec.get("strict", False)
    if not isinstance(strict, bool) and strict is not None:
        raise OutputFormatError("'response_format.json_schema.strict' must be true or false")
    name = spec.get("name", "")
    return OutputFormat(OutputKind.JSON_SCHEMA, schema, bool(strict), name if isinstance(name, str) else "")
