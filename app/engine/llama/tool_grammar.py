"""The grammar that holds each tool call to its tool's schema while the reply is drafted and verified.

:func:`plan_tool_grammar` writes, for a reply offered ``tools`` in a dialect,
the llguidance grammar of one call's body, entered right after the
dialect's call opener:

- ``<tool_call>`` for Hermes (the body is the call's JSON, then ``</tool_call>``)
  and for the XML-parameter dialect (Qwen3-Coder: ``<function=name>``, each
  parameter as ``<parameter=key>`` and its value, ``</function>``, ``</tool_call>``);
- ``<|python_tag|>`` for Llama 3.x (calls parted by ``;`` to the reply's end);
- ``[TOOL_CALLS]`` for Mistral (the JSON list, or ``name[ARGS]{...}`` per call);
- ``<|channel|>`` and ``<|start|>`` for gpt-oss harmony: a header that names
  ``functions.name`` as its recipient (after the channel, or right after the
  role ``assistant`` that follows ``<|start|>``), then that tool's JSON
  arguments; any other header (``analysis``, ``final``, a commentary without a
  recipient) ends the grammar at its ``<|message|>``, and the message is free
  text. The prompt ends with ``<|start|>assistant``, so the reply starts inside
  the grammar after that role, and its first header is held too.

The JSON of a call is one of the offered tools' names with the arguments that
tool's JSON schema allows (``anyOf`` over the tools). An XML parameter's value
is the JSON its property's schema allows, or, for a ``string`` property (and one
without a type), any text up to ``</parameter>`` (an enum of strings: one of
them); a tool whose schema lists properties takes those in any order, each
at most once and the required ones all (past a few properties: any order and
count, and the reader turns down a repeated or missing one), and a parameter
the schema does not list as its ``additionalProperties`` says (absent: any
text, a schema: held to it, false: none); one that lists none takes any.
An opener must be one vocabulary entry (a special or user-defined token), so
a call starts at a token boundary; where none is, the call is read but not
held, and :func:`plan_tool_grammar` gives None.
A tool schema llguidance cannot compile leaves the reply free too: the call is
then read, and checked, as before.

:func:`call_mask` makes the reply's :class:`~app.core.decoding.call_mask.CallMask`.
A steered reply (``serve``'s required or named call) starts inside its call:
the steering text after the opener is consumed by the call's grammar first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import llguidance

from app.core.decoding.call_mask import CallMask
from app.core.tools.call_stream import ToolDialect, ToolFormat
from app.core.tools.dialects import (
    ARGS,
    H_CHANNEL,
    H_CONSTRAIN,
    H_MESSAGE,
    H_ROLE,
    H_START,
    PYTHON_TAG,
    TOOL_CALLS,
    MistralDialect,
)
from app.core.tools.hermes import CLOSE, OPEN
from app.core.tools.records import ToolSpec
from app.engine.llama.grammar import JSON_WHITESPACE, GrammarMask, grammar_tokenizer
from app.engine.llama.model import LlamaModel

_HEAD = "%llguidance {}\n"


@dataclass(frozen=True, slots=True)
class ToolGrammar:
    """A reply's call grammar: one call's body in llguidance's Lark syntax, its openers' ids, and how calls end."""

    grammar: str
    openers: tuple[int, ...]  # none: only a steered reply's call is held
    closes: bool  # a call ends at its closer (else it runs to the reply's end)
    inside: tuple[int, ...] | None = None  # a steered reply: the steering tokens after the opener (None: not steered)


def _call_schema(tools: Sequence[ToolSpec], arguments_key: str) -> dict[str, Any]:
    """One call's JSON: an offered tool's name and the arguments its schema allows."""
    options = [
        {
            "type": "object",
            "properties": {"name": {"const": t.name}, arguments_key: t.parameters or {"type": "object"}},
            "required": ["name", arguments_key],
            "additionalProperties": False,
        }
        for t in tools
    ]
    return {"anyOf": options, "x-guidance": {"whitespace_pattern": JSON_WHITESPACE, "lenient": True}}


def _literal(text: str, tokens: Mapping[str, int]) -> str:
    """``text`` in a grammar: its token when one vocabulary entry spells it (only that token can), else the text."""
    found = tokens.get(text)
    return f"<[{found}]>" if found is not None else json.dumps(text)


def _json(schema: Mapping[str, Any] | None) -> str:
    """A value held to ``schema`` (no schema: any object), in llguidance's JSON syntax."""
    held = {**(schema or {"type": "object"}), "x-guidance": {"whitespace_pattern": JSON_WHITESPACE, "lenient": True}}
    return f"%json {json.dumps(held)}"


