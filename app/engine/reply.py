"""One reply, planned, run and recorded in one place: every front end's road to a reply.

The window (through its engine thread), ``chat``, ``chat --chat`` and
``serve`` all describe what they want as a :class:`ReplyRequest` (a chat's
settings, its messages, and the few things only a front end knows: the demo
switch, continuing a reply, whether an oversized prompt may lose old turns).
:func:`plan_reply` turns it and a loaded pair into a :class:`ReplyPlan`, a
few small records: the sampling (parameters with a concrete seed, the
length limit), the drafting (the drafter that will run, the draft-length
policy, prompt lookup's sources), the fitted prompt, the trace, the
constraints (stop strings, grammar) and the provenance the reply records.
:func:`fit_prompt` is the prompt part alone: the window's context gauge
and its A/B tool take their prompt from it, so they count and run what a
reply would.
:func:`run_reply` runs the plan; :func:`record_start` and :func:`end_of`
(a :class:`~app.core.reply.end.ReplyEnd`) say what the store keeps of it, and :func:`saving` stores a run as it goes
for the front ends without a store guard of their own (the CLI).

The decisions without a model (the adaptive bound, the drafter fallback, the
seed) are pure and live in :mod:`app.core.reply.plan`.

Attachments enter the prompt here, before fitting: the context planner
(:mod:`app.core.attachments.context`, with the pair's numbers from
:mod:`app.engine.reply_attachments`) renders each one whole or as the chunks
that answer into its message's content; the plan keeps how each was used (in
the provenance) and each attachment's tokens as an extra source for prompt
lookup.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from app.core.attachments.context import AttachmentContext, ChunkSearch
from app.core.conversation.chat import FittedPrompt, Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.conversation.output_format import OutputFormat, chat_output_format
from app.core.decoding.constraint import TokenMask
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.lookup import LookupSource
from app.core.decoding.sampling import SamplingParams
from app.core.display.wording import Words
from app.core.errors import PromptTooLongError
from app.core.reply.end import ReplyEnd
from app.core.reply.plan import DraftPlan, PromptPolicy, concrete_seed, effective_drafter
from app.core.reply.reasoning import THINK, history_without_reasoning
from app.core.reply.record import OutputRecord, Provenance, ReplyRecord, SamplingRecord
from app.core.reply.thinking import ThinkingClock
from app.core.tools.call_stream import ToolDialect, ToolFormat
from app.core.tools.dialects import H_ROLE, H_START
from app.core.tools.records import ToolSpec
from app.engine.llama.call_markers import call_markers, reply_pieces
from app.engine.llama.grammar import compile_grammar, grammar_mask, grammar_tokenizer
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.llama.tool_grammar import ToolGrammar, call_mask, plan_tool_grammar
from app.engine.reply_attachments import lookup_sources, plan_attachments
from app.engine.store.conversations import ChatStore

ReplyEvent = StepEvent | FinishedEvent


@dataclass(frozen=True, slots=True)
class ReplyRequest:
    """What a front end asks for: a chat's settings and messages, and how to treat them.

    ``messages`` are the turns in order (the system prompt first, when the
    chat has one: :func:`chat_messages` builds them). ``raw_prompt`` instead
    is a text completion's prompt, tokenised as it is (``serve``'s
    ``/v1/completions``).
    """

    settings: ChatSettings
    messages: tuple[Message, ...] = ()
    prompt_policy: PromptPolicy = PromptPolicy.DROP_OLDEST
    demo: bool = False  # the window's "show speculation anyway"
    continue_reply: bool = False  # the last message is an unfinished reply that generation goes on with
    stop: tuple[str, ...] = ()
    raw_prompt: str | None = None
    # Record every verify step for replay (the window and ``chat --chat``, which store them). A continued
    # reply's records count on from the steps and tokens it has stored (``first_step``, ``first_token``).
    trace: bool = False
    first_step: int = 0
    first_token: int = 0
    whole_documents: bool = False  # the user's "whole document": every attachment whole, or told why not
    chunk_search: ChunkSearch | None = None  # BM25 over the chat database's chunks; None: in memory
    output_format: OutputFormat | None = None  # structured output (JSON mode, a JSON schema); None: free text
    # The tools offered (``serve``'s, or MCP servers' in the tool loop), rendered by the template, and the start
    # of the reply that steers a required call (:mod:`app.engine.server.tool_calls`; only with PromptPolicy.REFUSE).
    tools: tuple[ToolSpec, ...] = ()
    reply_prefix: str = ""
    # ``serve``'s OpenAI fields: a bias on token ids' logits (the settings' sampling has none), and
    # log-probabilities reported with this many alternatives per token (None: none reported).
    logit_bias: tuple[tuple[int, float], ...] = ()
    top_logprobs: int | None = None


@dataclass(frozen=True, slots=True)
class SamplingPlan:
    """How the reply's tokens are drawn, how many at most, and what is reported of each one's probability."""

    params: SamplingParams  # with the concrete seed the reply records
    max_tokens: int
    top_logprobs: int | None = None  # each token's log-probability and this many alternatives (None: none)


@dataclass(frozen=True, slots=True)
class DraftSetup:
    """Who drafts, how far each step, and the extra texts prompt lookup copies from."""

    drafter: DrafterKind
    lengths: DraftPlan
    lookup_sources: tuple[LookupSource, ...] = ()  # the attachments' tokens, for prompt lookup


@dataclass(frozen=True, slots=True)
class PromptPlan:
    """The fitted prompt and what it holds: the attachments as they entered it, the caches' reuse."""

    fitted: FittedPrompt
    n_ctx: int
    attachments: AttachmentContext | None = None  # how the attachments entered the prompt (None: there were none)
    # The prompt ends inside a reasoning block the template opened: the reply starts as thinking.
    reasoning_inside: bool = False
    reused: int = 0  # prompt tokens the target's KV cache already holds
    draft_reused: int | None = None  # the same for the draft model (None: no draft model)

    @property
    def tokens(self) -> list[int]:
        """The prompt's token ids."""
        return self.fitted.tokens

    @property
    def dropped_messages(self) -> int:
        """Old turns left out so the prompt fits."""
        return self.fitted.dropped_messages

    @property
    def attachment_tokens(self) -> int:
        """Tokens the attachments take in the prompt."""
        return self.attachments.used if self.attachments is not None else 0


