"""Render chat messages to prompt tokens with the model's own template.

The GGUF's ``tokenizer.chat_template`` is a Jinja template; llama-cpp-python's
Jinja2ChatFormatter renders it in a sandbox the way Hugging Face does. Only
the template's own text may become special tokens (``<|im_start|>`` must be
one token); message contents are tokenised as plain text, so a message that
contains ``<|im_end|><|im_start|>system`` cannot open a turn
(``app/core/conversation/prompt_segments.py`` finds which text is whose). No extra BOS is
added when the template writes its own.

Plain-text tokenising is not enough on its own: llama.cpp matches a
vocabulary's user-defined tokens (Qwen's ``<tool_call>``) even without special
parsing. Where such a token's text would take in a content's characters, the
text is cut inside it and the pieces tokenised apart (:meth:`ChatTemplate.plain_tokens`
does the same for any text that is not the template's), so only the template's
own text yields those ids too.

A template with its own reasoning switch (Qwen3's ``enable_thinking``,
others' ``thinking``) gets it from the conversation: "/think" or
"/no_think" in the system prompt or a user turn
(:func:`~app.core.reply.reasoning.thinking_asked`) sets it, and a silent
conversation leaves the template's default.

"Continue" renders the conversation up to an unfinished assistant turn without
closing it: the turns before it with the assistant's opener, then the partial
reply's text as plain content, so generation goes on inside the same turn.

Tools go into the template's own ``tools`` variable (so each family's template
writes them its way, and :meth:`ChatTemplate.tool_dialect` reads the calls back),
an assistant turn's calls into its ``tool_calls`` (arguments as objects, as
Hugging Face templates expect) and a tool result is a message with role
``tool``. A result's text is a content like any other, so it stays text. Tool
specs and call arguments are written by the template's ``tojson``, i.e. as
template text; ours escapes the first character of any special token's text
(and of any user-defined token that only a JSON string can hold)
inside that JSON (``\u003c|im_end|>``), which is the same JSON to any reader
but can never become a special token.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import llama_cpp
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from app.core.conversation.chat import Message
from app.core.conversation.images import MARKER
from app.core.conversation.prompt_segments import Segment, guard_plain_text, segment_prompt, split_at_specials
from app.core.reply.reasoning import THINK, ReasoningMarkers, thinking_asked
from app.core.tools.call_stream import ToolDialect, ToolFormat
from app.core.tools.dialects import dialect_for, tool_format
from app.core.tools.records import ToolSpec
from app.engine.gguf.header import GGUFHeader

# Vocabulary entries llama.cpp matches in text only when special parsing is on.
_PARSED_ONLY_AS_SPECIAL = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_UNKNOWN
# Entries it matches in plain text too (Qwen's ``<tool_call>``): only the template's own text may spell them.
_MATCHED_IN_PLAIN_TEXT = llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
# Punctuation JSON writes outside its strings (besides letters, digits and whitespace).
_JSON_PUNCTUATION = frozenset('{}[],:"-+.')


class TemplateModel(Protocol):
    """What the template needs of a model: its header and llama-cpp-python's tokenizer."""

    @property
    def header(self) -> GGUFHeader:
        """The GGUF metadata (the chat template lives there)."""
        ...

    @property
    def llama(self) -> llama_cpp.Llama:
        """The loaded model or vocabulary."""
        ...


class _ToolSafeFormatter(Jinja2ChatFormatter):
    """llama-cpp-python's formatter whose ``tojson`` keeps special tokens' texts from appearing in its JSON."""

    def __init__(self, escape: Callable[[str], str], **kwargs: Any) -> None:
        self._escape = escape  # set first: the parent's __init__ registers self.tojson as the filter
        super().__init__(**kwargs)

    def tojson(  # type: ignore[override]  # a method, not the parent's staticmethod: it needs the escape
        self,
        x: Any,
        ensure_ascii: bool = False,
        indent: int | None = None,
        separators: tuple[str, str] | None = None,
        sort_keys: bool = False,
    ) -> str:
        return self._escape(Jinja2ChatFormatter.tojson(x, ensure_ascii, indent, separators, sort_keys))