_PARAMETER_END = "</parameter>"
# Any text up to the first </parameter>, which ends it (lazy: the shortest match).
_TEXT_VALUE = r"/(?s:.*)<\/parameter>/"
_PARAMETER_NAME = r"/[A-Za-z0-9_.-]+/"
_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def _xml_value(spec: Any) -> str:
    """A parameter's value and its closing tag, as its property's schema allows (see the module docstring)."""
    if not isinstance(spec, Mapping) or not isinstance(spec.get("type"), str):
        return "text"
    if spec["type"] == "string":
        enum = spec.get("enum")
        if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
            choices = " | ".join(json.dumps(v) for v in enum)
            return f'"\\n"? ({choices}) "\\n"? "{_PARAMETER_END}"'
        return "text"
    return f'"\\n"? {_json(spec)} "\\n"? "{_PARAMETER_END}"'


# Up to this many listed properties the grammar itself holds "each at most once, the required ones all" (one
# rule per set of parameters written so far, 2**n of them); past it, any order and any count are let through and
# the reader turns down a call that repeats a parameter or leaves a required one out.
_ORDER_HELD_UP_TO = 8


def _extra_parameters(tool: int, schema: Mapping[str, Any], keys: Sequence[str]) -> str | None:
    """The rule of a parameter the schema does not list, as ``additionalProperties`` allows (None: none)."""
    extra = schema.get("additionalProperties", True)
    if extra is False:
        return None
    spec = extra if isinstance(extra, Mapping) else None
    # A listed key is no extra one: its value keeps to its own schema.
    listed = "|".join(re.escape(k) for k in keys if _NAME.fullmatch(k))  # others cannot be spelt as an extra
    name = f"{_PARAMETER_NAME} & ~/({listed})/" if listed else _PARAMETER_NAME
    return f'x{tool}: "<parameter=" X{tool} ">" {_xml_value(spec)} "\\n"?\nX{tool}: {name}'


def _xml_parameters(tool: int, schema: Mapping[str, Any], properties: Mapping[str, Any]) -> list[str]:
    """The rules of one tool's parameters: any order, each listed one at most once, the required ones all."""
    keys = list(properties)
    required = schema.get("required", [])
    needed = {j for j, k in enumerate(keys) if isinstance(required, list) and k in required}
    rules = [
        f'p{tool}_{j}: {json.dumps("<parameter=" + key + ">")} {_xml_value(spec)} "\\n"?'
        for j, (key, spec) in enumerate(properties.items())
    ]
    extra = _extra_parameters(tool, schema, keys)
    if extra is not None:
        rules.append(extra)
    if len(keys) > _ORDER_HELD_UP_TO:
        choices = [f"p{tool}_{j}" for j in range(len(keys))] + ([f"x{tool}"] if extra is not None else [])
        rules.append(f"a{tool}: ({' | '.join(choices)})*")
        return rules
    # a{tool}_{written}: the parameters still to come once those in the bit set ``written`` were.
    for written in range(1 << len(keys)):
        options = [f"p{tool}_{j} a{tool}_{written | 1 << j}" for j in range(len(keys)) if not written >> j & 1]
        if extra is not None:
            options.append(f"x{tool} a{tool}_{written}")
        if all(written >> j & 1 for j in needed):
            options.append('""')
        rules.append(f"a{tool}_{written}: " + " | ".join(options))
    rules.append(f"a{tool}: a{tool}_0")
    return rules


