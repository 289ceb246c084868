"""Finding a draft on the Hub for any target, local or remote: candidates, remote header checks, predicted speed.

Signals, in the order they are used:

1. **Family name.** The Hub is searched (GGUF repositories, most downloaded
   first) for the target's ``general.basename`` (e.g. ``Qwen2.5-Coder``),
   else the first two words of its ``general.name``, and then for the
   family's stem (``Qwen2.5``), since siblings of another variant often
   share the tokenizer (Qwen2.5-0.5B-Instruct drafts for Qwen2.5-Coder).
   Results are merged in that order, each repository once; at most
   ``max_repos`` of them have a header read, the rest are listed as skipped.
2. **Size, from the Hub's own header reading.** The Hub reports each GGUF
   repository's parameter count (``gguf.total``); repositories not clearly
   smaller than the target (over 80% of its parameters) cannot speed it up
   and are skipped without a request. The target's own repository is skipped.
3. **Tokenizer, from the remote header.** One file per remaining repository
   (the target's quantisation if offered, else the usual draft choices) has
   its header read with Range requests and goes through the same
   compatibility rules as a local pair, with the same evidence.

The compatible ones are ranked by the speedup the cost model
(:mod:`app.core.adaptive.cost_model`) predicts before anything is measured:
a draft token costs its file size over the target's (weights read per
token: the benchmark in ``docs/bench/history/2026-11-30-tuning-suite.md``
measured 44% for the 0.5B draft of the 1.5B Qwen target, whose file sizes are 44% apart), verifying n
tokens costs ``1 + slope * (n - 1)`` target tokens with the slope measured
here on the CPU (5 tokens at 2.7x one: 0.43) or a typical GPU one, and the
acceptance is a prior that falls for drafts far smaller than the ideal band
and for lossy quantisations. Pre-flight replaces the prior with measured
acceptance once a draft is downloaded; the ranking only orders candidates.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from app.core.adaptive.cost_model import StepCosts, predict
from app.core.display.units import bytes_words
from app.core.display.wording import QT_TRANSLATE_NOOP, Value, Words
from app.core.pairing.catalog import IDEAL_RATIO_LOW, ratio_words
from app.core.pairing.compatibility import CompatibilityReport, joined
from app.engine.gguf.header import GGUFHeader, ModelFileError, read_header
from app.engine.gguf.inspection import ModelInspection, inspect_header
from app.engine.gguf.vocab import check_files
from app.engine.hub.listing import RepoGGUF, RepoResult
from app.engine.hub.progress import DownloadError
from app.engine.models.drafts import incompatible_words
from app.engine.models.remote import RemoteSpec, describe_remote, is_remote, parse_remote_spec

# docs/bench/history/2026-11-30-tuning-suite.md: verifying 5 tokens cost 2.7x one on two CPU cores
CPU_VERIFY_SLOPE = 0.43
GPU_VERIFY_SLOPE = 0.10  # a GPU is memory-bound: the batch is almost free
ACCEPTANCE_PRIOR = 0.65  # per position, a same-tokenizer draft inside the ideal size band
MAX_K = 8
MAX_REPOS_CHECKED = 12
SEARCH_LIMIT = 30  # repositories asked for per query
MAX_SIZE_SHARE = 0.8  # drafts above this share of the target's parameters are not worth a request
_LOSSY_QUANTS = ("Q2", "Q3", "IQ1", "IQ2", "IQ3", "TQ")  # below about 4 bits: the draft agrees less often
# Quantisations a draft is usually run in, after the target's own.
_DRAFT_QUANTS = ("Q4_K_M", "Q8_0", "Q5_K_M", "Q6_K", "Q4_0", "Q4_K_S", "Q5_0")


@dataclass(frozen=True, slots=True)
class SpeedPrediction:
    """What the cost model expects of a draft before it is measured."""

    speedup: float  # over the target alone; below 1 means drafting would slow it down
    k: int  # the draft length that achieves it
    draft_cost: float  # one draft token, in target tokens
    acceptance: float  # the per-position prior used


@dataclass(frozen=True, slots=True)
class HubDraft:
    """A candidate draft on the Hub, with its verdict and predicted speed."""

    spec: RemoteSpec
    name: str
    quant: str
    size: int
    n_params: int
    report: CompatibilityReport
    prediction: SpeedPrediction | None
    reason_words: Words

    @property
    def compatible(self) -> bool:
        """True when no compatibility rule failed."""
        return self.report.compatible

    @property
    def reason(self) -> str:
        """The verdict and prediction in English (the window renders :attr:`reason_words`)."""
        return str(self.reason_words)


@dataclass(frozen=True, slots=True)
class DraftSearch:
    """The result of a find-draft run: candidates best first, and what was left out and why."""

    target: str
    query: str  # the first query; ``queries`` holds all of them
    gpu: bool
    queries: list[str] = field(default_factory=list)
    candidates: list[HubDraft] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (repo or file, why)

    @property
    def best(self) -> HubDraft | None:
        """The first compatible candidate."""
        return next((c for c in self.candidates if c.compatible), None)


def acceptance_prior(params_ratio: float, quant: str) -> float:
    """The per-position acceptance assumed before measuring: lower for tiny or lossy drafts."""
    value = ACCEPTANCE_PRIOR
    if 0 < params_ratio < IDEAL_RATIO_LOW:
        value -= 0.08 * math.log2(IDEAL_RATIO_LOW / params_ratio)  # each halving below the band
    if quant.upper().startswith(_LOSSY_QUANTS):
        value -= 0.1
    return min(0.85, max(0.2, value))


def predict_speed(
    target_bytes: int, draft_bytes: int, target_params: int, draft_params: int, quant: str, gpu: bool
) -> SpeedPrediction:
    """The best predicted speedup over K = 1..MAX_K from file sizes, the verify slope and the acceptance prior."""
    slope = GPU_VERIFY_SLOPE if gpu else CPU_VERIFY_SLOPE
    draft_cost = draft_bytes / target_bytes if target_bytes > 0 else 1.0
    ratio = draft_params / target_params if target_params > 0 else 1.0
    acceptance = acceptance_prior(ratio, quant)
    costs = StepCosts(verify_s=(1.0, 1.0 + slope), draft_per_token_s=draft_cost)
    best = max(predict(costs, [acceptance], MAX_K)[1:], key=lambda p: p.tokens_per_s)
    return SpeedPrediction(best.speedup, best.k, draft_cost, acceptance)


def _gpu_here() -> bool:
    from app.engine.llama.model import gpu_offload_supported

    return gpu_offload_supported()


def _target_facts(target: str | Path, token: str | None) -> tuple[GGUFHeader, ModelInspection, str | None]:
    """The target's header, inspection and Hub repository (None for a local file)."""
    if is_remote(target):
        spec = parse_remote_spec(str(target))
        assert spec is not None
        remote = describe_remote(spec, token)
        return remote.header, remote.inspection, spec.repo_id
    header = read_header(target)
    return header, inspect_header(header), None