@dataclass(frozen=True, slots=True)
class TracePlan:
    """Whether every verify step is recorded for replay, and where a continued reply's records count on from."""

    on: bool = False
    first_step: int = 0
    first_token: int = 0


@dataclass(frozen=True, slots=True)
class Constraints:
    """What the reply's text must keep to: where it stops, and the grammar every token follows."""

    stop: tuple[str, ...] = ()
    grammar: str | None = None  # the compiled grammar (app.engine.llama.grammar); None: free text
    tool_calls: ToolGrammar | None = None  # each tool call held to its tool's schema (app.engine.llama.tool_grammar)
    # The control tokens of the tools' dialect's call markup, spelt as their text for the call reader
    # (app.engine.llama.call_markers); every other control token still shows nothing.
    call_markers: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ReplyPlan:
    """Everything one reply runs with, decided before its first token."""

    sampling: SamplingPlan
    draft: DraftSetup
    prompt: PromptPlan
    provenance: Provenance
    trace: TracePlan = TracePlan()
    constraints: Constraints = Constraints()

    @property
    def notices(self) -> tuple[str, ...]:
        """One-line messages for the user (a "whole document" that did not fit)."""
        context = self.prompt.attachments
        return context.notices if context is not None else ()

    @property
    def notice_words(self) -> tuple[Words, ...]:
        """:attr:`notices` translatable, for the window."""
        context = self.prompt.attachments
        return context.notice_words if context is not None else ()


def chat_messages(settings: ChatSettings, turns: Sequence[Message]) -> tuple[Message, ...]:
    """A chat's prompt messages: its own system prompt (when it has one), then its turns (attachments, images kept)."""
    system = settings.system_prompt.strip()
    # A reply that only called tools has no text but stays, as do the calls' results (``tool`` turns).
    kept = [
        m
        for m in turns
        if (m.content or m.attachments or m.images or m.tool_calls or m.role == "tool")
        and m.role in ("user", "assistant", "system", "tool")
    ]
    return (*([Message("system", system)] if system else []), *kept)


