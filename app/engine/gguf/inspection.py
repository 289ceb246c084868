"""What a GGUF file holds, read from its header alone: the facts a model list and a memory estimate need.

Built on :func:`app.engine.gguf.header.read_header` (milliseconds to half a
second, no weights touched) and on the ``gguf`` package's key names and
enumerations, so the meaning of each key follows llama.cpp's own definitions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gguf import GGMLQuantizationType, Keys, LlamaFileType

from app.core.display.model_names import recased_name
from app.core.pairing.quant_label import quant_label
from app.engine.gguf.architecture import metadata_int, read_architecture
from app.engine.gguf.header import GGUFHeader

# Tensor types that hold unquantised weights; the norms and biases are F32 in
# every quantised file, so they say nothing about the quantisation.
_PLAIN_TYPES = {GGMLQuantizationType.F32.name, GGMLQuantizationType.F16.name, GGMLQuantizationType.BF16.name}


@dataclass(frozen=True, slots=True)
class ModelInspection:
    """A GGUF file's model facts. Fields the file does not state are ``None``."""

    path: Path
    file_size: int
    gguf_version: int
    architecture: str
    name: str | None
    basename: str | None  # the model family as the converter named it, e.g. "Qwen2.5-Coder"
    size_label: str | None  # e.g. "1.5B"
    n_params: int  # weights stored in the file (all tensors' elements)
    quant: str  # the file type, e.g. "Q4_K_M", or the dominant tensor type when unstated
    file_type: int | None  # general.file_type (a llama.cpp LlamaFileType value)
    tensor_types: dict[str, int] = field(default_factory=dict)  # tensor type name -> number of tensors
    bits_per_weight: float = 0.0
    n_layers: int | None = None
    n_embd: int | None = None
    n_ff: int | None = None
    n_head: int | None = None
    n_head_kv: int | None = None
    head_dim: int | None = None
    n_ctx_train: int | None = None
    tokenizer_model: str | None = None  # "gpt2" (BPE), "llama" (SentencePiece), ...
    pre_tokenizer: str | None = None
    n_vocab: int = 0
    bos_id: int | None = None
    eos_id: int | None = None
    eot_id: int | None = None
    add_bos: bool | None = None
    add_eos: bool | None = None
    has_chat_template: bool = False
    split_count: int = 1  # >1 for a model sharded into -0000N-of-0000M.gguf files

    @property
    def display_name(self) -> str:
        """The name to show: the file's own, in its makers' casing (:func:`recased_name`), else the file name."""
        return recased_name(self.name, self.path.name) if self.name else self.path.stem

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (the path as a string)."""
        data = asdict(self)
        data["path"] = str(self.path)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelInspection:
        """The inverse of :meth:`to_dict`."""
        fields = dict(data)
        fields["path"] = Path(fields["path"])
        return cls(**fields)


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


# general.file_type numbers -> llama.cpp's names for them (gguf follows llama.cpp's enum).
_FILE_TYPE_NAMES = {member.value: member.name for member in LlamaFileType}


def file_type_name(file_type: int | None) -> str | None:
    """``15`` -> ``"Q4_K_M"``, using gguf's LlamaFileType names (``None`` when the key is absent)."""
    return None if file_type is None else quant_label(file_type, _FILE_TYPE_NAMES, "")


def _dominant_type(header: GGUFHeader) -> str:
    """The quantised type holding the most bytes (files written without general.file_type)."""
    weights: Counter[str] = Counter()
    for tensor in header.tensors:
        weights[tensor.type_name] += tensor.n_bytes
    quantised = {k: v for k, v in weights.items() if k not in _PLAIN_TYPES}
    pool = quantised or weights
    return max(pool, key=lambda k: pool[k]) if pool else "unknown"


def inspect_header(header: GGUFHeader) -> ModelInspection:
    """Turn a parsed header into a :class:`ModelInspection`."""

    arch = read_architecture(header)
    n_params = sum(t.n_elements for t in header.tensors)
    tensor_bytes = sum(t.n_bytes for t in header.tensors)
    file_type = metadata_int(header.get(Keys.General.FILE_TYPE))
    template = header.get(Keys.Tokenizer.CHAT_TEMPLATE)
    return ModelInspection(
        path=header.path,
        file_size=header.file_size,
        gguf_version=header.version,
        architecture=header.architecture,
        name=header.get(Keys.General.NAME),
        basename=header.get(Keys.General.BASENAME),
        size_label=header.get(Keys.General.SIZE_LABEL),
        n_params=n_params,
        quant=quant_label(file_type, _FILE_TYPE_NAMES, _dominant_type(header)),
        file_type=file_type,
        tensor_types=dict(Counter(t.type_name for t in header.tensors).most_common()),
        bits_per_weight=round(8 * tensor_bytes / n_params, 3) if n_params else 0.0,
        n_layers=arch.n_layers,
        n_embd=arch.n_embd,
        n_ff=arch.n_ff,
        n_head=arch.n_head,
        n_head_kv=arch.n_head_kv,
        head_dim=arch.head_dim,
        n_ctx_train=arch.n_ctx_train,
        tokenizer_model=header.get(Keys.Tokenizer.MODEL),
        pre_tokenizer=header.get(Keys.Tokenizer.PRE),
        n_vocab=arch.n_vocab,
        bos_id=metadata_int(header.get(Keys.Tokenizer.BOS_ID)),
        eos_id=metadata_int(header.get(Keys.Tokenizer.EOS_ID)),
        eot_id=metadata_int(header.get(Keys.Tokenizer.EOT_ID)),
        add_bos=_bool(header.get(Keys.Tokenizer.ADD_BOS)),
        add_eos=_bool(header.get(Keys.Tokenizer.ADD_EOS)),
        has_chat_template=bool(template),
        split_count=metadata_int(header.get(Keys.Split.LLM_KV_SPLIT_COUNT)) or 1,
    )
