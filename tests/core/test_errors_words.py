"""Errors meant for the user: the English sentence unchanged, the same sentence as translatable Words."""

from __future__ import annotations

from app.core.attachments.context import AttachmentContext
from app.core.decoding.events import PromptFigures
from app.core.display.wording import QT_TRANSLATE_NOOP, Words, words_of
from app.core.errors import ContextSizeError, OutOfMemoryError, PromptTooLongError

_GERMAN = {
    "the prompt is {n_prompt} tokens but the context holds {n_ctx}; shorten the prompt or raise {setting}": (
        "der Prompt hat {n_prompt} Tokens, aber der Kontext fasst {n_ctx}; erhöhen Sie {setting}"
    ),
    "prompt {rate:,.0f} tok/s": "Prompt {rate:,.0f} Tok./s",
    "out of memory {what}: {hint}": "Speicher erschöpft beim {what}: {hint}",
    "loading {name}": "Laden von {name}",
}


def _german(_context: str, source: str) -> str:
    return _GERMAN.get(source, source)


def _marks(value: int | float, spec: str) -> str:
    return format(value, spec).translate({ord("."): ",", ord(","): "."})


def test_the_english_sentences_are_unchanged() -> None:
    assert str(OutOfMemoryError()) == "out of memory: close other programs, or choose a smaller model or context size"
    error = PromptTooLongError(5000, 4096)
    assert str(error) == (
        "the prompt is 5000 tokens but the context holds 4096; shorten the prompt or raise the context size"
    )
    assert error.worded("--ctx").endswith("raise --ctx")
    assert str(ContextSizeError("m.gguf", 8192, 4096, True)) == (
        "a context of 8192 tokens could not be created for m.gguf: out of memory; "
        "the model was trained for 4096: set the context size to 4096 or less"
    )
    assert str(ContextSizeError("m.gguf", 2048, 4096)) == (
        "a context of 2048 tokens could not be created for m.gguf: most likely out of memory: "
        "close other programs, or lower the context size, or choose a smaller model"
    )


def test_an_error_with_its_own_str_gives_its_words_and_names_any_setting() -> None:
    error = PromptTooLongError(5000, 4096)
    sentence = words_of(error)
    assert isinstance(sentence, Words) and str(sentence) == str(error)
    named = error.words(QT_TRANSLATE_NOOP("X", "the setting").fill())
    assert (
        named.render(_german, _marks)
        == "der Prompt hat 5000 Tokens, aber der Kontext fasst 4096; erhöhen Sie the setting"
    )


def test_what_ran_out_of_memory_is_rendered_too() -> None:
    error = OutOfMemoryError(QT_TRANSLATE_NOOP("LlamaModel", "loading {name}").fill(name="q.gguf"))
    assert str(error).startswith("out of memory loading q.gguf: close other programs")
    assert error.words().render(_german, _marks).startswith("Speicher erschöpft beim Laden von q.gguf: ")


def test_prompt_figures_keep_their_numbers_for_the_reader() -> None:
    figures = PromptFigures(4000, 900, 1234.5, 1300.0)
    assert figures.words() == "first token 1,300 ms  ·  prompt 2,510 tok/s  ·  900 of 4,000 prompt tokens from cache"
    assert "Prompt 2.510 Tok./s" in figures.sentence().render(_german, _marks)


def test_a_forced_whole_documents_notice_prints_english() -> None:
    words = QT_TRANSLATE_NOOP(
        "AttachmentContext",
        "{name} does not fit whole ({tokens:,} tokens, {free:,} free in the context): "
        "the passages that best answer were used instead",
    ).fill(name="a.txt", tokens=12345, free=100)
    context = AttachmentContext((), (), (), (words,), 0, 0)
    assert context.notices == (
        "a.txt does not fit whole (12,345 tokens, 100 free in the context): "
        "the passages that best answer were used instead",
    )
    assert "12.345" in context.notice_words[0].render(_german, _marks)
