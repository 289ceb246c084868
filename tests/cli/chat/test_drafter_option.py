"""`--drafter`: hybrid by default with a draft model; model, n-gram and none stay available."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import build_parser
from app.cli.chat.options import drafter_kind
from app.core.errors import TandemError
from app.engine.llama.session import DrafterKind

DRAFT = Path("draft.gguf")


def _kind(*argv: str, draft: Path | None = DRAFT) -> DrafterKind:
    return drafter_kind(build_parser().parse_args(["chat", *argv, "hello"]), draft)


def test_a_draft_model_drafts_hybrid_unless_told_otherwise() -> None:
    assert _kind() is DrafterKind.HYBRID
    assert _kind("--drafter", "model") is DrafterKind.MODEL
    assert _kind("--drafter", "ngram") is DrafterKind.NGRAM
    assert _kind("--drafter", "none") is DrafterKind.NONE
    assert _kind("--ngram") is DrafterKind.NGRAM
    assert _kind("--no-draft") is DrafterKind.NONE
    assert _kind(draft=None) is DrafterKind.NGRAM  # no draft model: prompt lookup
    assert _kind("--drafter", "mtp", draft=None) is DrafterKind.MTP  # the target's own layers: no second file


def test_a_drafter_that_needs_a_model_says_so_without_one() -> None:
    with pytest.raises(TandemError, match="--drafter hybrid needs a draft model"):
        _kind("--drafter", "hybrid", draft=None)
    with pytest.raises(SystemExit):
        _kind("--drafter", "eagle")
