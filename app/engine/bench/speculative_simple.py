"""llama.cpp's ``llama-speculative-simple`` as a benchmark configuration, beside llama-server.

``bench --vs-speculative-simple`` runs llama.cpp's plain speculative example,
built once by ``scripts/build_llama_server.sh --tools``, on every prompt at each
of the peer draft lengths, in the same rotation as Tandem's runs. The example
has no server around it, so it is llama.cpp's speculative loop with nothing
added: the reference the issue's "llama.cpp's best fixed draft length" means.

Each run is a process: it maps the models (already in the page cache after the
first run), reads the prompt, then decodes with a fixed draft length. Its own
timing line gives the decode time alone ("decoded N tokens in S seconds"),
prompt processing excluded, as the benchmark's tokens/s are. The prompt goes in
as the text of Tandem's prompt tokens, special tokens spelled out, which the
example tokenizes back with special tokens parsed: the same tokens (the count it
reports must match, or the run is an error). Its reply comes back as text on standard output, after the
echoed prompt, and is tokenized with the target's vocabulary for the greedy
comparison (llama.cpp's own divergences are listed apart, as llama-server's are).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import llama_cpp

from app.core.bench.stats import CHEAPER_DRAFT, PEER_SIMPLE, RunRecord
from app.core.errors import TandemError
from app.engine.llama.model import FLASH_ATTENTION, LlamaModel

_DECODED = re.compile(r"decoded\s+(\d+) tokens in\s+([0-9.]+) seconds")
_ENCODED = re.compile(r"encoded\s+(\d+) tokens in\s+([0-9.]+) seconds")
_COUNT = re.compile(r"\bn_(drafted|accept)\s*=\s*(\d+)")
# A run that has not finished in this long is stuck, not slow (a 160-token reply takes under a minute here).
TIMEOUT_S = 900.0


def simple_name(draft_max: int, cheaper: bool = False) -> str:
    """The configuration's name in the report."""
    return f"{PEER_SIMPLE}{draft_max}{CHEAPER_DRAFT if cheaper else ''}"


def simple_names(draft_lengths: tuple[int, ...], cheaper_draft: bool = False) -> list[str]:
    """The configurations ``--vs-speculative-simple`` adds, one per draft length (and per draft file)."""
    variants = (False, True) if cheaper_draft else (False,)
    return [simple_name(k, cheaper) for cheaper in variants for k in draft_lengths]


@dataclass(frozen=True, slots=True)
class SimpleRun:
    """What one run of the example reported."""

    decoded: int
    decode_s: float
    encoded: int
    encode_s: float
    drafted: int
    accepted: int
    text: str


def parse_output(stdout: str, stderr: str, prompt_echo: str) -> SimpleRun:
    """The example's figures from its log (standard error) and its reply from standard output."""
    decoded, encoded = _DECODED.search(stderr), _ENCODED.search(stderr)
    if decoded is None or encoded is None:
        raise TandemError(f"llama-speculative-simple printed no timings: {stderr.strip()[-400:]}")
    counts = {name: int(value) for name, value in _COUNT.findall(stderr)}
    # Standard output is two newlines, the prompt as its pieces, the reply, then newlines.
    body = stdout.removeprefix("\n\n")
    text = body.removeprefix(prompt_echo) if body.startswith(prompt_echo) else body
    return SimpleRun(
        decoded=int(decoded.group(1)),
        decode_s=float(decoded.group(2)),
        encoded=int(encoded.group(1)),
        encode_s=float(encoded.group(2)),
        drafted=counts.get("drafted", 0),
        accepted=counts.get("accept", 0),
        text=text.rstrip("\n"),
    )


