"""Settings that outlive the window, kept with QSettings in an INI file in the config folder.

The INI file is :func:`~app.engine.paths.settings_file` (``~/.config/Tandem/settings.ini``
on Linux) rather than the platform registry, so ``TANDEM_DATA_DIR`` moves it
together with the conversations: tests and portable installs never touch the
user's settings.

Only what belongs to this machine is global (context size, threads, GPU
layers). What a chat is generated with (system prompt, sampling, drafter) is
the chat's own, in the chat database; a new chat starts from the default
preset or the defaults. What older versions kept here for new chats (the key
``chat/new_chat``, and before it the chat settings under ``generation/``) is
ignored: it was whatever the last new chat had been given.

The file is this user's alone (0600): created empty with that mode before
QSettings first reads it, and tightened if an older Tandem left it looser.
QSettings rewrites it through QSaveFile, which keeps the mode it finds.

QSettings reads the whole file, waiting on a FIFO for ever and reading a
device to its end, so the file is looked at first: something that is not a
regular file, or one far larger than settings are
(:data:`MAX_SETTINGS_BYTES`), is left as it is and ignored with one log
line; the session runs on the defaults and keeps its changes in a temporary
file of its own. A link to a regular file is followed, as QSettings does: a
user may keep the file with the rest of their configuration.
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from app.core.errors import TandemError
from app.core.memory.offload import AUTO_GPU_LAYERS
from app.core.tools.call_stream import ToolFormat
from app.core.tools.prefs import ToolPrefs
from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.paths import settings_file
from app.engine.remote.limits import RemoteLimits
from app.engine.safe_files import make_private, regular_file_problem

_LOG = logging.getLogger(__name__)
# Window geometry and a few dozen values take kilobytes; a file of megabytes is not settings Tandem wrote.
MAX_SETTINGS_BYTES = 4 * 1024 * 1024

ORGANISATION = "Tandem"
APPLICATION = "Tandem"


@dataclass(frozen=True, slots=True)
class GenerationSettings:
    """This machine's settings: how the models are loaded (they apply on the next load)."""

    n_ctx: int = 4096
    # AUTO_GPU_LAYERS: the largest counts that fit the free VRAM, the draft first (0 on a CPU build).
    n_gpu_layers: int = AUTO_GPU_LAYERS
    n_gpu_layers_draft: int = AUTO_GPU_LAYERS
    n_threads: int = 0  # 0: auto, measured while decoding (app.core.adaptive.threads)

    def load_settings_differ(self, other: GenerationSettings) -> bool:
        """True when ``other`` needs the models reloaded to take effect."""
        keys = ("n_ctx", "n_gpu_layers", "n_gpu_layers_draft", "n_threads")
        return any(getattr(self, k) != getattr(other, k) for k in keys)


@dataclass(frozen=True, slots=True)
class PairChoice:
    """The model pair the user picked."""

    target: Path
    draft: Path | None
    drafter: DrafterKind
    projector: Path | None = None  # the vision projector picked for the target (None: an mmproj*.gguf beside it)

    def config(self, settings: GenerationSettings) -> PairConfig:
        """A loadable configuration with the context, thread and GPU settings applied."""
        return PairConfig(
            self.target,
            self.draft if self.drafter.uses_draft_model else None,
            self.drafter,
            n_ctx=settings.n_ctx,
            n_threads=settings.n_threads or None,
            n_gpu_layers=settings.n_gpu_layers,
            n_gpu_layers_draft=settings.n_gpu_layers_draft,
            projector=self.projector,
        )


@dataclass(frozen=True, slots=True)
class RemoteChoice:
    """The server the user last connected to: its base URL and model (the API key is kept elsewhere)."""

    base_url: str
    model: str = ""


TOOL_FORMAT_SETTING = "tools/format"  # the tool-call format named over the template's ("" or absent: the template's)


def tool_format_setting(text: str) -> ToolFormat | None:
    """The tool-call format a stored setting names; None for the template's (empty, or a name not known here)."""
    try:
        return ToolFormat(text) if text else None
    except ValueError:
        return None


def settings_path() -> Path:
    """The INI file."""
    return settings_file()


