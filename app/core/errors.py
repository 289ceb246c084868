"""Errors that carry a message meant for the user, not a traceback."""

from __future__ import annotations


class TandemError(Exception):
    """Base of every error whose ``str`` is a complete, user-readable sentence."""


class PromptTooLongError(TandemError):
    """The prompt leaves no room in the context for a reply."""

    def __init__(self, n_prompt: int, n_ctx: int) -> None:
        super().__init__(
            f"the prompt is {n_prompt} tokens but the context holds {n_ctx}; "
            "shorten the prompt or raise the context size (--ctx)"
        )
        self.n_prompt = n_prompt
        self.n_ctx = n_ctx


class IncompatiblePairError(TandemError):
    """The draft model cannot draft for the target: their vocabularies differ."""
