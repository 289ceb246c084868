"""What a remote OpenAI-compatible server sends, checked before anything uses it.

Every stream event and every ``/v1/models`` answer passes through here once:
the bytes are size-capped before ``json.loads`` (a nesting too deep for the
parser is caught as :class:`RecursionError`), every field the client reads is
type-checked and range-checked, and the result is a typed record. Anything
else is one :class:`WireError` whose text begins "the server sent an event
Tandem cannot read: ...", so the client ends the reply with that line and the
partial reply, never a traceback. Lengths a server states (draft counts,
histogram widths) are data checked against plausible bounds, never sizes to
allocate.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.core.errors import TandemError
from app.core.reply.token_record import TokenRecord

# A verify step drafts a few tokens (Tandem at most 32, llama-server's --draft-max 16 by default);
# a step or a vLLM histogram claiming more than this is not a real server's.
MAX_STEP_DRAFT = 1024
# Counters a server reports (tokens, steps): a reply of this many tokens is far past any context.
MAX_COUNT = 1 << 40
# vLLM's detailed per-step list has one entry per verify step; a reply has at most a few thousand.
MAX_PER_STEP = 1 << 20
MAX_MODELS = 10_000  # entries of /v1/models


class WireError(TandemError):
    """Something a server sent that Tandem cannot read (the text says what)."""

    PREFIX = "the server sent an event Tandem cannot read: "

    def __init__(self, what: str) -> None:
        super().__init__(self.PREFIX + what)


@dataclass(frozen=True, slots=True)
class TandemStep:
    """The ``tandem`` extension of one chunk: a verify step's tokens with their origins."""

    tokens: tuple[TokenRecord, ...]  # the token record every JSON format shares
    drafted: int | None
    accepted: int | None


@dataclass(frozen=True, slots=True)
class Counters:
    """llama-server's (and Tandem's) ``timings``: the running counters the client reads, and the whole object."""

    prompt_n: int | None  # prompt tokens the server read for this request
    predicted_n: int | None
    draft_n: int | None
    draft_n_accepted: int | None
    raw: dict[str, Any]
    cache_n: int | None = None  # prompt tokens it did not read again: its cache held them


