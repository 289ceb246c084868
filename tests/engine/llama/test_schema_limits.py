"""The grammar engine's real limits behind the schema bounds (llguidance on a byte vocabulary, no model).

The bound on optional properties is llguidance's, measured: its parser holds 2,000 items per row and an
object spends about four per optional property, so 498 still start a reply and 499 fail on its first ``{``.
If an llguidance upgrade moves that limit, this says so and the bound can follow.
"""

from __future__ import annotations

from typing import Any

import llguidance
import numpy as np

from app.core.conversation.output_format import OutputFormat, OutputKind
from app.core.conversation.schema_bounds import MAX_BRANCHES, MAX_OPTIONAL_PROPERTIES
from app.engine.llama.grammar import JSON_WHITESPACE, compile_grammar

BYTES = llguidance.LLTokenizer("byte")


def _optional(n: int) -> dict[str, Any]:
    return {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(n)}}


def _fails_after(schema: dict[str, Any], text: str) -> bool:
    """Whether llguidance's matcher is in error once ``text`` is consumed (the bounds not applied)."""
    options: Any = {"lenient": False, "whitespace_pattern": JSON_WHITESPACE}
    grammar = llguidance.LLMatcher.grammar_from_json_schema(schema, defaults=options)
    matcher = llguidance.LLMatcher(BYTES, grammar, log_level=0)
    words = np.zeros((BYTES.vocab_size + 31) // 32, dtype=np.int32)
    for token in BYTES.tokenize_bytes(text.encode()):
        matcher.unsafe_compute_mask_ptr(words.ctypes.data, words.nbytes)
        matcher.consume_token(token)
    matcher.unsafe_compute_mask_ptr(words.ctypes.data, words.nbytes)
    return bool(matcher.is_error())


def test_the_optional_property_bound_is_below_the_measured_limit() -> None:
    assert not _fails_after(_optional(498), "{")
    assert _fails_after(_optional(499), "{") and _fails_after(_optional(600), "{")
    for text in ("{", '{ "p0": 1, "p', '{\n  "p3": 7, '):
        assert not _fails_after(_optional(MAX_OPTIONAL_PROPERTIES), text)
    compile_grammar(OutputFormat(OutputKind.JSON_SCHEMA, _optional(MAX_OPTIONAL_PROPERTIES), strict=True))


def test_required_properties_do_not_count_toward_it() -> None:
    names = [f"p{i}" for i in range(2000)]
    everything = {**_optional(2000), "required": names}
    assert not _fails_after(everything, '{"p0": 1, "p1')


def test_the_branch_bound_is_below_the_measured_limit() -> None:
    def one_of(n: int) -> dict[str, Any]:
        return {"anyOf": [{"type": "array", "prefixItems": [{"const": i}], "minItems": 1} for i in range(n)]}

    assert not _fails_after(one_of(MAX_BRANCHES), "[")
    assert _fails_after(one_of(2100), "[")
