"""The one tolerant reader of stored JSON: damage of every kind reads as no value with a reason, never an error."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from app.core import stored_json
from app.core.attachments.record import AttachmentUse, uses_from_json
from app.core.reply.record import Provenance


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ("{", "not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("1" * 5000, "digits"),  # Python's limit on converting long numbers
    ],
)
def test_damaged_text_is_no_value_and_a_reason(data: str | bytes, reason: str) -> None:
    stored = stored_json.parse(data)
    assert stored.value is None and not stored.ok and not stored.missing
    assert reason in stored.problem


def test_text_that_parses_is_the_value() -> None:
    assert stored_json.parse('{"a": [1, 2]}') == stored_json.Stored(value={"a": [1, 2]})
    assert stored_json.parse(None).missing  # a NULL column: nothing stored, nothing to warn about
    assert stored_json.dict_of("[1]") == {} and stored_json.dict_of(None) == {}
    assert stored_json.dict_of('{"k": 1}') == {"k": 1}
    assert stored_json.as_list({"a": 1}) == [] and stored_json.as_list([1]) == [1]


def test_a_field_of_the_wrong_type_takes_its_default() -> None:
    data = {"n": 3, "flag": True, "name": "x", "big": 2.5}
    assert stored_json.field(data, "n", int, 0) == 3
    assert stored_json.field(data, "flag", int, 0) == 0  # a bool is no count
    assert stored_json.field(data, "flag", bool, False) is True
    assert stored_json.field(data, "big", int, 7) == 7
    assert stored_json.field(data, "name", str, "") == "x"
    assert stored_json.field(data, "missing", str, "-") == "-"


def test_files_missing_damaged_and_good(tmp_path: Path) -> None:
    assert stored_json.read_file(tmp_path / "none.json").missing
    damaged = tmp_path / "damaged.json"
    damaged.write_bytes(b'{"budget": 1')  # a write cut short
    assert "not JSON" in stored_json.read_file(damaged).problem
    good = tmp_path / "good.json"
    good.write_text('{"budget": 1}', encoding="utf-8")
    assert stored_json.read_file(good).value == {"budget": 1}
    assert stored_json.read_file(good, max_bytes=4).problem == "larger than 4 bytes"
    assert stored_json.read_file(tmp_path).problem  # a folder where the file should be
    assert stored_json.file_bytes(good) == b'{"budget": 1}'
    assert stored_json.file_bytes(tmp_path / "none.json") is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_in_place_of_a_file_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "profiles.json"
    os.mkfifo(fifo)
    found: list[stored_json.Stored] = []
    # Run aside: were the reader to open the FIFO waiting for a writer, the test would time out, not hang.
    reader = threading.Thread(target=lambda: found.append(stored_json.read_file(fifo)), daemon=True)
    reader.start()
    reader.join(10)
    assert found and found[0].problem == "not a regular file"
    assert stored_json.file_bytes(fifo) is None


@pytest.mark.skipif(sys.platform == "win32", reason="no /dev/zero")
def test_a_device_is_not_read() -> None:
    assert stored_json.read_file(Path("/dev/zero")).problem == "not a regular file"


def test_attachment_uses_read_tolerantly_in_one_place() -> None:
    raw = [
        {"name": "a.txt", "sha256": "s", "whole": True, "chunks": [], "tokens": 12, "left_out": False},
        {"name": "b.pdf", "sha256": 5, "whole": "yes", "chunks": ["p. 1", 3], "tokens": "many", "left_out": 1},
        {"sha256": "no name"},
        "not an entry",
    ]
    assert uses_from_json(raw) == (
        AttachmentUse(name="a.txt", sha256="s", whole=True, tokens=12),
        AttachmentUse(name="b.pdf", sha256="", whole=False, chunks=("p. 1",)),
    )
    assert uses_from_json({"name": "a"}) == ()
    provenance = Provenance.from_dict({"attachments": raw})
    assert provenance is not None and provenance.attachments == uses_from_json(raw)
    assert AttachmentUse.from_json(raw[0].copy()) == AttachmentUse("a.txt", "s", True, (), 12)
