"""The header says whether a file carries MTP layers or is an EAGLE-3 head or a DFlash drafter.

On the SYNTHETIC files of ``tests/fixtures/synthetic_drafters.py`` (random
weights, a made-up vocabulary): no real file of these kinds is in reach.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.core.pairing.own_drafter import OwnDrafterKind, head_problems
from app.engine.gguf.header import read_header
from app.engine.gguf.own_drafter import read_own_drafter
from tests.engine.model_files import write_gguf
from tests.fixtures.synthetic_drafters import N_EMBD, TARGET_LAYERS, Tokenizer, write_all


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_all(tmp_path_factory.mktemp("synthetic"), Tokenizer.tiny())


def test_a_qwen35_file_with_a_nextn_block_offers_its_own_mtp_layers(files: dict[str, Path]) -> None:
    own = read_own_drafter(read_header(files["qwen35_mtp"]))
    assert own is not None and own.kind is OwnDrafterKind.MTP
    assert own.n_blocks == 1 and own.has_weights and own.usable
    assert not own.kind.needs_head_file
    assert str(own.explanation()) == (
        "the model's own MTP layers (1 NextN block(s)) draft for it: no second file needed"
    )


def test_mtp_layers_draft_in_process_and_a_head_file_does_not(files: dict[str, Path]) -> None:
    """The MTP drafter runs layers inside the target (qwen35's recurrent trunk too); a head is a second file."""
    for kind in ("glm4moe_mtp", "qwen35_mtp"):
        own = read_own_drafter(read_header(files[kind]))
        assert own is not None and own.runs_in_process, kind
    eagle3 = read_own_drafter(read_header(files["eagle3"]))
    assert eagle3 is not None and not eagle3.runs_in_process


def test_a_plain_model_carries_no_drafter(files: dict[str, Path]) -> None:
    assert read_own_drafter(read_header(files["llama_target"])) is None


def test_a_declared_count_without_the_tensors_is_no_drafter(tmp_path: Path) -> None:
    """Converters that strip the MTP weights may keep the key: the picker must not offer what is not there."""
    path = write_gguf(tmp_path / "stripped.gguf", arch="qwen35", extra_uint32={"{arch}.nextn_predict_layers": 1})
    own = read_own_drafter(read_header(path))
    assert own is not None and not own.has_weights and not own.usable
    assert "holds none of their weights" in str(own.explanation())


def test_mtp_layers_of_an_architecture_llama_cpp_cannot_run_are_named_but_not_offered(tmp_path: Path) -> None:
    tensors = {"blk.2.nextn.eh_proj.weight": np.zeros((8, 16), dtype=np.float32)}
    path = write_gguf(
        tmp_path / "other.gguf", arch="llama", tensors=tensors, extra_uint32={"{arch}.nextn_predict_layers": 1}
    )
    own = read_own_drafter(read_header(path))
    assert own is not None and own.has_weights and not own.usable
    assert str(own.explanation()) == "carries 1 MTP layer(s), but this llama.cpp has no MTP graph for llama"


@pytest.mark.parametrize(("kind", "name"), [("eagle3", OwnDrafterKind.EAGLE3), ("dflash", OwnDrafterKind.DFLASH)])
def test_a_head_names_the_target_layers_it_reads(files: dict[str, Path], kind: str, name: OwnDrafterKind) -> None:
    own = read_own_drafter(read_header(files[kind]))
    assert own is not None and own.kind is name and own.kind.needs_head_file
    assert own.target_layers == tuple(TARGET_LAYERS) and own.target_hidden == N_EMBD and own.usable
    assert f"drafts for a target {N_EMBD} wide, reading its layers 0, 1, 3" in str(own.explanation())
    target = read_own_drafter(read_header(files["llama_target"]))
    assert target is None
    assert head_problems(own, N_EMBD, 4) == []


def test_a_head_for_another_target_says_which_rule_it_breaks(files: dict[str, Path]) -> None:
    own = read_own_drafter(read_header(files["eagle3"]))
    assert own is not None
    problems = head_problems(own, 2 * N_EMBD, 3)
    assert [str(p) for p in problems] == [
        f"hidden size: the head reads hidden states {N_EMBD} wide, the target's are {2 * N_EMBD}",
        "target layers: the head reads the target's layer 3, and the target has 3 layers",
    ]
