"""Files people attach to a message, read into :class:`~app.core.attachments.record.Attachment` records.

- :mod:`.read`: :func:`read_attachment` (a file or folder on disk) and
  :func:`read_attachment_bytes` (an upload or a paste), the entry points;
- :mod:`.kinds`: which kind a file is, and its bytes as text (encoding detected, not assumed);
- :mod:`.pdf`: a PDF's text layer, page by page; :mod:`.html_text`: a page as text;
- :mod:`.folder`: a folder of code (``.gitignore`` respected, caps said);
- :mod:`.limits`: the caps, and :class:`AttachmentError`, the one-line refusal.
"""

from __future__ import annotations

from app.engine.attachments.limits import AttachmentError as AttachmentError
from app.engine.attachments.limits import AttachmentLimits as AttachmentLimits
from app.engine.attachments.read import read_attachment as read_attachment
from app.engine.attachments.read import read_attachment_bytes as read_attachment_bytes
