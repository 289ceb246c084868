"""What produced a reply, as its Info popup and its footer's hover show it.

Reads a reply's typed record (:class:`app.core.reply.record.ReplyRecord`:
its provenance, written by :mod:`app.engine.reply`, and the prompt numbers
kept beside it): how many prompt tokens the KV caches already held
(reused) and how many were read again (prefill), the prefill's speed and the
time to the first token ("—" for a reply stored before that was kept), and
the JSON format a grammar held it to (a schema by name and SHA-256).
"""

from __future__ import annotations

import html

from app.core.decoding.drafters import DrafterKind
from app.core.reply.record import ReplyRecord

_SYSTEM_SHOWN = 240  # characters of the system prompt shown; the export has all of it
_DRAFTER_WORDS = {DrafterKind.NGRAM.value: "prompt lookup (n-gram)", DrafterKind.NONE.value: "none (target only)"}


def _row(name: str, value: str) -> str:
    return f"<tr><td style='padding-right:12px'><b>{html.escape(name)}</b></td><td>{value}</td></tr>"


def provenance_rows(record: ReplyRecord) -> list[tuple[str, str]]:
    """(label, plain text) for each fact, in the order shown (empty for a reply without a provenance)."""
    produced_by = record.produced_by
    if produced_by is None:
        return []
    rows = [("Target", produced_by.target or "?")]
    drafter = produced_by.drafter or DrafterKind.NONE.value
    if drafter == DrafterKind.MODEL:
        rows.append(("Drafter", f"draft model {produced_by.draft or '?'}"))
    else:
        rows.append(("Drafter", _DRAFTER_WORDS.get(drafter, drafter)))
    rows.append(("Draft length", produced_by.draft_policy or "none"))
    sampling = produced_by.sampling
    if sampling is not None:
        rows.append(("Temperature", "greedy" if sampling.temperature == 0 else f"{sampling.temperature:g}"))
        rows.append(
            (
                "Sampling",
                f"top-k {sampling.top_k}, top-p {sampling.top_p}, min-p {sampling.min_p}, "
                f"repeat penalty {sampling.repeat_penalty}",
            )
        )
        rows.append(("Max tokens", str(sampling.max_tokens)))
    seed = produced_by.seed
    rows.append(("Seed", "fresh random (not recorded)" if seed is None else str(seed)))
    system = produced_by.system_prompt
    shown = system if len(system) <= _SYSTEM_SHOWN else system[:_SYSTEM_SHOWN] + "…"
    rows.append(("System prompt", shown or "(none)"))
    if produced_by.output_format is not None:  # a free-text reply shows no row, as before
        rows.append(("Output format", produced_by.output_format.words()))
    prompt = record.prompt_tokens
    if prompt is not None:
        reused = record.prompt_reused
        rows.append(("Prompt", f"{prompt} tokens: {reused} reused from the cache, {max(0, prompt - reused)} read"))
    figures = record.prompt_figures
    if figures is not None:
        rate = figures.prompt_tokens_per_second
        speed = f", {rate:,.0f} prompt tokens/s" if rate is not None else ""
        rows.append(("Prefill", f"{figures.prefill_ms:,.0f} ms{speed}"))
        rows.append(("First token", f"{figures.time_to_first_token_ms:,.0f} ms"))
    elif record.stats is not None and "prefill_s" in record.stats:  # a reply from before the first token was timed
        rows.append(("Prefill", f"{record.stat('prefill_s') * 1000:.0f} ms"))
        rows.append(("First token", "—"))
    if record.continued:
        rows.append(("Continued", f"{record.continued} time(s); the numbers are the last part's"))
    return rows


def provenance_html(record: ReplyRecord) -> str:
    """Rich text for the popup and the hover card."""
    rows = "".join(_row(name, html.escape(value)) for name, value in provenance_rows(record))
    return f"<p><b>What produced this reply</b></p><table cellspacing='0' cellpadding='1'>{rows}</table>"
