"""One tok/s plot with a curve per machine: each in its own colour-blind-safe colour with a legend
entry, its offload cliff shaded in that colour, and the interactivity bands and threshold behind.

pyqtgraph's log mode transforms curves only, so regions, lines and labels sit in log10 coordinates."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont

from advisor.core.curves import Axis, Curve
from advisor.core.feel import FEELS
from advisor.ui import theme
from advisor.ui.plots.axes import LogAxis, binary_label, friendly
from advisor.ui.plots.base import Y_MIN, finite_or_nan, log10

SLOTS = len(theme.SERIES)
TITLES: dict[Axis, tuple[str, str]] = {
    "context": ("tok/s vs context", "context length (tokens)"),
    "params": ("tok/s vs model size", "model size (billion parameters)"),
    "batch": ("tok/s vs batch", "concurrent streams (batch size)"),
}
CLIFF_ALPHA = 38


def _brush(color: str, alpha: int) -> pg.QtGui.QBrush:
    c = QColor(color)
    return pg.mkBrush(c.red(), c.green(), c.blue(), alpha)


class _Slot:
    """The items one machine draws: its line, the aggregate (batch plot), its cliff and its marker."""

    def __init__(self, item: pg.PlotItem, aggregate: bool) -> None:
        self.line = pg.PlotDataItem(connect="finite")
        self.aggregate = pg.PlotDataItem(connect="finite") if aggregate else None
        self.cliff = pg.LinearRegionItem(movable=False)
        self.cliff.setZValue(-50)
        self.edge = pg.InfiniteLine(angle=90, movable=False)
        self.marker = pg.PlotDataItem(pen=None, symbol="o", symbolSize=11)
        item.addItem(self.line)
        if self.aggregate is not None:
            item.addItem(self.aggregate)
        item.addItem(self.cliff, ignoreBounds=True)
        item.addItem(self.edge, ignoreBounds=True)
        item.addItem(self.marker)
        self.hide()

    def hide(self) -> None:
        for it in self.items():
            it.hide()

    def items(self) -> list[pg.GraphicsObject]:
        out = [self.line, self.cliff, self.edge, self.marker]
        return out + ([self.aggregate] if self.aggregate is not None else [])

    def style(self, color: str, width: float) -> None:
        self.line.setPen(pg.mkPen(color, width=width))
        if self.aggregate is not None:
            self.aggregate.setPen(pg.mkPen(color, width=max(width - 1, 1), style=Qt.PenStyle.DashLine))
        self.cliff.setBrush(_brush(color, CLIFF_ALPHA))
        for line in self.cliff.lines:
            line.setPen(pg.mkPen(None))
        self.edge.setPen(pg.mkPen(color, width=2, style=Qt.PenStyle.DashLine))
        self.marker.setSymbolBrush(color)
        self.marker.setSymbolPen(pg.mkPen("w", width=2))


class ComparePlot(pg.PlotWidget):
    """tok/s per stream along one axis, one curve per machine."""

    def __init__(self, axis: Axis, parent: object = None, font_pt: int = theme.TICK_PT,
                 title_pt: int = theme.TITLE_PT, line_width: float = 3.0) -> None:
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
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setLabel("left", "tok/s per stream" + (" (dashed: aggregate)" if axis == "batch" else ""))
        item.setLabel("bottom", x_label)
        item.setMenuEnabled(False)
        item.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        for side in ("left", "bottom"):
            ax = item.getAxis(side)
            ax.setPen(theme.AXIS)
            ax.setTextPen(theme.AXIS)
            ax.setStyle(tickFont=QFont(theme.FONT, font_pt))
            ax.label.setFont(QFont(theme.FONT, font_pt))
        self.set_title(title)
        self.legend = item.addLegend(offset=(-10, 10), labelTextColor=theme.AXIS, brush=pg.mkBrush(255, 255, 255, 225),
                                     pen=pg.mkPen(theme.GRID))
        self.legend.setLabelTextSize(f"{max(font_pt - 1, 7)}pt")

        self.bands: list[tuple[pg.LinearRegionItem, pg.TextItem]] = []
        for feel in FEELS:
            region = pg.LinearRegionItem(orientation="horizontal", movable=False, brush=theme.FEEL_BRUSH[feel],
                                         pen=pg.mkPen(None))
            region.setZValue(-100)
            label = pg.TextItem(feel.value, color=theme.FEEL_TEXT, anchor=(0, 1))
            label.setFont(QFont(theme.FONT, max(font_pt - 1, 7)))
            item.addItem(region, ignoreBounds=True)
            item.addItem(label, ignoreBounds=True)
            self.bands.append((region, label))
        self.threshold = pg.InfiniteLine(angle=0, movable=False,
                                         pen=pg.mkPen(theme.THRESHOLD, width=2, style=Qt.PenStyle.DashLine))
        item.addItem(self.threshold, ignoreBounds=True)
        self.here = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(theme.AXIS, width=1, style=Qt.PenStyle.DotLine))
        item.addItem(self.here, ignoreBounds=True)
        self.here_label = pg.TextItem("", color=theme.AXIS, anchor=(0, 0))
        self.here_label.setFont(QFont(theme.FONT, max(font_pt - 1, 7)))
        item.addItem(self.here_label, ignoreBounds=True)
        self.cliff_note = pg.TextItem("shaded: past each machine's offload cliff", color=theme.FEEL_TEXT, anchor=(0, 1))
        self.cliff_note.setFont(QFont(theme.FONT, max(font_pt - 2, 7)))
        item.addItem(self.cliff_note, ignoreBounds=True)

        self.slots = [_Slot(item, aggregate=axis == "batch") for _ in range(SLOTS)]
        self.shown: dict[str, tuple[str, Curve]] = {}  # label -> (colour, curve), in legend order
        self._legend_key: tuple[tuple[str, str], ...] = ()
        self._range: tuple[float, ...] = ()

        self.readout = pg.TextItem("", color=theme.AXIS, anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 235),
                                   border=pg.mkPen(theme.GRID))
        self.readout.setFont(QFont(theme.FONT, theme.SMALL_PT))
        self.readout.setZValue(100)
        self.readout.hide()
        item.addItem(self.readout, ignoreBounds=True)
        self._proxy = pg.SignalProxy(self.scene().sigMouseMoved, rateLimit=30, slot=self._on_mouse)

    def set_title(self, title: str) -> None:
        self.getPlotItem().setTitle(f"<span style='font-size:{self.title_pt}pt; color:{theme.AXIS}'>{title}</span>")

    # --- drawing ----------------------------------------------------------------------------
    def show_series(self, series: list[tuple[str, str, Curve]], threshold: float,
                    thresholds: tuple[float, ...], marker_label: str = "") -> None:
        """series: (label, colour, curve) per machine, in order."""
        item = self.getPlotItem()
        self.shown = {label: (color, c) for label, color, c in series}
        top = threshold * 3
        for slot, (_label, color, c) in zip(self.slots, series, strict=False):
            slot.style(color, self.line_width)
            slot.line.setData(c.x, finite_or_nan(c.decode, c.runs))
            slot.line.show()
            if slot.aggregate is not None:
                slot.aggregate.setData(c.x, finite_or_nan(c.aggregate, c.runs))
                slot.aggregate.show()
            if c.runs.any():
                top = max(top, float(np.nanmax(np.where(c.runs, c.decode, np.nan))) * 2.5)
                if slot.aggregate is not None:
                    top = max(top, float(np.nanmax(np.where(c.runs, c.aggregate, np.nan))) * 1.5)
            mx = c.marker_x
            inside = c.x[0] <= mx <= c.x[-1]
            my = float(np.interp(log10(mx), np.log10(c.x), c.decode)) if inside else 0.0
            slot.marker.setData([mx], [my] if my > 0 else [np.nan])
            slot.marker.show()
        for slot in self.slots[len(series):]:
            slot.hide()

        first = series[0][2] if series else None
        x0, x1 = (log10(float(first.x[0])), log10(float(first.x[-1]))) if first is not None else (0.0, 3.0)
        y_lo, y_hi = log10(Y_MIN), log10(min(top, 50_000.0))
        if (x0, x1, y_lo, y_hi) != self._range:
            self._range = (x0, x1, y_lo, y_hi)
            item.setXRange(x0, x1, padding=0.02)
            item.setYRange(y_lo, y_hi, padding=0.0)
        (vx0, vx1), (vy0, vy1) = item.vb.viewRange()

        # Cliffs after the range is set, so their right edge reaches the plot's edge.
        for slot, (_label, _color, c) in zip(self.slots, series, strict=False):
            if c.cliff_x is None:
                slot.cliff.hide()
                slot.edge.hide()
                continue
            slot.cliff.setRegion((log10(c.cliff_x), max(vx1, x1) + 1))
            slot.edge.setValue(log10(c.cliff_x))
            slot.cliff.show()
            slot.edge.show()
        self.cliff_note.setVisible(any(c.cliff_x is not None for _, _, c in series))
        self.cliff_note.setPos(vx0 + 0.01 * (vx1 - vx0), vy0 + 0.01 * (vy1 - vy0))
        self.cliff_note.setAnchor((0, 1))

        edges = [y_lo - 5, *(log10(t) for t in thresholds), y_hi + 5]
        for k, (region, label) in enumerate(self.bands):
            region.setRegion((edges[k], edges[k + 1]))
            visible_top = min(edges[k + 1], y_hi)
            label.setPos(x0, visible_top)
            label.setVisible(edges[k] < y_hi and visible_top > y_lo and k > 0)
        self.threshold.setValue(log10(threshold))
        if first is not None:
            self.here.setValue(log10(first.marker_x))
            self.here.show()
            self.here_label.setText(marker_label)
            self.here_label.setPos(log10(first.marker_x), vy1)
            right = log10(first.marker_x) > vx0 + 0.7 * (vx1 - vx0)
            self.here_label.setAnchor((1, 0) if right else (0, 0))
            self.here_label.setVisible(bool(marker_label))
        else:
            self.here.hide()
            self.here_label.hide()

        key = tuple((label, color) for label, color, _ in series)
        if key != self._legend_key:  # the legend is rebuilt only when the machines change
            self._legend_key = key
            self.legend.clear()
            for slot, (label, _color, _c) in zip(self.slots, series, strict=False):
                self.legend.addItem(slot.line, label)

    def series_data(self, label: str) -> tuple[np.ndarray, np.ndarray]:
        """The plotted (x, y) of one machine's line, as drawn."""
        index = list(self.shown).index(label)
        x, y = self.slots[index].line.getOriginalDataset()
        return np.asarray(x), np.asarray(y)

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
        p = vb.mapSceneToView(pos)
        self.show_readout(p.x())

    def show_readout(self, x_log: float) -> None:
        self.readout.setText(self.readout_text(x_log))
        (x0, x1), (y0, y1) = self.getPlotItem().vb.viewRange()
        self.readout.setAnchor((1, 0) if x_log > (x0 + x1) / 2 else (0, 0))
        self.readout.setPos(x_log, y1 - 0.02 * (y1 - y0))
        self.readout.show()
