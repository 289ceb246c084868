"""Hybrid drafting in the window: the default drafter, and which drafter proposed a token (card and statistics)."""

from __future__ import annotations

from app.core.decoding.stats import GenerationStats
from app.core.reply.token_record import TokenRecord
from app.engine.llama.session import DrafterKind
from app.ui.chat.view.chat_view import ChatView, ViewMessage
from app.ui.models.pair_picker import PairPicker
from app.ui.stats.stats_panel import StatsPanel
from app.ui.threads.background import Background


def _card_of(view: ChatView, text: str) -> str:
    position = view.document().toPlainText().index(text)
    card = view.tooltip_at_position(position + 1)
    assert card is not None
    return card


def test_the_card_names_the_drafter_of_each_draft_token(qapp) -> None:
    view = ChatView()
    tokens = [
        TokenRecord(text="copied ", origin="draft", p_target=0.9, q_draft=1.0, source="lookup"),
        TokenRecord(text="guessed ", origin="draft", p_target=0.8, q_draft=0.7, source="model"),
        TokenRecord(text="own", origin="target", p_target=0.6),
    ]
    view.set_messages([ViewMessage("assistant", tokens=tokens)])
    assert "proposed by" in _card_of(view, "copied") and "prompt lookup" in _card_of(view, "copied")
    assert "the draft model" in _card_of(view, "guessed")
    assert "proposed by" not in _card_of(view, "own")  # the target's own token has no drafter
    view.close()


def test_the_statistics_count_a_hybrids_two_drafters_apart(qapp) -> None:
    panel = StatsPanel()
    try:
        panel.reset("hybrid", True)
        stats = GenerationStats(steps=4, emitted=20, drafted=18, accepted=16)
        stats.by_source = {"lookup": [12, 12], "model": [6, 4]}
        panel.update_stats(stats)
        assert panel.acceptance.text() == "89%  (16/18)  · lookup 12/12, model 4/6"
        stats.by_source = {"model": [18, 16]}  # one drafter: nothing to tell apart
        panel.update_stats(stats)
        assert panel.acceptance.text() == "89%  (16/18)"
    finally:
        panel.deleteLater()


def test_the_pair_picker_offers_hybrid_first_and_chooses_it_by_default(qapp) -> None:
    picker = PairPicker(Background())
    try:
        assert next(iter(picker.kind_buttons)) is DrafterKind.HYBRID
        assert picker.drafter_kind() is DrafterKind.HYBRID
        assert set(picker.kind_buttons) == set(DrafterKind)  # model, n-gram and none stay available
    finally:
        picker.deleteLater()
