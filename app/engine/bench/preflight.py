"""Pre-flight: measure this machine and predict whether speculation pays here.

Three measurements, then the cost model of :mod:`app.core.adaptive.cost_model`:

1. Acceptance. On a few short chat prompts the draft writes a continuation
   greedily (its per-token decode times are the draft cost), and the target
   scores that continuation in one batch (teacher forcing): at each position
   the target agrees with the draft (temperature 0) or overlaps it by
   sum(min(p, q)) (sampling). Replaying speculative steps over these
   agreements gives per-position acceptance.
2. The target's verify cost for batches of 1..16 tokens, in interleaved
   sweeps so drift from other processes hits every size alike.
3. The draft's cost per token (from step 1).

The report predicts tokens per second and speedup for every draft length
and recommends one, or "do not draft on this machine". The GUI shows the
same verdict; :func:`apply_to` seeds the pair's adaptive controller with it.

Step 1 is :mod:`app.engine.bench.agreement`; what a Q4_0 copy of the draft
would give is :mod:`app.engine.bench.cheaper_draft`, whose estimate each
report carries.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.adaptive.cost_model import (
    Prediction,
    StepCosts,
    best_case_speedup,
    best_prediction,
    break_even_acceptance,
    per_position_acceptance,
    predict,
)
from app.core.conversation.chat import Message
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words
from app.engine.bench.agreement import MAX_VERIFY, PROMPTS, draft_continuation, score_modes, warp_rows
from app.engine.bench.cheaper_draft import CheaperDraftVerdict, estimate_cheaper_draft
from app.engine.llama.model import LlamaModel
from app.engine.llama.session import LoadedPair

Progress = Callable[[str, float], None]  # (what is being measured, fraction done)

# The stages progress names (English; the dialog looks each up under "PreflightStage").
STAGE_ACCEPTANCE = str(QT_TRANSLATE_NOOP("PreflightStage", "acceptance"))
STAGE_VERIFY = str(QT_TRANSLATE_NOOP("PreflightStage", "verify cost"))
STAGE_DONE = str(QT_TRANSLATE_NOOP("PreflightStage", "done"))

# The recommendation: what verifying costs here, what lookup would need, and what to do.
_PHYSICS = QT_TRANSLATE_NOOP("PreflightAdvice", "verifying {n} tokens costs {ratio:.1f}x one target token")
_PHYSICS_DRAFT = QT_TRANSLATE_NOOP(
    "PreflightAdvice",
    "verifying {n} tokens costs {ratio:.1f}x one target token and a draft token costs {share:.0%} of one",
)
_LOOKUP_PAYS = QT_TRANSLATE_NOOP(
    "PreflightAdvice", "prompt lookup (n-gram) pays at K={k} only where its acceptance exceeds {rate:.0%}"
)
_LOOKUP_NEVER = QT_TRANSLATE_NOOP("PreflightAdvice", "prompt lookup cannot pay either")
_NO_DRAFT = QT_TRANSLATE_NOOP("PreflightAdvice", "no draft model to measure; {physics}; {lookup}.")
_DRAFT_K = QT_TRANSLATE_NOOP(
    "PreflightAdvice",
    "draft {k} tokens per step: predicted {speedup:.2f}x ({rate:.1f} vs {base:.1f} tok/s); {physics}.",
)
_DO_NOT = QT_TRANSLATE_NOOP("PreflightAdvice", "do not draft on this machine: {why} ({physics}); {lookup}.")
_TOO_SLOW = QT_TRANSLATE_NOOP("PreflightAdvice", "even a draft accepted in full would be slower")
_TOO_LOW = QT_TRANSLATE_NOOP("PreflightAdvice", "acceptance is too low to pay for the draft")
# A note a report carries (in English, as the CLI and the JSON have it); the window looks it up under "PreflightNote".
NOTE_NO_DRAFT = str(
    QT_TRANSLATE_NOOP(
        "PreflightNote", "no draft model: acceptance is not measured; the n-gram break-even says what lookup needs"
    )
)

_SWEEPS = 3


@dataclass(frozen=True, slots=True)
class ModeSeed:
    """Acceptance pre-flight measured under the other decoding mode (greedy or sampled) on the same text."""

    temperature: float
    acceptance: tuple[float, ...]  # per draft position
    calibration: tuple[tuple[float, float], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the raw calibration pairs are the controller's input, not a result)."""
        return {"temperature": self.temperature, "acceptance": list(self.acceptance)}


