"""Sentences made below the window: English when printed, translatable and locale-written when rendered."""

from __future__ import annotations

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words, words_of

SIZE = QT_TRANSLATE_NOOP("Units", "{value:.1f} GB")
SPEED = QT_TRANSLATE_NOOP("Verdict", "{ratio:.2f}x the target alone on {model} ({size})")


def _german(context: str, source: str) -> str:
    if (context, source) == (SPEED.context, SPEED.source):
        return "{ratio:.2f}x des Ziels allein bei {model} ({size})"
    return source


def _comma(value: int | float, spec: str) -> str:
    return format(value, spec).translate({ord("."): ",", ord(","): "."})


def test_printed_as_english_with_python_numbers() -> None:
    sentence = SPEED.fill(ratio=1.5, model="q.gguf", size=SIZE.fill(value=1.04))
    assert str(sentence) == "1.50x the target alone on q.gguf (1.0 GB)"
    assert isinstance(sentence, Words) and sentence.phrase == Phrase("Verdict", SPEED.source)


def test_rendered_with_the_readers_template_and_numbers_nested_too() -> None:
    sentence = SPEED.fill(ratio=1.5, model="q.gguf", size=SIZE.fill(value=1.04))
    assert sentence.render(_german, _comma) == "1,50x des Ziels allein bei q.gguf (1,0 GB)"


def test_strings_and_booleans_are_not_numbers() -> None:
    sentence = QT_TRANSLATE_NOOP("X", "{a} {b} {c:,}").fill(a="1.5", b=True, c=12345)
    assert sentence.render(lambda _c, s: s, _comma) == "1.5 True 12.345"


def test_an_error_made_with_words_gives_them_back() -> None:
    sentence = SIZE.fill(value=2.0)
    error = ValueError(sentence)
    assert str(error) == "2.0 GB" and words_of(error) is sentence
    assert words_of(ValueError("plain")) is None and words_of(ValueError(sentence, 2)) is None
    assert str(QT_TRANSLATE_NOOP("X", "no {{fields}}")) == "no {fields}"
