"""The window in German: every visible string goes through Qt's translators, and the catalogues are whole.

With the German translator installed (the catalogue built first, by the
function ``scripts/setup.sh`` uses), the main window, each side-panel tab,
the menus and the dialogs that open without a model are walked: each
widget's text, tooltip, placeholder, window title, combo box items, tab
texts and actions' texts. A string fails when it is an English source of
``translations/tandem_de*.ts`` whose German differs (untranslated: not
wrapped, or wrapped under another context), or English text the .ts files do
not hold at all (never wrapped). Each failure names the folder of the widget
it was found in, so a missing part of the translation is easy to place.
"""

from __future__ import annotations

import ast
import html
import logging
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QDialog,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTableWidget,
    QTabWidget,
    QTextEdit,
    QTreeWidget,
    QWidget,
)

from app.ui.i18n import catalog
from app.ui.i18n.catalog import BUILT, build_catalogue
from app.ui.i18n.install import Language, install_translators, locale_for, remove_translators
from app.ui.main_window import MainWindow
from app.ui.start import branding

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "app" / "ui"

# English words that no German text of the catalogue uses: one of them in a visible string means English text.
_ENGLISH_WORDS = frozenset(
    (  # noqa: SIM905 - 110 words read better as text
        "the and of to with is are was were be not this that these for from your you off by or it its will "
        "can has have no yet here which what when only all each every new show hide open close save saved "
        "load loaded loading pair reply replies message messages settings tokens draft drafts drafted "
        "drafter target server memory none measured measure run runs model models chat chats search find "
        "copy export delete send stop file files folder attach choose pick press start started select first "
        "last next previous context size threads layers speed rate used left out fit whole passages download "
        "downloads downloaded token"
    ).split()
)
# Names and words that read the same in both languages (checked after the strings of the .ts files).
_ALLOWED = re.compile(
    r"^(Tandem|GGUF|MCP|Hugging Face|Hub|llama\.cpp|llama-server|vLLM|SmolLM2.*|Qwen.*|HF_TOKEN|TANDEM_\w+|"
    r"OK|Esc|A/B|Info|System|Prompt|Seed|Prefill|Sampling|Sweep|greedy|Chat|Chats|PDF|JSON|Markdown|HTML|"
    r"top-k|top-p|min-p|[A-Z]:.*|/.*|~.*|.*\.(gguf|json|md|txt|pdf|sqlite3|html)|[\d\s.,:;%×/·()+\-–—−≈…]*)$"
)


def _catalogue(pattern: str) -> list[tuple[str, str, list[str]]]:
    """(context, source, translations) of every message in translations/<pattern>."""
    rows = []
    for path in sorted((ROOT / "translations").glob(pattern)):
        for context in ET.parse(path).getroot().iter("context"):
            name = context.findtext("name") or ""
            for message in context.iter("message"):
                translation = message.find("translation")
                assert translation is not None
                forms = [f.text or "" for f in translation.iter("numerusform")] or [translation.text or ""]
                rows.append((name, message.findtext("source") or "", forms))
    return rows


def _variants(text: str) -> set[str]:
    """A catalogue text as a widget may show it: without its mnemonic, its markup, with its placeholders filled."""
    plain = _plain(text)
    return {plain, re.sub(r"\{\w+\}|%n", "", plain).strip()}


def _plain(text: str) -> str:
    text = re.sub(r"<[^>]+>", "", text.replace("&&", "\x00").replace("&", "")).replace("\x00", "&")
    return " ".join(html.unescape(text).split())


