"""Screenshots of the window's layout at one screen size: every side-panel tab, no model needed (or the test pair).

Run under Xvfb with the screen size wanted, e.g.::

    xvfb-run -a -s "-screen 0 1024x640x24" .venv/bin/python scripts/layout_screenshots.py --out /tmp/shots-1024
    QT_SCALE_FACTOR=1.5 xvfb-run -a -s "-screen 0 1440x900x24" .venv/bin/python scripts/layout_screenshots.py

The window fills the screen (as a person would use it at that size); under a
window manager (``sh -c 'openbox & sleep 1; QT_QPA_PLATFORM=xcb ...'``) its
frame is kept on the screen too, title bar included. With
``--pair`` it first loads the SmolLM2 test pair, ticks "Local server" (the
box that used to push the panel sideways) and writes one reply, so the panels
are filled. One PNG per tab, and one of the first-run page, go to ``--out``,
with a line each saying whether a horizontal scroll bar, a cut label or a cut
combo box was found there (the check tests/ui/test_layout_fits.py makes).
Settings and chats go to a temporary data folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    """Take one screenshot per side-panel tab; returns 1 when any tab clips."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "tandem-layout")
    parser.add_argument("--theme", choices=("system", "light", "dark"), default="light")
    parser.add_argument(
        "--language", choices=("system", "en", "de"), default="system", help="the window's language (system: LANG)"
    )
    parser.add_argument("--pair", action="store_true", help="load the small test pair, serve it, and reply once first")
    args = parser.parse_args()
    from app.engine.paths import models_dir

    os.environ.setdefault("TANDEM_MODELS_DIR", str(models_dir()))
    os.environ["TANDEM_DATA_DIR"] = tempfile.mkdtemp(prefix="tandem-layout-")
    args.out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from app.ui import theme
    from app.ui.layout_fit import clipped_in

    app = QApplication(sys.argv)
    theme.apply_theme(app, args.theme)
    from app.ui.i18n.catalog import BUILT, build_catalogue
    from app.ui.i18n.install import install_translators, language_of

    for language in BUILT:
        build_catalogue(language)
    install_translators(app, language_of(args.language))
    from app.ui.main_window import MainWindow

    window = MainWindow(autoload=False)
    window.setGeometry(app.primaryScreen().availableGeometry())  # the window manager's frame, if any, fitted in
    window.show()
    for _ in range(150):  # the frame's last look comes 2 s after the show
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    window.stack.setCurrentWidget(window.chat)
    if args.pair:
        _load_serve_and_reply(app, window)
    screen = app.primaryScreen().availableGeometry()
    frame = window.frameGeometry()
    print(
        f"screen {screen.width()}x{screen.height()} (logical), window {window.width()}x{window.height()}, "
        f"frame {frame.width()}x{frame.height()} at {frame.x()},{frame.y()}"
    )
    failed = 0
    for index in range(window.side.count()):
        window.side.setCurrentIndex(index)
        for _ in range(20):
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        name = window.side.tabText(index).replace("&", "").lower()
        path = args.out / f"{name}.png"
        _save(app, window, path)
        problems = clipped_in(window)
        failed += bool(problems)
        print(f"{name}: {path}" + (f"  CLIPPED: {problems}" if problems else "  ok"))
    window.stack.setCurrentWidget(window.welcome)
    for _ in range(20):
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    _save(app, window, args.out / "welcome.png")
    problems = clipped_in(window)
    failed += bool(problems)
    print(f"welcome: {args.out / 'welcome.png'}" + (f"  CLIPPED: {problems}" if problems else "  ok"))
    window.close()
    return 1 if failed else 0


def _save(app: object, window: object, path: Path) -> None:
    """The whole screen when there is one to grab (the frame and title bar show), else the window alone."""
    from PySide6.QtWidgets import QApplication, QWidget

    assert isinstance(app, QApplication) and isinstance(window, QWidget)
    shot = app.primaryScreen().grabWindow(0)
    (window.grab() if shot.isNull() else shot).save(str(path))


def _load_serve_and_reply(app: object, window: object) -> None:
    """Load the SmolLM2 test pair, tick Local server (port 0) and send one short prompt: the panels filled."""
    import time

    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from app.engine.llama.session import DrafterKind
    from app.engine.models.packaged import small_pair_paths
    from app.ui.chat.controller import Activity
    from app.ui.main_window import MainWindow
    from app.ui.settings.store import PairChoice

    assert isinstance(app, QApplication) and isinstance(window, MainWindow)

    def spin(done: object, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not done() and time.monotonic() < deadline:  # type: ignore[operator]
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.01)

    target, draft = small_pair_paths()
    window.picker.refresh(PairChoice(target, draft, DrafterKind.MODEL))
    window.load_pair(PairChoice(target, draft, DrafterKind.MODEL))
    spin(lambda: window.controller.pair is not None and window.controller.activity is Activity.IDLE, 240)
    window.server_switch.port.setValue(0)
    window.server_switch.toggle.setChecked(True)
    window.settings_panel.max_tokens.setValue(32)
    window.chat.prompt.setPlainText("Name three colours.")
    window.chat.send_button.click()
    spin(lambda: window.controller.activity is not Activity.IDLE, 10)
    spin(lambda: window.controller.activity is Activity.IDLE, 240)


if __name__ == "__main__":
    raise SystemExit(main())
