#!/usr/bin/env python3
"""Draw the app icon with Qt and write it to resources/icons/ at every size the platforms want.

    .venv/bin/python packaging/make_icons.py

A speedometer on a dark rounded square: a green → amber → red arc (fast, slowing, off the cliff)
and a white needle. Small sizes drop the tick marks and thicken the strokes so they stay legible.

Writes llm-speed-advisor-<n>.png for n in SIZES (Linux hicolor sizes, the window icon), plus
llm-speed-advisor.ico (Windows: PNG-compressed entries, Vista and later) and llm-speed-advisor.icns
(macOS: PNG-compressed entries, 10.7 and later), both assembled here byte by byte, no Pillow or
iconutil needed. The output is committed; rerun this only when the design changes.
"""

from __future__ import annotations

import math
import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "resources" / "icons"
NAME = "llm-speed-advisor"
SIZES = (16, 32, 48, 64, 128, 256, 512)  # committed PNGs
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# macOS icns element types (PNG payloads) and the pixel size each holds
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),
    (b"ic11", 32),
    (b"ic12", 64),
    (b"ic13", 256),
    (b"ic14", 512),
)

# start and sweep of the dial, degrees counter-clockwise from 3 o'clock (Qt's convention)
DIAL_START, DIAL_SPAN = 215.0, -250.0
BANDS = ((0.00, 0.58, "#22c55e"), (0.58, 0.80, "#f59e0b"), (0.80, 1.00, "#ef4444"))
NEEDLE_AT = 0.47  # fraction of the dial


def draw(size: int):  # -> QImage
    from PySide6.QtCore import QPointF, QRectF, Qt
    from PySide6.QtGui import QBrush, QColor, QImage, QLinearGradient, QPainter, QPainterPath, QPen, QPolygonF

    s = float(size)
    small = size <= 32
    img = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)

    # background: rounded square, dark navy, lit from the top
    margin = s * (0.02 if small else 0.07)
    body = QRectF(margin, margin, s - 2 * margin, s - 2 * margin)
    grad = QLinearGradient(0, body.top(), 0, body.bottom())
    grad.setColorAt(0.0, QColor("#2b3a67"))
    grad.setColorAt(1.0, QColor("#0f172a"))
    path = QPainterPath()
    path.addRoundedRect(body, body.width() * 0.22, body.width() * 0.22)
    p.fillPath(path, QBrush(grad))

    # the dial: three coloured bands
    cx, cy = s / 2, s * 0.60
    radius = s * (0.34 if small else 0.31)
    width = s * (0.15 if small else 0.095)
    arc = QRectF(cx - radius, cy - radius, 2 * radius, 2 * radius)
    for lo, hi, colour in BANDS:
        pen = QPen(QColor(colour), width)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        p.setPen(pen)
        start = DIAL_START + DIAL_SPAN * lo
        p.drawArc(arc, round(start * 16), round(DIAL_SPAN * (hi - lo) * 16))

    def at(frac: float, r: float) -> QPointF:
        a = math.radians(DIAL_START + DIAL_SPAN * frac)
        return QPointF(cx + r * math.cos(a), cy - r * math.sin(a))

    # tick marks inside the dial, on bigger sizes only
    if not small:
        tick = QPen(QColor(255, 255, 255, 150), max(1.0, s * 0.012))
        tick.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(tick)
        inner = radius - width / 2 - s * 0.03
        for i in range(11):
            f = i / 10
            p.drawLine(at(f, inner), at(f, inner - s * (0.055 if i % 5 == 0 else 0.03)))

    # the needle: a white kite from just behind the hub towards the band
    a = math.radians(DIAL_START + DIAL_SPAN * NEEDLE_AT)
    ux, uy = math.cos(a), -math.sin(a)  # screen direction of the needle
    nx, ny = -uy, ux  # its normal
    length = radius - (width * 0.2 if small else width * 0.55)
    half = s * (0.06 if small else 0.035)
    tail = s * (0.0 if small else 0.09)
    needle = QPolygonF(
        [
            QPointF(cx + ux * length, cy + uy * length),
            QPointF(cx + nx * half, cy + ny * half),
            QPointF(cx - ux * tail, cy - uy * tail),
            QPointF(cx - nx * half, cy - ny * half),
        ]
    )
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor("#f8fafc"))
    p.drawPolygon(needle)
    hub = s * (0.075 if small else 0.06)
    p.drawEllipse(QPointF(cx, cy), hub, hub)
    if not small:
        p.setBrush(QColor("#0f172a"))
        p.drawEllipse(QPointF(cx, cy), hub * 0.4, hub * 0.4)
    p.end()
    return img


def png_bytes(img) -> bytes:  # QImage -> PNG
    from PySide6.QtCore import QBuffer, QIODevice

    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not img.save(buf, "PNG"):
        raise RuntimeError("cannot encode PNG")
    return bytes(buf.data())


def ico(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico whose entries are PNG streams (allowed since Vista)."""
    sizes = sorted(pngs)
    head = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    entries, blobs = b"", b""
    for n in sizes:
        data = pngs[n]
        dim = 0 if n >= 256 else n  # 0 means 256
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    return head + entries + blobs


def icns(pngs: dict[int, bytes]) -> bytes:
    """A macOS .icns: 'icns', total length, then (type, length, PNG) elements."""
    body = b"".join(kind + struct.pack(">I", 8 + len(pngs[n])) + pngs[n] for kind, n in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    wanted = set(SIZES) | set(ICO_SIZES) | {n for _, n in ICNS_TYPES}
    pngs = {n: png_bytes(draw(n)) for n in sorted(wanted)}
    OUT.mkdir(parents=True, exist_ok=True)
    for n in SIZES:
        (OUT / f"{NAME}-{n}.png").write_bytes(pngs[n])
    (OUT / f"{NAME}.ico").write_bytes(ico({n: pngs[n] for n in ICO_SIZES}))
    (OUT / f"{NAME}.icns").write_bytes(icns(pngs))
    print(f"wrote {len(SIZES)} PNGs, {NAME}.ico and {NAME}.icns to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
