"""Structured output with llguidance: a model's vocabulary as a grammar tokenizer, and the token mask.

llguidance was chosen over xgrammar and outlines-core because its
``LLMatcher`` rolls back any number of consumed tokens (what a rejected
draft needs), builds its tokenizer from llama.cpp's vocabulary directly, and
computes a mask in microseconds from a lexer compiled once per grammar.

:class:`GrammarMask` is the core's :class:`~app.core.decoding.constraint.TokenMask`
over one matcher: the mask of the current state is computed once and kept
until the state changes (the drafter and the decoder both ask for it). The
tokenizer takes a pass over the whole vocabulary, so it is built once per
loaded model and kept beside it.
"""

from __future__ import annotations

import ctypes
import functools
import weakref
from typing import TYPE_CHECKING

import llama_cpp
import llguidance
import numpy as np

from app.core.conversation.output_format import OutputFormat, OutputFormatError
from app.core.conversation.schema_bounds import check_schema_bounds
from app.core.decoding.constraint import BoolArray, ConstraintError
from app.engine.llama.model import LlamaModel

if TYPE_CHECKING:  # a TypedDict of the type stubs only, not in the compiled module
    from llguidance._lib import JsonCompileOptions

# Whitespace between JSON tokens: a space or two, or one line break and an indent of up to 40. llguidance's
# default allows any run, and a sampled reply can then spend its whole token budget on blanks inside an
# object (1 reply of 100 did, at T=0.8 on the demo pair), ending cut off and invalid.
JSON_WHITESPACE = r"[\x20\x09]{1,2}|\r?\n[\x20\x09]{0,40}"

_TOKENIZERS: weakref.WeakKeyDictionary[LlamaModel, tuple[llguidance.LLTokenizer, tuple[int, ...]]] = (
    weakref.WeakKeyDictionary()
)


def grammar_tokenizer(model: LlamaModel) -> tuple[llguidance.LLTokenizer, tuple[int, ...]]:
    """The llguidance tokenizer of ``model``'s vocabulary and its end-of-generation ids, built once per model."""
    found = _TOKENIZERS.get(model)
    if found is None:
        # Every end-of-generation token ends the grammar (an instruct model ends its turn with <|im_end|>,
        # not with the vocabulary's EOS).
        eog = tuple(t for t in range(model.n_vocab) if model.is_eog(t))
        pieces = [_grammar_piece(model, t) for t in range(model.n_vocab)]
        tokenize = ctypes.cast(llama_cpp.llama_cpp._lib.llama_tokenize, ctypes.c_void_p).value
        tokenizer = llguidance.LLTokenizer.from_llamacpp(  # type: ignore[attr-defined]  # missing from the stubs
            tokens=pieces, vocab_ptr=model.vocab, tokenize_fptr=tokenize, eos_token=list(eog), slices=None
        )
        found = (tokenizer, eog)
        _TOKENIZERS[model] = found
    return found


def is_control_token(model: LlamaModel, token: int) -> bool:
    """A token no text spells: a control token, or a user-defined one written like ``<tag>``."""
    attr = int(llama_cpp.llama_vocab_get_attr(model.vocab, token))
    if attr & llama_cpp.LLAMA_TOKEN_ATTR_CONTROL:
        return True
    text = model.token_text(token)
    return bool(attr & llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED) and text.startswith("<") and text.endswith(">")


def _grammar_piece(model: LlamaModel, token: int) -> bytes:
    """A token's bytes as llguidance reads them: a control token is its name behind 0xff, so no text matches it."""
    if is_control_token(model, token):
        return b"\xff" + model.token_text(token).encode("utf-8")
    return model.token_bytes(token)


def compile_grammar(output: OutputFormat, tokenizer: llguidance.LLTokenizer | None = None) -> str:
    """The llguidance grammar of ``output``; a one-line :class:`OutputFormatError` for a schema it cannot enforce."""
    # strict: every keyword enforced or the schema refused; otherwise keywords it cannot enforce are ignored.
    options: JsonCompileOptions = {"lenient": not output.strict, "whitespace_pattern": JSON_WHITESPACE}
    schema = output.schema_for_grammar()
    check_schema_bounds(schema)
    try:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(schema, defaults=options)
    except (ValueError, TypeError, RecursionError) as exc:
        raise OutputFormatError(f"the JSON schema cannot be used: {_one_line(str(exc))}") from None
    is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar, tokenizer)
    if is_error:
        raise OutputFormatError(f"the JSON schema cannot be used: {_one_line(messages[0])}")
    _first_step(grammar)
    return grammar


