"""Settings that outlive the window, kept with QSettings in an INI file in the data folder.

The INI file sits in :func:`~app.engine.paths.data_dir` rather than the
platform registry, so ``TANDEM_DATA_DIR`` moves it together with the
conversations: tests and portable installs never touch the user's settings.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from app.core.decoding.sampling import SamplingParams
from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.paths import data_dir

ORGANISATION = "Tandem"
APPLICATION = "Tandem"


@dataclass(frozen=True, slots=True)
class GenerationSettings:
    """Everything the settings panel edits."""

    temperature: float = 0.0
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    repeat_penalty: float = 1.0
    seed: int = -1  # -1: a fresh random seed for every reply
    draft_length: int = 4
    adaptive: bool = True  # the controller turns drafting off where it does not pay
    max_tokens: int = 512
    n_ctx: int = 4096
    n_gpu_layers: int = 0
    n_gpu_layers_draft: int = 0
    n_threads: int = 0  # 0: llama.cpp's choice (physical cores)
    system_prompt: str = ""

    def sampling_params(self) -> SamplingParams:
        """The sampling part, as the decoder takes it."""
        return SamplingParams(
            temperature=self.temperature,
            top_k=self.top_k,
            top_p=self.top_p,
            min_p=self.min_p,
            repeat_penalty=self.repeat_penalty,
            seed=None if self.seed < 0 else self.seed,
        )

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
        )


def settings_path() -> Path:
    """The INI file."""
    return data_dir() / "settings.ini"


class AppSettings:
    """Typed access to the stored settings."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or settings_path()
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
        return PairChoice(Path(target), Path(draft) if draft else None, kind)

    def set_pair(self, choice: PairChoice) -> None:
        """Remember the pair for the next start."""
        self._qs.setValue("pair/target", str(choice.target))
        self._qs.setValue("pair/draft", str(choice.draft) if choice.draft else "")
        self._qs.setValue("pair/drafter", choice.drafter.value)
        self._qs.sync()

    def clear_pair(self) -> None:
        """Forget the remembered pair (it failed to load)."""
        for key in ("pair/target", "pair/draft", "pair/drafter"):
            self._qs.remove(key)
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
