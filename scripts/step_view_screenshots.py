"""Screenshots of the step view on a real reply: a rejected step and a fully accepted one.

Run under a virtual X server at 1440x900, for example::

    xvfb-run -a -s "-screen 0 1440x900x24" .venv/bin/python scripts/step_view_screenshots.py --pair small

It loads the pair (the SmolLM2 test pair with ``--pair small``, else the demo
pair), turns "show speculation anyway" on so every step drafts, sends one
prompt at T=0.8, opens the reply's step view (its "Steps" action) and saves
the screen with the view on a step whose draft was rejected and on one fully
accepted, plus the card alone. Conversations and settings go to a temporary
data folder; the user's own are never touched.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROMPT = "Explain in three sentences why the sky is blue."


def main() -> int:
    """Take the screenshots; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pair", choices=("demo", "small"), default="small")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--temperature", type=float, default=0.8)
    args = parser.parse_args()

    from app.engine.paths import models_dir

    os.environ.setdefault("TANDEM_MODELS_DIR", str(models_dir()))
    os.environ["TANDEM_DATA_DIR"] = tempfile.mkdtemp(prefix="tandem-steps-")
    args.out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QEventLoop
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QApplication, QWidget

    from app.engine.llama.session import DrafterKind
    from app.engine.models.packaged import demo_pair_paths, small_pair_paths
    from app.ui import theme
    from app.ui.chat.controller import Activity
    from app.ui.main_window import MainWindow
    from app.ui.settings.store import PairChoice
    from app.ui.start.launch import make_application

    app = make_application([sys.argv[0]])
    app.setStyle("Fusion")
    app.setPalette(theme.light_palette())
    target, draft = demo_pair_paths() if args.pair == "demo" else small_pair_paths()
    if not (target.is_file() and draft.is_file()):
        print(f"the {args.pair} pair is not installed", file=sys.stderr)
        return 2

    def spin(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
        deadline = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out waiting for {what}")
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.01)

    def pause(seconds: float) -> None:
        end = time.monotonic() + seconds
        spin(lambda: time.monotonic() > end, seconds + 5, "a pause")

    def save_screen(name: str) -> None:
        """The window with the step view drawn over it where it sits (no window manager needed)."""
        pause(0.6)
        shot = window.grab()
        painter = QPainter(shot)
        painter.drawPixmap(view.pos() - window.pos(), view.grab())
        painter.end()
        path = args.out / f"{name}.png"
        shot.save(str(path))
        print(f"saved {path}")

    def save(widget: QWidget, name: str) -> None:
        pause(0.4)
        path = args.out / f"{name}.png"
        widget.grab().save(str(path))
        print(f"saved {path}")

    window = MainWindow(autoload=False)
    window.resize(1440, 900)
    window.move(0, 0)
    window.show()
    window.settings_panel.adaptive.setChecked(False)
    window.settings_panel.max_tokens.setValue(args.max_tokens)
    window.settings_panel.temperature.setValue(args.temperature)
    choice = PairChoice(target, draft, DrafterKind.MODEL)
    window.picker.refresh(choice)
    window.load_pair(choice)
    spin(lambda: window.controller.activity is Activity.IDLE and window.controller.pair is not None, 900, "loading")
    window.controller.set_demo_speculation(True)  # every step drafts, as "show speculation anyway" does
    window.chat.prompt.setPlainText(PROMPT)
    window.chat.send_button.click()
    spin(lambda: window.controller.activity is Activity.GENERATING, 30, "generation to start")
    spin(lambda: window.controller.activity is Activity.IDLE, 1800, "the reply")

    reply = window.controller.path[-1]
    window.controller.steps_requested.emit(reply.id)  # as the reply's "Steps" link does
    view = window.steps.view
    spin(view.isVisible, 10, "the step view")
    view.resize(1100, 640)
    view.move(window.pos().x() + 300, window.pos().y() + 200)
    steps = view.steps
    rejected = next((i for i, s in enumerate(steps) if s.rejected_at is not None and s.rejected_at > 0), None)
    rejected = (
        rejected if rejected is not None else next((i for i, s in enumerate(steps) if s.rejected_at is not None), 0)
    )
    accepted = next((i for i, s in enumerate(steps) if s.drafted and s.rejected_at is None), 0)
    print(f"{len(steps)} steps; rejected step {rejected + 1}, fully accepted step {accepted + 1}")
    view.select(rejected)
    save_screen("step-view-rejected")
    save(view.card, "step-card-rejected")
    view.select(accepted)
    save_screen("step-view-accepted")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
