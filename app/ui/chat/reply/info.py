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

from PySide6.QtCore import QCoreApplication

from app.core.decoding.drafters import DrafterKind
from app.core.reply.record import ReplyRecord
from app.ui.i18n import QT_TRANSLATE_NOOP
from app.ui.i18n.words import number

_SYSTEM_SHOWN = 240  # characters of the system prompt shown; the export has all of it
_DRAFTER_WORDS = {
    DrafterKind.NGRAM.value: QT_TRANSLATE_NOOP("ReplyInfo", "prompt lookup (n-gram)"),
    DrafterKind.MTP.value: QT_TRANSLATE_NOOP("ReplyInfo", "the model's own MTP layers"),
    DrafterKind.NONE.value: QT_TRANSLATE_NOOP("ReplyInfo", "none (target only)"),
}


def _row(name: str, value: str) -> str:
    return f"<tr><td style='padding-right:12px'><b>{html.escape(name)}</b></td><td>{value}</td></tr>"


def provenance_rows(record: ReplyRecord) -> list[tuple[str, str]]:
    """(label, plain text) for each fact, in the order shown (empty for a reply without a provenance)."""
    produced_by = record.produced_by
    if produced_by is None:
        return []
    rows = [(QCoreApplication.translate("ReplyInfo", "Target"), produced_by.target or "?")]
    drafter = produced_by.drafter or DrafterKind.NONE.value
    if drafter == DrafterKind.MODEL:
        rows.append(
            (
                QCoreApplication.translate("ReplyInfo", "Drafter"),
                QCoreApplication.translate("ReplyInfo", "draft model {name}").format(name=produced_by.draft or "?"),
            )
        )
    elif drafter == DrafterKind.HYBRID and produced_by.draft:
        # The header names the pair in short: the draft's file is named whole here.
        rows.append(
            (
                QCoreApplication.translate("ReplyInfo", "Drafter"),
                QCoreApplication.translate(
                    "ReplyInfo", "hybrid: prompt lookup where trusted, else draft model {name}"
                ).format(name=produced_by.draft),
            )
        )
    else:
        rows.append(
            (
                QCoreApplication.translate("ReplyInfo", "Drafter"),
                QCoreApplication.translate("ReplyInfo", _DRAFTER_WORDS.get(drafter, drafter)),
            )
        )
    rows.append(
        (
            QCoreApplication.translate("ReplyInfo", "Draft length"),
            produced_by.draft_policy or QCoreApplication.translate("ReplyInfo", "none"),
        )
    )
    sampling = produced_by.sampling
    if sampling is not None:
        rows.append(
            (
                QCoreApplication.translate("ReplyInfo", "Temperature"),
                QCoreApplication.translate("ReplyInfo", "greedy")
                if sampling.temperature == 0
                else number(sampling.temperature, "g"),
            )
        )
        rows.append(
            (
                QCoreApplication.translate("ReplyInfo", "Sampling"),
                QCoreApplication.translate("ReplyInfo", "top-k {k}, top-p {p}, min-p {m}, repeat penalty {r}").format(
                    k=sampling.top_k,
                    p=number(sampling.top_p),
                    m=number(sampling.min_p),
                    r=number(sampling.repeat_penalty),
                ),
            )
        )
        rows.append((QCoreApplication.translate("ReplyInfo", "Max tokens"), str(sampling.max_tokens)))
    seed = produced_by.seed
    rows.append(
        (
            QCoreApplication.translate("ReplyInfo", "Seed"),
            QCoreApplication.translate("ReplyInfo", "fresh random (not recorded)") if seed is None else str(seed),
        )
    )
    system = produced_by.system_prompt
    shown = system if len(system) <= _SYSTEM_SHOWN else system[:_SYSTEM_SHOWN] + "…"
    rows.append(
        (
            QCoreApplication.translate("ReplyInfo", "System prompt"),
            shown or QCoreApplication.translate("ReplyInfo", "(none)"),
        )
    )
    if produced_by.output_format is not None:  # a free-text reply shows no row, as before
        rows.append((QCoreApplication.translate("ReplyInfo", "Output format"), produced_by.output_format.words()))
    prompt = record.prompt_tokens
    if prompt is not None:
        reused = record.prompt_reused
        words = QCoreApplication.translate("ReplyInfo", "{prompt} tokens: {reused} reused from the cache, {read} read")
        rows.append(
            (
                QCoreApplication.translate("ReplyInfo", "Prompt"),
                words.format(prompt=prompt, reused=reused, read=max(0, prompt - reused)),
            )
        )
    figures = record.prompt_figures
    if figures is not None:
        rate = figures.prompt_tokens_per_second
        speed = (
            ", " + QCoreApplication.translate("ReplyInfo", "{rate} prompt tokens/s").format(rate=number(rate, ",.0f"))
            if rate is not None
            else ""
        )
        rows.append(
            (QCoreApplication.translate("ReplyInfo", "Prefill"), f"{number(figures.prefill_ms, ',.0f')} ms{speed}")
        )
        rows.append(
            (
                QCoreApplication.translate("ReplyInfo", "First token"),
                f"{number(figures.time_to_first_token_ms, ',.0f')} ms",
            )
        )
    elif record.stats is not None and "prefill_s" in record.stats:  # a reply from before the first token was timed
        rows.append(
            (QCoreApplication.translate("ReplyInfo", "Prefill"), f"{number(record.stat('prefill_s') * 1000, '.0f')} ms")
        )
        rows.append((QCoreApplication.translate("ReplyInfo", "First token"), "—"))
    if record.continued:
        continued = QCoreApplication.translate("ReplyInfo", "{n}× (the numbers are the last part's)").format(
            n=record.continued
        )
        rows.append((QCoreApplication.translate("ReplyInfo", "Continued"), continued))
    return rows


def provenance_html(record: ReplyRecord) -> str:
    """Rich text for the popup and the hover card."""
    rows = "".join(_row(name, html.escape(value)) for name, value in provenance_rows(record))
    title = html.escape(QCoreApplication.translate("ReplyInfo", "What produced this reply"))
    return f"<p><b>{title}</b></p><table cellspacing='0' cellpadding='1'>{rows}</table>"
