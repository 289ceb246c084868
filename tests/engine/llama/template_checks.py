"""What the chat-template tests look at in a rendered prompt: its special tokens, and whether it holds a run of tokens.

Not a test module.
"""

from __future__ import annotations

from dataclasses import dataclass

import llama_cpp

from app.engine.gguf.header import GGUFHeader
from app.engine.llama.chat_template import ChatTemplate


@dataclass
class Vocabulary:
    """A GGUF's header and its tokenizer, loaded by llama.cpp without weights."""

    header: GGUFHeader
    llama: llama_cpp.Llama


def specials_in(template: ChatTemplate, tokens: list[int]) -> list[int]:
    """The tokens of ``tokens`` that are the template's special tokens, in order."""
    special_ids = {token for _, token in template.specials()}
    return [t for t in tokens if t in special_ids]


def contains(tokens: list[int], part: list[int]) -> bool:
    """Whether ``part`` occurs in ``tokens`` as a contiguous run."""
    return any(tokens[i : i + len(part)] == part for i in range(len(tokens) - len(part) + 1))
