"""`tandem chat PROMPT`: one reply to one prompt with the local pair, planned like every other reply."""

from __future__ import annotations

import argparse
import sys

from app.cli.chat.options import attachments_json, drafter_kind, read_attached, settings_from_options, use_disk_stores
from app.cli.chat.output import read_output_format
from app.cli.chat.printing import run_json, run_stream
from app.cli.chat.prompt import read_prompt
from app.cli.common import resolve_pair, sampling_params
from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.errors import TandemError
from app.core.reply.plan import PromptPolicy
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.memory.placement import pair_placement_json
from app.engine.reply import ReplyRequest, chat_messages, plan_reply, run_reply


def run_local(args: argparse.Namespace) -> int:
    """Load the pair, generate, print."""
    if args.max_tokens < 1 or (args.draft_max is not None and args.draft_max < 0) or args.ctx < 16:
        raise TandemError("--max-tokens must be >= 1, --draft-max >= 0 and --ctx >= 16")
    sampling_params(args)  # a bad value is reported before anything loads
    prompt_text = read_prompt(args)
    attached = read_attached(args)  # a file that cannot be attached is refused before any model loads
    output_format = read_output_format(args)  # so is a schema that cannot be used
    target, draft = resolve_pair(args)
    kind = drafter_kind(args, draft)
    settings = settings_from_options(args, ChatSettings(drafter=kind))
    config = PairConfig(
        target, draft if kind.uses_draft_model else None, kind, args.ctx, args.threads, args.ngl, args.ngld
    )
    # One prompt, not a chat: an oversized one is refused rather than cut.
    request = ReplyRequest(
        settings,
        chat_messages(settings, [Message("user", prompt_text, attached)]),
        PromptPolicy.REFUSE,
        stop=tuple(args.stop),
        output_format=output_format,
    )
    with LoadedPair(config) as pair:
        use_disk_stores(pair, args)
        plan = plan_reply(pair, request)
        events = run_reply(pair, plan)
        if args.json:
            extra = {**attachments_json(attached), "placement": pair_placement_json(pair)}
            return run_json(events, plan, sys.stdout, extra=extra)
        return run_stream(events, plan.draft.drafter, sys.stdout)
