"""Errors that carry a message meant for the user, not a traceback."""

from __future__ import annotations

import abc


class TandemError(Exception):
    """Base of every error whose ``str`` is a complete, user-readable sentence."""


# What to do about memory running out, in the same words wherever it is said.
OUT_OF_MEMORY_HINT = "close other programs, or choose a smaller model or context size"


class OutOfMemoryError(TandemError):
    """Loading a model or making its context ran out of memory; raised where llama.cpp fails, said by every front end."""

    def __init__(self, what: str = "") -> None:
        super().__init__(what)
        self.what = what  # what could not get its memory, "loading model.gguf"; empty when not known

    def __str__(self) -> str:
        return f"out of memory{' ' + self.what if self.what else ''}: {OUT_OF_MEMORY_HINT}"


class ContextSettingError(TandemError, metaclass=abc.ABCMeta):
    """An error whose remedy is the context size; each front end names its own setting.

    ``str`` names it neutrally ("the context size"); the CLI words it with
    ``--ctx``, the window with its settings panel's field.
    """

    def worded(self, setting: str) -> str:
        """The message with ``setting`` as the name of the context-size setting."""
        return self._message(setting)

    @abc.abstractmethod
    def _message(self, setting: str) -> str:
        """The sentence, naming the setting as ``setting``."""

    def __str__(self) -> str:
        return self._message("the context size")


class PromptTooLongError(ContextSettingError):
    """The prompt leaves no room in the context for a reply."""

    def __init__(self, n_prompt: int, n_ctx: int) -> None:
        super().__init__(n_prompt, n_ctx)
        self.n_prompt = n_prompt
        self.n_ctx = n_ctx

    def _message(self, setting: str) -> str:
        return (
            f"the prompt is {self.n_prompt} tokens but the context holds {self.n_ctx}; "
            f"shorten the prompt or raise {setting}"
        )


class ContextSizeError(ContextSettingError):
    """llama.cpp could not create a context of the size asked for."""

    def __init__(self, model: str, n_ctx: int, n_ctx_train: int | None) -> None:
        super().__init__(model, n_ctx, n_ctx_train)
        self.model = model
        self.n_ctx = n_ctx
        self.n_ctx_train = n_ctx_train

    def _message(self, setting: str) -> str:
        if self.n_ctx_train and self.n_ctx > self.n_ctx_train:
            reason = f"; the model was trained for {self.n_ctx_train}: set {setting} to {self.n_ctx_train} or less"
        else:  # llama.cpp refuses a size it can hold only when the cache's memory cannot be had
            reason = f": most likely out of memory for its cache: close other programs, or lower {setting} or choose a smaller model"
        return f"a context of {self.n_ctx} tokens could not be created for {self.model}{reason}"


class IncompatiblePairError(TandemError):
    """The draft model cannot draft for the target: their vocabularies differ."""
