"""Short model and pair names from real GGUF file names, as the Hub and the PyPI packages spell them."""

from __future__ import annotations

import pytest

from app.core.display.model_names import ModelName, model_name, recased_name, short_model_name, short_pair_name


@pytest.mark.parametrize(
    ("file_name", "short"),
    [
        ("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", "Qwen2.5-Coder 1.5B"),
        ("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "Qwen2.5-Coder 0.5B"),
        ("SmolLM2-360M-Instruct-Q8_0.gguf", "SmolLM2 360M"),
        ("SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2 135M"),
        ("Llama-3.2-1B-Instruct-f16.gguf", "Llama 3.2 1B"),
        ("gemma-3-270m-it-Q4_0.gguf", "Gemma 3 270M"),
        ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "Llama 3.1 8B"),
        ("Mistral-7B-Instruct-v0.3.Q4_K_M.gguf", "Mistral 7B"),
        ("tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf", "TinyLlama 1.1B"),
        ("DeepSeek-R1-Distill-Qwen-1.5B-Q4_K_M.gguf", "DeepSeek-R1-Distill-Qwen 1.5B"),
        ("Mixtral-8x7B-Instruct-v0.1.Q4_K_M.gguf", "Mixtral 8x7B"),
        ("Qwen3-30B-A3B-Q4_K_M.gguf", "Qwen3 30B-A3B"),
        ("Qwen3-0.6B-Q8_0.gguf", "Qwen3 0.6B"),
        ("gemma-3n-E2B-it-Q4_K_M.gguf", "Gemma 3n E2B"),
        ("gpt-oss-20b-mxfp4.gguf", "gpt-oss 20B"),
        ("granite-3.1-2b-instruct-Q4_K_M.gguf", "Granite 3.1 2B"),
        ("Qwen2.5-7B-Instruct-Q4_K_M-00001-of-00002.gguf", "Qwen2.5 7B"),
        ("Phi-3-mini-4k-instruct-q4.gguf", "Phi-3-mini"),
        ("stories15M.gguf", "stories15M"),
        ("Llama-3.2-1B-Instruct-IQ4_XS.GGUF", "Llama 3.2 1B"),
    ],
)
def test_a_file_name_reads_as_family_and_size(file_name: str, short: str) -> None:
    assert short_model_name(file_name) == short


@pytest.mark.parametrize(
    ("file_name", "short"),
    [
        # Lower-case file names of known families read as the family writes itself.
        ("llama-3.2-1b-instruct-q4_k_m.gguf", "Llama 3.2 1B"),
        ("gemma-3-1b-it-Q4_K_M.gguf", "Gemma 3 1B"),
        ("gemma-2-2b-it-Q4_K_M.gguf", "Gemma 2 2B"),
        ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "Qwen2.5-Coder 1.5B"),
        ("qwen2.5-0.5b-instruct-q8_0.gguf", "Qwen2.5 0.5B"),
        ("qwen3-0.6b-q8_0.gguf", "Qwen3 0.6B"),
        ("qwen2-vl-2b-instruct-q4_k_m.gguf", "Qwen2-VL 2B"),
        ("smollm2-360m-instruct-q8_0.gguf", "SmolLM2 360M"),
        ("phi-3.5-mini-instruct-q4_k_m.gguf", "Phi-3.5-mini"),
        ("mistral-7b-instruct-v0.2.Q4_K_M.gguf", "Mistral 7B"),
        ("deepseek-r1-distill-qwen-1.5b-q4_k_m.gguf", "DeepSeek-R1-Distill-Qwen 1.5B"),
        ("meta-llama-3.1-8b-instruct.Q4_K_M.gguf", "Llama 3.1 8B"),
        # The Hub's own spellings read the same.
        ("SmolLM2-360M-Instruct-Q8_0.gguf", "SmolLM2 360M"),
        ("Phi-3.5-mini-instruct-Q4_K_M.gguf", "Phi-3.5-mini"),
        ("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", "Qwen2.5-Coder 1.5B"),
        # Unknown families keep the file's spelling.
        ("gpt-oss-20b-mxfp4.gguf", "gpt-oss 20B"),
        ("my-finetune-7b-q4_k_m.gguf", "my-finetune 7B"),
        ("stories15M.gguf", "stories15M"),
        ("llamafied-tiny-1b.gguf", "llamafied-tiny 1B"),
    ],
)
def test_a_known_family_reads_as_its_makers_write_it(file_name: str, short: str) -> None:
    assert short_model_name(file_name) == short


