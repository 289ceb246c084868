"""Errors that carry a message meant for the user, not a traceback."""

from __future__ import annotations

import abc


class TandemError(Exception):
    """Base of every error whose ``str`` is a complete, user-readable sentence."""


# What to do about memory running out, in the same words wherever it is said.
OUT_OF_MEMORY_HINT = "close other programs, or choose a smaller model or context size"


class OutOfMemoryError(TandemError):
    """Loading a model or making its context ran out of memory: raised where llama.cpp fails, for every front end."""

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
    """llama.cpp could not create a context of the size asked for.

    ``out_of_memory`` is set when llama.cpp said so (an allocation failed);
    without that word from it, a size the model was trained for most likely
    failed for memory too, and a larger one is advised down to the trained size.
    """

    def __init__(self, model: str, n_ctx: int, n_ctx_train: int | None, out_of_memory: bool = False) -> None:
        super().__init__(model, n_ctx, n_ctx_train, out_of_memory)
        self.model = model
        self.n_ctx = n_ctx
        self.n_ctx_train = n_ctx_train
        self.out_of_memory = out_of_memory

    def _message(self, setting: str) -> str:
        head = f"a context of {self.n_ctx} tokens could not be created for {self.model}"
        if self.n_ctx_train and self.n_ctx > self.n_ctx_train:
            cause = ": out of memory" if self.out_of_memory else ""
            trained = self.n_ctx_train
            return f"{head}{cause}; the model was trained for {trained}: set {setting} to {trained} or less"
        cause = "out of memory" if self.out_of_memory else "most likely out of memory"
        return f"{head}: {cause}: close other programs, or lower {setting}, or choose a smaller model"


class IncompatiblePairError(TandemError):
    """The draft model cannot draft for the target: their vocabularies differ."""
