"""What a benchmark runs: its prompt suite, the settings, and the configurations they give.

Kept apart from :mod:`app.engine.bench.runner`, which measures: the CLI, the tests and the
scripts read a suite and choose prompts and configurations without running anything.
A suite file holds two sets (``tuning``, the only one to tune drafting on, and ``check``,
held out for reports); see ``docs/bench/README.md``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.core.bench.stats import BASELINE, CHEAPER_DRAFT, LONG_CONTEXT
from app.core.decoding.divergence import BENCH_NEAR_TIE_LOGIT_GAP
from app.core.errors import TandemError
from app.engine.bench.peer import NGRAM_MODES
from app.engine.llama.session import DrafterKind


@dataclass(frozen=True, slots=True)
class BenchPrompt:
    """One prompt of the suite."""

    id: str
    category: str
    text: str
    system: str | None = None
    # "tuning" or "check"; None in a suite that is not split (it belongs to every set).
    set: str | None = None
    attachments: tuple[Path, ...] = ()  # files attached to the prompt (app.engine.bench.documents)
    # Earlier turns of a chat before ``text``, as (role, content): the long chats of the "long-context" category.
    history: tuple[tuple[str, str], ...] = ()


# Tune drafting on the tuning set only; report the check set, which nobody tuned for.
PROMPT_SETS = ("tuning", "check", "all")
# The context a run with long-context prompts gets at least: their 4,000-8,000 tokens, the reply and the template.
LONG_CONTEXT_CTX = 10240
_HISTORY_ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class BenchConfig:
    """One way of generating: a drafter and a draft length (None: adaptive)."""

    name: str
    drafter: DrafterKind
    draft_length: int | None
    cheaper_draft: bool = False  # drafts with the cheaper re-quantised copy of the draft


@dataclass(frozen=True, slots=True)
class Regime:
    """A target file and what it stands for."""

    name: str
    target: Path
    label: str


@dataclass(frozen=True, slots=True)
class BenchSettings:
    """What to run."""

    suite: Path
    temperatures: tuple[float, ...] = (0.0,)
    max_tokens: int = 96
    repeats: int = 3
    draft_lengths: tuple[int, ...] = (2, 4, 8)
    fixed_lengths: bool = True  # Tandem at each of draft_lengths (llama-server's speculation uses the largest anyway)
    adaptive: bool = True
    draft_adaptive: bool = True  # the draft model alone, adaptive (off: only the default among the adaptive ones)
    ngram: bool = False
    ngram_lengths: tuple[int, ...] = ()
    ngram_all_regimes: bool = False  # n-gram runs in the first regime only unless set
    hybrid: bool = True  # with a draft model and adaptive: lookup where trusted, the model elsewhere (the default)
    max_other_cpu: float = 0.1  # redo a run when other processes took more of the CPUs than this
    max_attempts: int = 3
    max_wait_s: float = 600.0  # how long to wait for other processes to calm down before a run
    n_threads: int | None = None
    n_ctx: int = 2048
    categories: tuple[str, ...] = ()
    prompt_set: str = "check"  # one of PROMPT_SETS
    prompts_per_category: int | None = None
    preflight: bool = True
    near_tie_threshold: float = BENCH_NEAR_TIE_LOGIT_GAP
    seed: int = 1234
    vs_llama_server: bool = False  # also run llama.cpp's llama-server on the same prompts, interleaved
    peer_ngram_modes: tuple[str, ...] = NGRAM_MODES  # llama-server's n-gram modes run beside Tandem's lookup
    # llama-server's draft lengths (none given: the largest of draft_lengths; only 0: no speculative peer)
    peer_draft_lengths: tuple[int, ...] = ()
    # Also the default (hybrid adaptive) with the cheaper draft pre-flight offers (a Q4_0 copy, made once),
    # and llama-server speculating with that copy: the same file on both sides.
    cheaper_draft: bool = False
    # Also llama.cpp's plain speculative example (llama-speculative-simple) at each peer draft length, greedy only.
    vs_speculative_simple: bool = False
    # Where the controller's learned costs are restored from and saved to, as the app keeps them across
    # restarts (None: every run learns from scratch, the first reply of the regime paying for the learning).
    learned_costs: Path | None = None
    # The decoder's per-step Python overhead with synthetic models (seconds of work that do not depend on the
    # models benched, so a series of runs on one machine may measure it once).
    overhead_probe: bool = True

    def peer_lengths(self) -> tuple[int, ...]:
        """The draft lengths llama-server speculates at with the draft model."""
        if not self.peer_draft_lengths:
            return (max(self.draft_lengths, default=4),)
        return tuple(k for k in self.peer_draft_lengths if k > 0)


def load_suite(path: Path) -> list[BenchPrompt]:
    """The prompts of a suite file: ``{"prompts": [{"id", "category", "prompt", "system"?, "set"?, ...}]}``.

    Each prompt may also have ``attach``, files relative to the suite file's folder, and ``history``,
    the chat's earlier turns: ``[{"role": "user" | "assistant", "content"}]``.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        prompts = [
            BenchPrompt(
                str(p["id"]),
                str(p["category"]),
                str(p["prompt"]),
                p.get("system"),
                p.get("set"),
                tuple(Path(path).parent / str(name) for name in p.get("attach", [])),
                tuple((str(turn["role"]), str(turn["content"])) for turn in p.get("history", [])),
            )
            for p in data["prompts"]
        ]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TandemError(f"cannot read the prompt suite {path}: {exc}") from exc
    roles = sorted({f"{p.id}: {role!r}" for p in prompts for role, _ in p.history if role not in _HISTORY_ROLES})
    if roles:
        raise TandemError(
            f"the prompt suite {path} has history turns of unknown roles ({', '.join(roles)}): "
            "use 'user' or 'assistant'"
        )
    missing = [str(f) for p in prompts for f in p.attachments if not f.is_file()]
    if missing:
        raise TandemError(f"the prompt suite {path} attaches files that are not there: {', '.join(missing)}")
    if not prompts:
        raise TandemError(f"the prompt suite {path} has no prompts")
    unknown = sorted({p.set for p in prompts if p.set is not None and p.set not in PROMPT_SETS[:2]})
    if unknown:
        raise TandemError(f"the prompt suite {path} names unknown sets {unknown}: use 'tuning' or 'check'")
    return prompts