def reply_reserve(max_tokens: int, n_ctx: int) -> int:
    """Tokens kept free for the reply when fitting a chat: its limit, but never more than a quarter of the context.

    A chat's limit (512 by default) would otherwise push most of the
    conversation out of a small context; a reply that needs more room than
    the reserve stops with "the context is full" and can be continued.
    """
    return min(max_tokens, n_ctx // 4)


def provenance_of(
    settings: ChatSettings, params: SamplingParams, target: str, draft_file: str | None, drafter: str, plan: DraftPlan
) -> Provenance:
    """What the reply records as having produced it."""
    return Provenance(
        target=target,
        draft=draft_file,
        drafter=drafter,
        draft_policy=plan.words(),
        sampling=SamplingRecord.of(params, settings.max_tokens),
        system_prompt=settings.system_prompt,
        seed=params.seed,
    )


def _with_concrete_seed(settings: ChatSettings) -> SamplingParams:
    """The settings' sampling, with the seed the reply will record (drawn now when the chat says random)."""
    params = settings.sampling_params()
    return dataclasses.replace(params, seed=concrete_seed(params.seed))


def fit_prompt(pair: LoadedPair, request: ReplyRequest) -> PromptPlan:
    """The prompt the request's reply would run, attachments planned in; no cache is touched.

    :func:`plan_reply` fits every reply's prompt here (and refuses one that
    leaves no room); the window's context gauge and its A/B tool ask for the
    same prompt without planning a reply, the gauge showing one too long.
    """
    n_ctx = pair.target.n_ctx
    messages = request.messages
    context = _attachment_context(pair, request)
    if context is not None:
        messages = context.messages
    # Earlier replies' reasoning stays out of the prompt (a reply being continued keeps its own).
    messages = history_without_reasoning(messages, THINK, keep_last=request.continue_reply)
    inside = request.raw_prompt is None and not request.continue_reply and pair.template.opens_reasoning(messages)
    if request.raw_prompt is not None:
        fitted = FittedPrompt(pair.target.tokenize(request.raw_prompt, add_special=True, parse_special=True), 0)
    elif request.prompt_policy is PromptPolicy.REFUSE:
        rendered = pair.template.render(
            list(messages),
            request.continue_reply,
            tools=request.tools,
            reply_prefix=request.reply_prefix,
            image_ids=pair.images.ids(messages),
        )
        fitted = FittedPrompt(rendered, 0)
    else:
        reserve = reply_reserve(request.settings.max_tokens, n_ctx)
        fitted = pair.prompt_tokens(
            messages, reserve=reserve, continue_reply=request.continue_reply, tools=request.tools
        )
    return PromptPlan(fitted=fitted, n_ctx=n_ctx, attachments=context, reasoning_inside=inside)


def plan_reply(pair: LoadedPair, request: ReplyRequest) -> ReplyPlan:
    """Decide the reply: drafter, draft length, seed, prompt; raises :class:`PromptTooLongError` when it cannot fit."""
    settings = request.settings
    drafter = effective_drafter(
        settings.drafter, pair.draft is not None, pair.config.drafter, own_layers_loaded=pair.mtp is not None
    )
    lengths = DraftPlan.for_chat(drafter, settings.draft_length, settings.adaptive, request.demo)
    params = _with_concrete_seed(settings)
    if request.logit_bias:
        params = dataclasses.replace(params, logit_bias=request.logit_bias)
    prompt = fit_prompt(pair, request)
    if len(prompt.tokens) >= prompt.n_ctx:
        raise PromptTooLongError(len(prompt.tokens), prompt.n_ctx)
    # Saved states first (a no-op without a prefix cache): what they load counts as reused like the live cache.
    pair.restore_prefix(prompt.tokens, drafter.uses_draft_model)
    reused, draft_reused = pair.cached_prefix(prompt.tokens)
    prompt = dataclasses.replace(prompt, reused=reused, draft_reused=draft_reused)
    grammar = None
    output = request.output_format or chat_output_format(settings.json_schema)
    if output is not None and output.constrained:
        # Compiled and checked against the vocabulary before anything runs: a bad schema is refused, losing nothing.
        grammar = compile_grammar(output, grammar_tokenizer(pair.target)[0])
    dialect = _tool_dialect(pair, request)
    tool_calls = (
        _tool_grammar(pair, request, dialect, prompt.tokens) if grammar is None and dialect is not None else None
    )
    markers = call_markers(pair.target, dialect) if dialect is not None else ()
    config = pair.config
    draft_name = config.draft.name if drafter.uses_draft_model and config.draft is not None else None
    provenance = provenance_of(settings, params, config.target.name, draft_name, drafter.value, lengths)
    if grammar is not None and output is not None:  # which format held the reply (schema by name and hash)
        provenance = dataclasses.replace(provenance, output_format=OutputRecord.of(output))
    sources: tuple[LookupSource, ...] = ()
    if prompt.attachments is not None:
        provenance = dataclasses.replace(provenance, attachments=prompt.attachments.uses)
        sources = lookup_sources(pair, request.messages)
    return ReplyPlan(
        sampling=SamplingPlan(params=params, max_tokens=settings.max_tokens, top_logprobs=request.top_logprobs),
        draft=DraftSetup(drafter=drafter, lengths=lengths, lookup_sources=sources),
        prompt=prompt,
        provenance=provenance,
        trace=TracePlan(on=request.trace, first_step=request.first_step, first_token=request.first_token),
        constraints=Constraints(stop=request.stop, grammar=grammar, tool_calls=tool_calls, call_markers=markers),
    )


def _tool_dialect(pair: LoadedPair, request: ReplyRequest) -> ToolDialect | None:
    """How the reply writes calls to the tools it is offered (None: no tools, or the template has no dialect)."""
    return pair.template.tool_dialect(request.tools) if request.tools and request.raw_prompt is None else None


def _tool_grammar(
    pair: LoadedPair, request: ReplyRequest, dialect: ToolDialect, prompt: Sequence[int]
) -> ToolGrammar | None:
    """The grammar each of the reply's calls keeps to, in ``dialect`` (None: not held)."""
    template = pair.template
    specials = [*template.specials(), *template.guarded()]
    role = template.template_tokens(H_START + H_ROLE)  # harmony: the prompt opened the reply's first message
    opens_message = dialect.format is ToolFormat.HARMONY and list(prompt[-len(role) :]) == role
    return plan_tool_grammar(
        pair.target, dialect, request.tools, specials, request.reply_prefix, template.template_tokens, opens_message
    )


def _attachment_context(pair: LoadedPair, request: ReplyRequest) -> AttachmentContext | None:
    """How the request's attachments would enter the prompt: what each takes, what is left out (None: none).

    :func:`fit_prompt` makes this decision for every prompt it fits.
    """
    if request.raw_prompt is not None or not any(m.attachments for m in request.messages):
        return None
    return plan_attachments(
        pair,
        request.messages,
        reply_reserve(request.settings.max_tokens, pair.target.n_ctx),
        whole_documents=request.whole_documents,
        search=request.chunk_search,
        continue_reply=request.continue_reply,
    )


def plan_remote_reply(request: ReplyRequest, model: str, drafter: str) -> ReplyPlan:
    """The plan of a reply a remote server generates: its settings and seed; the server fits the prompt."""
    settings = request.settings
    params = _with_concrete_seed(settings)
    lengths = DraftPlan.none()
    return ReplyPlan(
        sampling=SamplingPlan(params=params, max_tokens=settings.max_tokens),
        draft=DraftSetup(drafter=DrafterKind.NONE, lengths=lengths),
        prompt=PromptPlan(fitted=FittedPrompt([], 0), n_ctx=0),
        provenance=provenance_of(settings, params, model, None, drafter, lengths),
        constraints=Constraints(stop=request.stop),
    )


def run_reply(pair: LoadedPair, plan: ReplyPlan, should_stop: Callable[[], bool] | None = None) -> Iterator[ReplyEvent]:
    """The reply's events: a :class:`StepEvent` per verify step, then one :class:`FinishedEvent`."""
    draft = plan.draft
    # The prompt's images go into the target's context here, through the projector; the decoder then
    # finds their positions cached and decodes the text after them as any prompt's.
    pair.images.write(plan.prompt.tokens)
    decoder = pair.decoder(
        plan.sampling.params,
        draft.lengths.policy(),
        drafter=draft.drafter,
        sources=draft.lookup_sources,
        trace=plan.trace.on,
        pieces=reply_pieces(pair.target, plan.constraints.call_markers),
    )
    generation = GenerationRequest(
        prompt_tokens=plan.prompt.tokens,
        max_tokens=plan.sampling.max_tokens,
        stop_strings=plan.constraints.stop,
        should_stop=should_stop or _never,
        first_step=plan.trace.first_step,
        first_token=plan.trace.first_token,
        constraint=_constraint(pair, plan.constraints),
        top_logprobs=plan.sampling.top_logprobs,
    )
    return _saved_after(pair, decoder.generate(generation))


def _constraint(pair: LoadedPair, constraints: Constraints) -> TokenMask | None:
    """The mask a reply's tokens keep to: the output format's grammar, or its tool calls' (None: free text)."""
    if constraints.grammar is not None:
        return grammar_mask(pair.target, constraints.grammar)
    if constraints.tool_calls is not None:
        return call_mask(pair.target, constraints.tool_calls)
    return None


def _saved_after(pair: LoadedPair, events: Iterator[ReplyEvent]) -> Iterator[ReplyEvent]:
    """``events``, then the caches' states and the controller's profile saved (no-ops without their stores).

    The save runs once the finished event has gone out and the caller asks for
    more, so the write delays no token of this reply.
    """
    yield from events
    pair.save_prefix()
    pair.save_profile()


def _never() -> bool:
    return False


def pair_label(config: PairConfig, drafter: DrafterKind | None = None) -> str:
    """What answers, for headers, the status bar and a reply's record: the pair as ``drafter`` uses it."""
    kind = drafter or config.drafter
    target = config.target.stem
    if kind.uses_draft_model and config.draft is not None:
        return f"{target} + {config.draft.stem}"
    if kind.uses_own_layers:
        return f"{target} + its MTP layers"
    return f"{target} + n-gram" if kind is DrafterKind.NGRAM else f"{target}, target only"


def record_start(plan: ReplyPlan, label: str, drafter: str | None = None) -> ReplyRecord:
    """What the store keeps of a reply when it begins (``drafter``: how it is worded, default the plan's)."""
    return ReplyRecord(
        pair=label,
        drafter=drafter if drafter is not None else plan.draft.drafter.value,
        produced_by=plan.provenance,
        prompt_tokens=len(plan.prompt.tokens),
        prompt_reused=plan.prompt.reused,
        draft_prompt_reused=plan.prompt.draft_reused,
        dropped_messages=plan.prompt.dropped_messages,
        adaptive=plan.draft.lengths.is_adaptive,
        demo_length=plan.draft.lengths.length if plan.draft.lengths.demo else 0,
        reasoning_inside=plan.prompt.reasoning_inside,
    )


def end_of(
    event: FinishedEvent, clock: ThinkingClock, before: str = "", before_seconds: float | None = None
) -> ReplyEnd:
    """The end of a reply the decoder finished, its thinking time from ``clock`` (fed every step).

    A run that grew a stored reply (Continue) passes the reply's earlier text
    (``before``, which comes first) and thinking time (``before_seconds``,
    which stands when this run closed no block of its own).
    """
    seconds = clock.seconds if clock.seconds is not None else before_seconds
    return ReplyEnd.finished(event, text=before + event.text, thinking_seconds=seconds)


def saving(events: Iterator[ReplyEvent], store: ChatStore, reply_id: int, inside: bool = False) -> Iterator[ReplyEvent]:
    """``events`` passed on, each step's tokens (and record, when traced) stored as it passes, then the reply finished.

    ``inside``: the prompt opened the reply's reasoning block (the plan's ``reasoning_inside``), so its
    thinking time counts from the first step. A Ctrl+C leaves the reply saved as cancelled with what it had.
    """
    text: list[str] = []
    clock = ThinkingClock(inside=inside)
    try:
        for event in events:
            if isinstance(event, StepEvent):
                store.append_tokens(reply_id, event.tokens, () if event.record is None else (event.record,))
                text.extend(token.text for token in event.tokens)
                clock.add_step(event)
            else:
                end_reply(store, reply_id, end_of(event, clock))
            yield event
    except KeyboardInterrupt:
        end_reply(store, reply_id, ReplyEnd.stopped(text="".join(text)))
        raise


def end_reply(store: ChatStore, reply_id: int, end: ReplyEnd) -> None:
    """Store ``end`` as the reply's final text, state and metadata (merged into what it recorded at the start)."""
    store.finish_reply(reply_id, end.text, end.state, end.to_meta())
