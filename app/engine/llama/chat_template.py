"""Render chat messages to prompt tokens with the model's own template.

The GGUF's ``tokenizer.chat_template`` is a Jinja template; llama-cpp-python's
Jinja2ChatFormatter renders it in a sandbox the way Hugging Face does. The
rendered text is tokenised with special tokens parsed (``<|im_start|>`` must be
one token) and without an extra BOS, since templates write their own.
"""

from __future__ import annotations

from collections.abc import Sequence

from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from app.core.chat import Message
from app.engine.llama.model import LlamaModel


class ChatTemplate:
    """The prompt format of one model."""

    def __init__(self, model: LlamaModel) -> None:
        self.model = model
        template = model.header.get("tokenizer.chat_template")
        self.has_template = isinstance(template, str) and bool(template.strip())
        self._formatter: Jinja2ChatFormatter | None = None
        if self.has_template:
            llama = model.llama
            eos, bos = llama.token_eos(), llama.token_bos()
            self._formatter = Jinja2ChatFormatter(
                template=template,
                eos_token=model.token_text(eos) if eos >= 0 else "",
                bos_token=model.token_text(bos) if bos >= 0 else "",
                add_generation_prompt=True,
            )

    def render_text(self, messages: Sequence[Message]) -> tuple[str, bool]:
        """The prompt text, and whether it already contains the special tokens it needs."""
        if self._formatter is None:
            # No template: a plain transcript the model can continue.
            lines = [f"{m.role.capitalize()}: {m.content}" for m in messages]
            return "\n".join([*lines, "Assistant:"]), False
        result = self._formatter(messages=[m.as_dict() for m in messages])  # type: ignore[misc]  # llama_cpp types these as OpenAI request TypedDicts; the template takes plain role/content dicts
        return result.prompt, bool(result.added_special)

    def render(self, messages: Sequence[Message]) -> list[int]:
        """Prompt tokens for ``messages`` ending with the assistant's turn opener."""
        text, added_special = self.render_text(messages)
        return self.model.tokenize(text, add_special=not added_special, parse_special=True)
