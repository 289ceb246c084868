"""`tandem chats steps ID`: one reply's verify steps, as lines, as JSON, or as a self-contained HTML page.

``ID`` is a message id: the id of a reply (``tandem chats show CHAT`` prints
each message's id in brackets, ``--json`` lists them as ``id``). Only local
replies made since Tandem records its steps have any; an older reply, or one
a server made, says so in one line. Reads without the writer lock, like
``chats show``.

- text: one line per step: who drafted, the length asked for and why, what
  was kept, the rejected token with p, q and the coin, the correction or the
  bonus, and the step's draft and verify time;
- ``--json``: ``{"message_id", "steps": [...], "tokens": [...]}``, each step
  in the scripts' spelling of :meth:`~app.core.reply.step_record.StepRecord.to_public_json`
  (descriptive keys; the store keeps its short ones) and each token as every
  JSON format writes it;
- ``--html FILE``: the step view as one page (:func:`app.core.reply.step_page.render_page`),
  written like an export (never over a link or a device; over a file only with ``--force``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.core.conversation.chat import Role
from app.core.display.terminal_text import visible, visible_json
from app.core.errors import TandemError
from app.core.reply.step_page import render_page
from app.core.reply.step_record import StepRecord
from app.engine.safe_files import Refusal, UnsafeTargetError, write_text_safely
from app.engine.store.conversations import ChatStore, StoredMessage


def add_steps_parser(action: Any) -> None:
    """Register ``steps`` through ``chats``' own ``action`` helper (which adds ``--json``)."""
    steps = action("steps", run_steps, "one reply's verify steps: lines, --json, or --html FILE (read-only)")
    steps.add_argument("id", metavar="ID", help="a reply's message id (`tandem chats show CHAT` lists them)")
    steps.add_argument("--html", type=Path, default=None, metavar="FILE", help="write the step view as an HTML page")
    steps.add_argument("--force", action="store_true", help="replace FILE if it exists (never a link or a device)")


def reply_message(text: str, store: ChatStore) -> StoredMessage:
    """The reply named by ``text``, or a one-line error."""
    try:
        number = int(text)
    except ValueError:
        raise TandemError(
            f"{text!r} is not a message id: `tandem chats show CHAT` lists a chat's message ids"
        ) from None
    try:
        message = store.message(number)
    except KeyError:
        raise TandemError(f"no message with id {number}: `tandem chats show CHAT` lists a chat's message ids") from None
    if message.role != Role.ASSISTANT:
        raise TandemError(f"message {number} is a {message.role} message: only replies have steps")
    return message


def _tok(text: str) -> str:
    return repr(text)


def step_line(step: StepRecord) -> str:
    """One step in a line: "step 3 · lookup (match 5) · K=8 asked: 'fixed at 8' · drafted 6, kept 4 · ..."."""
    parts = [f"step {step.index + 1}"]
    if step.drafter == "lookup":
        parts.append("lookup" + (f" (match {step.lookup_match})" if step.lookup_match is not None else ""))
    elif step.drafter is not None:
        parts.append(step.drafter)
    else:
        parts.append("no draft")
    parts.append(f"K={step.draft_length} asked: {step.reason!r}")
    if step.drafted:
        parts.append(f"drafted {len(step.drafted)}, kept {step.n_accepted}")
    at = step.rejected_at
    if at is not None:
        token = step.drafted[at]
        if step.greedy:
            top = f" (the target's argmax {_tok(token.target_top)})" if token.target_top is not None else ""
            parts.append(f"rejected {_tok(token.text)}{top}")
        else:
            coin = f" coin {token.coin:.2f}" if token.coin is not None else ""
            parts.append(f"rejected {_tok(token.text)} p={token.p_target:.2f} q={token.q_draft:.2f}{coin}")
        if step.correction is not None:
            parts.append(f"correction {_tok(step.correction.text)}")
    elif step.bonus is not None:
        parts.append(f"{'bonus' if step.drafted else 'target'} {_tok(step.bonus.text)} p={step.bonus.p:.2f}")
    if step.n_emitted < step.n_accepted + 1:
        parts.append(f"emitted {step.n_emitted} (the reply ended)")
    parts.append(f"{step.draft_ms:.1f} ms + {step.verify_ms:.1f} ms")
    return " · ".join(parts)


def run_steps(args: argparse.Namespace) -> int:
    """Print (or write as a page) the steps of the reply ``args.id``."""
    from app.cli.chats_command import reading

    with reading() as store:
        message = reply_message(args.id, store)
        steps = store.steps(message.id)
        skipped = store.skipped_steps
        tokens = store.tokens(message.id)
        title = store.conversation(message.conversation_id).title
    if not steps:
        raise TandemError(
            f"no steps recorded for message {message.id} (replies made before Tandem recorded steps, "
            "and replies from a server, have none)"
        )
    if skipped:
        print(f"{skipped} step record(s) of message {message.id} could not be read and are left out", file=sys.stderr)
    if args.html is not None:
        page = render_page(
            f"{title} · reply {message.id}", [t.text for t in tokens], [str(t.origin) for t in tokens], steps
        )
        try:
            size = write_text_safely(args.html, page, overwrite=args.force)
        except UnsafeTargetError as exc:
            if exc.refusal is Refusal.EXISTS:
                raise TandemError(f"{args.html} already exists: add --force to replace it") from exc
            raise
        if args.json:
            _print_json({"message_id": message.id, "path": str(args.html), "bytes": size, "steps": len(steps)})
        else:
            print(f"wrote the {len(steps)} steps of reply {message.id} to {args.html} ({size} bytes)")
        return 0
    if args.json:
        _print_json(
            {
                "message_id": message.id,
                "steps": [step.to_public_json() for step in steps],
                "tokens": [token.to_json() for token in tokens],
            }
        )
        return 0
    for step in steps:
        print(visible(step_line(step)))
    return 0


def _print_json(value: object) -> None:
    sys.stdout.write(visible_json(json.dumps(value, ensure_ascii=False)) + "\n")
