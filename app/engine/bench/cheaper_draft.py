"""A cheaper draft: whether a Q4_0 copy of the draft model (its output layer Q4_0 too) would pay here.

:func:`estimate_cheaper_draft` predicts, before anything is made, what the
copy would give: its cost scaled by the weights' bytes, the acceptance
pre-flight just measured. :func:`measure_cheaper_draft` measures the copy once
made (:mod:`app.engine.llama.quantize`), with pre-flight's prompts and the same
target, beside the loaded draft so both costs come from the same minutes.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.adaptive.cost_model import Prediction, StepCosts, best_prediction, per_position_acceptance, predict
from app.core.conversation.chat import Message
from app.core.decoding.sampling import SamplingParams
from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.engine.bench.agreement import MAX_VERIFY, PROMPTS, draft_continuation, score
from app.engine.gguf.header import GGUFHeader
from app.engine.llama.model import LlamaModel, LoadOptions
from app.engine.llama.quantize import cheaper_draft_path, is_cheaper_draft
from app.engine.llama.session import LoadedPair

if TYPE_CHECKING:
    from app.engine.bench.preflight import PreflightReport, Progress

STAGE_CHEAPER = str(QT_TRANSLATE_NOOP("PreflightStage", "cheaper draft"))

# What a Q4_0 copy of the draft would give.
_MEASURED = QT_TRANSLATE_NOOP("PreflightAdvice", "measured")
_ESTIMATED = QT_TRANSLATE_NOOP("PreflightAdvice", "estimated from its weights' bytes, acceptance assumed unchanged")
_CHEAPER = QT_TRANSLATE_NOOP(
    "PreflightAdvice",
    "a Q4_0 copy of the draft (output layer Q4_0 too) costs {saving:.0%} less per token ({how}); "
    "predicted best {best:.2f}x at K={k} against {current:.2f}x at K={current_k} now",
)
_NOT_WORTH = QT_TRANSLATE_NOOP("PreflightAdvice", "{prediction}: not worth it on this machine.")
_CHOOSE = QT_TRANSLATE_NOOP("PreflightAdvice", "{prediction}: choose {name} as the draft.")
_WORTH_MAKING = QT_TRANSLATE_NOOP(
    "PreflightAdvice", "{prediction}: worth making (`preflight --cheaper-draft` makes it once and measures it)."
)
# Q4_0 stores 32 weights in 18 bytes; tensors that cannot be blocked keep their type.
_Q4_0_BLOCK, _Q4_0_BYTES = 32, 18
# Worth making or switching to only when the cost model predicts at least this much more speed.
CHEAPER_DRAFT_MARGIN = 1.03


@dataclass(frozen=True, slots=True)
class CheaperDraftVerdict:
    """Whether the Q4_0 copy of the draft (output layer included) predicts a gain on this machine."""

    path: str
    measured: bool  # False: the cost is estimated from the weights' bytes and the acceptance assumed unchanged
    draft_per_token_s: float
    acceptance: tuple[float, ...]
    best: Prediction
    current_best: Prediction
    pays: bool
    words: Words  # the verdict, for the window to render in its language
    own_draft_per_token_s: float = 0.0  # the loaded draft's cost, measured beside the copy's

    @property
    def text(self) -> str:
        """The verdict in English (the CLI, the JSON report)."""
        return str(self.words)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the verdict as its English ``text``, where the fields used to have it)."""
        data = asdict(self)
        data["best"] = asdict(self.best)
        data["current_best"] = asdict(self.current_best)
        words_at = list(data).index("words")
        items = list(data.items())
        items[words_at] = ("text", self.text)
        return dict(items)


def q4_0_bytes_ratio(header: GGUFHeader) -> float:
    """The Q4_0 copy's weight bytes over the file's: the cost ratio a small, bandwidth-bound draft roughly follows."""
    now = sum(t.n_bytes for t in header.tensors)
    after = sum(
        t.n_elements * _Q4_0_BYTES // _Q4_0_BLOCK if len(t.shape) >= 2 and t.shape[0] % _Q4_0_BLOCK == 0 else t.n_bytes
        for t in header.tensors
    )
    return after / now if now else 1.0


