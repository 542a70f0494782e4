"""One tok/s plot with a curve per machine, each in its own colour-blind-safe colour, its offload
cliff marked by a dashed edge and a shaded strip in that colour, and the interactivity bands and
threshold behind. The legend is one strip shared by the three plots (`legend_html`).

pyqtgraph's log mode transforms curves only, so strips, lines and labels sit in log10 coordinates.
Fixed decorations are plain QGraphics rectangles and lines: pyqtgraph's regions and infinite lines
recompute their bounds on every paint, which with six machines cost more than the curves."""

from __future__ import annotations

import math
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsObject, QGraphicsPathItem, QGraphicsRectItem

from advisor.core.curves import Axis, Curve
from advisor.core.feel import FEELS
from advisor.ui import theme
from advisor.ui.plots.axes import LogAxis, binary_label, binary_ticks, decade_ticks, friendly
from advisor.ui.plots.base import Y_MIN
from advisor.ui.plots.geometry import finite_or_nan, log10
from advisor.ui.plots.labels import readout_item

SLOTS = len(theme.SERIES)
TITLES: dict[Axis, tuple[str, str]] = {
    "context": ("tok/s vs context", "context length (tokens)"),
    "params": ("tok/s vs model size", "model size (billion parameters)"),
    "batch": ("tok/s vs batch", "concurrent streams (batch size)"),
}
STRIP_ALPHA = 150
STRIP = 0.03  # each machine's cliff strip, as a share of the plot's height, stacked from the bottom
Y_CAP = 50_000.0
GRID_COLOR = "#d4d4d4"  # opaque: pyqtgraph's translucent grid cost a third of each repaint


def _brush(color: str, alpha: int) -> pg.QtGui.QBrush:
    c = QColor(color)
    return pg.mkBrush(c.red(), c.green(), c.blue(), alpha)


def _opaque(brush: pg.QtGui.QBrush) -> pg.QtGui.QBrush:
    """A translucent band colour as it looks over white, painted opaque: the same look, and far cheaper
    to fill than alpha-blending the whole plot area five times."""
    c = brush.color()
    a = c.alphaF()
    return pg.mkBrush(*(round(255 - (255 - v) * a) for v in (c.red(), c.green(), c.blue())))


def legend_html(entries: list[tuple[str, str]], size_pt: int = 10) -> str:
    """The shared legend: a thick stroke in each machine's colour, then its name, then what the
    strips along the bottom of each plot mean."""
    items = [
        f"<span style='color:{color}; font-size:{size_pt + 4}pt'>&#9473;&#9473;</span>&nbsp;"
        f"<span style='font-size:{size_pt}pt'>{escape(label).replace(' ', '&nbsp;')}</span>"
        for label, color in entries
    ]
    if entries:
        items.append(
            f"<span style='font-size:{size_pt}pt; color:{theme.FEEL_TEXT}'>"
            "strips along the bottom: past that machine's offload cliff (spills to system RAM)</span>"
        )
    return "&nbsp;&nbsp;&nbsp;&nbsp; ".join(items)


class Markers(QGraphicsObject):
    """Each machine's point at the chosen context, model or batch: filled circles a fixed number of
    pixels wide, drawn in one pass (a scatter item re-rendered its symbols on every change)."""

    RADIUS = 6.0

    def __init__(self) -> None:
        super().__init__()
        self.points: list[tuple[float, float, str]] = []  # log10 x, log10 y, colour
        self._bounds = QRectF()
        self.setZValue(20)

    def set_points(self, points: list[tuple[float, float, str]]) -> None:
        if points == self.points:
            return
        self.prepareGeometryChange()
        self.points = points
        if points:
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            self._bounds = QRectF(min(xs) - 1, min(ys) - 1, max(xs) - min(xs) + 2, max(ys) - min(ys) + 2)
        else:
            self._bounds = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def paint(self, painter: QPainter, *_args: object) -> None:
        if not self.points:
            return
        to_device = painter.transform()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = self.RADIUS
        for x, y, color in self.points:
            c = to_device.map(QPointF(x, y))
            painter.setPen(pg.mkPen("w", width=2))
            painter.setBrush(pg.mkBrush(color))
            painter.drawEllipse(c, r, r)
        painter.restore()


