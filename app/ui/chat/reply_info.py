"""What produced a reply, as its Info popup and its footer's hover show it.

Reads a reply's ``meta["produced_by"]`` (written with
:func:`app.core.chat_settings.reply_provenance`) and the prompt numbers the
controller keeps beside it: how many prompt tokens the KV caches already held
(reused) and how many were read again (prefill).
"""

from __future__ import annotations

import html
from typing import Any

_SYSTEM_SHOWN = 240  # characters of the system prompt shown; the export has all of it


def _row(name: str, value: str) -> str:
    return f"<tr><td style='padding-right:12px'><b>{html.escape(name)}</b></td><td>{value}</td></tr>"


def provenance_rows(produced_by: dict[str, Any], meta: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, plain text) for each fact, in the order shown."""
    rows = [("Target", str(produced_by.get("target") or "?"))]
    drafter = str(produced_by.get("drafter") or "none")
    if drafter == "model":
        rows.append(("Drafter", f"draft model {produced_by.get('draft') or '?'}"))
    else:
        rows.append(
            ("Drafter", {"ngram": "prompt lookup (n-gram)", "none": "none (target only)"}.get(drafter, drafter))
        )
    rows.append(("Draft length", str(produced_by.get("draft_policy") or "none")))
    sampling = produced_by.get("sampling")
    if isinstance(sampling, dict):
        temperature = float(sampling.get("temperature", 0.0))
        words = "greedy" if temperature == 0 else f"{temperature:g}"
        rows.append(("Temperature", words))
        rows.append(
            (
                "Sampling",
                f"top-k {sampling.get('top_k')}, top-p {sampling.get('top_p')}, min-p {sampling.get('min_p')}, "
                f"repeat penalty {sampling.get('repeat_penalty')}",
            )
        )
        rows.append(("Max tokens", str(sampling.get("max_tokens"))))
    seed = produced_by.get("seed")
    rows.append(("Seed", "fresh random (not recorded)" if seed is None else str(seed)))
    system = str(produced_by.get("system_prompt") or "")
    shown = system if len(system) <= _SYSTEM_SHOWN else system[:_SYSTEM_SHOWN] + "…"
    rows.append(("System prompt", shown or "(none)"))
    prompt = meta.get("prompt_tokens")
    if isinstance(prompt, int):
        reused = int(meta.get("prompt_reused", 0))
        rows.append(("Prompt", f"{prompt} tokens: {reused} reused from the cache, {max(0, prompt - reused)} read"))
    stats = meta.get("stats")
    if isinstance(stats, dict) and "prefill_s" in stats:
        rows.append(("Prefill", f"{float(stats['prefill_s']) * 1000:.0f} ms"))
    if meta.get("continued"):
        rows.append(("Continued", f"{meta['continued']} time(s); the numbers are the last part's"))
    return rows


def provenance_html(produced_by: dict[str, Any], meta: dict[str, Any]) -> str:
    """Rich text for the popup and the hover card."""
    rows = "".join(_row(name, html.escape(value)) for name, value in provenance_rows(produced_by, meta))
    return f"<p><b>What produced this reply</b></p><table cellspacing='0' cellpadding='1'>{rows}</table>"
