"""Measure the GUI thread's stalls while a 10,000-token Markdown reply streams into the chat view.

A real 10,000-token reply takes half an hour on two CPU cores, so the tokens
are real ones instead: a long Markdown answer (headings, emphasis, lists,
tables, fenced Python) is cut into the SmolLM2 tokenizer's pieces and streamed
into the real main window's chat view in verify steps of 1-5 tokens, with
origins, probabilities and rejected proposals, one step every ``--step-ms``
(default 20 ms: about 150 tokens a second, faster than any CPU generates).
A 10 ms timer on the GUI thread records the gaps, as scripts/measure_gui_stall.py
does for a generated reply; the time spent in each step's view update is
recorded too. Prints the percentiles and writes them as JSON.

    .venv/bin/python scripts/measure_markdown_stall.py [--tokens 10000] [--step-ms 20] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def markdown_answer(n_sections: int) -> str:
    """A long, varied Markdown reply of the kind a coding model writes."""
    parts: list[str] = []
    for i in range(n_sections):
        parts.append(
            f"## Step {i + 1}: parse the input\n\n"
            f"First we read the **raw rows** and keep the *valid* ones; `parse_row()` returns `None` "
            f"for a bad row (see [the docs](https://docs.python.org/3/library/csv.html)).\n\n"
            f"- read the file line by line\n- split on commas\n  - strip each field\n- skip empty rows\n\n"
            f"| field | type | example |\n|---|---|---|\n| name | str | apple |\n| count | int | {i} |\n"
            f"| price | float | {i}.25 |\n\n"
            f"> A row with the wrong number of fields is reported, not dropped silently.\n\n"
            f"```python\ndef parse_row(line: str) -> Row | None:\n"
            f'    """Parse one CSV line into a Row."""\n'
            f"    fields = [f.strip() for f in line.split(',')]\n"
            f"    if len(fields) != 3:\n        return None\n"
            f"    name, count, price = fields\n"
            f"    return Row(name, int(count), float(price))  # step {i + 1}\n```\n\n"
        )
    return "".join(parts)


def main() -> int:
    """Run one measurement; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--step-ms", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args()

    from app.engine.paths import models_dir

    os.environ.setdefault("TANDEM_MODELS_DIR", str(models_dir()))
    os.environ["TANDEM_DATA_DIR"] = tempfile.mkdtemp(prefix="tandem-stall-")
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    import llama_cpp
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.core.reply.token_record import RejectedProposal, TokenRecord
    from app.engine.models.packaged import small_pair_paths
    from app.ui.chat.view.chat_view import ViewMessage
    from app.ui.main_window import MainWindow
    from app.ui.start.launch import make_application
    from app.ui.threads.stall_probe import StallProbe, _percentile

    target, _ = small_pair_paths()
    if not target.is_file():
        print("the small pair is not installed (python main.py models install-small)", file=sys.stderr)
        return 2
    vocab = llama_cpp.Llama(str(target), vocab_only=True, verbose=False)
    text = ""
    ids: list[int] = []
    sections = 8
    while len(ids) < args.tokens:
        sections *= 2
        text = markdown_answer(sections)
        ids = vocab.tokenize(text.encode(), add_bos=False, special=False)
    ids = ids[: args.tokens]
    pieces = [vocab.detokenize([token]).decode("utf-8", errors="replace") for token in ids]
    rng = random.Random(0)
    origins = ("draft", "draft", "corrected", "bonus", "target")
    no = RejectedProposal(text=" no", p_target=0.1, q_draft=0.4)
    tokens = [
        TokenRecord(
            text=piece,
            origin=origin,
            p_target=rng.random(),
            q_draft=rng.random() if origin != "target" else None,
            rejected=no if origin == "corrected" else None,
        )
        for piece, origin in ((piece, origins[rng.randrange(len(origins))]) for piece in pieces)
    ]
    steps: list[list[TokenRecord]] = []
    i = 0
    while i < len(tokens):
        n = rng.randint(1, 5)
        steps.append(tokens[i : i + n])
        i += n

    app = make_application([sys.argv[0]])
    window = MainWindow(autoload=False)
    window.resize(1360, 860)
    window.show()
    view = window.chat.view
    view.set_messages([ViewMessage("user", "Explain, step by step, how to parse a CSV file in Python.")])
    view.begin_reply("SmolLM2 tokens, replayed")
    update_ms: list[float] = []
    position = 0

    def step() -> None:
        nonlocal position
        if position >= len(steps):
            return
        started = time.perf_counter()
        view.append_tokens(steps[position])
        update_ms.append(1000.0 * (time.perf_counter() - started))
        position += 1

    feeder = QTimer()
    feeder.setInterval(args.step_ms)
    feeder.timeout.connect(step)
    probe = StallProbe(10)
    probe.start()
    feeder.start()
    while position < len(steps):
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        time.sleep(0.001)
    feeder.stop()
    summary = probe.stop()
    view.end_reply("done")
    result = {
        "tokens": len(tokens),
        "characters": len("".join(t.text for t in tokens)),
        "steps": len(steps),
        "step_ms": args.step_ms,
        "ticks": summary.ticks,
        "gap_p50_ms": round(summary.p50_ms, 2),
        "gap_p99_ms": round(summary.p99_ms, 2),
        "gap_max_ms": round(summary.max_ms, 2),
        "update_p50_ms": round(_percentile(update_ms, 0.5), 2),
        "update_p99_ms": round(_percentile(update_ms, 0.99), 2),
        "update_max_ms": round(max(update_ms, default=0.0), 2),
        "update_last_1000_p99_ms": round(_percentile(update_ms[-1000:], 0.99), 2),
        "slowest_steps": sorted(range(len(update_ms)), key=lambda k: -update_ms[k])[:5],
        "cpu_count": os.cpu_count(),
    }
    print(summary.line())
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    window.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