def _queries(inspection: ModelInspection) -> list[str]:
    """The family name, then its stem (the part before the first '-' or space), each once."""
    if inspection.basename:
        first = inspection.basename
    else:
        words = (inspection.name or inspection.path.stem).replace("-", " ").replace("_", " ").split()
        first = " ".join(words[:2])
    stem = re.split(r"[-\s]", first.strip(), maxsplit=1)[0]
    queries = [first]
    # A stem of a letter or two ("Q", "7B") would match half the Hub.
    if len(stem) >= 4 and stem.lower() != first.lower():
        queries.append(stem)
    return queries


def _repositories(queries: list[str], token: str | None) -> list[RepoResult]:
    """The search results of every query, merged in order, each repository once.

    The first query must be answered (its failure is the Hub's failure);
    a later one that fails only narrows the search.
    """
    from app.engine.hub.search import search_models

    seen: dict[str, RepoResult] = {}
    for n, query in enumerate(queries):
        try:
            page = search_models(query, sort="downloads", limit=SEARCH_LIMIT, token=token)
        except DownloadError:
            if n == 0:
                raise
            continue
        for repo in page.results:
            seen.setdefault(repo.repo_id, repo)
    return list(seen.values())


def _pick_file(files: list[RepoGGUF], target_quant: str) -> RepoGGUF | None:
    singles = [f for f in files if not f.split and f.quant]
    for quant in (target_quant.upper(), *_DRAFT_QUANTS):
        for f in singles:
            if f.quant == quant:
                return f
    return min(singles, key=lambda f: f.size) if singles else None


