"""Drafters that ship with a model: its own MTP layers, or an EAGLE-3 head or DFlash drafter published beside it.

A model file may carry multi-token-prediction (NextN) blocks after its main
stack; llama.cpp drafts with them (``--spec-type draft-mtp``) and needs no
second file. An EAGLE-3 head or a DFlash drafter is a second, small file
that reads the target's hidden states from named layers, so it fits only a
target of the right width and depth (``draft-eagle3``, ``draft-dflash``).
:class:`OwnDrafter` is what a header says about either; :func:`head_problems`
checks a head against a target, worded like the draft-model rules in
:mod:`app.core.pairing.compatibility`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.core.pairing.compatibility import CompatibilityProblem

# Architectures whose MTP graph the pinned llama.cpp (llama-cpp-python 0.3.36) builds, by their GGUF names.
MTP_ARCHITECTURES = frozenset(
    {"qwen35", "qwen35moe", "qwen3next", "glm4moe", "glm-dsa", "step35", "mimo2", "nemotron_h_moe", "deepseek2"}
)

RULE_HIDDEN_SIZE = QT_TRANSLATE_NOOP("PairingRules", "hidden size")
RULE_TARGET_LAYERS = QT_TRANSLATE_NOOP("PairingRules", "target layers")


class OwnDrafterKind(enum.StrEnum):
    """Which kind of shipped drafter a file is or carries; the value is llama.cpp's ``--spec-type``."""

    MTP = "draft-mtp"
    EAGLE3 = "draft-eagle3"
    DFLASH = "draft-dflash"

    @property
    def needs_head_file(self) -> bool:
        """Whether the drafter is a file of its own (EAGLE-3, DFlash) rather than layers inside the target."""
        return self is not OwnDrafterKind.MTP


@dataclass(frozen=True, slots=True, kw_only=True)
class OwnDrafter:
    """What one GGUF header says about a drafter that ships with a model.

    For MTP, the file is the target and ``n_blocks`` its NextN blocks; for a
    head, the file is the drafter, ``target_layers`` the target layers it
    reads and ``target_hidden`` the target width it expects.
    """

    kind: OwnDrafterKind
    architecture: str  # the file's general.architecture
    n_blocks: int
    target_layers: tuple[int, ...] = ()
    target_hidden: int | None = None
    has_weights: bool = True  # MTP: the NextN blocks' tensors are in the file, not only the count

    @property
    def usable(self) -> bool:
        """Whether the pinned llama.cpp can draft with it as the file stands."""
        if self.kind is OwnDrafterKind.MTP:
            return self.has_weights and self.architecture in MTP_ARCHITECTURES
        return bool(self.target_layers)

    @property
    def runs_in_process(self) -> bool:
        """Whether these are MTP layers Tandem drafts with itself (the MTP drafter), not a head file."""
        return self.kind is OwnDrafterKind.MTP and self.usable

    def explanation(self) -> Words:
        """One sentence for the picker: what the file carries, and whether it drafts."""
        if self.kind is OwnDrafterKind.MTP:
            if not self.has_weights:
                return QT_TRANSLATE_NOOP(
                    "PairingReasons",
                    "the header declares {n} MTP layer(s) but the file holds none of their weights (stripped in "
                    "conversion): no own drafter",
                ).fill(n=self.n_blocks)
            if self.architecture not in MTP_ARCHITECTURES:
                return QT_TRANSLATE_NOOP(
                    "PairingReasons", "carries {n} MTP layer(s), but this llama.cpp has no MTP graph for {arch}"
                ).fill(n=self.n_blocks, arch=self.architecture)
            return QT_TRANSLATE_NOOP(
                "PairingReasons", "the model's own MTP layers ({n} NextN block(s)) draft for it: no second file needed"
            ).fill(n=self.n_blocks)
        layers = ", ".join(str(layer) for layer in self.target_layers)
        if self.kind is OwnDrafterKind.EAGLE3:
            return QT_TRANSLATE_NOOP(
                "PairingReasons",
                "an EAGLE-3 head: drafts for a target {width} wide, reading its layers {layers}",
            ).fill(width=str(self.target_hidden), layers=layers)
        return QT_TRANSLATE_NOOP(
            "PairingReasons", "a DFlash block drafter: drafts for a target {width} wide, reading its layers {layers}"
        ).fill(width=str(self.target_hidden), layers=layers)


def head_problems(head: OwnDrafter, target_hidden: int | None, target_layers: int | None) -> list[CompatibilityProblem]:
    """Why ``head`` (an EAGLE-3 or DFlash file) cannot draft for a target this wide and this deep; [] when it can.

    The tokenizer rules of :func:`~app.core.pairing.compatibility.check_pair` apply on top.
    """
    problems: list[CompatibilityProblem] = []
    if head.target_hidden is not None and target_hidden is not None and head.target_hidden != target_hidden:
        problems.append(
            CompatibilityProblem(
                RULE_HIDDEN_SIZE,
                QT_TRANSLATE_NOOP(
                    "PairingRules", "the head reads hidden states {head} wide, the target's are {target}"
                ).fill(head=str(head.target_hidden), target=str(target_hidden)),
            )
        )
    deepest = max(head.target_layers, default=-1)
    if target_layers is not None and deepest >= target_layers:
        problems.append(
            CompatibilityProblem(
                RULE_TARGET_LAYERS,
                QT_TRANSLATE_NOOP(
                    "PairingRules", "the head reads the target's layer {layer}, and the target has {count} layers"
                ).fill(layer=str(deepest), count=str(target_layers)),
            )
        )
    return problems
