"""Can this draft model draft for that target? The rules llama.cpp applies, with evidence.

A pair is compatible when the draft's token ids mean the same text as the
target's: same tokenizer type, the same BOS/EOS handling, vocabulary sizes
within 128 of each other, and identical token text from id 5 up over the ids
both share. Every failed rule is reported with what was found, so the user
learns *why*, not just that the list of drafts is empty.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

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


def _rule_problems(target: VocabInfo | VocabSummary, draft: VocabInfo | VocabSummary) -> list[CompatibilityProblem]:
    """The rules that need only the scalar tokenizer facts (type, BOS/EOS, size)."""
    problems: list[CompatibilityProblem] = []
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
    return problems


def _pre_tokenizer_warning(target: VocabInfo | VocabSummary, draft: VocabInfo | VocabSummary) -> list[str]:
    if target.pre_tokenizer and draft.pre_tokenizer and target.pre_tokenizer != draft.pre_tokenizer:
        return [
            f"pre-tokenizers differ ({target.pre_tokenizer!r} vs {draft.pre_tokenizer!r}); "
            "drafting still works because the draft reads the target's token ids"
        ]
    return []


def check_pair(target: VocabInfo, draft: VocabInfo, max_listed: int = 3) -> CompatibilityReport:
    """Apply every rule; collect each failure with its evidence."""
    problems = _rule_problems(target, draft)
    differing = first_differing_tokens(target.tokens, draft.tokens, max_listed)
    if differing:
        total = count_differing_tokens(target.tokens, draft.tokens)
        examples = "; ".join(
            f"token {i} is {_show(t)} in the target but {_show(d)} in the draft" for i, t, d in differing
        )
        more = f" ({total:,} tokens differ in all)" if total > len(differing) else ""
        problems.append(CompatibilityProblem("token text", examples + more))
    return CompatibilityReport(tuple(problems), tuple(_pre_tokenizer_warning(target, draft)))


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


# Cache-friendly form of the token-text rule. Reading a 152k-token vocabulary
# out of a GGUF header takes about half a second, too slow to repeat for every
# candidate draft each time a list is shown. A summary keeps the scalar facts
# plus one short digest per block of DIGEST_BLOCK token texts; two vocabularies
# agree on their shared ids exactly when the digests of the shared blocks agree
# (up to a 64-bit hash collision). Block k covers ids [k*B, (k+1)*B), starting
# at FIRST_CHECKED_TOKEN_ID in the first block, so blocks line up across models
# of different sizes; the sizes seen in practice are multiples of 64.
DIGEST_BLOCK = 64


class VocabSummaryDict(TypedDict):
    """:meth:`VocabSummary.to_dict`'s JSON-ready form (the block digests joined into one string)."""

    tokenizer_model: str
    size: int
    bos_id: int | None
    eos_id: int | None
    add_bos: bool | None
    add_eos: bool | None
    pre_tokenizer: str | None
    block_digests: str | None


@dataclass(frozen=True, slots=True)
class VocabSummary:
    """A model's tokenizer facts without the token list: small enough to cache and to put in a catalog.

    ``block_digests`` is ``None`` when the token texts are unknown (a catalog
    entry for a model that is not downloaded yet).
    """

    tokenizer_model: str
    size: int
    bos_id: int | None
    eos_id: int | None
    add_bos: bool | None
    add_eos: bool | None
    pre_tokenizer: str | None = None
    block_digests: tuple[str, ...] | None = None

    def to_dict(self) -> VocabSummaryDict:
        """A JSON-ready dict."""
        return {
            "tokenizer_model": self.tokenizer_model,
            "size": self.size,
            "bos_id": self.bos_id,
            "eos_id": self.eos_id,
            "add_bos": self.add_bos,
            "add_eos": self.add_eos,
            "pre_tokenizer": self.pre_tokenizer,
            "block_digests": None if self.block_digests is None else "".join(self.block_digests),
        }

    @classmethod
    def from_dict(cls, data: VocabSummaryDict) -> VocabSummary:
        """The inverse of :meth:`to_dict`."""
        joined = data.get("block_digests")
        digests = None
        if isinstance(joined, str):
            width = 2 * _DIGEST_BYTES
            digests = tuple(joined[i : i + width] for i in range(0, len(joined), width))
        return cls(
            tokenizer_model=str(data["tokenizer_model"]),
            size=int(data["size"]),
            bos_id=_int_or_none(data.get("bos_id")),
            eos_id=_int_or_none(data.get("eos_id")),
            add_bos=None if data.get("add_bos") is None else bool(data.get("add_bos")),
            add_eos=None if data.get("add_eos") is None else bool(data.get("add_eos")),
            pre_tokenizer=None if data.get("pre_tokenizer") is None else str(data.get("pre_tokenizer")),
            block_digests=digests,
        )


