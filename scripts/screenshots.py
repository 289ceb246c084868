"""Drive the real Tandem window and save screenshots of its main views to docs/screenshots/.

Run through ``scripts/screenshots.sh`` (which starts Xvfb). It loads a real
pair (the Qwen demo pair by default), sends a prompt, waits for the streamed
reply (an edit of pasted code with the default drafter, where prompt lookup pays:
the code block and a table; ``--demo-speculation`` for the older picture of code
written from a description with the draft model forced on), then captures: the coloured reply
with the Model tab and the context gauge, the statistics,
a token's hover card, rejected drafts as ghost text, the clean reading view,
the A/B comparison, the temperature sweep, pre-flight, the dark theme, the
first-run welcome panel, the branch switcher after a regenerated reply and a
search across chats that jumped to a message. Conversations and settings go to a temporary data
folder; the user's own are never touched.
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

# An edit of pasted code: the reply copies most of its input, so prompt lookup drafts long runs the
# target accepts and the default drafter is faster than the target alone even on a 2-core CPU.
PASTED = """def is_palindrome(s):
    \"\"\"Return True when s reads the same both ways, ignoring case and punctuation.\"\"\"
    cleaned = [c.lower() for c in s if c.isalnum()]
    return cleaned == cleaned[::-1]


def longest_palindrome(words):
    \"\"\"The longest palindrome in words, or None.\"\"\"
    best = None
    for s in words:
        if is_palindrome(s) and (best is None or len(s) > len(best)):
            best = s
    return best
