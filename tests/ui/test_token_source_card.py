"""The token card says which drafter proposed an accepted draft token (prompt lookup or the draft model)."""

from __future__ import annotations

from app.engine.store.conversations import StoredToken
from app.ui.chat.view import ChatView, ViewMessage


def _card_of(view: ChatView, text: str) -> str:
    position = view.document().toPlainText().index(text)
    card = view.tooltip_at_position(position + 1)
    assert card is not None
    return card


def test_the_card_names_the_drafter_of_each_draft_token(qapp) -> None:
    view = ChatView()
    tokens = [
        StoredToken("copied ", "draft", 0.9, 1.0, source="lookup"),
        StoredToken("guessed ", "draft", 0.8, 0.7, source="model"),
        StoredToken("own", "target", 0.6),
    ]
    view.set_messages([ViewMessage("assistant", tokens=tokens)])
    assert "proposed by" in _card_of(view, "copied") and "prompt lookup" in _card_of(view, "copied")
    assert "the draft model" in _card_of(view, "guessed")
    assert "proposed by" not in _card_of(view, "own")  # the target's own token has no drafter
    view.close()
