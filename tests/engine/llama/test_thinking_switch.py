"""Reasoning asked for in the system prompt reaches a chat template's own switch.

Templates in the shape reasoning models ship (Qwen3's ``enable_thinking``, on
unless switched off; others' ``thinking``, off unless switched on) run over
SmolLM2's ChatML tokenizer, loaded vocabulary-only: "/think" or "/no_think"
in the system prompt (or a later user turn) sets the switch, a silent chat
leaves it to the template, and a template without a switch renders as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import llama_cpp
import pytest

from app.core.conversation.chat import Message
from app.engine.gguf.header import read_header
from app.engine.llama.chat_template import ChatTemplate
from tests.engine.llama.template_checks import Vocabulary
from tests.engine.model_files import copy_tokenizer

_TURNS = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n"
)
# Qwen3's shape: thinking unless enable_thinking is false, which writes an empty block the model goes on after.
ENABLE_THINKING = _TURNS + (
    "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}"
)
# The other shape: no thinking unless asked, which opens the block in the prompt.
THINKING = _TURNS + "{% if thinking is defined and thinking %}<think>\n{% endif %}{% endif %}"
NO_SWITCH = _TURNS + "{% endif %}"


def _template(small_pair: tuple[Path, Path], tmp_path: Path, text: str) -> Iterator[ChatTemplate]:
    path = copy_tokenizer(small_pair[0], tmp_path / "switch.gguf", chat_template=text)
    llama = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        yield ChatTemplate(Vocabulary(read_header(path), llama))
    finally:
        llama.close()


@pytest.fixture
def enable_thinking(small_pair: tuple[Path, Path], tmp_path: Path) -> Iterator[ChatTemplate]:
    yield from _template(small_pair, tmp_path, ENABLE_THINKING)


@pytest.fixture
def thinking(small_pair: tuple[Path, Path], tmp_path: Path) -> Iterator[ChatTemplate]:
    yield from _template(small_pair, tmp_path, THINKING)


@pytest.fixture
def no_switch(small_pair: tuple[Path, Path], tmp_path: Path) -> Iterator[ChatTemplate]:
    yield from _template(small_pair, tmp_path, NO_SWITCH)


def _chat(system: str, user: str = "What is 2+3?") -> list[Message]:
    return [Message("system", system), Message("user", user)]


def _tail(template: ChatTemplate, messages: list[Message]) -> str:
    text, _ = template.render_text(messages)
    return text.split("<|im_start|>assistant\n", 1)[1]


def test_no_think_in_the_system_prompt_switches_enable_thinking_off(enable_thinking: ChatTemplate) -> None:
    assert enable_thinking.thinking_switch == "enable_thinking"
    assert _tail(enable_thinking, _chat("You are brief.")) == ""  # silent: the template's own default
    assert _tail(enable_thinking, _chat("You are brief. /no_think")) == "<think>\n\n</think>\n\n"
    assert _tail(enable_thinking, _chat("You are brief. /think")) == ""
    # A later user turn switches it back on for itself.
    assert _tail(enable_thinking, _chat("You are brief. /no_think", "Prove it. /think")) == ""
    # The tokens are the rendered text's: the switch is in the prompt the model reads, not only in the text.
    messages = _chat("/no_think")
    text, _ = enable_thinking.render_text(messages)
    tokens = enable_thinking.render(messages)
    assert tokens == enable_thinking.model.llama.tokenize(text.encode(), add_bos=False, special=True)


def test_think_in_the_system_prompt_opens_the_reasoning_block(thinking: ChatTemplate) -> None:
    assert thinking.thinking_switch == "thinking"
    assert not thinking.opens_reasoning(_chat("You are brief."))
    assert thinking.opens_reasoning(_chat("Reason first. /think"))
    assert not thinking.opens_reasoning(_chat("/thinking is not the switch"))
    text, _ = thinking.render_text(_chat("Reason first. /think"))
    assert thinking.render(_chat("Reason first. /think")) == thinking.model.llama.tokenize(
        text.encode(), add_bos=False, special=True
    )


def test_a_template_without_a_switch_renders_the_same_whatever_the_prompt_says(no_switch: ChatTemplate) -> None:
    assert no_switch.thinking_switch is None
    assert _tail(no_switch, _chat("/think")) == _tail(no_switch, _chat("/no_think")) == ""
