"""The records the window and its engine thread pass each other: jobs, what a load found, run results.

Kept apart from :mod:`app.ui.threads.worker` (the thread that runs them) because most of the
window imports these and never the thread; ``drafter_label`` names a drafter kind in the
window's language, as replies, footers and the Stats tab say it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication

from app.core.decoding.events import FinishReason
from app.core.decoding.sampling import SamplingParams
from app.core.memory.estimate import MemoryBreakdown
from app.core.tools.call_stream import ToolDialect
from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.remote.client import ServerKind
from app.engine.reply import ReplyPlan, ReplyRequest
from app.ui.i18n import QT_TRANSLATE_NOOP

# How replies and footers name a remote server's "drafter", by what it reports.
SERVER_DRAFTER_NAMES = {
    ServerKind.TANDEM: "server (Tandem)",
    ServerKind.LLAMA_SERVER: "server (llama-server)",
    ServerKind.VLLM: "server (vLLM)",
    ServerKind.PLAIN: "server",
}

# The drafter kinds' names (settings, records and the CLI spell them in English), as the window says them.
_KIND_NAMES = {
    DrafterKind.MODEL.value: QT_TRANSLATE_NOOP("DrafterKindName", "model"),
    DrafterKind.HYBRID.value: QT_TRANSLATE_NOOP("DrafterKindName", "hybrid"),
    DrafterKind.NGRAM.value: QT_TRANSLATE_NOOP("DrafterKindName", "ngram"),
    DrafterKind.MTP.value: QT_TRANSLATE_NOOP("DrafterKindName", "mtp"),
    DrafterKind.NONE.value: QT_TRANSLATE_NOOP("DrafterKindName", "none"),
}


def drafter_label(name: str) -> str:
    """A drafter kind's name in the window's language; a server's drafter name as it is."""
    source = _KIND_NAMES.get(name)
    return QCoreApplication.translate("DrafterKindName", source) if source is not None else name


@dataclass(frozen=True, slots=True)
class RemoteInfo:
    """The server chosen in place of a local pair, as found on connecting."""

    base_url: str
    model: str
    kind: ServerKind
    note: str  # what it reports: the picker's line about draft statistics
    n_ctx: int = 0  # 0: the server does not say

    @property
    def label(self) -> str:
        """Short description for headers and the status bar."""
        host = self.base_url.split("://", 1)[-1].removesuffix("/v1")
        return f"{self.model} @ {host}"


@dataclass(frozen=True, slots=True)
class PairInfo:
    """What the window learns once a pair is loaded."""

    config: PairConfig
    target_name: str
    draft_name: str | None
    n_ctx: int
    n_vocab: int
    load_seconds: float
    measured_bytes: dict[str, int] = field(default_factory=dict)  # what loading actually took
    measured_breakdown: MemoryBreakdown | None = None  # None when llama.cpp's load log could not be read
    remote: RemoteInfo | None = None  # a server in place of the pair: ``config`` then only names its model
    tool_dialect: ToolDialect | None = None  # how the target writes tool calls (None: its template has no tools)

    @property
    def drafter_name(self) -> str:
        """The drafter as replies record it: ``model``, ``ngram``, ``none``, or ``server (kind)``."""
        return SERVER_DRAFTER_NAMES[self.remote.kind] if self.remote is not None else self.config.drafter.value


@dataclass(frozen=True, slots=True)
class GenerateJob:
    """One reply to generate: what the chat asks for (planned on the engine thread, which has the pair)."""

    request: ReplyRequest
    cancel: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True, slots=True)
class PromptInfo:
    """How the conversation was fitted into the context before a reply."""

    n_tokens: int
    dropped_messages: int
    n_ctx: int
    reused: int = 0  # prompt tokens the target's KV cache already held (not read again)
    draft_reused: int | None = None  # the same for the draft model's cache (None: no draft model)
    plan: ReplyPlan | None = None  # a reply's plan (None for a count of the context gauge)
    attachment_tokens: int = 0  # of ``n_tokens``, what the attachments take as the planner put them in


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One complete, non-streamed generation (A/B runs, sweep points)."""

    drafter: DrafterKind
    text: str
    token_ids: tuple[int, ...]
    reason: FinishReason
    stats: dict[str, Any]
    temperature: float = 0.0


@dataclass(frozen=True, slots=True)
class ComparisonJob:
    """Rerun a prompt target-only and with the drafter, or sweep temperatures with the drafter.

    ``request`` is the chat up to its last prompt, as a reply to it would be
    asked for: the runs take their prompt from the reply planner (attachments
    planned in).
    """

    request: ReplyRequest
    params: SamplingParams
    max_tokens: int = 128
    draft_length: int = 4
    adaptive: bool = False
    temperatures: tuple[float, ...] = ()  # empty: an A/B run
    repeats: int = 1  # A/B: runs per arm, interleaved, so the verdict can measure the run-to-run spread
    cancel: threading.Event = field(default_factory=threading.Event)