def test_the_installed_pairs_read_in_short() -> None:
    """The file names setup installs (tandem's demo and small pairs), as the status bar and reply headers say them."""
    demo = ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    assert short_pair_name(*demo) == "Qwen2.5-Coder 1.5B + 0.5B"
    small = ("SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct.Q4_0.gguf")
    assert short_pair_name(*small) == "SmolLM2 135M Q4_1 + Q4_0"


def test_the_quantisation_is_read_but_not_shown() -> None:
    assert model_name("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf") == ModelName("Qwen2.5-Coder", "1.5B", "Q4_K_M")
    assert model_name("Llama-3.2-1B-Instruct-f16.gguf").quant == "F16"
    assert model_name("Mistral-7B-Instruct-v0.3.Q4_K_M.gguf").quant == "Q4_K_M"
    assert model_name("stories15M.gguf").quant == ""


@pytest.mark.parametrize(
    ("target", "draft", "short"),
    [
        ("SmolLM2-360M-Instruct-Q8_0.gguf", "SmolLM2-135M-Instruct-Q8_0.gguf", "SmolLM2 360M + 135M"),
        (
            "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf",
            "qwen2.5-coder-0.5b-instruct-q8_0.gguf",
            "Qwen2.5-Coder 1.5B + 0.5B",
        ),
        ("Llama-3.2-1B-Instruct-f16.gguf", "SmolLM2-135M-Instruct-Q8_0.gguf", "Llama 3.2 1B + SmolLM2 135M"),
        ("Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf", "Qwen2.5-0.5B-Instruct-Q8_0.gguf", "Qwen2.5-Coder 7B + Qwen2.5 0.5B"),
        # One model in two quantisations: the quantisations tell them apart.
        ("SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct.Q4_0.gguf", "SmolLM2 135M Q4_1 + Q4_0"),
        ("gemma-3-270m-it-Q4_0.gguf", None, "Gemma 3 270M"),
        ("Phi-3-mini-4k-instruct-q4.gguf", "Phi-3-mini-4k-instruct-q8_0.gguf", "Phi-3-mini Q4 + Q8_0"),
    ],
)
def test_a_pair_reads_in_short(target: str, draft: str | None, short: str) -> None:
    assert short_pair_name(target, draft) == short


def test_any_string_reads_as_something() -> None:
    for odd in ("", "7B.gguf", "-", "model.gguf", "Q4_K_M.gguf"):
        assert isinstance(short_model_name(odd), str)
    assert short_model_name("7B.gguf") == "7B"


@pytest.mark.parametrize(
    ("name", "file_name", "shown"),
    [
        # The installed draft's own name, title-cased by its converter: the file name knows better.
        ("Smollm2 135M 8k Lc100K Mix1 Ep2", "SmolLM2-135M-Instruct.Q4_0.gguf", "SmolLM2 135M 8k Lc100K Mix1 Ep2"),
        # A file name in lower case is no hint; the family table still knows the family.
        ("Smollm2 360M Instruct", "smollm2-360m-instruct-q8_0.gguf", "SmolLM2 360M Instruct"),
        ("Deepseek R1 Distill Qwen 1.5B", "model.gguf", "DeepSeek R1 Distill Qwen 1.5B"),
        # Casing given on purpose stays, and so does a name nobody knows better.
        (
            "Qwen2.5 Coder 0.5B Instruct AWQ",
            "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            "Qwen2.5 Coder 0.5B Instruct AWQ",
        ),
        ("QwQ 32B", "qwq-32b-q4_k_m.gguf", "QwQ 32B"),
        ("My  Model  v2", "my-model.gguf", "My  Model  v2"),
    ],
)
def test_a_files_own_name_keeps_its_makers_casing(name: str, file_name: str, shown: str) -> None:
    assert recased_name(name, file_name) == shown
