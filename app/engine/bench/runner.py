"""The benchmark: every configuration on a prompt suite, in one process, interleaved.

For each regime (the target as given, and optionally an F16 copy of it, a
memory-bound stand-in for a GPU) the pair is loaded once. Then, repeat by
repeat and prompt by prompt, every configuration generates the same reply:
target-only, the draft model at fixed draft lengths and adaptively, and the
n-gram drafter. The order of configurations rotates from prompt to prompt
and repeat to repeat, so a slow spell of the machine hits all of them alike.
Both KV caches are emptied before each prompt; the configurations of that
prompt then reuse its prefill, so every one starts from bit-identical caches.
A run during which other processes took more than a set share of the CPUs is
redone (llama.cpp's threads wait on each other, so even a little competition
distorts a run), and the report says how often that happened. Greedy runs
are compared with target-only; at each first divergence the target
re-evaluates the shared prefix from scratch, one token at a time at the end,
and the divergence counts as explained when its top-two logit gap is below
the near-tie threshold.

Aggregation lives in :mod:`app.core.bench.stats`; this module only measures.
"""

from __future__ import annotations

import datetime
import json
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import psutil

from app.core.bench.stats import (
    BASELINE,
    LONG_CONTEXT,
    DivergenceCheck,
    RunRecord,
    check_targets,
    overhead_targets,
    spreads,
    summarize,
)
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.divergence import choice_spread, first_divergence, top_two
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.lookup import LookupSource
from app.core.decoding.model_port import sync_cache
from app.core.decoding.sampling import SamplingParams
from app.core.errors import TandemError
from app.core.reply.plan import DraftPlan
from app.engine.bench.documents import prepare
from app.engine.bench.llama_tools import find_tool
from app.engine.bench.peer import generate_on_server, llama_servers, peer_names
from app.engine.bench.preflight import apply_to, run_preflight
from app.engine.bench.probes import (
    CpuWatch,
    batch_numerics,
    fresh_logits,
    machine_info,
    overhead_table,
    wait_for_quiet,
)
from app.engine.bench.speculative_simple import generate_with_simple, simple_name, simple_names
from app.engine.bench.suite import (
    BenchConfig,
    BenchPrompt,
    BenchSettings,
    Regime,
    configurations,
    context_for,
    load_suite,
    select_prompts,
)
from app.engine.llama.profile_store import ProfileStore
from app.engine.llama.quantize import make_cheaper_draft, requantize
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.remote.llama_server import LlamaServerProcess, cache_dir

Progress = Callable[[int, int, str], None]  # (runs done, runs in all, what is running)


@dataclass(slots=True)
class _RegimeResult:
    """What one regime produced: its description, run records and near-tie checks."""

    info: dict[str, Any]
    records: list[RunRecord] = field(default_factory=list)
    checks: list[DivergenceCheck] = field(default_factory=list)


def f16_copy(target: Path, folder: Path | None = None) -> Path:
    """An F16 re-quantisation of ``target``, made once and cached (in ``~/.cache/tandem`` unless told otherwise).

    Not in the models folder: the 3 GB stand-in would show up in the library as a model to chat with.
    """
    destination = (folder or cache_dir()) / f"{target.stem}.F16.gguf"
    if not destination.is_file():
        requantize(target, destination, "F16")
    return destination


def regimes_for(target: Path, both: bool) -> list[Regime]:
    """The target as given, and with ``both`` its F16 copy."""
    regimes = [Regime("q4", target, "target as shipped (compute-bound on this CPU)")]
    if both:
        regimes.append(Regime("f16", f16_copy(target), "F16 copy of the target (memory-bound: a GPU stand-in)"))
    return regimes


