"""Measure how long the GUI thread stalls while the real app streams a reply.

Starts the real main window (offscreen unless a display is set), loads a pair
(the Qwen demo pair by default), sends a prompt and records the gaps of a
10 ms timer on the GUI thread from the moment the prompt is sent until the
reply finishes. Prints the gap percentiles and writes them as JSON.

    .venv/bin/python scripts/measure_gui_stall.py [--pair demo|small] [--max-tokens N] [--json out.json]

It never touches the user's conversations or settings: a temporary data
folder is used (the models folder stays the user's, where the pairs live).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    """Run one measurement; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pair", choices=("demo", "small"), default="demo")
    parser.add_argument("--drafter", choices=("model", "ngram", "none"), default="model")
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--prompt", default="Write a Python function that checks whether a string is a palindrome.")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args()

    from app.engine.paths import models_dir

    os.environ.setdefault("TANDEM_MODELS_DIR", str(models_dir()))
    os.environ["TANDEM_DATA_DIR"] = tempfile.mkdtemp(prefix="tandem-stall-")
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from app.engine.llama.session import DrafterKind
    from app.engine.models.packaged import demo_pair_paths, small_pair_paths
    from app.ui.chat.controller import Activity
    from app.ui.main_window import MainWindow
    from app.ui.settings.store import PairChoice
    from app.ui.start.launch import make_application
    from app.ui.threads.stall_probe import StallProbe

    app = make_application([sys.argv[0]])
    target, draft = demo_pair_paths() if args.pair == "demo" else small_pair_paths()
    if not (target.is_file() and draft.is_file()):
        print(f"the {args.pair} pair is not installed (python main.py models install-...)", file=sys.stderr)
        return 2
    kind = DrafterKind(args.drafter)

    def spin_until(predicate: object, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not predicate():  # type: ignore[operator]
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out after {timeout_s:.0f} s")
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
            time.sleep(0.001)

    window = MainWindow(autoload=False)
    window.resize(1360, 860)
    window.show()
    window.settings_panel.max_tokens.setValue(args.max_tokens)
    window.load_pair(PairChoice(target, draft if kind is DrafterKind.MODEL else None, kind))
    spin_until(lambda: window.controller.activity is Activity.IDLE, 600)
    if window.controller.pair is None:
        print("load failed: " + window.chat.banner.text.text(), file=sys.stderr)
        return 1
    steps = 0

    def count(_event: object) -> None:
        nonlocal steps
        steps += 1

    window.host.worker.step.connect(count)
    probe = StallProbe(10)
    finished: list[object] = []
    window.controller.reply_finished.connect(finished.append)
    window.chat.prompt.setPlainText(args.prompt)
    probe.start()
    window.chat.send_button.click()
    spin_until(lambda: bool(finished) or window.controller.activity is Activity.IDLE, 1800)
    summary = probe.stop()
    event = finished[0] if finished else None
    result = {
        "pair": args.pair,
        "drafter": kind.value,
        "max_tokens": args.max_tokens,
        "tokens": getattr(getattr(event, "stats", None), "emitted", 0),
        "tokens_per_second": getattr(getattr(event, "stats", None), "tokens_per_second", 0.0),
        "steps": steps,
        "ticks": summary.ticks,
        "gap_p50_ms": round(summary.p50_ms, 2),
        "gap_p99_ms": round(summary.p99_ms, 2),
        "gap_max_ms": round(summary.max_ms, 2),
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
