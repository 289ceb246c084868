"""Short names for GGUF files, as a reply's header says the pair: "SmolLM2 360M + 135M".

A GGUF file's name carries the model's family and size and then noise for a
reader of a chat: the fine-tune ("Instruct", "it"), the quantisation
("Q4_K_M", "f16"), a version ("v0.3"), the split ("-00001-of-00002") and the
extension. :func:`short_model_name` writes a family it knows as the family
writes itself, whatever the file's case ("llama-3.2" and "Llama-3.2" read
"Llama 3.2", "smollm2" "SmolLM2", "qwen2.5-coder" "Qwen2.5-Coder"), keeps
any other family as the file spells it, and gives the size with an
upper-case unit; :func:`short_pair_name` says the
draft's size alone when both files are of one family (its quantisation,
when the size is the same too). A name without a
size keeps what is left once the noise is gone. The full file names stay
where a reply's details are shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EXTENSION = re.compile(r"\.gguf$", re.IGNORECASE)
_SHARD = re.compile(r"-\d{5}-of-\d{5}$", re.IGNORECASE)
# Parameter counts: "1.5B", "360M", "8x7B" (experts), "E2B" (effective, gemma-3n).
_SIZE = re.compile(r"^(?P<experts>\d+x)?(?P<effective>E)?(?P<count>\d+(?:\.\d+)?)(?P<unit>[BM])$", re.IGNORECASE)
_ACTIVE = re.compile(r"^A\d+(?:\.\d+)?B$", re.IGNORECASE)  # "A3B": the active share of a mixture of experts
_QUANT = re.compile(
    r"^(?:UD-)?(?:I?Q\d\w*|[BF]F?16|F32|FP32|FP16|BF16|MXFP4\w*|TQ\d\w*|GGUF|GGML)$",
    re.IGNORECASE,
)
_NOISE = re.compile(
    r"^(?:instruct|it|chat|base|hf|gguf|ggml|model|v\d+(?:\.\d+)*|\d+k|uncensored|abliterated)$",
    re.IGNORECASE,
)


# How each known family and the words that follow it in a file's name are written by their makers,
# keyed by the lower-case word (a word's digits stay as they are: "qwen2.5" reads "Qwen2.5").
_KNOWN_WORDS = {
    "llama": "Llama",
    "codellama": "CodeLlama",
    "tinyllama": "TinyLlama",
    "gemma": "Gemma",
    "codegemma": "CodeGemma",
    "qwen": "Qwen",
    "qwq": "QwQ",
    "smollm": "SmolLM",
    "phi": "Phi",
    "mistral": "Mistral",
    "mixtral": "Mixtral",
    "ministral": "Ministral",
    "granite": "Granite",
    "deepseek": "DeepSeek",
    "falcon": "Falcon",
    "olmo": "OLMo",
    "starcoder": "StarCoder",
    "coder": "Coder",
    "math": "Math",
    "distill": "Distill",
    "r": "R",
    "v": "V",
    "vl": "VL",
    "moe": "MoE",
}
# Families whose first word opens a known name: the rest of the name is recased only after one of these.
_FAMILY_WORDS = frozenset(
    (
        *("llama", "codellama", "tinyllama", "gemma", "codegemma", "qwen", "qwq", "smollm", "phi"),
        *("mistral", "mixtral", "ministral", "granite", "deepseek", "falcon", "olmo", "starcoder"),
    )
)
# Families that write their version after a space ("Llama 3.2", "Gemma 3", "Granite 3.1"), not a hyphen.
_SPACED_VERSION = frozenset(("llama", "gemma", "granite", "falcon"))
_WORD = re.compile(r"^(?P<letters>[A-Za-z]+)(?P<rest>[\d.]*[a-z]?)$")
_VERSION = re.compile(r"^\d+(?:\.\d+)*[a-z]?$", re.IGNORECASE)  # "3", "3.2", "3n"


def _known_word(word: str) -> str:
    match = _WORD.match(word)
    if match is None:
        return word
    known = _KNOWN_WORDS.get(match["letters"].lower())
    return word if known is None else known + match["rest"]


def family_name(family: str) -> str:
    """``family`` as its makers write it when it is one Tandem knows ("llama-3.2": "Llama 3.2"), else unchanged.

    "Meta-Llama-3.1" reads "Llama 3.1", as Meta names the model; words the table
    does not hold keep the file's spelling ("gemma-3n" reads "Gemma 3n").
    """
    words = family.split("-")
    if len(words) > 1 and words[0].lower() == "meta" and words[1].lower() == "llama":
        words = words[1:]
    first = _WORD.match(words[0])
    if first is None or first["letters"].lower() not in _FAMILY_WORDS:
        return family
    spaced = first["letters"].lower() in _SPACED_VERSION and not first["rest"]
    written = _known_word(words[0])
    for index, word in enumerate(words[1:], start=1):
        space = spaced and index == 1 and _VERSION.match(word) is not None
        written += (" " if space else "-") + _known_word(word)
    return written


def _inner_capital(word: str) -> bool:
    """Whether ``word`` is cased on purpose inside ("SmolLM2", "QwQ", "0.5B"), not merely capitalised."""
    return any(c.isupper() for c in word[1:])


_NAME_SPACE = re.compile(r"(\s+)")
_FILE_WORDS = (re.compile(r"[-_\s]+"), re.compile(r"[-_\s.]+"))


def recased_name(name: str, file_name: str) -> str:
    """A model's own name (``general.name``) with each word in the casing its makers give it, where one is known.

    Converters often write the name title-cased ("Smollm2 135M"); a word
    without inner capitals takes the spelling of the same word in the file's
    name when that one has them ("SmolLM2-135M-Instruct.gguf"), else the
    family table's ("smollm2" reads "SmolLM2"). Other words stay as written.
    """
    stem = _EXTENSION.sub("", file_name.strip())
    hints = {token for pattern in _FILE_WORDS for token in pattern.split(stem) if _inner_capital(token)}
    by_fold = {token.casefold(): token for token in sorted(hints)}
    out = []
    for word in _NAME_SPACE.split(name):
        if word and not word.isspace() and not _inner_capital(word):
            known = _known_word(word)
            word = by_fold.get(word.casefold()) or (known if _inner_capital(known) else word)
        out.append(word)
    return "".join(out)


@dataclass(frozen=True, slots=True)
class ModelName:
    """A GGUF file's family ("Qwen2.5-Coder"), size ("1.5B"; "" when the name gives none) and quantisation."""

    family: str
    size: str
    quant: str = ""  # "Q4_K_M" as the name spells it, upper-cased ("" when the name gives none)

    def __str__(self) -> str:
        return f"{self.family} {self.size}".strip()