def run_benchmark(
    regimes: Sequence[Regime],
    draft: Path | None,
    settings: BenchSettings,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run every configuration on every selected prompt in every regime; returns the JSON-ready report."""
    prompts = select_prompts(load_suite(settings.suite), settings)
    asked_ctx = settings.n_ctx
    settings = replace(settings, n_ctx=context_for(prompts, settings.n_ctx))
    # Made once in the models folder (atomically), as the pre-flight window offers it.
    cheaper = make_cheaper_draft(draft) if settings.cheaper_draft and draft is not None else None
    # Prompt lookup does not care how the target is stored, so by default it runs in the first regime only.
    config_sets = [
        configurations(settings, draft is not None, settings.ngram_all_regimes or i == 0) for i in range(len(regimes))
    ]
    if settings.vs_llama_server:  # llama.cpp's runs, served by the processes _run_regime starts
        peers = [
            BenchConfig(name, DrafterKind.NONE, None)
            for name in peer_names(
                settings.peer_lengths(), draft is not None, settings.peer_ngram_modes, settings.cheaper_draft
            )
        ]
        config_sets = [[*configs, *peers] for configs in config_sets]
    if settings.vs_speculative_simple and draft is not None:
        names = simple_names(settings.peer_lengths(), cheaper is not None)
        simple = [BenchConfig(n, DrafterKind.NONE, None) for n in names]
        config_sets = [[*configs, *simple] for configs in config_sets]
    runs_per_config = settings.repeats * len(settings.temperatures) * len(prompts)
    offsets = [runs_per_config * sum(len(c) for c in config_sets[:i]) for i in range(len(regimes) + 1)]
    total = offsets[-1]
    tick = progress or (lambda _done, _total, _label: None)
    results = []
    watch = CpuWatch()
    overhead: list[dict[str, Any]] = []
    if settings.overhead_probe:
        tick(0, total, "per-step overhead at a 152k vocabulary")
        overhead = overhead_table(settings.temperatures)
    for index, regime in enumerate(regimes):

        def step(done: int, label: str, offset: int = offsets[index]) -> None:
            tick(offset + done, total, label)

        results.append(_run_regime(regime, draft, prompts, config_sets[index], settings, step, cheaper))
    other_share = watch.other_share()
    records = [r for res in results for r in res.records]
    checks = [c for res in results for c in res.checks]
    summaries = summarize(records, checks)
    report = {
        "format": "tandem-bench/1",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine_info(other_share),
        "settings": {
            **{k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(settings).items()},
            "n_ctx_asked": asked_ctx,  # n_ctx above is what ran: raised for long-context prompts
            "configs": list(dict.fromkeys(c.name for configs in config_sets for c in configs)),
            "prompts": [p.id for p in prompts],
        },
        "near_tie_threshold": settings.near_tie_threshold,
        "overhead_synthetic": overhead,
        "regimes": [res.info for res in results],
        "summaries": [s.to_dict() for s in summaries],
        "targets": [asdict(t) for t in (*check_targets(summaries), *overhead_targets(overhead))],
        "spreads": [s.to_dict() for s in spreads(records)],
        "divergences": [asdict(c) for c in checks],
        "runs": [{**asdict(r), "tokens": len(r.tokens)} for r in records],
    }
    # Tuples become lists: the report is exactly what its JSON file will hold.
    normalised: dict[str, Any] = json.loads(json.dumps(report))
    return normalised


def _run_regime(
    regime: Regime,
    draft: Path | None,
    prompts: Sequence[BenchPrompt],
    configs: Sequence[BenchConfig],
    settings: BenchSettings,
    progress: Callable[[int, str], None],
    cheaper_draft: Path | None = None,
) -> _RegimeResult:
    kind = DrafterKind.HYBRID if draft is not None else DrafterKind.NGRAM
    config = PairConfig(regime.target, draft, kind, settings.n_ctx, settings.n_threads)
    progress(0, f"{regime.name}: loading")
    started = time.perf_counter()
    watch = CpuWatch()
    with ExitStack() as stack:
        pair = stack.enter_context(LoadedPair(config))
        # The same target beside the cheaper draft: a second pair, so each keeps its own learned costs.
        # llama.cpp maps the target file, so the two share its pages.
        pairs = {False: pair}
        if cheaper_draft is not None:
            pairs[True] = stack.enter_context(LoadedPair(replace(config, draft=cheaper_draft)))
        servers: dict[str, LlamaServerProcess] = {}
        if settings.vs_llama_server:
            progress(0, f"{regime.name}: starting llama-server")
            servers = stack.enter_context(
                llama_servers(
                    regime.target,
                    draft,
                    settings.peer_lengths(),
                    settings.n_ctx,
                    settings.n_threads,
                    settings.peer_ngram_modes,
                    cheaper_draft,
                    gpu_layers=(
                        pair.target.options.n_gpu_layers,
                        pair.draft.options.n_gpu_layers if pair.draft is not None else 0,
                    ),
                )
            )
        simple_runs = _simple_runs(pair, draft, cheaper_draft, configs, settings)
        info: dict[str, Any] = {
            "name": regime.name,
            "label": regime.label,
            "target": regime.target.name,
            "draft": draft.name if draft is not None else None,
            "cheaper_draft": cheaper_draft.name if cheaper_draft is not None else None,
            "load_s": time.perf_counter() - started,
        }
        if settings.learned_costs is not None:
            # As the app does across restarts; which pairs started from a kept profile goes in the report.
            store = ProfileStore(settings.learned_costs)
            info["learned_costs_restored"] = [each.attach_profile_store(store) for each in pairs.values()]
        # Attached files go in through the reply's own context planner; the same tokens for every configuration.
        prepared = {
            p.id: prepare(pair, p.text, p.system, p.attachments, settings.max_tokens, p.history) for p in prompts
        }
        rendered = {p.id: prepared[p.id].tokens for p in prompts}
        uses = {pid: [u.to_json() for u in prep.uses] for pid, prep in prepared.items() if prep.uses}
        if uses:
            info["attachments"] = uses
        info["numerics"] = batch_numerics(pair.target, rendered[prompts[0].id])
        if settings.preflight and pair.draft is not None:
            progress(0, f"{regime.name}: pre-flight")
            wait_for_quiet(settings.max_other_cpu, settings.max_wait_s)  # pre-flight times things too
            report = run_preflight(pair)
            apply_to(pair, report)
            info["preflight"] = report.to_dict()
            if cheaper_draft is not None:
                wait_for_quiet(settings.max_other_cpu, settings.max_wait_s)
                cheaper_report = run_preflight(pairs[True])
                apply_to(pairs[True], cheaper_report)
                info["preflight_cheaper_draft"] = cheaper_report.to_dict()
        result = _RegimeResult(info)
        done = 0
        redone = 0
        for repeat in range(settings.repeats):
            for temperature in settings.temperatures:
                for p_index, prompt in enumerate(prompts):
                    for each in pairs.values():
                        _empty_caches(each)  # the first run of this prompt prefills; the others reuse it
                    shift = repeat + p_index  # rotate the order: no configuration always runs first
                    for c_index in range(len(configs)):
                        bench_config = configs[(c_index + shift) % len(configs)]
                        label = f"{regime.name} r{repeat + 1} T={temperature:g} {prompt.id} {bench_config.name}"
                        progress(done, label)
                        params = SamplingParams(temperature=temperature, seed=settings.seed + repeat)
                        # A long prompt is read afresh by every configuration: its prefill is what is measured.
                        cold = prompt.category == LONG_CONTEXT
                        run: Callable[[], RunRecord]
                        if bench_config.name in simple_runs:
                            run = partial(
                                simple_runs[bench_config.name],
                                rendered[prompt.id],
                                seed=settings.seed + repeat,
                                regime=regime.name,
                                category=prompt.category,
                                prompt_id=prompt.id,
                                repeat=repeat,
                                temperature=temperature,
                            )
                        elif bench_config.name in servers:
                            run = partial(
                                generate_on_server,
                                servers[bench_config.name],
                                bench_config.name,
                                rendered[prompt.id],
                                params,
                                settings.max_tokens,
                                regime=regime.name,
                                category=prompt.category,
                                prompt_id=prompt.id,
                                repeat=repeat,
                                cache_prompt=not cold,
                            )
                        else:
                            run = partial(
                                _generate,
                                pair=pairs[bench_config.cheaper_draft],
                                regime=regime.name,
                                prompt=prompt,
                                tokens=rendered[prompt.id],
                                config=bench_config,
                                params=params,
                                repeat=repeat,
                                settings=settings,
                                sources=prepared[prompt.id].sources,
                            )
                            if cold:
                                run = partial(_cold, pairs[bench_config.cheaper_draft], run)
                        record = _undisturbed_run(run, settings)
                        redone += record.attempts - 1
                        result.records.append(record)
                        done += 1
        info["runs_redone"] = redone
        progress(done, f"{regime.name}: near-tie checks")
        result.checks = _check_divergences(pair, result.records, rendered, settings.near_tie_threshold)
        info["other_processes_cpu_share"] = watch.other_share()
        progress(done, f"{regime.name}: done")
    return result


def _simple_runs(
    pair: LoadedPair,
    draft: Path | None,
    cheaper_draft: Path | None,
    configs: Sequence[BenchConfig],
    settings: BenchSettings,
) -> dict[str, Callable[..., RunRecord]]:
    """llama-speculative-simple's configurations of the regime ``pair`` loads, each a call awaiting a prompt."""
    names = {c.name for c in configs}
    binary = find_tool("llama-speculative-simple") if settings.vs_speculative_simple else None
    if binary is None or draft is None:
        return {}
    runs: dict[str, Callable[..., RunRecord]] = {}
    for file, cheaper in ((draft, False), (cheaper_draft, True)):
        for k in settings.peer_lengths():
            name = simple_name(k, cheaper)
            if file is None or name not in names:
                continue
            runs[name] = partial(
                generate_with_simple,
                binary,
                pair.target,
                file,
                name,
                draft_max=k,
                max_tokens=settings.max_tokens,
                n_ctx=settings.n_ctx,
                threads=settings.n_threads or pair.target.threads,
            )
    return runs


def _empty_caches(pair: LoadedPair) -> None:
    for model in (pair.target, pair.draft):
        if model is not None:
            model.truncate(0)


def _draft_reads_prompt(pair: LoadedPair, tokens: Sequence[int]) -> float:
    """Let the draft model read the prompt before the reply is timed; the seconds it took (0 when cached).

    The draft's reading of the prompt is prompt processing, as the target's is: llama-server counts its
    draft's prompt in ``prompt_ms``, never in ``predicted_ms``, and keeps it cached from one request to
    the next. Left to the reply, Tandem's lazy read (about 0.4 s for the 0.5B draft on 70 tokens on the
    2-core CPU) sat in its generation time alone, some 4 % of a 160-token reply. The record's
    ``prefill_s`` carries it, so nothing is hidden.
    """
    if pair.draft is None or len(tokens) < 2:
        return 0.0
    started = time.perf_counter()
    sync_cache(pair.draft, tokens[:-1])  # the last prompt token is read with the first draft, as in the app
    return time.perf_counter() - started


def _cold(pair: LoadedPair, run: Callable[[], RunRecord]) -> RunRecord:
    """``run()`` from empty caches (a redone run too), so its record times the whole prefill."""
    _empty_caches(pair)
    return run()


def _undisturbed_run(run: Callable[[], RunRecord], settings: BenchSettings) -> RunRecord:
    """``run()`` while other processes leave the CPUs alone: it waits for them, and redoes a disturbed run."""
    attempts = 0
    while True:
        attempts += 1
        wait_for_quiet(settings.max_other_cpu, settings.max_wait_s)
        watch = CpuWatch()
        record = run()
        share = watch.other_share()
        if share <= settings.max_other_cpu or attempts >= settings.max_attempts:
            return replace(record, other_cpu_share=share, attempts=attempts)


def _generate(
    pair: LoadedPair,
    regime: str,
    prompt: BenchPrompt,
    tokens: list[int],
    config: BenchConfig,
    params: SamplingParams,
    repeat: int,
    settings: BenchSettings,
    sources: Sequence[LookupSource] = (),
) -> RunRecord:
    """One generation (the caches keep the prompt's prefill from the previous run), with statistics and memory."""
    policy = DraftPlan.for_run(config.drafter, config.draft_length).policy()
    draft_read_s = _draft_reads_prompt(pair, tokens) if config.drafter.uses_draft_model else 0.0
    decoder = pair.decoder(params, policy, drafter=config.drafter, sources=sources)
    process = psutil.Process()
    peak = process.memory_info().rss
    out: list[int] = []
    drafting = 0
    overhead = 0.0
    finished: FinishedEvent | None = None
    for event in decoder.generate(GenerationRequest(tokens, max_tokens=settings.max_tokens)):
        if isinstance(event, StepEvent):
            out.extend(event.token_ids)
            drafting += event.draft_length > 0
            overhead += event.timings.overhead_s
            peak = max(peak, process.memory_info().rss)
        elif isinstance(event, FinishedEvent):
            finished = event
    if finished is None:
        raise TandemError("the decoder ended without a finished event")
    pair.save_profile()  # with --learned-costs, as after a reply in the app (its time is not the reply's)
    stats = finished.stats
    figures = stats.prompt_figures
    return RunRecord(
        regime=regime,
        config=config.name,
        category=prompt.category,
        prompt_id=prompt.id,
        temperature=params.temperature,
        repeat=repeat,
        tokens=tuple(out),
        steps=stats.steps,
        drafted=stats.drafted,
        accepted=stats.accepted,
        generation_s=stats.total_s,
        prefill_s=stats.prefill_s + draft_read_s,
        overhead_s=overhead,
        position_hits=tuple(stats.position_hits),
        position_attempts=tuple(stats.position_attempts),
        drafting_steps=drafting,
        peak_rss_bytes=peak,
        finish=finished.reason.value,
        prompt_read=(figures.prompt_read or 0) if figures is not None else 0,
        time_to_first_token_s=figures.time_to_first_token_ms / 1000 if figures is not None else 0.0,
    )


def _check_divergences(
    pair: LoadedPair, records: Sequence[RunRecord], rendered: dict[str, list[int]], threshold: float
) -> list[DivergenceCheck]:
    """Near-tie check at the first divergence of every greedy run from target-only."""
    base = {(r.prompt_id, r.repeat): r for r in records if r.config == BASELINE and r.temperature <= 0}
    rows: dict[tuple[int, ...], npt.NDArray[np.float32]] = {}
    checks = []
    for r in records:
        reference = base.get((r.prompt_id, r.repeat))
        if r.config == BASELINE or r.temperature > 0 or reference is None:
            continue
        at = first_divergence(reference.tokens, r.tokens)
        if at is None:
            continue
        prefix = (*rendered[r.prompt_id], *reference.tokens[:at])
        if prefix not in rows:
            rows[prefix] = fresh_logits(pair.target, prefix)
        row = rows[prefix]
        gap, best_two = top_two(row)
        first, second = (run.tokens[at] if at < len(run.tokens) else None for run in (reference, r))
        chosen = (first, second)
        spread = choice_spread(row, chosen, pair.target.is_eog)
        checks.append(
            DivergenceCheck(
                regime=r.regime,
                config=r.config,
                prompt_id=r.prompt_id,
                repeat=r.repeat,
                position=at,
                gap=gap,
                top_two=best_two,
                tokens=chosen,
                explained=spread < threshold,
                spread=spread,
            )
        )
    pair.target.truncate(0)
    return checks


def write_outputs(report: dict[str, Any], json_path: Path | None, markdown_path: Path | None) -> None:
    """Write the JSON and Markdown forms."""
    from app.core.bench.report import render_markdown

    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if markdown_path is not None:
        markdown_path.parent.mkdir(parents=True, exist_ok=True)
        markdown_path.write_text(render_markdown(report), encoding="utf-8")