def select_prompts(prompts: Sequence[BenchPrompt], settings: BenchSettings) -> list[BenchPrompt]:
    """The prompts the settings ask for, in suite order."""
    if settings.prompt_set not in PROMPT_SETS:
        raise TandemError(f"unknown prompt set {settings.prompt_set!r}: choose one of {', '.join(PROMPT_SETS)}")
    chosen, per_category = [], dict[str, int]()
    for p in prompts:
        if settings.prompt_set != "all" and p.set is not None and p.set != settings.prompt_set:
            continue
        if settings.categories and p.category not in settings.categories:
            continue
        if (
            settings.prompts_per_category is not None
            and per_category.get(p.category, 0) >= settings.prompts_per_category
        ):
            continue
        per_category[p.category] = per_category.get(p.category, 0) + 1
        chosen.append(p)
    if not chosen:
        raise TandemError(f"no prompt of the suite's {settings.prompt_set!r} set matches the chosen categories")
    return chosen


def context_for(prompts: Sequence[BenchPrompt], n_ctx: int) -> int:
    """The context the run needs: ``n_ctx``, raised to :data:`LONG_CONTEXT_CTX` when long-context prompts run."""
    if any(p.category == LONG_CONTEXT for p in prompts):
        return max(n_ctx, LONG_CONTEXT_CTX)
    return n_ctx


def configurations(settings: BenchSettings, has_draft: bool, with_ngram: bool = True) -> list[BenchConfig]:
    """Target-only first, then the draft model at fixed lengths and adaptively, then n-gram."""
    configs = [BenchConfig(BASELINE, DrafterKind.NONE, 0)]
    if has_draft:
        if settings.fixed_lengths:
            configs += [BenchConfig(f"draft K={k}", DrafterKind.MODEL, k) for k in settings.draft_lengths]
        if settings.adaptive:
            if settings.draft_adaptive or not settings.hybrid:
                configs.append(BenchConfig("draft adaptive", DrafterKind.MODEL, None))
            if settings.hybrid:
                configs.append(BenchConfig("hybrid adaptive", DrafterKind.HYBRID, None))
            if settings.cheaper_draft:
                kind = DrafterKind.HYBRID if settings.hybrid else DrafterKind.MODEL
                name = ("hybrid" if settings.hybrid else "draft") + " adaptive" + CHEAPER_DRAFT
                configs.append(BenchConfig(name, kind, None, cheaper_draft=True))
    if (settings.ngram and with_ngram) or not has_draft:
        configs += [BenchConfig(f"ngram K={k}", DrafterKind.NGRAM, k) for k in settings.ngram_lengths]
        if settings.adaptive or not settings.ngram_lengths:
            configs.append(BenchConfig("ngram adaptive", DrafterKind.NGRAM, None))
    return configs