@pytest.fixture(scope="module")
def sources() -> tuple[set[str], set[str], set[str]]:
    """(untranslated English, German texts, German words) of the German catalogue."""
    rows = _catalogue("tandem_de*.ts")
    assert rows, "no translations/tandem_de*.ts"
    english = {_plain(s) for _c, s, forms in rows if all(_plain(f) != _plain(s) for f in forms)}
    german = {v for _c, _s, forms in rows for f in forms for v in _variants(f)}
    words = {w.lower() for g in german for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", g)}
    return english, german, words


_UNWRAPPED: dict[str, set[str]] = {}


def _unwrapped_literals() -> dict[str, set[str]]:
    """Each string literal under app/ui not handed to a translator (nor a docstring): its folders."""
    if _UNWRAPPED:
        return _UNWRAPPED
    for path in sorted(UI.rglob("*.py")):
        relative = path.relative_to(UI)
        folder = "app/ui/" + (relative.parts[0] if len(relative.parts) > 1 else relative.name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                skip.add(id(node.value))  # a docstring
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in ("tr", "translate", "QT_TRANSLATE_NOOP"):
                    skip.update(id(arg) for arg in node.args)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                _UNWRAPPED.setdefault(node.value.split("\n", 1)[0][:40], set()).add(folder)
            if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
                head = str(node.values[0].value)[:40]
                _UNWRAPPED.setdefault(head, set()).add(folder)
    return _UNWRAPPED


def _written_in(text: str) -> str | None:
    """The app/ui folder (or top-level module) whose code shows ``text`` unwrapped, if the sources tell."""
    probe = text.split("\n", 1)[0][:40]
    literals = _unwrapped_literals()
    folders = literals.get(probe) or next(
        (f for head, f in literals.items() if len(head) >= 6 and probe.startswith(head)), None
    )
    return ", ".join(sorted(folders)) if folders else None


def _folder_of(widget: QWidget | None, text: str = "") -> str:
    """The app/ui folder whose code wrote ``text`` (found in the sources), else whose class made ``widget``."""
    found = _written_in(text) if text else None
    if found is not None:
        return found
    while widget is not None:
        module = type(widget).__module__
        if module.startswith("app.ui."):
            parts = module.split(".")
            return "app/ui/" + (parts[2] if len(parts) > 3 else f"{parts[2]}.py")
        widget = widget.parentWidget()
    return "app/ui (no Tandem class above it)"


def _texts(widget: QWidget) -> Iterator[tuple[str, str]]:
    """(what, text) of everything ``widget`` shows a person."""
    yield "toolTip", widget.toolTip()
    if widget.isWindow():
        yield "windowTitle", widget.windowTitle()
    if isinstance(widget, (QLabel, QAbstractButton, QLineEdit)):
        yield "text", widget.text()
    if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit)):
        yield "placeholderText", widget.placeholderText()
    if isinstance(widget, QGroupBox):
        yield "title", widget.title()
    if isinstance(widget, QComboBox):
        for index in range(widget.count()):
            yield f"item {index}", widget.itemText(index)
    if isinstance(widget, QTabWidget):
        for index in range(widget.count()):
            yield f"tab {index}", widget.tabText(index)
            yield f"tab {index} toolTip", widget.tabToolTip(index)
    if isinstance(widget, QTableWidget):
        for column in range(widget.columnCount()):
            header = widget.horizontalHeaderItem(column)
            yield f"header {column}", header.text() if header is not None else ""
        for row in range(widget.rowCount()):
            item = widget.item(row, 0)
            yield f"row {row}", item.text() if item is not None else ""
    if isinstance(widget, QTreeWidget):
        for index in range(widget.topLevelItemCount()):
            item = widget.topLevelItem(index)
            yield f"item {index}", item.text(0) if item is not None else ""
    for action in widget.actions():
        yield f"action {action.objectName() or '?'}", action.text()
        yield (
            f"action {action.objectName() or '?'} toolTip",
            action.toolTip() if action.toolTip() != action.text().replace("&", "") else "",
        )


def _problem(text: str, sources: tuple[set[str], set[str], set[str]]) -> str | None:
    """Why ``text`` is not German ("untranslated", "English, not in the .ts"), or None."""
    english, german, german_words = sources
    plain = _plain(text)
    if not plain or plain in german or _ALLOWED.match(plain):
        return None
    if plain in english:
        return "untranslated"
    if any(g and g in plain for g in german if len(g) > 12):
        return None  # a German sentence with its placeholders filled in
    # A file path filled into a German sentence (where a key is kept) is data, not English words.
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", re.sub(r"/\S+", " ", plain))}
    if (words & _ENGLISH_WORDS) - german_words:
        return "English, not in the .ts"
    return None


def _walk(roots: list[QWidget], sources: tuple[set[str], set[str], set[str]]) -> list[str]:
    problems = []
    for root in roots:
        for widget in [root, *root.findChildren(QWidget)]:
            for what, text in _texts(widget):
                why = _problem(text, sources)
                if why is not None:
                    problems.append(f"{_folder_of(widget, text)}: {why}: {type(widget).__name__} {what}: {text!r}")
    return problems