@dataclass(frozen=True, slots=True)
class PreflightReport:
    """What pre-flight measured and what it predicts."""

    target: str
    draft: str | None
    n_threads: int | None
    draft_per_token_s: float
    verify_s: tuple[float, ...]  # verify_s[n - 1]: n tokens in one target batch
    overhead_s: float
    acceptance: tuple[float, ...]  # per draft position
    agreement: float  # mean per-token agreement along the scored continuations
    predictions: tuple[Prediction, ...]  # K = 0..MAX_VERIFY - 1
    best: Prediction
    best_case_speedup: float  # every draft accepted
    ngram_break_even: float | None  # acceptance prompt lookup would need at its best length
    recommendation: Words  # str() is the English the CLI prints; the window renders it in its language
    wall_s: float
    temperature: float = 0.0
    notes: tuple[str, ...] = field(default=())
    # (draft confidence, acceptance) for each scored draft token: seeds the
    # controller's calibration of its early-stop floor.
    calibration: tuple[tuple[float, float], ...] = field(default=())
    draft_path: str | None = None
    # What a Q4_0 copy of the draft would give, estimated (or measured, by `preflight --cheaper-draft`).
    cheaper_draft: CheaperDraftVerdict | None = None
    # The same continuations scored under the other decoding mode (seeds that mode's acceptance).
    counterpart: ModeSeed | None = None

    @property
    def costs(self) -> StepCosts:
        """The measured costs in the cost model's terms."""
        return StepCosts(self.verify_s, self.draft_per_token_s, self.overhead_s)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        data = asdict(self)
        data["predictions"] = [asdict(p) for p in self.predictions]
        data["best"] = asdict(self.best)
        data.pop("calibration")  # hundreds of raw pairs: the controller's input, not a result
        data["recommendation"] = str(self.recommendation)
        if self.cheaper_draft is not None:
            data["cheaper_draft"] = self.cheaper_draft.to_dict()
        data["counterpart"] = self.counterpart.to_dict() if self.counterpart is not None else None
        return data


