"""Measure the remote client against the attacks of issue 25: peak RSS and time to the error, one process per case.

Run from the repository root: ``python -m tests.engine.remote.measure_hostile``. The
hostile server runs in this process; the client runs in a child process
whose peak resident memory (``ru_maxrss``) and whose import-time memory are
both reported, so the table shows what reading the attack cost. Not a test
module (pytest does not collect it): the tests assert bounds, this prints
the numbers for the issue's closing note.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from tests.engine.remote import hostile_server as hs

CHILD = r"""
import json, resource, sys, time
from app.core.conversation.chat import Message
from app.core.decoding.sampling import SamplingParams
from app.engine.remote.client import RemoteEngine
from app.engine.remote.limits import RemoteLimits
url, what, deadline, max_tokens = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
engine = RemoteEngine(url, model=None if what == "models" else "m", limits=RemoteLimits(deadline_s=deadline))
started = time.perf_counter()
try:
    if what == "models":
        engine.list_models()
        outcome = "no error"
    else:
        events = list(engine.generate([Message("user", "Hi")], SamplingParams(temperature=0), max_tokens))
        outcome = f"finished: {events[-1].reason.value}, {len(events[-1].text)} characters"
except Exception as exc:
    outcome = str(exc)
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"base_mb": base / 1024, "peak_mb": peak / 1024, "seconds": seconds, "outcome": outcome}))
"""

HUB_CHILD = r"""
import json, os, resource, struct, sys, time
from app.engine.hub.remote import read_remote_header
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
try:
    read_remote_header("evil/Header-GGUF", "evil.gguf")
    outcome = "no error"
except Exception as exc:
    outcome = str(exc)
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"base_mb": base / 1024, "peak_mb": peak / 1024, "seconds": seconds, "outcome": outcome}))
"""


def vllm(spec: dict[str, Any]) -> hs.Script:
    return lambda c: hs.vllm_huge(c, spec)


CASES: list[tuple[str, str, hs.Script, str, float, int]] = [
    ("endless /v1/models body", "9.9 GB in 20 s", hs.endless_models, "models", 3600, 64),
    ("SSE data: line that never ends", "6 GB in 20 s", hs.endless_line, "reply", 3600, 64),
    ("HTTP 500 with an endless body", "3 GB in 5 s", hs.endless_500, "reply", 3600, 64),
    (
        "vLLM num_spec_tokens: 100000000",
        "lists of 10^8, ~40 MB/s",
        vllm({"num_spec_tokens": 100_000_000, "acceptance_histogram": [1, 2]}),
        "reply",
        3600,
        64,
    ),
    (
        "vLLM 150 KB acceptance_histogram",
        "O(n^2) loop",
        vllm({"acceptance_histogram": list(range(30_000))}),
        "reply",
        3600,
        64,
    ),
    ("keep-alive comments for ever (deadline 5 s)", "runs for ever", hs.keepalives, "reply", 5, 64),
    ("server ignores max_tokens (512)", "reads for ever", hs.too_many_tokens, "reply", 3600, 512),
    (
        "event nested 100,000 deep",
        "traceback",
        hs.events([hs.chunk("Hel"), '{"choices": ' + "[" * 100_000 + "]" * 100_000 + "}"]),
        "reply",
        3600,
        64,
    ),
    ("choices as a string", "traceback", hs.events([hs.chunk("Hel"), '{"choices": "abc"}']), "reply", 3600, 64),
]


def run_case(script: hs.Script, child: Callable[[str], list[str]]) -> dict[str, Any]:
    with hs.HostileServer(script) as server:
        done = subprocess.run(child(server.url), capture_output=True, text=True, timeout=120, check=False)
    try:
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        return {"base_mb": 0, "peak_mb": 0, "seconds": 0, "outcome": done.stderr.strip()[-200:]}


def hub_case() -> dict[str, Any]:
    import os
    import struct

    from tests.engine.hub_server import running_hub

    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 1)
    key = struct.pack("<Q", 21) + b"tokenizer.ggml.tokens" + struct.pack("<IIQ", 9, 8, 10**9)
    data = head + key + b"\0" * (8 << 20)
    with running_hub() as hub:
        hub.add("evil/Header-GGUF", "evil.gguf", data)
        hub.announced_sizes[("evil/Header-GGUF", "evil.gguf")] = 10**12
        env = dict(os.environ, HF_ENDPOINT=hub.url)
        env.pop("HF_HUB_OFFLINE", None)
        done = subprocess.run(
            [sys.executable, "-c", HUB_CHILD], capture_output=True, text=True, timeout=120, check=False, env=env
        )
        sent = hub.sent.get(("evil/Header-GGUF", "evil.gguf"), 0)
    result = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    result["outcome"] += f" (server sent {sent:,} bytes)"
    return result


def main() -> None:
    print("| case | before (issue 25) | now: peak RSS (after imports) | time to the end | how it ends |")
    print("|---|---|---|---|---|")
    for name, before, script, what, deadline, max_tokens in CASES:
        extra = [what, str(deadline), str(max_tokens)]
        result = run_case(script, lambda url, extra=extra: [sys.executable, "-c", CHILD, url, *extra])
        print(
            f"| {name} | {before} | {result['peak_mb']:.0f} MB ({result['base_mb']:.0f} MB) | "
            f"{result['seconds']:.2f} s | {result['outcome'][:150]} |"
        )
    result = hub_case()
    print(
        f"| Hub header claiming 10^9 strings (file size claimed 1 TB) | 512 MiB fetched, >1 GB held | "
        f"{result['peak_mb']:.0f} MB ({result['base_mb']:.0f} MB) | {result['seconds']:.2f} s | "
        f"{result['outcome'][:200]} |"
    )


if __name__ == "__main__":
    main()
