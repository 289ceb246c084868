"""How a stored reply reads on screen: its footer, its action line, its header label and its Info.

Pure functions of a message and its typed record
(:class:`~app.core.reply.record.ReplyRecord`), so the view, the controller and
the tests all word a reply the same way. The footer says in words what
drafting did: the acceptance and mean accepted length, why the adaptive
controller kept the draft off, or that a server reported nothing; and how the
prompt was read (time to first token, prompt tokens per second, how many came
from the cache; "—" for a reply stored before these were kept).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication

from app.core.decoding.drafters import DrafterKind
from app.core.decoding.events import FinishReason
from app.core.decoding.stats import GenerationStats, PromptFigures
from app.core.display.model_names import short_model_name, short_pair_name
from app.core.reply.record import STORE_ERROR_REASON, ReplyRecord
from app.core.reply.token_record import TokenRecord
from app.engine.llama.session import PairConfig
from app.engine.reply import pair_label
from app.engine.store import conversations
from app.engine.store.conversations import StoredMessage
from app.ui.chat.reply.info import provenance_html
from app.ui.chat.view.chat_view import ViewMessage
from app.ui.i18n import QT_TRANSLATE_NOOP
from app.ui.i18n.words import number, say
from app.ui.threads.jobs import PairInfo, drafter_label

_REASONS = {
    FinishReason.EOG: "",
    FinishReason.STOP_STRING: "",
    FinishReason.MAX_TOKENS: QT_TRANSLATE_NOOP("ReplyWords", "stopped at the token limit"),
    FinishReason.CONTEXT_FULL: QT_TRANSLATE_NOOP(
        "ReplyWords", "the context is full: start a new chat or raise the context size"
    ),
    FinishReason.CANCELLED: QT_TRANSLATE_NOOP("ReplyWords", "stopped"),
}


_DRAFTERS = frozenset(kind.value for kind in DrafterKind)
_FINISH_REASONS = frozenset(reason.value for reason in FinishReason)


def message_actions(message: StoredMessage, last: bool) -> tuple[str, ...]:
    """What a stored message offers in its action line (keys of :data:`app.ui.chat.view.chat_view.ACTION_LABELS`)."""
    if message.role == "user":
        # A question left without an answer (its reply deleted, or never written) can be answered again.
        return ("generate", "edit", "delete") if last else ("edit", "delete")
    if message.role != "assistant":
        return ("delete",)
    actions: list[str] = ["regenerate"]
    if message.state in (conversations.DONE, conversations.INTERRUPTED, conversations.FAILED) and message.content:
        actions.append("edit")  # the user's corrected text becomes the reply's sibling
    record = ReplyRecord.from_meta(message.meta)
    if last and (record.continuable or message.state == conversations.INTERRUPTED):
        actions.append("continue")
    actions.append("delete")
    if record.produced_by is not None:
        actions.append("info")
    actions.append("steps")  # the step view (it says so when the reply has no step records)
    return tuple(actions)


def end_announcement(reason: FinishReason | str, emitted: int) -> str:
    """What a screen reader is told when a reply ends: finished, or why it stopped, and how long it is."""
    why = _REASONS.get(FinishReason(reason), "") if reason in _FINISH_REASONS else ""
    if why:
        return QCoreApplication.translate("ReplyWords", "the reply ended after {n} tokens: {why}").format(
            n=emitted, why=QCoreApplication.translate("ReplyWords", why)
        )
    return QCoreApplication.translate("ReplyWords", "the reply is finished: {n} tokens").format(n=emitted)


def info_label(info: PairInfo, drafter: DrafterKind | None = None) -> str:
    """What answers, for headers, the status bar and a reply's record: a server's model and address, or the pair
    as ``drafter`` used it (a chat may draft with n-gram lookup on a pair loaded with a draft model)."""
    if info.remote is not None:
        return info.remote.label
    return pair_label(info.config, drafter)


def reply_header(record: ReplyRecord) -> str:
    """A reply's header: the pair in short ("SmolLM2 360M + 135M"), else the label it was stored with.

    The short form is read from the file names the reply records (its Info shows them whole); a
    server's reply, or one stored before replies recorded what produced them, keeps its label.
    """
    produced = record.produced_by
    drafter = DrafterKind(produced.drafter) if produced is not None and produced.drafter in _DRAFTERS else None
    if produced is None or drafter is None or not produced.target:
        return record.pair
    return short_pair_label(produced.target, produced.draft, drafter)


def short_pair_label(target: str, draft: str | None, drafter: DrafterKind) -> str:
    """The pair in short as ``drafter`` uses it: "SmolLM2 360M + 135M", "SmolLM2 360M + n-gram", "…, target only"."""
    if drafter.uses_draft_model and draft:
        return short_pair_name(target, draft)
    name = short_model_name(target)
    if drafter.uses_own_layers:
        return f"{name} + its MTP layers"
    return f"{name} + n-gram" if drafter is DrafterKind.NGRAM else f"{name}, target only"


def loaded_pair_words(config: PairConfig) -> tuple[str, str]:
    """A loaded pair as the status bar says it: the short form, and the file names in full (its tooltip)."""
    draft = config.draft.name if config.draft is not None and config.drafter.uses_draft_model else None
    short = short_pair_label(config.target.name, draft, config.drafter)
    return short, f"{config.target.name} + {draft}" if draft is not None else config.target.name


def drafter_words(info: PairInfo, drafter: DrafterKind) -> str:
    """The drafter as a reply records it: a server's kind, else the drafter the chat used."""
    return info.drafter_name if info.remote is not None else drafter.value


