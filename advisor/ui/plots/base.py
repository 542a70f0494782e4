"""What every tok/s plot shares: log axes, interactivity bands, the threshold, the cliff and a hover readout.

Items are built once; render() only calls setData / setRegion. pyqtgraph's log mode transforms
curves but not regions, lines or text, so those are placed in log10 coordinates here."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont

from advisor.core.curves import Curve
from advisor.core.feel import FEELS, Feel
from advisor.ui import theme
from advisor.ui.plots.axes import LogAxis

Y_MIN, Y_MAX = 0.5, 5000.0


def log10(x: float) -> float:
    return math.log10(max(x, 1e-12))


def finite_or_nan(values: NDArray[np.float64], mask: NDArray[np.bool_] | None = None) -> NDArray[np.float64]:
    """Zeros (does not run) become gaps on a log axis."""
    out = np.where(values > 0, values, np.nan)
    if mask is not None:
        out = np.where(mask, out, np.nan)
    return out


class TokPlot(pg.PlotWidget):
    """A tok/s plot with everything but the axis-specific curves."""

    x_label: str = ""

    binary_x: bool = False  # context and batch read best in powers of two

    def __init__(self, title: str, x_label: str, parent: object = None) -> None:
        axes = {"bottom": LogAxis("bottom", binary=self.binary_x), "left": LogAxis("left")}
        super().__init__(parent=parent, background=theme.BACKGROUND, axisItems=axes)
        self.base_title = title
        item = self.getPlotItem()
        item.setLogMode(x=True, y=True)
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setLabel("left", "tok/s per stream")
        item.setLabel("bottom", x_label)
        item.setMenuEnabled(False)
        item.hideButtons()
        for side in ("left", "bottom"):
            ax = item.getAxis(side)
            ax.setPen(theme.AXIS)
            ax.setTextPen(theme.AXIS)
            ax.setStyle(tickFont=QFont(theme.FONT, theme.TICK_PT))
        self.setMouseEnabled(x=False, y=False)
        self.legend = item.addLegend(offset=(10, -10), labelTextColor=theme.AXIS, brush=pg.mkBrush(255, 255, 255, 220))

        # Interactivity bands: horizontal regions in log10(tok/s).
        self.bands: list[tuple[pg.LinearRegionItem, pg.TextItem]] = []
        for feel in FEELS:
            region = pg.LinearRegionItem(orientation="horizontal", movable=False, brush=theme.FEEL_BRUSH[feel],
                                         pen=pg.mkPen(None))
            region.setZValue(-100)
            label = pg.TextItem(feel.value, color=theme.FEEL_TEXT, anchor=(1, 1))
            label.setFont(QFont(theme.FONT, theme.SMALL_PT))
            item.addItem(region, ignoreBounds=True)
            item.addItem(label, ignoreBounds=True)
            self.bands.append((region, label))
        self.threshold = pg.InfiniteLine(angle=0, movable=False,
                                         pen=pg.mkPen(theme.THRESHOLD, width=2, style=Qt.PenStyle.DashLine))
        item.addItem(self.threshold, ignoreBounds=True)

        # The offload cliff and, past it, where nothing runs.
        self.cliff = pg.LinearRegionItem(movable=False, brush=theme.CLIFF_BRUSH, pen=pg.mkPen(theme.CLIFF, width=2))
        self.cliff.setZValue(-50)
        self.no_run = pg.LinearRegionItem(movable=False, brush=theme.NO_RUN_BRUSH, pen=pg.mkPen(None))
        self.no_run.setZValue(-49)
        self.cliff_label = pg.TextItem("offload cliff →", color=theme.CLIFF, anchor=(0, 0))
        self.cliff_label.setFont(QFont(theme.FONT, theme.SMALL_PT, QFont.Weight.Bold))
        self.no_run_label = pg.TextItem("does not run", color=theme.AXIS, anchor=(0, 0))
        self.no_run_label.setFont(QFont(theme.FONT, theme.SMALL_PT))
        for it in (self.cliff, self.no_run, self.cliff_label, self.no_run_label):
            item.addItem(it, ignoreBounds=True)

        # Realistic line, η band and dashed ceiling.
        self.high = pg.PlotDataItem(pen=pg.mkPen(None))
        self.low = pg.PlotDataItem(pen=pg.mkPen(None))
        self.band = pg.FillBetweenItem(self.low, self.high, brush=theme.BAND_BRUSH)
        item.addItem(self.band)
        self.ceiling = item.plot(pen=pg.mkPen(theme.CEILING, width=2, style=Qt.PenStyle.DashLine),
                                 name="ceiling (η = 1)", connect="finite")
        self.line = item.plot(pen=pg.mkPen(theme.REALISTIC, width=3), name="realistic", connect="finite")
        # A legend swatch for the band (the fill item itself has no legend sample).
        self.band_swatch = pg.PlotDataItem([], [], pen=pg.mkPen(None), fillLevel=0, fillBrush=theme.BAND_BRUSH)
        self.legend.addItem(self.band_swatch, "η range")
        self.marker = item.plot(pen=None, symbol="o", symbolSize=12, symbolBrush=theme.REALISTIC,
                                symbolPen=pg.mkPen("w", width=2))

        # Hover readout.
        self.readout = pg.TextItem("", color=theme.AXIS, anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 230),
                                   border=pg.mkPen(theme.GRID))
        self.readout.setFont(QFont(theme.FONT, theme.SMALL_PT))
        self.readout.setZValue(100)
        self.readout.hide()
        item.addItem(self.readout, ignoreBounds=True)
        self.hover_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(theme.GRID, width=1))
        self.hover_line.hide()
        item.addItem(self.hover_line, ignoreBounds=True)
        self._proxy = pg.SignalProxy(self.scene().sigMouseMoved, rateLimit=30, slot=self._on_mouse)
        self.curve_data: Curve | None = None

    # --- drawing ------------------------------------------------------------------------
    def set_title(self, title: str, size_pt: int = theme.TITLE_PT) -> None:
        self.getPlotItem().setTitle(f"<span style='font-size:{size_pt}pt; color:{theme.AXIS}'>{title}</span>")

    def render_common(self, c: Curve, threshold: float, thresholds: tuple[float, ...], title: str) -> None:
        """Draw what every axis shares. On screen the title stays short (a long one would force the
        plot wider than its pane); slide exports add the scenario."""
        self.curve_data = c
        item = self.getPlotItem()
        self.set_title(title)
        runs = c.runs
        self.line.setData(c.x, finite_or_nan(c.decode, runs))
        self.ceiling.setData(c.x, finite_or_nan(c.ceiling, runs))
        # The band fills between finite curves only; where it does not run, pin it to the axis floor.
        self.low.setData(c.x, np.where(runs & (c.low > 0), c.low, Y_MIN))
        self.high.setData(c.x, np.where(runs & (c.high > 0), c.high, Y_MIN))

        x0, x1 = log10(float(c.x[0])), log10(float(c.x[-1]))
        y_top = float(np.nanmax(np.where(runs, c.ceiling, np.nan))) if runs.any() else 10.0
        y_hi = log10(min(max(y_top * 2.0, threshold * 3), Y_MAX))
        y_lo = log10(Y_MIN)
        item.setXRange(x0, x1, padding=0.02)
        item.setYRange(y_lo, y_hi, padding=0.0)

        edges = [y_lo - 5, *(log10(t) for t in thresholds), y_hi + 5]
        for k, (region, label) in enumerate(self.bands):
            region.setRegion((edges[k], edges[k + 1]))
            visible_top = min(edges[k + 1], y_hi)
            label.setPos(x1, visible_top)
            label.setVisible(edges[k] < y_hi and visible_top > y_lo)
        self.threshold.setValue(log10(threshold))

        self._set_region(self.cliff, self.cliff_label, c.cliff_x, c.no_run_x or float(c.x[-1]) * 1.05, y_hi)
        self._set_region(self.no_run, self.no_run_label, c.no_run_x, float(c.x[-1]) * 1.05, y_hi, offset=0.4)

        mx = c.marker_x
        my = float(np.interp(log10(mx), np.log10(c.x), c.decode)) if c.x[0] <= mx <= c.x[-1] else 0.0
        self.marker.setData([mx], [my] if my > 0 else [np.nan])

    def _set_region(self, region: pg.LinearRegionItem, label: pg.TextItem, start: float | None, end: float,
                    y_hi: float, offset: float = 0.0) -> None:
        if start is None:
            region.hide()
            label.hide()
            return
        region.setRegion((log10(start), log10(end)))
        region.show()
        (x0, x1), _ = self.getPlotItem().vb.viewRange()
        # Near the right edge the label would run off the plot: hang it left of the boundary instead.
        right = log10(start) > x0 + 0.75 * (x1 - x0)
        label.setAnchor((1, 0) if right else (0, 0))
        label.setPos(log10(start), y_hi - offset)
        label.show()

    # --- hover --------------------------------------------------------------------------
    def readout_text(self, i: int) -> str:
        c = self.curve_data
        assert c is not None
        if not c.runs[i]:
            return f"{self.format_x(float(c.x[i]))}\ndoes not run"
        place = "fits fast memory" if c.fits[i] else "spills to host memory"
        return (f"{self.format_x(float(c.x[i]))}\n{c.decode[i]:.1f} tok/s realistic ({c.low[i]:.1f}–{c.high[i]:.1f})"
                f"\n{c.ceiling[i]:.1f} tok/s ceiling\n{c.total_gb[i]:.1f} GB, {place}")

    def format_x(self, x: float) -> str:
        return f"{x:,.0f}"

    def _on_mouse(self, event: tuple[QPointF]) -> None:
        c = self.curve_data
        if c is None:
            return
        pos = event[0]
        vb = self.getPlotItem().vb
        if not self.sceneBoundingRect().contains(pos) or not vb.sceneBoundingRect().contains(pos):
            self.readout.hide()
            self.hover_line.hide()
            return
        p = vb.mapSceneToView(pos)
        i = int(np.clip(np.searchsorted(np.log10(c.x), p.x()), 0, len(c.x) - 1))
        self.show_readout(i)

    def show_readout(self, i: int) -> None:
        c = self.curve_data
        assert c is not None
        x_log = log10(float(c.x[i]))
        self.hover_line.setValue(x_log)
        self.hover_line.show()
        self.readout.setText(self.readout_text(i))
        (x0, x1), (y0, y1) = self.getPlotItem().vb.viewRange()
        # Keep the box inside the view: left of the cursor on the right half, hanging from the top.
        self.readout.setAnchor((1, 0) if x_log > (x0 + x1) / 2 else (0, 0))
        self.readout.setPos(x_log, y1 - 0.02 * (y1 - y0))
        self.readout.show()


def feel_color(feel: Feel) -> QColor:
    return theme.FEEL_COLOR[feel]