@dataclass(frozen=True, slots=True)
class VllmSpec:
    """vLLM's ``metrics.speculative_decoding`` summary, checked and bounded."""

    num_spec_steps: int | None
    num_draft_tokens: int | None
    num_accepted_draft_tokens: int | None
    num_spec_tokens: int
    acceptance_histogram: tuple[int, ...]
    per_step_drafted: tuple[int, ...]
    raw: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Choice:
    """One entry of ``choices``: the text it adds and why generation ended, if it did."""

    content: str
    finish_reason: str | None


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One ``data:`` event of a chat-completion stream."""

    choices: tuple[Choice, ...] = ()
    timings: Counters | None = None
    vllm: VllmSpec | None = None
    tandem: TandemStep | None = None
    error: str | None = None  # the server's own error report inside the stream

    @property
    def content(self) -> str:
        """The text all choices add."""
        return "".join(c.content for c in self.choices)


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """One entry of ``/v1/models``."""

    id: str
    owned_by: str
    entry: dict[str, Any]


def _show(value: Any) -> str:
    """A short, safe rendering of a value a server sent (for the error line)."""
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        text = f"a {type(value).__name__} too long to show"
    return text if len(text) <= 40 else text[:37] + "..."


def loads(data: bytes | str, max_bytes: int) -> Any:
    """``json.loads`` with the size checked first and a too-deep nesting caught."""
    if len(data) > max_bytes:
        raise WireError(f"an event of more than {max_bytes:,} bytes")
    try:
        return json.loads(data)
    except RecursionError:
        raise WireError("JSON nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        shown = data[:80] if isinstance(data, str) else data[:80].decode("utf-8", "replace")
        # A syntax error says enough with the text; another (a number of 5,000 digits) says what it was.
        why = "" if isinstance(exc, json.JSONDecodeError) else f" ({str(exc)[:80]})"
        raise WireError(f"malformed JSON {shown!r}{why}") from None


def parse_event(data: bytes | str, max_bytes: int) -> StreamEvent:
    """One ``data:`` payload as a checked :class:`StreamEvent`."""
    obj = loads(data, max_bytes)
    if not isinstance(obj, dict):
        raise WireError(f"an event that is not an object ({type(obj).__name__})")
    if "error" in obj:
        return StreamEvent(error=error_text(obj))
    return StreamEvent(
        choices=_choices(obj.get("choices")),
        timings=_counters(obj.get("timings")),
        vllm=_vllm(obj.get("metrics")),
        tandem=_tandem(obj.get("tandem")),
    )


def parse_models(data: bytes, max_bytes: int) -> list[ModelEntry]:
    """A ``/v1/models`` body as checked entries."""
    obj = loads(data, max_bytes)
    listed = obj.get("data") if isinstance(obj, dict) else None
    if listed is None:
        listed = []
    if not isinstance(listed, list):
        raise WireError(f"a model list whose data is {type(listed).__name__}, not a list")
    if len(listed) > MAX_MODELS:
        raise WireError(f"a model list of {len(listed):,} entries (at most {MAX_MODELS:,})")
    out = []
    for item in listed:
        if not isinstance(item, dict):
            raise WireError(f"a model entry that is {type(item).__name__}, not an object")
        model_id = item.get("id")
        if not isinstance(model_id, str | int) or isinstance(model_id, bool) or str(model_id) == "":
            raise WireError(f"a model entry without a usable id ({_show(model_id)})")
        owner = item.get("owned_by", "")
        out.append(ModelEntry(str(model_id), owner if isinstance(owner, str) else "", item))
    return out


def error_text(payload: Any) -> str:
    """The message of an OpenAI-style error object, as one short line of text."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        message = error.get("message")
        text = message if isinstance(message, str) and message else json.dumps(error)[:200]
    elif isinstance(error, str):
        text = error
    else:
        text = json.dumps(payload)[:200] if error is None else str(error)
    return " ".join(text.split())[:500]


