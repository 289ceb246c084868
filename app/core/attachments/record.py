"""One attached file (or folder) as the chat keeps it: its extracted text, where its pages or files start.

The original may move or vanish after attaching; the chat keeps this record
(in the store, de-duplicated by ``sha256`` of the original bytes) and works
from it alone. ``sections`` mark where each page of a PDF or each file of a
folder starts in ``text``, so a passage (a retrieved chunk, a copied token)
can be cited as "report.pdf p. 3" or "src/app.py". ``notes`` say what the
extraction changed or left out (an encoding that was guessed, files over a
size cap skipped), so nothing is applied silently.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core import stored_json


class AttachmentKind(enum.StrEnum):
    """What an attachment was made from; the value is the stored text."""

    TEXT = "text"
    MARKDOWN = "markdown"
    CODE = "code"
    PDF = "pdf"
    HTML = "html"
    FOLDER = "folder"


@dataclass(frozen=True, slots=True)
class Section:
    """Where a page or a file starts in an attachment's text, and how to cite it ("p. 3", "src/app.py")."""

    label: str
    start: int  # character offset into the attachment's text

    def to_json(self) -> list[Any]:
        """``[label, start]``."""
        return [self.label, self.start]


@dataclass(frozen=True, slots=True)
class Attachment:
    """An attached file's extracted text and what is known about it (see the module's docstring)."""

    name: str  # the file's (or folder's) name as attached, without its directory
    kind: AttachmentKind
    sha256: str  # of the original bytes (a folder: of its kept files' paths and bytes)
    size: int  # bytes of the original (a folder: of the files kept)
    text: str
    sections: tuple[Section, ...] = ()  # in order of ``start``
    notes: tuple[str, ...] = ()
    encoding: str | None = None  # the text encoding read (detected, not assumed), where there was one

    def section_at(self, offset: int) -> Section | None:
        """The page or file that holds character ``offset`` of the text, or None where there are none."""
        starts = [section.start for section in self.sections]
        place = bisect.bisect_right(starts, offset) - 1
        return self.sections[place] if place >= 0 else None

    def cite(self, offset: int) -> str:
        """How a passage at ``offset`` is named to the user: "report.pdf, p. 3", or the name alone."""
        section = self.section_at(offset)
        if section is None:
            return self.name
        if self.kind is AttachmentKind.FOLDER:
            return f"{self.name}/{section.label}"
        return f"{self.name}, {section.label}"

    def meta_json(self) -> dict[str, Any]:
        """What the store keeps beside the text (one spelling; :meth:`from_stored` reads it back)."""
        return {
            "sections": [section.to_json() for section in self.sections],
            "notes": list(self.notes),
            "encoding": self.encoding,
        }

    @classmethod
    def from_stored(
        cls, name: str, kind: str, sha256: str, size: int, text: str, meta: Mapping[str, Any]
    ) -> Attachment:
        """An attachment from its stored columns; ValueError for a kind or meta this Tandem cannot read."""
        sections = []
        for item in meta.get("sections", []):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                raise ValueError(f"the attachment {name!r} has a section that is not [label, start]")
            if isinstance(item[1], bool) or not isinstance(item[1], int):
                raise ValueError(f"the attachment {name!r} has a section start that is not a whole number")
            sections.append(Section(item[0], item[1]))
        notes = meta.get("notes", [])
        if not isinstance(notes, list) or not all(isinstance(note, str) for note in notes):
            raise ValueError(f"the attachment {name!r} has notes that are not text")
        encoding = meta.get("encoding")
        if encoding is not None and not isinstance(encoding, str):
            raise ValueError(f"the attachment {name!r} has an encoding that is not text")
        return cls(
            name=name,
            kind=AttachmentKind(kind),
            sha256=sha256,
            size=size,
            text=text,
            sections=tuple(sections),
            notes=tuple(notes),
            encoding=encoding,
        )


@dataclass(frozen=True, slots=True)
class AttachmentUse:
    """How one attachment entered a reply's prompt: whole, or which chunks retrieval chose (their citations)."""

    name: str
    sha256: str
    whole: bool
    chunks: tuple[str, ...] = field(default=())  # citations of the chunks used, when not whole
    tokens: int = 0  # prompt tokens it took
    left_out: bool = False  # it did not fit at all

    def to_json(self) -> dict[str, Any]:
        """The ``chat --json`` / provenance spelling."""
        return {
            "name": self.name,
            "sha256": self.sha256,
            "whole": self.whole,
            "chunks": list(self.chunks),
            "tokens": self.tokens,
            "left_out": self.left_out,
        }

    @classmethod
    def from_json(cls, raw: object) -> AttachmentUse | None:
        """Read back tolerantly: a field of the wrong type takes its default; None without a name."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            return None
        chunks = raw.get("chunks")
        return cls(
            name=raw["name"],
            sha256=stored_json.field(raw, "sha256", str, ""),
            whole=raw.get("whole") is True,
            chunks=tuple(c for c in chunks if isinstance(c, str)) if isinstance(chunks, list) else (),
            tokens=stored_json.field(raw, "tokens", int, 0),
            left_out=raw.get("left_out") is True,
        )


def uses_from_json(raw: object) -> tuple[AttachmentUse, ...]:
    """The attachments a stored provenance names (older ones name none; a malformed entry is skipped)."""
    uses = (AttachmentUse.from_json(item) for item in stored_json.as_list(raw))
    return tuple(use for use in uses if use is not None)
