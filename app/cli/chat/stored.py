"""`tandem chat --chat ID "follow-up"`: one more turn of a saved conversation, saved like the window saves it.

The reply continues the chat's active branch with the chat's own settings
(system prompt, sampling, drafter, draft length, token limit), read with
:meth:`ChatSettings.from_dict`, and is planned, run and recorded by
:mod:`app.engine.reply` as the window's replies are, so a chat continued from
the terminal reads as if it had been continued in the window. Options given on the command line
(``--temperature``, ``--max-tokens``, ``--system``, ``--ngram``...) override
the stored settings for this one reply only; the chat's settings are not
changed.

The store is opened for writing (with the writer lock) before any model is
loaded, so a chat held by another Tandem, or an unknown id, fails at once in
one line. Files given with ``--attach`` are read before the store opens and
are saved with the user's message (the chat keeps their text, so it works
on after the files move or vanish); the attachments of earlier turns come
from the store. The user's message is saved before generation starts and the
reply streams into the store step by step, with its record
(:class:`~app.core.reply.record.ReplyRecord`) and the record of each verify
step (:class:`~app.core.reply.step_record.StepRecord`, for ``chats steps``); an interrupted run
leaves the reply saved as ``cancelled`` with what it had.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from app.cli.chat.options import (
    attachments_json,
    read_attached,
    settings_from_options,
    stored_chat_drafter,
    use_disk_stores,
)
from app.cli.chat.printing import run_json, run_stream
from app.cli.chat.prompt import read_prompt
from app.cli.common import resolve_pair
from app.core.attachments.record import Attachment
from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.errors import TandemError
from app.core.tools.turns import prompt_message
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.memory.placement import pair_placement_json
from app.engine.reply import ReplyRequest, chat_messages, pair_label, plan_reply, record_start, run_reply, saving
from app.engine.store.conversations import ChatStore


def run_stored_chat(
    args: argparse.Namespace,
    store: ChatStore,
    conversation_id: int,
    prompt_text: str,
    attached: tuple[Attachment, ...] = (),
) -> int:
    """Generate the next reply of a stored chat with the local pair, saving both messages."""
    stored = ChatSettings.from_dict(store.conversation_settings(conversation_id))
    settings = settings_from_options(args, stored)
    target, draft = resolve_pair(args)
    kind = stored_chat_drafter(args, settings, draft, target)
    config = PairConfig(
        target, draft if kind.uses_draft_model else None, kind, args.ctx, args.threads, args.ngl, args.ngld
    )
    stored_turns = store.messages(conversation_id, with_tokens=False)
    history = [prompt_message(m.role, m.content, m.meta, m.attachments, m.images) for m in stored_turns]
    request = ReplyRequest(
        settings=settings,
        messages=chat_messages(settings, [*history, Message("user", prompt_text, attached)]),
        stop=tuple(args.stop),
        trace=True,
        # The chat's stored attachments are ranked with the database's own index (its chunks written once).
        chunk_search=store.chunk_search(),
    )
    with LoadedPair(config) as pair:
        use_disk_stores(pair, args)
        plan = plan_reply(pair, request)
        user_id = store.add_message(conversation_id, "user", prompt_text, attachments=attached)
        record = record_start(plan, pair_label(config, plan.draft.drafter))
        reply_id = store.begin_reply(conversation_id, record.to_meta())
        events = saving(run_reply(pair, plan), store, reply_id, plan.prompt.reasoning_inside)
        if args.json:
            ids = {"conversation_id": conversation_id, "user_message_id": user_id, "reply_message_id": reply_id}
            extra: dict[str, Any] = {**ids, **attachments_json(attached), "placement": pair_placement_json(pair)}
            return run_json(events, plan, sys.stdout, extra=extra)
        return run_stream(events, plan.draft.drafter, sys.stdout)


def run_chat_with_tools(args: argparse.Namespace) -> int:
    """`chat --chat ID --mcp CONFIG`: the next turn of a saved conversation, its tool calls stored in it."""
    from app.cli.chat.mcp_tools import run_mcp
    from app.cli.chats_command import chat_id, writing

    if args.ctx < 16:
        raise TandemError("--ctx must be >= 16")
    with writing() as store:
        conversation = chat_id(args.chat, store)
        return run_mcp(args, store, conversation.id)


def run_chat(args: argparse.Namespace) -> int:
    """`chat --chat ID`: the next turn of a saved conversation ."""
    from app.cli.chats_command import chat_id, writing

    if args.remote:
        raise TandemError("--chat continues a saved chat with the local pair; it cannot be combined with --remote")
    if (args.max_tokens is not None and args.max_tokens < 1) or (args.draft_max is not None and args.draft_max < 0):
        raise TandemError("--max-tokens must be >= 1 and --draft-max >= 0")
    if args.ctx < 16:
        raise TandemError("--ctx must be >= 16")
    prompt_text = read_prompt(args)
    attached = read_attached(args)
    with writing() as store:
        conversation = chat_id(args.chat, store)
        return run_stored_chat(args, store, conversation.id, prompt_text, attached)
