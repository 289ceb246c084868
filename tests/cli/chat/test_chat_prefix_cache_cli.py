"""`chat --prefix-cache` across processes: the second run reads a long prompt's state from disk, the same reply."""

from __future__ import annotations

import json
from pathlib import Path

from app.engine.llama.prefix_cache import SUFFIX
from tests.cli.helpers import run_cli

# Long enough to be saved (over MIN_PREFIX_TOKENS, 512, with the question), and not much longer: each run reads it.
DOCUMENT = "\n".join(f"Entry {i}: the lynx near Graz was {i % 9 + 1} years old in spring." for i in range(36))


def _ask(small_pair: tuple[Path, Path], data: Path, prompt: Path, *extra: str) -> dict[str, object]:
    # The target alone: with a draft, a step's batch size depends on what was drafted, and a near-tie can
    # then round either way; without one the same prompt is the same computation, cache or not.
    args = ["--target", str(small_pair[0]), "--no-draft", "--ctx", "2048", "--threads", "1"]
    result = run_cli(
        "chat", *args, "--json", "--temperature", "0", "--max-tokens", "12", "--prompt-file", str(prompt), *extra,
        data=data,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    payload: dict[str, object] = json.loads(result.stdout)
    return payload


def _reused(payload: dict[str, object]) -> int:
    stats = payload["stats"]
    assert isinstance(stats, dict)
    return int(stats["prompt_reused"])


def test_a_second_process_reuses_the_saved_prefix(small_pair: tuple[Path, Path], tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text(f"{DOCUMENT}\n\nHow old was the lynx in entry 40?", encoding="utf-8")
    data = tmp_path / "data"
    first = _ask(small_pair, data, prompt)
    assert _reused(first) == 0
    assert len(list((data / "cache" / "prefix-cache").glob(f"*{SUFFIX}"))) == 1  # the target's state
    second = _ask(small_pair, data, prompt)
    assert _reused(second) == len(second["prompt_tokens"]) - 1  # type: ignore[arg-type]
    assert second["text"] == first["text"]
    # Off: nothing read, nothing written.
    fresh = tmp_path / "fresh"
    off = _ask(small_pair, fresh, prompt, "--no-prefix-cache")
    assert _reused(off) == 0 and off["text"] == first["text"]
    assert not (fresh / "cache" / "prefix-cache").exists()
