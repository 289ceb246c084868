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

from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.conversation.output_format import OutputFormat, OutputKind
from app.core.decoding.events import FinishedEvent
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


def _run(pair: LoadedPair, n: int, temperature: float, drafter: str, k: int, schema: bool) -> list[dict[str, Any]]:
    """One row per reply: valid (None without a schema), drafted, accepted, emitted, seconds."""
    output = OutputFormat(OutputKind.JSON_SCHEMA, SCHEMA, strict=True) if schema else None
    rows: list[dict[str, Any]] = []
    for i in range(n):
        settings = ChatSettings(
            temperature=temperature, seed=i, max_tokens=160, drafter=drafter, draft_length=k, adaptive=False
        )
        request = ReplyRequest(settings, (Message("user", PROMPTS[i % len(PROMPTS)]),), output_format=output)
        plan = plan_reply(pair, request)
        started = time.perf_counter()
        finished = [e for e in run_reply(pair, plan) if isinstance(e, FinishedEvent)][-1]
        seconds = time.perf_counter() - started
        stats = finished.stats
        valid: bool | None = None
        problem = ""
        if schema:
            try:
                jsonschema.validate(json.loads(finished.text), SCHEMA)
                valid = True
            except (ValueError, jsonschema.ValidationError) as exc:
                valid = False
                problem = f"seed {i}, finish {finished.reason}: {str(exc).splitlines()[0]}: {finished.text!r}"
                print(problem)
        rows.append(
            {
                "valid": valid,
                "drafted": stats.drafted,
                "accepted": stats.accepted,
                "emitted": stats.emitted,
                "seconds": seconds,
                "problem": problem,
            }
        )
    return rows


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    drafted = sum(r["drafted"] for r in rows)
    accepted = sum(r["accepted"] for r in rows)
    emitted = sum(r["emitted"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    checked = [r["valid"] for r in rows if r["valid"] is not None]
    return {
        "replies": len(rows),
        "valid": f"{sum(checked)}/{len(checked)}" if checked else "-",
        "acceptance": round(accepted / drafted, 3) if drafted else None,
        "tokens_per_s": round(emitted / seconds, 2) if seconds else None,
        "tokens": emitted,
        "invalid": [r["problem"] for r in rows if r["problem"]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", choices=("small", "demo"), default="demo")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--draft-max", type=int, default=4)
    parser.add_argument("--ctx", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--speed-n",
        type=int,
        default=None,
        help="replies per mode for the speed comparison (default --n); schema+draft still runs --n for validity",
    )
    parser.add_argument("--json", default=None, help="write the figures here")
    parser.add_argument("--only", default=None, help="run only this mode (schema+draft, free+draft, schema+target)")
    args = parser.parse_args()
    speed_n = min(args.speed_n or args.n, args.n)
    install = install_demo_pair if args.pair == "demo" else install_small_pair
    target, draft = install(models_dir())
    report: dict[str, Any] = {
        "n": args.n,
        "speed_n": speed_n,
        "temperature": args.temperature,
        "draft_max": args.draft_max,
    }
    with LoadedPair(PairConfig(target, draft, n_ctx=args.ctx, n_threads=args.threads)) as pair:
        modes = {
            "schema+draft": ("hybrid", True, args.n),
            "free+draft": ("hybrid", False, speed_n),
            "schema+target": ("none", True, speed_n),
        }
        for name, (drafter, schema, n) in modes.items():
            if args.only and name != args.only:
                continue
            rows = _run(pair, n, args.temperature, drafter, args.draft_max, schema)
            whole, same = _summary(rows), _summary(rows[:speed_n])
            report[name] = {"all": whole, "speed_set": same}
            print(
                f"{name:14} valid {whole['valid']:>8}  acceptance {same['acceptance']}  "
                f"tok/s {same['tokens_per_s']} (first {speed_n} replies)"
            )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=2)


if __name__ == "__main__":
    main()
