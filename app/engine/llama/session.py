"""A loaded target/drafter pair, ready to generate replies.

This is the one place that turns user choices (files, drafter kind, context
size, threads, GPU layers, sampling settings) into a :class:`SpeculativeDecoder`. The
CLI, the GUI's worker thread and the benchmarks all go through it, so the
baseline and the speculative runs always share the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.adaptive.profile import PairProfile
from app.core.adaptive.threads import AdaptiveThreads, FixedThreads, candidate_counts
from app.core.conversation.chat import FittedPrompt, Message, fit_conversation
from app.core.decoding.decoder import SpeculativeDecoder, ThreadCount
from app.core.decoding.draft_policy import DraftLengthPolicy
from app.core.decoding.drafters import Drafter, DrafterKind, ModelDrafter, NoDrafter
from app.core.decoding.lookup import LookupSource
from app.core.decoding.lookup_drafters import HybridDrafter, NgramDrafter
from app.core.decoding.model_port import common_prefix_length
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.core.errors import IncompatiblePairError, TandemError
from app.core.memory.offload import AUTO_GPU_LAYERS
from app.core.tools.records import ToolSpec
from app.engine.cpu import CpuLoad, max_useful_threads
from app.engine.gguf.header import GGUFHeader, read_header
from app.engine.gguf.own_drafter import read_own_drafter
from app.engine.gguf.vocab import check_files
from app.engine.llama.chat_template import ChatTemplate
from app.engine.llama.model import LlamaModel, LoadOptions
from app.engine.llama.mtp import MtpHead
from app.engine.llama.prefix_cache import PrefixCache, restore_pair, save_pair
from app.engine.llama.profile_store import ProfileStore, pair_key
from app.engine.llama.vision import PairImages
from app.engine.memory.plan import auto_gpu_layers

# Prompt lookup: matches of at least three tokens (one- and two-token matches guess wrong
# most of the time), agreement counted back up to 32 tokens (a long repeat earns a long
# proposal), and up to 16 proposals a step when the policy judges them worth it.
# Said by the window when a pair fails to load (app/ui/threads/worker.py renders them).
_DRAFT_MODEL_NEEDED = QT_TRANSLATE_NOOP(
    "PairLoadErrors", "a draft model is needed for {drafter} drafting (or choose the n-gram drafter or none)"
)
_CANNOT_DRAFT = QT_TRANSLATE_NOOP("PairLoadErrors", "{draft} cannot draft for {target}: {problems}")
_PROBLEM = QT_TRANSLATE_NOOP("PairLoadErrors", "{rule}: {detail}")
_AND_THEN = QT_TRANSLATE_NOOP("PairLoadErrors", "{earlier}; {next}")
_NO_MTP_LAYERS = QT_TRANSLATE_NOOP(
    "PairLoadErrors", "{target} has no MTP layers to draft with (choose a draft model, the n-gram drafter or none)"
)
_MTP_UNUSABLE = QT_TRANSLATE_NOOP("PairLoadErrors", "{target} cannot draft with its own layers: {why}")


def _listed(items: Sequence[Words]) -> Words | str:
    """Sentences joined by "; " as one translatable sentence (each kept in the reader's language)."""
    if not items:
        return ""
    joined = items[0]
    for item in items[1:]:
        joined = _AND_THEN.fill(earlier=joined, next=item)
    return joined


_LOOKUP_MIN_NGRAM = 3
LOOKUP_MIN_NGRAM = _LOOKUP_MIN_NGRAM  # what an attachment's lookup index is built for (engine/reply_attachments.py)
_LOOKUP_MAX_NGRAM = 32
_LOOKUP_LENGTH = 16
# Without an adaptive policy to weigh them, a lookup proposes only matches it trusts this much.
_LOOKUP_MIN_TRUST = 0.5


@dataclass(frozen=True, slots=True)
class PairConfig:
    """Everything needed to load a pair."""

    target: Path
    draft: Path | None = None
    drafter: DrafterKind = DrafterKind.HYBRID
    n_ctx: int = 4096
    n_threads: int | None = None  # None: chosen and re-checked while decoding (app.core.adaptive.threads)
    # AUTO_GPU_LAYERS: the offload plan's counts for this GPU, resolved when loading (0 on a CPU build).
    n_gpu_layers: int = AUTO_GPU_LAYERS
    n_gpu_layers_draft: int = AUTO_GPU_LAYERS
    projector: Path | None = None  # the vision projector chosen; None: an mmproj*.gguf beside the target, if any

    def __post_init__(self) -> None:
        if self.drafter.uses_draft_model and self.draft is None:
            raise TandemError(_DRAFT_MODEL_NEEDED.fill(drafter=self.drafter.value))


class LoadedPair:
    """Both models loaded, compatibility checked, chat template ready."""

    def __init__(self, config: PairConfig) -> None:
        uses_draft = config.drafter.uses_draft_model and config.draft is not None
        ngl, ngld, _ = auto_gpu_layers(
            config.target,
            config.draft if uses_draft else None,
            config.n_ctx,
            config.n_gpu_layers,
            config.n_gpu_layers_draft,
        )
        # The config stays as asked (the window compares it with its choice); the counts "auto"
        # resolved to go into each model's LoadOptions, where the memory measurement reads them.
        self.config = config
        # Created before loading so its first reading has an interval behind it.
        cpu_load = CpuLoad() if config.n_threads is None else None
        target_header = read_header(config.target)
        if config.drafter.uses_own_layers:
            _check_own_layers(config.target, target_header)
        draft_header = None
        if config.drafter.uses_draft_model and config.draft is not None:
            draft_header = read_header(config.draft)
            report = check_files(target_header, draft_header)
            if not report.compatible:
                raise IncompatiblePairError(
                    _CANNOT_DRAFT.fill(
                        draft=config.draft.name,
                        target=config.target.name,
                        problems=_listed(
                            [_PROBLEM.fill(rule=p.rule_words, detail=p.detail_words) for p in report.problems]
                        ),
                    )
                )
        self.target = LlamaModel(
            config.target,
            LoadOptions(config.n_ctx, n_threads=config.n_threads, n_gpu_layers=ngl),
            target_header,
        )
        self.draft: LlamaModel | None = None
        # The target's own MTP layers, loaded beside it from the same file (only for the MTP drafter).
        self.mtp: MtpHead | None = None
        try:
            if config.drafter.uses_draft_model and config.draft is not None:
                self.draft = LlamaModel(
                    config.draft,
                    LoadOptions(config.n_ctx, n_threads=config.n_threads, n_gpu_layers=ngld),
                    draft_header,
                )
            elif config.drafter.uses_own_layers:
                self.mtp = MtpHead(self.target)
        except BaseException:
            self.target.close()
            raise
        self.template = ChatTemplate(self.target)
        # Images in prompts: the projector is loaded when the first one comes (app.engine.llama.vision).
        self.images = PairImages(self.target, config.projector)
        # KV states saved on disk (None: off). The front end attaches it: the window from its settings,
        # ``chat`` with ``--prefix-cache``; a benchmark never does, so its runs prefill as they always did.
        self.prefix_cache: PrefixCache | None = None
        # What the adaptive controller learns about this pair on this machine
        # (costs, typical acceptance): shared by every generation, seeded by pre-flight.
        self.profile = PairProfile()
        # One timed decode of each model, before any reply: it prices the draft model's first catch-up
        # read, before the draft has decoded on this pair (a long document's first question, see
        # app.core.adaptive.catch_up). The target's warm-up is made with or without a draft model, so a
        # pair and the target alone reach their first tokens on the same terms.
        target_s = self.target.one_token_seconds(repeats=3 if self.draft is not None else 0)
        if self.draft is not None and target_s > 0:
            self.profile.draft_share_prior = self.draft.one_token_seconds() / target_s
        # Like the profile, the thread count belongs to the machine: one policy for every reply.
        self.threads: ThreadCount
        if cpu_load is None:
            self.threads = FixedThreads(self.target.threads)
        else:
            candidates = candidate_counts(max_useful_threads())
            # Windows are compared in the target's verify work, so that acceptance does not pick the count.
            self.threads = AdaptiveThreads(
                candidates, self.set_threads, cpu_load.free_cpus, batch_cost=self._relative_verify_cost
            )
        # Where the profile is kept across restarts (None: not kept). The front end attaches it
        # (attach_profile_store); a benchmark never does, so every run of it learns from scratch.
        self.profile_store: ProfileStore | None = None
        self._profile_key = ""  # the store's entry for this pair (set with the store)

    def _relative_verify_cost(self, n: int) -> float:
        """What verifying ``n`` tokens costs relative to one, by the current profile (a restored one replaces it)."""
        return self.profile.verify.relative(n)

    def attach_profile_store(self, store: ProfileStore | None) -> bool:
        """Keep the profile in ``store`` from now on, starting from what it holds for this pair (before any reply).

        Returns whether a stored profile was restored.
        """
        self.profile_store = None
        if store is None:
            return False
        draft = self.draft
        layers = (self.target.options.n_gpu_layers, draft.options.n_gpu_layers if draft is not None else 0)
        try:
            self._profile_key = pair_key(self.config.target, self.config.draft if draft is not None else None, layers)
        except OSError:
            return False  # a model file gone since it loaded: nothing to tie the profile to
        self.profile_store = store
        restored = store.load(self._profile_key)
        if restored is None:
            return False
        restored.draft_share_prior = self.profile.draft_share_prior  # timed at this load
        self.profile = restored
        if isinstance(self.threads, AdaptiveThreads):
            kept = store.threads(self._profile_key)
            if kept is not None:
                self.threads.restore(kept)  # refused when this machine's reading differs now
        return True

    def save_profile(self) -> None:
        """Keep what the controller and the thread policy learned so far (a no-op without a store)."""
        if self.profile_store is not None:
            threads = self.threads.state() if isinstance(self.threads, AdaptiveThreads) else None
            self.profile_store.save(self._profile_key, self.profile, threads)

    def set_threads(self, n_threads: int) -> None:
        """Both contexts at once: drafting and verifying alternate, so each may use every thread."""
        self.target.set_threads(n_threads)
        if self.draft is not None:
            self.draft.set_threads(n_threads)
        if self.mtp is not None:
            self.mtp.set_threads(n_threads)

    def prompt_tokens(
        self,
        messages: Sequence[Message],
        reserve: int = 0,
        continue_reply: bool = False,
        tools: Sequence[ToolSpec] = (),
    ) -> FittedPrompt:
        """Render ``messages``, dropping the oldest turns if the prompt plus ``reserve`` would not fit.

        ``continue_reply``: the last message is an unfinished assistant reply that generation
        goes on with (the prompt ends inside its turn, see :meth:`ChatTemplate.render`).
        ``tools``: offered to the model through the template (a chat's MCP tools).
        """
        budget = self.target.n_ctx - max(1, reserve)

        image_ids = self.images.ids(messages)

        def render(kept: Sequence[Message]) -> list[int]:
            return self.template.render(kept, continue_reply=continue_reply, tools=tools, image_ids=image_ids)

        # Each message counted once, so a long chat is fitted near its cut rather than rendered whole per drop.
        fitted = fit_conversation(messages, render, budget, count=lambda m: len(self.template.plain_tokens(m.content)))
        if not continue_reply:
            return fitted
        return FittedPrompt(self._as_cached(fitted.tokens), fitted.dropped_messages)

    def _as_cached(self, prompt: list[int]) -> list[int]:
        """``prompt`` spelled, where the target's cache spells the same text, with the cache's own tokens.

        A reply cut at the limit is still in the cache as the tokens the model wrote;
        its text tokenised again can split differently (``"**\n"`` as one token
        or two), and a model continuing after a split it never writes itself goes
        astray. So the cached tokens are kept as long as their bytes spell the
        prompt's text, and only the rest is tokenised again.
        """
        cached = list(self.target.kv_tokens)
        keep = common_prefix_length(cached, prompt)
        if keep == len(prompt) or keep == len(cached):
            return prompt
        # The template's markers, user-defined ones too: the tail is re-read as the reply's own text alone.
        specials = {token for _, token in [*self.template.specials(), *self.template.guarded()]}
        if any(token in specials for token in prompt[keep:]):
            return prompt  # the cache parted before the reply's own text: nothing of it to keep
        rest = b"".join(self.target.token_bytes(t) for t in prompt[keep:])
        taken: list[int] = []
        used = 0
        for token in cached[keep:]:
            piece = self.target.token_bytes(token)
            if token in specials or not piece or not rest.startswith(piece, used):
                break
            taken.append(token)
            used += len(piece)
        while taken:
            try:
                tail = rest[used:].decode("utf-8")  # a token may end inside a character: step back until whole
            except UnicodeDecodeError:
                used -= len(self.target.token_bytes(taken.pop()))
                continue
            return [*prompt[:keep], *taken, *(self.template.plain_tokens(tail) if tail else [])]
        return prompt

    def cached_prefix(self, prompt: Sequence[int]) -> tuple[int, int | None]:
        """How many of ``prompt``'s tokens the target's (and the draft's) KV cache already holds.

        The decoder keeps exactly this shared prefix and reads only the rest
        (:func:`~app.core.decoding.model_port.sync_cache` on all but the last prompt token).
        """
        head = prompt[:-1]
        target = common_prefix_length(self.target.kv_tokens, head)
        draft = common_prefix_length(self.draft.kv_tokens, head) if self.draft is not None else None
        return target, draft

    def restore_prefix(self, prompt: Sequence[int], with_draft: bool) -> tuple[int, int]:
        """Load the saved states that serve ``prompt`` best (target, and draft when ``with_draft``): tokens loaded each.

        ``prompt`` is the whole prompt; the caches end up holding at most all
        but its last token, as the decoder wants them.
        """
        if self.prefix_cache is None:
            return 0, 0
        draft = self.draft if with_draft else None
        target_loaded, draft_loaded = restore_pair(self.prefix_cache, (self.target, draft), prompt[:-1])
        return target_loaded, draft_loaded

    def save_prefix(self) -> None:
        """Save what each cache holds now (after a reply), where the prefix cache's policy finds it worth it."""
        if self.prefix_cache is not None:
            save_pair(self.prefix_cache, (self.target, self.draft))

    def decoder(
        self,
        params: SamplingParams,
        policy: DraftLengthPolicy,
        drafter: DrafterKind | None = None,
        sources: Sequence[LookupSource] = (),
        trace: bool = False,
        pieces: Callable[[int], bytes] | None = None,
    ) -> SpeculativeDecoder:
        """A decoder for one generation with draft-length ``policy``; ``drafter`` may override the configured kind.

        ``sources``: token sequences prompt lookup may copy from besides the
        context (the conversation's attachments, :mod:`app.engine.reply_attachments`).
        ``trace`` makes it record every verify step (the replies that are stored keep them for replay).
        ``pieces`` spells the reply's tokens (default: the target's own pieces;
        :func:`app.engine.llama.call_markers.reply_pieces` shows a dialect's call markers).

        The policy is the caller's decision (:class:`app.core.reply.plan.DraftPlan`
        makes it for replies); an adaptive one is attached here to this pair's shared
        :attr:`profile`, so what one reply learns about costs serves the next.
        """
        kind = drafter or self.config.drafter
        rng = np.random.default_rng(params.seed)
        adaptive_policy = policy if isinstance(policy, AdaptiveDraftLength) else None
        if adaptive_policy is not None and not adaptive_policy.attached:
            # The hybrid's controller plans the draft model, so it shares the model's profile (and pre-flight).
            profile_kind = "model" if kind.uses_draft_model else kind.value
            remember = kind.uses_draft_model or kind.uses_own_layers  # a model's acceptance says something of the pair
            adaptive_policy.attach(self.profile.for_drafter(profile_kind, params.greedy, remember=remember))
        chosen: Drafter
        if kind.uses_draft_model:
            if self.draft is None:
                raise TandemError("no draft model is loaded")
            chosen = ModelDrafter(self.draft, LogitsWarper(params, self.draft.n_vocab), rng)
            if kind is DrafterKind.HYBRID:
                chosen = HybridDrafter(chosen, _lookup(adaptive_policy, sources))
        elif kind.uses_own_layers:
            if self.mtp is None:
                raise TandemError("the model's own MTP layers are not loaded")
            # The MTP layers are a CausalLM over the target's vocabulary: the draft-model drafter runs them as is.
            chosen = ModelDrafter(self.mtp, LogitsWarper(params, self.mtp.n_vocab), rng)
        elif kind is DrafterKind.NGRAM:
            chosen = _lookup(adaptive_policy, sources)
        else:
            chosen = NoDrafter()
        return SpeculativeDecoder(self.target, chosen, params, policy, rng, self.threads, trace, pieces)

    def close(self) -> None:
        """Free both models, the MTP layers' context, and the projector with the images it read."""
        self.images.close()
        if self.draft is not None:
            self.draft.close()
        if self.mtp is not None:
            self.mtp.close()
        self.target.close()

    def __enter__(self) -> LoadedPair:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_own_layers(target: Path, header: GGUFHeader) -> None:
    """Refuse in one line, before anything loads, a target without MTP layers this llama.cpp can run."""
    own = read_own_drafter(header)
    if own is None or own.kind.needs_head_file:
        raise TandemError(_NO_MTP_LAYERS.fill(target=target.name))
    if not own.runs_in_process:
        raise TandemError(_MTP_UNUSABLE.fill(target=target.name, why=own.explanation()))


def _lookup(policy: AdaptiveDraftLength | None, sources: Sequence[LookupSource] = ()) -> NgramDrafter:
    """Prompt lookup: judged step by step by an adaptive policy, or limited to trusted matches at a fixed length."""
    if policy is not None:
        return NgramDrafter(
            _LOOKUP_MAX_NGRAM,
            _LOOKUP_MIN_NGRAM,
            lookup_length=_LOOKUP_LENGTH,
            judge=policy.lookup_length,
            sources=sources,
        )
    return NgramDrafter(_LOOKUP_MAX_NGRAM, _LOOKUP_MIN_NGRAM, min_trust=_LOOKUP_MIN_TRUST, sources=sources)


# The lookup drafter as replies build it, for the benchmark's overhead probe (app/engine/bench/overhead.py).
lookup_drafter = _lookup