def _xml_grammar(tools: Sequence[ToolSpec], close: str) -> str:
    """Qwen3-Coder's call: ``<function=name>``, the tool's parameters, ``</function>``, the closer."""
    functions = " | ".join(f"f{i}" for i in range(len(tools)))
    rules = [
        f'start: "\\n"? "<function=" ({functions}) "</function>" "\\n"? {close}',
        f"text[lazy]: {_TEXT_VALUE}",
        f'any_parameter: "<parameter=" {_PARAMETER_NAME} ">" text "\\n"?',
    ]
    for i, tool in enumerate(tools):
        schema = tool.parameters or {}
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            extra = schema.get("additionalProperties", True) is not False
            rules.append(f'f{i}: {json.dumps(tool.name + ">")} "\\n"?' + (" any_parameter*" if extra else ""))
            continue
        rules.extend(_xml_parameters(i, schema, properties))
        rules.append(f'f{i}: {json.dumps(tool.name + ">")} "\\n"? a{i}')
    return _HEAD + "\n".join(rules) + "\n"


def _harmony_grammar(tools: Sequence[ToolSpec], tokens: Mapping[str, int]) -> str:
    """A harmony header after ``<|channel|>`` or ``<|start|>``: a call's (recipient, content type, arguments) or other.

    After ``<|start|>`` comes the role, ``assistant``, and the recipient may follow it before the
    channel (``<|start|>assistant to=functions.name<|channel|>commentary json<|message|>``), the form
    gpt-oss's template writes for earlier calls. The grammar cannot tell which opener it follows;
    the two are told apart by their first word (a channel's name, or the role).
    """
    message, constrain, channel = (
        _literal(H_MESSAGE, tokens),
        _literal(H_CONSTRAIN, tokens),
        _literal(H_CHANNEL, tokens),
    )
    content_type = f'(" json" | " " {constrain} "json")?'
    calls = " | ".join(f"c{i}" for i in range(len(tools)))
    routed = " | ".join(f"r{i}" for i in range(len(tools)))
    rules = [
        "start: other | call | role",
        f'other: ("analysis" | "final" | "commentary") {content_type} {message}',
        # "commentary" is a lexeme of its own: were it a prefix of a longer one, its other headers would not lex.
        f'call: "commentary" " to=functions." ({calls})',
        f'role: {json.dumps(H_ROLE)} (" to=functions." ({routed}) | {channel} (other | call))',
    ]
    for i, tool in enumerate(tools):
        name, arguments = json.dumps(tool.name), _json(tool.parameters)
        rules.append(f"c{i}: {name} {content_type} {message} {arguments}")
        rules.append(f'r{i}: {name} " "? {channel} "commentary" {content_type} {message} {arguments}')
    return _HEAD + "\n".join(rules) + "\n"