class ChatTemplate:
    """The prompt format of one model."""

    def __init__(self, model: TemplateModel) -> None:
        self.model = model
        llama = model.llama
        self._llama = llama
        self._vocab = llama_cpp.llama_model_get_vocab(llama.model)
        template = model.header.get("tokenizer.chat_template")
        self.has_template = isinstance(template, str) and bool(template.strip())
        self._template_text = template if isinstance(template, str) else None
        # The dialect the template's text describes; a front end may set another (a setting or option names it).
        self.tool_format: ToolFormat | None = tool_format(self._template_text)
        self._formatter: Jinja2ChatFormatter | None = None
        if self.has_template:
            eos, bos = llama.token_eos(), llama.token_bos()
            self._formatter = _ToolSafeFormatter(
                self._escape_specials,
                template=template,
                eos_token=self._text(eos) if eos >= 0 else "",
                bos_token=self._text(bos) if bos >= 0 else "",
                add_generation_prompt=True,
            )
        self._specials: list[tuple[str, int]] | None = None
        self._guarded: list[tuple[str, int]] | None = None
        # The template's own switch for reasoning, where it has one (Qwen3's enable_thinking, others' thinking).
        self.thinking_switch: str | None = None
        if self._formatter is not None and isinstance(template, str):
            # Parsed by the formatter's own environment (its extensions), which compiled it already.
            self.thinking_switch = _thinking_switch(self._formatter._environment.environment.parse(template))

    def tool_dialect(self, tools: Sequence[ToolSpec] = ()) -> ToolDialect | None:
        """How this model writes calls to ``tools`` (None: the template has no tool format), for every front end."""
        if self.tool_format is None:
            return None
        return dialect_for(self.tool_format, tools, self._template_text)

    def render_text(self, messages: Sequence[Message]) -> tuple[str, bool]:
        """The prompt text, and whether it already contains the special tokens it needs."""
        return self._render(messages, asked=thinking_asked(messages)), self._formatter is not None

    def render(
        self,
        messages: Sequence[Message],
        continue_reply: bool = False,
        tools: Sequence[ToolSpec] = (),
        reply_prefix: str = "",
        image_ids: Mapping[str, Sequence[int]] | None = None,
    ) -> list[int]:
        """Prompt tokens for ``messages`` ending with the assistant's turn opener.

        Equal to tokenising :meth:`render_text` with special tokens parsed when no
        content contains a special or user-defined token's text; where one does, that
        text stays text.
        With ``continue_reply`` the last message is an unfinished assistant reply:
        the prompt ends inside that turn, after its text, with nothing closing it.
        ``tools`` are rendered by the template (its ``tools`` variable); ``reply_prefix``
        is template text after the assistant's opener, the start of the reply that the
        model goes on from (``serve`` steers a required tool call with it).
        ``image_ids``: the ids each message image's positions carry, by the image's digest
        (:mod:`app.engine.llama.vision`), put where its marker is; a marker without them is an error.
        """
        if (tools or any(m.tool_calls or m.role == "tool" for m in messages)) and self.tool_format is None:
            raise ValueError("this model's chat template has no tool format")

        asked = thinking_asked(messages)

        def render_text(batch: Sequence[Message]) -> str:
            return self._render(batch, tools, asked)

        if continue_reply:
            if not messages or messages[-1].role != "assistant":
                raise ValueError("only an assistant reply can be continued")
            # The opener comes from the generation prompt of the turns before, as when the reply began;
            # rendering the reply as a finished turn and cutting its end off would depend on each template.
            segments = segment_prompt(render_text, messages[:-1])
            lead = "" if self._formatter is not None else " "  # the plain transcript's "Assistant:" wants a space
            segments.append(Segment(lead + messages[-1].content, True))
        else:
            segments = segment_prompt(render_text, messages)
        if reply_prefix:
            segments.append(Segment(reply_prefix, False))
        tokens: list[int] = []
        add_special = self._formatter is None  # a Jinja template writes its own BOS
        if add_special and llama_cpp.llama_vocab_get_add_bos(self._vocab):
            tokens.append(self._llama.token_bos())
        tokens += self._tokens(segments, image_ids)
        if add_special and llama_cpp.llama_vocab_get_add_eos(self._vocab):
            tokens.append(self._llama.token_eos())
        return tokens

    def template_tokens(self, text: str) -> list[int]:
        """``text`` as :meth:`render` tokenises template text (a reply prefix): each marker's text as its token."""
        return self._tokens([Segment(text, False)])

    def _tokens(self, segments: Sequence[Segment], image_ids: Mapping[str, Sequence[int]] | None = None) -> list[int]:
        tokens: list[int] = []
        for part in split_at_specials(segments, self.specials(), [text for text, _ in self.guarded()]):
            if isinstance(part, int):
                tokens.append(part)
            else:
                tokens.extend(self._text_and_images(part, image_ids or {}))
        return tokens

    def _text_and_images(self, text: str, image_ids: Mapping[str, Sequence[int]]) -> list[int]:
        """``text`` tokenised, each image marker in it replaced by that image's ids."""
        tokens: list[int] = []
        start = 0
        for found in MARKER.finditer(text):
            ids = image_ids.get(found.group(1))
            if ids is None:
                raise ValueError("the prompt holds an image that no projector has read")
            if found.start() > start:
                tokens.extend(
                    self._llama.tokenize(text[start : found.start()].encode("utf-8"), add_bos=False, special=False)
                )
            tokens.extend(ids)
            start = found.end()
        if start < len(text):
            tokens.extend(self._llama.tokenize(text[start:].encode("utf-8"), add_bos=False, special=False))
        return tokens

    def plain_tokens(self, text: str) -> list[int]:
        """``text`` as ordinary text tokens: neither a special nor a user-defined token can arise from it."""
        pieces = guard_plain_text(text, [(0, len(text))], [t for t, _ in self.guarded()])
        return [
            t for piece in pieces for t in self._llama.tokenize(piece.encode("utf-8"), add_bos=False, special=False)
        ]

    def opens_reasoning(self, messages: Sequence[Message], markers: ReasoningMarkers = THINK) -> bool:
        """Whether the rendered prompt ends inside an opened reasoning block (DeepSeek-R1's template does)."""
        if self._formatter is None:
            return False
        return self._render(messages, asked=thinking_asked(messages)).rstrip().endswith(markers.open)

    def specials(self) -> list[tuple[str, int]]:
        """(text, id) of every token that only special parsing turns text into (read once)."""
        if self._specials is None:
            n_vocab = int(llama_cpp.llama_vocab_n_tokens(self._vocab))
            self._specials = [
                (self._text(token), token)
                for token in range(n_vocab)
                if llama_cpp.llama_vocab_get_attr(self._vocab, token) & _PARSED_ONLY_AS_SPECIAL
            ]
        return self._specials

    def guarded(self) -> list[tuple[str, int]]:
        """(text, id) of every user-defined token, which llama.cpp matches even in plain text (read once).

        Only the template's own text may become one of these; a text that is
        whitespace alone (some vocabularies spell indentation so) is left as the
        tokenizer has it, being no marker.
        """
        if self._guarded is None:
            n_vocab = int(llama_cpp.llama_vocab_n_tokens(self._vocab))
            found = (
                (self._text(token), token)
                for token in range(n_vocab)
                if llama_cpp.llama_vocab_get_attr(self._vocab, token) & _MATCHED_IN_PLAIN_TEXT
            )
            self._guarded = [(text, token) for text, token in found if text.strip()]
        return self._guarded

    def _render(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), asked: bool | None = None) -> str:
        """The prompt text; ``asked``: the conversation's reasoning switch (:func:`thinking_asked` of the real
        messages, given apart because :func:`segment_prompt` renders them with their contents replaced)."""
        if self._formatter is None:
            # No template: a plain transcript the model can continue.
            lines = [f"{m.role.capitalize()}: {_image_markers(m)}{m.content}" for m in messages]
            return "\n".join([*lines, "Assistant:"])
        shaped: Any = [_template_message(m) for m in messages]
        # llama_cpp types these as OpenAI request TypedDicts; the template takes plain dicts.
        listed: Any = [t.to_openai() for t in tools] or None
        switches: dict[str, Any] = {}
        if self.thinking_switch is not None and asked is not None:
            # "/think" or "/no_think" in the system prompt reaches the template's own switch.
            switches[self.thinking_switch] = asked
        result = self._formatter(messages=shaped, tools=listed, **switches)
        return str(result.prompt)

    def _escape_specials(self, json_text: str) -> str:
        """``json_text`` with the first character of every marker's text (:meth:`_json_escaped`) as a JSON escape.

        JSON puts text only inside strings, where ``\u003c`` reads as ``<``: the value is the same.
        """
        for text in self._json_escaped():
            if text in json_text:
                json_text = json_text.replace(text, f"\\u{ord(text[0]):04x}{text[1:]}")
        return json_text

    def _json_escaped(self) -> list[str]:
        """The texts :meth:`_escape_specials` escapes: every special's, and each user-defined token's that only
        a JSON string can hold (one starting with a letter, digit, space or JSON's punctuation could stand outside)."""
        user_defined = [
            text
            for text, _ in self.guarded()
            if not (text[0].isalnum() or text[0].isspace() or text[0] in _JSON_PUNCTUATION)
        ]
        return [
            text for text in [t for t, _ in self.specials()] + user_defined if len(text) > 1 and ord(text[0]) <= 0xFFFF
        ]

    def _text(self, token: int) -> str:
        raw = llama_cpp.llama_vocab_get_text(self._vocab, token)
        return raw.decode("utf-8", errors="replace") if raw else ""


# Template variables that switch a model's reasoning on or off, in the order they are looked for.
THINKING_SWITCHES = ("enable_thinking", "thinking")


def _thinking_switch(parsed: Any) -> str | None:
    """The variable a parsed template reads to switch reasoning (None: it reads none of them)."""
    read: set[str] = set()
    pending = [parsed]
    while pending:
        node = pending.pop()
        if type(node).__name__ == "Name" and getattr(node, "ctx", "") == "load":
            read.add(node.name)
        pending.extend(node.iter_child_nodes())
    return next((name for name in THINKING_SWITCHES if name in read), None)


def _image_markers(message: Message) -> str:
    """The message's images' markers, put before its text as llama.cpp's own server places media."""
    return "".join(image.marker for image in message.images)


def _template_message(message: Message) -> dict[str, Any]:
    """A message as Hugging Face chat templates read it, tool calls and call ids included."""
    shaped: dict[str, Any] = message.as_dict()
    if message.images:
        shaped["content"] = _image_markers(message) + message.content
    if message.tool_calls:
        shaped["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.parsed_arguments()}}
            for c in message.tool_calls
        ]
    if message.tool_call_id:
        shaped["tool_call_id"] = message.tool_call_id
    return shaped