def _rect(z: float) -> QGraphicsRectItem:
    r = QGraphicsRectItem()
    r.setPen(pg.mkPen(None))
    r.setZValue(z)
    return r


def _line(color: str, width: float, style: Qt.PenStyle, z: float = 5) -> QGraphicsLineItem:
    line = QGraphicsLineItem()
    line.setPen(pg.mkPen(color, width=width, style=style))
    line.setZValue(z)
    return line


class _Slot:
    """The items one machine draws: its line, the aggregate (batch plot), its cliff edge and strip."""

    def __init__(self, item: pg.PlotItem, aggregate: bool) -> None:
        self.line = pg.PlotDataItem(connect="finite")
        self.aggregate = pg.PlotDataItem(connect="finite") if aggregate else None
        self.strip = _rect(-50)
        self.edge = QGraphicsLineItem()
        self.edge.setZValue(-40)
        self.color: tuple[str, float] | None = None
        self.curve: Curve | None = None  # what the line shows now: an unchanged machine is not redrawn
        item.addItem(self.line)
        if self.aggregate is not None:
            item.addItem(self.aggregate)
        item.addItem(self.strip, ignoreBounds=True)
        item.addItem(self.edge, ignoreBounds=True)
        self.hide()

    def hide(self) -> None:
        self.curve = None
        for it in (self.line, self.aggregate, self.strip, self.edge):
            if it is not None:
                it.hide()

    def style(self, color: str, width: float) -> None:
        if self.color == (color, width):
            return
        self.color = (color, width)
        self.line.setPen(pg.mkPen(color, width=width))
        if self.aggregate is not None:
            self.aggregate.setPen(pg.mkPen(color, width=max(width - 1, 1), style=Qt.PenStyle.DashLine))
        self.strip.setBrush(_brush(color, STRIP_ALPHA))
        self.edge.setPen(pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine))