def _tokens(file_name: str) -> list[str]:
    stem = _SHARD.sub("", _EXTENSION.sub("", file_name.strip()))
    tokens: list[str] = []
    for piece in stem.split("-"):
        # "v0.2.Q4_K_M", "Instruct.Q4_1": a quantisation after a dot is a token of its own.
        head, dot, tail = piece.rpartition(".")
        if dot and head and _QUANT.match(tail):
            tokens += [head, tail]
        elif piece:
            tokens.append(piece)
    return tokens


def _size_words(match: re.Match[str]) -> str:
    effective = "E" if match["effective"] else ""
    return f"{(match['experts'] or '').lower()}{effective}{match['count']}{match['unit'].upper()}"


def model_name(file_name: str) -> ModelName:
    """The family, size and quantisation a GGUF file's name gives (tolerant: any string reads as something)."""
    tokens = _tokens(file_name)
    quant = next((t.upper() for t in reversed(tokens[1:]) if _QUANT.match(t) and t.upper() not in ("GGUF", "GGML")), "")
    for index, token in enumerate(tokens):
        match = _SIZE.match(token)
        if match is None or index == 0:
            continue  # the family comes first ("7B-..." alone is no family)
        size = _size_words(match)
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if _ACTIVE.match(following):
            size += f"-{following.upper()}"
        return ModelName(family_name("-".join(tokens[:index])), size, quant)
    while len(tokens) > 1 and (_QUANT.match(tokens[-1]) or _NOISE.match(tokens[-1])):
        tokens.pop()
    return ModelName(family_name("-".join(tokens)) or file_name, "", quant)


def short_model_name(file_name: str) -> str:
    """ "SmolLM2 360M" for ``SmolLM2-360M-Instruct-Q8_0.gguf``."""
    return str(model_name(file_name))


def short_pair_name(target: str, draft: str | None) -> str:
    """The pair in short: "Qwen2.5-Coder 1.5B + 0.5B" (one family), "Llama 3.2 1B + SmolLM2 135M" (two).

    One model in two quantisations reads "SmolLM2 135M Q4_1 + Q4_0"; ``draft`` None: the target's short name alone.
    """
    t = model_name(target)
    if draft is None:
        return str(t)
    d = model_name(draft)
    if t.family.casefold() != d.family.casefold():
        return f"{t} + {d}"
    if t.size.casefold() != d.size.casefold():
        return f"{t} + {d.size or d}"
    if t.quant and d.quant and t.quant != d.quant:
        return f"{t} {t.quant} + {d.quant}"
    return f"{t} + {d}"