def command(
    binary: Path,
    target: Path,
    draft: Path,
    prompt: str,
    draft_max: int,
    max_tokens: int,
    n_ctx: int,
    threads: int,
    seed: int,
) -> list[str]:
    """The example's command line: greedy, the same threads for both models, flash attention as Tandem loads."""
    return [
        str(binary),
        "-m", str(target),
        "-md", str(draft),
        # Not -f: reading a file, the example drops its last newline (a token of the template); and taken
        # as it is, not with backslash escapes turned into characters (a prompt's code may spell "\\n").
        "-p", prompt, "--no-escape",
        "-n", str(max_tokens),
        "-c", str(n_ctx),
        "-b", str(n_ctx),  # the example reads the whole prompt in one batch
        "-t", str(threads), "-tb", str(threads),
        "-td", str(threads), "-tbd", str(threads),
        "-ngl", "0", "-ngld", "0",
        "-fa", "on" if FLASH_ATTENTION else "off",
        "--spec-type", "draft-simple",  # without it the example refuses to start speculating
        "--spec-draft-n-max", str(draft_max),
        "--temp", "0", "--top-k", "1",
        "--seed", str(seed),
    ]  # fmt: skip


def generate_with_simple(
    binary: Path,
    target_model: LlamaModel,
    draft: Path,
    name: str,
    prompt_tokens: list[int],
    draft_max: int,
    max_tokens: int,
    n_ctx: int,
    threads: int,
    *,
    seed: int,
    regime: str,
    category: str,
    prompt_id: str,
    repeat: int,
    temperature: float = 0.0,
) -> RunRecord:
    """One run of the example on ``prompt_tokens`` (greedy), as a benchmark record."""
    if temperature > 0:
        raise TandemError("llama-speculative-simple is compared greedily only (its sampling differs from Tandem's)")
    pieces = [target_model.llama.detokenize([t], special=True) for t in prompt_tokens]
    # The example tokenizes the file with a BOS of its own when the vocabulary asks for one: leave Tandem's out.
    vocab = target_model.vocab
    if (
        prompt_tokens
        and prompt_tokens[0] == llama_cpp.llama_vocab_bos(vocab)
        and llama_cpp.llama_vocab_get_add_bos(vocab)
    ):
        pieces = pieces[1:]
    prompt = b"".join(pieces).decode("utf-8", errors="replace")
    args = command(
        binary=binary,
        target=target_model.path,
        draft=draft,
        prompt=prompt,
        draft_max=draft_max,
        max_tokens=max_tokens,
        n_ctx=n_ctx,
        threads=threads,
        seed=seed,
    )
    try:
        done = subprocess.run(args, capture_output=True, timeout=TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise TandemError(f"llama-speculative-simple did not finish {prompt_id} in {TIMEOUT_S:.0f} s") from None
    stdout = done.stdout.decode("utf-8", errors="replace")
    stderr = done.stderr.decode("utf-8", errors="replace")
    if done.returncode != 0:
        raise TandemError(f"llama-speculative-simple failed on {prompt_id}: {stderr.strip()[-400:]}")
    run = parse_output(stdout, stderr, prompt)
    if run.encoded != len(prompt_tokens):
        raise TandemError(
            f"llama-speculative-simple read {run.encoded} prompt tokens of {prompt_id}, Tandem {len(prompt_tokens)}"
        )
    # The example may run a step past -n (it stops once it has more): compare and count the first max_tokens.
    tokens = tuple(target_model.tokenize(run.text, parse_special=False))[: min(run.decoded, max_tokens)]
    return RunRecord(
        regime=regime,
        config=name,
        category=category,
        prompt_id=prompt_id,
        temperature=temperature,
        repeat=repeat,
        tokens=tokens,
        steps=max(run.decoded - run.accepted, 0),  # each step emits its accepted drafts and one target token
        drafted=run.drafted,
        accepted=run.accepted,
        # Its tokens/s is its own: decoded tokens over decode seconds (the record's tokens are re-read text).
        generation_s=run.decode_s * len(tokens) / run.decoded if run.decoded else run.decode_s,
        prefill_s=run.encode_s,
        overhead_s=0.0,
        drafting_steps=max(run.decoded - run.accepted, 0) if run.drafted else 0,
        finish="length" if run.decoded >= max_tokens else "eog",
        prompt_read=run.encoded,
    )