def _menu_problems(window: MainWindow, sources: tuple[set[str], set[str], set[str]]) -> list[str]:
    problems = []

    def walk(actions: list[QAction], where: str) -> None:
        for action in actions:
            for what, text in (("text", action.text()), ("toolTip", action.toolTip())):
                why = _problem(text, sources)
                if why is not None:
                    problems.append(f"{_written_in(text) or where}: {why}: menu action {what}: {text!r}")
            submenu = action.menu()
            if isinstance(submenu, QMenu):
                walk(submenu.actions(), where)

    walk(window.menuBar().actions(), "app/ui/window_menus.py")
    return problems


def _report(problems: list[str]) -> str:
    by_folder: dict[str, list[str]] = {}
    for line in sorted(set(problems)):
        by_folder.setdefault(line.split(":", 1)[0], []).append(line.split(": ", 1)[1])
    return "\n".join(
        f"{folder} ({len(lines)}):\n    " + "\n    ".join(lines) for folder, lines in sorted(by_folder.items())
    )


def test_the_german_window_shows_no_english(
    german: None,
    make_window: Callable[..., MainWindow],
    qapp: QApplication,
    sources: tuple[set[str], set[str], set[str]],
) -> None:
    window = make_window()
    store = window.controller.store
    chat = store.create_conversation("Kajaks")
    store.add_message(chat, "user", "Wie paddelt man?")
    window.controller.open_conversation(chat)
    window.controller.conversations_changed.emit()  # the sidebar lists it under its date group
    problems = _walk([window.welcome], sources)
    window.stack.setCurrentWidget(window.chat)
    for index in range(window.side.count()):
        window.side.setCurrentIndex(index)
        qapp.processEvents()
        problems += _walk([window], sources)
    problems += _menu_problems(window, sources)
    dialogs: list[QWidget] = [window.menus.show_preferences(), window.menus.show_shortcuts()]
    problems += _walk(dialogs, sources)
    for dialog in dialogs:
        dialog.close()
    about: list[str] = []

    def read_about() -> None:
        box = QApplication.activeModalWidget()
        if box is not None:
            about.extend(_walk([box], sources))
            box.close()

    QTimer.singleShot(200, read_about)  # the About box is modal: read it from a timer, then close it

    branding.show_about(window)
    problems += ["app/ui/start (the About box): " + line.split(": ", 1)[1] for line in about]
    assert not problems, "strings the German window shows in English, by folder:\n" + _report(problems)


def test_a_german_string_is_shown_once_translated(german: None, make_window: Callable[..., MainWindow]) -> None:
    """The walk above can pass only if translation happens at all: a known label is German."""
    window = make_window()
    assert window.side.tabText(0) == "Modell"
    assert window.chat.send_button.text() == "Senden"
    assert QCoreApplication.translate("WindowMenus", "&File") == "&Datei"


def _literals() -> Iterator[tuple[Path, str]]:
    """Every string literal handed to self.tr, QCoreApplication.translate or QT_TRANSLATE_NOOP under app/ui,
    and to QT_TRANSLATE_NOOP under app/core and app/engine (``app/core/display/wording.py``: what they say to the
    window)."""
    paths = [*UI.rglob("*.py"), *(ROOT / "app" / "core").rglob("*.py"), *(ROOT / "app" / "engine").rglob("*.py")]
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = node.args[1:] if name in ("translate", "QT_TRANSLATE_NOOP") else node.args
            literal = args[0] if args and isinstance(args[0], ast.Constant) else None
            if (
                name in ("tr", "translate", "QT_TRANSLATE_NOOP")
                and literal is not None
                and isinstance(literal.value, str)
            ):
                yield path, literal.value


def test_every_wrapped_string_is_in_a_catalogue() -> None:
    """pyside6-lupdate skips some calls it cannot parse (a count given as x.n, a call split after its "("):
    every literal the code translates must be in a .ts, or it silently stays English."""
    known = {source for _c, source, _f in _catalogue("tandem_de*.ts")}
    missing = sorted({f"{path.relative_to(ROOT)}: {text!r}" for path, text in _literals() if text not in known})
    assert not missing, "not in translations/tandem_de*.ts (run pyside6-lupdate):\n" + "\n".join(missing)


