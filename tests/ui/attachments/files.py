"""Real files for the attachment tests: text in several encodings, PDFs (with a text layer, encrypted), folders."""

from __future__ import annotations

import io
from pathlib import Path

from pypdf import PdfReader, PdfWriter


def text_pdf(pages: list[str]) -> bytes:
    """A PDF whose pages carry ``pages`` as their text layer (Helvetica, one line each), built by hand."""
    objects: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def encrypted_pdf(path: Path) -> Path:
    """An encrypted copy of a small text PDF at ``path``."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(text_pdf(["secret page"]))))
    writer.encrypt("open sesame")
    with path.open("wb") as file:
        writer.write(file)
    return path


def code_folder(root: Path) -> Path:
    """A folder of code with a .gitignore, a file it ignores, a binary file and a symlink loop."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    (root / "README.md").write_text("# demo\n\nA folder attached in a test.\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("ignored")
    (root / "debug.log").write_text("ignored too")
    (root / "logo.bin").write_bytes(b"\x89PNG\0\0\0binary")
    (root / "src" / "loop").symlink_to(root, target_is_directory=True)
    return root
