"""Render resources/icons/tandem.svg to the PNG, ICO and ICNS files the app and installers use.

Run it after editing the SVG (the outputs are committed, so a build never
needs it): ``.venv/bin/python packaging/render_icons.py``. It uses Qt's own
SVG renderer from PySide6-Essentials, so no extra tool is needed, and writes
the Windows .ico and macOS .icns containers by hand: both formats accept
embedded PNG images, which keeps the writers to a few lines.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 32, 48, 64, 128, 256)  # 256 is the largest an ICO entry can describe
# ICNS chunk types that hold PNG data, by pixel size (ic10 is 512@2x = 1024).
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09", 1024: b"ic10"}


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn into a transparent ``size`` x ``size`` PNG."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"cannot parse {svg}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(0, 0, 0, 0))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows icon file whose entries are the given PNGs."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        blob = pngs[size]
        side = 0 if size >= 256 else size  # 0 means 256 in the one-byte width/height fields
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        blobs += blob
        offset += len(blob)
    return header + entries + blobs


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """A macOS icon file whose chunks are the given PNGs."""
    body = b"".join(ICNS_TYPES[size] + struct.pack(">I", 8 + len(blob)) + blob for size, blob in sorted(pngs.items()))
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    """Write every icon file next to the SVG."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication(sys.argv[:1])  # QPainter on a QImage wants an application object
    svg = ICONS / "tandem.svg"
    rendered = {size: render_png(svg, size) for size in (*PNG_SIZES, 1024)}
    for size in PNG_SIZES:
        (ICONS / f"tandem-{size}.png").write_bytes(rendered[size])
    (ICONS / "tandem.ico").write_bytes(ico_bytes({s: rendered[s] for s in ICO_SIZES}))
    (ICONS / "tandem.icns").write_bytes(icns_bytes({s: rendered[s] for s in ICNS_TYPES}))
    print(f"wrote {len(PNG_SIZES)} PNGs, tandem.ico and tandem.icns to {ICONS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