def drafting_words(s: dict[str, Any], drafter: str, adaptive: bool, demo_length: int) -> list[str]:
    """What drafting did in a reply, in words (the footer's middle), from its statistics summary."""
    drafted = int(s.get("drafted", 0))
    numbers = [
        QCoreApplication.translate("ReplyWords", "acceptance {share}").format(
            share=number(s.get("acceptance_rate", 0.0), ".0%")
        ),
        QCoreApplication.translate("ReplyWords", "mean accepted {length}").format(
            length=number(mean_accepted(s), ".2f")
        ),
    ]
    if drafter in ("none", ""):
        return [QCoreApplication.translate("ReplyWords", "target only")]
    if drafter.startswith("server"):  # a remote server: only what it reported
        return (
            [*numbers, drafter]
            if drafted
            else [
                QCoreApplication.translate("ReplyWords", "{drafter}: no draft statistics reported").format(
                    drafter=drafter
                )
            ]
        )
    if demo_length:
        return [
            QCoreApplication.translate("ReplyWords", "speculation demo: {n} drafted tokens every step").format(
                n=demo_length
            ),
            *numbers,
        ]
    steps, drafting = int(s.get("steps", 0)), int(s.get("drafting_steps", drafted > 0))
    copied = lookup_kept(s)
    if adaptive and steps and drafting < steps and s.get("last_draft_length", 1) == 0:
        if drafter == "ngram" and copied:
            why = QCoreApplication.translate(
                "ReplyWords", "lookup off for now, after it copied {n} tokens the target kept"
            ).format(n=copied)
        elif drafter == "ngram":
            why = QCoreApplication.translate(
                "ReplyWords", "lookup off for now: recent proposals were rejected or nothing repeated"
            )
        elif drafter == "hybrid" and copied:
            # Lookup paid in this reply: saying "no trusted repeat" under copied tokens would contradict them.
            why = QCoreApplication.translate(
                "ReplyWords",
                "draft model off: it would slow this machine down; lookup copied {n} tokens the target kept",
            ).format(n=copied)
        elif drafter == "hybrid":
            why = QCoreApplication.translate(
                "ReplyWords", "draft off: it would slow this machine down, and no trusted repeat to look up"
            )
        else:
            why = QCoreApplication.translate("ReplyWords", "draft off: it would slow this machine down")
        if drafted:
            measured = QCoreApplication.translate(
                "ReplyWords", "measured in {drafting} of {steps} steps, acceptance {share}"
            )
            return [
                why,
                measured.format(drafting=drafting, steps=steps, share=number(s.get("acceptance_rate", 0.0), ".0%")),
            ]
        return [why]
    if not drafted:
        return [
            QCoreApplication.translate("ReplyWords", "no drafts in this reply")
            + (" " + QCoreApplication.translate("ReplyWords", "(draft length 0 in Settings)") if not adaptive else "")
        ]
    named = [
        *numbers,
        QCoreApplication.translate("ReplyWords", "drafter: {drafter}").format(drafter=drafter_label(drafter)),
    ]
    if drafter == "hybrid" and copied:
        named.append(QCoreApplication.translate("ReplyWords", "lookup copied {n} tokens").format(n=copied))
    return named