_DIGEST_BYTES = 8


def _int_or_none(value: int | None) -> int | None:
    return None if value is None else int(value)


def token_block_digests(tokens: Sequence[str], block: int = DIGEST_BLOCK) -> tuple[str, ...]:
    """One hex digest per block of token texts (ids below FIRST_CHECKED_TOKEN_ID excluded)."""
    digests = []
    for start in range(0, len(tokens), block):
        texts = list(tokens[max(start, FIRST_CHECKED_TOKEN_ID) : start + block])
        # JSON keeps the encoding unambiguous whatever characters a token holds.
        payload = json.dumps(texts, ensure_ascii=False).encode("utf-8", "surrogatepass")
        digests.append(hashlib.blake2b(payload, digest_size=_DIGEST_BYTES).hexdigest())
    return tuple(digests)


def summarize_vocab(info: VocabInfo) -> VocabSummary:
    """The cacheable summary of a full vocabulary."""
    return VocabSummary(
        tokenizer_model=info.tokenizer_model,
        size=info.size,
        bos_id=info.bos_id,
        eos_id=info.eos_id,
        add_bos=info.add_bos,
        add_eos=info.add_eos,
        pre_tokenizer=info.pre_tokenizer,
        block_digests=token_block_digests(info.tokens),
    )


def _first_differing_block(target: VocabSummary, draft: VocabSummary) -> tuple[bool, tuple[int, int] | None]:
    """(decidable, the first and last id of the first differing block or None when all agree)."""
    assert target.block_digests is not None and draft.block_digests is not None
    common = min(target.size, draft.size)
    n_blocks = common // DIGEST_BLOCK
    if common % DIGEST_BLOCK:
        if target.size != draft.size:
            # The smaller model's last block is partial, the larger one's is not: the
            # digests cover different ids, so only the token lists can tell.
            return False, None
        n_blocks += 1
    for k in range(n_blocks):
        if target.block_digests[k] != draft.block_digests[k]:
            return True, (max(k * DIGEST_BLOCK, FIRST_CHECKED_TOKEN_ID), min((k + 1) * DIGEST_BLOCK, common) - 1)
    return True, None


def check_summaries(target: VocabSummary, draft: VocabSummary) -> CompatibilityReport | None:
    """The verdict from two summaries, or ``None`` when only the full token lists can decide.

    A token-text failure found this way names the first differing block of ids,
    not the token; callers wanting the exact token re-check with :func:`check_pair`.
    When either side has no digests (a catalog entry), the token texts cannot be
    compared: differing pre-tokenizers then count as a failure, being the best
    evidence of different vocabularies, and the report carries a warning.
    """
    problems = _rule_problems(target, draft)
    warnings: list[str] = []
    if target.block_digests is None or draft.block_digests is None:
        if target.pre_tokenizer and draft.pre_tokenizer and target.pre_tokenizer != draft.pre_tokenizer:
            problems.append(
                CompatibilityProblem(
                    "tokenizer family",
                    f"the target uses the {target.pre_tokenizer!r} pre-tokenizer and the draft "
                    f"{draft.pre_tokenizer!r}: different vocabularies",
                )
            )
        warnings.append("token texts not compared yet: they are checked once both files are on this computer")
        return CompatibilityReport(tuple(problems), tuple(warnings))
    decidable, differing = _first_differing_block(target, draft)
    if not decidable:
        return None
    if differing is not None:
        low, high = differing
        problems.append(CompatibilityProblem("token text", f"the vocabularies differ within ids {low:,}-{high:,}"))
    return CompatibilityReport(tuple(problems), tuple(_pre_tokenizer_warning(target, draft)))
