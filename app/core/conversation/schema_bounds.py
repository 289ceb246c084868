"""How large a JSON schema may be before the grammar engine is given it: depth, width, cycles and counts.

llguidance compiles whatever it is given and fails later, on the model's
first token or in the middle of a reply, when a schema is beyond what its
parser and lexer can hold. So every schema passes :func:`check_schema_bounds`
first, before any model loads (``chat --json-schema``) or any request queues
(``serve``'s ``response_format``), and a schema past a bound is refused in
one line naming where (a JSON pointer into the schema):

- depth: the schema nests at most :data:`MAX_DEPTH` levels, ``$ref`` s
  followed, so no reader or compiler recurses without end;
- width: an object has at most :data:`MAX_OPTIONAL_PROPERTIES` optional
  properties (llguidance 1.9 spends about four parser items per optional
  property on a row capped at 2,000 items: 498 still worked, 499 failed on
  the reply's first ``{``), at most :data:`MAX_PROPERTIES` in all, and a
  combinator at most :data:`MAX_BRANCHES` branches (one parser item each:
  about 2,000 of them failed on the first byte);
- cycles: a ``$ref`` cycle must pass through a place the reply may leave
  out (an optional property, an array that may be empty, one branch of
  several), or no finite reply matches it and the grammar has no first token;
- counts: what must be repeated (``minItems`` inside ``minItems``, and a
  string's ``minLength`` inside them) multiplies out to at most
  :data:`MAX_REQUIRED_REPEATS`, more than any context holds; counted
  repetitions nested in a ``pattern`` multiply out to at most
  :data:`MAX_PATTERN_REPEATS` (``(a{1,100}){1,100}`` with a ``minLength``
  exhausts the lexer mid-reply).

The walk is iterative and visits at most :data:`MAX_VISITS` subschemas, so
the check itself is bounded whatever the schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from app.core.conversation.output_format import OutputFormatError

MAX_DEPTH = 64
MAX_OPTIONAL_PROPERTIES = 400
MAX_PROPERTIES = 2000
MAX_BRANCHES = 1000
MAX_REQUIRED_REPEATS = 1 << 17  # 131,072: the largest context Tandem loads, one token per item at least
MAX_PATTERN_REPEATS = 1000
MAX_VISITS = 50_000

_BRANCHES = ("anyOf", "oneOf", "allOf")
_DATA = frozenset({"enum", "const", "default", "examples"})


@dataclass(frozen=True, slots=True)
class _Visit:
    """One subschema to check, with what its position costs and which ``$ref`` targets enclose it."""

    node: Any
    where: str  # a JSON pointer into the schema as written ("" is the root)
    depth: int
    repeats: int  # how many times the enclosing required counts repeat this position
    refs: tuple[tuple[str, bool], ...]  # each enclosing $ref target, and whether an optional step came since
    data: bool = False  # inside enum, const, default or examples: JSON values, not schemas (depth only)


def check_schema_bounds(schema: dict[str, Any]) -> None:
    """Refuse ``schema`` in one :class:`OutputFormatError` line when it is past a bound (see the module)."""
    stack = [_Visit(schema, "", 1, 1, (("#", False),))]
    visits = 0
    while stack:
        visit = stack.pop()
        visits += 1
        if visits > MAX_VISITS:
            raise OutputFormatError(f"the JSON schema expands to more than {MAX_VISITS} subschemas ($ref followed)")
        if visit.depth > MAX_DEPTH:
            raise OutputFormatError(f"the JSON schema nests deeper than {MAX_DEPTH} levels at {_shown(visit.where)}")
        node = visit.node
        if isinstance(node, list):
            stack.extend(
                _Visit(item, f"{visit.where}/{i}", visit.depth + 1, visit.repeats, visit.refs, visit.data)
                for i, item in enumerate(node)
            )
            continue
        if not isinstance(node, dict):
            continue
        if visit.data:
            stack.extend(
                _Visit(item, f"{visit.where}/{_escaped(str(key))}", visit.depth + 1, 1, (), True)
                for key, item in node.items()
            )
            continue
        _check_node(node, visit)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            stack.extend(_follow(schema, ref, visit))
        stack.extend(_children(node, visit))


def _check_node(node: dict[str, Any], visit: _Visit) -> None:
    where = _shown(visit.where)
    required = max(_count(node, "minItems"), _count(node, "minLength"), _count(node, "minProperties"), 1)
    if visit.repeats * required > MAX_REQUIRED_REPEATS:
        raise OutputFormatError(
            f"the JSON schema requires {visit.repeats * required} repetitions at {where} (nested minItems or "
            f"minLength multiply); at most {MAX_REQUIRED_REPEATS} fit any context"
        )
    properties = node.get("properties")
    if isinstance(properties, dict):
        wanted = node.get("required")
        named = {name for name in wanted if isinstance(name, str)} if isinstance(wanted, list) else set()
        optional = sum(name not in named for name in properties)
        if len(properties) > MAX_PROPERTIES:
            raise OutputFormatError(
                f"the object at {where} has {len(properties)} properties; the grammar engine takes {MAX_PROPERTIES}"
            )
        if optional > MAX_OPTIONAL_PROPERTIES:
            raise OutputFormatError(
                f"the object at {where} has {optional} optional properties; the grammar engine takes "
                f"{MAX_OPTIONAL_PROPERTIES} (list more of them in 'required')"
            )
    for key in _BRANCHES:
        branches = node.get(key)
        if isinstance(branches, list) and len(branches) > MAX_BRANCHES:
            raise OutputFormatError(f"{key} at {where} has {len(branches)} branches; at most {MAX_BRANCHES}")
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        repeats = pattern_repeats(pattern)
        if repeats > MAX_PATTERN_REPEATS:
            raise OutputFormatError(
                f"the pattern at {where} nests counted repetitions that multiply to {repeats}; "
                f"at most {MAX_PATTERN_REPEATS}"
            )


def _children(node: dict[str, Any], visit: _Visit) -> Iterator[_Visit]:
    """Every value under ``node``, with the repetition and optional-step bookkeeping of its position."""
    wanted = node.get("required")
    required = {name for name in wanted if isinstance(name, str)} if isinstance(wanted, list) else set()
    min_items = _count(node, "minItems")
    for key, value in node.items():
        where = f"{visit.where}/{_escaped(str(key))}"
        if key in _DATA:
            yield _Visit(value, where, visit.depth + 1, 1, (), True)
            continue
        if key == "properties" and isinstance(value, dict):
            for name, sub in value.items():
                optional = name not in required
                yield _Visit(
                    sub, f"{where}/{_escaped(str(name))}", visit.depth + 2, visit.repeats, _step(visit, optional)
                )
            continue
        if key == "prefixItems" and isinstance(value, list):
            for i, sub in enumerate(value):
                yield _Visit(sub, f"{where}/{i}", visit.depth + 2, visit.repeats, _step(visit, i >= min_items))
            continue
        if key in _BRANCHES and isinstance(value, list):
            several = key != "allOf" and len(value) > 1
            for i, sub in enumerate(value):
                yield _Visit(sub, f"{where}/{i}", visit.depth + 2, visit.repeats, _step(visit, several))
            continue
        repeats = visit.repeats * max(1, min_items) if key in ("items", "contains") else visit.repeats
        optional = key in ("additionalProperties", "patternProperties", "then", "else", "not", "$defs", "definitions")
        optional = optional or (key in ("items", "contains") and min_items == 0)
        yield _Visit(value, where, visit.depth + 1, repeats, _step(visit, optional))


def _step(visit: _Visit, optional: bool) -> tuple[tuple[str, bool], ...]:
    return tuple((target, True) for target, _ in visit.refs) if optional else visit.refs


def _follow(schema: dict[str, Any], ref: str, visit: _Visit) -> list[_Visit]:
    """The target of a local ``$ref`` to visit in place; a cycle that can never end is refused."""
    for target, left_out in visit.refs:
        if target == ref:
            if left_out:
                return []  # the cycle may end: its target has been checked on the way in
            raise OutputFormatError(
                f"the JSON schema's $ref {ref!r} at {_shown(visit.where)} refers back to itself with nothing the "
                "reply may leave out on the way: no finite JSON matches it"
            )
    found = _resolve(schema, ref)
    if found is None:
        return []  # the grammar compiler names a dangling $ref itself
    return [_Visit(found, pointer_of(ref), visit.depth + 1, visit.repeats, (*visit.refs, (ref, False)))]


def pointer_of(ref: str) -> str:
    """The JSON pointer of a local ``$ref`` (``#/$defs/a%20b`` -> ``/$defs/a b``)."""
    return unquote(ref[1:])


def _resolve(schema: dict[str, Any], ref: str) -> Any:
    node: Any = schema
    pointer = pointer_of(ref)
    if not pointer:
        return node
    if not pointer.startswith("/"):
        return None  # an anchor name: left to the compiler
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def pattern_repeats(pattern: str) -> int:
    """The largest product of counted repetitions (``{m,n}``) nested in ``pattern``; 1 with none.

    An open count (``{m,}``) counts as ``m`` + 1; ``*``, ``+`` and ``?`` count
    as 1: they compile to a loop, not to copies.
    """
    frames: list[int] = [1]  # per open group, the largest product inside it so far
    last = 1  # the product of the atom just read, which a quantifier multiplies
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i, last = i + 2, 1
        elif char == "[":
            i, last = _class_end(pattern, i), 1
        elif char == "(":
            frames.append(1)
            i, last = i + 1, 1
        elif char == ")":
            last = frames.pop() if len(frames) > 1 else 1
            i += 1
        elif char == "{" and (count := _count_at(pattern, i)) is not None:
            times, i = count
            last *= times
        else:
            i, last = i + 1, 1
        frames[-1] = max(frames[-1], last)
    return max(frames)


def _class_end(pattern: str, start: int) -> int:
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


def _count_at(pattern: str, start: int) -> tuple[int, int] | None:
    """``({m}|{m,n}|{m,}) `` at ``start``: its largest count and the index after it; None when not a count."""
    end = pattern.find("}", start)
    if end < 0:
        return None
    low, comma, high = pattern[start + 1 : end].partition(",")
    if not low.isdigit() or (high and not high.isdigit()) or len(low) > 9 or len(high) > 9:
        return None
    if not comma:
        return int(low), end + 1
    return (int(high) if high else int(low) + 1), end + 1


def _count(node: dict[str, Any], key: str) -> int:
    value = node.get(key)
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _shown(where: str) -> str:
    return repr("#" + where)[:200]
