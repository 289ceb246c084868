"""`tandem chat`'s structured-output options: ``--json-schema FILE`` and ``--json-object``.

Read into an :class:`~app.core.conversation.output_format.OutputFormat` and compiled
before any model loads, so a missing file, a file that is not JSON or a
schema the grammar engine cannot enforce is one line and exit 2 at once.
The schema is strict: every keyword is enforced, or the schema is refused.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from app.core.conversation.output_format import OutputFormat, OutputFormatError, OutputKind, schema_from_text

# A schema file is a few kilobytes; anything this large is a wrong file, refused before it is read.
_MAX_SCHEMA_BYTES = 1 << 20


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """Register the two options (exclusive)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--json-schema",
        type=Path,
        default=None,
        metavar="FILE",
        help="make the reply JSON that matches the JSON schema in FILE (strict: every keyword enforced); "
        "the draft and the target are both held to it, so drafting stays on",
    )
    group.add_argument("--json-object", action="store_true", help="make the reply one JSON object (JSON mode)")


def read_output_format(args: argparse.Namespace) -> OutputFormat | None:
    """The output format the options ask for (None: free text), checked; a one-line error otherwise."""
    from app.engine.llama.grammar import compile_grammar  # only when asked: llguidance loads on use

    path: Path | None = getattr(args, "json_schema", None)
    if path is not None:
        output = OutputFormat(OutputKind.JSON_SCHEMA, _read_schema(path), strict=True, name=path.stem)
    elif getattr(args, "json_object", False):
        output = OutputFormat(OutputKind.JSON_OBJECT)
    else:
        return None
    compile_grammar(output)
    return output


def _read_schema(path: Path) -> dict[str, object]:
    where = f"--json-schema {path}"
    try:
        if path.stat().st_size > _MAX_SCHEMA_BYTES:
            raise OutputFormatError(f"{where}: the file is over {_MAX_SCHEMA_BYTES >> 20} MiB; is it a schema?")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OutputFormatError(f"{where}: no such file") from None
    except UnicodeDecodeError:
        raise OutputFormatError(f"{where}: the file is not UTF-8 text") from None
    except OSError as exc:
        raise OutputFormatError(f"{where}: {exc.strerror or exc}") from None
    return schema_from_text(text, where)