def call_body_grammar(
    dialect: ToolDialect, tools: Sequence[ToolSpec], tokens: Mapping[str, int]
) -> tuple[str, tuple[str, ...], bool] | None:
    """One call body's grammar (Lark), its openers' texts, and whether a call closes; None: not held.

    ``tokens`` are the vocabulary's special and user-defined tokens by their text:
    a marker one of them spells is written as that token, any other as text.
    """
    fmt = dialect.format
    if fmt is ToolFormat.HERMES:
        call = json.dumps(_call_schema(tools, "arguments"))
        return _HEAD + f'start: "\\n"? call "\\n"? {_literal(CLOSE, tokens)}\ncall: %json {call}\n', (OPEN,), True
    if fmt is ToolFormat.XML:
        return _xml_grammar(tools, _literal(CLOSE, tokens)), (OPEN,), True
    if fmt is ToolFormat.LLAMA3:
        call = json.dumps(_call_schema(tools, "parameters"))
        return _HEAD + f'start: call (";" " "? call)*\ncall: %json {call}\n', (PYTHON_TAG,), False
    if fmt is ToolFormat.HARMONY:
        return _harmony_grammar(tools, tokens), (H_CHANNEL, H_START), True
    if fmt is ToolFormat.MISTRAL and isinstance(dialect, MistralDialect):
        if not dialect.named:
            call = json.dumps(_call_schema(tools, "arguments"))
            return _HEAD + f'start: " "? "[" call ("," " "? call)* "]"\ncall: %json {call}\n', (TOOL_CALLS,), False
        names = " | ".join(f"c{i}" for i in range(len(tools)))
        rules = [f"start: named ({_literal(TOOL_CALLS, tokens)} named)*\nnamed: {names}"]
        for i, tool in enumerate(tools):
            schema = {**(tool.parameters or {"type": "object"}), "x-guidance": {"whitespace_pattern": JSON_WHITESPACE}}
            rules.append(
                f"c{i}: {json.dumps(tool.name)} {_literal(ARGS, tokens)} a{i}\na{i}: %json {json.dumps(schema)}"
            )
        return _HEAD + "\n".join(rules) + "\n", (TOOL_CALLS,), False
    return None


def plan_tool_grammar(
    model: LlamaModel,
    dialect: ToolDialect,
    tools: Sequence[ToolSpec],
    specials: Sequence[tuple[str, int]],
    reply_prefix: str = "",
    prefix_tokens: Callable[[str], list[int]] = lambda _text: [],
    opens_message: bool = False,
) -> ToolGrammar | None:
    """The call grammar of a reply offered ``tools`` (None: calls are not held; see the module docstring).

    ``specials`` are the (text, id) of the vocabulary's special and user-defined
    tokens; ``reply_prefix`` a steered reply's start (its text after the opener
    is tokenised by ``prefix_tokens``, as the prompt holds it, and consumed by the call's grammar first).
    ``opens_message``: the prompt ends with harmony's ``<|start|>assistant``, so an unsteered
    harmony reply starts inside the grammar, after that role (its first header is held too).
    """
    if not tools:
        return None
    tokens = {text: token for text, token in specials}
    body = call_body_grammar(dialect, tools, tokens)
    if body is None:
        return None
    grammar, opener_texts, closes = body
    openers = tuple(tokens[text] for text in opener_texts if text in tokens)
    if reply_prefix:
        steering: list[int] | None = prefix_tokens(reply_prefix.removeprefix(opener_texts[0]))
    elif opens_message and dialect.format is ToolFormat.HARMONY and H_START in tokens:
        steering = prefix_tokens(H_ROLE)
    else:
        steering = None
    if not openers and steering is None:
        return None
    tokenizer, _ = grammar_tokenizer(model)
    try:
        compiled = llguidance.LLMatcher.grammar_from_lark(grammar)
        is_error, _messages = llguidance.LLMatcher.validate_grammar_with_warnings(compiled, tokenizer)
    except (ValueError, TypeError, RecursionError):
        return None
    if is_error:
        return None
    return ToolGrammar(compiled, openers, closes, None if steering is None else tuple(steering))


def call_mask(model: LlamaModel, plan: ToolGrammar) -> CallMask | None:
    """A fresh mask for one reply under ``plan``; None when a steered start does not fit the grammar."""
    tokenizer, eog = grammar_tokenizer(model)

    def start() -> GrammarMask:
        return GrammarMask(tokenizer, plan.grammar, model.n_vocab, eog)

    inside = None
    if plan.inside is not None:
        inside = start()
        for token in plan.inside:
            if not inside.allowed()[token]:
                return None
            inside.consume(token)
    return CallMask(model.n_vocab, frozenset(plan.openers), start, plan.closes, inside)
