"""`python main.py chat --json-schema FILE` on the real SmolLM2 pair: the reply validates; bad schemas are one line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema

from tests.cli.helpers import one_line_error, run_cli

SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string", "maxLength": 30}, "pages": {"type": "integer", "minimum": 1}},
    "required": ["title", "pages"],
    "additionalProperties": False,
}


def _pair(pair: tuple[Path, Path]) -> list[str]:
    return ["--target", str(pair[0]), "--draft", str(pair[1]), "--ctx", "512", "--threads", "1"]


def test_the_reply_matches_the_schema_at_t08_with_drafting(small_pair, tmp_path, data_dir):
    schema = tmp_path / "book.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    for seed in ("1", "2"):
        result = run_cli(
            "chat", *_pair(small_pair), "--json", "--json-schema", str(schema), "--temperature", "0.8",
            "--seed", seed, "--draft-max", "4", "--max-tokens", "80", "Describe a book as JSON.", data=data_dir,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        reply = json.loads(result.stdout)
        assert reply["finish_reason"] == "eog"
        jsonschema.validate(json.loads(reply["text"]), SCHEMA)
        assert reply["stats"]["drafted"] > 0
        # The schema that held the reply, by the file's name and the SHA-256 of its canonical JSON.
        sha = hashlib.sha256(json.dumps(SCHEMA, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()
        recorded = {"kind": "json_schema", "name": "book", "sha256": sha, "strict": True}
        assert reply["output_format"] == recorded and reply["produced_by"]["output_format"] == recorded


def test_a_bad_schema_file_is_one_line_before_any_model_loads(tmp_path, data_dir):
    missing_models = ["--target", str(tmp_path / "no-target.gguf"), "--draft", str(tmp_path / "no-draft.gguf")]
    broken = tmp_path / "broken.json"
    broken.write_text('{"type": "object",', encoding="utf-8")
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    unknown = tmp_path / "unknown.json"
    unknown.write_text('{"type": "string", "format": "no-such-format"}', encoding="utf-8")
    cases = [
        (tmp_path / "gone.json", "no such file"),
        (broken, "is not JSON"),
        (listed, "must be a JSON object"),
        (unknown, "the JSON schema cannot be used"),
    ]
    for path, words in cases:
        result = run_cli("chat", *missing_models, "--json-schema", str(path), "Hi", data=data_dir)
        one_line_error(result, words)
    remote = run_cli("chat", "--remote", "http://127.0.0.1:9", "--json-object", "Hi", data=data_dir)
    one_line_error(remote, "--json-schema and --json-object work with a one-off prompt")


def test_a_hostile_schema_file_is_one_line_before_any_model_loads(tmp_path, data_dir):
    missing_models = ["--target", str(tmp_path / "no-target.gguf"), "--draft", str(tmp_path / "no-draft.gguf")]
    many = {f"p{i}": {"type": "integer"} for i in range(600)}
    cases = {
        "cycle.json": ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
                       "refers back to itself"),
        "wide.json": ({"type": "object", "properties": many}, "has 600 optional properties"),
        "repeats.json": ({"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000}},
                         "repetitions"),
        "pattern.json": ({"type": "string", "minLength": 50, "pattern": "^(a{1,100}){1,100}$"},
                         "nests counted repetitions"),
    }  # fmt: skip
    for name, (schema, words) in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(schema), encoding="utf-8")
        result = run_cli("chat", *missing_models, "--json-schema", str(path), "Hi", data=data_dir)
        one_line_error(result, words)
    deep = tmp_path / "deep.json"
    deep.write_text('{"anyOf": [' * 600 + '{"type": "integer"}' + "]}" * 600, encoding="utf-8")  # 1,200 levels
    result = run_cli("chat", *missing_models, "--json-schema", str(deep), "Hi", data=data_dir)
    one_line_error(result, "nests its JSON too deep")
