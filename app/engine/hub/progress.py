"""Download progress: the report the GUI and CLI receive, and the meter that computes speed and ETA.

Kept apart from :mod:`app.engine.hub.download` so that code which only shows
progress or catches download errors does not import huggingface_hub and its
HTTP stack (about a third of a second at start-up).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from app.core.errors import TandemError

CHUNK_BYTES = 1024 * 1024  # progress and cancel granularity of a transfer
_REPORT_INTERVAL_S = 0.1
_SPEED_WINDOW_S = 5.0


class DownloadError(TandemError):
    """A download failed; the message says why and what to do."""


class DownloadCancelledError(DownloadError):
    """The user cancelled; the bytes so far are kept for a later resume."""


@dataclass(frozen=True, slots=True)
class DownloadProgress:
    """One progress report. Sent from the downloading thread, at most ten times a second."""

    filename: str
    bytes_done: int
    bytes_total: int | None
    speed_bps: float
    eta_s: float | None
    stage: str = "downloading"  # "connecting", "downloading", "verifying", "done" (PyPI: "fetching", "assembling")
    file_index: int = 1
    file_count: int = 1

    @property
    def fraction(self) -> float | None:
        """0..1, or None when the total is unknown."""
        return self.bytes_done / self.bytes_total if self.bytes_total else None


ProgressCallback = Callable[[DownloadProgress], None]


class ProgressMeter:
    """Turns byte counts into throttled :class:`DownloadProgress` reports with speed and ETA.

    Speed is measured over the last few seconds, not since the start, so the
    ETA follows a changing line speed; bytes found on disk at a resume do not
    count as speed.
    """

    def __init__(
        self, callback: ProgressCallback | None, filename: str, file_index: int = 1, file_count: int = 1
    ) -> None:
        self.callback = callback
        self.filename = filename
        self.file_index = file_index
        self.file_count = file_count
        self.total: int | None = None
        self._samples: list[tuple[float, int]] = []
        self._last_emit = 0.0

    def start(self, done: int, total: int | None) -> None:
        """Begin (or resume) measuring from ``done`` bytes."""
        self.total = total
        self._samples = [(time.monotonic(), done)]

    def speed(self) -> float:
        """Bytes per second over the recent window."""
        if len(self._samples) < 2:
            return 0.0
        (t0, b0), (t1, b1) = self._samples[0], self._samples[-1]
        return (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0

    def update(self, done: int, stage: str = "downloading", force: bool = False) -> None:
        """Record ``done`` bytes; report when due (or when ``force``)."""
        now = time.monotonic()
        self._samples.append((now, done))
        while len(self._samples) > 2 and now - self._samples[1][0] > _SPEED_WINDOW_S:
            self._samples.pop(0)
        if self.callback is None or (not force and now - self._last_emit < _REPORT_INTERVAL_S):
            return
        self._last_emit = now
        speed = self.speed()
        remaining = None if self.total is None else max(self.total - done, 0)
        eta = None if remaining is None or speed <= 0 else remaining / speed
        self.callback(
            DownloadProgress(
                filename=self.filename,
                bytes_done=done,
                bytes_total=self.total,
                speed_bps=speed,
                eta_s=eta,
                stage=stage,
                file_index=self.file_index,
                file_count=self.file_count,
            )
        )
