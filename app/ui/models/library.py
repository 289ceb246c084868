"""The model questions the GUI asks, answered by the engine's model library.

The pair picker and the welcome panel want a short list of local models, the
drafts that fit a target (best first, with the reason, including catalog
drafts still to download), a verdict for one pair, and the curated pairs to
download. This module puts the library's answers in the shapes the widgets
use. Everything here reads files or the network: call it through
:class:`~app.ui.threads.background.Background`, never on the GUI thread.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from app.core.display.units import bytes_words, rate_words
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.pairing.catalog import CatalogModel
from app.core.pairing.compatibility import CompatibilityReport
from app.core.pairing.default_draft import (
    NO_SIZE,
    DefaultDraft,
    DraftFacts,
    ModelSize,
    RelativeSize,
    choose_default_draft,
    relative_size,
)
from app.core.pairing.own_drafter import OwnDrafter
from app.engine.llama.quantize import is_cheaper_draft
from app.engine.models import library as model_library
from app.engine.models.library import DownloadProgress
from app.engine.paths import models_dir
from app.ui.i18n.words import say


@dataclass(frozen=True, slots=True)
class LocalModel:
    """A GGUF file the user can pick."""

    path: Path
    label: str  # what the combo box shows
    size: int
    error: str | None = None  # why the file cannot be used, if it cannot


@dataclass(frozen=True, slots=True)
class DraftOption:
    """A possible drafter for a target, with why (or why not)."""

    label: str
    compatible: bool
    reason: str  # in the window's language
    path: Path | None = None  # None: a catalog model still to download
    catalog_model: CatalogModel | None = None
    size: ModelSize = NO_SIZE  # weights and bytes, for the default-draft rule


@dataclass(frozen=True, slots=True)
class DownloadablePair:
    """A curated pair from the catalog."""

    pair_id: str
    label: str
    size: int
    description: str


def _relative_size_words(size: RelativeSize) -> str:
    """A draft entry's words on its size against the target, in the window's language."""
    if size.kind == "unknown":
        return QCoreApplication.translate("ModelLibrary", "size against the target unknown")
    if size.kind == "same":
        return QCoreApplication.translate("ModelLibrary", "as large as the target")
    if size.kind == "larger":
        return QCoreApplication.translate("ModelLibrary", "larger than the target")
    if size.by == "weights":
        return QCoreApplication.translate("ModelLibrary", "{share} of the target's weights").format(share=size.share)
    return QCoreApplication.translate("ModelLibrary", "{share} of the target's size").format(share=size.share)


def local_models() -> list[LocalModel]:
    """Every GGUF the library knows (models folder, added files, other apps' caches), largest first."""
    out: list[LocalModel] = []
    for model in model_library.list_local_models():
        if model.ok:
            label = _model_label(model.name, model.quant, say(bytes_words(model.file_size)), model.path)
        else:
            label = "✗ " + QCoreApplication.translate("ModelLibrary", "{name} (unreadable)").format(
                name=model.path.name
            )
        error = say(model.error_words) if model.error_words is not None else model.error
        out.append(LocalModel(model.path, label, model.file_size, error))
    labels = _distinct([m.label for m in out], [m.path for m in out])
    out = [LocalModel(m.path, label, m.size, m.error) for m, label in zip(out, labels, strict=True)]
    return sorted(out, key=lambda m: (m.error is not None, -m.size, m.path.name))


@dataclass(frozen=True, slots=True)
class DraftOptions:
    """A target's draft list as shown, and which entry is the default (none: n-gram lookup, with why)."""

    options: list[DraftOption]
    default: DefaultDraft
    own: OwnDrafter | None = None  # what the target's header says it carries as its own drafter (MTP layers)
    heads: tuple[tuple[Path, OwnDrafter], ...] = ()  # local EAGLE-3 heads and DFlash drafters that fit the target


def draft_options(target: Path) -> DraftOptions:
    """Drafts for ``target``: compatible ones best first (local, then to download), then incompatible local files.

    The default is the first compatible draft smaller than the target
    (:func:`~app.core.pairing.default_draft.choose_default_draft`).
    """
    inspection = model_library.inspect_model(target)
    target_size = ModelSize(inspection.n_params, inspection.file_size)
    options: list[DraftOption] = []
    for candidate in model_library.compatible_drafts(target, include_incompatible=True):
        if candidate.path is not None:
            label = _model_label(candidate.name, candidate.quant, say(bytes_words(candidate.file_size)), candidate.path)
        else:
            download = QCoreApplication.translate("ModelLibrary", "download {size}").format(
                size=say(bytes_words(candidate.file_size))
            )
            label = f"⤓ {candidate.name}  ·  {candidate.quant}  ·  {download}"
        size = ModelSize(candidate.n_params, candidate.file_size)
        # The draft list shows the same models as the target list: each entry says how it compares to the target.
        label = f"{label}  ·  {_relative_size_words(relative_size(target_size, size))}"
        options.append(
            DraftOption(
                label, candidate.compatible, say(candidate.reason_words), candidate.path, candidate.catalog_model, size
            )
        )
    labels = _distinct([o.label for o in options], [o.path for o in options])
    shown = [
        DraftOption(label, o.compatible, o.reason, o.path, o.catalog_model, o.size)
        for o, label in zip(options, labels, strict=True)
    ]
    facts = [DraftFacts(o.label, o.size, o.compatible) for o in shown]
    return DraftOptions(
        shown,
        choose_default_draft(target_size, facts),
        model_library.own_drafter(target),
        tuple(model_library.heads_for(target)),
    )


def _model_label(name: str, quant: str, size: str, path: Path) -> str:
    """Name, quantisation and size; pre-flight's cheaper copy says so (it shares its source's name)."""
    copy = "  ·  " + QCoreApplication.translate("ModelLibrary", "cheaper copy") if is_cheaper_draft(path) else ""
    return f"{name}  ·  {quant}{copy}  ·  {size}"


def _distinct(labels: list[str], paths: list[Path | None]) -> list[str]:
    """The labels, with the file name added to each that another entry also shows (two copies of one model)."""
    seen = Counter(labels)
    return [
        f"{label}  ·  {path.name}" if seen[label] > 1 and path is not None else label
        for label, path in zip(labels, paths, strict=True)
    ]


def check_pair(target: Path, draft: Path) -> CompatibilityReport:
    """The compatibility verdict for one pair, with every failed rule."""
    return model_library.check_models(target, draft)


def downloadable_pairs() -> list[DownloadablePair]:
    """Curated pairs from the catalog (empty when the catalog cannot be read)."""
    try:
        catalog = model_library.load_catalog()
    except Exception:  # a broken catalog must not break the welcome panel
        return []
    return [DownloadablePair(p.id, p.name, p.download_size, p.description) for p in catalog.pairs]


Progress = Callable[[str, int, int], None]  # (stage in the window's language, done bytes, total bytes)

# The download meter's stages (app/engine/hub/progress.py), worded for the window.
STAGES = {
    "connecting": QT_TRANSLATE_NOOP("ModelLibrary", "connecting"),
    "downloading": QT_TRANSLATE_NOOP("ModelLibrary", "downloading"),
    "verifying": QT_TRANSLATE_NOOP("ModelLibrary", "verifying"),
    "done": QT_TRANSLATE_NOOP("ModelLibrary", "done"),
    "fetching": QT_TRANSLATE_NOOP("ModelLibrary", "fetching"),
    "assembling": QT_TRANSLATE_NOOP("ModelLibrary", "assembling"),
    "quantising": QT_TRANSLATE_NOOP("ModelLibrary", "quantising"),
}


def stage_text(stage: str) -> str:
    """A download stage keyword in the window's language (an unknown one as it is)."""
    known = STAGES.get(stage)
    return say(known) if known is not None else stage


def _relay(progress: Progress) -> Callable[[DownloadProgress], None]:
    def relay(update: DownloadProgress) -> None:
        which = (
            " "
            + QCoreApplication.translate("ModelLibrary", "({index} of {count})").format(
                index=update.file_index, count=update.file_count
            )
            if update.file_count > 1
            else ""
        )
        speed = f", {say(rate_words(update.speed_bps))}" if update.speed_bps > 0 else ""
        progress(
            f"{stage_text(update.stage)} {update.filename}{which}{speed}", update.bytes_done, update.bytes_total or 0
        )

    return relay


def download_pair(pair_id: str, progress: Progress, cancel: threading.Event) -> tuple[Path, Path]:
    """Download a curated pair, reporting bytes as they arrive."""
    return model_library.download_pair(pair_id, _relay(progress), cancel)


def download_draft(model: CatalogModel, progress: Progress, cancel: threading.Event) -> Path:
    """Fetch one catalog model (a draft offered for the current target)."""
    return model_library.download_catalog_model(model, _relay(progress), cancel, folder=models_dir())


def add_local_model(path: Path) -> Path:
    """Register a GGUF file chosen by the user (its header is read and checked first)."""
    return model_library.add_local_model(path).path
