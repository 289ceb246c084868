"""The side panels in German: every entry of their translation file finished, and the panels showing it.

The panels' strings (models, settings, stats, steps, tools, start) are in
``translations/tandem_de_panels.ts``. The file is compiled here with the real
``pyside6-lrelease`` and installed as a QTranslator, so a string whose
context differs from the one ``self.tr`` looks up at run time, or one the
file lacks, shows English and fails the test.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QTranslator
from PySide6.QtWidgets import QAbstractButton, QDialogButtonBox, QGroupBox, QLabel, QPushButton, QWidget

from app.ui.models.server_switch import ServerSwitch
from app.ui.settings.panel import SettingsPanel
from app.ui.settings.preferences import Preferences, PreferencesDialog
from app.ui.settings.store import GenerationSettings
from app.ui.stats.stats_panel import StatsPanel
from app.ui.steps.step_view import StepView
from tests.paths import REPO_ROOT

TS_FILE = REPO_ROOT / "translations" / "tandem_de_panels.ts"
PLACEHOLDER = re.compile(r"\{[a-z_]+")


def _messages() -> list[ET.Element]:
    return list(ET.parse(TS_FILE).getroot().iter("message"))


def _translation_texts(message: ET.Element) -> list[str]:
    translation = message.find("translation")
    assert translation is not None
    if message.get("numerus") == "yes":
        return [form.text or "" for form in translation.iter("numerusform")]
    return [translation.text or ""]


def test_every_entry_is_finished_and_keeps_its_placeholders() -> None:
    messages = _messages()
    assert len(messages) > 300  # the panels' strings, not a stub
    for message in messages:
        source = message.findtext("source") or ""
        translation = message.find("translation")
        assert translation is not None and translation.get("type") is None, f"unfinished: {source!r}"
        for text in _translation_texts(message):
            assert text.strip(), f"empty translation: {source!r}"
            # str.format fills the translated text: a placeholder lost or renamed would raise at run time.
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(source)), source
            assert ("%n" in text) == ("%n" in source), source


def _lrelease() -> str:
    found = shutil.which("pyside6-lrelease") or str(Path(sys.executable).with_name("pyside6-lrelease"))
    assert Path(found).exists(), "pyside6-lrelease comes with PySide6"
    return found


@pytest.fixture
def german(qapp: QCoreApplication, tmp_path: Path) -> Iterator[QTranslator]:
    """The panels' translation compiled by lrelease and installed for the test."""
    qm = tmp_path / "panels_de.qm"
    subprocess.run([_lrelease(), str(TS_FILE), "-qm", str(qm)], check=True, capture_output=True, timeout=120)
    translator = QTranslator()
    assert translator.load(str(qm))
    QCoreApplication.installTranslator(translator)
    yield translator
    QCoreApplication.removeTranslator(translator)


def _standard_button(widget: QWidget) -> bool:
    box = widget.parent()
    return (
        isinstance(widget, QPushButton)
        and isinstance(box, QDialogButtonBox)
        and box.standardButton(widget) != QDialogButtonBox.StandardButton.NoButton
    )


def _visible_texts(widget: QWidget) -> list[str]:
    """Labels, buttons and group titles in ``widget``, and its widgets' tooltips and placeholders."""
    texts: list[str] = []
    for child in [widget, *widget.findChildren(QWidget)]:
        if _standard_button(child):
            continue  # OK, Cancel, Close: Qt's own qtbase translation names them, not the panels' file
        if isinstance(child, QLabel | QAbstractButton):
            texts.append(child.text())
        if isinstance(child, QGroupBox):
            texts.append(child.title())
        texts.append(child.toolTip())
        placeholder = getattr(child, "placeholderText", None)
        if callable(placeholder):
            texts.append(str(placeholder()))
    return [t for t in texts if t]


def test_the_panels_show_german(qtbot, german: QTranslator) -> None:
    english = {message.findtext("source") or "" for message in _messages()}
    settings = SettingsPanel(gpu_offload=False)
    stats = StatsPanel()
    steps = StepView()
    switch = ServerSwitch(host=None)  # type: ignore[arg-type]  # the host is used only once serving starts
    preferences = PreferencesDialog(Preferences("system", False, GenerationSettings()), gpu_offload=True)
    widgets: list[QWidget] = [settings, stats, steps, switch, preferences]
    for widget in widgets:
        qtbot.addWidget(widget)
    assert settings.reset_button.text() == "Diesen Chat auf Standardwerte zurücksetzen"
    assert settings.drafter.itemText(0).startswith("Hybrid (Prompt-Lookup")
    assert settings.seed.specialValueText() == "zufällig"
    # The translator alone (the locale's number marks are the app's, set where it installs its catalogues).
    assert settings.sampling_defaults.text().startswith("Standardwerte wie beim Server von llama.cpp: Temperatur 0")
    assert stats.baseline_note.text() == "Rate nur mit Zielmodell noch nicht gemessen: A/B ausführen"
    assert steps.notice.text().startswith("Für diese Antwort wurden keine Schritte aufgezeichnet")
    assert preferences.theme.itemText(0) == "System" and preferences.theme.itemText(2) == "Dunkel"
    for widget in widgets:
        untranslated = [t for t in _visible_texts(widget) if t in english and t not in _SAME_IN_GERMAN]
        assert not untranslated, f"{type(widget).__name__} shows English: {untranslated}"


# Words German spells as English does: showing them is no sign of a missing translation.
_SAME_IN_GERMAN = {
    "System", "Sampling", "Top-k", "Top-p", "Min-p", "Seed", "Drafter", "Threads", "Auto", "auto",
    "Token", "Tokens/s", "Prompt", "Hybrid", "Server", "URL", "Draft", "Pause", "HTML (*.html)", "Greedy",
}  # fmt: skip
