"""`tandem chat --chat ID "follow-up"`: one more turn of a saved conversation, saved like the window saves it.

The reply continues the chat's active branch with the chat's own settings
(system prompt, sampling, drafter, draft length, token limit), read with
:meth:`ChatSettings.from_dict`, so a chat continued from the terminal reads
as if it had been continued in the window. Options given on the command line
(``--temperature``, ``--max-tokens``, ``--system``, ``--ngram``...) override
the stored settings for this one reply only; the chat's settings are not
changed.

The store is opened for writing (with the writer lock) before any model is
loaded, so a chat held by another Tandem, or an unknown id, fails at once in
one line. The user's message is saved before generation starts and the
reply streams into the store step by step, with ``meta["produced_by"]``
(:func:`~app.core.chat_settings.reply_provenance`); an interrupted run
leaves the reply saved as ``cancelled`` with what it had.
"""

from __future__ import annotations

import argparse
import dataclasses
import secrets
import sys
from collections.abc import Iterator
from typing import Any

from app.cli.chat_command import SAMPLING_OPTIONS, _run_json, _run_stream
from app.cli.common import resolve_pair
from app.core.adaptive.controller import AdaptiveDraftLength
from app.core.chat import Message
from app.core.chat_settings import ChatSettings, reply_provenance
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.draft_policy import DraftLengthPolicy
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.errors import PromptTooLongError, TandemError
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.store import conversations
from app.engine.store.conversations import ChatStore, tokens_of_step


def effective_settings(args: argparse.Namespace, stored: ChatSettings) -> ChatSettings:
    """The chat's settings with whatever the command line gave explicitly laid over them (this reply only)."""
    given = {name: getattr(args, name) for name in SAMPLING_OPTIONS}
    changes: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    if args.max_tokens is not None:
        changes["max_tokens"] = args.max_tokens
    if args.system is not None:
        changes["system_prompt"] = args.system
    if args.no_draft:
        changes["drafter"] = "none"
    elif args.ngram:
        changes["drafter"] = "ngram"
    if args.draft_max is not None:
        if args.draft_max == 0:
            changes["drafter"] = "none"
        else:
            changes.update(adaptive=False, draft_length=args.draft_max)
    try:
        return stored.with_changes(**changes)
    except ValueError as exc:
        raise TandemError(f"{exc} (from the command line)") from exc


def run_stored_chat(args: argparse.Namespace, store: ChatStore, conversation_id: int, prompt_text: str) -> int:
    """Generate the next reply of a stored chat with the local pair, saving both messages."""
    settings = effective_settings(args, ChatSettings.from_dict(store.conversation_settings(conversation_id)))
    target, draft = resolve_pair(args)
    kind = _drafter(settings, draft)
    config = PairConfig(
        target, draft if kind.uses_draft_model else None, kind, args.ctx, args.threads, args.ngl, args.ngld
    )
    history = [
        Message(m.role, m.content)
        for m in store.messages(conversation_id, with_tokens=False)
        if m.content and m.role in ("user", "assistant", "system")
    ]
    system = settings.system_prompt.strip()
    messages = [*([Message("system", system)] if system else []), *history, Message("user", prompt_text)]
    with LoadedPair(config) as pair:
        fitted = pair.prompt_tokens(messages, reserve=settings.max_tokens)
        if len(fitted.tokens) >= pair.target.n_ctx:
            raise PromptTooLongError(len(fitted.tokens), pair.target.n_ctx)
        # A concrete seed even when the chat asks for a fresh one, so the reply can record it.
        seed = settings.seed if settings.seed != -1 else secrets.randbelow(2**31)
        params = dataclasses.replace(settings.sampling_params(), seed=seed)
        policy: DraftLengthPolicy | None = None
        if kind is not DrafterKind.NONE and settings.adaptive:
            policy = AdaptiveDraftLength(max_length=settings.draft_length)
        decoder = pair.decoder(params, policy=policy, draft_length=None if settings.adaptive else settings.draft_length)
        user_id = store.add_message(conversation_id, "user", prompt_text)
        meta = {
            "pair": _label(config),
            "drafter": kind.value,
            "prompt_tokens": len(fitted.tokens),
            "dropped_messages": fitted.dropped_messages,
            "adaptive": kind is not DrafterKind.NONE and settings.adaptive,
            "produced_by": reply_provenance(
                settings,
                target=target.name,
                draft=draft.name if draft is not None else None,
                drafter=kind.value,
                draft_policy=settings.draft_policy(kind.value),
                seed=seed,
            ),
        }
        reply_id = store.begin_reply(conversation_id, meta)
        request = GenerationRequest(fitted.tokens, max_tokens=settings.max_tokens, stop_strings=tuple(args.stop))
        events = _saving(decoder.generate(request), store, reply_id)
        if args.json:
            ids = {"conversation_id": conversation_id, "user_message_id": user_id, "reply_message_id": reply_id}
            return _run_json(events, kind, fitted.tokens, sys.stdout, extra={**ids, "produced_by": meta["produced_by"]})
        return _run_stream(events, kind, sys.stdout)


def _drafter(settings: ChatSettings, draft: object) -> DrafterKind:
    """The chat's drafter, where it can run: the draft model needs a draft file, else prompt lookup stands in."""
    if settings.drafter == "none":
        return DrafterKind.NONE
    if settings.drafter == "ngram" or draft is None:
        return DrafterKind.NGRAM
    return DrafterKind(settings.drafter)  # "hybrid" or "model", both with the draft file


def _label(config: PairConfig) -> str:
    target = config.target.stem
    if config.drafter.uses_draft_model and config.draft is not None:
        return f"{target} + {config.draft.stem}"
    return f"{target} + n-gram" if config.drafter is DrafterKind.NGRAM else f"{target}, target only"


def _saving(events: Iterator[object], store: ChatStore, reply_id: int) -> Iterator[object]:
    """The decoder's events, each step's tokens stored as it passes and the reply finished at the end."""
    text: list[str] = []
    try:
        for event in events:
            if isinstance(event, StepEvent):
                store.append_tokens(reply_id, tokens_of_step(event))
                text.extend(token.text for token in event.tokens)
            elif isinstance(event, FinishedEvent):
                stats = {**event.stats.to_dict(), "last_draft_length": event.stats.last_draft_length}
                state = conversations.CANCELLED if event.reason is FinishReason.CANCELLED else conversations.DONE
                store.finish_reply(reply_id, event.text, state, {"stats": stats, "finish_reason": event.reason.value})
            yield event
    except KeyboardInterrupt:
        store.finish_reply(reply_id, "".join(text), conversations.CANCELLED, {"finish_reason": "cancelled"})
        raise
