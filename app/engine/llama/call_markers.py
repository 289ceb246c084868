"""A tool dialect's markers that a vocabulary holds as control tokens, shown to the call reader as their text.

Llama 3.x (``<|python_tag|>``), Mistral v0.3 and later (``[TOOL_CALLS]``,
``[ARGS]``) and gpt-oss (``<|end|>``) vocabularies hold their call markup as
control tokens, whose piece is empty when a reply is detokenised as text, so
the reader would never see a call. :func:`call_markers` finds the ids of the
dialect's marker texts (:attr:`~app.core.tools.call_stream.ToolDialect.markers`)
that are one control token each, and :func:`reply_pieces` gives the decoder a
piece function that spells those ids as their text and every other token as
before: any other control token (a turn's end, a header) still shows nothing.
An end-of-generation token is never a marker here: the decoder stops at it and
gives it no text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from app.core.tools.call_stream import ToolDialect
from app.engine.llama.model import LlamaModel


@dataclass(frozen=True, slots=True)
class MarkerPieces:
    """A reply's token pieces: the model's own, and the call markers' control tokens as their text."""

    token_bytes: Callable[[int], bytes]
    markers: Mapping[int, bytes]

    def __call__(self, token: int) -> bytes:
        """``token``'s piece."""
        found = self.markers.get(token)
        return found if found is not None else self.token_bytes(token)


def call_markers(model: LlamaModel, dialect: ToolDialect) -> tuple[int, ...]:
    """The ids of ``dialect``'s markers that ``model``'s vocabulary holds as one control token each, in its order."""
    found: list[int] = []
    for text in dialect.markers:
        ids = model.tokenize(text, add_special=False, parse_special=True)
        if len(ids) == 1 and model.is_control(ids[0]) and not model.is_eog(ids[0]) and ids[0] not in found:
            found.append(ids[0])
    return tuple(found)


def reply_pieces(model: LlamaModel, markers: Sequence[int]) -> Callable[[int], bytes]:
    """The piece of each of a reply's tokens: ``markers`` (from :func:`call_markers`) as their text."""
    if not markers:
        return model.token_bytes
    return MarkerPieces(model.token_bytes, {token: model.special_bytes(token) for token in markers})
