"""Errors that carry a message meant for the user, not a traceback.

Each prints its English sentence (``str``: the CLI, logs, ``serve``) and gives
the same sentence as :class:`~app.core.display.wording.Words` from ``words()``, so the
window renders it in its own language with its own numbers
(``app/core/display/wording.py``).
"""

from __future__ import annotations

import abc

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words


class TandemError(Exception):
    """Base of every error whose ``str`` is a complete, user-readable sentence."""


# What to do about memory running out, in the same words wherever it is said.
OUT_OF_MEMORY_HINT = QT_TRANSLATE_NOOP("Errors", "close other programs, or choose a smaller model or context size")
_OUT_OF_MEMORY = QT_TRANSLATE_NOOP("Errors", "out of memory: {hint}")
_OUT_OF_MEMORY_WHILE = QT_TRANSLATE_NOOP("Errors", "out of memory {what}: {hint}")
# How ``str`` names the context-size setting; the CLI says --ctx, the window its settings field.
CONTEXT_SIZE = QT_TRANSLATE_NOOP("Errors", "the context size")
_PROMPT_TOO_LONG = QT_TRANSLATE_NOOP(
    "Errors", "the prompt is {n_prompt} tokens but the context holds {n_ctx}; shorten the prompt or raise {setting}"
)
_CONTEXT_ABOVE_TRAINED = QT_TRANSLATE_NOOP(
    "Errors",
    "a context of {n_ctx} tokens could not be created for {model}; the model was trained for {trained}: "
    "set {setting} to {trained} or less",
)
_CONTEXT_ABOVE_TRAINED_OOM = QT_TRANSLATE_NOOP(
    "Errors",
    "a context of {n_ctx} tokens could not be created for {model}: out of memory; the model was trained for "
    "{trained}: set {setting} to {trained} or less",
)
_CONTEXT_OOM = QT_TRANSLATE_NOOP(
    "Errors",
    "a context of {n_ctx} tokens could not be created for {model}: out of memory: close other programs, "
    "or lower {setting}, or choose a smaller model",
)
_CONTEXT_LIKELY_OOM = QT_TRANSLATE_NOOP(
    "Errors",
    "a context of {n_ctx} tokens could not be created for {model}: most likely out of memory: close other "
    "programs, or lower {setting}, or choose a smaller model",
)


class OutOfMemoryError(TandemError):
    """Loading a model or making its context ran out of memory: raised where llama.cpp fails, for every front end."""

    def __init__(self, what: str | Words = "") -> None:
        super().__init__(what)
        self.what = what  # what could not get its memory, "loading model.gguf"; empty when not known

    def words(self) -> Words:
        """The sentence, translatable (``str`` is its English)."""
        if not self.what:
            return _OUT_OF_MEMORY.fill(hint=OUT_OF_MEMORY_HINT)
        return _OUT_OF_MEMORY_WHILE.fill(what=self.what, hint=OUT_OF_MEMORY_HINT)

    def __str__(self) -> str:
        return str(self.words())


class ContextSettingError(TandemError, metaclass=abc.ABCMeta):
    """An error whose remedy is the context size; each front end names its own setting.

    ``str`` names it neutrally ("the context size"); the CLI words it with
    ``--ctx``, the window with its settings panel's field (``words``, translated).
    """

    def worded(self, setting: str) -> str:
        """The message with ``setting`` as the name of the context-size setting."""
        return str(self.words(setting))

    def words(self, setting: str | Words | Phrase = CONTEXT_SIZE) -> Words:
        """The sentence, translatable, naming the setting as ``setting``."""
        return self._words(setting)

    @abc.abstractmethod
    def _words(self, setting: str | Words | Phrase) -> Words:
        """The sentence, naming the setting as ``setting``."""

    def __str__(self) -> str:
        return str(self.words())


class PromptTooLongError(ContextSettingError):
    """The prompt leaves no room in the context for a reply."""

    def __init__(self, n_prompt: int, n_ctx: int) -> None:
        super().__init__(n_prompt, n_ctx)
        self.n_prompt = n_prompt
        self.n_ctx = n_ctx

    def _words(self, setting: str | Words | Phrase) -> Words:
        return _PROMPT_TOO_LONG.fill(n_prompt=self.n_prompt, n_ctx=self.n_ctx, setting=setting)


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

    def _words(self, setting: str | Words | Phrase) -> Words:
        if self.n_ctx_train and self.n_ctx > self.n_ctx_train:
            phrase = _CONTEXT_ABOVE_TRAINED_OOM if self.out_of_memory else _CONTEXT_ABOVE_TRAINED
            return phrase.fill(n_ctx=self.n_ctx, model=self.model, trained=self.n_ctx_train, setting=setting)
        phrase = _CONTEXT_OOM if self.out_of_memory else _CONTEXT_LIKELY_OOM
        return phrase.fill(n_ctx=self.n_ctx, model=self.model, setting=setting)


class IncompatiblePairError(TandemError):
    """The draft model cannot draft for the target: their vocabularies differ."""