def mean_accepted(s: dict[str, Any]) -> float:
    """Accepted draft tokens per step that drafted, as the Stats tab says it (older summaries: per step)."""
    drafting, accepted = s.get("drafting_steps"), s.get("accepted")
    if isinstance(drafting, int) and isinstance(accepted, int) and drafting > 0:
        return accepted / drafting
    return float(s.get("mean_accepted_length", 0.0))


def lookup_kept(s: dict[str, Any]) -> int:
    """How many of a reply's tokens prompt lookup proposed and the target kept (its statistics summary)."""
    by_source = s.get("by_source")
    lookup = by_source.get("lookup") if isinstance(by_source, dict) else None
    kept = lookup.get("accepted", 0) if isinstance(lookup, dict) else 0
    return kept if isinstance(kept, int) and not isinstance(kept, bool) else 0


def footer_text(
    stats: GenerationStats | dict[str, Any],
    reason: FinishReason | str,
    drafter: str,
    adaptive: bool = False,
    demo_length: int = 0,
) -> str:
    """The line under a reply."""
    s = stats.to_dict() if isinstance(stats, GenerationStats) else stats
    if isinstance(stats, GenerationStats):
        s["last_draft_length"] = stats.last_draft_length
    parts = [
        QCoreApplication.translate("ReplyWords", "{n} tokens").format(n=s.get("emitted", 0)),
        QCoreApplication.translate("ReplyWords", "{rate} tok/s").format(
            rate=number(s.get("tokens_per_second", 0.0), ".1f")
        ),
    ]
    figures = PromptFigures.from_dict(s)
    parts.append(
        say(figures.sentence()) if figures is not None else QCoreApplication.translate("ReplyWords", "first token —")
    )
    parts += drafting_words(s, drafter, adaptive, demo_length)
    try:
        why = QCoreApplication.translate("ReplyWords", _REASONS.get(FinishReason(reason), ""))
    except ValueError:
        why = str(reason)
    if why:
        parts.append(why)
    return "  ·  ".join(parts)


def view_message(
    message: StoredMessage, branch: tuple[int, int] = (1, 1), actions: tuple[str, ...] = ()
) -> ViewMessage:
    """A stored turn as the view shows it; ``branch`` is its (position, count) among its siblings."""
    record = ReplyRecord.from_meta(message.meta)
    notice = ""
    if record.dropped_messages:
        # No plural form here: pyside6-lupdate marks only self.tr's counts as plurals, not translate's.
        notice = QCoreApplication.translate(
            "ReplyWords", "older messages left out of this reply to fit the context: {n}"
        )
        notice = notice.format(n=record.dropped_messages)
    footer = ""
    if message.role == "assistant":
        if message.state == conversations.INTERRUPTED:
            footer = QCoreApplication.translate(
                "ReplyWords", "interrupted: the app closed while this reply was being written"
            )
        elif record.finish_reason == STORE_ERROR_REASON:
            footer = QCoreApplication.translate("ReplyWords", "stopped: {error}").format(
                error=record.error or QCoreApplication.translate("ReplyWords", "the chat could not be saved")
            )
        elif message.state == conversations.FAILED:
            footer = QCoreApplication.translate("ReplyWords", "failed: {error}").format(
                error=record.error or QCoreApplication.translate("ReplyWords", "unknown error")
            )
        elif record.edited_from is not None:
            footer = QCoreApplication.translate(
                "ReplyWords", "edited by you: this text is yours, not the model's; later replies read it as its turn"
            )
        elif record.stats is not None:
            footer = footer_text(
                dict(record.stats), record.finish_reason or "", record.drafter, record.adaptive, record.demo_length
            )
    tokens = message.tokens
    if message.role == "assistant" and not tokens and message.content:
        tokens = [TokenRecord(text=message.content, origin="target", p_target=1.0)]
    if record.continued and footer:
        footer += "  ·  " + (
            QCoreApplication.translate("ReplyWords", "continued {n} times").format(n=record.continued)
            if record.continued > 1
            else QCoreApplication.translate("ReplyWords", "continued")
        )
    return ViewMessage(
        message.role,
        message.content,
        list(tokens),
        reply_header(record),
        notice=notice,
        footer=footer,
        message_id=message.id,
        branch=branch,
        actions=actions,
        info=provenance_html(record) if record.produced_by is not None else "",
        reasoning_inside=record.reasoning_inside,
        thinking_seconds=record.thinking_seconds,
        finish_reason=str(record.finish_reason or "") if message.role == "assistant" else "",
    )
