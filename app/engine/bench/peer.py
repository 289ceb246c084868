"""llama.cpp's own speculative decoding as a benchmark configuration, run in the same benchmark as Tandem's.

``bench --vs-llama-server`` starts llama-server several times per regime with
the same models and threads: the target alone, speculating with the draft
model at a fixed draft length (``draft-simple``), and with each of llama.cpp's
n-gram modes (:data:`NGRAM_MODES`, its own defaults: the peers of Tandem's
prompt lookup and hybrid drafting). Each prompt goes to them between Tandem's own runs,
in the same rotation: the report then shows both implementations' tokens/s
and acceptance from one run of one machine. The server gets the very prompt
tokens Tandem decodes (``/completion`` takes token ids) and returns its token
ids (``return_tokens``), so greedy runs are compared token for token too.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx2
import psutil

from app.core.bench.stats import CHEAPER_DRAFT, PEER_NGRAM, PEER_SPECULATIVE, RunRecord
from app.core.decoding.sampling import SamplingParams
from app.core.errors import TandemError
from app.engine.remote.llama_server import LlamaServerProcess

PLAIN = "llama-server target"
# The n-gram speculative types of the vendored llama-server (0.3.36) that need no draft model,
# as `llama-server --help` lists them; ngram-map-k4v and ngram-cache are left out (ngram-map-k
# stands for the map family; ngram-cache needs cache files prepared ahead).
NGRAM_MODES = ("ngram-simple", "ngram-map-k", "ngram-mod")
# llama-server's longest n-gram draft per step: as many as Tandem's lookup may propose.
NGRAM_DRAFT_MAX = 16


def speculative_name(draft_max: int, cheaper: bool = False) -> str:
    """The configuration's name in the report (``cheaper``: speculating with the cheaper draft)."""
    return f"{PEER_SPECULATIVE}{draft_max}{CHEAPER_DRAFT if cheaper else ''}"


def ngram_name(mode: str) -> str:
    """An n-gram mode's configuration name in the report."""
    return f"llama-server {mode}"


def peer_names(
    draft_lengths: int | Sequence[int],
    has_draft: bool = True,
    ngram_modes: Sequence[str] = NGRAM_MODES,
    cheaper_draft: bool = False,
) -> list[str]:
    """The configurations ``--vs-llama-server`` adds, in the order they rotate (one per draft length given).

    ``cheaper_draft``: each draft length once more with the cheaper draft.
    """
    lengths = [draft_lengths] if isinstance(draft_lengths, int) else list(draft_lengths)
    variants = (False, True) if cheaper_draft else (False,)
    speculative = [speculative_name(k, cheaper) for cheaper in variants for k in lengths] if has_draft else []
    return [*speculative, *(ngram_name(m) for m in ngram_modes), PLAIN]


@contextmanager
def llama_servers(
    target: Path,
    draft: Path | None,
    draft_lengths: Sequence[int],
    n_ctx: int,
    threads: int | None,
    ngram_modes: Sequence[str] = NGRAM_MODES,
    cheaper_draft: Path | None = None,
    gpu_layers: tuple[int, int] = (0, 0),
) -> Iterator[dict[str, LlamaServerProcess]]:
    """The servers one regime compares with, by configuration name; stopped on exit.

    With ``cheaper_draft``, llama.cpp also speculates with that file at every draft length.
    ``gpu_layers``: the target's and draft's GPU layers as Tandem loaded them (0, 0 on a CPU build),
    so both sides run the same layers on the same device.
    """
    n_threads = threads or psutil.cpu_count(logical=False) or 1
    drafts = [(d, d == cheaper_draft) for d in (draft, cheaper_draft) if d is not None]
    with ExitStack() as stack:
        plain = LlamaServerProcess(target, n_ctx=n_ctx, threads=n_threads, gpu_layers=gpu_layers)
        servers = {PLAIN: stack.enter_context(plain)}
        for (file, cheaper), draft_max in itertools.product(drafts, draft_lengths):
            spec = LlamaServerProcess(
                target, file, draft_max=draft_max, n_ctx=n_ctx, threads=n_threads, gpu_layers=gpu_layers
            )
            servers[speculative_name(draft_max, cheaper)] = stack.enter_context(spec)
        for mode in ngram_modes:
            lookup = LlamaServerProcess(
                target,
                spec_type=mode,
                draft_max=NGRAM_DRAFT_MAX,
                n_ctx=n_ctx,
                threads=n_threads,
                gpu_layers=gpu_layers,
            )
            servers[ngram_name(mode)] = stack.enter_context(lookup)
        yield servers


def generate_on_server(
    server: LlamaServerProcess,
    name: str,
    prompt_tokens: list[int],
    params: SamplingParams,
    max_tokens: int,
    *,
    regime: str,
    category: str,
    prompt_id: str,
    repeat: int,
    cache_prompt: bool = True,
) -> RunRecord:
    """One generation through ``/completion``, as a benchmark record (times from the server's own timings).

    ``cache_prompt`` False makes the server read the whole prompt again (the
    long-context prompts, whose prefill is measured), as Tandem does then.

    An n-gram server is restarted first, so that every run (a redone one
    too) meets a lookup that has seen neither this prompt nor its reply:
    ``ngram-mod`` keeps its n-gram pool across requests, and would otherwise
    draft a repeat from the previous repeat's reply (measured on a tuning
    prompt: 12 of 47 drafted tokens accepted fresh, 59 of 64 on the second
    request). Tandem's lookup starts afresh every reply.
    """
    if name.startswith(PEER_NGRAM):
        server.restart()
    body = {
        "prompt": prompt_tokens,
        "n_predict": max_tokens,
        "temperature": params.temperature,
        "top_k": params.top_k,
        "top_p": params.top_p,
        "min_p": params.min_p,
        "repeat_penalty": params.repeat_penalty,
        "seed": params.seed if params.seed is not None else -1,
        "cache_prompt": cache_prompt,  # as Tandem reuses its prefill between a prompt's configurations
        "return_tokens": True,
    }
    try:
        response = httpx2.post(f"http://127.0.0.1:{server.port}/completion", json=body, timeout=600)
        response.raise_for_status()
        data = response.json()
    except (httpx2.HTTPError, ValueError) as exc:
        raise TandemError(f"llama-server failed on {prompt_id}: {exc}") from None
    timings = data.get("timings") or {}
    drafted = int(timings.get("draft_n", 0))
    accepted = int(timings.get("draft_n_accepted", 0))
    tokens = tuple(int(t) for t in data.get("tokens") or ())
    emitted = int(timings.get("predicted_n", len(tokens)))
    return RunRecord(
        regime=regime,
        config=name,
        category=category,
        prompt_id=prompt_id,
        temperature=params.temperature,
        repeat=repeat,
        tokens=tokens,
        # Each verify step emits its accepted drafts plus one token of the target's.
        steps=max(emitted - accepted, 0),
        drafted=drafted,
        accepted=accepted,
        generation_s=float(timings.get("predicted_ms", 0.0)) / 1000,
        prefill_s=float(timings.get("prompt_ms", 0.0)) / 1000,
        overhead_s=0.0,
        drafting_steps=max(emitted - accepted, 0) if drafted else 0,
        finish="length" if data.get("stop_type") == "limit" else "eog",
        prompt_read=int(timings.get("prompt_n", 0)),  # its time to first token is not in its timings
    )
