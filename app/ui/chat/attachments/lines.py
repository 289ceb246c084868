"""The chat view's attachment lines: a message's chips, and the passages a reply was given.

Under a message with attachments: one link per file, "📎 report.pdf · 1.2 MiB
· 9,800 tokens" (the paperclip where the font has one), which opens its
extracted text. Under a reply whose prompt
held retrieved passages: "from report.pdf p. 3, p. 7", each citation a link
that opens the text scrolled to that passage. The links use the view's own
``tandem:`` schemes; :mod:`app.ui.chat.attachments.flow` answers them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QCoreApplication, Qt, QUrl
from PySide6.QtGui import QColor, QFontMetrics, QImage, QTextCharFormat, QTextCursor, QTextDocument, QTextImageFormat

from app.core.attachments.record import Attachment, AttachmentUse
from app.core.conversation.images import ImageInput, image_dimensions
from app.ui.chat.attachments.access import chip_label, paperclip
from app.ui.chat.view.message_lines import new_block
from app.ui.chat.view.token_painter import Prop, TokenPainter

OPEN_ATTACHMENT = "tandem:attachment"
OPEN_CITATION = "tandem:citation"
IMAGE_RESOURCE = "tandem-image:"  # + the image's digest: the view document's resource for its thumbnail
THUMBNAIL_PX = 160  # a transcript thumbnail's longer side


def _link(fmt: QTextCharFormat, painter: TokenPainter, href: str) -> QTextCharFormat:
    link = QTextCharFormat(fmt)
    link.setForeground(painter.link_colour)
    link.setAnchor(True)
    link.setAnchorHref(href)
    link.setProperty(Prop.KIND, "attachment-link")
    return link


def insert_chips(
    cursor: QTextCursor,
    painter: TokenPainter,
    index: int,
    attachments: Sequence[Attachment],
    tokens: Mapping[str, int],
) -> None:
    """Message ``index``'s attachments, each a link to its text, on one line under it."""
    if not attachments:
        return
    new_block(cursor, top_margin=4)
    fmt = painter.plain_format(index, "attachments", painter.muted)
    fmt.setFontPointSize(painter.small_point_size)
    glyph = paperclip(QFontMetrics(fmt.font()).inFontUcs4)
    cursor.insertText(f"{glyph} " if glyph else QCoreApplication.translate("AttachmentLines", "attached: "), fmt)
    for number, attachment in enumerate(attachments):
        if number:
            cursor.insertText("   ", fmt)
        href = f"{OPEN_ATTACHMENT}?message={index}&n={number}"
        cursor.insertText(chip_label(attachment, tokens.get(attachment.sha256)), _link(fmt, painter, href))


def image_resource(image: ImageInput) -> QUrl:
    """The name the view's document keeps ``image``'s thumbnail under."""
    return QUrl(IMAGE_RESOURCE + image.sha256)


def insert_thumbnails(cursor: QTextCursor, images: Sequence[ImageInput], background: QColor | None) -> None:
    """A user message's images as thumbnails, on one line in its bubble (hover says name and size)."""
    if not images:
        return
    new_block(cursor, top_margin=4, background=background)
    document = cursor.document()
    for number, image in enumerate(images):
        url = image_resource(image)
        if document.resource(QTextDocument.ResourceType.ImageResource, url) is None:
            picture = QImage.fromData(image.data)
            if not picture.isNull():
                picture = picture.scaled(
                    THUMBNAIL_PX,
                    THUMBNAIL_PX,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            document.addResource(QTextDocument.ResourceType.ImageResource, url, picture)
        if number:
            cursor.insertText("  ")
        fmt = QTextImageFormat()
        fmt.setName(url.toString())
        width, height = image_dimensions(image.data) or (0, 0)
        fmt.setToolTip(f"{image.name}, {width}×{height}")
        cursor.insertImage(fmt)


def citation_words(uses: Sequence[AttachmentUse]) -> list[tuple[int, str, list[str]]]:
    """For each attachment a reply used by passages: its place in ``uses``, its name, the citations without it."""
    out = []
    for place, use in enumerate(uses):
        if use.whole or not use.chunks:
            continue
        labels = []
        for chunk in use.chunks:
            label = chunk
            for prefix in (f"{use.name}, ", f"{use.name}/"):
                if chunk.startswith(prefix):
                    label = chunk[len(prefix) :]
            labels.append(label)
        out.append((place, use.name, labels))
    return out


def insert_citations(cursor: QTextCursor, painter: TokenPainter, index: int, uses: Sequence[AttachmentUse]) -> None:
    """The passages reply ``index`` was given: "from report.pdf p. 3, p. 7", each a link to its text."""
    words = citation_words(uses)
    if not words:
        return
    new_block(cursor, top_margin=2)
    fmt = painter.plain_format(index, "citations", painter.muted)
    fmt.setFontPointSize(painter.small_point_size)
    cursor.insertText(QCoreApplication.translate("AttachmentLines", "from "), fmt)
    for number, (use_number, name, labels) in enumerate(words):
        if number:
            cursor.insertText("; ", fmt)
        cursor.insertText(f"{name} ", fmt)
        for chunk_number, label in enumerate(labels):
            if chunk_number:
                cursor.insertText(", ", fmt)
            href = f"{OPEN_CITATION}?message={index}&use={use_number}&chunk={chunk_number}"
            cursor.insertText(label, _link(fmt, painter, href))
