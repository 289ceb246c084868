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

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Value, Words

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

    rule_words: Words | Phrase
    detail_words: Words

    @property
    def rule(self) -> str:
        """The rule's name in English ("token text"): what the CLI prints and code compares."""
        return str(self.rule_words)

    @property
    def detail(self) -> str:
        """The evidence in English."""
        return str(self.detail_words)

    def __str__(self) -> str:
        return f"{self.rule}: {self.detail}"


@dataclass(frozen=True, slots=True)
class CompatibilityReport:
    """The verdict on a target/draft pair."""

    problems: tuple[CompatibilityProblem, ...]
    warning_words: tuple[Words | Phrase, ...] = ()

    @property
    def warnings(self) -> tuple[str, ...]:
        """The warnings in English (the window renders :attr:`warning_words`)."""
        return tuple(str(w) for w in self.warning_words)

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


# Rule names and their evidence, worded for the window (the English text is what the CLI prints).
RULE_VOCABULARY_TYPE = QT_TRANSLATE_NOOP("PairingRules", "vocabulary type")
RULE_VOCABULARY_SIZE = QT_TRANSLATE_NOOP("PairingRules", "vocabulary size")
RULE_TOKEN_TEXT = QT_TRANSLATE_NOOP("PairingRules", "token text")
RULE_TOKENIZER_FAMILY = QT_TRANSLATE_NOOP("PairingRules", "tokenizer family")
_HANDLING = QT_TRANSLATE_NOOP("PairingRules", "{name} handling")
_TOKEN = QT_TRANSLATE_NOOP("PairingRules", "{name} token")
_AND_THEN = QT_TRANSLATE_NOOP("PairingRules", "{earlier}; {next}")


def joined(parts: Sequence[Value]) -> Words:
    """``parts`` separated by "; ", as words (each part rendered in the reader's language)."""
    if not parts:
        return QT_TRANSLATE_NOOP("PairingRules", "{text}").fill(text="")
    sentence: Value = parts[0]
    for part in parts[1:]:
        sentence = _AND_THEN.fill(earlier=sentence, next=part)
    return sentence if isinstance(sentence, Words) else QT_TRANSLATE_NOOP("PairingRules", "{text}").fill(text=sentence)


def _rule_problems(target: VocabInfo | VocabSummary, draft: VocabInfo | VocabSummary) -> list[CompatibilityProblem]:
    """The rules that need only the scalar tokenizer facts (type, BOS/EOS, size)."""
    problems: list[CompatibilityProblem] = []
    if target.tokenizer_model != draft.tokenizer_model:
        problems.append(
            CompatibilityProblem(
                RULE_VOCABULARY_TYPE,
                QT_TRANSLATE_NOOP("PairingRules", "the target uses a {target} tokenizer, the draft a {draft} one").fill(
                    target=repr(target.tokenizer_model), draft=repr(draft.tokenizer_model)
                ),
            )
        )
    for name, t_add, d_add, t_id, d_id in (
        ("BOS", target.add_bos, draft.add_bos, target.bos_id, draft.bos_id),
        ("EOS", target.add_eos, draft.add_eos, target.eos_id, draft.eos_id),
    ):
        if bool(t_add) != bool(d_add):
            handling = (
                QT_TRANSLATE_NOOP("PairingRules", "the target adds {name}, the draft does not add it")
                if t_add
                else QT_TRANSLATE_NOOP("PairingRules", "the target does not add {name}, the draft adds it")
            )
            problems.append(CompatibilityProblem(_HANDLING.fill(name=name), handling.fill(name=name)))
        elif t_add and t_id != d_id:
            problems.append(
                CompatibilityProblem(
                    _TOKEN.fill(name=name),
                    QT_TRANSLATE_NOOP(
                        "PairingRules", "{name} is token {target} in the target but {draft} in the draft"
                    ).fill(name=name, target=str(t_id), draft=str(d_id)),
                )
            )
    difference = abs(target.size - draft.size)
    if difference > MAX_VOCAB_SIZE_DIFFERENCE:
        problems.append(
            CompatibilityProblem(
                RULE_VOCABULARY_SIZE,
                QT_TRANSLATE_NOOP(
                    "PairingRules",
                    "the target has {target:,} tokens and the draft {draft:,}: {difference:,} apart, more than {most}",
                ).fill(target=target.size, draft=draft.size, difference=difference, most=MAX_VOCAB_SIZE_DIFFERENCE),
            )
        )
    return problems


def _pre_tokenizer_warning(target: VocabInfo | VocabSummary, draft: VocabInfo | VocabSummary) -> list[Words]:
    if target.pre_tokenizer and draft.pre_tokenizer and target.pre_tokenizer != draft.pre_tokenizer:
        return [
            QT_TRANSLATE_NOOP(
                "PairingRules",
                "pre-tokenizers differ ({target} vs {draft}); "
                "drafting still works because the draft reads the target's token ids",
            ).fill(target=repr(target.pre_tokenizer), draft=repr(draft.pre_tokenizer))
        ]
    return []


def check_pair(target: VocabInfo, draft: VocabInfo, max_listed: int = 3) -> CompatibilityReport:
    """Apply every rule; collect each failure with its evidence."""
    problems = _rule_problems(target, draft)
    differing = first_differing_tokens(target.tokens, draft.tokens, max_listed)
    if differing:
        total = count_differing_tokens(target.tokens, draft.tokens)
        examples = joined(
            [
                QT_TRANSLATE_NOOP("PairingRules", "token {id} is {target} in the target but {draft} in the draft").fill(
                    id=str(i), target=_show(t), draft=_show(d)
                )
                for i, t, d in differing
            ]
        )
        if total > len(differing):
            examples = QT_TRANSLATE_NOOP("PairingRules", "{examples} ({total:,} tokens differ in all)").fill(
                examples=examples, total=total
            )
        problems.append(CompatibilityProblem(RULE_TOKEN_TEXT, examples))
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
    warnings: list[Words | Phrase] = []
    if target.block_digests is None or draft.block_digests is None:
        if target.pre_tokenizer and draft.pre_tokenizer and target.pre_tokenizer != draft.pre_tokenizer:
            problems.append(
                CompatibilityProblem(
                    RULE_TOKENIZER_FAMILY,
                    QT_TRANSLATE_NOOP(
                        "PairingRules",
                        "the target uses the {target} pre-tokenizer and the draft {draft}: different vocabularies",
                    ).fill(target=repr(target.pre_tokenizer), draft=repr(draft.pre_tokenizer)),
                )
            )
        warnings.append(
            QT_TRANSLATE_NOOP(
                "PairingRules", "token texts not compared yet: they are checked once both files are on this computer"
            )
        )
        return CompatibilityReport(tuple(problems), tuple(warnings))
    decidable, differing = _first_differing_block(target, draft)
    if not decidable:
        return None
    if differing is not None:
        low, high = differing
        problems.append(
            CompatibilityProblem(
                RULE_TOKEN_TEXT,
                QT_TRANSLATE_NOOP("PairingRules", "the vocabularies differ within ids {low:,}-{high:,}").fill(
                    low=low, high=high
                ),
            )
        )
    return CompatibilityReport(tuple(problems), tuple(_pre_tokenizer_warning(target, draft)))
