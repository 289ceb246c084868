"""How `tandem chat` prints a reply: tokens coloured by origin as they stream, or one JSON object at the end.

The CLI is a view, so it owns its colours (ANSI, off when the output is not
a terminal or ``NO_COLOR`` is set). Text from a model or a server is written
with its control characters made visible (:func:`app.core.display.terminal_text.visible`).
"""

from __future__ import annotations

import json
import os
from typing import Any, TextIO

from app.core.decoding.drafters import DrafterKind
from app.core.decoding.events import FinishedEvent, StepEvent, TokenOrigin
from app.core.display.terminal_text import visible
from app.core.reply.reasoning import reasoning_json
from app.engine.reply import ReplyPlan

# ANSI styles per origin; the CLI is a view, so it owns its colours.
_STYLE: dict[str, str] = {  # TokenOrigin members are text, the type a token record's origin may have
    TokenOrigin.DRAFT: "\x1b[32m",  # green: the draft guessed right
    TokenOrigin.CORRECTED: "\x1b[31m",  # red: the target overruled the draft
    TokenOrigin.BONUS: "\x1b[34m",  # blue: free token after a fully accepted draft
    TokenOrigin.TARGET: "",  # plain: target-only step
}
_RESET = "\x1b[0m"
_LEGEND = {
    TokenOrigin.DRAFT: "drafted and accepted",
    TokenOrigin.CORRECTED: "corrected by the target",
    TokenOrigin.BONUS: "target bonus token",
    TokenOrigin.TARGET: "target only",
}


def token_json(event: StepEvent) -> list[dict[str, Any]]:
    """A step's tokens as `chat --json` lists them (the token record every JSON format shares)."""
    return [token.to_json() for token in event.tokens]


def reply_json(
    text: str, tokens: list[dict[str, Any]], reason: str, drafter: str, stats: dict[str, Any], inside: bool = False
) -> dict[str, Any]:
    """The object `chat --json` prints, for a local pair and a remote server alike.

    ``reasoning`` is the reply's thinking apart (its text, the answer after it, acceptance in each
    part), or null where it has no reasoning block; ``text`` stays the whole reply as written.
    """
    texts = [str(t.get("text", "")) for t in tokens]
    origins = [str(t.get("origin", "")) for t in tokens]
    reasoning = reasoning_json(texts, origins, inside) if "".join(texts) == text else None
    if reasoning is None and "".join(texts) != text:  # a reply cut by a stop string: split the text alone
        reasoning = reasoning_json([text], ["target"], inside)
        if reasoning is not None:
            del reasoning["thinking"], reasoning["answer_part"]
    return {
        "text": text,
        "tokens": tokens,
        "finish_reason": reason,
        "drafter": drafter,
        "stats": stats,
        "reasoning": reasoning,
    }


def run_json(events: Any, plan: ReplyPlan, out: TextIO, extra: dict[str, Any] | None = None) -> int:
    """Print the reply as one JSON object (``extra`` keys added) once it is finished."""
    tokens: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, StepEvent):
            tokens.extend(token_json(event))
        elif isinstance(event, FinishedEvent):
            payload = reply_json(
                event.text,
                tokens,
                event.reason.value,
                plan.draft.drafter.value,
                event.stats.to_dict(),
                plan.prompt.reasoning_inside,
            )
            payload["prompt_tokens"] = plan.prompt.tokens
            payload["produced_by"] = plan.provenance.to_dict()
            # Per attachment, how it entered the prompt: whole, or which chunks ("report.pdf, p. 3").
            payload["attachments"] = [use.to_json() for use in plan.provenance.attachments]
            # The JSON format the grammar held the reply to (a schema by name and SHA-256); null: free text.
            output = plan.provenance.output_format
            payload["output_format"] = output.to_dict() if output is not None else None
            if plan.notices:
                payload["notices"] = list(plan.notices)
            payload.update(extra or {})
            json.dump(payload, out, ensure_ascii=False)
            out.write("\n")
    return 0


def _colour_enabled(out: TextIO) -> bool:
    return (out.isatty() and "NO_COLOR" not in os.environ) or os.environ.get("FORCE_COLOR") == "1"


def run_stream(events: Any, kind: DrafterKind, out: TextIO) -> int:
    """Print the reply token by token, coloured by origin, then the legend and the statistics."""
    colour = _colour_enabled(out)
    for event in events:
        if isinstance(event, StepEvent):
            for token in event.tokens:
                style = _STYLE[token.origin] if colour else ""
                out.write(f"{style}{visible(token.text)}{_RESET if style else ''}")  # its controls shown, not obeyed
            out.flush()
        elif isinstance(event, FinishedEvent):
            stats = event.stats
            out.write("\n\n")
            shown = [TokenOrigin.TARGET] if kind is DrafterKind.NONE else list(_LEGEND)
            legend = "  ".join(
                f"{_STYLE[o] if colour else ''}{_LEGEND[o]}{_RESET if colour and _STYLE[o] else ''}" for o in shown
            )
            out.write(f"legend: {legend}\n")
            out.write(
                f"{stats.emitted} tokens in {stats.total_s:.2f} s = {stats.tokens_per_second:.1f} tok/s | "
                f"drafter {kind.value} | acceptance {stats.acceptance_rate:.0%} ({stats.accepted}/{stats.drafted}) | "
                f"mean accepted length {stats.mean_accepted_length:.2f} | {stats.steps} target passes | "
                f"finish: {event.reason.value}\n"
            )
    return 0
