"""Reading an export within limits: size, nesting, number size and lone surrogates, on real files and real SQLite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine.store import exchange
from app.engine.store.conversations import ChatStore
from app.engine.store.exchange import MAX_DEPTH, ImportFormatError, check_document, read_export_file


def _export(meta: object = None, content: str = "hello", created: object = 1.0) -> dict:
    message = {"id": 1, "parent": None, "role": "user", "content": content, "created": created, "meta": meta or {}}
    return {"format": "tandem-conversation", "version": 2, "title": "t", "messages": [message]}


def _nested(depth: int) -> object:
    value: object = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_nesting_up_to_the_limit_imports_and_one_more_level_is_refused(tmp_path: Path) -> None:
    # The export's own levels (document, messages, message, meta, "x") come before the nested lists.
    fits = _export({"x": _nested(MAX_DEPTH - 4)})
    check_document(fits)
    with pytest.raises(ImportFormatError, match=f"nested deeper than {MAX_DEPTH}"):
        check_document(_export({"x": _nested(MAX_DEPTH - 3)}))
    store = ChatStore(tmp_path / "conversations.sqlite3")
    try:
        new_id = store.import_json(fits)
        assert store.messages(new_id)[0].meta == fits["messages"][0]["meta"]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (_export(created=10**19), "larger than 64 bits"),
        (_export({"seed": -(2**63) - 1}), "larger than 64 bits"),
        (_export(content="a\ud800b"), "lone surrogate"),
        (_export({"\udc80key": 1}), "lone surrogate"),  # keys are text too
    ],
)
def test_what_sqlite_cannot_hold_is_refused_and_nothing_is_written(tmp_path: Path, data: dict, words: str) -> None:
    store = ChatStore(tmp_path / "conversations.sqlite3")
    try:
        with pytest.raises(ImportFormatError, match=words):
            store.import_json(data)
        assert store.list_conversations() == []
    finally:
        store.close()
    check_document(_export(created=2**63 - 1, meta={"seed": -(2**63)}))  # the limits themselves are fine


def test_the_file_is_read_only_up_to_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(_export(content="x" * 5000)))
    assert read_export_file(path) == _export(content="x" * 5000)
    monkeypatch.setattr(exchange, "MAX_EXPORT_BYTES", 4096)
    with pytest.raises(ImportFormatError, match="larger than"):
        read_export_file(path)


def test_parser_limits_are_one_line(tmp_path: Path) -> None:
    cases = {
        "deep.json": ("[" * 200_000 + "]" * 200_000, "nested deeper than"),
        "digits.json": ('{"id": ' + "1" * 5000 + "}", "more than 4300 digits"),
    }
    for name, (text, words) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(ImportFormatError, match=words) as refused:
            read_export_file(path)
        assert "\n" not in str(refused.value)
