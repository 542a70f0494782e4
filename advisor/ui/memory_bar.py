"""The memory bar: what the scenario keeps where. Weights, KV cache and overhead laid end to end
against fast memory (a line marks its end); free fast memory in white; the part placed in host RAM
past the line, hatched; past host RAM, the weights read from disk each token (mmap), cross-hatched in a
deeper shade; anything past all of them, red. A legend under it names every part in GB.

All figures come from the solver's Result; the bar only lays them out."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from advisor.core.fmt import num
from advisor.core.result import Result
from advisor.ui import theme

WEIGHTS, KV, OVERHEAD = QColor(theme.REALISTIC), QColor(theme.AGGREGATE), QColor("#999999")
FREE = QColor("#ffffff")
HOST = QColor(theme.CLIFF)  # the same vermillion as the plots' offload cliff
DISK = QColor(theme.DISK_TEXT)  # the deeper shade of the plots' "streams from disk" zone
OVER = QColor(213, 94, 0)


class MemoryStrip(QWidget):
    """The bar itself, drawn from (name, GB, colour) parts, the fast capacity and the host share."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.parts: list[tuple[str, float, QColor]] = []
        self.capacity = 1.0
        self.host_gb = 0.0  # in host RAM
        self.disk_gb = 0.0  # beyond host RAM, read from disk
        self.setMinimumHeight(22)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(300, 22)

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        total = sum(v for _, v, _ in self.parts)
        away = self.host_gb + self.disk_gb
        scale_to = max(total, self.capacity + away, 1e-9)
        w, h = self.width() - 1, self.height() - 1
        p.fillRect(QRectF(0, 0, w, h), FREE)
        in_fast = (total - away) / total if total > 0 else 0.0  # each part's share left in fast memory
        x = 0.0
        for _, v, color in self.parts:
            width = w * v * in_fast / scale_to
            p.fillRect(QRectF(x, 0, width, h), color)
            x += width
        cap_x = w * self.capacity / scale_to
        if self.host_gb > 0:  # the part placed in host RAM, past the end of fast memory: hatched
            host = QRectF(cap_x, 0, w * self.host_gb / scale_to, h)
            p.fillRect(host, QColor(HOST.red(), HOST.green(), HOST.blue(), 110))
            p.fillRect(host, QBrush(HOST, Qt.BrushStyle.BDiagPattern))
        if self.disk_gb > 0:  # past host RAM: read from disk each token, cross-hatched
            disk = QRectF(cap_x + w * self.host_gb / scale_to, 0, w * self.disk_gb / scale_to, h)
            p.fillRect(disk, QColor(DISK.red(), DISK.green(), DISK.blue(), 120))
            p.fillRect(disk, QBrush(DISK, Qt.BrushStyle.DiagCrossPattern))
        if away == 0 and x > cap_x + 0.5:  # more than fast memory holds, and nothing placed in host RAM
            p.fillRect(QRectF(cap_x, 0, x - cap_x, h), OVER)
        p.setPen(QPen(QColor(theme.AXIS), 2))
        p.drawLine(QPointF(cap_x, 0), QPointF(cap_x, h))
        p.setPen(QPen(QColor(theme.GRID), 1))
        p.drawRect(QRectF(0, 0, w, h))
        p.end()


def _swatch(color: QColor, hatched: bool = False, crossed: bool = False) -> str:
    """A coloured square for the legend: filled, hatched (host RAM), cross-hatched (disk) or hollow (free)."""
    if color == FREE:
        return f"<span style='color:{theme.GRID}'>&#9633;</span>"
    glyph = "&#9638;" if crossed else "&#9636;" if hatched else "&#9632;"
    return f"<span style='color:{color.name()}'>{glyph}</span>"


class MemoryBar(QWidget):
    """The strip and its legend."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.strip = MemoryStrip()
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.strip)
        lay.addWidget(self.legend)

    def set_result(self, r: Result) -> None:
        parts = [
            ("weights", r.weights_gb + r.draft_gb, WEIGHTS),
            ("KV cache", r.kv_gb, KV),
            ("overhead", r.overhead_gb, OVERHEAD),
        ]
        cap = r.fast_capacity_gb if r.fast_capacity_gb is not None else r.total_gb  # unknown: the bar is the need
        # where the solver placed the bytes: host RAM, and past it the weights read from disk
        pl = r.placement
        host = (pl.weights_host_gb + pl.kv_host_gb if pl else r.offloaded_fraction * r.total_gb) if r.runs else 0.0
        disk = pl.weights_disk_gb if pl and r.runs else 0.0
        self.strip.parts, self.strip.capacity = parts, max(cap, 1e-9)
        self.strip.host_gb, self.strip.disk_gb = host, disk
        fast_used = r.total_gb - host - disk
        free = max(cap - fast_used, 0.0) if r.fast_capacity_gb is not None else 0.0
        over = max(r.total_gb - cap - host - disk, 0.0)
        items = [f"{_swatch(c)} {escape(n)} {num(v)} GB" for n, v, c in parts if v > 0]
        if r.fast_capacity_gb is None:
            items.append("memory size not given")
        elif free > 0:
            items.append(f"{_swatch(FREE)} free {num(free)} GB")
        if host > 0:
            items.append(
                f"{_swatch(HOST, hatched=True)} in host RAM {num(host)} GB "
                f"({host / r.total_gb:.0%} of it, past the line)"
            )
        if disk > 0:
            items.append(
                f"{_swatch(DISK, crossed=True)} streams from disk {num(disk)} GB "
                f"({disk / r.total_gb:.0%} of it: weights beyond host RAM, read each token)"
            )
        if over > 0 and not r.runs:
            items.append(f"<span style='color:{theme.CLIFF}'>{num(over)} GB more than fast and host memory hold</span>")
        self.legend.setText(" &nbsp;".join(items))
        self.setToolTip(
            " · ".join(f"{n} {num(v)} GB" for n, v, _ in parts)
            + f" · fast memory {num(cap)} GB"
            + (f" · host RAM {num(host)} GB" if host else "")
            + (f" · from disk {num(disk)} GB" if disk else "")
        )
        self.strip.update()