def _first_step(grammar: str) -> None:
    """Refuse a grammar that has no first byte: the bounds missed a way for a schema to match nothing finite.

    Tried on a byte-level vocabulary, so it runs before any model loads; a
    grammar that fails here would fail on the reply's first token.
    """
    tokenizer = _byte_tokenizer()
    matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
    words = np.zeros((tokenizer.vocab_size + 31) // 32, dtype=np.int32)
    if not matcher.is_error():
        matcher.unsafe_compute_mask_ptr(words.ctypes.data, words.nbytes)
    if matcher.is_error():
        error = _one_line(matcher.get_error()).split(" <state>", 1)[0]
        raise OutputFormatError(f"the JSON schema cannot be used: no reply can start under it ({error[:200]})")


@functools.cache
def _byte_tokenizer() -> llguidance.LLTokenizer:
    return llguidance.LLTokenizer("byte")


class GrammarMask:
    """The grammar state of one reply: allowed ids, consume, rollback (see the module docstring)."""

    def __init__(self, tokenizer: llguidance.LLTokenizer, grammar: str, n_vocab: int, eog: tuple[int, ...]) -> None:
        self._matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
        if self._matcher.is_error():
            raise OutputFormatError(f"the grammar cannot be used: {_one_line(self._matcher.get_error())}")
        self._n_vocab = n_vocab
        self._eog = frozenset(eog)
        self._only_eog = np.zeros(n_vocab, dtype=np.bool_)
        self._only_eog[list(eog)] = True
        # Tokens consumed from an end-of-generation token on, kept here and not in the matcher: llguidance
        # records no token for the EOS that stops it, so its rollback would undo one token too many.
        self._past_end = 0
        self._words = np.zeros((n_vocab + 31) // 32, dtype=np.int32)
        self._allowed: BoolArray | None = None
        self.masks_computed = 0  # how many masks the matcher computed (counts for tests and the bench)

    def allowed(self) -> BoolArray:
        """The ids the grammar allows next (computed once per state)."""
        if self._past_end:
            return self._only_eog  # a draft may go on past its end; nothing but the end fits there
        if self._allowed is None:
            self._check()
            words = self._words
            self._matcher.unsafe_compute_mask_ptr(words.ctypes.data, words.nbytes)
            self._check()
            bits = np.unpackbits(words.view(np.uint8), bitorder="little")
            self._allowed = bits[: self._n_vocab].astype(np.bool_)
            self.masks_computed += 1
        return self._allowed

    def consume(self, token: int) -> None:
        """Advance past ``token``."""
        if self._past_end or token in self._eog:
            if not self._past_end and not self.allowed()[token]:
                raise ConstraintError("the output grammar cannot end here")
            self._past_end += 1
            return
        if not self._matcher.consume_token(token):
            self._check()
        self._allowed = None

    def rollback(self, n_tokens: int) -> None:
        """Undo the last ``n_tokens``."""
        past = min(n_tokens, self._past_end)
        self._past_end -= past
        n_tokens -= past
        if n_tokens <= 0:
            return
        if not self._matcher.rollback(n_tokens):
            self._check()
        self._allowed = None

    @property
    def accepting(self) -> bool:
        """Whether the text so far is a complete match (the reply may end here)."""
        return bool(self._matcher.is_accepting())

    def _check(self) -> None:
        if self._matcher.is_error():
            # llguidance appends its parser state and the whole grammar: the first line is what went wrong.
            error = _one_line(self._matcher.get_error()).split(" <state>", 1)[0]
            raise ConstraintError(f"the output grammar failed: {error[:300]}")


def grammar_mask(model: LlamaModel, grammar: str) -> GrammarMask:
    """A fresh mask for one reply of ``model`` under ``grammar`` (from :func:`compile_grammar`)."""
    tokenizer, eog = grammar_tokenizer(model)
    return GrammarMask(tokenizer, grammar, model.n_vocab, eog)


def _one_line(text: str) -> str:
    return " ".join(text.split())