class ComparePlot(pg.PlotWidget):
    """tok/s per stream along one axis, one curve per machine."""

    def __init__(
        self,
        axis: Axis,
        parent: object = None,
        font_pt: int = theme.TICK_PT,
        title_pt: int = theme.TITLE_PT,
        line_width: float = 3.0,
    ) -> None:
        binary = axis in ("context", "batch")
        axes = {"bottom": LogAxis("bottom", binary=binary), "left": LogAxis("left")}
        super().__init__(parent=parent, background=theme.BACKGROUND, axisItems=axes)
        self.axis = axis
        self.title_pt = title_pt
        self.line_width = line_width
        title, x_label = TITLES[axis]
        self.base_title = title
        item = self.getPlotItem()
        item.setLogMode(x=True, y=True)
        self.binary = binary
        self.grid = QGraphicsPathItem()
        self.grid.setPen(pg.mkPen(GRID_COLOR, width=1))
        self.grid.setZValue(-90)
        item.addItem(self.grid, ignoreBounds=True)
        item.setLabel("left", "tok/s per stream" + (" (dashed: aggregate)" if axis == "batch" else ""))
        item.setLabel("bottom", x_label)
        item.setMenuEnabled(False)
        item.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        small = QFont(theme.FONT, max(font_pt - 1, 7))
        for side in ("left", "bottom"):
            ax = item.getAxis(side)
            ax.setPen(theme.AXIS)
            ax.setTextPen(theme.AXIS)
            ax.setStyle(tickFont=QFont(theme.FONT, font_pt))
            ax.label.setFont(QFont(theme.FONT, font_pt))
        self.set_title(title)

        self.bands: list[tuple[QGraphicsRectItem, pg.TextItem]] = []
        for feel in FEELS:
            band = _rect(-100)
            band.setBrush(_opaque(theme.FEEL_BRUSH[feel]))
            label = pg.TextItem(feel.value, color=theme.FEEL_TEXT, anchor=(1, 1))
            label.setFont(small)
            item.addItem(band, ignoreBounds=True)
            item.addItem(label, ignoreBounds=True)
            self.bands.append((band, label))
        self.threshold = _line(theme.THRESHOLD, 2, Qt.PenStyle.DashLine)
        self.here = _line(theme.AXIS, 1, Qt.PenStyle.DotLine)
        self.here_label = pg.TextItem("", color=theme.AXIS, anchor=(0, 0))
        self.here_label.setFont(small)
        for it in (self.threshold, self.here, self.here_label):
            item.addItem(it, ignoreBounds=True)

        self.slots = [_Slot(item, aggregate=axis == "batch") for _ in range(SLOTS)]
        # Every machine's point at the chosen context / model / batch: one scatter for all.
        self.markers = Markers()
        item.addItem(self.markers, ignoreBounds=True)
        self.shown: dict[str, tuple[str, Curve]] = {}  # label -> (colour, curve), in legend order
        self._range: tuple[float, ...] = ()

        self.readout = readout_item()
        item.addItem(self.readout, ignoreBounds=True)
        self._proxy = pg.SignalProxy(self.scene().sigMouseMoved, rateLimit=30, slot=self._on_mouse)

    def set_title(self, title: str) -> None:
        self.getPlotItem().setTitle(f"<span style='font-size:{self.title_pt}pt; color:{theme.AXIS}'>{title}</span>")

    # --- drawing ----------------------------------------------------------------------------
    def show_series(
        self,
        series: list[tuple[str, str, Curve]],
        threshold: float,
        thresholds: tuple[float, ...],
        marker_label: str = "",
    ) -> None:
        """series: (label, colour, curve) per machine, in order."""
        item = self.getPlotItem()
        self.shown = {label: (color, c) for label, color, c in series}
        top = threshold * 3
        spots: list[tuple[float, float, str]] = []
        for slot, (_label, color, c) in zip(self.slots, series, strict=False):
            slot.style(color, self.line_width)
            if slot.curve is not c:
                slot.curve = c
                slot.line.setData(c.x, finite_or_nan(c.decode, c.runs))
                if slot.aggregate is not None:
                    slot.aggregate.setData(c.x, finite_or_nan(c.aggregate, c.runs))
            slot.line.show()
            if slot.aggregate is not None:
                slot.aggregate.show()
            if c.runs.any():
                top = max(top, float(np.nanmax(np.where(c.runs, c.decode, np.nan))) * 2.5)
                if slot.aggregate is not None:
                    top = max(top, float(np.nanmax(np.where(c.runs, c.aggregate, np.nan))) * 1.5)
            mx = c.marker_x
            my = float(np.interp(log10(mx), np.log10(c.x), c.decode)) if c.x[0] <= mx <= c.x[-1] else 0.0
            if my > 0:
                spots.append((log10(mx), log10(my), color))
        for slot in self.slots[len(series) :]:
            slot.hide()
        self.markers.set_points(spots)

        first = series[0][2] if series else None
        x0, x1 = (log10(float(first.x[0])), log10(float(first.x[-1]))) if first is not None else (0.0, 3.0)
        # The top snaps to half decades: adding a machine rarely moves the axes (redrawing them is the
        # costliest part of a repaint).
        y_lo, y_hi = log10(Y_MIN), math.ceil(log10(min(top, Y_CAP)) * 2) / 2
        if (x0, x1, y_lo, y_hi) != self._range:
            self._range = (x0, x1, y_lo, y_hi)
            item.setXRange(x0, x1, padding=0.02)
            item.setYRange(y_lo, y_hi, padding=0.0)
            self._draw_grid()
        (vx0, vx1), (vy0, vy1) = item.vb.viewRange()
        wide = (vx0 - 1, vx1 + 1)

        # Each machine's strip runs from its cliff to the plot's edge, stacked along the bottom.
        strip = STRIP * (vy1 - vy0)
        for k, (slot, (_label, _color, c)) in enumerate(zip(self.slots, series, strict=False)):
            if c.cliff_x is None:
                slot.strip.hide()
                slot.edge.hide()
                continue
            start = log10(c.cliff_x)
            slot.strip.setRect(QRectF(start, vy0 + k * strip, max(wide[1] - start, 0.0), strip * 0.8))
            slot.edge.setLine(QLineF(start, vy0, start, vy1))
            slot.strip.show()
            slot.edge.show()

        edges = [vy0 - 5, *(log10(t) for t in thresholds), vy1 + 5]
        for k, (band, label) in enumerate(self.bands):
            band.setRect(QRectF(wide[0], edges[k], wide[1] - wide[0], edges[k + 1] - edges[k]))
            visible_top = min(edges[k + 1], y_hi)
            label.setPos(vx1, visible_top)
            label.setVisible(edges[k] < y_hi and visible_top > y_lo and k > 0)
        t = log10(threshold)
        self.threshold.setLine(QLineF(wide[0], t, wide[1], t))
        if first is not None:
            hx = log10(first.marker_x)
            self.here.setLine(QLineF(hx, vy0, hx, vy1))
            self.here.show()
            if self.here_label.toPlainText() != marker_label:
                self.here_label.setText(marker_label)
            self.here_label.setPos(hx, vy1)
            self.here_label.setAnchor((1, 0) if hx > vx0 + 0.7 * (vx1 - vx0) else (0, 0))
            self.here_label.setVisible(bool(marker_label))
        else:
            self.here.hide()
            self.here_label.hide()

    def _draw_grid(self) -> None:
        """Grid lines at the axes' tick values, one path, redrawn only when the range moves."""
        (x0, x1), (y0, y1) = self.getPlotItem().vb.viewRange()
        xs = binary_ticks(x0, x1) if self.binary else decade_ticks(x0, x1)
        if not self.binary and len(xs) > 10:
            xs = decade_ticks(x0, x1, (1.0, 3.0))
        ys = decade_ticks(y0, y1)
        if len(ys) > 10:
            ys = decade_ticks(y0, y1, (1.0, 3.0))
        path = QPainterPath()
        for v in xs:
            path.moveTo(math.log10(v), y0)
            path.lineTo(math.log10(v), y1)
        for v in ys:
            path.moveTo(x0, math.log10(v))
            path.lineTo(x1, math.log10(v))
        self.grid.setPath(path)

    def series_data(self, label: str) -> tuple[np.ndarray, np.ndarray]:
        """The plotted (x, y) of one machine's line, as drawn."""
        index = list(self.shown).index(label)
        x, y = self.slots[index].line.getOriginalDataset()
        return np.asarray(x), np.asarray(y)

    def strip_of(self, label: str) -> tuple[str, float] | None:
        """(colour, cliff x) of one machine's cliff strip, or None when it has no cliff here."""
        index = list(self.shown).index(label)
        slot = self.slots[index]
        if not slot.strip.isVisible():
            return None
        return slot.strip.brush().color().name(), 10 ** slot.strip.rect().left()

    # --- hover ------------------------------------------------------------------------------
    def format_x(self, x: float) -> str:
        if self.axis == "context":
            return f"{binary_label(x)} tokens of context"
        if self.axis == "batch":
            return f"{x:,.0f} stream{'s' if round(x) != 1 else ''}"
        return f"{friendly(x)} B parameters"

    def readout_text(self, x_log: float) -> str:
        lines: list[str] = []
        for label, (_color, c) in self.shown.items():
            i = int(np.clip(np.searchsorted(np.log10(c.x), x_log), 0, len(c.x) - 1))
            if not lines:
                lines.append(self.format_x(float(c.x[i])))
            if not c.runs[i]:
                lines.append(f"{label}: does not run")
            else:
                where = "" if c.fits[i] else " (spills)"
                lines.append(f"{label}: {c.decode[i]:.1f} tok/s{where}")
        return "\n".join(lines)

    def _on_mouse(self, event: tuple[QPointF]) -> None:
        if not self.shown:
            return
        pos = event[0]
        vb = self.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(pos):
            self.readout.hide()
            return
        self.show_readout(vb.mapSceneToView(pos).x())

    def show_readout(self, x_log: float) -> None:
        self.readout.setText(self.readout_text(x_log))
        (x0, x1), (y0, y1) = self.getPlotItem().vb.viewRange()
        self.readout.setAnchor((1, 0) if x_log > (x0 + x1) / 2 else (0, 0))
        self.readout.setPos(x_log, y1 - 0.02 * (y1 - y0))
        self.readout.show()
