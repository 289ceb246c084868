"""Which draft a picker selects by itself, and the sentence that says why when it selects none.

A draft helps only when it is cheaper to run than its target, so the default is
never a model at least as large as the target: the first compatible candidate
(in the ranking the caller gives) with fewer parameters, or, when a parameter
count is unknown, a smaller file. When no candidate qualifies the picker falls
back to n-gram lookup and shows :attr:`DefaultDraft.reason`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words


@dataclass(frozen=True, slots=True)
class ModelSize:
    """What decides "smaller": the weights in the file and its size in bytes (0 when unknown)."""

    n_params: int
    file_size: int


NO_SIZE = ModelSize(0, 0)  # nothing known: never counted as smaller


@dataclass(frozen=True, slots=True)
class DraftFacts:
    """One ranked candidate as the default-draft rule sees it."""

    name: str
    size: ModelSize
    compatible: bool


@dataclass(frozen=True, slots=True)
class DefaultDraft:
    """The candidate to select (its index in the list), or ``None`` with the reason for n-gram lookup."""

    index: int | None
    reason_words: Words | Phrase | None = None  # None when a draft was chosen

    @property
    def reason(self) -> str:
        """Why n-gram lookup, in English ("" when a draft was chosen); the window renders :attr:`reason_words`."""
        return "" if self.reason_words is None else str(self.reason_words)


def is_smaller(target: ModelSize, draft: ModelSize) -> bool:
    """True when ``draft`` has fewer parameters than ``target`` (or, counts unknown, a smaller file)."""
    if target.n_params > 0 and draft.n_params > 0:
        return draft.n_params < target.n_params
    if target.file_size > 0 and draft.file_size > 0:
        return draft.file_size < target.file_size
    return False  # nothing to compare: never assume a draft is cheaper


@dataclass(frozen=True, slots=True)
class RelativeSize:
    """A draft's size against the target's: ``kind`` says how it compares, ``share`` the words for a smaller one.

    ``kind`` is "unknown", "same", "larger" or "smaller"; for "smaller", ``share`` is "1/13" or "65%"
    and ``by`` what was compared ("weights" or "size"). The window words it in the user's language.
    """

    kind: str
    share: str = ""
    by: str = ""


def relative_size(target: ModelSize, draft: ModelSize) -> RelativeSize:
    """How a draft's size compares to the target's, by parameters where both are known, else by file size."""
    if target.n_params > 0 and draft.n_params > 0:
        ratio, by = draft.n_params / target.n_params, "weights"
    elif target.file_size > 0 and draft.file_size > 0:
        ratio, by = draft.file_size / target.file_size, "size"
    else:
        return RelativeSize("unknown")
    if ratio >= 1:
        return RelativeSize("same" if ratio < 1.05 else "larger")
    return RelativeSize("smaller", f"1/{max(2, round(1 / ratio))}" if ratio <= 0.5 else f"{ratio:.0%}", by)


def relative_size_text(target: ModelSize, draft: ModelSize) -> str:
    """A draft entry's few words on its size against the target, so the draft list reads apart from the target's."""
    size = relative_size(target, draft)
    if size.kind == "unknown":
        return "size against the target unknown"
    if size.kind == "same":
        return "as large as the target"
    if size.kind == "larger":
        return "larger than the target"
    return f"{size.share} of the target's {size.by}"


def choose_default_draft(target: ModelSize, candidates: Sequence[DraftFacts]) -> DefaultDraft:
    """The first compatible candidate smaller than ``target``; else none, with a one-line reason."""
    for index, candidate in enumerate(candidates):
        if candidate.compatible and is_smaller(target, candidate.size):
            return DefaultDraft(index)
    compatible = [c for c in candidates if c.compatible]
    if not compatible:
        return DefaultDraft(
            None,
            QT_TRANSLATE_NOOP(
                "PairingReasons", "no compatible draft model for this target: N-gram lookup instead (no second model)"
            ),
        )
    names = ", ".join(c.name for c in compatible[:2]) + (" …" if len(compatible) > 2 else "")
    return DefaultDraft(
        None,
        QT_TRANSLATE_NOOP(
            "PairingReasons",
            "no compatible draft is smaller than the target ({names} would not speed it up): "
            "N-gram lookup instead (no second model)",
        ).fill(names=names),
    )