"""
PROMPT = (
    "Here is my module:\n\n```python\n" + PASTED + "```\n\n"
    "Rename the parameter s to text everywhere (docstrings too) and return the whole module, "
    "then a Markdown table (| Input | Palindrome? |) of three example strings."
)
# The earlier picture: code written from a description, with the draft model forced on.
DEMO_PROMPT = (
    "First a Markdown table (| Input | Palindrome? |) of three example strings, "
    "then a short Python function is_palindrome(text) that ignores case and punctuation."
)


def main() -> int:
    """Take every screenshot; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pair", choices=("demo", "small"), default="demo")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument("--ab-tokens", type=int, default=48)
    parser.add_argument("--sweep-tokens", type=int, default=24)
    parser.add_argument(
        "--demo-speculation",
        action="store_true",
        help="the old first picture: code from a description with the draft model forced on (it does not pay on a CPU)",
    )
    parser.add_argument("--skip", default="", help="comma-separated steps to skip: ab,sweep,preflight,branches,search")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))

    from app.engine.paths import models_dir

    os.environ.setdefault("TANDEM_MODELS_DIR", str(models_dir()))
    os.environ["TANDEM_DATA_DIR"] = tempfile.mkdtemp(prefix="tandem-shots-")
    args.out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QEvent, QEventLoop, QPoint, QPointF
    from PySide6.QtGui import QGuiApplication, QHelpEvent, QTextCursor
    from PySide6.QtWidgets import QApplication, QWidget

    from app.core.decoding.events import TokenOrigin
    from app.engine.llama.session import DrafterKind
    from app.engine.models.packaged import demo_pair_paths, small_pair_paths
    from app.ui import theme
    from app.ui.chat.controller import Activity
    from app.ui.chat.view.token_painter import Prop
    from app.ui.main_window import MainWindow
    from app.ui.settings.store import PairChoice
    from app.ui.start.launch import make_application

    app = make_application([sys.argv[0]])
    theme.apply_theme(app, "light")  # Fusion with the light palette, as the View menu sets it
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

    def save(widget: QWidget, name: str) -> None:
        pause(0.4)
        path = args.out / f"{name}.png"
        widget.grab().save(str(path))
        print(f"saved {path}")

    def save_screen(widget: QWidget, name: str) -> None:
        """The screen area of ``widget``'s window, so pop-ups such as tooltips are included."""
        pause(0.6)
        screen = QGuiApplication.primaryScreen()
        top = widget.window()
        frame = top.frameGeometry()
        shot = screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
        path = args.out / f"{name}.png"
        shot.save(str(path))
        print(f"saved {path}")

    window = MainWindow(autoload=False)
    window.resize(1440, 900)
    window.move(20, 20)
    window.show()
    window.settings_panel.max_tokens.setValue(args.max_tokens)
    window.settings_panel.temperature.setValue(0.0)
    choice = PairChoice(target, draft, DrafterKind.MODEL if args.demo_speculation else DrafterKind.HYBRID)
    window.picker.refresh(choice)
    window.load_pair(choice)
    spin(lambda: window.controller.activity is Activity.IDLE and window.controller.pair is not None, 900, "loading")
    spin(lambda: window.memory.state.source == "measured", 120, "the memory meter")
    if args.demo_speculation:
        # On a CPU the adaptive controller rightly keeps the draft off; this picture shows the
        # mechanism, so the chat drafts anyway ("show speculation anyway", as a user would click).
        window.controller.set_demo_speculation(True)
    window.chat.prompt.setPlainText(DEMO_PROMPT if args.demo_speculation else PROMPT)
    window.chat.send_button.click()
    spin(lambda: window.controller.activity is Activity.GENERATING, 30, "generation to start")
    spin(lambda: window.controller.activity is Activity.IDLE, 3600, "the reply")
    window.chat.prompt.setPlainText("Now add a few doctests.")
    save(window, "01-chat-model-tab")

    window.side.setCurrentIndex(1)
    save(window, "02-chat-stats-tab")

    # The hover card over a token the target corrected (it names the rejected proposal).
    view = window.chat.view
    reply = len(view.messages) - 1
    target_position = None
    block = view.document().begin()
    while block.isValid() and target_position is None:
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if (
                fmt.property(Prop.KIND) == "token"
                and fmt.property(Prop.MESSAGE_INDEX) == reply
                and fmt.property(Prop.ORIGIN) == TokenOrigin.CORRECTED.value
                and fmt.property(Prop.REJECTED_TEXT)
                and len(fragment.text().strip()) > 1
            ):
                target_position = fragment.position()
                break
            it += 1
        block = block.next()
    if target_position is not None:
        cursor = QTextCursor(view.document())
        cursor.setPosition(target_position + 1)
        view.setTextCursor(cursor)
        view.ensureCursorVisible()
        pause(0.3)
        rect = view.cursorRect(cursor)
        point = QPoint(rect.left() - 2, rect.center().y())
        tip = view.tooltip_at(QPointF(point))
        event = QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point))
        QApplication.sendEvent(view.viewport(), event)
        print("tooltip:", tip)
        save_screen(window, "03-token-hover")
        cursor.clearSelection()

    window.chat.legend.ghosts.setChecked(True)
    save(window, "04-rejected-drafts-ghost-text")
    window.chat.legend.ghosts.setChecked(False)
    window.chat.legend.coloured.setChecked(False)
    save(window, "05-reading-view")
    window.chat.legend.coloured.setChecked(True)
    window.side.setCurrentIndex(2)
    save(window, "06-settings-tab")
    window.side.setCurrentIndex(1)

    if "branches" not in skip:
        # Regenerate the reply: a sibling, and the "‹ 2/2 ›" switcher under it.
        prompt_text = window.chat.prompt.toPlainText()
        window.chat.prompt.clear()
        first = window.controller.path[-1].id
        window.controller.regenerate(first)
        spin(lambda: window.controller.activity is Activity.GENERATING, 30, "the regenerated reply to start")
        spin(lambda: window.controller.activity is Activity.IDLE, 3600, "the regenerated reply")
        bar = view.verticalScrollBar()
        bar.setValue(bar.maximum())
        save(window, "13-branch-switcher")
        window.controller.switch_branch(window.controller.path[-1].id, -1)  # back to the first reply
        window.chat.prompt.setPlainText(prompt_text)

    if "search" not in skip:
        window.conversations.search.focus()
        window.conversations.search.box.setText("palindrome")
        window.conversations.search.run()
        window.conversations.search.choose(0)
        save(window, "14-search")
        window.conversations.search.clear()

    if "ab" not in skip:
        window.settings_panel.max_tokens.setValue(args.ab_tokens)
        dialog = window.tools.run_ab()
        if dialog is not None:
            spin(lambda: dialog.complete, 3600, "the A/B runs")
            save(dialog, "07-ab-comparison")
            dialog.close()
            spin(lambda: window.controller.activity is Activity.IDLE, 60, "idle")
            save(window, "08-stats-with-baseline")

    if "sweep" not in skip:
        sweep = window.tools.run_sweep((0.0, 0.4, 0.8, 1.2, 1.6), max_tokens=args.sweep_tokens)
        if sweep is not None:
            spin(lambda: sweep.complete, 3600, "the sweep")
            save(sweep, "09-temperature-sweep")
            sweep.close()
            spin(lambda: window.controller.activity is Activity.IDLE, 60, "idle")

    if "preflight" not in skip:
        preflight = window.tools.run_preflight()
        if preflight is not None:
            spin(lambda: preflight.complete, 3600, "pre-flight")
            save(preflight, "10-preflight")
            preflight.close()
            spin(lambda: window.controller.activity is Activity.IDLE, 60, "idle")

    theme.apply_theme(app, "dark")  # with the visible check box and radio outlines
    window.side.setCurrentIndex(0)
    save(window, "11-dark-theme")
    theme.apply_theme(app, "light")
    window.close()

    empty = Path(tempfile.mkdtemp(prefix="tandem-no-models-"))
    os.environ["TANDEM_MODELS_DIR"] = str(empty)
    os.environ["TANDEM_DATA_DIR"] = tempfile.mkdtemp(prefix="tandem-shots-")
    welcome = MainWindow(autoload=False)
    welcome.resize(1280, 800)
    welcome.show()
    save(welcome, "12-first-run-welcome")
    welcome.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
