"""Re-quantising on the real SmolLM2 files: the cheaper draft's types, its cache, atomic writes, the library."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import llama_cpp
import pytest

from app.core.decoding.draft_policy import FixedDraftLength
from app.core.errors import TandemError
from app.engine.gguf.header import ModelFileError, read_header
from app.engine.llama.quantize import cheaper_draft_path, make_cheaper_draft, requantize
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig


def _types(path: Path) -> dict[str, str]:
    return {t.name: t.type_name for t in read_header(path).tensors}


@pytest.fixture(scope="module")
def cheaper(small_pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_cheaper_draft(small_pair[0], tmp_path_factory.mktemp("cheaper"))


def test_the_cheaper_draft_is_q4_0_down_to_its_output_layer(small_pair: tuple[Path, Path], cheaper: Path) -> None:
    source, plain_q4_0 = small_pair
    assert cheaper.name == "SmolLM2-135M-Instruct.Q4_1.requantized-Q4_0-output-Q4_0.gguf"
    assert read_header(cheaper).get("general.file_type") == llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0
    types = _types(cheaper)
    # SmolLM2 ties its output layer to the token embeddings: that tensor is the output layer here.
    assert types["token_embd.weight"] == "Q4_0"
    assert {t for name, t in types.items() if name.endswith(".weight") and "norm" not in name} == {"Q4_0"}
    # Without the output type llama.cpp keeps that layer at Q8_0: the parameter is what made it cheaper.
    assert _types(plain_q4_0)["token_embd.weight"] == "Q8_0" == _types(source)["token_embd.weight"]
    assert cheaper.stat().st_size < plain_q4_0.stat().st_size
    umask = os.umask(0)
    os.umask(umask)
    assert cheaper.stat().st_mode & 0o777 == 0o666 & ~umask  # as any new file, not private like a mkstemp one


def test_a_made_copy_is_reused(small_pair: tuple[Path, Path], cheaper: Path) -> None:
    before = cheaper.stat().st_mtime_ns
    assert make_cheaper_draft(small_pair[0], cheaper.parent) == cheaper
    assert cheaper.stat().st_mtime_ns == before
    with pytest.raises(TandemError, match="already is a cheaper draft"):
        make_cheaper_draft(cheaper, cheaper.parent)


def test_the_cheaper_draft_drafts_for_the_target(small_pair: tuple[Path, Path], cheaper: Path) -> None:
    from app.core.conversation.chat import Message
    from app.core.decoding.decoder import GenerationRequest
    from app.core.decoding.events import FinishedEvent
    from app.core.decoding.sampling import SamplingParams

    with LoadedPair(PairConfig(small_pair[0], cheaper, DrafterKind.MODEL, n_ctx=512, n_threads=1)) as pair:
        prompt = pair.template.render([Message("user", "Name three colours.")])
        decoder = pair.decoder(SamplingParams(temperature=0), FixedDraftLength(3))
        *_, finished = decoder.generate(GenerationRequest(prompt, max_tokens=24))
    assert isinstance(finished, FinishedEvent)
    assert finished.stats.drafted > 0 and finished.stats.accepted > 0


def test_the_models_folder_lists_it(cheaper: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    from app.engine.models.local import list_local_models

    monkeypatch.setenv("TANDEM_MODELS_DIR", str(cheaper.parent))
    listed = {m.path.resolve(): m for m in list_local_models()}
    assert cheaper.resolve() in listed
    inspection = listed[cheaper.resolve()].inspection
    assert inspection is not None and inspection.quant == "Q4_0"


def _fail_after_writing(real: Any, exc: BaseException | None) -> Any:
    def quantize(source: bytes, destination: bytes, params: Any) -> int:
        real(source, destination, params)  # the real quantiser writes its whole output first
        if exc is not None:
            raise exc
        Path(destination.decode()).write_bytes(b"GGUF half")  # and then the file is cut short
        return 1

    return quantize


@pytest.mark.parametrize("failure", [None, KeyboardInterrupt()], ids=["error-code", "interrupt"])
def test_a_failed_or_interrupted_quantise_leaves_nothing(
    small_pair: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException | None
) -> None:
    monkeypatch.setattr(llama_cpp, "llama_model_quantize", _fail_after_writing(llama_cpp.llama_model_quantize, failure))
    destination = cheaper_draft_path(small_pair[0], tmp_path)
    with pytest.raises(KeyboardInterrupt if failure is not None else TandemError):
        make_cheaper_draft(small_pair[0], tmp_path)
    assert list(tmp_path.iterdir()) == []  # no destination, no temporary file
    assert not destination.exists()


def test_an_unreadable_source_is_refused_before_llama_cpp(small_pair: tuple[Path, Path], tmp_path: Path) -> None:
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(small_pair[0].read_bytes()[:4096])
    with pytest.raises(ModelFileError):
        requantize(truncated, tmp_path / "out.gguf", "Q4_0", "Q4_0")
    with pytest.raises(TandemError, match="unknown tensor type"):
        requantize(small_pair[0], tmp_path / "out.gguf", "Q4_0", "Q9_9")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.gguf"]