def test_catalogues_are_finished_and_plurals_have_english_forms() -> None:
    german = _catalogue("tandem_de*.ts")
    unfinished = []
    for path in (ROOT / "translations").glob("tandem_*.ts"):
        unfinished += [
            f"{path.name}: {m.findtext('source')!r}"
            for m in ET.parse(path).getroot().iter("message")
            if (m.find("translation") is not None and m.find("translation").get("type") == "unfinished")
        ]
    assert not unfinished, "\n".join(unfinished)
    assert all(all(form.strip() for form in forms) for _c, _s, forms in german), "an empty German translation"
    plurals = {(c, s) for c, s, forms in german if "%n" in s}
    english = {(c, s): forms for c, s, forms in _catalogue("tandem_en*.ts")}
    for key in plurals:
        assert key in english and len(english[key]) == 2 and all(english[key]), f"no English plural forms for {key}"


def test_english_plurals_and_the_system_locale(qapp: QApplication) -> None:
    """English gets its plural forms; "System" follows the locale it is given (QLocale.system() at start)."""
    for language in BUILT:
        build_catalogue(language)
    english = install_translators(qapp, Language.ENGLISH)
    try:
        assert QCoreApplication.translate("ChatSearch", "%n message(s)", "", 1) == "1 message"
        assert QCoreApplication.translate("ChatSearch", "%n message(s)", "", 3) == "3 messages"
    finally:
        remove_translators(qapp, english)
    assert locale_for(Language.SYSTEM, QLocale("de_DE")).language() == QLocale.Language.German
    followed = install_translators(qapp, Language.SYSTEM, system=QLocale("de_DE"))
    try:
        assert QCoreApplication.translate("ChatSearch", "%n message(s)", "", 3) == "3 Nachrichten"
        assert QCoreApplication.translate("ChatSearch", "%n message(s)", "", 1) == "1 Nachricht"
    finally:
        remove_translators(qapp, followed)
    french = install_translators(qapp, Language.SYSTEM, system=QLocale("fr_FR"))
    remove_translators(qapp, french)  # French's decimal comma must not leak into later tests' numbers
    assert french != []  # French: English plurals


def test_a_missing_catalogue_leaves_english_with_one_log_line(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("app.ui.i18n.install.catalogue_path", lambda language: tmp_path / f"tandem_{language}.qm")
    with caplog.at_level(logging.WARNING, logger="app.ui.i18n.install"):
        assert install_translators(qapp, Language.GERMAN) == []
    remove_translators(qapp, [])  # the German locale it set must not reach later tests' numbers
    assert len(caplog.records) == 1 and "stays in English" in caplog.records[0].getMessage()
    assert QCoreApplication.translate("MainWindow", "Model") == "Model"


def test_the_catalogue_is_rebuilt_only_when_a_source_is_newer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "tandem_de_x.ts"
    source.write_text((ROOT / "translations" / "tandem_de.ts").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(catalog, "HERE", tmp_path)
    built = catalog.build_catalogue("de", tmp_path)
    assert built == tmp_path / "tandem_de.qm" and built.stat().st_size > 1000
    stamp = built.stat().st_mtime_ns
    assert not catalog.is_stale("de", tmp_path)
    catalog.build_catalogue("de", tmp_path)
    assert built.stat().st_mtime_ns == stamp, "an up-to-date catalogue is left alone"
    broken = tmp_path / "tandem_de_y.ts"
    broken.write_text("<TS><context><message>", encoding="utf-8")
    with pytest.raises(catalog.CatalogueError, match="lrelease failed"):
        catalog.build_catalogue("de", tmp_path, force=True)


def test_the_command_says_which_catalogues_it_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for language in BUILT:
        (tmp_path / f"tandem_{language}.ts").write_text(
            (ROOT / "translations" / f"tandem_{language}.ts").read_text(encoding="utf-8"), encoding="utf-8"
        )
    monkeypatch.setattr(catalog, "HERE", tmp_path)
    assert catalog.main(tmp_path) == 0
    assert capsys.readouterr().out.count(" built\n") == len(BUILT)
    assert catalog.main(tmp_path) == 0
    assert capsys.readouterr().out.count(" up to date\n") == len(BUILT)


def test_the_language_setting_is_kept_from_preferences(make_window: Callable[..., MainWindow]) -> None:
    window = make_window()
    dialog = window.menus.show_preferences()
    language = dialog.language
    assert [language.itemText(i) for i in range(language.count())][1:] == ["English", "Deutsch"]
    language.setCurrentIndex(language.findData("de"))
    dialog.accept()
    assert window.app_settings.text("view/language") == "de"
    again = window.menus.show_preferences()
    assert again.language.chosen() is Language.GERMAN
    again.reject()
    assert isinstance(again, QDialog)
