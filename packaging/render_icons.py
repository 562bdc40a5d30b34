"""Render resources/icon.svg to the icons the platforms want, all committed to resources/:
``icon-<N>.png`` for Linux desktops (hicolor theme sizes), ``icon.ico`` for the Windows
bundle and ``icon.icns`` for the macOS one (both hold PNG images, which every Windows since
Vista and every macOS since 10.7 reads).

Run after editing the SVG: ``python packaging/render_icons.py`` (renders offscreen).
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# icns element types holding PNG data, by pixel size.
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}
RESOURCES = Path(__file__).resolve().parent.parent / "resources"


def ico(pngs: dict[int, bytes]) -> bytes:
    """An ICO file whose images are PNGs (a width or height of 256 is written as 0)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, data in pngs.items():
        side = 0 if size >= 256 else size
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    return header + entries + blobs


def icns(pngs: dict[int, bytes]) -> bytes:
    """An Apple icon file whose elements are PNGs."""
    body = b"".join(
        ICNS_TYPES[size] + struct.pack(">I", 8 + len(data)) + data
        for size, data in pngs.items()
        if size in ICNS_TYPES
    )
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(RESOURCES / "icon.svg"))
    if not renderer.isValid():
        print(f"error: cannot read {RESOURCES / 'icon.svg'}", file=sys.stderr)
        return 2
    pngs: dict[int, bytes] = {}
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        path = RESOURCES / f"icon-{size}.png"
        if not image.save(str(path), "PNG"):
            print(f"error: cannot write {path}", file=sys.stderr)
            return 2
        pngs[size] = path.read_bytes()
        print(path)
    (RESOURCES / "icon.ico").write_bytes(ico({s: pngs[s] for s in ICO_SIZES}))
    (RESOURCES / "icon.icns").write_bytes(icns(pngs))
    print(RESOURCES / "icon.ico")
    print(RESOURCES / "icon.icns")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
