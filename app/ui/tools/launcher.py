"""The tools launcher: the window's Tools actions (A/B, the temperature sweep, pre-flight) and their dialogs.

Each tool measures the loaded local pair on the engine thread, so at most
one runs at a time, only while the chat is idle, never against a remote
server (whose speed and drafts are its own). A/B and the sweep rerun the
open chat's last prompt with one seed for both runs; pre-flight measures the
machine. What they measure of the target alone becomes the speedup baseline.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QCoreApplication, QObject, Qt, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QMainWindow

from app.engine.reply import ReplyRequest
from app.ui.chat.controller import ChatController
from app.ui.threads.jobs import ComparisonJob, PairInfo
from app.ui.threads.worker import LOCAL_ONLY, EngineHost
from app.ui.tools.ab_dialog import ABDialog
from app.ui.tools.preflight_dialog import PreflightDialog
from app.ui.tools.sweep_dialog import SweepDialog

SWEEP_TEMPERATURES = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
AB_REPEATS = 3  # runs per A/B arm: enough for a min-max spread to say whether a difference is noise

_Dialog = TypeVar("_Dialog", ABDialog, SweepDialog, PreflightDialog)


class ToolsLauncher(QObject):
    """Builds the tools' actions, starts their dialogs and keeps them off while they cannot run."""

    def __init__(
        self,
        window: QMainWindow,
        host: EngineHost,
        controller: ChatController,
        baseline_measured: Callable[[float, str], None],
        use_draft: Callable[[Path], None],
    ) -> None:
        super().__init__(window)
        self._window = window  # the dialogs' parent (pre-flight shares its background pool)
        self._host = host
        self._controller = controller
        self._baseline_measured = baseline_measured
        self._use_draft = use_draft
        self._dialog: QDialog | None = None
        self._ab_repeats = AB_REPEATS  # the last "runs per side" chosen in the A/B dialog
        self.ab_action = QAction(self.tr("A/B: rerun the last prompt target-only and with the drafter"), window)
        self.ab_action.triggered.connect(lambda: self.run_ab())
        self.ab_action.setShortcut(QKeySequence("Ctrl+B"))
        self.sweep_action = QAction(self.tr("Temperature sweep…"), window)
        self.sweep_action.triggered.connect(lambda: self.run_sweep())
        self.preflight_action = QAction(self.tr("Pre-flight: will speculation pay here?"), window)
        self.preflight_action.triggered.connect(self.run_preflight)
        # A slot of this object, so it runs on the GUI thread (a lambda would run on the engine thread).
        host.worker.comparison_finished.connect(self._comparison_finished)

    @property
    def actions(self) -> tuple[QAction, QAction, QAction]:
        """A/B, sweep, pre-flight: in the Tools menu and on the toolbar."""
        return (self.ab_action, self.sweep_action, self.preflight_action)

    def _status(self, text: str, timeout: int) -> None:
        self._window.statusBar().showMessage(text, timeout)

    def set_available(self, busy: bool, pair: PairInfo | None) -> None:
        """Offer the tools only while nothing runs and a local pair is loaded."""
        remote = pair is not None and pair.remote is not None
        for action in self.actions:
            action.setEnabled(not busy and pair is not None and not remote)
            # The tools measure the local engine; a server's speed and drafts are its own.
            action.setToolTip(QCoreApplication.translate("EngineWorker", LOCAL_ONLY) if remote else action.text())

    def comparison_job(
        self, temperatures: tuple[float, ...] = (), max_tokens: int | None = None, repeats: int = 1
    ) -> ComparisonJob | None:
        """A job for the last prompt of the open chat, or None (with a message) when there is none.

        The messages carry the chat's own system prompt (``history`` puts it first) and the
        sampling settings are the chat's, so the tools measure what the chat runs.
        """
        controller = self._controller
        cid = controller.conversation_id
        if not controller.can_send() or cid is None:
            self._status(self.tr("load a pair and send a prompt first (and wait for the reply)"), 6000)
            return None
        messages = controller.history(cid, upto_last_user=True)
        if not messages or messages[-1].role != "user":
            self._status(self.tr("no prompt to rerun in this chat"), 6000)
            return None
        settings = controller.chat_settings()
        params = settings.sampling_params()
        if params.seed is None:  # both runs must draw the same random numbers
            params = replace(params, seed=random.randrange(2**31))
        limit = max_tokens or min(settings.max_tokens, 256)
        return ComparisonJob(
            # The reply's reserve is the runs' own limit, as the prompt is fitted for them.
            request=ReplyRequest(
                settings=settings.with_changes(max_tokens=limit),
                messages=tuple(messages),
                chunk_search=controller.store.chunk_search_elsewhere(),
            ),
            params=params,
            max_tokens=limit,
            draft_length=settings.draft_length,
            adaptive=settings.adaptive,
            temperatures=temperatures,
            repeats=max(1, repeats),
        )

    def run_ab(self, repeats: int | None = None, max_tokens: int | None = None) -> ABDialog | None:
        """Open the A/B dialog and start it: ``repeats`` interleaved runs per arm (default: the last chosen)."""
        if repeats is not None:
            self._ab_repeats = max(1, repeats)
        job = self.comparison_job(max_tokens=max_tokens, repeats=self._ab_repeats)
        if job is None:
            return None
        dialog = ABDialog(self._host, job, self._window)
        dialog.baseline_measured.connect(lambda rate: self._baseline_measured(rate, "measured here"))
        dialog.rerun_requested.connect(lambda n: self._rerun_ab(dialog, n, job.max_tokens))
        return self._start(dialog)

    def _rerun_ab(self, dialog: ABDialog, repeats: int, max_tokens: int) -> None:
        # A fresh dialog and job: the finished one stays as it was measured until it closes.
        dialog.close()
        self.run_ab(repeats, max_tokens)

    def run_sweep(
        self, temperatures: tuple[float, ...] = SWEEP_TEMPERATURES, max_tokens: int = 64
    ) -> SweepDialog | None:
        """Open the temperature sweep and start it."""
        job = self.comparison_job(temperatures, max_tokens=max_tokens)
        if job is None:
            return None
        # The sweep measures acceptance, which needs drafts at every temperature: an adaptive
        # controller that (rightly) switches drafting off on a CPU would measure nothing.
        job = replace(job, adaptive=False, draft_length=max(1, job.draft_length))
        return self._start(SweepDialog(self._host, job, self._window))

    def run_preflight(self) -> PreflightDialog | None:
        """Measure this machine with the loaded pair (seeds the adaptive controller and the speedup baseline)."""
        if not self._controller.can_send():
            self._status(self.tr("load a pair first (and wait for the reply to finish)"), 6000)
            return None
        dialog = PreflightDialog(self._host, self._controller.chat_settings().sampling_params(), self._window)
        dialog.baseline_measured.connect(lambda rate: self._baseline_measured(rate, "pre-flight"))
        dialog.use_draft.connect(self._use_draft)
        return self._start(dialog)

    def _start(self, dialog: _Dialog) -> _Dialog:
        self._dialog = dialog
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._controller.set_comparing(True)
        dialog.show()
        dialog.start()
        return dialog

    def close_dialog(self) -> None:
        """Close the tool's dialog if one is open (the window is closing)."""
        if self._dialog is not None:
            with contextlib.suppress(RuntimeError):  # the dialog may already be deleted
                self._dialog.close()

    @Slot()
    def _comparison_finished(self) -> None:
        self._controller.set_comparing(False)