def check_base_url(url: str) -> str:
    """``url`` if it is a usable http(s) URL with a host, else :class:`TandemError` saying why."""
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise TandemError(f"{url!r:.200} is not a usable server URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TandemError(f"{url!r:.200} is not a usable server URL: it must be http(s)://HOST[:PORT]/...")
    del port
    return url


# -- the fields -----------------------------------------------------------------------


def _choices(value: Any) -> tuple[Choice, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise WireError(f"choices as {type(value).__name__}, not a list")
    if len(value) > 16:
        raise WireError(f"{len(value)} choices in one event (one was asked for)")
    out = []
    for choice in value:
        if not isinstance(choice, dict):
            raise WireError(f"a choice that is {type(choice).__name__}, not an object")
        delta = choice.get("delta")
        if delta is None:
            delta = {}
        if not isinstance(delta, dict):
            raise WireError(f"a delta that is {type(delta).__name__}, not an object")
        content = delta.get("content")
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise WireError(f"content as {type(content).__name__}, not text")
        reason = choice.get("finish_reason")
        if reason is not None and not isinstance(reason, str):
            raise WireError(f"finish_reason as {type(reason).__name__}, not text")
        out.append(Choice(content, reason))
    return tuple(out)


def _count(obj: dict[str, Any], key: str, where: str, limit: int = MAX_COUNT) -> int | None:
    """``obj[key]`` as a count in [0, limit], None when absent; anything else is a WireError."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # some servers write counts as 3.0
    if not isinstance(value, int) or isinstance(value, bool):
        raise WireError(f"{where}.{key} as {type(value).__name__} ({_show(value)}), not a count")
    if not 0 <= value <= limit:
        raise WireError(f"{where}.{key} = {_show(value)} (a count from 0 to {limit:,})")
    return value


def _counters(value: Any) -> Counters | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise WireError(f"timings as {type(value).__name__}, not an object")
    keys = ("prompt_n", "predicted_n", "draft_n", "draft_n_accepted", "cache_n")
    prompt_n, predicted_n, draft_n, accepted_n, cache_n = (_count(value, k, "timings") for k in keys)
    if draft_n is not None and accepted_n is not None and accepted_n > draft_n:
        raise WireError(f"timings with more accepted drafts ({accepted_n}) than drafted ({draft_n})")
    return Counters(prompt_n, predicted_n, draft_n, accepted_n, value, cache_n)


def _int_list(value: Any, where: str, max_len: int, max_item: int) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise WireError(f"{where} as {type(value).__name__}, not a list")
    if len(value) > max_len:
        raise WireError(f"{where} of {len(value):,} entries (at most {max_len:,})")
    out = []
    for item in value:
        if isinstance(item, float) and item.is_integer():
            item = int(item)
        if not isinstance(item, int) or isinstance(item, bool) or not 0 <= item <= max_item:
            raise WireError(f"{where} holding {_show(item)} (counts from 0 to {max_item:,})")
        out.append(item)
    return tuple(out)


def _vllm(value: Any) -> VllmSpec | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise WireError(f"metrics as {type(value).__name__}, not an object")
    spec = value.get("speculative_decoding")
    if not spec:
        return None
    if not isinstance(spec, dict):
        raise WireError(f"metrics.speculative_decoding as {type(spec).__name__}, not an object")
    where = "speculative_decoding"
    width = _count(spec, "num_spec_tokens", where, MAX_STEP_DRAFT) or 0
    return VllmSpec(
        _count(spec, "num_spec_steps", where),
        _count(spec, "num_draft_tokens", where),
        _count(spec, "num_accepted_draft_tokens", where),
        width,
        _int_list(spec.get("acceptance_histogram"), f"{where}.acceptance_histogram", MAX_STEP_DRAFT + 1, MAX_COUNT),
        _int_list(spec.get("per_step_drafted"), f"{where}.per_step_drafted", MAX_PER_STEP, MAX_STEP_DRAFT),
        value,
    )


def parse_tandem(value: dict[str, Any]) -> TandemStep:
    """A ``tandem`` object checked (:class:`WireError` when it is malformed)."""
    step = _tandem(value)
    return step if step is not None else TandemStep((), None, None)


def _tandem(value: Any) -> TandemStep | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise WireError(f"tandem as {type(value).__name__}, not an object")
    raw_tokens = value.get("tokens")
    if raw_tokens is None:
        raw_tokens = []
    if not isinstance(raw_tokens, list):
        raise WireError(f"tandem.tokens as {type(raw_tokens).__name__}, not a list")
    if len(raw_tokens) > MAX_STEP_DRAFT + 1:
        raise WireError(f"a step of {len(raw_tokens):,} tokens (at most {MAX_STEP_DRAFT + 1:,})")
    tokens = []
    for t in raw_tokens:
        try:
            record = TokenRecord.from_json(t, "a tandem token")
        except ValueError as exc:
            raise WireError(str(exc)) from None
        if record.id is not None and not -1 <= record.id < 1 << 31:
            raise WireError(f"a tandem token id {_show(record.id)}")
        for key, p in (("p_target", record.p_target), ("q_draft", record.q_draft)):
            if p is not None and not math.isnan(p) and not 0.0 <= p <= 1.0:
                raise WireError(f"tandem.tokens[].{key} = {p} (a probability)")
        tokens.append(record)
    drafted = _count(value, "drafted", "tandem", MAX_COUNT)
    accepted = _count(value, "accepted", "tandem", MAX_COUNT)
    return TandemStep(tuple(tokens), drafted, accepted)