def run_preflight(
    pair: LoadedPair,
    progress: Progress | None = None,
    params: SamplingParams | None = None,
    prompts: Sequence[str] = PROMPTS,
) -> PreflightReport:
    """Measure ``pair`` on this machine and predict the speedup of each draft length."""
    started = time.perf_counter()
    report = progress or (lambda _stage, _fraction: None)
    params = params or SamplingParams(temperature=0.0)
    target = pair.target
    rendered = [pair.template.render([Message("user", text)]) for text in prompts]
    notes: list[str] = []

    draft_times: list[float] = []
    # The other decoding mode is scored on the same continuations: the controller keeps greedy and
    # sampled acceptance apart, and a chat switched to the other mode starts from a measured figure.
    other = counterpart(params)
    agreements: dict[bool, list[list[float]]] = {params.greedy: [], other.greedy: []}
    calibration: dict[bool, list[tuple[float, float]]] = {params.greedy: [], other.greedy: []}
    continuation: list[int] = []
    if pair.draft is not None:
        for i, prompt in enumerate(rendered):
            report(STAGE_ACCEPTANCE, i / len(rendered))
            rows: list[npt.NDArray[np.float32]] = []
            tokens, q_rows, times, confidences = draft_continuation(pair.draft, prompt, params, rows)
            draft_times.extend(times[1:])  # the first decode also ends the prompt prefill
            modes = [(q_rows, params), (warp_rows(rows, other), other)]
            for (_, mode), agreement in zip(modes, score_modes(target, prompt, tokens, modes), strict=True):
                agreements[mode.greedy].append(agreement)
                calibration[mode.greedy].extend(zip(confidences, agreement, strict=True))
            continuation = continuation or tokens
    else:
        notes.append(NOTE_NO_DRAFT)

    report(STAGE_VERIFY, 0.0)
    verify_s = _verify_curve(target, rendered[0], continuation, lambda f: report(STAGE_VERIFY, f))
    overhead_s = _overhead(target, params)
    draft_per_token = statistics.median(draft_times) if draft_times else 0.0
    measured = agreements[params.greedy]
    acceptance = per_position_acceptance(measured, MAX_VERIFY - 1) if measured else []
    costs = StepCosts(verify_s, draft_per_token, overhead_s)
    predictions = predict(costs, acceptance, MAX_VERIFY - 1) if acceptance else predict(costs, [0.0], 0)
    best = best_prediction(predictions)
    ceiling = best_case_speedup(costs, MAX_VERIFY - 1) if pair.draft is not None else 0.0
    ngram_costs = StepCosts(verify_s, 0.0, overhead_s)
    ngram_k = max(range(1, MAX_VERIFY), key=lambda k: predict(ngram_costs, [0.9], k)[k].speedup)
    ngram_break_even = break_even_acceptance(ngram_costs, ngram_k)
    mean_agreement = float(np.mean([a for seq in measured for a in seq])) if measured else 0.0
    for model in (target, pair.draft):
        if model is not None:
            model.truncate(0)
    report(STAGE_DONE, 1.0)
    result = PreflightReport(
        target=target.name,
        draft=pair.draft.name if pair.draft is not None else None,
        n_threads=pair.config.n_threads,
        draft_per_token_s=draft_per_token,
        verify_s=verify_s,
        overhead_s=overhead_s,
        acceptance=tuple(acceptance),
        agreement=mean_agreement,
        predictions=tuple(predictions),
        best=best,
        best_case_speedup=ceiling,
        ngram_break_even=ngram_break_even,
        recommendation=_recommend(costs, best, ceiling, ngram_k, ngram_break_even, pair.draft is not None),
        wall_s=time.perf_counter() - started,
        temperature=params.temperature,
        notes=tuple(notes),
        calibration=tuple(calibration[params.greedy]),
        counterpart=ModeSeed(
            temperature=other.temperature,
            acceptance=tuple(per_position_acceptance(agreements[other.greedy], MAX_VERIFY - 1)),
            calibration=tuple(calibration[other.greedy]),
        )
        if agreements[other.greedy]
        else None,
        draft_path=str(pair.draft.path) if pair.draft is not None else None,
    )
    return replace(result, cheaper_draft=estimate_cheaper_draft(pair, result))


def counterpart(params: SamplingParams) -> SamplingParams:
    """The other decoding mode pre-flight also scores: greedy for a sampled run, the chat default for a greedy one."""
    return SamplingParams() if params.greedy else SamplingParams(temperature=0.0)


def apply_to(pair: LoadedPair, report: PreflightReport) -> None:
    """Seed the pair's adaptive controller with the measured costs and acceptance (both decoding modes)."""
    if report.draft is not None:
        pair.profile.seed("model", report.costs, report.acceptance or None, report.temperature <= 0, report.calibration)
        if report.counterpart is not None:
            seed = report.counterpart
            pair.profile.seed_acceptance("model", seed.acceptance, seed.temperature <= 0, seed.calibration)
    else:
        pair.profile.seed_verify(report.verify_s)


