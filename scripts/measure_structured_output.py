"""Measure structured output on a pair: schema validity, acceptance and speed beside free text and target alone.

Runs ``--n`` replies per mode on the same prompts and seeds, at ``--temperature``
(0.8 by default) with a fixed draft length (``--draft-max``, 4):

* ``schema+draft``: the JSON schema below, drafting on (hybrid): how many replies parse and validate;
* ``free+draft``: the same prompts without a schema, drafting on;
* ``schema+target``: the schema, no drafter (target alone).

For each: valid replies (schema modes), acceptance (accepted / drafted) and generated tokens per second.

    .venv/bin/python scripts/measure_structured_output.py --pair demo [--n 100] [--ctx 2048] [--threads N]

Speeds depend on the machine and its load: run it on a quiet one.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the venv; scripts are not type-checked

from app.core.chat import Message
from app.core.chat_settings import ChatSettings
from app.core.decoding.events import FinishedEvent
from app.core.output_format import OutputFormat, OutputKind
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.models.packaged import install_demo_pair, install_small_pair
from app.engine.paths import models_dir
from app.engine.reply import ReplyRequest, plan_reply, run_reply

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 40},
        "age": {"type": "integer", "minimum": 0, "maximum": 130},
        "languages": {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 4},
        "employed": {"type": "boolean"},
    },
    "required": ["name", "age", "languages", "employed"],
    "additionalProperties": False,
}
PROMPTS = [
    "Describe a software engineer as JSON.",
    "Give me a made-up person who speaks several languages, as JSON.",
    "Invent a retired teacher and describe them in JSON.",
    "Return a JSON record of a student.",
]


def _run(pair: LoadedPair, n: int, temperature: float, drafter: str, k: int, schema: bool) -> dict[str, Any]:
    output = OutputFormat(OutputKind.JSON_SCHEMA, SCHEMA, strict=True) if schema else None
    valid = drafted = accepted = emitted = 0
    seconds = 0.0
    for i in range(n):
        settings = ChatSettings(
            temperature=temperature, seed=i, max_tokens=160, drafter=drafter, draft_length=k, adaptive=False
        )
        request = ReplyRequest(settings, (Message("user", PROMPTS[i % len(PROMPTS)]),), output_format=output)
        plan = plan_reply(pair, request)
        started = time.perf_counter()
        finished = [e for e in run_reply(pair, plan) if isinstance(e, FinishedEvent)][-1]
        seconds += time.perf_counter() - started
        stats = finished.stats
        drafted, accepted, emitted = drafted + stats.drafted, accepted + stats.accepted, emitted + stats.emitted
        if schema:
            try:
                jsonschema.validate(json.loads(finished.text), SCHEMA)
                valid += 1
            except (ValueError, jsonschema.ValidationError):
                pass
    return {
        "valid": f"{valid}/{n}" if schema else "-",
        "acceptance": f"{accepted / drafted:.2f}" if drafted else "-",
        "tokens_per_s": f"{emitted / seconds:.1f}" if seconds else "-",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", choices=("small", "demo"), default="demo")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--draft-max", type=int, default=4)
    parser.add_argument("--ctx", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    install = install_demo_pair if args.pair == "demo" else install_small_pair
    target, draft = install(models_dir())
    with LoadedPair(PairConfig(target, draft, n_ctx=args.ctx, n_threads=args.threads)) as pair:
        modes = {
            "schema+draft": ("hybrid", True),
            "free+draft": ("hybrid", False),
            "schema+target": ("none", True),
        }
        for name, (drafter, schema) in modes.items():
            row = _run(pair, args.n, args.temperature, drafter, args.draft_max, schema)
            print(f"{name:14} valid {row['valid']:>8}  acceptance {row['acceptance']:>5}  tok/s {row['tokens_per_s']}")


if __name__ == "__main__":
    main()
