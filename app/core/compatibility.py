"""Can this draft model draft for that target? The rules llama.cpp applies, with evidence.

A pair is compatible when the draft's token ids mean the same text as the
target's: same tokenizer type, the same BOS/EOS handling, vocabulary sizes
within 128 of each other, and identical token text from id 5 up over the ids
both share. Every failed rule is reported with what was found, so the user
learns *why*, not just that the list of drafts is empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# The same constants as llama.cpp's common/speculative.cpp.
MAX_VOCAB_SIZE_DIFFERENCE = 128
FIRST_CHECKED_TOKEN_ID = 5


@dataclass(frozen=True, slots=True)
class VocabInfo:
    """What the compatibility rules need to know about one model's tokenizer."""

    tokenizer_model: str  # GGUF tokenizer.ggml.model: "gpt2" (BPE), "llama" (SPM), ...
    tokens: Sequence[str]
    bos_id: int | None
    eos_id: int | None
    add_bos: bool | None
    add_eos: bool | None
    pre_tokenizer: str | None = None  # GGUF tokenizer.ggml.pre

    @property
    def size(self) -> int:
        """Number of tokens in the vocabulary."""
        return len(self.tokens)


@dataclass(frozen=True, slots=True)
class CompatibilityProblem:
    """One failed rule and the evidence for it."""

    rule: str
    detail: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.detail}"


@dataclass(frozen=True, slots=True)
class CompatibilityReport:
    """The verdict on a target/draft pair."""

    problems: tuple[CompatibilityProblem, ...]
    warnings: tuple[str, ...] = ()

    @property
    def compatible(self) -> bool:
        """True when no rule failed."""
        return not self.problems

    def summary(self) -> str:
        """One line for a status bar or an error message."""
        if self.compatible:
            return "compatible"
        return "incompatible: " + "; ".join(str(p) for p in self.problems)


def _show(token: str) -> str:
    return repr(token)


def check_pair(target: VocabInfo, draft: VocabInfo, max_listed: int = 3) -> CompatibilityReport:
    """Apply every rule; collect each failure with its evidence."""
    problems: list[CompatibilityProblem] = []
    warnings: list[str] = []
    if target.tokenizer_model != draft.tokenizer_model:
        problems.append(
            CompatibilityProblem(
                "vocabulary type",
                f"the target uses a {target.tokenizer_model!r} tokenizer, the draft a {draft.tokenizer_model!r} one",
            )
        )
    for name, t_add, d_add, t_id, d_id in (
        ("BOS", target.add_bos, draft.add_bos, target.bos_id, draft.bos_id),
        ("EOS", target.add_eos, draft.add_eos, target.eos_id, draft.eos_id),
    ):
        if bool(t_add) != bool(d_add):
            problems.append(
                CompatibilityProblem(
                    f"{name} handling",
                    f"the target {'adds' if t_add else 'does not add'} {name}, "
                    f"the draft {'adds' if d_add else 'does not add'} it",
                )
            )
        elif t_add and t_id != d_id:
            problems.append(
                CompatibilityProblem(f"{name} token", f"{name} is token {t_id} in the target but {d_id} in the draft")
            )
    difference = abs(target.size - draft.size)
    if difference > MAX_VOCAB_SIZE_DIFFERENCE:
        problems.append(
            CompatibilityProblem(
                "vocabulary size",
                f"the target has {target.size:,} tokens and the draft {draft.size:,}: "
                f"{difference:,} apart, more than {MAX_VOCAB_SIZE_DIFFERENCE}",
            )
        )
    differing = first_differing_tokens(target.tokens, draft.tokens, max_listed)
    if differing:
        total = count_differing_tokens(target.tokens, draft.tokens)
        examples = "; ".join(
            f"token {i} is {_show(t)} in the target but {_show(d)} in the draft" for i, t, d in differing
        )
        more = f" ({total:,} tokens differ in all)" if total > len(differing) else ""
        problems.append(CompatibilityProblem("token text", examples + more))
    if target.pre_tokenizer and draft.pre_tokenizer and target.pre_tokenizer != draft.pre_tokenizer:
        warnings.append(
            f"pre-tokenizers differ ({target.pre_tokenizer!r} vs {draft.pre_tokenizer!r}); "
            "drafting still works because the draft reads the target's token ids"
        )
    return CompatibilityReport(tuple(problems), tuple(warnings))


def first_differing_tokens(
    target_tokens: Sequence[str], draft_tokens: Sequence[str], limit: int
) -> list[tuple[int, str, str]]:
    """Up to ``limit`` (id, target text, draft text) triples from id 5 on."""
    found: list[tuple[int, str, str]] = []
    for i in range(FIRST_CHECKED_TOKEN_ID, min(len(target_tokens), len(draft_tokens))):
        if target_tokens[i] != draft_tokens[i]:
            found.append((i, target_tokens[i], draft_tokens[i]))
            if len(found) >= limit:
                break
    return found


def count_differing_tokens(target_tokens: Sequence[str], draft_tokens: Sequence[str]) -> int:
    """How many shared ids from 5 on carry different text."""
    end = min(len(target_tokens), len(draft_tokens))
    return sum(1 for i in range(FIRST_CHECKED_TOKEN_ID, end) if target_tokens[i] != draft_tokens[i])