def estimate_cheaper_draft(pair: LoadedPair, report: PreflightReport) -> CheaperDraftVerdict | None:
    """The prediction before the copy exists: this report's acceptance, the draft cost scaled by the bytes."""
    if pair.draft is None or not report.acceptance or is_cheaper_draft(pair.draft.path):
        return None
    ratio = q4_0_bytes_ratio(pair.draft.header)
    if ratio >= 0.95:  # already about Q4_0: nothing to gain
        return None
    return _verdict(report, cheaper_draft_path(pair.draft.path), False, report.draft_per_token_s * ratio, None)


def measure_cheaper_draft(
    pair: LoadedPair,
    report: PreflightReport,
    path: Path,
    params: SamplingParams | None = None,
    progress: Progress | None = None,
    prompts: Sequence[str] = PROMPTS,
) -> CheaperDraftVerdict:
    """Load the made copy beside the pair and measure its cost per token and its acceptance with the target.

    The loaded draft writes the same continuations again, prompt by prompt in turn with the copy, so the
    two costs compared come from the same minutes (the report's own draft cost may be from a calmer or
    busier spell of the machine).
    """
    if pair.draft is None:
        raise ValueError("measuring a cheaper draft needs the pair's own draft loaded")
    params = params or SamplingParams(temperature=report.temperature)
    tell = progress or (lambda _stage, _fraction: None)
    rendered = [pair.template.render([Message("user", text)]) for text in prompts]
    cheap_times: list[float] = []
    own_times: list[float] = []
    agreements: list[list[float]] = []
    with LlamaModel(path, LoadOptions(n_ctx=pair.target.n_ctx, n_threads=pair.target.threads)) as cheaper:
        for i, prompt in enumerate(rendered):
            tell(STAGE_CHEAPER, i / len(rendered))
            own_times.extend(draft_continuation(pair.draft, prompt, params)[2][1:])
            tokens, q_rows, step_times, _ = draft_continuation(cheaper, prompt, params)
            cheap_times.extend(step_times[1:])
            agreements.append(score(pair.target, prompt, tokens, q_rows, params))
    for model in (pair.target, pair.draft):
        model.truncate(0)
    tell(STAGE_CHEAPER, 1.0)
    acceptance = per_position_acceptance(agreements, MAX_VERIFY - 1)
    own = statistics.median(own_times) if own_times else report.draft_per_token_s
    cost = statistics.median(cheap_times) if cheap_times else own
    return _verdict(report, path, True, cost, acceptance, own)


def _verdict(
    report: PreflightReport,
    path: Path,
    measured: bool,
    cost: float,
    acceptance: Sequence[float] | None,
    own_cost: float | None = None,
) -> CheaperDraftVerdict:
    kept = tuple(acceptance) if acceptance is not None else report.acceptance
    own = own_cost if own_cost is not None else report.draft_per_token_s
    costs = StepCosts(report.verify_s, cost, report.overhead_s)
    best = best_prediction(predict(costs, kept, MAX_VERIFY - 1))
    own_costs = StepCosts(report.verify_s, own, report.overhead_s)
    current = best_prediction(predict(own_costs, report.acceptance, MAX_VERIFY - 1))
    pays = best.k > 0 and best.speedup > CHEAPER_DRAFT_MARGIN * max(current.speedup, 1.0)
    saving = 1.0 - cost / own if own > 0 else 0.0
    prediction = _CHEAPER.fill(
        saving=saving,
        how=_MEASURED if measured else _ESTIMATED,
        best=best.speedup,
        k=best.k,
        current=current.speedup,
        current_k=current.k,
    )
    if not pays:
        words = _NOT_WORTH.fill(prediction=prediction)
    elif measured:
        words = _CHOOSE.fill(prediction=prediction, name=path.name)
    else:
        words = _WORTH_MAKING.fill(prediction=prediction)
    return CheaperDraftVerdict(
        path=str(path),
        measured=measured,
        draft_per_token_s=cost,
        acceptance=kept,
        best=best,
        current_best=current,
        pays=pays,
        words=words,
        own_draft_per_token_s=own,
    )