def _reason(report: CompatibilityReport, prediction: SpeedPrediction | None, parts: list[Value]) -> Words:
    if not report.compatible:
        return incompatible_words(report)
    assert prediction is not None
    verdict = (
        QT_TRANSLATE_NOOP("PairingReasons", "faster")
        if prediction.speedup > 1
        else QT_TRANSLATE_NOOP("PairingReasons", "slower than the target alone")
    )
    head = QT_TRANSLATE_NOOP(
        "PairingReasons",
        "predicted {speedup:.2f}x ({verdict}) at K={k}: a draft token costs "
        "{cost:.0%} of a target token, acceptance assumed {acceptance:.0%}",
    ).fill(
        speedup=prediction.speedup,
        verdict=verdict,
        k=prediction.k,
        cost=prediction.draft_cost,
        acceptance=prediction.acceptance,
    )
    return joined([head, *parts])


def find_drafts(
    target: str | Path, *, token: str | None = None, max_repos: int = MAX_REPOS_CHECKED, gpu: bool | None = None
) -> DraftSearch:
    """Drafts on the Hub for ``target`` (a local path or ``owner/name/file.gguf``), compatible ones best first.

    Raises :class:`DownloadError` when the Hub cannot be searched (offline,
    unreachable) and :class:`ModelFileError` when the target cannot be read.
    """
    from app.engine.hub.search import list_gguf_files

    header, inspection, own_repo = _target_facts(target, token)
    on_gpu = _gpu_here() if gpu is None else gpu
    queries = _queries(inspection)
    result = DraftSearch(str(target), queries[0], on_gpu, queries)
    checked = 0
    for repo in _repositories(queries, token):
        if repo.repo_id == own_repo:
            continue
        if checked >= max_repos:
            result.skipped.append((repo.repo_id, f"not checked: {max_repos} repositories were (raise --max-repos)"))
            continue
        if repo.n_params is not None and repo.n_params > MAX_SIZE_SHARE * inspection.n_params:
            result.skipped.append(
                (repo.repo_id, f"not smaller than the target ({repo.n_params / 1e9:.2f}B parameters, the Hub says)")
            )
            continue
        if repo.gated:
            result.skipped.append((repo.repo_id, "gated: needs a token and an accepted licence"))
            continue
        checked += 1
        try:
            files = list_gguf_files(repo.repo_id, token=token)
            chosen = _pick_file(files, inspection.quant)
            if chosen is None:
                result.skipped.append((repo.repo_id, "no single-file GGUF with a known quantisation"))
                continue
            spec = RemoteSpec(repo.repo_id, chosen.filename)
            remote = describe_remote(spec, token)
        except (DownloadError, ModelFileError) as exc:
            result.skipped.append((repo.repo_id, str(exc)))
            continue
        draft = remote.inspection
        report = check_files(header, remote.header)
        ratio = ratio_words(inspection.n_params, draft.n_params)
        if draft.n_params > MAX_SIZE_SHARE * inspection.n_params:
            result.skipped.append((str(spec), f"{draft.n_params / 1e9:.2f}B parameters: {ratio}"))
            continue
        prediction = None
        parts: list[Value] = [
            ratio,
            draft.quant,
            QT_TRANSLATE_NOOP("PairingReasons", "download {size}").fill(size=bytes_words(remote.size)),
        ]
        if report.compatible:
            prediction = predict_speed(
                inspection.file_size, remote.size, inspection.n_params, draft.n_params, draft.quant, on_gpu
            )
            if inspection.basename and draft.basename and inspection.basename.lower() == draft.basename.lower():
                parts.insert(
                    1, QT_TRANSLATE_NOOP("PairingReasons", "same family ({family})").fill(family=draft.basename)
                )
        result.candidates.append(
            HubDraft(
                spec=spec,
                name=draft.display_name,
                quant=draft.quant,
                size=remote.size,
                n_params=draft.n_params,
                report=report,
                prediction=prediction,
                reason_words=_reason(report, prediction, parts),
            )
        )
    result.candidates.sort(key=lambda c: (not c.compatible, -(c.prediction.speedup if c.prediction else 0.0), c.size))
    return result