@dataclass(frozen=True, slots=True)
class LocalServerChoice:
    """The window's Local server switch as last started: its port, the web pages allowed, the request log."""

    port: int = 8080  # serve's default, so a client set up for the CLI finds the window too
    origins: str = ""  # none: browsers are refused
    log: bool = False  # off by default in the window


class AppSettings:
    """Typed access to the stored settings."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or settings_path()
        # Why the file is not used (empty: it is); the session's settings then go to a scratch file.
        self.problem = regular_file_problem(self.path, MAX_SETTINGS_BYTES)
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        if self.problem:
            _LOG.warning("settings: ignored %s: %s; this session's changes are not kept", self.path, self.problem)
            self._scratch = tempfile.TemporaryDirectory(prefix="tandem-settings-")
            self._qs = QSettings(str(Path(self._scratch.name) / "settings.ini"), QSettings.Format.IniFormat)
            return
        make_private(self.path)  # before QSettings writes it with the default 0644
        self._qs = QSettings(str(self.path), QSettings.Format.IniFormat)

    def generation(self) -> GenerationSettings:
        """The stored generation settings; unknown or malformed values fall back to defaults."""
        defaults = GenerationSettings()
        values: dict[str, Any] = {}
        for f in fields(GenerationSettings):
            default = getattr(defaults, f.name)
            raw = self._qs.value(f"generation/{f.name}", default)
            values[f.name] = _coerce(raw, default)
        try:
            return GenerationSettings(**values)
        except (TypeError, ValueError):
            return defaults

    def set_generation(self, settings: GenerationSettings) -> None:
        """Store the generation settings."""
        for f in fields(GenerationSettings):
            self._qs.setValue(f"generation/{f.name}", getattr(settings, f.name))
        self._qs.sync()

    def pair(self) -> PairChoice | None:
        """The last pair the user loaded, if it was stored."""
        target = str(self._qs.value("pair/target", "") or "")
        if not target:
            return None
        draft = str(self._qs.value("pair/draft", "") or "")
        try:
            kind = DrafterKind(str(self._qs.value("pair/drafter", DrafterKind.HYBRID.value)))
        except ValueError:
            kind = DrafterKind.HYBRID
        if kind.uses_draft_model and not draft:
            kind = DrafterKind.NGRAM
        projector = str(self._qs.value("pair/projector", "") or "")
        return PairChoice(Path(target), Path(draft) if draft else None, kind, Path(projector) if projector else None)

    def set_pair(self, choice: PairChoice) -> None:
        """Remember the pair for the next start."""
        self._qs.setValue("pair/target", str(choice.target))
        self._qs.setValue("pair/draft", str(choice.draft) if choice.draft else "")
        self._qs.setValue("pair/drafter", choice.drafter.value)
        self._qs.setValue("pair/projector", str(choice.projector) if choice.projector else "")
        self._qs.sync()

    def clear_pair(self) -> None:
        """Forget the remembered pair (it failed to load)."""
        for key in ("pair/target", "pair/draft", "pair/drafter", "pair/projector"):
            self._qs.remove(key)
        self._qs.sync()

    def remote(self) -> RemoteChoice | None:
        """The server last chosen in the picker, if any."""
        url = str(self._qs.value("remote/base_url", "") or "").strip()
        return RemoteChoice(url, str(self._qs.value("remote/model", "") or "")) if url else None

    def set_remote(self, choice: RemoteChoice) -> None:
        """Remember the server and model (never the API key: see app.engine.remote.credentials)."""
        self._qs.setValue("remote/base_url", choice.base_url)
        self._qs.setValue("remote/model", choice.model)
        self._qs.sync()

    def remote_limits(self) -> RemoteLimits:
        """The remote reply's deadline and idle time-out set on this machine (defaults where unset or malformed)."""
        defaults = RemoteLimits()
        deadline = _coerce(self._qs.value("remote/deadline_s", defaults.deadline_s), defaults.deadline_s)
        idle = _coerce(self._qs.value("remote/idle_s", defaults.idle_s), defaults.idle_s)
        try:
            return RemoteLimits(deadline_s=float(deadline), idle_s=float(idle))
        except TandemError:
            return defaults

    def set_remote_limits(self, limits: RemoteLimits) -> None:
        """Store the remote reply's deadline and idle time-out."""
        self._qs.setValue("remote/deadline_s", limits.deadline_s)
        self._qs.setValue("remote/idle_s", limits.idle_s)
        self._qs.sync()

    def local_server(self) -> LocalServerChoice:
        """The Local server switch's port, allowed web pages and log choice as last started (defaults where unset)."""
        default = LocalServerChoice()
        port = _coerce(self._qs.value("server/port", default.port), default.port)
        origins = self._qs.value("server/cors_origins", default.origins)
        log = _coerce(self._qs.value("server/log", default.log), default.log)
        return LocalServerChoice(
            int(port) if 0 <= int(port) <= 65535 else default.port,
            origins if isinstance(origins, str) else default.origins,
            bool(log),
        )

    def set_local_server(self, choice: LocalServerChoice) -> None:
        """Keep the Local server switch's choices for the next launch."""
        self._qs.setValue("server/port", choice.port)
        self._qs.setValue("server/cors_origins", choice.origins)
        self._qs.setValue("server/log", choice.log)
        self._qs.sync()

    def flag(self, key: str, default: bool) -> bool:
        """A boolean view preference."""
        return bool(_coerce(self._qs.value(f"view/{key}", default), default))

    def set_flag(self, key: str, value: bool) -> None:
        """Store a boolean view preference."""
        self._qs.setValue(f"view/{key}", value)

    def text(self, key: str, default: str = "") -> str:
        """A string preference (theme, last folder...)."""
        return str(self._qs.value(key, default) or default)

    def set_text(self, key: str, value: str) -> None:
        """Store a string preference."""
        self._qs.setValue(key, value)

    def tool_prefs(self) -> ToolPrefs:
        """Tools on in new chats, and the MCP server commands the user let start."""
        return ToolPrefs.from_json(self.text("tools/prefs"))

    def set_tool_prefs(self, prefs: ToolPrefs) -> None:
        """Store the tool preferences at once (a confirmation must survive a crash)."""
        self._qs.setValue("tools/prefs", prefs.to_json())
        self._qs.sync()

    def baseline(self, target: Path, n_threads: int) -> float | None:
        """The target-only speed measured on this machine for ``target`` (tokens/s), if any."""
        value = self._qs.value(f"baseline/{_model_key(target, n_threads)}/tokens_per_second", None)
        rate = _coerce(value, 0.0) if value is not None else 0.0
        return rate if rate > 0 else None

    def set_baseline(self, target: Path, n_threads: int, tokens_per_second: float) -> None:
        """Remember a target-only measurement (from an A/B run or a target-only reply)."""
        key = f"baseline/{_model_key(target, n_threads)}"
        self._qs.setValue(f"{key}/tokens_per_second", float(tokens_per_second))
        self._qs.setValue(f"{key}/measured_at", time.time())

    def geometry(self, key: str) -> QByteArray | None:
        """Saved window or splitter state."""
        value = self._qs.value(f"window/{key}")
        return value if isinstance(value, QByteArray) else None

    def set_geometry(self, key: str, value: QByteArray) -> None:
        """Save window or splitter state."""
        self._qs.setValue(f"window/{key}", value)

    def sync(self) -> None:
        """Write to disk now."""
        self._qs.sync()


def _model_key(target: Path, n_threads: int) -> str:
    # The file name and size identify the weights well enough; the thread count changes the speed.
    try:
        size = target.stat().st_size
    except OSError:
        size = 0
    safe = "".join(c if c.isalnum() else "_" for c in target.name)
    return f"{safe}_{size}_t{n_threads}"


def _coerce(raw: Any, default: Any) -> Any:
    """INI files return strings: turn ``raw`` back into ``default``'s type."""
    if isinstance(default, bool):
        if isinstance(raw, str):
            return raw.strip().lower() in ("1", "true", "yes", "on")
        return bool(raw)
    try:
        if isinstance(default, int):
            return int(float(raw))
        if isinstance(default, float):
            return float(raw)
    except (TypeError, ValueError):
        return default
    return default if raw is None else str(raw)