def _verify_curve(
    target: LlamaModel, prompt: list[int], continuation: list[int], progress: Callable[[float], None]
) -> tuple[float, ...]:
    """Median seconds to evaluate n = 1..MAX_VERIFY tokens with every row's logits, after ``prompt``."""
    filler = (continuation or prompt) * (MAX_VERIFY // max(1, len(continuation or prompt)) + 1)
    target.truncate(0)
    target.decode(prompt[:-1], "none")
    base = len(target.kv_tokens)
    samples: list[list[float]] = [[] for _ in range(MAX_VERIFY)]
    order = list(range(1, MAX_VERIFY + 1))
    for sweep in range(_SWEEPS):
        # Alternate the direction so a slow spell does not always land on the big batches.
        for i, n in enumerate(order if sweep % 2 == 0 else order[::-1]):
            batch = [prompt[-1], *filler[: n - 1]]
            t0 = time.perf_counter()
            target.decode(batch, "all")
            samples[n - 1].append(time.perf_counter() - t0)
            target.truncate(base)
            progress((sweep * MAX_VERIFY + i + 1) / (_SWEEPS * MAX_VERIFY))
    medians = [statistics.median(s) for s in samples]
    # Noise can make a bigger batch look cheaper; the controller assumes it never is.
    return tuple(float(v) for v in np.maximum.accumulate(medians))


def _overhead(target: LlamaModel, params: SamplingParams) -> float:
    """The decoder's Python work per step, approximated by warping two rows of this vocabulary."""
    row = np.random.default_rng(0).normal(size=target.n_vocab).astype(np.float32)
    warper = LogitsWarper(params, target.n_vocab)
    t0 = time.perf_counter()
    for _ in range(10):
        warper.warp(row)
    return 2 * (time.perf_counter() - t0) / 10 + 2e-4  # plus the step's fixed bookkeeping


def _recommend(
    costs: StepCosts,
    best: Prediction,
    ceiling: float,
    ngram_k: int,
    ngram_break_even: float | None,
    has_draft: bool,
) -> Words:
    v1 = costs.verify(1)
    k = best.k or 4  # when nothing pays, describe a typical draft length
    ratio = costs.verify(k + 1) / v1
    physics = (
        _PHYSICS_DRAFT.fill(n=k + 1, ratio=ratio, share=costs.draft_per_token_s / v1)
        if has_draft
        else _PHYSICS.fill(n=k + 1, ratio=ratio)
    )
    lookup: Words | Phrase = (
        _LOOKUP_PAYS.fill(k=ngram_k, rate=ngram_break_even) if ngram_break_even is not None else _LOOKUP_NEVER
    )
    if not has_draft:
        return _NO_DRAFT.fill(physics=physics, lookup=lookup)
    if best.k > 0:
        return _DRAFT_K.fill(
            k=best.k, speedup=best.speedup, rate=best.tokens_per_s, base=1 / costs.step_time(0), physics=physics
        )
    why = _TOO_SLOW if ceiling < 1.0 else _TOO_LOW
    return _DO_NOT.fill(why=why, physics=physics, lookup=lookup)


def format_report(report: PreflightReport) -> str:
    """The report as text for the terminal (English; the window builds its own table from the numbers)."""
    lines = [
        f"pre-flight: {report.target}" + (f" + {report.draft}" if report.draft else " (no draft model)"),
        f"  target, 1 token: {1000 * report.verify_s[0]:.1f} ms"
        + (f"   draft, 1 token: {1000 * report.draft_per_token_s:.1f} ms" if report.draft else ""),
        "  verify cost, n tokens in one batch (x one token): "
        + " ".join(f"{n}:{v / report.verify_s[0]:.2f}" for n, v in enumerate(report.verify_s, start=1)),
    ]
    if report.acceptance:
        lines.append(
            f"  agreement {report.agreement:.0%}; per-position acceptance: "
            + " ".join(f"{a:.2f}" for a in report.acceptance[:8])
        )
        lines.append("  K  E[tokens/step]  step ms  tok/s  speedup")
        for p in report.predictions:
            marker = "  <- best" if p.k == report.best.k else ""
            lines.append(
                f"  {p.k:2d}  {p.expected_tokens:14.2f}  {1000 * p.step_s:7.1f}  "
                f"{p.tokens_per_s:5.1f}  {p.speedup:6.2f}x{marker}"
            )
    lines.extend(f"  note: {n}" for n in report.notes)
    lines.append(f"recommendation: {report.recommendation}")
    if report.cheaper_draft is not None:
        lines.append(f"cheaper draft: {report.cheaper_draft.text}")
    lines.append(f"(measured in {report.wall_s:.1f} s)")
    return "\n".join(lines)
