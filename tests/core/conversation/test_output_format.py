"""The output-format record and a chat's JSON schema setting."""

from __future__ import annotations

import pytest

from app.core.conversation.chat_settings import ChatSettings
from app.core.conversation.output_format import (
    OutputFormat,
    OutputFormatError,
    OutputKind,
    chat_output_format,
    schema_from_text,
)


def test_json_mode_enforces_an_object_and_a_schema_goes_with_its_kind_only() -> None:
    assert OutputFormat(OutputKind.JSON_OBJECT).schema_for_grammar() == {"type": "object"}
    assert not OutputFormat().constrained
    with pytest.raises(OutputFormatError):
        OutputFormat(OutputKind.JSON_SCHEMA)
    with pytest.raises(OutputFormatError):
        OutputFormat(OutputKind.JSON_OBJECT, {"type": "object"})


def test_a_chats_schema_setting_is_strict_and_empty_means_free_text() -> None:
    assert chat_output_format("  \n") is None
    output = chat_output_format('{"type": "array"}')
    assert output == OutputFormat(OutputKind.JSON_SCHEMA, {"type": "array"}, strict=True)


@pytest.mark.parametrize(("text", "words"), [('{"type": ', "is not JSON"), ("[1]", "must be a JSON object")])
def test_a_schema_that_is_not_a_json_object_is_one_line(text: str, words: str) -> None:
    with pytest.raises(OutputFormatError, match=words) as caught:
        schema_from_text(text, "the schema")
    assert "\n" not in str(caught.value)


def test_the_setting_is_kept_and_a_bad_stored_value_falls_back_to_free_text() -> None:
    settings = ChatSettings(json_schema='{"type": "object"}')
    assert ChatSettings.from_dict(settings.to_dict()) == settings
    assert ChatSettings.from_dict({"json_schema": 42}).json_schema == ""
    assert ChatSettings.from_dict({}).json_schema == ""
