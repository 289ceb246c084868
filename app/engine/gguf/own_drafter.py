"""Read from a GGUF header whether the file carries MTP layers or is an EAGLE-3 head or DFlash drafter.

The keys and tensor names are the pinned llama.cpp's: ``{arch}.nextn_predict_layers``
with ``blk.N.nextn.*`` tensors for MTP; architecture ``eagle3`` or ``dflash``
with ``{arch}.target_layers`` (and ``eagle3.target_hidden_size``) for a head.
"""

from __future__ import annotations

from gguf import Keys

from app.core.pairing.own_drafter import OwnDrafter, OwnDrafterKind
from app.engine.gguf.architecture import metadata_int, read_architecture
from app.engine.gguf.header import GGUFHeader

_HEAD_KINDS = {"eagle3": OwnDrafterKind.EAGLE3, "dflash": OwnDrafterKind.DFLASH}


def read_own_drafter(header: GGUFHeader) -> OwnDrafter | None:
    """The drafter this file is or carries, or None for a plain model."""
    arch = header.architecture
    head_kind = _HEAD_KINDS.get(arch)
    if head_kind is not None:
        layers = header.get(f"{arch}.target_layers")
        target_layers = tuple(int(v) for v in layers) if layers is not None and not isinstance(layers, str) else ()
        shape = read_architecture(header)
        # DFlash has no key for the target's width: its fc layer maps len(target_layers) target states of its own
        # width, so the target must be as wide as the drafter.
        hidden = metadata_int(header.get("eagle3.target_hidden_size")) if arch == "eagle3" else shape.n_embd
        return OwnDrafter(
            kind=head_kind,
            architecture=arch,
            n_blocks=shape.n_layers or 0,
            target_layers=target_layers,
            target_hidden=hidden,
        )
    n_nextn = metadata_int(header.get(Keys.LLM.NEXTN_PREDICT_LAYERS.format(arch=arch))) or 0
    if n_nextn <= 0:
        return None
    has_weights = any(".nextn." in tensor.name for tensor in header.tensors)
    return OwnDrafter(kind=OwnDrafterKind.MTP, architecture=arch, n_blocks=n_nextn, has_weights=has_weights)
