"""The schema bounds checked before the grammar engine sees a schema: cycles, width, depth and repetition."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.conversation.output_format import OutputFormatError, schema_from_text
from app.core.conversation.schema_bounds import (
    MAX_BRANCHES,
    MAX_DEPTH,
    MAX_OPTIONAL_PROPERTIES,
    MAX_PATTERN_REPEATS,
    MAX_REQUIRED_REPEATS,
    check_schema_bounds,
    pattern_repeats,
)


def _object(n_optional: int, n_required: int = 0) -> dict[str, Any]:
    names = [f"p{i}" for i in range(n_optional + n_required)]
    return {"type": "object", "properties": {n: {"type": "integer"} for n in names}, "required": names[n_optional:]}


def _nested_arrays(levels: int, count: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(levels):
        schema = {"type": "array", "minItems": count, "maxItems": count, "items": schema}
    return schema


def _refused(schema: dict[str, Any], words: str) -> None:
    with pytest.raises(OutputFormatError) as caught:
        check_schema_bounds(schema)
    assert words in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
        {"type": "object", "properties": {"next": {"$ref": "#"}}, "required": ["next"]},
        {"type": "array", "minItems": 1, "items": {"allOf": [{"$ref": "#"}]}},
    ],
    ids=["self", "two-defs", "required-property", "non-empty-array"],
)
def test_a_ref_cycle_no_reply_can_leave_is_refused(schema: dict[str, Any]) -> None:
    _refused(schema, "refers back to itself")


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}},
        {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}, "$defs": {"node": {"$ref": "#"}}},
        {"anyOf": [{"type": "string"}, {"type": "array", "minItems": 1, "items": {"$ref": "#"}}]},
    ],
    ids=["tree", "optional-via-def", "json-value"],
)
def test_a_recursive_schema_a_reply_can_end_passes(schema: dict[str, Any]) -> None:
    check_schema_bounds(schema)


def test_optional_properties_are_bounded_and_required_ones_are_not_counted() -> None:
    check_schema_bounds(_object(MAX_OPTIONAL_PROPERTIES))
    check_schema_bounds(_object(MAX_OPTIONAL_PROPERTIES, n_required=600))
    _refused(_object(600), "has 600 optional properties")
    _refused({"type": "array", "items": _object(MAX_OPTIONAL_PROPERTIES + 1)}, "at '#/items'")


def test_required_repetitions_multiply_through_nesting_and_refs() -> None:
    check_schema_bounds(_nested_arrays(2, 300))
    _refused(_nested_arrays(3, 1000), "repetitions")
    long_strings = {"type": "array", "minItems": 1000, "items": {"type": "string", "minLength": 1000}}
    _refused(long_strings, "nested minItems or minLength multiply")
    via_ref = {
        "type": "array",
        "minItems": 1000,
        "items": {"$ref": "#/$defs/row"},
        "$defs": {"row": _nested_arrays(1, 1000)},
    }
    _refused(via_ref, "repetitions")
    # Upper bounds cost the grammar nothing: a reply may stop well before them.
    check_schema_bounds({"type": "array", "maxItems": 10**9, "items": {"type": "string", "maxLength": 10**9}})
    assert MAX_REQUIRED_REPEATS >= 128 * 1024


def test_counted_repetitions_nested_in_a_pattern_are_bounded() -> None:
    assert pattern_repeats("^[a-z]{1,100}$") == 100
    assert pattern_repeats(r"^(a{1,100}){1,100}$") == 10_000
    assert pattern_repeats(r"^((ab){2,}c){3}\{9999\}[{]{5}$") == 9
    assert pattern_repeats(r"^(x{1,10}|y{1,500})$") == 500
    assert pattern_repeats("a{,5}b*") == 1  # not a count in these regexes: the braces are literal
    check_schema_bounds({"type": "string", "pattern": r"^(a{1,10}){1,100}$"})
    over = {"type": "string", "minLength": 5, "pattern": r"^(a{1,100}){1,100}$"}
    _refused(over, f"multiply to 10000; at most {MAX_PATTERN_REPEATS}")


def test_deep_nesting_is_refused_without_recursing() -> None:
    deep: dict[str, Any] = {"type": "integer"}
    for _ in range(5000):  # far past Python's recursion limit: the walk is iterative
        deep = {"anyOf": [deep]}
    _refused(deep, f"nests deeper than {MAX_DEPTH} levels")
    chain = {"$defs": {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(200)}, "$ref": "#/$defs/d0"}
    chain["$defs"]["d200"] = {"type": "integer"}
    _refused(chain, "nests deeper")


def test_a_schema_file_nested_past_the_readers_recursion_is_one_line() -> None:
    # Past every interpreter's reader: 3.11 and 3.12 stop near 1,000 levels, 3.13's C parser near 10,000.
    text = '{"anyOf": [' * 100_000 + '{"type": "integer"}' + "]}" * 100_000
    with pytest.raises(OutputFormatError) as caught:
        schema_from_text(text, "--json-schema deep.json")
    assert str(caught.value).startswith("--json-schema deep.json nests its JSON too deep") and "\n" not in str(
        caught.value
    )


def test_a_schema_that_expands_exponentially_through_refs_is_refused() -> None:
    defs = {f"d{i}": {"type": "array", "prefixItems": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(30)}
    defs["d30"] = {"type": "integer"}
    _refused({"$defs": defs, "$ref": "#/$defs/d0"}, "expands to more than")


def test_values_in_enum_const_and_default_are_data_not_schemas() -> None:
    lookalike = {"minItems": 10**9, "pattern": "(a{1,1000}){1,1000}", "$ref": "#"}
    check_schema_bounds({"type": "object", "default": lookalike, "enum": [lookalike], "const": lookalike})
    deep: Any = 1
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    _refused({"enum": [deep]}, "nests deeper")


def test_a_combinator_with_too_many_branches_is_refused() -> None:
    check_schema_bounds({"anyOf": [{"const": i} for i in range(MAX_BRANCHES)]})
    _refused({"oneOf": [{"const": i} for i in range(MAX_BRANCHES + 1)]}, f"has {MAX_BRANCHES + 1} branches")
